"""The special cases of the format that are not a plain column or reference: the small named
functions the spec (``spec.py``) points at."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from django.db import models

from campaign.permissions import readers_list, readers_text
from contracts.models import ContractPosting

Numberings = Mapping[str, Mapping[int, int]]

# Keys of a chronicle entry's ``data`` that hold database ids, and the section they point into.
CHRONICLE_REFS = {
    "character": "characters",
    "late": "characters",
    "dynasty": "dynasties",
    "marriage": "marriages",
    # the ledger and contracts (sections added to regnal/2 later)
    "payer": "dynasties",
    "payee": "dynasties",
    "by_dynasty": "dynasties",
    "raised_by": "dynasties",
    "giver": "dynasties",
    "taker": "dynasties",
    "posting": "postings",
    "contract": "contracts",
    "payment": "contract_payments",
    "breach": "breaches",
    "dispute": "disputes",
    "parley": "parleys",
    "excommunication": "excommunications",
}
# Keys of a chronicle entry's ``data`` that hold lists of database ids.
CHRONICLE_LIST_REFS = {"parties": "dynasties", "leaders": "characters", "winners": "dynasties"}

# Keys of a clause's ``params`` that hold database ids (a list under "between"), and their section.
# "by" and "between" were added in clause_refs 2: documents without it hold database ids there,
# which cannot be traced back; those two terms are left out when such a document is imported.
CLAUSE_REFS_VERSION = 2
CLAUSE_REFS_ADDED = ("by", "between")
CLAUSE_REFS = {
    "payer": "dynasties",
    "payee": "dynasties",
    "from": "dynasties",
    "to": "dynasties",
    "by": "dynasties",
    "between": "dynasties",
    "dynasty": "dynasties",
    "character": "characters",
}


_WHAT = {"dynasties": "dynasty", "breaches": "breach", "contract_payments": "contract payment"}


def singular(section: str) -> str:
    """What one object of a section is called in a message."""
    return _WHAT.get(section, section[:-1])


class Default:
    """A default worked out on import rather than a value; ``doc`` says what it is."""

    def __init__(self, doc: str) -> None:
        self.doc = doc

    def __repr__(self) -> str:
        return self.doc


LEGACY = Default(
    "as the site judged the line by its kind and data then: a money line its `dynasty`'s, a contract line its "
    "`parties`', a public kind public, the rest the GM's"
)
SIGNED_BY_ALL = Default("with a `signed_year`, every party signed that year; else none")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def readers(text: str, numberings: Numberings) -> list[int]:
    """The houses who may read a line or a dowry, as export ids (a house no longer present: left out)."""
    dyn = numberings["dynasties"]
    return sorted(dyn[pk] for pk in readers_list(text) if pk in dyn)


def refs_in(data: Any, refs: Mapping[str, str], numberings: Numberings) -> Any:
    """Database ids under the reference keys become export ids (an id no longer present: null)."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key, section in refs.items():
        value = out.get(key)
        if _is_int(value):
            out[key] = numberings[section].get(value)
        elif isinstance(value, list):
            out[key] = [numberings[section].get(v) if _is_int(v) else v for v in value]
    return out


def entry_data(data: Any, numberings: Numberings) -> Any:
    """A chronicle entry's data: its references as export ids, the rest as it is."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key, section in CHRONICLE_REFS.items():
        value = out.get(key)
        if _is_int(value):
            out[key] = numberings[section].get(value)
    for key, section in CHRONICLE_LIST_REFS.items():
        value = out.get(key)
        if isinstance(value, list):
            out[key] = [numberings[section].get(v) if _is_int(v) else v for v in value]
    return out


def clause_params(params: Any, numberings: Numberings) -> Any:
    return refs_in(params, CLAUSE_REFS, numberings)


def provinces(value: Any, numberings: Numberings) -> Any:
    """A BloodLine title's provinces: each one's ``controller`` as an export id."""
    if not isinstance(value, list):
        return value
    return [refs_in(p, {"controller": "dynasties"}, numberings) for p in value]


def id_list(value: Any, numberings: Numberings) -> Any:
    """A JSON list of dynasty database ids (a dispute's voters) as export ids."""
    if not isinstance(value, list):
        return value
    dyn = numberings["dynasties"]
    return [dyn.get(v) if _is_int(v) else v for v in value]


def by_year(rows: list[dict[str, Any]], entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chronicle's entries grouped under their years, in order."""
    chronicle: list[dict[str, Any]] = []
    for row, entry in zip(rows, entries, strict=True):
        if not chronicle or chronicle[-1]["year"] != row["year"]:
            chronicle.append({"year": row["year"], "entries": []})
        chronicle[-1]["entries"].append(entry)
    return chronicle


# --- on import: export ids back to the new database ids, by section -----------------------------------


def _load_refs(data: dict[str, Any], refs: Mapping[str, str], pks: Numberings) -> dict[str, Any]:
    out = dict(data)
    for key, section in refs.items():
        value = out.get(key)
        if isinstance(value, list):
            out[key] = [pks[section][v] for v in value]
        elif value is not None:
            out[key] = pks[section][value]
    return out


def load_readers(value: list[int], pks: Numberings, row: Mapping[str, Any]) -> str:
    return readers_text(pks["dynasties"][d] for d in value)


def load_line_readers(value: list[int] | None, pks: Numberings, row: Mapping[str, Any]) -> str:
    """A line's readers as stored: export ids mapped to the new houses (an older file's: its own
    data's database-free ids, already worked out by ``legacy_line_audience`` in export ids)."""
    dyn = pks["dynasties"]
    if value is None:
        return readers_text(dyn[pk] for pk in readers_list(row["legacy_readers"]) if pk in dyn)
    return readers_text(dyn[pk] for pk in value)


def load_entry_data(data: dict[str, Any], pks: Numberings, row: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(data)
    for key, section in CHRONICLE_REFS.items():
        value = out.get(key)
        if value is not None and key in out:
            out[key] = pks[section][value]
    for key, section in CHRONICLE_LIST_REFS.items():
        if isinstance(out.get(key), list):
            out[key] = [None if v is None else pks[section][v] for v in out[key]]
    return out


def load_clause_params(params: dict[str, Any], pks: Numberings, row: Mapping[str, Any]) -> dict[str, Any]:
    return _load_refs(params, CLAUSE_REFS, pks)


def load_provinces(value: list[dict[str, Any]], pks: Numberings, row: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [_load_refs(p, {"controller": "dynasties"}, pks) for p in value]


def load_id_list(value: list[int], pks: Numberings, row: Mapping[str, Any]) -> list[int]:
    return [pks["dynasties"][v] for v in value]


def write_posting_contracts(key: str, rows: list[dict[str, Any]], postings: list[models.Model], pks: Numberings) -> None:
    """The contract each posting paid under, which the contracts keep (``ContractPosting``)."""
    links = [
        ContractPosting(campaign_id=posting.campaign_id, posting_id=posting.pk, contract_id=pks["contracts"][row[key]])  # type: ignore[attr-defined]
        for row, posting in zip(rows, postings, strict=True)
        if row[key] is not None
    ]
    ContractPosting.objects.bulk_create(links)
