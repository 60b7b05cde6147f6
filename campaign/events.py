"""Domain events: what happened in a campaign, told by the service that made it happen.

An event is a small frozen dataclass: the campaign's id, the year and step it happened in, the ids
involved; :meth:`Event.payload` is plain JSON (for the live table and a step's change set). A
service calls :func:`publish` once the change is written; the handlers :func:`subscribe`\\ d to the
event's class run at once, in the order they subscribed, inside the caller's transaction: a handler
that fails undoes the whole action. What the handlers need of the caller's work (the campaign
row, the chronicle writer the service is filling) comes as keyword arguments of ``publish``,
never inside the event; a handler writes its chronicle lines into that writer, so the lines keep
the order they had when the service called the other app directly.

Apps subscribe in their ``AppConfig.ready()`` (contracts: the deaths, weddings, matches ended and
turn advances that end or start its contracts). The kernel publishes the end of a step; the
dynasties publish deaths, weddings, matches ended, successions and the turn advance."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, TypeVar

E = TypeVar("E", bound="Event")
Handler = Callable[..., None]


@dataclass(frozen=True, kw_only=True)
class Event:
    """Something that happened in a campaign."""

    name: ClassVar[str] = "event"
    campaign: int
    year: int
    step: str

    def payload(self) -> dict[str, Any]:
        """The event as plain JSON: its name and its fields (ids, not rows)."""
        data = asdict(self)
        for f in fields(self):
            if isinstance(data[f.name], tuple):
                data[f.name] = list(data[f.name])
        return {"event": self.name, **data}


@dataclass(frozen=True, kw_only=True)
class Deaths(Event):
    """Characters died (one service call: a Survival roll, a battle, an execution...)."""

    name: ClassVar[str] = "deaths"
    characters: tuple[int, ...]
    cause: str = ""


@dataclass(frozen=True, kw_only=True)
class Weddings(Event):
    """Betrothed couples were wed (the Marriages step's weddings, or one at a time)."""

    name: ClassVar[str] = "weddings"
    marriages: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class MarriageEnded(Event):
    """A match ended otherwise than by a death (a betrothal broken off, a bride retired)."""

    name: ClassVar[str] = "marriage_ended"
    marriage: int
    cause: str = ""


@dataclass(frozen=True, kw_only=True)
class Succession(Event):
    """A crown passed from a late monarch to his successor (a new reign)."""

    name: ClassVar[str] = "succession"
    crown: str
    reign: int
    heir: int
    late: int


@dataclass(frozen=True, kw_only=True)
class StepFinished(Event):
    """A step of the turn is over (``step``) and the next one open (``next_step``)."""

    name: ClassVar[str] = "step_finished"
    next_step: str


@dataclass(frozen=True, kw_only=True)
class TurnAdvanced(Event):
    """The campaign moved to a new turn: ``year`` is the new turn's, ``from_year`` the old one's."""

    name: ClassVar[str] = "turn_advanced"
    from_year: int


_handlers: dict[type[Event], list[Handler]] = {}


def subscribe(event_type: type[E], handler: Callable[..., None]) -> None:
    """Run ``handler(event, **context)`` whenever an event of exactly this class is published
    (once, however often the same handler subscribes)."""
    handlers = _handlers.setdefault(event_type, [])
    if handler not in handlers:
        handlers.append(handler)


def unsubscribe(event_type: type[Event], handler: Handler) -> None:
    handlers = _handlers.get(event_type, [])
    if handler in handlers:
        handlers.remove(handler)


def handlers(event_type: type[Event]) -> list[Handler]:
    """The handlers of an event class, in the order they subscribed."""
    return list(_handlers.get(event_type, []))


def publish(event: Event, **context: Any) -> None:
    """Tell every handler of the event's class, in order, now: ``context`` is what the caller hands
    them (``campaign=`` the row, ``chronicle=`` the writer it is filling). An exception goes up to
    the caller, whose transaction it undoes."""
    for handler in handlers(type(event)):
        handler(event, **context)
