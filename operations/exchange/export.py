"""The export, driven by the spec: one query per section and per list of child rows (thirty-one
in all, whatever the campaign's size), every object renumbered 1..n per section in ``order_by``
order, so an export is deterministic."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from campaign.models import Campaign, RuleTable
from campaign.permissions import Actor, require
from operations.exchange import special
from operations.exchange.spec import CAMPAIGN, FORMAT, SPEC, Field, Rows, Section
from operations.exchange.special import singular
from rules.errors import RuleError

Row = dict[str, Any]


def campaign_export_for(campaign: Campaign, *, by: Actor) -> dict[str, Any]:
    """The export asked for by a user: the GM's (the policy decides), as it holds every exchequer
    and contract."""
    require(by, campaign, "gm")
    return campaign_export(campaign)


def campaign_export(campaign: Campaign) -> dict[str, Any]:
    """The campaign as a JSON-ready dict (docs/export-format.md)."""
    sections = [s for s in SPEC if s is not CAMPAIGN]
    rows = {s.name: _fetch(s, campaign) for s in sections}
    children = {(s.name, f.key): _fetch_rows(f.rows, campaign) for s in sections for f in s.fields if f.rows}
    numberings = {name: {row["pk"]: n for n, row in enumerate(found, start=1)} for name, found in rows.items()}
    out: dict[str, Any] = {
        "format": FORMAT,
        "clause_refs": special.CLAUSE_REFS_VERSION,
        "campaign": _campaign(campaign),
    }
    for s in sections:
        objects = [_object(s, row, numberings, children) for row in rows[s.name]]
        out[s.name] = s.layout(rows[s.name], objects) if s.layout else objects
    return out


def _campaign(campaign: Campaign) -> dict[str, Any]:
    out = {f.key: getattr(campaign, f.source) for f in CAMPAIGN.fields if f.key != "tables"}
    out["tables"] = {
        t["key"]: t["data"] for t in RuleTable.objects.filter(campaign=campaign).order_by("key").values("key", "data")
    }
    return out


def _columns(fields: tuple[Field, ...]) -> list[str]:
    return [f.source for f in fields if not f.rows]


def _fetch(s: Section, campaign: Campaign) -> list[Row]:
    columns = [c for c in _columns(s.fields) if not (s.numbered and c == "id")]
    query = s.model._default_manager.filter(**{s.scope: campaign}).order_by(*s.order_by)
    return list(query.values("pk", *columns, *s.extra))


def _fetch_rows(rows: Rows | None, campaign: Campaign) -> dict[int, list[Row]]:
    assert rows is not None
    query = rows.model._default_manager.filter(**{rows.scope: campaign}).order_by(*rows.order_by)
    grouped: dict[int, list[Row]] = defaultdict(list)
    for row in query.values(rows.parent, *_columns(rows.fields)):
        grouped[row[rows.parent]].append(row)
    return grouped


def _ref(ids: Mapping[int, int], pk: int | None, section: str, owner: str) -> int | None:
    if pk is None:
        return None
    try:
        return ids[pk]
    except KeyError:
        raise RuleError(
            f"{owner} points to {singular(section)} #{pk} of another campaign; it cannot be exported.",
            code="invalid_export",
        ) from None


def _value(f: Field, row: Row, numberings: special.Numberings, owner: str) -> Any:
    value = row[f.source]
    if f.export is not None:
        return f.export(value, numberings)
    if f.kind == "ref":
        return _ref(numberings[f.ref], value, f.ref, owner)
    return value


def _object(
    s: Section, row: Row, numberings: special.Numberings, children: Mapping[tuple[str, str], Mapping[int, list[Row]]]
) -> dict[str, Any]:
    owner = s.owner.format(pk=row["pk"])
    out: dict[str, Any] = {}
    for f in s.fields:
        if f.rows is not None:
            found = children[(s.name, f.key)].get(row["pk"], [])
            out[f.key] = [_child(f.rows, child, numberings) for child in found]
        elif s.numbered and f.key == "id":
            out["id"] = numberings[s.name][row["pk"]]
        else:
            out[f.key] = _value(f, row, numberings, owner)
    return out


def _child(rows: Rows, row: Row, numberings: special.Numberings) -> Any:
    owner = rows.owner.format(parent=row[rows.parent])
    if rows.flat:
        return _value(rows.fields[0], row, numberings, owner)
    return {f.key: _value(f, row, numberings, owner) for f in rows.fields}
