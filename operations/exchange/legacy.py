"""Campaign export and import: one JSON document per campaign (docs/export-format.md).

``campaign_export`` reads a campaign in a fixed number of queries, whatever its size, and
renumbers every object 1..n per section in primary-key order, so an export is deterministic.
``campaign_import`` checks the whole document before writing anything, then writes it in one
transaction with bulk inserts; every problem is an ``InvalidImport`` naming where it is.
Export -> import -> export gives the same document apart from the campaign slug.
Documents of the previous formats, ``regnal/2`` and ``regnal/1``, are still read: what ``regnal/2``
added takes its default in a ``regnal/1`` document (see ``_read``). What was added to ``regnal/2``
later and what ``regnal/3`` added (``SECTIONS_LATER``, ``FIELDS_LATER`` and ``CAMPAIGN_FIELDS_LATER``:
among them the ledger, contracts, breaches, disputes, parleys, excommunications, marriage offers,
control changes, the causes of Stability changes and the effective age and values each roll used)
is optional in every document and takes its default when absent.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import math
import re
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import FieldDoesNotExist
from django.core.validators import slug_re
from django.db import DataError, IntegrityError, connection, models, transaction
from django.db.backends.base.operations import BaseDatabaseOperations

from campaign import audit
from campaign.models import (
    STEP_ORDER,
    Audience,
    Campaign,
    ChronicleEntry,
    Membership,
    Posting,
    PostingKind,
    Role,
    Roll,
    RollSource,
    RollSubject,
    RuleTable,
)
from campaign.permissions import legacy_line_audience, readers_list, readers_text
from contracts.models import (
    Breach,
    Clause,
    ClauseKind,
    Contract,
    ContractKind,
    ContractPayment,
    ContractSignature,
    ContractState,
    Dispute,
    DisputeTerm,
    DisputeVote,
    EndKind,
    Excommunication,
    Parley,
    ParleyKind,
    ParleyVote,
    PaymentStatus,
    VoteChoice,
)
from dynasties.models import (
    PIECES,
    BirthAttempt,
    Character,
    ControlChange,
    Crown,
    CrownEvent,
    CrownEventKind,
    Dynasty,
    DynastyKind,
    Marriage,
    MarriageOffer,
    Modifier,
    ModifierKind,
    OfferStatus,
    Origin,
    PassedOver,
    Reign,
    Renunciation,
    Sex,
    Status,
    Title,
    TitleHolding,
)
from rules import contracts as clause_rules
from rules import get_ruleset
from rules.dice import DiceSpec, validate_faces
from rules.errors import InvalidImport, RuleError
from rules.stability import STABILITY_MAX, STABILITY_MIN, on_track
from rules.tables import validate_table

FORMAT = "regnal/3"
FORMAT_V2 = "regnal/2"  # still read: what regnal/3 added takes its default (FIELDS_LATER, SECTIONS_LATER)
FORMAT_V1 = "regnal/1"  # still read; see _read for what it lacks
FORMATS = (FORMAT, FORMAT_V2, FORMAT_V1)
SECTIONS = (
    "campaign",
    "dynasties",
    "crowns",
    "crown_events",
    "characters",
    "control_changes",
    "marriages",
    "reigns",
    "modifiers",
    "renunciations",
    "titles",
    "title_holdings",
    "birth_attempts",
    "rolls",
    "chronicle",
    "postings",
    "contracts",
    "clauses",
    "contract_payments",
    "breaches",
    "disputes",
    "parleys",
    "excommunications",
    "marriage_offers",
)
SECTIONS_V2 = ("crowns", "modifiers", "renunciations", "titles", "title_holdings")  # not in regnal/1
# Added to regnal/2 later: optional in every document (an older one has none).
SECTIONS_LATER = (
    "crown_events",
    "control_changes",
    "postings",
    "contracts",
    "clauses",
    "contract_payments",
    "breaches",
    "disputes",
    "parleys",
    "excommunications",
    "marriage_offers",
)
# Fields added to regnal/2 later, by section, with the default an older document gets.
FIELDS_LATER: dict[str, dict[str, Any]] = {
    "crowns": {"state": {}},
    "characters": {"effective_age_offset": 0},
    "marriages": {"dowry": "", "alliance_title": ""},
    "reigns": {"planned_end_year": None, "interim_for": None},
    "titles": {"granted_by": None, "provinces": []},
    # regnal/3: what re-deriving the game needs
    "crown_events": {"cause": "", "reign": None},
    "rolls": {"effective_age": None, "values_used": {}},
}
# Fields of the ``campaign`` object added to regnal/2 later, with their defaults.
CAMPAIGN_FIELDS_LATER: dict[str, Any] = {"allow_overdraft": False}

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
CHRONICLE_LIST_REFS = {"parties": "dynasties", "leaders": "characters"}
_WHAT = {"dynasties": "dynasty", "breaches": "breach", "contract_payments": "contract payment"}

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
SMALL_MAX = 32767
# What any value of the document may be, wherever it is (docs/export-format.md, "Limits"): every
# number within 64 bits, every string at most MAX_TEXT characters, nesting at most MAX_DEPTH deep.
# Fields stored in database columns are held to their column's range and length besides.
WHOLE_MIN, WHOLE_MAX = -(2**63), 2**63 - 1
MAX_TEXT = 100_000
MAX_DEPTH = 32
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
CHARACTERISTIC_LIMIT = 1000
_COLOR = re.compile(r"#[0-9a-fA-F]{6}")
# Integer columns' ranges, the same on every database (SQLite itself would store anything).
_COLUMN_RANGES = BaseDatabaseOperations.integer_field_ranges

M = TypeVar("M", bound=models.Model)


# --- export -----------------------------------------------------------------------------------


def _numbering(pks: Iterable[int]) -> dict[int, int]:
    return {pk: n for n, pk in enumerate(pks, start=1)}


def _ref(ids: Mapping[int, int], pk: int | None, what: str, owner: str) -> int | None:
    if pk is None:
        return None
    try:
        return ids[pk]
    except KeyError:
        raise RuleError(
            f"{owner} points to {what} #{pk} of another campaign; it cannot be exported.", code="invalid_export"
        ) from None


def campaign_export(campaign: Campaign) -> dict[str, Any]:
    """The campaign as a JSON-ready dict, read in a fixed number of queries (thirty-one)."""
    tables = {t["key"]: t["data"] for t in RuleTable.objects.filter(campaign=campaign).order_by("key").values("key", "data")}
    dynasty_rows = list(
        Dynasty.objects.filter(campaign=campaign).order_by("pk").values("pk", "name", "crown", "kind", "color", "seat")
    )
    crown_rows = list(
        Crown.objects.filter(campaign=campaign)
        .order_by("pk")
        .values("pk", "name", "home_dynasty_id", "controlled_by_id", "union_with_id", "union_since", "stability", "state")
    )
    crown_event_rows = list(
        CrownEvent.objects.filter(campaign=campaign)
        .order_by("pk")
        .values("pk", "crown_id", "year", "kind", "delta", "stability_after", "reason", "cause", "reign_id")
    )
    control_rows = list(
        ControlChange.objects.filter(campaign=campaign)
        .order_by("pk")
        .values("pk", "year", "step", "character_id", "crown_id", "from_dynasty_id", "to_dynasty_id", "cause")
    )
    character_rows = list(
        Character.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "given_name",
            "sex",
            "birth_year",
            "birth_order",
            "father_id",
            "mother_id",
            "dynastic_name",
            "birth_dynasty_id",
            "controlled_by_id",
            "characteristics",
            "status",
            "death_year",
            "death_cause",
            "retired_year",
            "prisoner_of_id",
            "prince_piece",
            "origin",
            "effective_age_offset",
            "legitimate",
            "pretender_of_id",
        )
    )
    marriage_rows = list(
        Marriage.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "husband_id",
            "wife_id",
            "arranged_year",
            "wedding_year",
            "ended_year",
            "end_cause",
            "husband_joins_wife",
            "dowry",
            "money_readers",
            "alliance_title",
            "children_raised_by_id",
        )
    )
    reign_rows = list(
        Reign.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "crown",
            "holder_id",
            "start_year",
            "end_year",
            "regent_id",
            "regency_end_year",
            "planned_end_year",
            "interim_for_id",
        )
    )
    passed_rows = list(
        PassedOver.objects.filter(reign__campaign=campaign).order_by("pk").values("reign_id", "character_id", "reason")
    )
    modifier_rows = list(
        Modifier.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "kind",
            "value",
            "crown",
            "dynasty_id",
            "against_id",
            "character_id",
            "claimant_id",
            "reason",
            "start_year",
            "end_year",
            "end_reason",
        )
    )
    renunciation_rows = list(
        Renunciation.objects.filter(campaign=campaign).order_by("pk").values("character_id", "crown", "year", "source")
    )
    title_rows = list(
        Title.objects.filter(campaign=campaign)
        .order_by("pk")
        .values("pk", "name", "province", "crown", "holder_id", "granted_year", "granted_to_id", "granted_by_id", "provinces")
    )
    holding_rows = list(
        TitleHolding.objects.filter(title__campaign=campaign)
        .order_by("pk")
        .values("pk", "title_id", "holder_id", "start_year", "end_year", "how", "disputed")
    )
    attempt_rows = list(
        BirthAttempt.objects.filter(campaign=campaign)
        .order_by("pk")
        .values("marriage_id", "year", "attempt", "success", "child_birth_year", "child_id", "roll_id")
    )
    roll_rows = list(
        Roll.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk", "year", "step", "purpose", "detail", "dice", "faces", "modifier", "target", "outcome", "source",
            "effective_age", "values_used",
        )
    )
    subject_rows = list(
        RollSubject.objects.filter(roll__campaign=campaign)
        .order_by("roll_id", "position", "pk")
        .values("roll_id", "character_id")
    )
    entry_rows = list(
        ChronicleEntry.objects.filter(campaign=campaign)
        .order_by("year", "pk")
        .values("year", "step", "kind", "text", "data", "audience", "readers")
    )

    dyn = _numbering(d["pk"] for d in dynasty_rows)
    crowns = _numbering(c["pk"] for c in crown_rows)
    chars = _numbering(c["pk"] for c in character_rows)
    marr = _numbering(m["pk"] for m in marriage_rows)
    rolls = _numbering(r["pk"] for r in roll_rows)
    titles = _numbering(t["pk"] for t in title_rows)
    reigns = _numbering(r["pk"] for r in reign_rows)

    passed: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for p in passed_rows:
        passed[p["reign_id"]].append(
            {"character": _ref(chars, p["character_id"], "character", "A passed-over heir"), "reason": p["reason"]}
        )
    subjects: dict[int, list[int | None]] = defaultdict(list)
    for s in subject_rows:
        subjects[s["roll_id"]].append(_ref(chars, s["character_id"], "character", f"Roll #{s['roll_id']}"))

    later, later_ids = _export_later(campaign, dyn, chars, marr)
    refs = {"characters": chars, "dynasties": dyn, "marriages": marr, **later_ids}
    chronicle: list[dict[str, Any]] = []
    for e in entry_rows:
        if not chronicle or chronicle[-1]["year"] != e["year"]:
            chronicle.append({"year": e["year"], "entries": []})
        chronicle[-1]["entries"].append(
            {
                "step": e["step"], "kind": e["kind"], "text": e["text"], "data": _export_entry_data(e["data"], refs),
                "audience": e["audience"], "readers": _export_readers(e["readers"], dyn),
            }
        )

    return {
        "format": FORMAT,
        "clause_refs": CLAUSE_REFS_VERSION,
        "campaign": {
            "name": campaign.name,
            "slug": campaign.slug,
            "ruleset": campaign.ruleset,
            "start_year": campaign.start_year,
            "current_year": campaign.current_year,
            "turn_length": campaign.turn_length,
            "step": campaign.step,
            "allow_overdraft": campaign.allow_overdraft,
            "optional_rules": campaign.optional_rules,
            "tables": tables,
        },
        "dynasties": [
            {
                "id": dyn[d["pk"]],
                "name": d["name"],
                "crown": d["crown"],
                "kind": d["kind"],
                "color": d["color"],
                "seat": d["seat"],
            }
            for d in dynasty_rows
        ],
        "crowns": [
            {
                "id": crowns[c["pk"]],
                "name": c["name"],
                "home_dynasty": _ref(dyn, c["home_dynasty_id"], "dynasty", f"Crown #{c['pk']}"),
                "controlled_by": _ref(dyn, c["controlled_by_id"], "dynasty", f"Crown #{c['pk']}"),
                "union_with": _ref(crowns, c["union_with_id"], "crown", f"Crown #{c['pk']}"),
                "union_since": c["union_since"],
                "stability": c["stability"],
                "state": c["state"],
            }
            for c in crown_rows
        ],
        "crown_events": [
            {
                "crown": _ref(crowns, e["crown_id"], "crown", f"Crown event #{e['pk']}"),
                "year": e["year"],
                "kind": e["kind"],
                "delta": e["delta"],
                "stability_after": e["stability_after"],
                "reason": e["reason"],
                "cause": e["cause"],
                "reign": _ref(reigns, e["reign_id"], "reign", f"Crown event #{e['pk']}"),
            }
            for e in crown_event_rows
        ],
        "characters": [_export_character(c, chars, dyn) for c in character_rows],
        "control_changes": [
            {
                "year": c["year"],
                "step": c["step"],
                "character": _ref(chars, c["character_id"], "character", f"Control change #{c['pk']}"),
                "crown": _ref(crowns, c["crown_id"], "crown", f"Control change #{c['pk']}"),
                "from_dynasty": _ref(dyn, c["from_dynasty_id"], "dynasty", f"Control change #{c['pk']}"),
                "to_dynasty": _ref(dyn, c["to_dynasty_id"], "dynasty", f"Control change #{c['pk']}"),
                "cause": c["cause"],
            }
            for c in control_rows
        ],
        "marriages": [
            {
                "id": marr[m["pk"]],
                "husband": _ref(chars, m["husband_id"], "character", f"Marriage #{m['pk']}"),
                "wife": _ref(chars, m["wife_id"], "character", f"Marriage #{m['pk']}"),
                "arranged_year": m["arranged_year"],
                "wedding_year": m["wedding_year"],
                "ended_year": m["ended_year"],
                "end_cause": m["end_cause"],
                "husband_joins_wife": m["husband_joins_wife"],
                "dowry": m["dowry"],
                "dowry_readers": _export_readers(m["money_readers"], dyn),
                "alliance_title": m["alliance_title"],
                "children_raised_by": _ref(dyn, m["children_raised_by_id"], "dynasty", f"Marriage #{m['pk']}"),
            }
            for m in marriage_rows
        ],
        "reigns": [
            {
                "id": reigns[r["pk"]],
                "crown": r["crown"],
                "holder": _ref(chars, r["holder_id"], "character", f"Reign #{r['pk']}"),
                "start_year": r["start_year"],
                "end_year": r["end_year"],
                "regent": _ref(chars, r["regent_id"], "character", f"Reign #{r['pk']}"),
                "regency_end_year": r["regency_end_year"],
                "planned_end_year": r["planned_end_year"],
                "interim_for": _ref(chars, r["interim_for_id"], "character", f"Reign #{r['pk']}"),
                "passed_over": passed.get(r["pk"], []),
            }
            for r in reign_rows
        ],
        "modifiers": [
            {
                "kind": m["kind"],
                "value": m["value"],
                "crown": m["crown"],
                "dynasty": _ref(dyn, m["dynasty_id"], "dynasty", f"Modifier #{m['pk']}"),
                "against": _ref(dyn, m["against_id"], "dynasty", f"Modifier #{m['pk']}"),
                "character": _ref(chars, m["character_id"], "character", f"Modifier #{m['pk']}"),
                "claimant": _ref(chars, m["claimant_id"], "character", f"Modifier #{m['pk']}"),
                "reason": m["reason"],
                "start_year": m["start_year"],
                "end_year": m["end_year"],
                "end_reason": m["end_reason"],
            }
            for m in modifier_rows
        ],
        "renunciations": [
            {
                "character": _ref(chars, r["character_id"], "character", "A renunciation"),
                "crown": r["crown"],
                "year": r["year"],
                "source": r["source"],
            }
            for r in renunciation_rows
        ],
        "titles": [
            {
                "id": titles[t["pk"]],
                "name": t["name"],
                "province": t["province"],
                "crown": t["crown"],
                "holder": _ref(chars, t["holder_id"], "character", f"Title #{t['pk']}"),
                "granted_year": t["granted_year"],
                "granted_to": _ref(chars, t["granted_to_id"], "character", f"Title #{t['pk']}"),
                "granted_by": _ref(dyn, t["granted_by_id"], "dynasty", f"Title #{t['pk']}"),
                "provinces": _export_provinces(t["provinces"], dyn),
            }
            for t in title_rows
        ],
        "title_holdings": [
            {
                "title": titles[h["title_id"]],
                "holder": _ref(chars, h["holder_id"], "character", f"Title holding #{h['pk']}"),
                "start_year": h["start_year"],
                "end_year": h["end_year"],
                "how": h["how"],
                "disputed": h["disputed"],
            }
            for h in holding_rows
        ],
        "birth_attempts": [
            {
                "marriage": _ref(marr, a["marriage_id"], "marriage", "A birth attempt"),
                "year": a["year"],
                "attempt": a["attempt"],
                "success": a["success"],
                "child_birth_year": a["child_birth_year"],
                "child": _ref(chars, a["child_id"], "character", "A birth attempt"),
                "roll": _ref(rolls, a["roll_id"], "roll", "A birth attempt"),
            }
            for a in attempt_rows
        ],
        "rolls": [
            {
                "id": rolls[r["pk"]],
                "year": r["year"],
                "step": r["step"],
                "purpose": r["purpose"],
                "detail": r["detail"],
                "characters": subjects.get(r["pk"], []),
                "dice": r["dice"],
                "faces": r["faces"],
                "modifier": r["modifier"],
                "target": r["target"],
                "outcome": r["outcome"],
                "source": r["source"],
                "effective_age": r["effective_age"],
                "values_used": r["values_used"],
            }
            for r in roll_rows
        ],
        "chronicle": chronicle,
        **later,
    }


def _export_character(c: dict[str, Any], chars: Mapping[int, int], dyn: Mapping[int, int]) -> dict[str, Any]:
    who = f"Character #{c['pk']}"
    return {
        "id": chars[c["pk"]],
        "given_name": c["given_name"],
        "sex": c["sex"],
        "birth_year": c["birth_year"],
        "birth_order": c["birth_order"],
        "father": _ref(chars, c["father_id"], "character", who),
        "mother": _ref(chars, c["mother_id"], "character", who),
        "dynastic_name": c["dynastic_name"],
        "birth_dynasty": _ref(dyn, c["birth_dynasty_id"], "dynasty", who),
        "controlled_by": _ref(dyn, c["controlled_by_id"], "dynasty", who),
        "characteristics": c["characteristics"],
        "status": c["status"],
        "death_year": c["death_year"],
        "death_cause": c["death_cause"],
        "retired_year": c["retired_year"],
        "prisoner_of": _ref(dyn, c["prisoner_of_id"], "dynasty", who),
        "prince_piece": c["prince_piece"],
        "origin": c["origin"],
        "effective_age_offset": c["effective_age_offset"],
        "legitimate": c["legitimate"],
        "pretender_of": _ref(dyn, c["pretender_of_id"], "dynasty", who),
    }


def _export_readers(text: str, dyn: Mapping[int, int]) -> list[int]:
    """The houses who may read a line or a dowry, as export ids (a house no longer present: left out)."""
    return sorted(dyn[pk] for pk in readers_list(text) if pk in dyn)


def _read_readers(item: _Item, key: str, dyn_ids: Mapping[int, int], *, default: list[int] | None = None) -> list[int]:
    value = item.get(key) if default is None else item.get(key, default)
    if not isinstance(value, list):
        raise item.fail(key, f"must be a list of dynasty ids, got {_kind(value)}")
    for n, one in enumerate(value):
        if not _is_int(one) or one not in dyn_ids:
            raise item.fail(f"{key}[{n}]", f"no dynasty with id {_short(one)}")
    return list(value)


def _export_entry_data(data: Any, sections: Mapping[str, Mapping[int, int]]) -> Any:
    """Database ids under the reference keys become export ids (an id no longer present: null)."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key, section in CHRONICLE_REFS.items():
        value = out.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out[key] = sections[section].get(value)
    for key, section in CHRONICLE_LIST_REFS.items():
        value = out.get(key)
        if isinstance(value, list):
            out[key] = [sections[section].get(v) if _is_int(v) else v for v in value]
    return out


# --- import: reading and checking -------------------------------------------------------------


_MISSING = object()


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut short: a refusal quotes the value, never a whole hostile one."""
    if _is_int(value) and abs(value) >= 10**limit:
        return f"a number of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _got(value: Any) -> str:
    return "null" if value is None else f"{_kind(value)} ({_short(value)})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_document(raw: str | bytes) -> Any:
    """The JSON value in an export file's contents (UTF-8 text, or gzip-compressed UTF-8 text),
    for ``campaign_import``. What is not a readable JSON document is an ``InvalidImport`` saying why."""
    if isinstance(raw, bytes):
        if raw[:2] == b"\x1f\x8b":
            try:
                with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
                    raw = stream.read(MAX_DOCUMENT_BYTES + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise InvalidImport(f"The file looks compressed (gzip) but cannot be read: {exc}.") from None
        if len(raw) > MAX_DOCUMENT_BYTES:
            raise InvalidImport(f"The document is larger than {MAX_DOCUMENT_BYTES // 2**20} MB: it is not an export.")
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidImport(f"The file is not UTF-8 text (byte {exc.start}: {exc.reason}).") from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise InvalidImport(f"The document is larger than {MAX_DOCUMENT_BYTES // 2**20} MB: it is not an export.")
    try:
        return json.loads(raw.removeprefix("\ufeff"), parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InvalidImport(f"The file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from None
    except RecursionError:
        raise InvalidImport(f"The file is not an export: its values are nested more than {MAX_DEPTH} deep.") from None
    except ValueError as exc:  # NaN or Infinity, or a number too long for Python to read
        text = str(exc)
        raise InvalidImport(f"The file is not valid JSON: {text if len(text) < 120 else text[:117] + '...'}.") from None


def _path(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "the document"


def _check_values(data: Any) -> None:
    """Refuse, wherever it is, a value that is not plain JSON or breaks the document's limits: a
    number beyond 64 bits, a decimal that is not finite, a string too long or holding a NUL or a
    lone surrogate (no database stores them), nesting deeper than ``MAX_DEPTH``. This covers the
    free-form objects (a crown's state, a chronicle entry's data, a clause's terms) that are copied
    as they are; the fields with columns of their own are checked against them besides."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, where = stack.pop()

        def fail(problem: str, where: tuple[str | int, ...] = where) -> InvalidImport:
            path = _path(where)
            return InvalidImport(f"{path}: {problem}", fields={path: problem})

        if value is None or isinstance(value, bool):
            continue
        if isinstance(value, int):
            if not WHOLE_MIN <= value <= WHOLE_MAX:
                raise fail(f"{_short(value)} is beyond the 64-bit range of numbers an export may hold")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise fail(f"{value} is not a number an export may hold")
        elif isinstance(value, str):
            _check_text(value, fail)
        elif isinstance(value, dict | list):
            if len(where) >= MAX_DEPTH:
                raise fail(f"values are nested more than {MAX_DEPTH} deep")
            if isinstance(value, list):
                stack.extend((item, (*where, i)) for i, item in enumerate(value))
                continue
            for key, item in value.items():
                if not isinstance(key, str):
                    raise fail(f"the key {_short(key)} is not a string")
                _check_text(key, lambda problem, key=key: fail(f"the key {_short(key)} {problem}"))
                stack.append((item, (*where, key)))
        else:
            raise fail(f"{type(value).__name__} is not a JSON value")


def _check_text(text: str, fail: Callable[[str], InvalidImport]) -> None:
    if len(text) > MAX_TEXT:
        raise fail(f"is {len(text)} characters long; at most {MAX_TEXT} are allowed")
    if "\x00" in text:
        raise fail("holds a NUL character, which no database stores")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise fail("holds a lone surrogate (half of a character), which is not text") from None


class _Item:
    """One object of the document: typed field reads that refuse with the field's path."""

    def __init__(self, obj: Mapping[str, Any], path: str, model: type[models.Model] | None = None) -> None:
        self.obj = obj
        self.path = path
        self.model = model

    def fail(self, key: str, problem: str) -> InvalidImport:
        return InvalidImport(f"{self.path}.{key}: {problem}", fields={f"{self.path}.{key}": problem})

    def get(self, key: str, default: Any = _MISSING) -> Any:
        if key in self.obj:
            return self.obj[key]
        if default is _MISSING:
            raise self.fail(key, "missing")
        return default

    def int(self, key: str, *, null: bool = False, low: int = INT_MIN, high: int = INT_MAX, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        if value is None and null:
            return None
        if not _is_int(value):
            raise self.fail(key, f"must be a whole number{' or null' if null else ''}, got {_got(value)}")
        column = self._range(key)
        if column is not None:  # never wider than the database column holding it
            low, high = max(low, column[0]), min(high, column[1])
        if not low <= value <= high:
            raise self.fail(key, f"{_short(value)} is outside {low}..{high}")
        return value

    def str(self, key: str, *, blank: bool = True, default: Any = _MISSING) -> str:
        value = self.get(key, default)
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {_got(value)}")
        if not blank and not value.strip():
            raise self.fail(key, "must not be empty")
        max_length = self._max_length(key)
        if max_length is not None and len(value) > max_length:
            raise self.fail(key, f"is {len(value)} characters long; at most {max_length} are allowed")
        return value

    def choice(self, key: str, choices: Iterable[str], *, default: Any = _MISSING) -> str:
        allowed = list(choices)
        value = self.get(key, default)
        if not isinstance(value, str) or value not in allowed:
            raise self.fail(key, f"{_short(value)} is not one of {', '.join(repr(c) for c in allowed)}")
        return value

    def bool(self, key: str, *, default: Any = _MISSING) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {_got(value)}")
        return value

    def object(self, key: str, *, default: Any = _MISSING) -> dict[str, Any]:
        value = self.get(key, default)
        if not isinstance(value, dict):
            raise self.fail(key, f"must be an object, got {_kind(value)}")
        return value

    def list(self, key: str) -> list[Any]:
        value = self.get(key)
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list, got {_kind(value)}")
        return value

    def ref(self, key: str, ids: Mapping[int, Any], what: str, *, null: bool = True, default: Any = _MISSING) -> Any:
        value = self.int(key, null=null, default=default)
        if value is not None and value not in ids:
            raise self.fail(key, f"no {what} with id {value}")
        return value

    def _field(self, key: str) -> Any:
        if self.model is None:
            return None
        try:
            return self.model._meta.get_field(key)
        except FieldDoesNotExist:  # a document key that is not a model field has no column of its own
            return None

    def _max_length(self, key: str) -> int | None:
        return getattr(self._field(key), "max_length", None)

    def _range(self, key: str) -> tuple[int, int] | None:
        field = self._field(key)
        if field is None or field.is_relation:
            return None
        return _COLUMN_RANGES.get(field.get_internal_type())


def _section(
    data: Mapping[str, Any], name: str, model: type[models.Model] | None = None, *, optional: bool = False
) -> list[_Item]:
    if name not in data:
        if optional:
            return []
        raise InvalidImport(f"{name}: the section is missing", fields={name: "missing"})
    value = data[name]
    if not isinstance(value, list):
        raise InvalidImport(f"{name}: must be a list, got {_kind(value)}", fields={name: "not a list"})
    items = []
    for i, obj in enumerate(value):
        if not isinstance(obj, dict):
            raise InvalidImport(f"{name}[{i}]: must be an object, got {_kind(obj)}", fields={f"{name}[{i}]": "not an object"})
        items.append(_Item(obj, f"{name}[{i}]", model))
    return items


def _ids(items: list[_Item], what: str) -> dict[int, int]:
    """Export id -> index in the section; refuses a missing, mistyped or repeated id."""
    ids: dict[int, int] = {}
    for i, item in enumerate(items):
        value = item.int("id")
        if value in ids:
            raise item.fail("id", f"the {what} id {value} is already used by {item.path.split('[')[0]}[{ids[value]}]")
        ids[value] = i
    return ids


def _check_ancestry(items: list[_Item], parents: Mapping[int, tuple[int | None, int | None]], ids: Mapping[int, int]) -> None:
    """Refuse a cycle in parentage: nobody may be their own ancestor."""
    done: set[int] = set()
    for start in parents:
        if start in done:
            continue
        on_path: dict[int, int] = {}
        stack: list[tuple[int, list[int]]] = [(start, [p for p in parents[start] if p is not None])]
        path: list[int] = [start]
        on_path[start] = 0
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                del on_path[node]
                done.add(node)
                continue
            parent = todo.pop()
            if parent in done:
                continue
            if parent in on_path:
                cycle = [node, *path[on_path[parent] :]]
                role = "father" if parents[node][0] == parent else "mother"
                raise items[ids[node]].fail(
                    role,
                    f"character {node} would be their own ancestor "
                    f"(parentage cycle {' -> '.join(map(str, cycle))}, each the child of the next)",
                )
            on_path[parent] = len(path)
            path.append(parent)
            stack.append((parent, [p for p in parents[parent] if p is not None]))


def _later(section: str, key: str) -> Any:
    """The default of a field added to regnal/2 later (a fresh copy: it may be a dict)."""
    return copy.deepcopy(FIELDS_LATER[section][key])


class _Plan:
    """The checked document, ready to write."""

    def __init__(self) -> None:
        self.campaign: dict[str, Any] = {}
        self.tables: dict[str, Any] = {}
        self.dynasties: list[dict[str, Any]] = []  # each with "id"
        self.crowns: list[dict[str, Any]] = []  # each with "id", "union_with" as an export id
        self.crown_events: list[dict[str, Any]] = []  # "crown" and "reign" as export ids
        self.control_changes: list[dict[str, Any]] = []  # references as export ids
        self.characters: list[dict[str, Any]] = []  # each with "id", "father", "mother" as export ids
        self.marriages: list[dict[str, Any]] = []
        self.reigns: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []  # each with "id"
        self.modifiers: list[dict[str, Any]] = []
        self.renunciations: list[dict[str, Any]] = []
        self.titles: list[dict[str, Any]] = []  # each with "id"
        self.holdings: list[dict[str, Any]] = []
        self.attempts: list[dict[str, Any]] = []
        self.rolls: list[tuple[dict[str, Any], list[int]]] = []
        self.entries: list[dict[str, Any]] = []
        self.postings: list[dict[str, Any]] = []  # each with "id", "reverses" as an export id
        self.contracts: list[dict[str, Any]] = []  # each with "id" and "parties"
        self.clauses: list[dict[str, Any]] = []  # each with "id"
        self.payments: list[dict[str, Any]] = []
        self.breaches: list[dict[str, Any]] = []  # each with "id"
        self.disputes: list[tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]] = []  # terms, votes
        self.parleys: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []  # each with "id"; votes
        self.excommunications: list[dict[str, Any]] = []  # each with "id"
        self.offers: list[dict[str, Any]] = []


def _stability(item: Any, key: str, *, current: bool) -> int:
    """A Stability level: on the track, -3..+3 (docs/rulings.md, The Stability track). An export of
    this format is refused beyond it; an older one, written before the track was bounded, is read at
    the track's end."""
    if current:
        return int(item.int(key, low=STABILITY_MIN, high=STABILITY_MAX))
    return on_track(int(item.int(key)))


def _read(data: Any) -> _Plan:
    if not isinstance(data, dict):
        raise InvalidImport(f"The document must be a JSON object, got {_kind(data)}.")
    _check_values(data)
    if "format" not in data:
        raise InvalidImport(f"format: missing; expected {FORMAT!r}", fields={"format": "missing"})
    if data["format"] not in FORMATS:
        raise InvalidImport(
            f"format: {_short(data['format'])} is not supported; expected {FORMAT!r} (or the older {FORMAT_V2!r}, "
            f"{FORMAT_V1!r})",
            fields={"format": "unsupported"},
        )
    # A regnal/1 document lacks what regnal/2 added: those sections and fields are optional there
    # and take their defaults (missing crowns: one per player dynasty's crown, held by it).
    old = data["format"] == FORMAT_V1

    def since_v2(default: Any) -> Any:
        return default if old else _MISSING

    for name in SECTIONS:
        if name not in data and name not in SECTIONS_LATER and not (old and name in SECTIONS_V2):
            raise InvalidImport(f"{name}: the section is missing", fields={name: "missing"})
    plan = _Plan()
    _read_campaign(data, plan)

    dynasties = _section(data, "dynasties", Dynasty)
    dyn_ids = _ids(dynasties, "dynasty")
    names: dict[str, int] = {}
    crowns: dict[str, int] = {}
    for i, d in enumerate(dynasties):
        row = {
            "id": d.int("id"),
            "name": d.str("name", blank=False),
            "crown": d.str("crown"),
            "kind": d.choice("kind", DynastyKind.values),
            "color": _color(d),
            "seat": d.int("seat", low=0, high=SMALL_MAX, default=since_v2(i)),
        }
        if row["name"] in names:
            raise d.fail("name", f"the dynastic name {row['name']!r} is already used by dynasties[{names[row['name']]}]")
        names[row["name"]] = i
        if row["crown"]:
            if row["crown"] in crowns:
                raise d.fail("crown", f"the crown {row['crown']!r} is already held by dynasties[{crowns[row['crown']]}]")
            crowns[row["crown"]] = i
        plan.dynasties.append(row)

    if old and "crowns" not in data:
        players = [d for d in plan.dynasties if d["kind"] == DynastyKind.PLAYER and d["crown"]]
        plan.crowns = [
            {
                "id": n,
                "name": d["crown"],
                "home_dynasty": d["id"],
                "controlled_by": d["id"],
                "union_with": None,
                "union_since": None,
                "stability": 0,
                "state": {},
            }
            for n, d in enumerate(players, start=1)
        ]
        crown_ids = {c["id"]: i for i, c in enumerate(plan.crowns)}
    else:
        crown_items = _section(data, "crowns", Crown)
        crown_ids = _ids(crown_items, "crown")
        crown_names: dict[str, int] = {}
        for i, c in enumerate(crown_items):
            row = {
                "id": c.int("id"),
                "name": c.str("name", blank=False),
                "home_dynasty": c.ref("home_dynasty", dyn_ids, "dynasty"),
                "controlled_by": c.ref("controlled_by", dyn_ids, "dynasty"),
                "union_with": c.ref("union_with", crown_ids, "crown"),
                "union_since": c.int("union_since", null=True),
                "stability": _stability(c, "stability", current=data["format"] == FORMAT),
                "state": c.object("state", default=_later("crowns", "state")),
            }
            if row["name"] in crown_names:
                raise c.fail("name", f"the crown {row['name']!r} is already listed as crowns[{crown_names[row['name']]}]")
            crown_names[row["name"]] = i
            if row["union_with"] == row["id"]:
                raise c.fail("union_with", f"crown {row['id']} cannot be in union with itself")
            plan.crowns.append(row)

    characters = _section(data, "characters", Character)
    char_ids = _ids(characters, "character")
    parents: dict[int, tuple[int | None, int | None]] = {}
    for c in characters:
        row = _read_character(c, char_ids, dyn_ids, since_v2)
        parents[row["id"]] = (row["father"], row["mother"])
        plan.characters.append(row)
    _check_ancestry(characters, parents, char_ids)

    for c in _section(data, "control_changes", ControlChange, optional=True):
        row = {
            "year": c.int("year"),
            "step": c.str("step"),
            "character": c.ref("character", char_ids, "character"),
            "crown": c.ref("crown", crown_ids, "crown"),
            "from_dynasty": c.ref("from_dynasty", dyn_ids, "dynasty"),
            "to_dynasty": c.ref("to_dynasty", dyn_ids, "dynasty"),
            "cause": c.str("cause", blank=False),
        }
        if (row["character"] is None) == (row["crown"] is None):
            raise c.fail("character", "a control change is of a character or of a crown: exactly one of the two")
        if row["from_dynasty"] == row["to_dynasty"]:
            raise c.fail("to_dynasty", "the same as from_dynasty: nothing changed hands")
        plan.control_changes.append(row)

    marriages = _section(data, "marriages", Marriage)
    marr_ids = _ids(marriages, "marriage")
    open_matches: dict[tuple[str, int], int] = {}
    for i, m in enumerate(marriages):
        row = _read_marriage(m, char_ids, dyn_ids)
        if row["ended_year"] is None:
            for role in ("husband", "wife"):
                other = open_matches.setdefault((role, row[role]), i)
                if other != i:
                    raise m.fail(
                        role, f"character {row[role]} already has a marriage or betrothal that has not ended (marriages[{other}])"
                    )
        plan.marriages.append(row)

    reign_ids: dict[int, int] = {}
    for i, r in enumerate(_section(data, "reigns", Reign)):
        row, passed = _read_reign(r, char_ids)
        row["id"] = r.int("id", low=1, default=i + 1)  # regnal/3; older documents: the position, from 1
        if row["id"] in reign_ids:
            raise r.fail("id", f"the reign id {row['id']} is already used by reigns[{reign_ids[row['id']]}]")
        reign_ids[row["id"]] = i
        plan.reigns.append((row, passed))

    for e in _section(data, "crown_events", CrownEvent, optional=True):
        plan.crown_events.append(
            {
                "crown": e.ref("crown", crown_ids, "crown", null=False),
                "year": e.int("year"),
                "kind": e.choice("kind", CrownEventKind.values),
                "delta": e.int("delta"),
                "stability_after": _stability(e, "stability_after", current=data["format"] == FORMAT),
                "reason": e.str("reason", blank=False),
                "cause": e.str("cause", default=_later("crown_events", "cause")),
                "reign": e.ref("reign", reign_ids, "reign", default=_later("crown_events", "reign")),
            }
        )

    for m in _section(data, "modifiers", Modifier, optional=old):
        plan.modifiers.append(_read_modifier(m, char_ids, dyn_ids))

    renounced: dict[tuple[int, str], int] = {}
    for i, r in enumerate(_section(data, "renunciations", Renunciation, optional=old)):
        row = {
            "character": r.ref("character", char_ids, "character", null=False),
            "crown": r.str("crown", blank=False),
            "year": r.int("year"),
            "source": r.str("source"),
        }
        pair = (row["character"], row["crown"])
        if pair in renounced:
            raise r.fail(
                "crown", f"character {pair[0]} has already renounced the crown of {pair[1]!r} (renunciations[{renounced[pair]}])"
            )
        renounced[pair] = i
        plan.renunciations.append(row)

    titles = _section(data, "titles", Title, optional=old)
    title_ids = _ids(titles, "title")
    provinces: dict[str, int] = {}
    for i, t in enumerate(titles):
        row = {
            "id": t.int("id"),
            "name": t.str("name", blank=False),
            "province": t.str("province", blank=False),
            "crown": t.str("crown", blank=False),
            "holder": t.ref("holder", char_ids, "character"),
            "granted_year": t.int("granted_year"),
            "granted_to": t.ref("granted_to", char_ids, "character", null=False),
            "granted_by": t.ref("granted_by", dyn_ids, "dynasty", default=_later("titles", "granted_by")),
            "provinces": _read_provinces(t, dyn_ids),
        }
        if row["province"] in provinces:
            raise t.fail(
                "province", f"the province {row['province']!r} already has a title (titles[{provinces[row['province']]}])"
            )
        provinces[row["province"]] = i
        plan.titles.append(row)

    for h in _section(data, "title_holdings", TitleHolding, optional=old):
        row = {
            "title": h.ref("title", title_ids, "title", null=False),
            "holder": h.ref("holder", char_ids, "character", null=False),
            "start_year": h.int("start_year"),
            "end_year": h.int("end_year", null=True),
            "how": h.str("how", blank=False),
            "disputed": h.bool("disputed"),
        }
        if row["end_year"] is not None and row["end_year"] < row["start_year"]:
            raise h.fail("end_year", f"{row['end_year']} is before the start year {row['start_year']}")
        plan.holdings.append(row)

    rolls = _section(data, "rolls", Roll)
    roll_ids = _ids(rolls, "roll")
    for r in rolls:
        plan.rolls.append(_read_roll(r, char_ids))

    seen_attempts: dict[tuple[int, int, int], int] = {}
    children: dict[int, int] = {}
    for i, a in enumerate(_section(data, "birth_attempts", BirthAttempt)):
        row = {
            "marriage": a.ref("marriage", marr_ids, "marriage", null=False),
            "year": a.int("year"),
            "attempt": a.int("attempt", low=1, high=3),
            "success": a.bool("success"),
            "child_birth_year": a.int("child_birth_year", null=True),
            "child": a.ref("child", char_ids, "character"),
            "roll": a.ref("roll", roll_ids, "roll"),
        }
        key = (row["marriage"], row["year"], row["attempt"])
        if key in seen_attempts:
            other = seen_attempts[key]
            raise a.fail("attempt", f"marriage {key[0]} already has attempt {key[2]} in {key[1]} (birth_attempts[{other}])")
        seen_attempts[key] = i
        if row["child"] is not None:
            if not row["success"]:
                raise a.fail("child", "only a successful attempt has a child")
            if row["child"] in children:
                other = children[row["child"]]
                raise a.fail("child", f"character {row['child']} is already the child of birth_attempts[{other}]")
            children[row["child"]] = i
        plan.attempts.append(row)

    ids = {"characters": char_ids, "dynasties": dyn_ids, "marriages": marr_ids}
    ids.update(_read_later(data, plan, ids))
    _read_chronicle(data, plan, ids)
    return plan


def _color(d: _Item) -> str:
    color = d.str("color", default="#888888")
    if not _COLOR.fullmatch(color):
        raise d.fail("color", f"{_short(color)} is not a colour written #rrggbb")
    return color


def _read_campaign(data: Mapping[str, Any], plan: _Plan) -> None:
    raw = data["campaign"]
    if not isinstance(raw, dict):
        raise InvalidImport(f"campaign: must be an object, got {_kind(raw)}", fields={"campaign": "not an object"})
    c = _Item(raw, "campaign", Campaign)
    ruleset_name = c.str("ruleset", blank=False)
    try:
        rules = get_ruleset(ruleset_name)
    except RuleError as exc:
        raise c.fail("ruleset", exc.message) from None
    slug = c.str("slug", blank=False)
    if not slug_re.match(slug):
        raise c.fail("slug", f"{_short(slug)} is not a slug (letters, digits, hyphens and underscores)")
    start = c.int("start_year")
    current = c.int("current_year")
    if current < start:
        raise c.fail("current_year", f"{current} is before the start year {start}")
    optional_rules = c.object("optional_rules")
    try:
        rules.clean_options(optional_rules)
    except RuleError as exc:
        raise c.fail("optional_rules", exc.message) from None
    tables = c.object("tables")
    for key, value in tables.items():
        try:
            validate_table(key, value)
        except RuleError as exc:
            raise c.fail(f"tables.{key}", exc.message) from None
    for key in rules.DEFAULT_TABLES:
        if key not in tables:
            raise c.fail("tables", f"the {key!r} table is missing")
    plan.campaign = {
        "name": c.str("name", blank=False).strip(),
        "slug": slug,
        "ruleset": ruleset_name,
        "start_year": start,
        "current_year": current,
        "turn_length": c.int("turn_length", low=1, high=SMALL_MAX),
        "step": c.choice("step", [s.value for s in STEP_ORDER], default=STEP_ORDER[0].value),
        "allow_overdraft": c.bool("allow_overdraft", default=CAMPAIGN_FIELDS_LATER["allow_overdraft"]),
        "optional_rules": optional_rules,
    }
    plan.tables = tables


def _read_character(
    c: _Item, char_ids: Mapping[int, int], dyn_ids: Mapping[int, int], since_v2: Callable[[Any], Any]
) -> dict[str, Any]:
    row = {
        "id": c.int("id"),
        "given_name": c.str("given_name", blank=False),
        "sex": c.choice("sex", Sex.values),
        "birth_year": c.int("birth_year"),
        "birth_order": c.int("birth_order", low=1, high=SMALL_MAX),
        "father": c.ref("father", char_ids, "character"),
        "mother": c.ref("mother", char_ids, "character"),
        "dynastic_name": c.str("dynastic_name", blank=False),
        "birth_dynasty": c.ref("birth_dynasty", dyn_ids, "dynasty"),
        "controlled_by": c.ref("controlled_by", dyn_ids, "dynasty"),
        "characteristics": c.object("characteristics"),
        "status": c.choice("status", Status.values),
        "death_year": c.int("death_year", null=True),
        "death_cause": c.str("death_cause"),
        "retired_year": c.int("retired_year", null=True, default=None),
        "prisoner_of": c.ref("prisoner_of", dyn_ids, "dynasty"),
        "prince_piece": c.choice("prince_piece", PIECES, default=""),
        "origin": c.choice("origin", Origin.values, default=Origin.BORN.value),
        "effective_age_offset": c.int("effective_age_offset", default=_later("characters", "effective_age_offset")),
        "legitimate": c.bool("legitimate", default=since_v2(True)),
        "pretender_of": c.ref("pretender_of", dyn_ids, "dynasty", default=since_v2(None)),
    }
    for name, value in row["characteristics"].items():
        if not _is_int(value):
            raise c.fail(f"characteristics.{name}", f"must be a whole number, got {_got(value)}")
        if not -CHARACTERISTIC_LIMIT <= value <= CHARACTERISTIC_LIMIT:
            raise c.fail(f"characteristics.{name}", f"{_short(value)} is outside {-CHARACTERISTIC_LIMIT}..{CHARACTERISTIC_LIMIT}")
    if row["status"] == Status.DEAD and row["death_year"] is None:
        raise c.fail("death_year", "a dead character needs a death year")
    if row["status"] != Status.DEAD and row["death_year"] is not None:
        raise c.fail("death_year", f"only a dead character has a death year; the status is {row['status']!r}")
    if row["death_year"] is not None and row["death_year"] < row["birth_year"]:
        raise c.fail("death_year", f"{row['death_year']} is before the birth year {row['birth_year']}")
    return row


def _read_marriage(m: _Item, char_ids: Mapping[int, int], dyn_ids: Mapping[int, int]) -> dict[str, Any]:
    row = {
        "id": m.int("id"),
        "husband": m.ref("husband", char_ids, "character", null=False),
        "wife": m.ref("wife", char_ids, "character", null=False),
        "arranged_year": m.int("arranged_year"),
        "wedding_year": m.int("wedding_year", null=True),
        "ended_year": m.int("ended_year", null=True),
        "end_cause": m.str("end_cause"),
        "husband_joins_wife": m.bool("husband_joins_wife"),
        "dowry": m.str("dowry", default=_later("marriages", "dowry")),
        "dowry_readers": _read_readers(m, "dowry_readers", dyn_ids, default=[]),  # older files: the GM's alone
        "alliance_title": m.str("alliance_title", default=_later("marriages", "alliance_title")),
        "children_raised_by": m.ref("children_raised_by", dyn_ids, "dynasty", default=None),
    }
    if row["husband"] == row["wife"]:
        raise m.fail("wife", f"character {row['wife']} cannot marry themselves")
    for key in ("wedding_year", "ended_year"):
        if row[key] is not None and row[key] < row["arranged_year"]:
            raise m.fail(key, f"{row[key]} is before the arranged year {row['arranged_year']}")
    if row["ended_year"] is not None and not row["end_cause"].strip():
        raise m.fail("end_cause", "a marriage that ended needs a cause")
    return row


def _read_modifier(m: _Item, char_ids: Mapping[int, int], dyn_ids: Mapping[int, int]) -> dict[str, Any]:
    row = {
        "kind": m.choice("kind", ModifierKind.values),
        "value": m.int("value"),
        "crown": m.str("crown"),
        "dynasty": m.ref("dynasty", dyn_ids, "dynasty"),
        "against": m.ref("against", dyn_ids, "dynasty"),
        "character": m.ref("character", char_ids, "character"),
        "claimant": m.ref("claimant", char_ids, "character"),
        "reason": m.str("reason", blank=False),
        "start_year": m.int("start_year"),
        "end_year": m.int("end_year", null=True),
        "end_reason": m.str("end_reason"),
    }
    if row["end_year"] is not None and row["end_year"] < row["start_year"]:
        raise m.fail("end_year", f"{row['end_year']} is before the start year {row['start_year']}")
    return row


def _read_reign(r: _Item, char_ids: Mapping[int, int]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    row = {
        "crown": r.str("crown", blank=False),
        "holder": r.ref("holder", char_ids, "character", null=False),
        "start_year": r.int("start_year"),
        "end_year": r.int("end_year", null=True),
        "regent": r.ref("regent", char_ids, "character"),
        "regency_end_year": r.int("regency_end_year", null=True, default=None),
        "planned_end_year": r.int("planned_end_year", null=True, default=_later("reigns", "planned_end_year")),
        "interim_for": r.ref("interim_for", char_ids, "character", default=_later("reigns", "interim_for")),
    }
    if row["end_year"] is not None and row["end_year"] < row["start_year"]:
        raise r.fail("end_year", f"{row['end_year']} is before the start year {row['start_year']}")
    if row["regent"] is not None and row["regent"] == row["holder"]:
        raise r.fail("regent", f"character {row['regent']} cannot be regent for themselves")
    if row["interim_for"] is not None and row["interim_for"] == row["holder"]:
        raise r.fail("interim_for", f"character {row['interim_for']} cannot reign in the interim for themselves")
    passed: list[dict[str, Any]] = []
    seen: set[int] = set()
    for j, raw in enumerate(r.list("passed_over")):
        if not isinstance(raw, dict):
            raise r.fail(f"passed_over[{j}]", f"must be an object, got {_kind(raw)}")
        p = _Item(raw, f"{r.path}.passed_over[{j}]", PassedOver)
        item = {"character": p.ref("character", char_ids, "character", null=False), "reason": p.str("reason")}
        if item["character"] in seen:
            raise p.fail("character", f"character {item['character']} is already listed as passed over in this reign")
        seen.add(item["character"])
        passed.append(item)
    return row, passed


def _read_roll(r: _Item, char_ids: Mapping[int, int]) -> tuple[dict[str, Any], list[int]]:
    row = {
        "id": r.int("id"),
        "year": r.int("year"),
        "step": r.str("step"),
        "purpose": r.str("purpose", blank=False),
        "detail": r.str("detail"),
        "dice": r.str("dice", blank=False),
        "faces": r.get("faces"),
        "modifier": r.int("modifier"),
        "target": r.int("target", null=True),
        "outcome": r.str("outcome"),
        "source": r.choice("source", RollSource.values),
        "effective_age": r.int("effective_age", null=True, low=0, default=_later("rolls", "effective_age")),
        "values_used": r.object("values_used", default=_later("rolls", "values_used")),
    }
    for name, value in row["values_used"].items():
        if not _is_int(value) or not -CHARACTERISTIC_LIMIT <= value <= CHARACTERISTIC_LIMIT:
            raise r.fail(f"values_used.{name}", f"must be a whole number within -1000..1000, got {_got(value)}")
    try:
        spec = DiceSpec.parse(row["dice"])
    except RuleError as exc:
        raise r.fail("dice", exc.message) from None
    try:
        validate_faces(spec, row["faces"], purpose=f"{row['purpose']} roll")
    except RuleError as exc:
        raise r.fail("faces", exc.message) from None
    subjects: list[int] = []
    for j, value in enumerate(r.list("characters")):
        where = f"characters[{j}]"
        if not _is_int(value):
            raise r.fail(where, f"must be a character id, got {_got(value)}")
        if value not in char_ids:
            raise r.fail(where, f"no character with id {value}")
        if value in subjects:
            raise r.fail(where, f"character {value} is listed twice")
        subjects.append(value)
    return row, subjects


def _read_chronicle(data: Mapping[str, Any], plan: _Plan, ids: Mapping[str, Mapping[int, int]]) -> None:
    raw = data["chronicle"]
    if not isinstance(raw, list):
        raise InvalidImport(f"chronicle: must be a list, got {_kind(raw)}", fields={"chronicle": "not a list"})
    last_year: int | None = None
    for i, group in enumerate(raw):
        if not isinstance(group, dict):
            problem = f"must be an object, got {_kind(group)}"
            raise InvalidImport(f"chronicle[{i}]: {problem}", fields={f"chronicle[{i}]": problem})
        g = _Item(group, f"chronicle[{i}]")
        year = g.int("year")
        if last_year is not None and year <= last_year:
            raise g.fail("year", f"{year} must come after {last_year}: the chronicle is grouped by year in order")
        last_year = year
        for j, entry in enumerate(g.list("entries")):
            if not isinstance(entry, dict):
                raise g.fail(f"entries[{j}]", f"must be an object, got {_kind(entry)}")
            e = _Item(entry, f"chronicle[{i}].entries[{j}]", ChronicleEntry)
            entry_data = e.object("data")
            row = {"year": year, "step": e.str("step"), "kind": e.str("kind", blank=False), "text": e.str("text"), "data": {}}
            for key, value in entry_data.items():
                section = CHRONICLE_REFS.get(key)
                if section is not None and value is not None:
                    what = _WHAT.get(section, section[:-1])
                    if not _is_int(value):
                        raise e.fail(f"data.{key}", f"must be a {what} id or null, got {_got(value)}")
                    if value not in ids[section]:
                        raise e.fail(f"data.{key}", f"no {what} with id {value}")
                section = CHRONICLE_LIST_REFS.get(key)
                if section is not None:
                    what = _WHAT.get(section, section[:-1])
                    if not isinstance(value, list):
                        raise e.fail(f"data.{key}", f"must be a list of {what} ids, got {_kind(value)}")
                    for n, one in enumerate(value):
                        if one is not None and (not _is_int(one) or one not in ids[section]):
                            raise e.fail(f"data.{key}[{n}]", f"no {what} with id {_short(one)}")
            row["data"] = entry_data
            if "audience" in entry:  # who may read it; older files: as the line's kind and data said then
                row["audience"] = e.choice("audience", Audience.values)
                row["readers"] = _read_readers(e, "readers", ids["dynasties"], default=[])
                if row["audience"] == Audience.PARTIES and not row["readers"]:
                    raise e.fail("readers", "a line for its parties must name at least one dynasty")
            else:
                row["audience"], row["legacy_readers"] = legacy_line_audience(row["kind"], entry_data)
                row["readers"] = None
            plan.entries.append(row)


# --- import: writing --------------------------------------------------------------------------


def _unique_slug(base: str) -> str:
    if not Campaign.objects.filter(slug=base).exists():
        return base
    max_length = Campaign._meta.get_field("slug").max_length or 80
    taken = set(Campaign.objects.filter(slug__startswith=base[: max_length - 4]).values_list("slug", flat=True))
    n = 2
    while True:
        suffix = f"-{n}"
        slug = base[: max_length - len(suffix)] + suffix
        if slug not in taken:
            return slug
        n += 1


def _bulk_create(model: type[M], objs: list[M]) -> list[M]:
    if not objs:
        return objs
    if connection.features.can_return_rows_from_bulk_insert:
        return model._default_manager.bulk_create(objs)
    for obj in objs:  # databases that cannot return the new ids: one insert each
        obj.skip_history_when_saving = True  # type: ignore[attr-defined]  # the trail is written at the end
        obj.save(force_insert=True)
    return objs


_CONSTRAINT_TEXT = {
    "marriage_one_open_per_husband": "a husband has two marriages or betrothals that have not ended",
    "marriage_one_open_per_wife": "a wife has two marriages or betrothals that have not ended",
    "reign_one_open_per_crown": "a crown has two reigns that have not ended",
    "crown_unique_in_campaign": "two crowns have the same name",
    "renunciation_once": "a character renounces the same crown twice",
    "title_one_per_province": "a province has two titles",
    "posting_two_accounts": "a posting pays a dynasty's own exchequer",
    "contractpayment_once_per_turn": "a clause has two payments in the same turn",
    "excommunication_one_open_per_house": "a house has two excommunications that have not ended",
}
_WRITTEN = (
    Campaign,
    RuleTable,
    Membership,
    Dynasty,
    Crown,
    CrownEvent,
    Character,
    Marriage,
    Reign,
    PassedOver,
    Modifier,
    Renunciation,
    Title,
    TitleHolding,
    Roll,
    RollSubject,
    BirthAttempt,
    Posting,
    Contract,
    ContractSignature,
    Clause,
    ContractPayment,
    Breach,
    Dispute,
    DisputeTerm,
    DisputeVote,
    Parley,
    ParleyVote,
    Excommunication,
    MarriageOffer,
)


def _broken_constraint(text: str) -> tuple[type[models.Model], models.BaseConstraint] | None:
    """The constraint a database error names: PostgreSQL and SQLite checks give its name,
    SQLite unique indexes give their columns."""
    for model in _WRITTEN:
        for constraint in model._meta.constraints:
            if re.search(rf"\b{re.escape(constraint.name)}\b", text):
                return model, constraint
            if isinstance(constraint, models.UniqueConstraint) and constraint.fields:
                columns = ", ".join(f"{model._meta.db_table}.{model._meta.get_field(f).column}" for f in constraint.fields)
                if re.search(rf"failed: {re.escape(columns)}$", text.strip()):
                    return model, constraint
    return None


def _integrity_message(exc: Exception) -> str:
    text = str(exc).strip()
    found = _broken_constraint(text)
    if found is None:
        return f"The import could not be stored: {text}"
    model, constraint = found
    meaning = _CONSTRAINT_TEXT.get(constraint.name, f"the rule {constraint.name!r} on {model._meta.verbose_name_plural}")
    return f"The import breaks a rule of the books: {meaning} ({constraint.name})."


def campaign_import(data: Any, *, by: AbstractBaseUser | None = None, slug: str | None = None) -> Campaign:
    """Load an exported campaign as a new campaign; ``by`` becomes its GM.

    The whole document is checked first; any problem is an ``InvalidImport`` naming it, and
    nothing is written (the transaction rolls back)."""
    try:
        return _import(data, by=by, slug=slug)
    except (IntegrityError, DataError) as exc:
        raise InvalidImport(_integrity_message(exc)) from exc


@transaction.atomic
def _import(data: Any, *, by: AbstractBaseUser | None, slug: str | None) -> Campaign:
    plan = _read(data)
    if slug is not None:
        if not slug_re.match(slug) or len(slug) > 80:
            raise InvalidImport(f"slug: {_short(slug)} is not a slug (letters, digits, hyphens and underscores)")
        if Campaign.objects.filter(slug=slug).exists():
            raise RuleError(f"The slug {slug!r} is taken; choose another.", code="slug_taken", fields={"slug": "taken"})
        plan.campaign["slug"] = slug
    else:
        plan.campaign["slug"] = _unique_slug(plan.campaign["slug"])
    campaign = Campaign.objects.create(**plan.campaign)
    _bulk_create(RuleTable, [RuleTable(campaign=campaign, key=k, data=v) for k, v in plan.tables.items()])
    if by is not None:
        Membership.objects.create(campaign=campaign, user=by, role=Role.GM)

    dynasties = _bulk_create(
        Dynasty, [Dynasty(campaign=campaign, **{k: v for k, v in d.items() if k != "id"}) for d in plan.dynasties]
    )
    dyn = {d["id"]: obj.pk for d, obj in zip(plan.dynasties, dynasties, strict=True)}

    def dyn_pk(value: int | None) -> int | None:
        return None if value is None else dyn[value]

    crowns = _bulk_create(
        Crown,
        [
            Crown(
                campaign=campaign,
                name=c["name"],
                home_dynasty_id=dyn_pk(c["home_dynasty"]),
                controlled_by_id=dyn_pk(c["controlled_by"]),
                union_since=c["union_since"],
                stability=c["stability"],
                state=c["state"],
            )
            for c in plan.crowns
        ],
    )
    # Unions are linked once every crown exists (a union points both ways).
    crown_pks = {c["id"]: obj.pk for c, obj in zip(plan.crowns, crowns, strict=True)}
    in_union = []
    for c, obj in zip(plan.crowns, crowns, strict=True):
        if c["union_with"] is not None:
            obj.union_with_id = crown_pks[c["union_with"]]
            in_union.append(obj)
    if in_union:
        Crown.objects.bulk_update(in_union, ["union_with"])
    characters = _bulk_create(
        Character,
        [
            Character(
                campaign=campaign,
                given_name=c["given_name"],
                sex=c["sex"],
                birth_year=c["birth_year"],
                birth_order=c["birth_order"],
                dynastic_name=c["dynastic_name"],
                birth_dynasty_id=dyn_pk(c["birth_dynasty"]),
                controlled_by_id=dyn_pk(c["controlled_by"]),
                characteristics=c["characteristics"],
                status=c["status"],
                death_year=c["death_year"],
                death_cause=c["death_cause"],
                retired_year=c["retired_year"],
                prisoner_of_id=dyn_pk(c["prisoner_of"]),
                prince_piece=c["prince_piece"],
                origin=c["origin"],
                effective_age_offset=c["effective_age_offset"],
                legitimate=c["legitimate"],
                pretender_of_id=dyn_pk(c["pretender_of"]),
            )
            for c in plan.characters
        ],
    )
    chars = {c["id"]: obj.pk for c, obj in zip(plan.characters, characters, strict=True)}

    def char_pk(value: int | None) -> int | None:
        return None if value is None else chars[value]

    _bulk_create(
        ControlChange,
        [
            ControlChange(
                campaign=campaign,
                year=c["year"],
                step=c["step"],
                character_id=char_pk(c["character"]),
                crown_id=None if c["crown"] is None else crown_pks[c["crown"]],
                from_dynasty_id=dyn_pk(c["from_dynasty"]),
                to_dynasty_id=dyn_pk(c["to_dynasty"]),
                cause=c["cause"],
            )
            for c in plan.control_changes
        ],
    )

    # Parents are linked once everyone exists, so the file's order (and so pk order) is kept.
    with_parents = []
    for c, obj in zip(plan.characters, characters, strict=True):
        if c["father"] is not None or c["mother"] is not None:
            obj.father_id, obj.mother_id = char_pk(c["father"]), char_pk(c["mother"])
            with_parents.append(obj)
    if with_parents:
        Character.objects.bulk_update(with_parents, ["father", "mother"])

    marriages = _bulk_create(
        Marriage,
        [
            Marriage(
                campaign=campaign,
                husband_id=chars[m["husband"]],
                wife_id=chars[m["wife"]],
                arranged_year=m["arranged_year"],
                wedding_year=m["wedding_year"],
                ended_year=m["ended_year"],
                end_cause=m["end_cause"],
                husband_joins_wife=m["husband_joins_wife"],
                dowry=m["dowry"],
                money_readers=readers_text(dyn_pk(d) for d in m["dowry_readers"]),
                alliance_title=m["alliance_title"],
                children_raised_by_id=dyn_pk(m["children_raised_by"]),
            )
            for m in plan.marriages
        ],
    )
    marr = {m["id"]: obj.pk for m, obj in zip(plan.marriages, marriages, strict=True)}

    reigns = _bulk_create(
        Reign,
        [
            Reign(
                campaign=campaign,
                crown=r["crown"],
                holder_id=chars[r["holder"]],
                start_year=r["start_year"],
                end_year=r["end_year"],
                regent_id=char_pk(r["regent"]),
                regency_end_year=r["regency_end_year"],
                planned_end_year=r["planned_end_year"],
                interim_for_id=char_pk(r["interim_for"]),
            )
            for r, _ in plan.reigns
        ],
    )
    _bulk_create(
        PassedOver,
        [
            PassedOver(reign=reign, character_id=chars[p["character"]], reason=p["reason"])
            for reign, (_, passed) in zip(reigns, plan.reigns, strict=True)
            for p in passed
        ],
    )
    reign_pks = {r["id"]: obj.pk for (r, _), obj in zip(plan.reigns, reigns, strict=True)}
    _bulk_create(
        CrownEvent,
        [
            CrownEvent(
                campaign=campaign,
                crown_id=crown_pks[e["crown"]],
                year=e["year"],
                kind=e["kind"],
                delta=e["delta"],
                stability_after=e["stability_after"],
                reason=e["reason"],
                cause=e["cause"],
                reign_id=None if e["reign"] is None else reign_pks[e["reign"]],
            )
            for e in plan.crown_events
        ],
    )

    _bulk_create(
        Modifier,
        [
            Modifier(
                campaign=campaign,
                kind=m["kind"],
                value=m["value"],
                crown=m["crown"],
                dynasty_id=dyn_pk(m["dynasty"]),
                against_id=dyn_pk(m["against"]),
                character_id=char_pk(m["character"]),
                claimant_id=char_pk(m["claimant"]),
                reason=m["reason"],
                start_year=m["start_year"],
                end_year=m["end_year"],
                end_reason=m["end_reason"],
            )
            for m in plan.modifiers
        ],
    )
    _bulk_create(
        Renunciation,
        [
            Renunciation(
                campaign=campaign, character_id=chars[r["character"]], crown=r["crown"], year=r["year"], source=r["source"]
            )
            for r in plan.renunciations
        ],
    )
    titles = _bulk_create(
        Title,
        [
            Title(
                campaign=campaign,
                name=t["name"],
                province=t["province"],
                crown=t["crown"],
                holder_id=char_pk(t["holder"]),
                granted_year=t["granted_year"],
                granted_to_id=chars[t["granted_to"]],
                granted_by_id=dyn_pk(t["granted_by"]),
                provinces=[_import_refs(p, {"controller": "dynasties"}, {"dynasties": dyn}) for p in t["provinces"]],
            )
            for t in plan.titles
        ],
    )
    title_pks = {t["id"]: obj.pk for t, obj in zip(plan.titles, titles, strict=True)}
    _bulk_create(
        TitleHolding,
        [
            TitleHolding(
                title_id=title_pks[h["title"]],
                holder_id=chars[h["holder"]],
                start_year=h["start_year"],
                end_year=h["end_year"],
                how=h["how"],
                disputed=h["disputed"],
            )
            for h in plan.holdings
        ],
    )

    rolls = _bulk_create(Roll, [Roll(campaign=campaign, **{k: v for k, v in r.items() if k != "id"}) for r, _ in plan.rolls])
    roll_pks = {r["id"]: obj.pk for (r, _), obj in zip(plan.rolls, rolls, strict=True)}
    _bulk_create(
        RollSubject,
        [
            RollSubject(roll=roll, character_id=chars[cid], position=pos)
            for roll, (_, subjects) in zip(rolls, plan.rolls, strict=True)
            for pos, cid in enumerate(subjects)
        ],
    )

    _bulk_create(
        BirthAttempt,
        [
            BirthAttempt(
                campaign=campaign,
                marriage_id=marr[a["marriage"]],
                year=a["year"],
                attempt=a["attempt"],
                success=a["success"],
                child_birth_year=a["child_birth_year"],
                child_id=char_pk(a["child"]),
                roll_id=None if a["roll"] is None else roll_pks[a["roll"]],
            )
            for a in plan.attempts
        ],
    )

    sections: dict[str, Mapping[int, int]] = {"characters": chars, "dynasties": dyn, "marriages": marr}
    sections.update(_write_later(campaign, plan, sections))
    _bulk_create(
        ChronicleEntry,
        [
            ChronicleEntry(
                campaign=campaign,
                year=e["year"],
                step=e["step"],
                kind=e["kind"],
                text=e["text"],
                data=_import_entry_data(e["data"], sections),
                audience=e["audience"],
                readers=_import_readers(e, sections["dynasties"]),
            )
            for e in plan.entries
        ],
    )
    audit.record_import(campaign, by=by)
    return campaign


def _import_readers(entry: Mapping[str, Any], dyn: Mapping[int, int]) -> str:
    """A line's readers as stored: export ids mapped to the new houses (an older file's: its own
    data's database-free ids, already worked out by ``legacy_line_audience`` in export ids)."""
    if entry["readers"] is None:
        return readers_text(dyn[pk] for pk in readers_list(entry["legacy_readers"]) if pk in dyn)
    return readers_text(dyn[pk] for pk in entry["readers"])


def _import_entry_data(data: dict[str, Any], sections: Mapping[str, Mapping[int, int]]) -> dict[str, Any]:
    out = dict(data)
    for key, section in CHRONICLE_REFS.items():
        value = out.get(key)
        if value is not None and key in out:
            out[key] = sections[section][value]
    for key, section in CHRONICLE_LIST_REFS.items():
        if isinstance(out.get(key), list):
            out[key] = [None if v is None else sections[section][v] for v in out[key]]
    return out


# --- sections added to regnal/2 later: money, contracts and what hangs on them ----------------

# Keys of a clause's ``params`` that hold database ids, and the section they point into.
# A list under such a key (a non-aggression clause's "between") is a list of ids.
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


def _export_refs(data: Any, refs: Mapping[str, str], sections: Mapping[str, Mapping[int, int]]) -> Any:
    """Database ids under the reference keys become export ids (an id no longer present: null)."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key, section in refs.items():
        value = out.get(key)
        if _is_int(value):
            out[key] = sections[section].get(value)
        elif isinstance(value, list):
            out[key] = [sections[section].get(v) if _is_int(v) else v for v in value]
    return out


def _export_provinces(provinces: Any, dyn: Mapping[int, int]) -> Any:
    if not isinstance(provinces, list):
        return provinces
    return [_export_refs(p, {"controller": "dynasties"}, {"dynasties": dyn}) for p in provinces]


def _export_later(
    campaign: Campaign, dyn: Mapping[int, int], chars: Mapping[int, int], marr: Mapping[int, int]
) -> tuple[dict[str, Any], dict[str, dict[int, int]]]:
    """The sections added to regnal/2 later, read in fourteen queries, and their numberings."""
    posting_rows = list(
        Posting.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "year",
            "step",
            "payer_id",
            "payee_id",
            "amount",
            "kind",
            "reason",
            "marriage_id",
            "character_id",
            "contract_id",
            "reverses_id",
        )
    )
    contract_rows = list(
        Contract.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "kind",
            "title",
            "marriage_id",
            "start_year",
            "term_years",
            "state",
            "signed_year",
            "in_force_year",
            "ended_year",
            "end_kind",
            "end_reason",
            "text",
        )
    )
    party_rows = list(
        Contract.parties.through.objects.filter(contract__campaign=campaign)
        .order_by("contract_id", "dynasty_id")
        .values("contract_id", "dynasty_id")
    )
    signature_rows = list(
        ContractSignature.objects.filter(contract__campaign=campaign)
        .order_by("contract_id", "pk")
        .values("contract_id", "dynasty_id", "year")
    )
    clause_rows = list(
        Clause.objects.filter(contract__campaign=campaign)
        .order_by("pk")
        .values("pk", "contract_id", "position", "kind", "params", "text")
    )
    payment_rows = list(
        ContractPayment.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "contract_id",
            "clause_id",
            "breach_id",
            "year",
            "payer_id",
            "payee_id",
            "amount",
            "status",
            "posting_id",
            "settled_year",
            "note",
        )
    )
    breach_rows = list(
        Breach.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "contract_id",
            "clause_id",
            "by_dynasty_id",
            "raised_by_id",
            "year",
            "text",
            "resolution",
            "resolved_year",
        )
    )
    dispute_rows = list(
        Dispute.objects.filter(campaign=campaign).order_by("pk").values("pk", "breach_id", "year", "voters", "outcome")
    )
    term_rows = list(
        DisputeTerm.objects.filter(dispute__campaign=campaign)
        .order_by("pk")
        .values("dispute_id", "clause_id", "upheld_by", "rejected_by", "upheld", "enforcement")
    )
    dispute_vote_rows = list(
        DisputeVote.objects.filter(dispute__campaign=campaign)
        .order_by("pk")
        .values("dispute_id", "dynasty_id", "clause_id", "upholds")
    )
    parley_rows = list(
        Parley.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "year",
            "step",
            "kind",
            "subject",
            "caller_id",
            "breach_id",
            "excommunication_id",
            "votes_for",
            "votes_against",
            "carried",
            "outcome",
        )
    )
    parley_vote_rows = list(
        ParleyVote.objects.filter(parley__campaign=campaign)
        .order_by("pk")
        .values("parley_id", "dynasty_id", "stature", "church_cards", "christian", "votes", "choice", "position", "excluded")
    )
    excommunication_rows = list(
        Excommunication.objects.filter(campaign=campaign)
        .order_by("pk")
        .values("pk", "dynasty_id", "leader_id", "breach_id", "parley_id", "start_year", "reason", "ended_year", "end_reason")
    )
    offer_rows = list(
        MarriageOffer.objects.filter(campaign=campaign)
        .order_by("pk")
        .values(
            "pk",
            "year",
            "minor_character_id",
            "suitor_id",
            "dowry",
            "with_title",
            "stays_in_minor",
            "factors",
            "status",
            "note",
        )
    )

    posts = _numbering(p["pk"] for p in posting_rows)
    contracts = _numbering(c["pk"] for c in contract_rows)
    clauses = _numbering(c["pk"] for c in clause_rows)
    breaches = _numbering(b["pk"] for b in breach_rows)
    parleys = _numbering(p["pk"] for p in parley_rows)
    excoms = _numbering(e["pk"] for e in excommunication_rows)
    payments = _numbering(p["pk"] for p in payment_rows)
    disputes = _numbering(d["pk"] for d in dispute_rows)
    refs = {"dynasties": dyn, "characters": chars}
    numbering = {
        "postings": posts,
        "contracts": contracts,
        "clauses": clauses,
        "contract_payments": payments,
        "breaches": breaches,
        "disputes": disputes,
        "parleys": parleys,
        "excommunications": excoms,
    }

    parties: dict[int, list[int | None]] = defaultdict(list)
    for p in party_rows:
        parties[p["contract_id"]].append(_ref(dyn, p["dynasty_id"], "dynasty", f"Contract #{p['contract_id']}"))
    signed: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for sig in signature_rows:
        who = f"A signature of contract #{sig['contract_id']}"
        signed[sig["contract_id"]].append({"dynasty": _ref(dyn, sig["dynasty_id"], "dynasty", who), "year": sig["year"]})
    terms: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for t in term_rows:
        who = f"Dispute #{t['dispute_id']}"
        terms[t["dispute_id"]].append(
            {
                "clause": _ref(clauses, t["clause_id"], "clause", who),
                "upheld_by": t["upheld_by"],
                "rejected_by": t["rejected_by"],
                "upheld": t["upheld"],
                "enforcement": t["enforcement"],
            }
        )
    dispute_votes: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for v in dispute_vote_rows:
        who = f"Dispute #{v['dispute_id']}"
        dispute_votes[v["dispute_id"]].append(
            {
                "dynasty": _ref(dyn, v["dynasty_id"], "dynasty", who),
                "clause": _ref(clauses, v["clause_id"], "clause", who),
                "upholds": v["upholds"],
            }
        )
    parley_votes: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for v in parley_vote_rows:
        parley_votes[v["parley_id"]].append(
            {
                "dynasty": _ref(dyn, v["dynasty_id"], "dynasty", f"Parley #{v['parley_id']}"),
                **{k: v[k] for k in ("stature", "church_cards", "christian", "votes", "choice", "position", "excluded")},
            }
        )

    return {
        "postings": [
            {
                "id": posts[p["pk"]],
                "year": p["year"],
                "step": p["step"],
                "payer": _ref(dyn, p["payer_id"], "dynasty", f"Posting #{p['pk']}"),
                "payee": _ref(dyn, p["payee_id"], "dynasty", f"Posting #{p['pk']}"),
                "amount": p["amount"],
                "kind": p["kind"],
                "reason": p["reason"],
                "marriage": _ref(marr, p["marriage_id"], "marriage", f"Posting #{p['pk']}"),
                "character": _ref(chars, p["character_id"], "character", f"Posting #{p['pk']}"),
                "contract": _ref(contracts, p["contract_id"], "contract", f"Posting #{p['pk']}"),
                "reverses": _ref(posts, p["reverses_id"], "posting", f"Posting #{p['pk']}"),
            }
            for p in posting_rows
        ],
        "contracts": [
            {
                "id": contracts[c["pk"]],
                "kind": c["kind"],
                "title": c["title"],
                "parties": parties.get(c["pk"], []),
                "signatures": signed.get(c["pk"], []),
                "marriage": _ref(marr, c["marriage_id"], "marriage", f"Contract #{c['pk']}"),
                **{
                    k: c[k]
                    for k in (
                        "start_year",
                        "term_years",
                        "state",
                        "signed_year",
                        "in_force_year",
                        "ended_year",
                        "end_kind",
                        "end_reason",
                        "text",
                    )
                },
            }
            for c in contract_rows
        ],
        "clauses": [
            {
                "id": clauses[c["pk"]],
                "contract": _ref(contracts, c["contract_id"], "contract", f"Clause #{c['pk']}"),
                "position": c["position"],
                "kind": c["kind"],
                "params": _export_refs(c["params"], CLAUSE_REFS, refs),
                "text": c["text"],
            }
            for c in clause_rows
        ],
        "contract_payments": [
            {
                "id": payments[p["pk"]],
                "contract": _ref(contracts, p["contract_id"], "contract", f"Contract payment #{p['pk']}"),
                "clause": _ref(clauses, p["clause_id"], "clause", f"Contract payment #{p['pk']}"),
                "breach": _ref(breaches, p["breach_id"], "breach", f"Contract payment #{p['pk']}"),
                "year": p["year"],
                "payer": _ref(dyn, p["payer_id"], "dynasty", f"Contract payment #{p['pk']}"),
                "payee": _ref(dyn, p["payee_id"], "dynasty", f"Contract payment #{p['pk']}"),
                "amount": p["amount"],
                "status": p["status"],
                "posting": _ref(posts, p["posting_id"], "posting", f"Contract payment #{p['pk']}"),
                "settled_year": p["settled_year"],
                "note": p["note"],
            }
            for p in payment_rows
        ],
        "breaches": [
            {
                "id": breaches[b["pk"]],
                "contract": _ref(contracts, b["contract_id"], "contract", f"Breach #{b['pk']}"),
                "clause": _ref(clauses, b["clause_id"], "clause", f"Breach #{b['pk']}"),
                "by_dynasty": _ref(dyn, b["by_dynasty_id"], "dynasty", f"Breach #{b['pk']}"),
                "raised_by": _ref(dyn, b["raised_by_id"], "dynasty", f"Breach #{b['pk']}"),
                "year": b["year"],
                "text": b["text"],
                "resolution": b["resolution"],
                "resolved_year": b["resolved_year"],
            }
            for b in breach_rows
        ],
        "disputes": [
            {
                "id": disputes[d["pk"]],
                "breach": _ref(breaches, d["breach_id"], "breach", f"Dispute #{d['pk']}"),
                "year": d["year"],
                "voters": [dyn.get(v) if _is_int(v) else v for v in d["voters"]]
                if isinstance(d["voters"], list)
                else d["voters"],
                "outcome": d["outcome"],
                "terms": terms.get(d["pk"], []),
                "votes": dispute_votes.get(d["pk"], []),
            }
            for d in dispute_rows
        ],
        "parleys": [
            {
                "id": parleys[p["pk"]],
                "year": p["year"],
                "step": p["step"],
                "kind": p["kind"],
                "subject": p["subject"],
                "caller": _ref(dyn, p["caller_id"], "dynasty", f"Parley #{p['pk']}"),
                "breach": _ref(breaches, p["breach_id"], "breach", f"Parley #{p['pk']}"),
                "excommunication": _ref(excoms, p["excommunication_id"], "excommunication", f"Parley #{p['pk']}"),
                "votes_for": p["votes_for"],
                "votes_against": p["votes_against"],
                "carried": p["carried"],
                "outcome": p["outcome"],
                "votes": parley_votes.get(p["pk"], []),
            }
            for p in parley_rows
        ],
        "excommunications": [
            {
                "id": excoms[e["pk"]],
                "dynasty": _ref(dyn, e["dynasty_id"], "dynasty", f"Excommunication #{e['pk']}"),
                "leader": _ref(chars, e["leader_id"], "character", f"Excommunication #{e['pk']}"),
                "breach": _ref(breaches, e["breach_id"], "breach", f"Excommunication #{e['pk']}"),
                "parley": _ref(parleys, e["parley_id"], "parley", f"Excommunication #{e['pk']}"),
                "start_year": e["start_year"],
                "reason": e["reason"],
                "ended_year": e["ended_year"],
                "end_reason": e["end_reason"],
            }
            for e in excommunication_rows
        ],
        "marriage_offers": [
            {
                "year": o["year"],
                "minor_character": _ref(chars, o["minor_character_id"], "character", f"Marriage offer #{o['pk']}"),
                "suitor": _ref(chars, o["suitor_id"], "character", f"Marriage offer #{o['pk']}"),
                **{k: o[k] for k in ("dowry", "with_title", "stays_in_minor", "factors", "status", "note")},
            }
            for o in offer_rows
        ],
    }, numbering


def _check_refs(
    item: _Item, key: str, data: dict[str, Any], refs: Mapping[str, str], ids: Mapping[str, Mapping[int, int]]
) -> None:
    for name, section in refs.items():
        value = data.get(name)
        if value is None:
            continue
        what = "dynasty" if section == "dynasties" else section[:-1]
        where = f"{key}.{name}" if key else name
        for j, one in enumerate(value) if isinstance(value, list) else [(None, value)]:
            at = where if j is None else f"{where}[{j}]"
            if not _is_int(one):
                raise item.fail(at, f"must be a {what} id{'' if j is not None else ' or null'}, got {_got(one)}")
            if one not in ids[section]:
                raise item.fail(at, f"no {what} with id {one}")


def _import_refs(data: dict[str, Any], refs: Mapping[str, str], pks: Mapping[str, Mapping[int, int]]) -> dict[str, Any]:
    out = dict(data)
    for key, section in refs.items():
        value = out.get(key)
        if isinstance(value, list):
            out[key] = [pks[section][v] for v in value]
        elif value is not None:
            out[key] = pks[section][value]
    return out


def _objects(item: _Item, key: str, model: type[models.Model] | None = None) -> list[_Item]:
    out = []
    for j, raw in enumerate(item.list(key)):
        if not isinstance(raw, dict):
            raise item.fail(f"{key}[{j}]", f"must be an object, got {_kind(raw)}")
        out.append(_Item(raw, f"{item.path}.{key}[{j}]", model))
    return out


def _dynasty_list(item: _Item, key: str, dyn_ids: Mapping[int, int]) -> list[int]:
    out: list[int] = []
    for j, value in enumerate(item.list(key)):
        if not _is_int(value):
            raise item.fail(f"{key}[{j}]", f"must be a dynasty id, got {_got(value)}")
        if value not in dyn_ids:
            raise item.fail(f"{key}[{j}]", f"no dynasty with id {value}")
        if value in out:
            raise item.fail(f"{key}[{j}]", f"dynasty {value} is listed twice")
        out.append(value)
    return out


def _read_provinces(t: _Item, dyn_ids: Mapping[int, int]) -> list[dict[str, Any]]:
    if "provinces" not in t.obj:
        return _later("titles", "provinces")
    out = []
    for p in _objects(t, "provinces"):
        _check_refs(p, "", p.obj, {"controller": "dynasties"}, {"dynasties": dyn_ids})
        out.append(dict(p.obj))
    return out


def _read_signatures(c: _Item, row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A contract's signatures, one per party at most. The contract is signed (it has a
    ``signed_year``) exactly when every party has signed. A document from before signatures were
    kept has none: a signed contract was signed by every party in its signing year."""
    parties = row["parties"]
    if "signatures" not in c.obj:
        if row["signed_year"] is None:
            return []
        return [{"dynasty": d, "year": row["signed_year"]} for d in parties]
    out: list[dict[str, Any]] = []
    for s in _objects(c, "signatures", ContractSignature):
        sig = {"dynasty": s.int("dynasty"), "year": s.int("year")}
        if sig["dynasty"] not in parties:
            raise s.fail("dynasty", f"dynasty {sig['dynasty']} is not a party to the contract")
        if any(o["dynasty"] == sig["dynasty"] for o in out):
            raise s.fail("dynasty", f"dynasty {sig['dynasty']} has already signed the contract")
        out.append(sig)
    missing = [d for d in parties if d not in {o["dynasty"] for o in out}]
    if row["signed_year"] is not None and missing:
        raise c.fail("signatures", f"the contract was signed in {row['signed_year']}, but dynasty {missing[0]} has not signed it")
    if row["signed_year"] is None and not missing:
        raise c.fail("signed_year", "every party has signed the contract: it must have a signing year")
    return out


PAYING_CLAUSES = (ClauseKind.PAYMENT, ClauseKind.DOWRY, ClauseKind.RECURRING_PAYMENT)  # what they pay: params["amount"]


def _movement(row: Mapping[str, Any]) -> str:
    """``30 from dynasty 1 to the Treasury``: a posting's or a payment's money, in export ids."""

    def account(dynasty: int | None) -> str:
        return "the Treasury" if dynasty is None else f"dynasty {dynasty}"

    return f"{row['amount']} from {account(row['payer'])} to {account(row['payee'])}"


def _check_reversal(p: _Item, row: Mapping[str, Any], original: Mapping[str, Any]) -> None:
    """A correction is the mirror image of the one posting it reverses (``treasury.posting_reverse``)."""
    if original["kind"] == PostingKind.CORRECTION:
        raise p.fail("reverses", f"posting {original['id']} is itself a correction; a correction is not reversed")
    if (row["payer"], row["payee"], row["amount"]) != (original["payee"], original["payer"], original["amount"]):
        raise p.fail(
            "reverses",
            f"{_movement(row)} does not mirror posting {original['id']} ({_movement(original)}): "
            "a correction pays the same amount back the other way",
        )
    if row["year"] < original["year"]:
        raise p.fail("year", f"{row['year']} is before the posting it reverses ({original['year']})")


def _check_payment(
    p: _Item,
    row: Mapping[str, Any],
    posting: Mapping[str, Any] | None,
    clause: Mapping[str, Any] | None,
    breach: Mapping[str, Any] | None,
) -> None:
    """A contract payment adds up with its posting, clause and breach (``contracts.services._pay``,
    ``payment_settle``, ``_enforce``); each a row of the plan, in export ids."""
    settled = row["settled_year"]
    if settled is not None and row["status"] != PaymentStatus.PAID:
        raise p.fail("settled_year", "an unpaid payment has not been settled: its settled_year is null")
    if settled is not None and settled < row["year"]:
        raise p.fail("settled_year", f"{settled} is before the payment fell due ({row['year']})")
    if posting is not None:
        pid = posting["id"]
        if posting["contract"] != row["contract"]:
            names = "no contract" if posting["contract"] is None else f"contract {posting['contract']}"
            raise p.fail("posting", f"posting {pid} is not a payment under contract {row['contract']} (it names {names})")
        if (posting["payer"], posting["payee"], posting["amount"]) != (row["payer"], row["payee"], row["amount"]):
            raise p.fail("posting", f"posting {pid} moves {_movement(posting)}, not the payment's {_movement(row)}")
        kinds = (PostingKind.DAMAGES,) if breach is not None else (PostingKind.CONTRACT, PostingKind.DOWRY)
        if posting["kind"] not in kinds:
            should = "damages are posted as 'damages'" if breach else "a contract payment is posted as 'contract' or 'dowry'"
            raise p.fail("posting", f"posting {pid} is a '{posting['kind']}' posting; {should}")
        if settled is not None and posting["year"] != settled:
            raise p.fail("posting", f"posting {pid} is of {posting['year']}, not of the year the payment was settled ({settled})")
        if posting["year"] < row["year"]:
            raise p.fail("posting", f"posting {pid} is of {posting['year']}, before the payment fell due ({row['year']})")
    if clause is not None:
        cid, terms = clause["id"], clause["params"]
        if clause["contract"] != row["contract"]:
            raise p.fail("clause", f"clause {cid} is a term of contract {clause['contract']}, not of contract {row['contract']}")
        if breach is None and clause["kind"] == ClauseKind.DAMAGES:
            raise p.fail("clause", f"clause {cid} is the damages clause, paid only on a breach (the payment names none)")
        if breach is None and (clause["kind"] not in PAYING_CLAUSES or "amount" not in terms):
            raise p.fail("clause", f"clause {cid} is a '{clause['kind']}' clause, which sets no sum to pay")
        if breach is None and (terms["payer"], terms["payee"], terms["amount"]) != (row["payer"], row["payee"], row["amount"]):
            raise p.fail("clause", f"the payment of {_movement(row)} does not match clause {cid} ({_movement(terms)}, its terms)")
        if breach is not None and clause["kind"] == ClauseKind.DAMAGES and terms["amount"] != row["amount"]:
            raise p.fail("amount", f"{row['amount']} is not the damages of clause {cid} ({terms['amount']})")
    if breach is not None:
        bid = breach["id"]
        if breach["contract"] != row["contract"]:
            raise p.fail("breach", f"breach {bid} is of contract {breach['contract']}, not of contract {row['contract']}")
        if (row["payer"], row["payee"]) != (breach["by_dynasty"], breach["raised_by"]):
            raise p.fail(
                "payer",
                f"damages for breach {bid} go from the party in breach (dynasty {breach['by_dynasty']}) to the injured party "
                f"(dynasty {breach['raised_by']}), not from dynasty {row['payer']} to dynasty {row['payee']}",
            )


def _read_later(data: Mapping[str, Any], plan: _Plan, ids: Mapping[str, Mapping[int, int]]) -> dict[str, dict[int, int]]:
    """Check the sections added to regnal/2 later; their export ids, by section."""
    dyn_ids, char_ids, marr_ids = ids["dynasties"], ids["characters"], ids["marriages"]
    refs = {"dynasties": dyn_ids, "characters": char_ids}

    contracts = _section(data, "contracts", Contract, optional=True)
    contract_ids = _ids(contracts, "contract")
    for c in contracts:
        row = {
            "id": c.int("id"),
            "kind": c.choice("kind", ContractKind.values),
            "title": c.str("title", blank=False),
            "parties": _dynasty_list(c, "parties", dyn_ids),
            "marriage": c.ref("marriage", marr_ids, "marriage"),
            "start_year": c.int("start_year"),
            "term_years": c.int("term_years", null=True, low=0),
            "state": c.choice("state", ContractState.values),
            "signed_year": c.int("signed_year", null=True),
            "in_force_year": c.int("in_force_year", null=True),
            "ended_year": c.int("ended_year", null=True),
            "end_kind": c.choice("end_kind", ["", *EndKind.values]),
            "end_reason": c.str("end_reason"),
            "text": c.str("text"),
        }
        if (row["state"] == ContractState.ENDED) != (row["ended_year"] is not None):
            raise c.fail("ended_year", "an ended contract, and only an ended one, has an end year")
        if row["in_force_year"] is not None and row["signed_year"] is None:
            raise c.fail("signed_year", "a contract in force must have been signed")
        if None not in (row["ended_year"], row["in_force_year"]) and row["ended_year"] < row["in_force_year"]:
            raise c.fail("ended_year", f"{row['ended_year']} is before it came into force ({row['in_force_year']})")
        row["signatures"] = _read_signatures(c, row)
        plan.contracts.append(row)

    clauses = _section(data, "clauses", Clause, optional=True)
    clause_ids = _ids(clauses, "clause")
    contracts_by_id = {row["id"]: row for row in plan.contracts}
    refs_version = data.get("clause_refs", 1)
    if refs_version not in (1, CLAUSE_REFS_VERSION) or isinstance(refs_version, bool):
        raise InvalidImport(
            f"clause_refs: {_short(refs_version)} is not a version this site reads (1 or {CLAUSE_REFS_VERSION})",
            fields={"clause_refs": "unsupported"},
        )
    kinds: dict[int, list[str]] = {row["id"]: [] for row in plan.contracts}  # each contract's clauses
    for c in clauses:
        row = {
            "id": c.int("id"),
            "contract": c.ref("contract", contract_ids, "contract", null=False),
            "position": c.int("position", low=0, high=SMALL_MAX),
            "kind": c.choice("kind", ClauseKind.values),
            "params": c.object("params"),
            "text": c.str("text"),
        }
        if refs_version == 1:  # an older document: its "by" and "between" are database ids of another site
            row["params"] = {k: v for k, v in row["params"].items() if k not in CLAUSE_REFS_ADDED}
        _check_refs(c, "params", row["params"], CLAUSE_REFS, refs)
        contract = contracts_by_id[row["contract"]]
        try:  # the terms the kind of clause takes, as a draft checks them (parties are export ids here)
            clause_rules.validate_clause(row["kind"], row["params"], parties=contract["parties"])
        except clause_rules.ClauseError as exc:
            raise c.fail("params", exc.message[0].lower() + exc.message[1:]) from exc
        kinds[contract["id"]].append(row["kind"])
        plan.clauses.append(row)
    for contract in plan.contracts:
        try:
            marriage = contract["kind"] == ContractKind.MARRIAGE
            clause_rules.validate_clauses(kinds[contract["id"]], marriage_contract=marriage)
        except clause_rules.ClauseError as exc:
            raise InvalidImport(
                f"contracts: contract {contract['id']}: {exc.message}", fields={f"contract {contract['id']}": exc.message}
            ) from exc

    postings = _section(data, "postings", Posting, optional=True)
    posting_ids = _ids(postings, "posting")
    reversed_by: dict[int, int] = {}
    for i, p in enumerate(postings):
        row = {
            "id": p.int("id"),
            "year": p.int("year"),
            "step": p.str("step"),
            "payer": p.ref("payer", dyn_ids, "dynasty"),
            "payee": p.ref("payee", dyn_ids, "dynasty"),
            "amount": p.int("amount", low=1),
            "kind": p.choice("kind", PostingKind.values),
            "reason": p.str("reason"),
            "marriage": p.ref("marriage", marr_ids, "marriage"),
            "character": p.ref("character", char_ids, "character"),
            "contract": p.ref("contract", contract_ids, "contract"),
            "reverses": p.ref("reverses", posting_ids, "posting"),
        }
        if row["payer"] is None and row["payee"] is None:
            raise p.fail("payee", "the Treasury cannot pay itself: a payer or a payee must be a dynasty")
        if row["payer"] is not None and row["payer"] == row["payee"]:
            raise p.fail("payee", f"dynasty {row['payee']} cannot pay itself")
        if row["kind"] == PostingKind.CORRECTION and row["reverses"] is None:
            raise p.fail("reverses", "a correction names the posting it reverses")
        if row["kind"] != PostingKind.CORRECTION and row["reverses"] is not None:
            raise p.fail("kind", f"only a correction reverses a posting; this one is a '{row['kind']}' posting")
        if row["reverses"] is not None:
            if row["reverses"] == row["id"]:
                raise p.fail("reverses", f"posting {row['id']} cannot reverse itself")
            if row["reverses"] in reversed_by:
                raise p.fail(
                    "reverses", f"posting {row['reverses']} is already reversed by postings[{reversed_by[row['reverses']]}]"
                )
            reversed_by[row["reverses"]] = i
        plan.postings.append(row)
    for p, row in zip(postings, plan.postings, strict=True):  # originals may come after their corrections
        if row["reverses"] is not None:
            _check_reversal(p, row, plan.postings[posting_ids[row["reverses"]]])

    breaches = _section(data, "breaches", Breach, optional=True)
    breach_ids = _ids(breaches, "breach")
    for b in breaches:
        row = {
            "id": b.int("id"),
            "contract": b.ref("contract", contract_ids, "contract", null=False),
            "clause": b.ref("clause", clause_ids, "clause"),
            "by_dynasty": b.ref("by_dynasty", dyn_ids, "dynasty", null=False),
            "raised_by": b.ref("raised_by", dyn_ids, "dynasty", null=False),
            "year": b.int("year"),
            "text": b.str("text"),
            "resolution": b.str("resolution"),
            "resolved_year": b.int("resolved_year", null=True),
        }
        if row["by_dynasty"] == row["raised_by"]:
            raise b.fail("raised_by", f"dynasty {row['raised_by']} cannot raise a breach against itself")
        contract = contracts_by_id[row["contract"]]
        for key in ("by_dynasty", "raised_by"):
            if row[key] not in contract["parties"]:
                raise b.fail(key, f"dynasty {row[key]} is not a party to contract {contract['id']}")
        if row["clause"] is not None and plan.clauses[clause_ids[row["clause"]]]["contract"] != row["contract"]:
            raise b.fail("clause", f"clause {row['clause']} is not a term of contract {row['contract']}")
        plan.breaches.append(row)

    paid_by: dict[int, int] = {}
    payments = _section(data, "contract_payments", ContractPayment, optional=True)
    payment_ids = _ids(payments, "contract payment")
    for i, p in enumerate(payments):
        row = {
            "id": p.int("id"),
            "contract": p.ref("contract", contract_ids, "contract", null=False),
            "clause": p.ref("clause", clause_ids, "clause"),
            "breach": p.ref("breach", breach_ids, "breach"),
            "year": p.int("year"),
            "payer": p.ref("payer", dyn_ids, "dynasty", null=False),
            "payee": p.ref("payee", dyn_ids, "dynasty", null=False),
            "amount": p.int("amount", low=1),
            "status": p.choice("status", PaymentStatus.values),
            "posting": p.ref("posting", posting_ids, "posting"),
            "settled_year": p.int("settled_year", null=True),
            "note": p.str("note"),
        }
        if row["payer"] == row["payee"]:
            raise p.fail("payee", f"dynasty {row['payee']} cannot pay itself")
        if (row["status"] == PaymentStatus.PAID) != (row["posting"] is not None):
            raise p.fail("posting", "a paid payment, and only a paid one, has a posting")
        if row["posting"] is not None:
            if row["posting"] in paid_by:
                raise p.fail("posting", f"posting {row['posting']} already pays contract_payments[{paid_by[row['posting']]}]")
            paid_by[row["posting"]] = i
        _check_payment(
            p,
            row,
            None if row["posting"] is None else plan.postings[posting_ids[row["posting"]]],
            None if row["clause"] is None else plan.clauses[clause_ids[row["clause"]]],
            None if row["breach"] is None else plan.breaches[breach_ids[row["breach"]]],
        )
        plan.payments.append(row)

    disputed: dict[int, int] = {}
    disputes = _section(data, "disputes", Dispute, optional=True)
    dispute_ids = _ids(disputes, "dispute")
    for i, d in enumerate(disputes):
        row = {
            "id": d.int("id"),
            "breach": d.ref("breach", breach_ids, "breach", null=False),
            "year": d.int("year"),
            "voters": _dynasty_list(d, "voters", dyn_ids),
            "outcome": d.str("outcome"),
        }
        if row["breach"] in disputed:
            raise d.fail("breach", f"breach {row['breach']} is already disputed (disputes[{disputed[row['breach']]}])")
        disputed[row["breach"]] = i
        terms, seen_terms = [], set()
        for t in _objects(d, "terms", DisputeTerm):
            term = {
                "clause": t.ref("clause", clause_ids, "clause", null=False),
                "upheld_by": t.int("upheld_by", low=0, high=SMALL_MAX),
                "rejected_by": t.int("rejected_by", low=0, high=SMALL_MAX),
                "upheld": t.bool("upheld"),
                "enforcement": t.str("enforcement"),
            }
            if term["clause"] in seen_terms:
                raise t.fail("clause", f"clause {term['clause']} is already ruled on in this dispute")
            seen_terms.add(term["clause"])
            terms.append(term)
        votes, seen_votes = [], set()
        for v in _objects(d, "votes", DisputeVote):
            vote = {
                "dynasty": v.ref("dynasty", dyn_ids, "dynasty", null=False),
                "clause": v.ref("clause", clause_ids, "clause", null=False),
                "upholds": v.bool("upholds"),
            }
            if (vote["dynasty"], vote["clause"]) in seen_votes:
                raise v.fail("clause", f"dynasty {vote['dynasty']} already voted on clause {vote['clause']}")
            seen_votes.add((vote["dynasty"], vote["clause"]))
            votes.append(vote)
        plan.disputes.append((row, terms, votes))

    parleys = _section(data, "parleys", Parley, optional=True)
    parley_ids = _ids(parleys, "parley")
    excoms = _section(data, "excommunications", Excommunication, optional=True)
    excom_ids = _ids(excoms, "excommunication")
    parley_breaches: dict[int, int] = {}
    for i, p in enumerate(parleys):
        row = {
            "id": p.int("id"),
            "year": p.int("year"),
            "step": p.str("step"),
            "kind": p.choice("kind", ParleyKind.values),
            "subject": p.str("subject"),
            "caller": p.ref("caller", dyn_ids, "dynasty", null=False),
            "breach": p.ref("breach", breach_ids, "breach"),
            "excommunication": p.ref("excommunication", excom_ids, "excommunication"),
            "votes_for": p.int("votes_for", low=0),
            "votes_against": p.int("votes_against", low=0),
            "carried": p.bool("carried"),
            "outcome": p.str("outcome"),
        }
        if row["breach"] is not None:
            if row["breach"] in parley_breaches:
                raise p.fail("breach", f"breach {row['breach']} already has a parley (parleys[{parley_breaches[row['breach']]}])")
            parley_breaches[row["breach"]] = i
        votes, voted = [], set()
        for v in _objects(p, "votes", ParleyVote):
            vote = {
                "dynasty": v.ref("dynasty", dyn_ids, "dynasty", null=False),
                "stature": v.int("stature", low=0, high=SMALL_MAX),
                "church_cards": v.int("church_cards", low=0, high=SMALL_MAX),
                "christian": v.bool("christian"),
                "votes": v.int("votes", low=0, high=SMALL_MAX),
                "choice": v.choice("choice", VoteChoice.values),
                "position": v.int("position", null=True, low=0, high=SMALL_MAX),
                "excluded": v.str("excluded"),
            }
            if vote["dynasty"] in voted:
                raise v.fail("dynasty", f"dynasty {vote['dynasty']} already voted in this parley")
            voted.add(vote["dynasty"])
            votes.append(vote)
        plan.parleys.append((row, votes))

    open_excoms: dict[int, int] = {}
    for i, e in enumerate(excoms):
        row = {
            "id": e.int("id"),
            "dynasty": e.ref("dynasty", dyn_ids, "dynasty", null=False),
            "leader": e.ref("leader", char_ids, "character"),
            "breach": e.ref("breach", breach_ids, "breach"),
            "parley": e.ref("parley", parley_ids, "parley"),
            "start_year": e.int("start_year"),
            "reason": e.str("reason"),
            "ended_year": e.int("ended_year", null=True),
            "end_reason": e.str("end_reason"),
        }
        if row["ended_year"] is not None and row["ended_year"] < row["start_year"]:
            raise e.fail("ended_year", f"{row['ended_year']} is before the start year {row['start_year']}")
        if row["ended_year"] is None:
            if row["dynasty"] in open_excoms:
                raise e.fail(
                    "dynasty",
                    f"dynasty {row['dynasty']} is already excommunicated (excommunications[{open_excoms[row['dynasty']]}])",
                )
            open_excoms[row["dynasty"]] = i
        plan.excommunications.append(row)

    for o in _section(data, "marriage_offers", MarriageOffer, optional=True):
        row = {
            "year": o.int("year"),
            "minor_character": o.ref("minor_character", char_ids, "character", null=False),
            "suitor": o.ref("suitor", char_ids, "character", null=False),
            "dowry": o.int("dowry", low=0),
            "with_title": o.bool("with_title"),
            "stays_in_minor": o.bool("stays_in_minor"),
            "factors": o.get("factors"),
            "status": o.choice("status", OfferStatus.values),
            "note": o.str("note"),
        }
        if not isinstance(row["factors"], list):
            raise o.fail("factors", f"must be a list, got {_kind(row['factors'])}")
        plan.offers.append(row)
    return {
        "postings": posting_ids,
        "contracts": contract_ids,
        "clauses": clause_ids,
        "contract_payments": payment_ids,
        "breaches": breach_ids,
        "disputes": dispute_ids,
        "parleys": parley_ids,
        "excommunications": excom_ids,
    }


def _write_later(campaign: Campaign, plan: _Plan, pks: Mapping[str, Mapping[int, int]]) -> dict[str, dict[int, int]]:
    """Write the sections added to regnal/2 later; their new database ids by export id, by section."""
    dyn, chars, marr = pks["dynasties"], pks["characters"], pks["marriages"]

    def opt(ids: Mapping[int, int], value: int | None) -> int | None:
        return None if value is None else ids[value]

    contracts = _bulk_create(
        Contract,
        [
            Contract(campaign=campaign, marriage_id=opt(marr, c["marriage"]),
                     **{k: v for k, v in c.items() if k not in ("id", "parties", "signatures", "marriage")})
            for c in plan.contracts
        ],
    )  # fmt: skip
    contract_pks = {c["id"]: obj.pk for c, obj in zip(plan.contracts, contracts, strict=True)}
    through = Contract.parties.through
    _bulk_create(
        through,
        [
            through(contract_id=obj.pk, dynasty_id=dyn[d])
            for c, obj in zip(plan.contracts, contracts, strict=True)
            for d in c["parties"]
        ],
    )
    _bulk_create(
        ContractSignature,
        [
            ContractSignature(contract_id=obj.pk, dynasty_id=dyn[s["dynasty"]], year=s["year"])
            for c, obj in zip(plan.contracts, contracts, strict=True)
            for s in c["signatures"]
        ],
    )
    clauses = _bulk_create(
        Clause,
        [
            Clause(
                contract_id=contract_pks[c["contract"]], position=c["position"], kind=c["kind"],
                params=_import_refs(c["params"], CLAUSE_REFS, {"dynasties": dyn, "characters": chars}), text=c["text"],
            )
            for c in plan.clauses
        ],
    )  # fmt: skip
    clause_pks = {c["id"]: obj.pk for c, obj in zip(plan.clauses, clauses, strict=True)}

    postings = _bulk_create(
        Posting,
        [
            Posting(
                campaign=campaign, year=p["year"], step=p["step"], payer_id=opt(dyn, p["payer"]),
                payee_id=opt(dyn, p["payee"]), amount=p["amount"], kind=p["kind"], reason=p["reason"],
                marriage_id=opt(marr, p["marriage"]), character_id=opt(chars, p["character"]),
                contract_id=opt(contract_pks, p["contract"]),
            )
            for p in plan.postings
        ],
    )  # fmt: skip
    posting_pks = {p["id"]: obj.pk for p, obj in zip(plan.postings, postings, strict=True)}
    reversing = []
    for p, obj in zip(plan.postings, postings, strict=True):
        if p["reverses"] is not None:
            obj.reverses_id = posting_pks[p["reverses"]]
            reversing.append(obj)
    if reversing:
        Posting.objects.bulk_update(reversing, ["reverses"])

    breaches = _bulk_create(
        Breach,
        [
            Breach(
                campaign=campaign, contract_id=contract_pks[b["contract"]], clause_id=opt(clause_pks, b["clause"]),
                by_dynasty_id=dyn[b["by_dynasty"]], raised_by_id=dyn[b["raised_by"]], year=b["year"], text=b["text"],
                resolution=b["resolution"], resolved_year=b["resolved_year"],
            )
            for b in plan.breaches
        ],
    )  # fmt: skip
    breach_pks = {b["id"]: obj.pk for b, obj in zip(plan.breaches, breaches, strict=True)}
    payments = _bulk_create(
        ContractPayment,
        [
            ContractPayment(
                campaign=campaign,
                contract_id=contract_pks[p["contract"]],
                clause_id=opt(clause_pks, p["clause"]),
                breach_id=opt(breach_pks, p["breach"]),
                year=p["year"],
                payer_id=dyn[p["payer"]],
                payee_id=dyn[p["payee"]],
                amount=p["amount"],
                status=p["status"],
                posting_id=opt(posting_pks, p["posting"]),
                settled_year=p["settled_year"],
                note=p["note"],
            )
            for p in plan.payments
        ],
    )
    payment_pks = {p["id"]: obj.pk for p, obj in zip(plan.payments, payments, strict=True)}  # fmt: skip

    disputes = _bulk_create(
        Dispute,
        [
            Dispute(
                campaign=campaign,
                breach_id=breach_pks[d["breach"]],
                year=d["year"],
                voters=[dyn[v] for v in d["voters"]],
                outcome=d["outcome"],
            )
            for d, _, _ in plan.disputes
        ],
    )
    dispute_pks = {d["id"]: obj.pk for (d, _, _), obj in zip(plan.disputes, disputes, strict=True)}  # fmt: skip
    _bulk_create(
        DisputeTerm,
        [
            DisputeTerm(dispute=obj, clause_id=clause_pks[t["clause"]],
                        **{k: v for k, v in t.items() if k != "clause"})
            for obj, (_, terms, _) in zip(disputes, plan.disputes, strict=True)
            for t in terms
        ],
    )  # fmt: skip
    _bulk_create(
        DisputeVote,
        [
            DisputeVote(dispute=obj, dynasty_id=dyn[v["dynasty"]], clause_id=clause_pks[v["clause"]], upholds=v["upholds"])
            for obj, (_, _, votes) in zip(disputes, plan.disputes, strict=True)
            for v in votes
        ],
    )

    parleys = _bulk_create(
        Parley,
        [
            Parley(
                campaign=campaign, caller_id=dyn[p["caller"]], breach_id=opt(breach_pks, p["breach"]),
                **{k: v for k, v in p.items() if k not in ("id", "caller", "breach", "excommunication")},
            )
            for p, _ in plan.parleys
        ],
    )  # fmt: skip
    parley_pks = {p["id"]: obj.pk for (p, _), obj in zip(plan.parleys, parleys, strict=True)}
    _bulk_create(
        ParleyVote,
        [
            ParleyVote(parley=obj, dynasty_id=dyn[v["dynasty"]], **{k: x for k, x in v.items() if k != "dynasty"})
            for obj, (_, votes) in zip(parleys, plan.parleys, strict=True)
            for v in votes
        ],
    )
    excoms = _bulk_create(
        Excommunication,
        [
            Excommunication(
                campaign=campaign, dynasty_id=dyn[e["dynasty"]], leader_id=opt(chars, e["leader"]),
                breach_id=opt(breach_pks, e["breach"]), parley_id=opt(parley_pks, e["parley"]),
                start_year=e["start_year"], reason=e["reason"], ended_year=e["ended_year"], end_reason=e["end_reason"],
            )
            for e in plan.excommunications
        ],
    )  # fmt: skip
    excom_pks = {e["id"]: obj.pk for e, obj in zip(plan.excommunications, excoms, strict=True)}
    readmissions = []
    for (p, _), obj in zip(plan.parleys, parleys, strict=True):
        if p["excommunication"] is not None:
            obj.excommunication_id = excom_pks[p["excommunication"]]
            readmissions.append(obj)
    if readmissions:
        Parley.objects.bulk_update(readmissions, ["excommunication"])

    _bulk_create(
        MarriageOffer,
        [
            MarriageOffer(
                campaign=campaign, minor_character_id=chars[o["minor_character"]], suitor_id=chars[o["suitor"]],
                **{k: v for k, v in o.items() if k not in ("minor_character", "suitor")},
            )
            for o in plan.offers
        ],
    )  # fmt: skip
    return {
        "postings": posting_pks,
        "contracts": contract_pks,
        "clauses": clause_pks,
        "contract_payments": payment_pks,
        "breaches": breach_pks,
        "disputes": dispute_pks,
        "parleys": parley_pks,
        "excommunications": excom_pks,
    }
