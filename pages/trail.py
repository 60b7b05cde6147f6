"""The audit trail on a page: the last changes to a character (and its marriages) or a contract
(and its clauses and signatures), newest first, with who, when and what (campaign.audit).

One query per kind of record whatever the campaign's size: the related objects a change names
come in the same query (``select_related``), and so does the acting user's role in the campaign
(a subquery), so nothing is looked up per change.

Who is named how (the ruling): the GM sees user names. Anyone else sees roles, not accounts:
"you", "the GM", "the player of <house>" (the dashboard already tells which house each player
plays), "an observer" or "an administrator" (an admin user who is not a member); "no one logged
in" for a command such as the simulator. The action's label ("Sign 'The Pact'", "Payment: ...")
can name private matters, so only the GM sees it; undo and admin-edit marks are shown to all."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import models
from django.db.models import OuterRef, Subquery
from django.utils.text import capfirst
from simple_history.models import DeletedObject

from campaign.audit import ADMIN_EDIT
from campaign.models import Campaign, Membership, Role
from campaign.permissions import sees_every_name, sees_private_field
from campaign.steps import STEP_LABELS
from dynasties.models import Character
from dynasties.services.editing import characteristics_text

TRAIL_LIMIT = 20
"""Changes shown on a page; the admin's History lists them all."""
HIDDEN_FIELDS = {"id", "campaign", "contract", "signed_by", "money_readers"}
"""Never changed after creation (or named elsewhere on the page)."""
WHAT = {"+": "created", "~": "changed", "-": "removed"}


@dataclass(frozen=True)
class Change:
    label: str
    old: str
    new: str


@dataclass
class Entry:
    when: Any
    year: int | None
    step: str
    who: str
    subject: str
    what: str
    action: str
    changes: list[Change] = field(default_factory=list)


@dataclass
class Trail:
    entries: list[Entry]
    more: bool
    limit: int
    admin_url: str = ""


@dataclass(frozen=True)
class Source:
    """The historical rows of one kind (already filtered to the object or objects shown) and how
    to name the object a row belongs to (empty: the page's own object)."""

    model: type[models.Model]
    rows: models.QuerySet[Any]
    subject: Callable[[Any], str] = lambda record: ""
    select: tuple[str, ...] = ()


def _text(model_field: Any, value: Any) -> str:
    if isinstance(value, DeletedObject):
        return "—" if value.pk is None else f"(a removed {value.model._meta.verbose_name})"
    if value is None or value == "" or value == {} or value == []:
        return "—"
    if isinstance(value, models.Model):
        return str(getattr(value, "display_name", None) or getattr(value, "name", None) or value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if getattr(model_field, "choices", None):
        return str(dict(model_field.flatchoices).get(value, value))
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


def _changes(
    campaign: Campaign, model: type[models.Model], new: Any, old: Any, shown: Callable[[Any, str], bool]
) -> list[Change]:
    delta = new.diff_against(old, excluded_fields=HIDDEN_FIELDS, foreign_keys_are_objs=True)
    out = []
    for change in delta.changes:
        if not (shown(new, change.field) and (change.old in (None, "") or shown(old, change.field))):
            continue  # a private field (a dowry) the viewer may not read: its change is not told either
        model_field = model._meta.get_field(change.field)
        label = capfirst(str(getattr(model_field, "verbose_name", change.field)))
        if change.field == "characteristics" and model is Character:  # "Strength +1", as the sheets
            was, now = (characteristics_text(campaign, new.sex, v) if v else "—" for v in (change.old, change.new))
            out.append(Change(label, was, now))
            continue
        out.append(Change(label, _text(model_field, change.old), _text(model_field, change.new)))
    return out


def _who(record: Any, viewer: Any, every_name: bool) -> str:
    user = record.history_user
    if user is None:
        return "no one logged in"
    if every_name:
        return str(user.get_username())
    if user.pk == getattr(viewer, "pk", None):
        return "you"
    if record.who_role == Role.GM or (record.who_role is None and user.is_superuser):
        return "the GM"
    if record.who_role == Role.PLAYER:
        return f"the player of {record.who_house}" if record.who_house else "a player"
    if record.who_role == Role.OBSERVER:
        return "an observer"
    return "an administrator"


def _public(reason: str) -> bool:
    return reason.startswith("Undo ") or reason == ADMIN_EDIT


def trail(
    viewer: Any,
    campaign: Campaign,
    role: str,
    sources: Iterable[Source],
    *,
    mine: int | None = None,
    limit: int = TRAIL_LIMIT,
) -> Trail:
    """The last ``limit`` changes over ``sources``, newest first, each with the fields it changed
    that the viewer (``role``, his house ``mine``) may read (campaign.permissions)."""
    every_name = sees_every_name(role)

    def shown(record: Any, name: str) -> bool:
        return sees_private_field(role, mine, record, name)

    members = Membership.objects.filter(campaign=campaign, user=OuterRef("history_user"))
    fetched: list[tuple[Source, Any]] = []
    more = False
    for source in sources:
        rows = list(
            source.rows._select_related_history_tracked_objs()  # type: ignore[attr-defined]  # simple_history's queryset, untyped
            .select_related("history_user", *source.select)
            .annotate(
                who_role=Subquery(members.values("role")[:1]),
                who_house=Subquery(members.values("seat__house__name")[:1]),
            )
            .order_by("-history_date", "-history_id")[: limit + 1]
        )
        more = more or len(rows) > limit
        fetched += [(source, r) for r in rows]
    # a record's changes: the difference from the record of the same object just before it
    older: dict[int, Any] = {}
    last_seen: dict[tuple[int, Any], Any] = {}
    for source, record in fetched:  # each source newest first: the next one seen is the older
        key = (id(source), getattr(record, source.model._meta.pk.attname))
        if key in last_seen:
            older[id(last_seen[key])] = record
        last_seen[key] = record
    fetched.sort(key=lambda item: (item[1].history_date, item[1].history_id), reverse=True)
    more = more or len(fetched) > limit
    entries = []
    for source, record in fetched[:limit]:
        reason = record.history_change_reason or ""
        base = older.get(id(record))
        changes = _changes(campaign, source.model, record, base, shown) if base is not None and record.history_type == "~" else []
        entries.append(
            Entry(
                when=record.history_date,
                year=record.history_year,
                step=str(STEP_LABELS.get(record.history_step, record.history_step)),
                who=_who(record, viewer, every_name),
                subject=source.subject(record),
                what=WHAT.get(record.history_type, record.history_type),
                action=reason if every_name or _public(reason) else "",
                changes=changes,
            )
        )
    return Trail(entries=entries, more=more, limit=limit)
