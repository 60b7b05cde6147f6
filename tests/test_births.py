"""Step 1, Births (RULES.md A4), through the services."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import BirthAttempt, Character, Marriage
from dynasties.services import births_attempt, births_finish, births_roll_all, births_sex
from rules.dice import RandomSource
from rules.errors import IneligibleCouple, InvalidDice, RuleError, StepOrderError
from tests.factories import at_step, person, wed


def royal_couple(campaign, crown="England"):
    return Marriage.objects.get(campaign=campaign, husband__controlled_by__crown=crown, ended_year__isnull=True)


@pytest.mark.django_db
def test_a4_worked_example_births_in_1320_1321_1322(campaign, gm):
    """A4: 'for the second child born to a married couple in the year 1320, the player would write
    1321 in the Year of Birth space' - and a third child two years later."""
    at_step(campaign, Step.BIRTHS, year=1320)
    couple = royal_couple(campaign)
    born = []
    for n in range(3):
        attempt = births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=gm)
        assert attempt.success and attempt.attempt == n + 1
        born.append(births_sex(campaign=campaign, attempt=attempt, faces=[n + 1], by=gm))
    assert [c.birth_year for c in born] == [1320, 1321, 1322]
    assert all(c.father == couple.husband and c.mother == couple.wife for c in born)
    assert all(c.dynastic_name == couple.husband.dynastic_name for c in born)
    with pytest.raises(IneligibleCouple, match="all 3 birth rolls allowed"):
        births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_birth_roll_needs_seven_and_is_logged_with_typed_faces(campaign, gm):
    couple = royal_couple(campaign)
    miss = births_attempt(campaign=campaign, marriage=couple, faces=[3, 3], by=gm)
    hit = births_attempt(campaign=campaign, marriage=couple, faces=[3, 4], by=gm)
    assert (miss.success, hit.success) == (False, True)
    roll = hit.roll
    assert roll.purpose == "birth" and roll.dice == "2d6" and roll.faces == [3, 4] and roll.target == 7
    assert roll.outcome == "child" and roll.source == "entered" and roll.entered_by == gm
    assert list(roll.subjects.values_list("character_id", flat=True)) == [couple.husband_id, couple.wife_id]
    assert miss.roll.outcome == "no child"
    child = births_sex(
        campaign=campaign, attempt=hit, faces=[5], characteristic_faces=[[6, 6, 5], [3, 3, 3], [1, 2, 3]], by=SYSTEM_ACTOR
    )
    assert child.sex == "F"  # 4-6 a girl
    assert child.characteristics == {"guile": 2, "constitution": 0, "charisma": -1}
    assert child.birth_year == 1300  # the first child of the turn is born in the turn year
    sex_roll = Roll.objects.get(purpose="sex", subjects__character=child)
    assert sex_roll.outcome == "girl"
    traits = Roll.objects.filter(purpose="characteristic", subjects__character=child).order_by("id")
    assert [r.outcome for r in traits] == ["guile +2", "constitution +0", "charisma -1"]
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="birth")
    assert child.given_name in entry.text and "Guile +2" in entry.text


@pytest.mark.django_db
def test_wrong_typed_dice_are_refused_with_what_was_expected(campaign):
    couple = royal_couple(campaign)
    with pytest.raises(InvalidDice, match=r"birth roll .*needs 2 dice of 1-6 \(2d6\); 7 cannot be rolled"):
        births_attempt(campaign=campaign, marriage=couple, faces=[7, 1], by=SYSTEM_ACTOR)
    with pytest.raises(InvalidDice, match="3 faces were given"):
        births_attempt(campaign=campaign, marriage=couple, faces=[1, 2, 3], by=SYSTEM_ACTOR)
    assert not BirthAttempt.objects.exists()
    assert not Roll.objects.filter(purpose="birth").exists()


@pytest.mark.django_db
def test_no_birth_roll_for_a_wife_over_50_or_a_prisoner_or_a_betrothal(campaign):
    house = royal_couple(campaign).husband.controlled_by
    old_wife = person(campaign, None, "Agnes", "F", 1249, dynastic_name="Old")  # 51 in 1300
    old_husband = person(campaign, house, "Hugh", "M", 1250)
    old = wed(campaign, old_husband, old_wife, 1270)
    with pytest.raises(IneligibleCouple, match="wife is 51"):
        births_attempt(campaign=campaign, marriage=old, faces=[6, 6], by=SYSTEM_ACTOR)
    couple = royal_couple(campaign, "France")
    couple.husband.prisoner_of = house
    couple.husband.save()
    with pytest.raises(IneligibleCouple, match="prisoner"):
        births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=SYSTEM_ACTOR)
    young = Marriage.objects.create(
        campaign=campaign,
        husband=person(campaign, house, "Tom", "M", 1290),
        wife=person(campaign, None, "Ann", "F", 1290, dynastic_name="Other"),
        arranged_year=1300,
    )
    with pytest.raises(IneligibleCouple, match="betrothed, not wed"):
        births_attempt(campaign=campaign, marriage=young, faces=[6, 6], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_births_close_only_when_every_child_has_its_sex(campaign):
    couple = royal_couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=couple, faces=[6, 1], by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Roll the sex of the child"):
        births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    births_sex(campaign=campaign, attempt=attempt, by=SYSTEM_ACTOR)
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    assert campaign.step == Step.SURVIVAL
    with pytest.raises(StepOrderError, match="Births step of 1300 is already done"):
        births_attempt(campaign=campaign, marriage=couple, faces=[6, 1], by=SYSTEM_ACTOR)
    at_step(campaign, Step.BIRTHS)
    with pytest.raises(RuleError, match="already rolled"):
        births_sex(campaign=campaign, attempt=attempt, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_roll_all_gives_every_couple_its_attempts_and_children(campaign):
    from rules.dice import FixedSource

    # five royal couples; the first three succeed on their first roll, then no extra attempts
    faces = []
    for ok in (True, True, True, False, False):
        faces.append((6, 6) if ok else (1, 1))
        if ok:
            faces += [(1,), (3, 3, 3), (3, 3, 3), (3, 3, 3)]
    attempts = births_roll_all(campaign=campaign, source=FixedSource(faces), by=SYSTEM_ACTOR)
    assert len(attempts) == 5 and sum(a.success for a in attempts) == 3
    kids = Character.objects.filter(campaign=campaign, birth_year=1300)
    assert kids.count() == 3 and all(k.sex == "M" for k in kids)
    assert all(k.characteristics == {"strength": 0, "constitution": 0, "charisma": 0} for k in kids)
    assert Roll.objects.filter(campaign=campaign, step="births").count() == 5 + 3 * 4


@pytest.mark.django_db
def test_roll_all_extra_attempts_follow_the_policy_and_cap_at_three(campaign):
    from rules.dice import RandomSource

    seen = []

    def always(turn):
        seen.append((turn.attempts_made, turn.wife_constitution_after_next))
        return True

    births_roll_all(campaign=campaign, source=RandomSource(5), extra=always, by=SYSTEM_ACTOR)
    assert BirthAttempt.objects.filter(campaign=campaign).count() == 15  # 5 couples x 3
    assert {a for a, _ in seen} == {1, 2}
    assert {(a, c) for a, c in seen} == {(1, -1), (2, -2)}  # queens of Constitution 0


@pytest.mark.django_db
def test_a9_aristocratic_family_rolls_twice_a_turn_at_any_age_and_its_sons_join_their_wives(db):
    from dynasties.services import campaign_create, marriage_arrange

    c = campaign_create(name="Three", players=3, source=RandomSource(4))
    parents = Marriage.objects.get(campaign=c, husband__controlled_by__kind="aristocratic")
    at_step(c, Step.BIRTHS, year=1340)  # the aristocratic mother is 60
    births_attempt(campaign=c, marriage=parents, faces=[1, 1], by=SYSTEM_ACTOR)
    births_attempt(campaign=c, marriage=parents, faces=[1, 1], by=SYSTEM_ACTOR)
    with pytest.raises(IneligibleCouple, match="makes 2 birth rolls a turn"):
        births_attempt(campaign=c, marriage=parents, faces=[1, 1], by=SYSTEM_ACTOR)
    at_step(c, Step.MARRIAGES)
    son = person(c, parents.husband.controlled_by, "Guy", "M", 1310)
    england = Marriage.objects.get(campaign=c, husband__controlled_by__crown="England").husband.controlled_by
    bride = person(c, england, "Maud", "F", 1312)
    match = marriage_arrange(campaign=c, husband=son, wife=bride, wed=True, by=SYSTEM_ACTOR)
    son.refresh_from_db()
    assert match.husband_joins_wife and son.controlled_by == england
