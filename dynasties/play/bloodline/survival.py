"""BloodLine's Survival (RULES.md B): every character in play rolls 2d10 every turn on the survival
table's column of his effective age: death, ill health (older) or good health (younger); then
Finish Survival adds the turn's Stability effects (``law.turn_effects``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from campaign import audit
from campaign.dice import DiceBox
from campaign.models import Campaign, Roll
from campaign.steps import Chronicle, load_tables
from dynasties.models import Character
from dynasties.play.bloodline import sequence as bls
from dynasties.play.bloodline.law import turn_effects
from dynasties.services.common import World
from dynasties.services.play_registry import SurvivalDue, SurvivalReading, SurvivalResult, nothing_before_close
from dynasties.services.survival import birth_penalties
from rules import bloodline as bl
from rules.dice import DiceSpec, Entered
from rules.odds import Odds


def due(campaign: Campaign, world: World, tables: Mapping[str, object]) -> list[SurvivalDue]:
    """Every character, every turn, by effective age (``need``: the table's column)."""
    return [
        SurvivalDue(d.character, d.age, d.column, d.modifier, d.modifier)
        for d in bls.bloodline_due(world, birth_penalties(campaign), tables[bl.SURVIVAL])  # type: ignore[arg-type]
    ]


def adult_age() -> int:
    return bl.ADULT_AGE


def _apply(
    world: World,
    box: DiceBox,
    chronicle: Chronicle,
    due: Sequence[bls.Due],
    typed: Mapping[int, Entered],
    table: Mapping[str, Any],
) -> tuple[list[tuple[bls.Due, Roll, bl.SurvivalOutcome]], list[int]]:
    results = []
    dead: list[int] = []
    changed: list[Character] = []
    for d in due:
        roll = box.roll(
            bl.SURVIVAL_DICE,
            purpose="survival",
            characters=[d.character.pk],
            entered=typed.get(d.character.pk),
            modifier=d.modifier,
            detail=f"effective age {d.effective_age} (column {d.column})",
        )
        roll.effective_age = d.effective_age
        outcome = bl.survival_outcome(table, d.effective_age, sum(roll.faces) + d.modifier)
        roll.outcome = outcome.label
        results.append((d, roll, outcome))
        if outcome.dies:
            dead.append(d.character.pk)
            chronicle.add(
                "death",
                f"{d.character.display_name} dies in {world.year}, aged {d.age} (effective {d.effective_age}).",
                character=d.character.pk,
                dynasty=d.character.controlled_by_id,
            )
        elif outcome.years:
            d.character.effective_age_offset += outcome.years
            if d.character.effective_age(world.year) < 0:
                d.character.effective_age_offset = -d.character.age(world.year)
            changed.append(d.character)
            chronicle.add(
                "health",
                f"{d.character.display_name}: {outcome.label}; effective age now {d.character.effective_age(world.year)}.",
                character=d.character.pk,
            )
    if changed:
        audit.bulk_update(Character, changed, ["effective_age_offset"])
    return results, dead


def roll(
    campaign: Campaign,
    world: World,
    box: DiceBox,
    chronicle: Chronicle,
    *,
    chosen: Sequence[int],
    due: Mapping[int, SurvivalDue],
    typed: Mapping[int, Entered],
    tables: Mapping[str, object],
) -> tuple[list[SurvivalResult], list[int]]:
    """The chosen roll in the order they are due (effective ages read again: an attempt this turn
    may have aged a wife)."""
    table: Any = tables[bl.SURVIVAL]
    penalties = birth_penalties(campaign)
    rolled, dead = _apply(
        world, box, chronicle, [d for d in bls.bloodline_due(world, penalties, table) if d.character.pk in chosen], typed, table
    )
    return [SurvivalResult(d.character, tuple(r.faces), d.modifier, d.column, not outcome.dies) for d, r, outcome in rolled], dead


def pass_certain(campaign: Campaign) -> list[SurvivalResult]:
    """Whoever's every total reads "nothing happens" passes."""
    world = World(campaign, living_only=True)
    tables = load_tables(campaign)
    box = DiceBox(campaign)
    passed: list[SurvivalResult] = []
    table: Any = tables[bl.SURVIVAL]
    for d in bls.bloodline_due(world, birth_penalties(campaign), table):
        if bl.survival_certain(table, d.effective_age, d.modifier):
            certain = box.certain(
                bl.SURVIVAL_DICE,
                purpose="survival",
                outcome="certain: nothing happens",
                characters=[d.character.pk],
                modifier=d.modifier,
                detail=f"effective age {d.effective_age} (column {d.column})",
            )
            certain.effective_age = d.effective_age
            passed.append(SurvivalResult(d.character, (), d.modifier, d.column, True))
    box.flush()
    return passed


before_close = nothing_before_close  # the survival rolls are all there is


def after_successions(campaign: Campaign, box: DiceBox, chronicle: Chronicle) -> None:
    """The monarchs under 15, the spurned lines and the unions' first turns cost Stability."""
    turn_effects(World(campaign), box, chronicle)


def reading(campaign: Campaign, character: Character, roll: Roll) -> SurvivalReading:
    table: Any = load_tables(campaign)[bl.SURVIVAL]
    age = roll.effective_age if roll.effective_age is not None else character.effective_age(campaign.current_year)
    outcome = bl.survival_outcome(table, age, roll.total)
    return SurvivalReading(dies=outcome.dies, outcome=outcome.label, years=outcome.years)


def death_line(character: Character, year: int, old: Roll, new: Roll) -> str:
    return f"{character.display_name} dies in {year}, aged {character.age(year)} (effective {old.effective_age})."


# --- the Survival page ----------------------------------------------------------------------------


def effective_ages() -> bool:
    return True


def survival_dice() -> DiceSpec:
    return bl.SURVIVAL_DICE


def odds(campaign: Campaign, due: SurvivalDue, tables: Mapping[str, object]) -> tuple[Odds, str]:
    """The table's chances of death, ill and good health at the effective age, with the modifier."""
    table: Any = tables[bl.SURVIVAL]
    effective_age = due.character.effective_age(campaign.current_year)
    chances = bl.survival_chances(table, effective_age, due.modifier)
    dice = bl.SURVIVAL_DICE
    parts = [f"death {Odds(chances['died'], dice).text}"]
    if chances["ill"]:
        parts.append(f"ill health {Odds(chances['ill'], dice).text}")
    if chances["good"]:
        parts.append(f"good health {Odds(chances['good'], dice).text}")
    column = bl.survival_column(table["columns"], effective_age)
    text = f"effective age {effective_age} (column {column}), {due.modifier:+d} on the roll: " + "; ".join(parts)
    return Odds(1 - chances["died"], dice), text


def rolled_odds(roll: Roll) -> tuple[Odds | None, str]:
    return None, roll.detail  # the roll's detail names the effective age and column it was made at
