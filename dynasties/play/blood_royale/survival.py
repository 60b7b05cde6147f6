"""Blood Royale's Survival (RULES.md A5): from 15 (with the optional rules' exemptions), 2d6 +
Constitution against the number the survival table gives for the age; this turn's extra birth
attempts cost the wife Constitution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from campaign.dice import DiceBox
from campaign.models import Campaign, Roll
from campaign.steps import Chronicle, load_tables
from dynasties.models import Character, DynastyKind, Origin
from dynasties.services.common import World
from dynasties.services.play_registry import (
    SurvivalDue,
    SurvivalReading,
    SurvivalResult,
    nothing_after_successions,
    nothing_before_close,
)
from dynasties.services.survival import birth_penalties
from rules import blood_royale as br
from rules.dice import DiceSpec, Entered
from rules.odds import Odds, at_least, dice_must_show


def due(campaign: Campaign, world: World, tables: Mapping[str, object]) -> list[SurvivalDue]:
    year = campaign.current_year
    options = campaign.optional_rules or {}
    reigning = world.reigning()
    penalties = birth_penalties(campaign)
    table = tables["survival"]
    first_turn = year == campaign.start_year
    found: list[SurvivalDue] = []
    for character in world.in_play():
        person = world.people[character.pk]
        dynasty = world.dynasties.get(character.controlled_by_id or 0)
        starting_royal = character.origin == Origin.SETUP and character.birth_year <= campaign.start_year - br.ADULT_AGE
        exempt = bool(dynasty and dynasty.kind == DynastyKind.ARISTOCRATIC and starting_royal)
        if not br.must_roll_survival(
            person,
            year,
            options,
            is_reigning_king=character.pk in reigning and character.sex == "M",
            is_starting_royal=starting_royal,
            first_turn=first_turn,
            exempt_kind=exempt,
        ):
            continue
        penalty = penalties.get(character.pk, 0)
        check = br.survival_check(table, person, year, extra_modifier=penalty)  # type: ignore[arg-type]
        found.append(SurvivalDue(character, check.age, check.need, check.modifier, penalty))
    return found


def adult_age() -> int:
    return br.ADULT_AGE


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
    results: list[SurvivalResult] = []
    dead: list[int] = []
    for pk in chosen:
        d = due[pk]
        made = box.roll(
            br.SURVIVAL_DICE,
            purpose="survival",
            characters=[pk],
            entered=typed.get(pk),
            modifier=d.modifier,
            target=d.need,
            detail=f"age {d.age}",
        )
        survived = br.survives(br.SurvivalCheck(d.age, d.need, d.modifier), made.faces)
        made.outcome = "survived" if survived else "died"
        results.append(SurvivalResult(d.character, tuple(made.faces), d.modifier, d.need, survived))
        if not survived:
            dead.append(pk)
            chronicle.add(
                "death",
                f"{d.character.display_name} dies in {campaign.current_year}, aged {d.age} "
                f"(rolled {sum(made.faces)}{d.modifier:+d}, needed {d.need}).",
                character=pk,
                dynasty=d.character.controlled_by_id,
            )
    return results, dead


def pass_certain(campaign: Campaign) -> list[SurvivalResult]:
    """Whoever cannot fail passes."""
    world = World(campaign, living_only=True)
    tables = load_tables(campaign)
    box = DiceBox(campaign)
    passed: list[SurvivalResult] = []
    for d in due(campaign, world, tables):
        if br.SurvivalCheck(d.age, d.need, d.modifier).certain():
            box.certain(
                br.SURVIVAL_DICE,
                purpose="survival",
                outcome="certain: survives",
                characters=[d.character.pk],
                modifier=d.modifier,
                target=d.need,
                detail=f"age {d.age}",
            )
            passed.append(SurvivalResult(d.character, (), d.modifier, d.need, True))
    box.flush()
    return passed


before_close = nothing_before_close  # the survival rolls are all there is
after_successions = nothing_after_successions


def reading(campaign: Campaign, character: Character, roll: Roll) -> SurvivalReading:
    dies = roll.total < (roll.target or 0)
    return SurvivalReading(dies=dies, outcome="died" if dies else "survived")


def death_line(character: Character, year: int, old: Roll, new: Roll) -> str:
    rolled = f"rolled {sum(new.faces)}{new.modifier:+d}, needed {old.target}"
    return f"{character.display_name} dies in {year}, aged {character.age(year)} ({rolled})."


# --- the Survival page ----------------------------------------------------------------------------


def effective_ages() -> bool:
    return False


def survival_dice() -> DiceSpec:
    return br.SURVIVAL_DICE


def odds(campaign: Campaign, due: SurvivalDue, tables: Mapping[str, object]) -> tuple[Odds, str]:
    """2d6 + the modifier must reach the number for the age."""
    return at_least(br.SURVIVAL_DICE, due.need, due.modifier), dice_must_show(br.SURVIVAL_DICE, due.need, due.modifier)


def rolled_odds(roll: Roll) -> tuple[Odds | None, str]:
    if roll.target is None:
        return None, roll.detail
    return at_least(br.SURVIVAL_DICE, roll.target, roll.modifier), dice_must_show(br.SURVIVAL_DICE, roll.target, roll.modifier)
