"""What the EU monarchs' phase of a turn shows, read only (RULES.md C; issue 32): for each crown of
an ``eu-monarchs`` campaign, what is due at this turn's Survival step and the exact odds before the
roll.

    monarchs_board(campaign)   # every crown: its monarch's survival roll, or the succession roll

A crown's monarch rolls for survival once a turn (``monarch_survival_roll``) unless a named monarch
is exempt, or he was crowned at this very step (his first roll is next turn, as the automatic player
plays it); a vacant throne (no monarch, or a dead one) rolls its successor
(``monarch_succession_roll``). Everything here comes from the ruleset's monarchs play
(``step_of(campaign, "monarchs")``: the crown's standing, the odds and what the board must do) as
``dynasties.services.eu_monarchs`` reads it, so a page never offers a roll the services would
refuse, and never shows other odds than the tables give. The board runs a fixed number of
queries whatever the number of crowns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Max, Prefetch

from campaign.models import Campaign, Roll, Step
from dynasties.models import Character, Crown, Dynasty, Reign, RollSubject, Status
from dynasties.services.play_monarchs import Chance as Chance
from dynasties.services.play_monarchs import MonarchStatus, Period, SuccessionTerms, SurvivalTerms
from dynasties.services.play_registry import step_of

SURVIVAL, SUCCESSION, EXEMPT, DONE = "survival", "succession", "exempt", "done"
SUCCESSION_PURPOSES = ("monarch_succession", "monarch_age", "monarch_value", "monarch_reign")
PURPOSES = ("monarch_survival", *SUCCESSION_PURPOSES)


@dataclass(frozen=True)
class MonarchRow:
    crown: Crown
    house: Dynasty | None
    status: MonarchStatus
    reign: Reign | None  # the open reign
    due: str  # SURVIVAL, SUCCESSION, EXEMPT or DONE
    survival: SurvivalTerms | None  # the survival roll's terms when it is due
    succession: SuccessionTerms | None  # the succession's: a vacant throne, or the one a death would leave
    survival_roll: Roll | None  # this turn's
    succession_rolls: list[Roll] = field(default_factory=list)  # this turn's, in order
    crowned: bool = False  # the monarch was crowned at this step
    died: Character | None = None  # the monarch who died at this step (his survival roll's subject)
    board: str = ""  # what the board must do after Turkey's column
    exempt_until: int | None = None

    @property
    def name(self) -> str:
        return self.crown.name

    @property
    def key(self) -> int:
        return self.crown.pk

    @property
    def monarch(self) -> Character | None:
        return self.status.monarch

    @property
    def stage(self) -> str:
        return self.status.stage.name


@dataclass(frozen=True)
class MonarchsBoard:
    year: int
    period: Period
    rows: list[MonarchRow]
    dice: str
    sides: int  # every roll of the monarch tables is one die of these sides
    values: tuple[str, ...]  # a monarch's values, in the order they are rolled

    @property
    def to_roll(self) -> list[MonarchRow]:
        return [r for r in self.rows if r.due in (SURVIVAL, SUCCESSION)]


def _latest_reigns(campaign: Campaign, names: Sequence[str]) -> dict[str, Reign]:
    """Each crown's latest reign (open or not), with its holder: two queries."""
    latest = Reign.objects.filter(campaign=campaign, crown__in=names).values("crown").annotate(last=Max("pk"))
    ids = [row["last"] for row in latest]
    return {r.crown: r for r in Reign.objects.filter(pk__in=ids).select_related("holder")}


def _this_turns_rolls(campaign: Campaign) -> list[Roll]:
    subjects = RollSubject.objects.select_related("character").order_by("position", "pk")
    return list(
        Roll.objects.filter(campaign=campaign, year=campaign.current_year, step=Step.SURVIVAL, purpose__in=PURPOSES)
        .prefetch_related(Prefetch("subjects", queryset=subjects))
        .order_by("pk")
    )


def monarchs_board(campaign: Campaign) -> MonarchsBoard:
    """Every crown of an ``eu-monarchs`` campaign at this turn's Survival step: what is due, the odds."""
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    year = campaign.current_year
    records = list(Crown.objects.filter(campaign=campaign).select_related("home_dynasty").order_by("name"))
    latest = _latest_reigns(campaign, [r.name for r in records])
    rolls = _this_turns_rolls(campaign)
    survival_rolls = {r.detail: r for r in rolls if r.purpose == "monarch_survival"}
    by_subject: dict[int, list[Roll]] = {}
    for r in rolls:
        if r.purpose in SUCCESSION_PURPOSES:
            for s in r.subjects.all():
                by_subject.setdefault(s.character_id, []).append(r)
    period = play.period(campaign)
    rows = []
    for record in records:
        last = latest.get(record.name)
        reign = last if last is not None and last.end_year is None else None
        status = play.status_of(campaign, tables, record, reign)
        state = dict(record.state or {})
        monarch = status.monarch
        alive = monarch is not None and monarch.status == Status.ALIVE
        made = by_subject.get(monarch.pk, []) if monarch is not None else []
        crowned = alive and reign is not None and reign.start_year == year and bool(made)
        survival_roll = survival_rolls.get(record.name[:60])
        died = None
        board = ""
        if survival_roll is not None:
            subject = next(iter(survival_roll.subjects.all()), None)
            if subject is not None and (not alive or monarch is None or subject.character_id != monarch.pk):
                died = subject.character
            board = play.board_line(tables, status, survival_roll)
        exempt = state.get("no_survival_until_year")
        exempt_until = int(exempt) if exempt is not None and year < int(exempt) else None
        if not alive:
            due = SUCCESSION
        elif status.survival_rolled or crowned:
            due = DONE
        elif exempt_until is not None:
            due = EXEMPT
        else:
            due = SURVIVAL
        former = monarch if alive else (last.holder if last is not None else None)
        rows.append(
            MonarchRow(
                crown=record,
                house=record.home_dynasty,
                status=status,
                reign=reign,
                due=due,
                survival=play.survival_terms(tables, status, year) if due == SURVIVAL else None,
                succession=play.succession_terms(tables, status, state, former) if due in (SURVIVAL, SUCCESSION) else None,
                survival_roll=survival_roll,
                succession_rolls=made if crowned else [],
                crowned=crowned,
                died=died,
                board=board,
                exempt_until=exempt_until,
            )
        )
    die = play.dice()
    return MonarchsBoard(year=year, period=period, rows=rows, dice=str(die), sides=die.sides, values=play.characteristics())
