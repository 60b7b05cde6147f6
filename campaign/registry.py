"""The registry of campaign-scoped models: which rows belong to a campaign, and how to reach it.

Each app registers its own models in its ``AppConfig.ready()``: a model holding campaign state with
its lookup to the campaign (``"campaign"``, ``"contract__campaign"`` ...), whether it keeps an audit
trail, and who sees its rows (the rule's name; :mod:`campaign.permissions` applies it). A model that
is not campaign state (the campaign itself, memberships, checkpoints, tokens, historical rows) is
registered exempt, with the reason. Undo (:mod:`campaign.undo`), the audit trail
(:mod:`campaign.audit`), the policy and the export read this registry; a test checks that every
model of the project is in it, so a new model cannot be forgotten."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db import models
from django.db.models import ForeignObjectRel, QuerySet

MEMBERS = "members"
"""Seen by every member of the campaign (characters, families, rolls)."""
HOUSES = "houses"
"""Seen by the houses at the entry's ``houses`` lookups (a posting's payer and payee, a contract's
parties) and the GM."""
AUDIENCE = "audience"
"""Seen as the row's own ``audience`` and ``readers`` say (a chronicle line)."""
NOTES = "notes"
"""Seen as the note's own ``audience`` says (campaign.permissions.note_filter): every member, its
house's players (a campaign's note: every player) and the GM, or the GM alone."""
GM_ONLY = ""
"""Unmarked: the GM alone."""

SEES = (MEMBERS, HOUSES, AUDIENCE, NOTES, GM_ONLY)


@dataclass(frozen=True)
class Entry:
    """One registered model."""

    model: type[models.Model]
    campaign_path: str = ""
    """The lookup from a row to its campaign (``""`` for the campaign itself)."""
    audit: bool = False
    """Keeps an audit trail (a django-simple-history model)."""
    sees: str = GM_ONLY
    houses: tuple[str, ...] = ()
    """For ``sees=HOUSES``: the lookups from a row to the dynasties that see it."""
    exempt: str = ""
    """Why the model is not campaign state (empty: it is, and undo restores it)."""

    @property
    def label(self) -> str:
        return self.model._meta.label

    @property
    def undo(self) -> bool:
        """Undo and the export take every row of a scoped model."""
        return not self.exempt


_entries: dict[type[models.Model], Entry] = {}


def register(
    model: type[models.Model],
    campaign_path: str,
    *,
    audit: bool = False,
    sees: str = GM_ONLY,
    houses: Iterable[str] = (),
) -> Entry:
    """Register a model holding campaign state (in its app's ``ready()``)."""
    if sees not in SEES:
        raise ValueError(f"unknown visibility {sees!r} for {model._meta.label}")
    if (sees == HOUSES) != bool(tuple(houses)):
        raise ValueError(f"{model._meta.label}: sees=HOUSES goes with its houses' lookups, and only it")
    return _add(Entry(model, campaign_path, audit=audit, sees=sees, houses=tuple(houses)))


def exempt(model: type[models.Model], reason: str, *, campaign_path: str = "", sees: str = GM_ONLY) -> Entry:
    """Register a model that is not campaign state (undo and the export leave it), with the reason;
    ``campaign_path`` and ``sees`` when the policy shows its rows all the same (memberships)."""
    if not reason:
        raise ValueError(f"{model._meta.label}: an exempt model says why")
    if sees not in SEES or sees == HOUSES:
        raise ValueError(f"{model._meta.label}: an exempt model is seen by the members or the GM")
    return _add(Entry(model, campaign_path, sees=sees, exempt=reason))


_houses: list[type[models.Model]] = []


def register_houses(model: type[models.Model]) -> None:
    """Name the game's model of a house (the ledger's accounts, a player's seat), in the ``ready()``
    of the app that defines it: the kernel works on house ids and reads a house through this, never
    through an import or a foreign key's ``related_model``."""
    if _houses and _houses[0] is not model:
        raise ValueError(f"the houses are {_houses[0]._meta.label} already, not {model._meta.label}")
    _houses[:] = [model]


def houses() -> type[models.Model]:
    """The game's model of a house (``register_houses``); its rows read as ``campaign.models.House``."""
    if not _houses:
        raise LookupError("no app has registered the houses' model (campaign.registry.register_houses)")
    return _houses[0]


_ledger: list[type[models.Model]] = []


def register_ledger(model: type[models.Model]) -> None:
    """Name the game's model of the ledger's postings (``dynasties.models.Posting``: a campaign's
    rows, each moving money between two houses or a house and the Treasury), in its app's
    ``ready()``: undo counts the postings it takes back through this."""
    if _ledger and _ledger[0] is not model:
        raise ValueError(f"the ledger is {_ledger[0]._meta.label} already, not {model._meta.label}")
    _ledger[:] = [model]


def ledger() -> type[models.Model]:
    """The game's model of the ledger's postings (``register_ledger``)."""
    if not _ledger:
        raise LookupError("no app has registered the ledger's model (campaign.registry.register_ledger)")
    return _ledger[0]


@dataclass(frozen=True)
class Seats:
    """How the kernel reads and frees a member's house, which the game keeps (``register_seats``).

    ``house``: the lookup from a ``campaign.Membership`` to its house's id, read in the same query as
    the membership (the policy's seat, the live count, undo's seated houses); ``free``: takes the
    house away from the memberships given (an observer's or the GM's link to a house undone);
    ``write``: gives a membership its house, or none (``campaign.services.membership_add``)."""

    house: str
    free: Callable[[QuerySet[Any]], None]
    write: Callable[[Any, Any], None]


_seats: list[Seats] = []


def register_seats(seats: Seats) -> None:
    """Name how a member's house is read and freed (issue 35, item 4: the game's, not the kernel's),
    in the ``ready()`` of the app that keeps it."""
    if _seats and _seats[0] != seats:
        raise ValueError("the members' houses are read through another lookup already")
    _seats[:] = [seats]


def seats() -> Seats:
    """How a member's house is read and freed (``register_seats``)."""
    if not _seats:
        raise LookupError("no app has registered the members' houses (campaign.registry.register_seats)")
    return _seats[0]


_roll_subjects: list[Callable[[list[tuple[Any, list[Any]]]], list[Any]]] = []


def register_roll_subjects(write: Callable[[list[tuple[Any, list[Any]]]], list[Any]]) -> None:
    """Name the game's writer of whom the rolls were rolled for (``dynasties.models.record_roll_subjects``):
    given each roll just written with its subjects (rows or ids, in order), it writes them and
    returns the rows (each with its ``roll``). The dice box (``campaign.dice``) calls it."""
    if _roll_subjects and _roll_subjects[0] is not write:
        raise ValueError("the rolls' subjects are written by another function already")
    _roll_subjects[:] = [write]


def roll_subjects() -> Callable[[list[tuple[Any, list[Any]]]], list[Any]]:
    """The writer of the rolls' subjects (``register_roll_subjects``)."""
    if not _roll_subjects:
        raise LookupError("no app has registered the rolls' subjects (campaign.registry.register_roll_subjects)")
    return _roll_subjects[0]


def _add(entry: Entry) -> Entry:
    known = _entries.get(entry.model)
    if known is not None and known != entry:
        raise ValueError(f"{entry.label} is registered twice, differently")
    _entries[entry.model] = entry
    if entry.audit:  # its historical model is the trail, not campaign state
        from simple_history.utils import get_history_manager_for_model

        history = get_history_manager_for_model(entry.model).model
        _entries.setdefault(history, Entry(history, exempt=f"the audit trail of {entry.label}"))
    return entry


def _order(entry: Entry) -> tuple[int, int]:
    """Apps' order (INSTALLED_APPS), then the order each app registered its models in."""
    labels = [c.label for c in apps.get_app_configs()]
    app = entry.model._meta.app_label
    return (labels.index(app) if app in labels else len(labels), list(_entries).index(entry.model))


def entries() -> list[Entry]:
    """Every registered model, scoped or exempt, in a fixed order."""
    return sorted(_entries.values(), key=_order)


def scoped_models() -> list[Entry]:
    """The models holding campaign state (undo, the export), in apps' order."""
    return [e for e in entries() if not e.exempt]


def audited_models() -> list[Entry]:
    """The scoped models with an audit trail, in the order undo restores them."""
    return [e for e in scoped_models() if e.audit]


def entry(model: type[models.Model]) -> Entry | None:
    """The registration of ``model`` (a proxy counts as its concrete model), or None."""
    concrete = model._meta.concrete_model
    return _entries.get(model) or (_entries.get(concrete) if concrete is not None else None)


def related(field: models.Field[Any, Any] | ForeignObjectRel) -> type[models.Model]:
    """The model a relation points at (the app registry ready: resolved)."""
    model = field.related_model
    if model is None:  # not a relation
        raise ValueError(f"{field} points at no model")
    return model


def column(field: models.Field[Any, Any]) -> str:
    """A concrete field's column in the database (raw SQL: undo's log, the audit trail's copies)."""
    if field.column is None:  # a field without a column of its own (many-to-many): not a concrete field
        raise ValueError(f"{field} has no column")
    return field.column
