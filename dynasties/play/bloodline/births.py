"""BloodLine's Births (RULES.md B): 2d10, a child on more than 10; an additional attempt ages the
wife 2 years for good; the child's sex on 1d10 and its ADM, DIP and MIL on 1d10 each, moved by its
parents' values; children born in the order rolled, a year apart from the turn year. Who may try
is ``sequence.couple_problem`` (the line of the monarch, a minor house's one attempt)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import QuerySet

from campaign.dice import DiceBox
from campaign.models import Campaign, Roll
from campaign.permissions import Actor
from campaign.steps import Chronicle
from dynasties.models import BirthAttempt, Character, Marriage, Origin
from dynasties.play.blood_royale.births import roll_characteristics as roll_characteristics  # a baron, as before
from dynasties.play.bloodline import sequence as bls
from dynasties.play.bloodline.sequence import couple_problem, minor_stock, parent_modifiers, roll_values, values_text
from dynasties.selectors import FROZEN_LINE, frozen_lines
from dynasties.services.common import World
from dynasties.services.play_registry import (
    BirthTerms,
    BoardReads,
    CoupleOnBoard,
    CoupleTurn,
    ExtraAttempt,
    TraitValue,
    WifeSurvival,
    families_kept,
)
from dynasties.services.survival import birth_penalties
from rules import bloodline as bl
from rules.dice import DiceSource, Entered
from rules.errors import IneligibleCouple
from rules.names import given_name as suggested_name
from rules.odds import Odds, dice_must_show


def _roll(world: World, box: DiceBox, match: Marriage, made: int, faces: Entered | None) -> tuple[Roll, bool]:
    """One BloodLine birth roll (2d10 > 10); an additional attempt ages the wife 2 years for good."""
    wife = world.characters[match.wife_id]
    if made >= 1:
        wife.effective_age_offset += bl.EXTRA_ATTEMPT_YEARS
        wife.save(update_fields=["effective_age_offset"])
        world.refresh_person(wife)
    roll = box.roll(
        bl.BIRTH_DICE,
        purpose="birth",
        characters=[match.husband_id, match.wife_id],
        entered=faces,
        target=bl.BIRTH_MORE_THAN + 1,
        detail=f"attempt {made + 1}",
    )
    roll.effective_age = wife.effective_age(world.year)  # the wife's, extra attempts counted
    success = bl.birth_succeeds(roll.faces)
    roll.outcome = "child" if success else "no child"
    return roll, success


def _baby(
    world: World,
    box: DiceBox,
    match: Marriage,
    birth_year: int,
    sex_faces: Entered | None,
    trait_faces: Sequence[Entered] | None,
    name: str | None,
) -> Character:
    father, mother = world.characters[match.husband_id], world.characters[match.wife_id]
    sex_roll = box.roll(bl.SEX_DICE, purpose="sex", entered=sex_faces)
    sex = bl.sex_from_faces(sex_roll.faces)
    sex_roll.outcome = "boy" if sex == "M" else "girl"
    raised_id = match.children_raised_by_id or father.controlled_by_id
    house = world.dynasties.get(raised_id or 0)
    crown = house.crown if house else ""
    siblings = {c.given_name for c in world.characters.values() if c.father_id == father.pk and c.sex == sex}
    index = 0
    while suggested_name(crown, sex, index) in siblings and index < 12:
        index += 1
    baby = Character.objects.create(
        campaign=world.campaign,
        given_name=(name or suggested_name(crown, sex, index)).strip(),
        sex=sex,
        birth_year=birth_year,
        father=father,
        mother=mother,
        dynastic_name=father.dynastic_name,
        birth_dynasty=house,
        controlled_by=house,
        characteristics={},
        origin=Origin.BORN,
    )
    box.add_subject(sex_roll, baby)
    minor = minor_stock(father, mother, dynasties=world.dynasties)
    baby.characteristics = roll_values(box, baby, trait_faces, parent_modifiers(father, mother, minor=minor))  # type: ignore[arg-type]
    baby.save(update_fields=["characteristics"])
    world.characters[baby.pk] = baby
    world.refresh_person(baby)
    return baby


def announce(chronicle: Chronicle, child: Character) -> None:
    chronicle.add(
        "birth",
        f"{'A son' if child.sex == 'M' else 'A daughter'}, {child.display_name}, is born in {child.birth_year}: "
        f"{values_text(child)}.",
        character=child.pk,
        dynasty=child.controlled_by_id,
    )


def attempt(
    campaign: Campaign,
    match: Marriage,
    earlier: Sequence[BirthAttempt],
    *,
    faces: Entered | None,
    source: DiceSource | None,
    by: Actor,
) -> BirthAttempt:
    world = World(campaign)
    if {match.husband_id, match.wife_id} & frozen_lines(campaign):
        problem: str | None = FROZEN_LINE
    else:
        problem = couple_problem(world, match, len(earlier))
    if problem:
        raise IneligibleCouple(f"{match.husband.display_name} and {match.wife.display_name}: {problem}")
    box = DiceBox(campaign, source=source, by=by)
    roll, success = _roll(world, box, match, len(earlier), faces)
    box.flush()
    return BirthAttempt.objects.create(
        campaign=campaign,
        marriage=match,
        year=campaign.current_year,
        attempt=len(earlier) + 1,
        success=success,
        child_birth_year=bl.child_birth_year(campaign.current_year, len(earlier) + 1) if success else None,
        roll=roll,
    )


def child(
    campaign: Campaign,
    match: Marriage,
    born: int,
    *,
    faces: Entered | None,
    characteristic_faces: Sequence[Entered] | None,
    given_name: str | None,
    source: DiceSource | None,
    by: Actor,
) -> Character:
    world = World(campaign)
    box = DiceBox(campaign, source=source, by=by)
    baby = _baby(world, box, match, born, faces, characteristic_faces, given_name)
    box.flush()
    return baby


def roll_all(campaign: Campaign, *, extra: ExtraAttempt, source: DiceSource | None, by: Actor) -> list[BirthAttempt]:
    world = World(campaign)
    box = DiceBox(campaign, source=source, by=by)
    chronicle = Chronicle(campaign)
    year = world.year
    done = set(BirthAttempt.objects.filter(campaign=campaign, year=year).values_list("marriage_id", flat=True))
    frozen = frozen_lines(campaign)
    attempts: list[BirthAttempt] = []
    for match in [
        m
        for m in world.open_marriages
        if m.wedding_year is not None and m.pk not in done and not ({m.husband_id, m.wife_id} & frozen)
    ]:
        made, born = 0, 0
        while couple_problem(world, match, made) is None:
            if made and not extra(CoupleTurn(match, made, born, bl.birth_penalty(made + 1))):
                break
            roll, success = _roll(world, box, match, made, None)
            made += 1
            a = BirthAttempt(campaign=campaign, marriage=match, year=year, attempt=made, success=success, roll=roll)
            if success:
                a.child_birth_year = bl.child_birth_year(year, made)
                born += 1
                baby = _baby(world, box, match, a.child_birth_year, None, None, None)
                a.child = baby
                announce(chronicle, baby)
            attempts.append(a)
    box.flush()
    for a in attempts:
        a.roll_id = a.roll.pk if a.roll else None
    BirthAttempt.objects.bulk_create(attempts)
    chronicle.flush()
    return attempts


# the ruleset's own answers, under the protocol's names
birth_penalty = bl.birth_penalty
succeeds = bl.birth_succeeds
sex_of = bl.sex_from_faces


def child_birth_year(year: int, *, attempt: int, children_before: int) -> int:
    return bl.child_birth_year(year, attempt)


def name_kin(kin: QuerySet[Character], child: Character) -> QuerySet[Character]:
    return kin.filter(father_id=child.father_id)  # the father's children, of any state


def renamed_characteristic(was: str, now: str) -> tuple[str, str] | None:
    return None  # ADM, DIP and MIL whatever the sex


def trait_value(campaign: Campaign, trait: str, roll: Roll, was: Any) -> TraitValue:
    value = bl.child_value(roll.faces[0], roll.modifier)
    return TraitValue(value=value, outcome=f"{trait} {value}", shown=f"{trait.upper()} {value}", was_shown=f"{was}")


# --- the Births page ------------------------------------------------------------------------------


keeps_families = families_kept


def terms() -> BirthTerms:
    return BirthTerms(
        birth_dice=bl.BIRTH_DICE,
        sex_dice=bl.SEX_DICE,
        characteristic_dice=bl.CHARACTERISTIC_DICE,
        characteristic_labels=("ADM", "DIP", "MIL"),
        child_on=dice_must_show(bl.BIRTH_DICE, bl.BIRTH_MORE_THAN + 1),
        sex_rule="1-5 a boy, 6-10 a girl",
    )


def _wife_survival(due: bls.Due | None, extra: int, table: Mapping[str, Any]) -> WifeSurvival | None:
    """Her survival odds now and after one more attempt: ``extra`` more on the roll and
    ``EXTRA_ATTEMPT_YEARS`` more effective years."""
    if due is None:
        return None
    older = bl.EXTRA_ATTEMPT_YEARS
    now = 1 - bl.survival_chances(table, due.effective_age, due.modifier)["died"]
    after = 1 - bl.survival_chances(table, due.effective_age + older, due.modifier + extra)["died"]
    return WifeSurvival(
        now=Odds(now, bl.SURVIVAL_DICE),
        after=Odds(after, bl.SURVIVAL_DICE),
        must_show_now=f"effective age {due.effective_age}, {due.modifier:+d} on the roll",
        must_show_after=f"effective age {due.effective_age + older}, {due.modifier + extra:+d} on the roll",
    )


def board(
    campaign: Campaign, attempts: Mapping[int, Sequence[BirthAttempt]], reads: BoardReads
) -> tuple[Odds, list[CoupleOnBoard]]:
    """Who may try is ``couple_problem`` (a frozen line: nobody); each further attempt ages the wife
    for good and costs her on this turn's survival roll, which she makes whatever her age."""
    tables = reads.tables()
    table: Any = tables[bl.SURVIVAL]
    world = reads.world(living_only=False)
    wives = {d.character.pk: d for d in bls.bloodline_due(world, birth_penalties(campaign), table)}
    frozen = frozen_lines(campaign)
    year = campaign.current_year
    couples = []
    for m in [m for m in world.open_marriages if m.wedding_year is not None]:
        m.husband, m.wife = world.characters[m.husband_id], world.characters[m.wife_id]
        n = len(attempts.get(m.pk, ()))
        problem = FROZEN_LINE if {m.husband_id, m.wife_id} & frozen else couple_problem(world, m, n)
        wife = m.wife
        extra = bl.birth_penalty(n + 1) - bl.birth_penalty(n)
        cost = (
            f"ages {wife.display_name} {bl.EXTRA_ATTEMPT_YEARS} effective years for good (effective age "
            f"{wife.effective_age(year)} → {wife.effective_age(year) + bl.EXTRA_ATTEMPT_YEARS}) and costs her "
            f"{extra:+d} on this turn's survival roll"
        )
        survival = _wife_survival(wives.get(wife.pk), extra, table)
        couples.append(CoupleOnBoard(marriage=m, problem=problem, next_cost=cost, wife_survival=survival))
    return Odds(bl.birth_chance(), bl.BIRTH_DICE), couples
