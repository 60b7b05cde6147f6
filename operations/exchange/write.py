"""Writing a checked document as a new campaign, driven by the spec: one transaction, bulk
inserts in the spec's order, each reference mapped from its export id to the new row's id."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.core.validators import slug_re
from django.db import DataError, IntegrityError, connection, models, transaction

from campaign import audit
from campaign.models import Campaign, Membership, Role, RuleTable
from campaign.permissions import Actor
from dynasties.services import regnal
from operations.exchange.read import read_document
from operations.exchange.spec import BY_NAME, CAMPAIGN, ORDER, SPEC, Field, Rows, Section
from operations.exchange.values import short
from rules.errors import InvalidImport, RuleError

M = TypeVar("M", bound=models.Model)
Row = dict[str, Any]
Pks = dict[str, dict[int, int]]

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


def campaign_import(data: Any, *, by: Actor | None = None, slug: str | None = None) -> Campaign:
    """Load an exported campaign as a new campaign; ``by`` becomes its GM.

    The whole document is checked first; any problem is an ``InvalidImport`` naming it, and
    nothing is written (the transaction rolls back)."""
    try:
        return _import(data, by=by, slug=slug)
    except (IntegrityError, DataError) as exc:
        raise InvalidImport(_integrity_message(exc)) from exc


@transaction.atomic
def _import(data: Any, *, by: Actor | None, slug: str | None) -> Campaign:
    ctx = read_document(data)
    # a document from before regnal numbers: its reigns get the numerals they would have had
    unnumbered = any(isinstance(r, dict) and "numeral" not in r for r in data.get("reigns") or [])
    campaign = _write_campaign(ctx.rows["campaign"][0], by=by, slug=slug)
    pks: Pks = {}
    pending: list[tuple[Section, Field, list[Row], list[models.Model]]] = []
    for name in ORDER:
        s = BY_NAME[name]
        rows = ctx.rows[name]
        later = [f for f in s.fields if f.kind == "ref" and f.ref not in pks]  # itself, or written later
        objs = _bulk_create(s.model, [s.model(**_columns(s, row, campaign, pks)) for row in rows])
        if s.numbered:
            pks[name] = {row["id"]: obj.pk for row, obj in zip(rows, objs, strict=True)}
        pending += [(s, f, rows, objs) for f in later]
        pending = _link(pending, pks)
        for f in s.fields:
            if f.rows is not None:
                _write_rows(f.rows, f.key, rows, objs, pks)
            if f.kept is not None:  # kept in another app's table: written once the rows exist
                f.kept(f.key, rows, objs, pks)
    if unnumbered:
        regnal.number_unnumbered(campaign)
    audit.record_import(campaign, by=by)
    return campaign


def _write_campaign(row: Row, *, by: Actor | None, slug: str | None) -> Campaign:
    fields = {f.source: row[f.key] for f in CAMPAIGN.fields if f.key != "tables"}
    if slug is not None:
        if not slug_re.match(slug) or len(slug) > 80:
            raise InvalidImport(f"slug: {short(slug)} is not a slug (letters, digits, hyphens and underscores)")
        if Campaign.objects.filter(slug=slug).exists():
            raise RuleError(f"The slug {slug!r} is taken; choose another.", code="slug_taken", fields={"slug": "taken"})
        fields["slug"] = slug
    else:
        fields["slug"] = _unique_slug(fields["slug"])
    campaign = Campaign.objects.create(**fields)
    _bulk_create(RuleTable, [RuleTable(campaign=campaign, key=k, data=v) for k, v in row["tables"].items()])
    # a command's import (the system, or no one) seats no GM: only a saved, logged-in user is one
    if isinstance(by, User) and audit.person(by) is not None:
        Membership.objects.create(campaign=campaign, user=by, role=Role.GM)
    return campaign


def _columns(s: Section, row: Row, campaign: Campaign, pks: Pks) -> dict[str, Any]:
    """A row's columns: references to rows already written as their new ids (the others, those
    to the section itself or to one written later, are null until ``_link``)."""
    out: dict[str, Any] = {"campaign": campaign} if s.scope == "campaign" else {}
    for f in s.fields:
        if f.rows is not None or f.kept is not None or (s.numbered and f.key == "id"):
            continue
        value = row[f.key]
        if f.load is not None:
            out[f.source] = f.load(value, pks, row)
        elif f.kind == "ref":
            out[f.source] = None if value is None or f.ref not in pks else pks[f.ref][value]
        else:
            out[f.source] = value
    out.update({c: row[c] for c in (*s.extra, *s.derived)})
    return out


def _link(
    pending: list[tuple[Section, Field, list[Row], list[models.Model]]], pks: Pks
) -> list[tuple[Section, Field, list[Row], list[models.Model]]]:
    """Set the references whose rows now exist (a union, parents, a reversal...); the rest wait."""
    waiting = []
    for s, f, rows, objs in pending:
        if f.ref not in pks:
            waiting.append((s, f, rows, objs))
            continue
        linked = []
        for row, obj in zip(rows, objs, strict=True):
            if row[f.key] is not None:
                setattr(obj, f.source, pks[f.ref][row[f.key]])
                linked.append(obj)
        if linked:
            s.model._default_manager.bulk_update(linked, [f.source.removesuffix("_id")])
    return waiting


def _write_rows(rows: Rows, key: str, parents: list[Row], objs: list[models.Model], pks: Pks) -> None:
    """The objects (or ids) listed under a field, each pointing to its parent's new row."""
    children = []
    for parent, obj in zip(parents, objs, strict=True):
        for n, child in enumerate(parent[key]):
            values = {rows.fields[0].key: child} if rows.flat else child
            columns = {rows.parent: obj.pk, **_child_columns(rows, values, pks)}
            if rows.position:
                columns[rows.position] = n
            children.append(rows.model(**columns))
    _bulk_create(rows.model, children)


def _child_columns(rows: Rows, values: Row, pks: Pks) -> dict[str, Any]:
    out = {}
    for f in rows.fields:
        value = values[f.key]
        out[f.source] = pks[f.ref][value] if f.kind == "ref" and value is not None else value
    return out


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


def _written() -> list[type[models.Model]]:
    """Every model the import writes."""
    found: list[type[models.Model]] = [Campaign, RuleTable, Membership]
    found += [s.model for s in SPEC if s is not CAMPAIGN]
    return found + [f.rows.model for s in SPEC for f in s.fields if f.rows is not None]


def _column(model: type[models.Model], name: str) -> str | None:
    """The column of a model's field that a constraint names (a constraint names concrete fields)."""
    field = model._meta.get_field(name)
    return field.column if isinstance(field, models.Field) else None


def _broken_constraint(text: str) -> tuple[type[models.Model], models.BaseConstraint] | None:
    """The constraint a database error names: PostgreSQL and SQLite checks give its name,
    SQLite unique indexes give their columns."""
    for model in _written():
        for constraint in model._meta.constraints:
            if re.search(rf"\b{re.escape(constraint.name)}\b", text):
                return model, constraint
            if isinstance(constraint, models.UniqueConstraint) and constraint.fields:
                columns = ", ".join(f"{model._meta.db_table}.{_column(model, f)}" for f in constraint.fields)
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
