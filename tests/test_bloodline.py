"""The BloodLine ruleset (RULES.md B): set-up, births, natural aging, survival by effective age,
weddings in the Diplomacy phase, royal leaders and the diplomacy bonus."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from math import sqrt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Dynasty, Marriage, Reign, Status
from dynasties.services import (
    announcements_make,
    births_attempt,
    births_finish,
    births_sex,
    campaign_create,
    marriage_arrange,
    marriage_terms_set,
    marriage_wed,
    survival_finish,
    survival_roll,
    turn_advance,
)
from dynasties.services.common import World
from rules import bloodline as bl
from rules.dice import RandomSource
from rules.errors import IllegalMarriage, IneligibleCouple, RuleError, StepOrderError
from tests.factories import at_step, person, wed
from tests.profiles import examples


@pytest.fixture
def eu(db):
    return campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4))


def royal(c, crown="France"):
    return Marriage.objects.get(
        campaign=c, husband__controlled_by__crown=crown, ended_year__isnull=True, wedding_year__isnull=False
    )


@pytest.mark.django_db
def test_set_up_as_a_new_dynasty_with_adm_dip_mil(eu):
    assert (eu.start_year, eu.turn_length) == (1492, 5)
    assert [d.crown for d in Dynasty.objects.filter(campaign=eu)] == ["France", "England", "Spain"]
    family = list(Character.objects.filter(campaign=eu, controlled_by__crown="France").order_by("birth_year"))
    assert [1492 - c.birth_year for c in family] == [40, 35, 20, 15, 10]
    for c in family:
        assert set(c.characteristics) == {"adm", "dip", "mil"}
        assert all(3 <= v <= 9 for v in c.characteristics.values())
    assert Roll.objects.filter(campaign=eu, purpose="characteristic").count() == 3 * 5 * 3


@pytest.mark.django_db
def test_the_variants_example_a_girl_a_failure_and_a_boy_born_1522(eu):
    """'in 1520 the French King and his wife attempt to have children. The first attempt is successful
    and produces a girl ... another attempt, which is unsuccessful (the wife nonetheless suffers the aging
    effects) ... successfully produces a child, this time a male. The first (female) child was born in 1520,
    the second (male) child was born in 1522.'"""
    at_step(eu, Step.BIRTHS, year=1520)
    match = royal(eu)
    wife = match.wife
    Character.objects.filter(pk=wife.pk).update(birth_year=1490)  # 30: young enough in 1520
    first = births_attempt(campaign=eu, marriage=match, faces=[6, 6], by=SYSTEM_ACTOR)
    girl = births_sex(campaign=eu, attempt=first, faces=[8], characteristic_faces=[[5], [5], [5]], by=SYSTEM_ACTOR)
    second = births_attempt(campaign=eu, marriage=match, faces=[5, 5], by=SYSTEM_ACTOR)  # 10 is not more than 10
    third = births_attempt(campaign=eu, marriage=match, faces=[9, 2], by=SYSTEM_ACTOR)
    boy = births_sex(campaign=eu, attempt=third, faces=[3], characteristic_faces=[[1], [10], [7]], by=SYSTEM_ACTOR)
    assert (first.success, second.success, third.success) == (True, False, True)
    assert (girl.sex, girl.birth_year, boy.sex, boy.birth_year) == ("F", 1520, "M", 1522)
    wife.refresh_from_db()
    assert wife.effective_age_offset == 4  # two additional attempts: +2 effective years each, for good
    king, queen = match.husband, match.wife
    mods = {n: bl.parents_modifier(king.characteristics[n], queen.characteristics[n]) for n in bl.CHARACTERISTICS}
    assert boy.characteristics == {n: bl.child_value(f, mods[n]) for n, f in zip(bl.CHARACTERISTICS, (1, 10, 7), strict=True)}
    with pytest.raises(IneligibleCouple, match="all 3 birth rolls"):
        births_attempt(campaign=eu, marriage=match, faces=[9, 9], by=SYSTEM_ACTOR)
    assert Roll.objects.get(purpose="birth", detail="attempt 2").target == 11


@pytest.mark.django_db
def test_only_the_monarch_and_his_line_try_for_children(eu):
    house = Dynasty.objects.get(campaign=eu, crown="France")
    cousin = person(eu, house, "Cousin", "M", 1470, adm=5, dip=5, mil=5)
    wife = person(eu, None, "Wife", "F", 1472, dynastic_name="Other")
    match = wed(eu, cousin, wife, 1490)
    with pytest.raises(IneligibleCouple, match="monarch or one of his direct-line descendants"):
        births_attempt(campaign=eu, marriage=match, faces=[9, 9], by=SYSTEM_ACTOR)
    old = royal(eu, "England")
    Character.objects.filter(pk=old.wife.pk).update(effective_age_offset=20)  # 35 + 20 = 55 effective
    with pytest.raises(IneligibleCouple, match="effective age is 55"):
        births_attempt(campaign=eu, marriage=old, faces=[9, 9], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_survival_by_effective_age_moves_health_and_kills(eu):
    births_finish(campaign=eu, by=SYSTEM_ACTOR)
    world = World(eu)
    king = Reign.objects.get(campaign=eu, crown="France").holder  # 40
    queen = royal(eu).wife  # 35
    kid = Character.objects.filter(campaign=eu, controlled_by__crown="France", birth_year=1482).get()  # 10
    everyone = [c.pk for c in world.in_play()]
    faces = {pk: [7, 7] for pk in everyone}  # 14: nothing at any age
    faces.update({king.pk: [1, 1], queen.pk: [10, 10], kid.pk: [1, 2]})
    results = {r.character.pk: r for r in survival_roll(campaign=eu, faces=faces, by=SYSTEM_ACTOR)}
    assert len(results) == len(everyone)  # every character rolls, children too
    for c in (king, queen, kid):
        c.refresh_from_db()
    assert king.status == Status.DEAD  # 2 at 40: U
    assert queen.effective_age_offset == -5 and queen.effective_age(1492) == 30  # 20: good health
    assert kid.effective_age_offset == 0  # 3 at "10-": nothing
    assert Roll.objects.get(purpose="survival", subjects__character=queen).outcome == "good health (-5 years)"
    survival_finish(campaign=eu, by=SYSTEM_ACTOR)
    assert Reign.objects.get(campaign=eu, crown="France", end_year__isnull=True).holder.birth_year == 1472


@pytest.mark.django_db
def test_extra_birth_attempts_cost_the_wife_on_her_survival_roll(eu):
    match = royal(eu)
    for _ in range(3):
        births_attempt(campaign=eu, marriage=match, faces=[1, 1], by=SYSTEM_ACTOR)
    births_finish(campaign=eu, by=SYSTEM_ACTOR)
    queen = match.wife
    everyone = [c.pk for c in World(eu).in_play()]
    survival_roll(campaign=eu, faces={pk: [7, 7] for pk in everyone}, by=SYSTEM_ACTOR)
    roll = Roll.objects.get(purpose="survival", subjects__character=queen)
    assert roll.modifier == -2 and "effective age 39" in roll.detail  # 35 + 2 x 2


@pytest.mark.django_db
def test_turns_of_variable_length(eu):
    at_step(eu, Step.INTERPHASE)
    with pytest.raises(RuleError, match="must come after 1492"):
        turn_advance(campaign=eu, to_year=1490, by=SYSTEM_ACTOR)
    turn_advance(campaign=eu, to_year=1495, by=SYSTEM_ACTOR)
    eu.refresh_from_db()
    assert eu.current_year == 1495  # characters age by the difference: age is year - birth year


@pytest.mark.django_db
def test_weddings_happen_in_the_diplomacy_phase_with_dowry_and_title(eu):
    france, england = Dynasty.objects.get(campaign=eu, crown="France"), Dynasty.objects.get(campaign=eu, crown="England")
    prince = person(eu, france, "Charles", "M", 1472, father=Reign.objects.get(campaign=eu, crown="France").holder)
    princess = person(eu, england, "Mary", "F", 1476, father=Reign.objects.get(campaign=eu, crown="England").holder)
    at_step(eu, Step.MARRIAGES)
    with pytest.raises(StepOrderError):
        marriage_arrange(campaign=eu, husband=prince, wife=princess, wed=True, by=SYSTEM_ACTOR)
    match = marriage_arrange(campaign=eu, husband=prince, wife=princess, by=SYSTEM_ACTOR)
    at_step(eu, Step.INTERPHASE)
    with pytest.raises(IllegalMarriage, match="needs a title for the giving dynasty and a dowry of 100 ducats"):
        marriage_wed(campaign=eu, marriage=match, by=SYSTEM_ACTOR)
    with pytest.raises(IllegalMarriage, match="needs a title"):
        marriage_terms_set(campaign=eu, marriage=match, dowry="50 ducats", alliance_title="Duke of Anjou", by=SYSTEM_ACTOR)
    marriage_terms_set(campaign=eu, marriage=match, dowry="province: Anjou", alliance_title="Duke of Anjou", by=SYSTEM_ACTOR)
    marriage_wed(campaign=eu, marriage=match, by=SYSTEM_ACTOR)
    match.refresh_from_db()
    assert match.wedding_year == 1492 and match.dowry == "province: Anjou"


@pytest.mark.django_db
def test_royal_leaders_are_listed_in_order_of_succession(eu):
    at_step(eu, Step.ANNOUNCEMENTS)
    announcements_make(campaign=eu, by=SYSTEM_ACTOR)
    line = ChronicleEntry.objects.get(campaign=eu, kind="leaders", data__crown="France").text
    kids = Character.objects.filter(campaign=eu, controlled_by__crown="France", birth_year__in=[1472, 1477])
    assert line.startswith("Royal leaders of France: 1. ")
    assert all(k.display_name in line for k in kids)
    ten = Character.objects.get(campaign=eu, controlled_by__crown="France", birth_year=1482)
    assert ten.display_name not in line  # only those of 15 or more


@pytest.mark.django_db
def test_diplomacy_bonus_on_a_minor(eu):
    from dynasties.services.bloodline_sequence import diplomacy_bonus

    minor = Dynasty.objects.create(campaign=eu, name="Savoia", crown="Savoy", kind="minor", seat=9)
    duke = person(eu, minor, "Carlo", "M", 1450)
    from tests.factories import crown

    crown(eu, duke, "Savoy", 1480)
    daughter = person(eu, minor, "Bianca", "F", 1475, father=duke)
    france = Dynasty.objects.get(campaign=eu, crown="France")
    groom = person(eu, france, "Louis", "M", 1470)
    world = World(eu)
    assert diplomacy_bonus(world, france, minor) == (0, "no marriage into its royal house")
    wed(eu, groom, daughter, 1490)
    assert diplomacy_bonus(World(eu), france, minor)[0] == 2  # married to the monarch's daughter


# --- exact odds against what the services produce ----------------------------------------------


@pytest.mark.parametrize("column", bl.SURVIVAL_COLUMNS)
def test_survival_table_frequencies_match_the_exact_odds(column):
    table = bl.DEFAULT_TABLES[bl.SURVIVAL]
    chances = bl.survival_chances(table, column)
    source = RandomSource(column)
    n = 4000
    seen: Counter[str] = Counter()
    for _ in range(n):
        outcome = bl.survival_outcome(table, column, sum(source.faces(bl.SURVIVAL_DICE)))
        seen["died" if outcome.dies else "ill" if outcome.years > 0 else "good" if outcome.years < 0 else "none"] += 1
    for key, p in chances.items():
        sd = sqrt(n * float(p) * (1 - float(p))) or 1
        assert abs(seen[key] - n * float(p)) <= 3 * sd, (column, key, seen[key], n * float(p))


@pytest.mark.django_db
@pytest.mark.parametrize("column", bl.SURVIVAL_COLUMNS)
def test_the_survival_service_matches_the_exact_odds(eu, column):
    """A fixed-seed run of the service over a crowd of one effective age per column: deaths, ill health
    and good health within 3 standard deviations of the exact 2d10 odds."""
    births_finish(campaign=eu, by=SYSTEM_ACTOR)
    house = Dynasty.objects.get(campaign=eu, crown="Spain")
    Character.objects.filter(campaign=eu).update(status=Status.RETIRED)
    crowd = Character.objects.bulk_create(
        [
            Character(
                campaign=eu,
                given_name=f"P{i}",
                sex="M",
                birth_year=eu.current_year - column,
                dynastic_name="Crowd",
                controlled_by=house,
                characteristics={"adm": 5, "dip": 5, "mil": 5},
            )
            for i in range(600)
        ]
    )
    survival_roll(campaign=eu, source=RandomSource(column), by=SYSTEM_ACTOR)
    chances = bl.survival_chances(bl.DEFAULT_TABLES[bl.SURVIVAL], column)
    ids = [c.pk for c in crowd]
    n = len(ids)
    seen = {
        "died": Character.objects.filter(pk__in=ids, status=Status.DEAD).count(),
        "ill": Character.objects.filter(pk__in=ids, status=Status.ALIVE, effective_age_offset__gt=0).count(),
        "good": Character.objects.filter(pk__in=ids, effective_age_offset__lt=0).count(),
    }
    for key, count in seen.items():
        p = float(chances[key])
        sd = sqrt(n * p * (1 - p))
        assert abs(count - n * p) <= max(3 * sd, 0.5), (column, key, count, n * p)


def test_birth_chance_is_exact():
    assert bl.birth_chance() == Fraction(55, 100)  # 55 of the 100 pairs of d10 make more than 10


# --- properties ---------------------------------------------------------------------------------


@given(
    father=st.fixed_dictionaries({n: st.integers(3, 9) for n in bl.CHARACTERISTICS}),
    mother=st.fixed_dictionaries({n: st.integers(3, 9) for n in bl.CHARACTERISTICS}),
    faces=st.tuples(*[st.integers(1, 10)] * 3),
    unmodified=st.booleans(),
)
def test_characteristics_always_within_3_and_9(father, mother, faces, unmodified):
    values = bl.child_characteristics(father, mother, faces, unmodified=unmodified)
    assert all(3 <= v <= 9 for v in values.values())
    assert -2 <= bl.parents_modifier(father["adm"], mother["adm"]) <= 4


@settings(max_examples=examples(200))
@given(age=st.integers(0, 100), offset=st.integers(-30, 30), total=st.integers(2, 20))
def test_effective_age_never_below_zero(age, offset, total):
    from rules.people import Person

    p = Person(id=1, sex="M", birth_year=1500 - age, effective_age_offset=offset)
    assert p.effective_age(1500) >= 0
    outcome = bl.survival_outcome(bl.DEFAULT_TABLES[bl.SURVIVAL], p.effective_age(1500), total)
    assert outcome.column in bl.SURVIVAL_COLUMNS


@pytest.mark.django_db
def test_the_standard_dowry_is_paid_at_the_wedding(eu):
    from dynasties import treasury

    france, england = Dynasty.objects.get(campaign=eu, crown="France"), Dynasty.objects.get(campaign=eu, crown="England")
    prince = person(eu, france, "Charles", "M", 1472, father=Reign.objects.get(campaign=eu, crown="France").holder)
    princess = person(eu, england, "Mary", "F", 1476, father=Reign.objects.get(campaign=eu, crown="England").holder)
    match = marriage_arrange(
        campaign=eu, husband=prince, wife=princess, dowry="100 ducats", alliance_title="Duke of Kent", by=SYSTEM_ACTOR
    )
    at_step(eu, Step.INTERPHASE)
    marriage_wed(campaign=eu, marriage=match, by=SYSTEM_ACTOR)
    assert (treasury.balance(eu, england), treasury.balance(eu, france)) == (-100, 100)
    assert treasury.currency(eu) == "ducats"


@pytest.mark.django_db
def test_a_death_decided_at_the_table_is_recorded_and_the_crown_passes(eu):
    from dynasties.services.events import survival_event

    king = Reign.objects.get(campaign=eu, crown="France").holder
    with pytest.raises(RuleError, match="Survival rolls for plague are Blood Royale's"):
        survival_event(campaign=eu, reason="plague", characters=[king.pk], by=SYSTEM_ACTOR)
    survival_event(campaign=eu, reason="killed", characters=[king.pk], note="at Pavia", by=SYSTEM_ACTOR)
    king.refresh_from_db()
    assert king.status == Status.DEAD and king.death_cause == "killed (at Pavia)"
    assert Reign.objects.get(campaign=eu, crown="France", end_year__isnull=True).holder != king
