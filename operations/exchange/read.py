"""Reading and checking a document, driven by the spec: every section, field and reference the
spec declares is read with its kind, bounds and default (by the document's format), then the
section's own checks run (``checks.py``). Nothing is written here; any problem is an
``InvalidImport`` naming where it is."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from campaign.models import Campaign, ChronicleEntry
from operations.exchange import checks
from operations.exchange.spec import (
    BY_NAME,
    CAMPAIGN,
    CHRONICLE,
    FORMAT,
    FORMAT_V1,
    FORMAT_V2,
    FORMATS,
    ORDER,
    REQUIRED,
    SPEC,
    V2,
    Field,
    Position,
    Rows,
    Section,
)
from operations.exchange.special import singular
from operations.exchange.values import INT_MAX, INT_MIN, MISSING, Item, Reading, check_values, kind_of, short
from rules.errors import InvalidImport

Row = dict[str, Any]


def read_document(data: Any) -> Reading:
    """The document checked whole: each section's rows, in export ids."""
    if not isinstance(data, dict):
        raise InvalidImport(f"The document must be a JSON object, got {kind_of(data)}.")
    check_values(data)
    if "format" not in data:
        raise InvalidImport(f"format: missing; expected {FORMAT!r}", fields={"format": "missing"})
    if data["format"] not in FORMATS:
        raise InvalidImport(
            f"format: {short(data['format'])} is not supported; expected {FORMAT!r} (or the older {FORMAT_V2!r}, {FORMAT_V1!r})",
            fields={"format": "unsupported"},
        )
    ctx = Reading(data, old=data["format"] == FORMAT_V1, current=data["format"] == FORMAT)
    for s in SPEC:
        if s.name not in data and not _optional(s, ctx):
            raise InvalidImport(f"{s.name}: the section is missing", fields={s.name: "missing"})
    ctx.rows["campaign"] = [_read_campaign(data, ctx)]
    items: dict[str, list[Item]] = {}
    for name in ORDER[:-1]:
        s = BY_NAME[name]
        for needed in (name, *(f.ref for f in s.fields if f.kind == "ref")):
            if needed not in items:
                items[needed] = _items(BY_NAME[needed], ctx)
        if name == "clauses":
            ctx.refs_version = checks.clause_refs_version(data)
        if name not in ctx.rows:
            _read_section(s, items[name], ctx)
    _read_chronicle(data, ctx)
    return ctx


def _optional(s: Section, ctx: Reading) -> bool:
    return s.optional or (ctx.old and s.since == V2)


def _items(s: Section, ctx: Reading) -> list[Item]:
    """The section's objects, and their export ids; a regnal/1 document's missing crowns are made."""
    if s.name not in ctx.data and s.absent is not None and ctx.old:
        ctx.rows[s.name] = s.absent(ctx)
        ctx.ids[s.name] = {row["id"]: i for i, row in enumerate(ctx.rows[s.name])}
        return []
    items = _section(ctx.data, s, optional=_optional(s, ctx))
    if s.numbered:
        ctx.ids[s.name] = _ids(s, items, ctx)
    return items


def _section(data: Mapping[str, Any], s: Section, *, optional: bool) -> list[Item]:
    if s.name not in data:
        if optional:
            return []
        raise InvalidImport(f"{s.name}: the section is missing", fields={s.name: "missing"})
    value = data[s.name]
    if not isinstance(value, list):
        raise InvalidImport(f"{s.name}: must be a list, got {kind_of(value)}", fields={s.name: "not a list"})
    items = []
    for i, obj in enumerate(value):
        if not isinstance(obj, dict):
            where = f"{s.name}[{i}]"
            raise InvalidImport(f"{where}: must be an object, got {kind_of(obj)}", fields={where: "not an object"})
        items.append(Item(obj, f"{s.name}[{i}]", s.model))
    return items


def _ids(s: Section, items: list[Item], ctx: Reading) -> dict[int, int]:
    """Export id -> index in the section; refuses a missing, mistyped or repeated id."""
    field = s.field("id")
    ids: dict[int, int] = {}
    for i, item in enumerate(items):
        value = item.int("id", low=INT_MIN if field.low is None else field.low, default=_default(field, i, ctx))
        if value in ids:
            raise item.fail("id", f"the {singular(s.name)} id {value} is already used by {s.name}[{ids[value]}]")
        ids[value] = i
    return ids


def _default(f: Field, i: int, ctx: Reading) -> Any:
    """What an absent field takes: nothing (it is required), or its default in this format."""
    if f.default is REQUIRED or (f.since == V2 and not ctx.old):
        return MISSING
    if isinstance(f.default, Position):
        return i + f.default.start
    return copy.deepcopy(f.default)


def read_field(f: Field, item: Item, row: Row, i: int, ctx: Reading) -> Any:
    """One field, by its kind (or its special reader)."""
    if f.read is not None:
        return f.read(item, f.key, row, i, ctx)
    default = _default(f, i, ctx)
    if f.kind == "int":
        low, high = INT_MIN if f.low is None else f.low, INT_MAX if f.high is None else f.high
        return item.int(f.key, null=f.null, low=low, high=high, default=default)
    if f.kind == "ref":
        return item.ref(f.key, ctx.ids[f.ref], singular(f.ref), null=f.null, default=default)
    if f.kind == "objects":
        assert f.rows is not None
        return _read_rows(f.rows, item, f.key, ctx)
    if f.kind == "text":
        return item.str(f.key, blank=f.blank, default=default)
    if f.kind == "choice":
        return item.choice(f.key, f.choices, default=default)
    if f.kind == "bool":
        return item.bool(f.key, default=default)
    if f.kind == "object":
        return item.object(f.key, default=default)
    assert f.kind == "json", f.kind
    return item.get(f.key, default)


def _read_rows(rows: Rows, item: Item, key: str, ctx: Reading) -> list[Row]:
    """The objects listed under a field, each checked against those before it."""
    out: list[Row] = []
    for j, child in enumerate(checks.objects(item, key, rows.model)):
        row = {f.key: read_field(f, child, {}, j, ctx) for f in rows.fields}
        if rows.check is not None:
            rows.check(child, row, out)
        out.append(row)
    return out


def _read_section(s: Section, items: list[Item], ctx: Reading) -> None:
    rows: list[Row] = []
    ctx.rows[s.name] = rows
    ids = list(ctx.ids.get(s.name, {}))
    for i, item in enumerate(items):
        row: Row = {}
        for f in s.fields:
            if s.numbered and f.key == "id":
                row["id"] = ids[i]
            elif not f.late:
                row[f.key] = read_field(f, item, row, i, ctx)
        if s.check is not None:
            s.check(item, row, i, ctx)
        for f in s.fields:
            if f.late:
                row[f.key] = read_field(f, item, row, i, ctx)
        rows.append(row)
    if s.finish is not None:
        s.finish(items, rows, ctx)


def _read_campaign(data: Mapping[str, Any], ctx: Reading) -> Row:
    raw = data["campaign"]
    if not isinstance(raw, dict):
        raise InvalidImport(f"campaign: must be an object, got {kind_of(raw)}", fields={"campaign": "not an object"})
    item = Item(raw, "campaign", Campaign)
    row: Row = {}
    for f in CAMPAIGN.fields:
        row[f.key] = read_field(f, item, row, 0, ctx)
    assert CAMPAIGN.check is not None
    CAMPAIGN.check(item, row, 0, ctx)
    return row


def _read_chronicle(data: Mapping[str, Any], ctx: Reading) -> None:
    """The chronicle: entries grouped under their years, in increasing year."""
    raw = data["chronicle"]
    if not isinstance(raw, list):
        raise InvalidImport(f"chronicle: must be a list, got {kind_of(raw)}", fields={"chronicle": "not a list"})
    rows: list[Row] = []
    ctx.rows["chronicle"] = rows
    last: int | None = None
    for i, group in enumerate(raw):
        if not isinstance(group, dict):
            problem = f"must be an object, got {kind_of(group)}"
            raise InvalidImport(f"chronicle[{i}]: {problem}", fields={f"chronicle[{i}]": problem})
        g = Item(group, f"chronicle[{i}]")
        year = g.int("year")
        checks.check_entry_year(g, year, last)
        last = year
        for j, e in enumerate(checks.objects(g, "entries", ChronicleEntry)):
            row: Row = {"year": year}
            for f in CHRONICLE.fields:
                row[f.key] = read_field(f, e, row, j, ctx)
            rows.append(row)
