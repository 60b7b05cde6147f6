"""The kernel's step machinery: the campaign's lock, the step it is at, its tables, the chronicle
writer and the outcome of one action.

Every service of every app plays a step through these; nothing here knows of dynasties or contracts.

One request walks down once (``campaign.undo.step_action``): the action locks the campaign and raises
its live version, then holds the locked row (:func:`holding`) so that a service's own
:func:`lock_campaign` inside it takes that row as it is (no second lock, read or version), and opens
an :class:`Outcome` (:func:`collecting`) to which the writers report what they wrote (the dice box,
the chronicle, and the apps above with :func:`report`), so that a door answers with it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

from django.db import models, router, transaction

from campaign import events, live
from campaign.building import require_open
from campaign.models import STEP_ORDER, Campaign, ChronicleEntry, Roll, RuleTable, Step
from campaign.permissions import Seen, line_audience, line_seen
from rules import get_ruleset
from rules.errors import RuleError, StepOrderError
from rules.tables import validate_table

__all__ = [
    "STEP_LABELS",
    "STEP_WAITS",
    "Chronicle",
    "GameOver",
    "Outcome",
    "Seen",
    "collecting",
    "holding",
    "load_tables",
    "lock_campaign",
    "report",
    "require_open_game",
    "require_step",
    "service_atomic",
    "set_step",
]

P = ParamSpec("P")
R = TypeVar("R")

STEP_LABELS = dict(Step.choices)

# What each step waits for, as the pages and the API say it.
STEP_WAITS: dict[str, str] = {
    Step.BIRTHS: "The birth rolls of every eligible couple (and the sex of each child born).",
    Step.SURVIVAL: "The survival roll of every character who must roll this turn.",
    Step.MARRIAGES: "The players' marriages and betrothals, then the GM closes the step.",
    Step.ANNOUNCEMENTS: "The GM to publish the announcements of the year.",
    Step.INTERPHASE: "The Interphase and movement at the table; the GM then starts the next turn.",
}


def lock_campaign(campaign: Campaign | int, *, seen: Seen = Seen.GM) -> Campaign:
    """Re-read the campaign under a row lock: two GMs running a step at once queue here. Every
    write locks first, so the lock counts the write in the live versions of those who see it too
    (``campaign.live``): ``seen`` says who (``Seen.ALL``: every member, ``Seen.by(houses)``: those
    houses, ``Seen.PLAYERS``); unmarked, the GM alone. The chronicle lines it writes add their
    readers (:meth:`Chronicle.flush`). It refuses a campaign not open for play (being built, or its
    set-up failed: ``campaign.building``).

    Inside a step action (:func:`holding`) the campaign is locked and counted already: the held row
    is returned as it is, and ``seen`` only adds the audience the action's lock did not count
    (``campaign.live.reveal``: no statement when it adds no one)."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    held = _held().get(pk)
    if held is not None and not transaction.get_autocommit(router.db_for_write(Campaign)):
        live.reveal(held, seen)
        return held
    locked = live.lock_and_raise(pk, seen)
    require_open(locked)
    return locked


_local = threading.local()
"""This thread's step action: the campaign rows it holds locked (``held``) and its open outcomes."""


def _held() -> dict[int, Campaign]:
    held = getattr(_local, "held", None)
    if held is None:
        held = _local.held = {}
    return held


@contextmanager
def holding(locked: Campaign) -> Iterator[Campaign]:
    """While inside, :func:`lock_campaign` of this campaign returns ``locked`` (the caller locked it
    in the transaction it runs in: ``campaign.undo.step_action``)."""
    held = _held()
    before = held.get(locked.pk)
    held[locked.pk] = locked
    try:
        yield locked
    finally:
        if before is None:
            held.pop(locked.pk, None)
        else:
            held[locked.pk] = before


def in_step_action() -> bool:
    """Whether this thread runs inside a step action's transaction (:func:`holding` a locked campaign)."""
    return bool(_held()) and not transaction.get_autocommit(router.db_for_write(Campaign))


def service_atomic(func: Callable[P, R]) -> Callable[P, R]:
    """``transaction.atomic`` for a service: its own transaction when called alone; inside a step
    action, which rolls back as a whole whatever fails in it, no savepoint of its own (two
    statements saved; an error inside leaves the action's transaction to be rolled back, never
    half-used: Django refuses any further query in it)."""

    @functools.wraps(func)
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        with transaction.atomic(savepoint=not in_step_action()):
            return func(*args, **kwargs)

    return inner


class GameOver(StepOrderError):
    """The game has ended (``dynasties.services.ending``): no step is played any more."""

    code = "game_ended"


def require_open_game(campaign: Campaign) -> None:
    """Refuse a turn's play once the game has ended: its books stay readable, and the GM may
    reopen a game ended by mistake (the closing page)."""
    if campaign.ended_year is not None:
        raise GameOver(
            f"The game ended in {campaign.ended_year}; its books stay readable, but no turn is played any more. "
            "If it ended by mistake, the GM may undo the end or reopen the game on the closing page."
        )


def require_step(campaign: Campaign, step: Step) -> None:
    require_open_game(campaign)
    if campaign.step == step:
        return
    current = STEP_LABELS[campaign.step]
    wanted = STEP_LABELS[step]
    if STEP_ORDER.index(Step(campaign.step)) > STEP_ORDER.index(step):
        raise StepOrderError(f"The {wanted} step of {campaign.current_year} is already done; the campaign is at {current}.")
    raise StepOrderError(f"The {wanted} step is not open yet: {campaign.current_year} is at {current}; finish {current} first.")


def set_step(campaign: Campaign, step: Step) -> None:
    """Finish the campaign's step and open ``step`` (publishes ``events.StepFinished``)."""
    finished = events.StepFinished(campaign=campaign.pk, year=campaign.current_year, step=campaign.step, next_step=step)
    campaign.step = step
    campaign.save(update_fields=["step"])
    events.publish(finished, campaign=campaign)


def load_tables(campaign: Campaign) -> dict[str, Any]:
    tables = {t.key: t.data for t in RuleTable.objects.filter(campaign=campaign)}
    ruleset = get_ruleset(campaign.ruleset)
    for key in ruleset.DEFAULT_TABLES:
        if key not in tables:
            raise RuleError(f"The campaign has no {key!r} table; restore the defaults in the admin.", code="missing_table")
        validate_table(key, tables[key])
    return tables


@dataclass
class Chronicle:
    """Collects the turn's chronicle lines and writes them in one statement."""

    campaign: Campaign
    entries: list[ChronicleEntry] = field(default_factory=list)

    def add(
        self,
        kind: str,
        text: str,
        *,
        step: str | None = None,
        year: int | None = None,
        readers: Iterable[int | None] | None = None,
        **data: Any,
    ) -> None:
        """A line of ``kind``; ``readers`` (house ids) makes it private to those houses and the GM,
        and a line of a kind that is not public with none is the GM's alone (campaign.permissions)."""
        audience, readers_text = line_audience(kind, readers)
        self.entries.append(
            ChronicleEntry(
                campaign=self.campaign,
                year=self.campaign.current_year if year is None else year,
                step=step or self.campaign.step,
                kind=kind,
                text=text,
                data=data,
                audience=audience,
                readers=readers_text,
            )
        )

    def flush(self) -> None:
        """Write the lines; whoever reads one sees the write (``campaign.live.reveal``: nothing more
        to count when the lock said so already)."""
        if self.entries:
            ChronicleEntry.objects.bulk_create(self.entries)
            report_lines(self.entries)
            seen = Seen.GM
            for entry in self.entries:
                seen |= line_seen(entry.audience, entry.readers)
            self.entries = []
            live.reveal(self.campaign, seen)


@dataclass
class Outcome:
    """What one action wrote, as its writers report it (no table is read back): the rolls with
    their subjects (``campaign.dice.DiceBox.flush``), the chronicle lines (:meth:`Chronicle.flush`)
    and whatever else an app reports under a label of its own (:func:`report`, e.g. ``"reigns"``).
    A door serializes it (the API's ``act``)."""

    rolls: list[Roll] = field(default_factory=list)
    subjects: dict[int, list[Any]] = field(default_factory=dict)  # the game's rows (dynasties.models.RollSubject)
    chronicle: list[ChronicleEntry] = field(default_factory=list)
    records: dict[str, list[models.Model]] = field(default_factory=dict)

    def add(self, label: str, *objs: models.Model) -> None:
        self.records.setdefault(label, []).extend(objs)

    def of(self, label: str) -> list[Any]:
        return list(self.records.get(label, ()))


def _outcomes() -> list[Outcome]:
    stack = getattr(_local, "outcomes", None)
    if stack is None:
        stack = _local.outcomes = []
    return stack


@contextmanager
def collecting() -> Iterator[Outcome]:
    """Open an :class:`Outcome` for what is written inside (``campaign.undo.step_action`` opens one
    per action); the writers report to the innermost open one."""
    outcome = Outcome()
    stack = _outcomes()
    stack.append(outcome)
    try:
        yield outcome
    finally:
        stack.remove(outcome)


def current_outcome() -> Outcome | None:
    """The innermost open outcome, or None (a service called outside a step action)."""
    stack = _outcomes()
    return stack[-1] if stack else None


def report(label: str, *objs: models.Model) -> None:
    """Tell the open outcome that ``objs`` were written (``label``: what they are, e.g. ``"reigns"``);
    nothing outside a step action."""
    outcome = current_outcome()
    if outcome is not None:
        outcome.add(label, *objs)


def report_rolls(rolls: list[Roll], subjects: list[Any]) -> None:
    """The dice box's report: the rolls written and their subjects."""
    outcome = current_outcome()
    if outcome is None:
        return
    outcome.rolls.extend(rolls)
    for subject in subjects:
        outcome.subjects.setdefault(subject.roll.pk, []).append(subject)  # the roll as given: no query


def report_lines(entries: Iterable[ChronicleEntry]) -> None:
    """The chronicle lines written (:meth:`Chronicle.flush`, or a line written alone)."""
    outcome = current_outcome()
    if outcome is not None:
        outcome.chronicle.extend(entries)
