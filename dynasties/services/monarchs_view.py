"""What the EU monarchs' phase of a turn shows, read only (RULES.md C; issue 32): for each crown of
an ``eu-monarchs`` campaign, what is due at this turn's Survival step and the exact odds before the
roll.

    monarchs_board(campaign)   # every crown: its monarch's survival roll, or the succession roll

A crown's monarch rolls for survival once a turn (``monarch_survival_roll``) unless a named monarch
is exempt, or he was crowned at this very step (his first roll is next turn, as the automatic player
plays it); a vacant throne (no monarch, or a dead one) rolls its successor
(``monarch_succession_roll``). Everything here comes from :mod:`rules.eu_monarchs` and the crown's
standing as ``dynasties.services.eu_monarchs`` reads it, so a page never offers a roll the services
would refuse, and never shows other odds than the tables give. The board runs a fixed number of
queries whatever the number of crowns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db.models import Max, Prefetch

from campaign.models import Campaign, Roll, Step
from dynasties.models import Character, Crown, Dynasty, Reign, RollSubject, Status
from dynasties.services.eu_monarchs import MonarchStatus, _status, _values, load_eu_tables
from rules import eu_monarchs as eu
from rules.dice import TWO_D10
from rules.odds import Odds

SURVIVAL, SUCCESSION, EXEMPT, DONE = "survival", "succession", "exempt", "done"
SUCCESSION_PURPOSES = ("monarch_succession", "monarch_age", "monarch_value", "monarch_reign")
PURPOSES = ("monarch_survival", *SUCCESSION_PURPOSES)
BOARD: dict[str, str] = {
    eu.PASHA: "Pasha: the board applies the Turkish column's Pasha result.",
    eu.REVOLT: "Revolt: one revolt to roll in Turkey.",
    eu.REVOLT_CRISIS: "Revolt and Dynastic Crisis: one revolt to roll in Turkey, and the next succession is a Dynastic Crisis.",
}


def _odds(chance: Fraction) -> Odds:
    return Odds(chance, eu.SURVIVAL_DICE)


@dataclass(frozen=True)
class Chance:
    """One outcome of a roll and its exact odds ("dies: 1 in 10 (1/10, 10%)")."""

    label: str
    odds: Odds

    @property
    def text(self) -> str:
        """'2 in 10 (20%)': one die's odds, short (the fraction adds nothing on a d10)."""
        return f"{self.odds.favourable} in {self.odds.throws} ({self.odds.percent})"


@dataclass(frozen=True)
class SurvivalTerms:
    """The survival roll before it is made: its modifiers (each with why), the odds of each result,
    Turkey's column, and whether the rolled reign is spent (he then dies unless the roll gives +1 turn)."""

    modifiers: list[tuple[int, str]]
    modifier: int
    chances: list[Chance]
    turkish: list[Chance]
    spent: bool
    ends: Odds  # the reign ends at this roll (a death, or the rolled length spent)
    end_faces: tuple[int, ...]  # the die faces that end it: a succession follows


@dataclass(frozen=True)
class SuccessionTerms:
    """The succession roll before it is made, for a vacant throne (or the one a death would leave):
    the succession roll's modifiers and odds, the minority's odds (the roll again for age included),
    the columns each value is read in, and the reign length's modifiers and odds."""

    former: Character | None
    former_values: dict[str, int]
    modifiers: list[tuple[int, str]]
    modifier: int
    forced_crisis: bool  # Turkey's 11+ at an earlier survival roll
    doge: bool
    chances: list[Chance]
    minority: list[Chance]
    age_faces: tuple[int, ...]  # succession die faces that call for the roll again for age
    base_column: int
    column_note: str
    columns: dict[str, int]
    die_bonus: int
    minimum: int | None
    reign_modifiers: list[tuple[int, str]]
    reign_modifier: int
    reign: list[Chance]
    crisis_stability: int

    @property
    def reign_range(self) -> str:
        low, high = self.reign[0].label.split()[0], self.reign[-1].label.split()[0]
        return f"{low} turns" if low == high else f"{low} to {high} turns"


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
    period: eu.Period
    rows: list[MonarchRow]
    dice: str = str(eu.SURVIVAL_DICE)
    sides: int = eu.SURVIVAL_DICE.sides  # every roll of the monarch tables is one die of these sides
    values: tuple[str, ...] = eu.CHARACTERISTICS  # a monarch's values, in the order they are rolled

    @property
    def to_roll(self) -> list[MonarchRow]:
        return [r for r in self.rows if r.due in (SURVIVAL, SUCCESSION)]


def survival_terms(tables: Mapping[str, Any], status: MonarchStatus, year: int) -> SurvivalTerms:
    table = tables[eu.MONARCH_TABLE]
    modifier = sum(m for m, _ in status.survival_modifiers)
    odds = eu.survival_odds(table, modifier)
    planned = status.planned_end_year
    spent = planned is not None and year >= planned
    chances = [Chance("dies", _odds(odds[eu.DEAD])), Chance("+1 turn", _odds(odds[eu.EXTRA_TURN]))]
    chances.append(Chance("nothing" if not spent else "nothing (the reign is spent: he dies)", _odds(odds[""])))
    turkish = []
    if status.rules.turkey:
        t = eu.turkish_odds(table, modifier)
        turkish = [Chance(eu.TURKISH_RESULTS[k], _odds(t[k])) for k in (eu.PASHA, eu.REVOLT, eu.REVOLT_CRISIS) if t[k]]
    ends = []
    for face in range(1, eu.SURVIVAL_DICE.sides + 1):
        result = eu.survival_result(table, [face], modifier, turkey=status.rules.turkey)
        if result.dies or (spent and not result.extra_turn):
            ends.append(face)
    return SurvivalTerms(
        modifiers=list(status.survival_modifiers),
        modifier=modifier,
        chances=chances,
        turkish=turkish,
        spent=spent,
        ends=_odds(Fraction(len(ends), eu.SURVIVAL_DICE.sides)),
        end_faces=tuple(ends),
    )


def succession_terms(
    tables: Mapping[str, Any], status: MonarchStatus, state: Mapping[str, Any], former: Character | None
) -> SuccessionTerms:
    table, mods = tables[eu.MONARCH_TABLE], tables[eu.MODIFIERS]
    rules = status.rules
    s_mods = eu.succession_modifier(mods, poland_era=rules.poland_era)
    s_mod = sum(m for m, _ in s_mods)
    odds = eu.succession_odds(table, s_mod, no_crisis=rules.doge)
    forced = bool(state.get("pending_crisis")) and not rules.doge
    chances = [Chance(eu.SUCCESSION_RESULTS[k], _odds(odds[k])) for k in (eu.CRISIS, eu.FRAGILE, "") if odds[k]]
    if rules.doge:
        minority = [Chance("adult (a Doge is never a minor)", _odds(Fraction(1)))]
        age_faces: tuple[int, ...] = ()
    else:
        m = eu.minority_odds(table, s_mod, no_crisis=rules.doge)
        order = ["", *(s["name"] for s in tables[eu.MINORITY]["stages"])]
        minority = [Chance(k or "adult", Odds(m[k], TWO_D10)) for k in order if m.get(k)]  # the age die may follow
        age_faces = tuple(
            f
            for f in range(1, eu.SUCCESSION_DICE.sides + 1)
            if eu.succession_reading(table, [f], s_mod, no_crisis=rules.doge).reroll_for_age
        )
    former_values = _values(former) if former is not None else {}
    columns = {
        n: eu.successor_column(tables[eu.SUCCESSOR_VALUES], rules.base_column, former_values.get(n)) for n in eu.CHARACTERISTICS
    }
    die_bonus, minimum = eu.doge_value_rules(mods) if rules.doge else (0, None)
    r_mods = eu.reign_modifier(mods, doge=rules.doge, poland_era=rules.poland_era)
    r_mod = sum(m for m, _ in r_mods)
    reign = eu.reign_odds(table, r_mod)
    return SuccessionTerms(
        former=former,
        former_values=former_values,
        modifiers=s_mods,
        modifier=s_mod,
        forced_crisis=forced,
        doge=rules.doge,
        chances=chances,
        minority=minority,
        age_faces=age_faces,
        base_column=rules.base_column,
        column_note=rules.column_note,
        columns=columns,
        die_bonus=die_bonus,
        minimum=minimum,
        reign_modifiers=r_mods,
        reign_modifier=r_mod,
        reign=[Chance(f"{turns} turns", _odds(p)) for turns, p in sorted(reign.items())],
        crisis_stability=int(mods["crisis_stability"]),
    )


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
    tables = load_eu_tables(campaign)
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
    table = tables[eu.MONARCH_TABLE]
    period = eu.period_of_turn(tables[eu.PERIODS], eu.eu_turn(tables[eu.PERIODS], campaign.turn_number))
    rows = []
    for record in records:
        last = latest.get(record.name)
        reign = last if last is not None and last.end_year is None else None
        status = _status(campaign, tables, record, reign)
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
            result = eu.survival_result(table, survival_roll.faces, survival_roll.modifier, turkey=status.rules.turkey)
            board = BOARD.get(result.turkish, "")
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
                survival=survival_terms(tables, status, year) if due == SURVIVAL else None,
                succession=succession_terms(tables, status, state, former) if due in (SURVIVAL, SUCCESSION) else None,
                survival_roll=survival_roll,
                succession_rolls=made if crowned else [],
                crowned=crowned,
                died=died,
                board=board,
                exempt_until=exempt_until,
            )
        )
    return MonarchsBoard(year=year, period=period, rows=rows)
