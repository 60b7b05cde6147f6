"""Table events: what the board and the cards decide, recorded by the GM (or the player it belongs to).

Regnal keeps the books of a physical game: a King falls in battle, a Prince is captured and ransomed,
a Pretender appears, a crown's Stability drops after a lost war. Each such record is **one
declaration** (:class:`TableEvent`): its fields, who is offered the form, its label and the rule it
cites, and the call of its service. The doors are made from the declarations and hold nothing of
their own: the pages' form (``pages.table_events``), the API's endpoint and its schema
(``api.views.table_events``) and, where an event takes characters chosen from a list, the desk's list
action (``desk.admin.events``). Adding the next event is one declaration, never three doors.

The declarations live with the services they call (the game's apps: ``dynasties.table_events``) and
register themselves when their app is ready; this module (the kernel) knows none of them.

- A :class:`Field` says what the form asks and how: a character, characters, a house, a crown, a
  title, an offer (ids, offered by its ``choices``: what the rule allows and the seat may pick), a
  number, an amount, a text, a flag, a choice among words, or the dice of each chosen character
  (``FACES``: typed at the table, or blank for the server's dice).
- ``offered(campaign, seat)`` says whether the doors show the form to a seat: it asks the policy
  (``campaign.permissions``), as every door does to shape itself; the service asks it again, and its
  refusal (403) is the answer. ``choices`` shape what a seat is offered the same way (a player: his
  own house's people); the service refuses anything else with the rule it breaks.
- ``run(campaign=locked, by=user, **values)`` calls the service inside the door's step action (one
  transaction, the undo checkpoint, the live table, the chronicle, the roll log).

Nothing here decides a rule: the services do."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from campaign.models import Campaign
from campaign.permissions import Forbidden, Seat, seat_of


class Kind(StrEnum):
    """What a field asks for."""

    CHARACTER = "character"  # one character's id
    CHARACTERS = "characters"  # several characters' ids
    DYNASTY = "dynasty"  # a house's id
    CROWN = "crown"  # a crown's name
    TITLE = "title"  # a title's id
    TITLES = "titles"  # several titles' ids
    OFFER = "offer"  # a marriage offer's id
    NUMBER = "number"  # a whole number (``low`` to ``high``)
    MONEY = "money"  # an amount of the campaign's money (0 and up)
    TEXT = "text"  # a line of words
    FLAG = "flag"  # yes or no
    CHOICE = "choice"  # one of ``choices``' words
    FACES = "faces"  # the dice typed for each character chosen in the field ``of`` (blank: the server rolls)
    DICE = "dice"  # the faces of one throw of ``dice`` (blank: the server rolls)


IDS = frozenset({Kind.CHARACTER, Kind.CHARACTERS, Kind.DYNASTY, Kind.TITLE, Kind.TITLES, Kind.OFFER})
"""The kinds whose values are rows' ids."""


@dataclass(frozen=True)
class Choice:
    """One thing a field offers: its value (an id, a crown's name, a word), what the form shows,
    and a note beside it (the odds of a roll, why a royal is immune)."""

    value: int | str
    label: str
    note: str = ""


@dataclass(frozen=True)
class Field:
    name: str
    kind: Kind
    label: str
    help: str = ""
    required: bool = True
    choices: Callable[[Campaign, Seat], Sequence[Choice]] | None = None
    """What the field offers this seat in this campaign (ids, crowns, words); None: anything of its kind."""
    low: int | None = None
    high: int | None = None
    of: str = ""
    """``FACES``: the ``CHARACTERS`` field whose chosen characters roll."""
    dice: str = ""
    """``FACES`` and ``DICE``: the throw, e.g. ``2d6``."""
    initial: Callable[[Campaign, Seat], Any] | None = None
    """What the form proposes (the software's default), e.g. the regent the rule would name."""

    def offered(self, campaign: Campaign, seat: Seat) -> list[Choice]:
        return list(self.choices(campaign, seat)) if self.choices is not None else []


@dataclass(frozen=True)
class TableEvent:
    """One kind of record of what the table decided, and how its doors ask for it."""

    key: str
    label: str
    """What the GM records, in a few words ("A battle")."""
    help: str
    """What it does and the rule it keeps, in the rulebook's words where it has them."""
    group: str
    """Where the event list puts it ("Deaths and captures", "Titles", "Crowns" ...)."""
    when: str
    """When it happens (:data:`WHEN`): ``survival`` (the Survival step), ``marriages`` (the Marriages
    step), ``sequence`` (the Dynastic Sequence: Births to Announcements), ``between`` (the movement
    rounds and the Interphase, between the steps) or ``any``."""
    fields: tuple[Field, ...]
    run: Callable[..., Any]
    """``run(campaign=locked, by=user, **values)``: calls the service; its answer is ``done``'s."""
    services: tuple[Callable[..., Any], ...]
    """The services it reaches (the door inventory, ``tests/test_doors_inventory.py``)."""
    offered: Callable[[Campaign, Seat], bool]
    """Whether the doors show the form to this seat (asks the policy; the service asks again)."""
    applies: Callable[[Campaign], bool] = lambda campaign: True
    """Whether the campaign's ruleset and optional rules have this event at all."""
    done: Callable[[Any], str] = lambda result: "Recorded: the chronicle has it."
    """What the doors say once it is recorded."""
    desk: str = ""
    """The desk's list action on characters (its words), for an event whose first field is the
    characters it happens to; empty: none."""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def when_text(self) -> str:
        """When it happens, in words (``WHEN``)."""
        return WHEN[self.when]


WHEN: dict[str, str] = {
    "survival": "in the Survival step",
    "marriages": "in the Marriages step",
    "sequence": "during the Dynastic Sequence (Births to Announcements)",
    "between": "between the steps (the movement rounds, the Interphase)",
    "any": "whenever the table decides it",
}
"""When an event happens, in the words the doors show."""


def happens_now(event: TableEvent, step: str) -> bool:
    """Whether the event may happen at this step of the turn (the turn page lists those)."""
    if event.when == "any":
        return True
    if event.when == "sequence":
        return step != "interphase"
    if event.when == "between":
        return step not in ("survival",)
    return event.when == step


_EVENTS: dict[str, TableEvent] = {}


def register(event: TableEvent) -> TableEvent:
    """Declare a table event (in its app's ``ready()``); a key declared twice, differently, is an error."""
    known = _EVENTS.get(event.key)
    if known is not None and known is not event:
        raise ValueError(f"The table event {event.key!r} is declared twice.")
    if event.when not in WHEN:
        raise ValueError(f"The table event {event.key!r} happens {event.when!r}: say one of {', '.join(WHEN)}.")
    names = [f.name for f in event.fields]
    if len(set(names)) != len(names):
        raise ValueError(f"The table event {event.key!r} names a field twice.")
    for f in event.fields:
        if f.kind == Kind.FACES and (f.of not in names or not f.dice):
            raise ValueError(f"{event.key}.{f.name}: dice for each character go with a characters field and a throw.")
    _EVENTS[event.key] = event
    return event


def events() -> list[TableEvent]:
    """Every declared event, in the order declared."""
    return list(_EVENTS.values())


def event(key: str) -> TableEvent | None:
    return _EVENTS.get(key)


def available(campaign: Campaign, seat: Seat) -> list[TableEvent]:
    """The events of this campaign's rules whose form is shown to this seat."""
    return [e for e in _EVENTS.values() if e.applies(campaign) and e.offered(campaign, seat)]


def offered_to(event: TableEvent, campaign: Campaign, user: Any) -> Seat:
    """The seat of ``user`` if the event's form is offered to him (the policy, through the declaration),
    else :class:`campaign.permissions.Forbidden` (403): a door shows the form only when this passes, and
    the service asks the policy again when the event is recorded."""
    seat = seat_of(user, campaign)
    if not event.offered(campaign, seat):
        raise Forbidden(f"{event.label}: not yours to record (docs/pages.md, 'Who may do what').")
    return seat


def choice_values(choices: Sequence[Choice]) -> set[int | str]:
    return {c.value for c in choices}


def faces_of(values: Mapping[str, Any], field: Field) -> dict[int, list[int]]:
    """The typed dice of a ``FACES`` field, by character (only those typed)."""
    typed = values.get(field.name) or {}
    return {int(pk): list(faces) for pk, faces in typed.items() if faces}
