"""No child is born after its mother's death, nor more than a year after its father's (issue 15,
defect 7; rules/birth_years.py, applied by dynasties/services/deaths.character_die and
births_sex; docs/rulings.md, Births).

The rulebooks spread a turn's children over three years ("a third child's Year of Birth should be two
years later"; BloodLine: "a year of birth sequentially based on the Turn Year"), and the Dynastic
Sequence rolls Survival after Births, so a mother who dies in the turn's Survival dies in the turn
year, before the later children's recorded years. The ruling: the birth stands ("On a result of 7 or
higher, a child is born in that Year Turn") and its year moves earlier, behind its elder brothers
and sisters of that year."""

from __future__ import annotations

import io

import pytest
from django.db.models import F
from gedcom.element.individual import IndividualElement
from gedcom.parser import Parser

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.gedcom import export_gedcom
from dynasties.models import BirthAttempt, Character, Crown, CrownEvent, Marriage
from dynasties.services import births_attempt, births_finish, births_sex, campaign_create, survival_roll
from dynasties.services.events import survival_event
from operations.simulation import simulate
from rules.dice import RandomSource
from tests.factories import at_step
from tests.profiles import seeds, turns

pytestmark = pytest.mark.django_db


def royal_couple(campaign, crown: str) -> Marriage:
    return Marriage.objects.get(
        campaign=campaign, husband__controlled_by__crown=crown, ended_year__isnull=True, wedding_year__isnull=False
    )


def three_children(campaign, couple: Marriage, faces: list[list[int]]) -> list[Character]:
    born = []
    for n, attempt_faces in enumerate(faces):
        attempt = births_attempt(campaign=campaign, marriage=couple, faces=attempt_faces, by=SYSTEM_ACTOR)
        if attempt.success:
            born.append(births_sex(campaign=campaign, attempt=attempt, faces=[n + 1], by=SYSTEM_ACTOR))
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    return born


def years_and_orders(children: list[Character]) -> list[tuple[int, int]]:
    return [(c.birth_year, c.birth_order) for c in Character.objects.filter(pk__in=[c.pk for c in children]).order_by("pk")]


def test_a_blood_royale_mother_who_dies_in_the_turns_survival_bore_her_children_in_her_life(campaign):
    """A4: 'for the second child born to a married couple in the year 1320, the player would write
    1321 in the Year of Birth space' and a third 1322 - but the Queen dies in 1320's Survival, so
    all three are born in 1320, first, second and third ('This is important when it comes to
    determining Succession to the Throne')."""
    at_step(campaign, Step.BIRTHS, year=1320)
    couple = royal_couple(campaign, "England")
    children = three_children(campaign, couple, [[6, 6], [6, 6], [6, 6]])
    assert years_and_orders(children) == [(1320, 1), (1321, 1), (1322, 1)]
    survival_roll(campaign=campaign, characters=[couple.wife_id], faces={couple.wife_id: [1, 1]}, by=SYSTEM_ACTOR)
    assert years_and_orders(children) == [(1320, 1), (1320, 2), (1320, 3)]
    assert list(
        BirthAttempt.objects.filter(marriage=couple, year=1320).order_by("attempt").values_list("child_birth_year", flat=True)
    ) == [1320, 1320, 1320]
    lines = [e.text for e in ChronicleEntry.objects.filter(campaign=campaign, kind="birth", text__contains="year of birth")]
    assert len(lines) == 2 and "year of birth is 1320, not 1322" in lines[1]
    # seniority (year of birth, then birth order) is still the order the children were born in
    kept = Character.objects.filter(pk__in=[c.pk for c in children])
    assert [c.pk for c in sorted(kept, key=lambda c: c.as_person().seniority())] == [c.pk for c in children]


def test_a_blood_royale_fathers_last_child_is_born_within_a_year_of_his_death(campaign):
    """The King dies in 1320's Survival: the child recorded in 1322 is born in 1321, after 1321's."""
    at_step(campaign, Step.BIRTHS, year=1320)
    couple = royal_couple(campaign, "France")
    children = three_children(campaign, couple, [[6, 6], [6, 6], [6, 6]])
    survival_roll(campaign=campaign, characters=[couple.husband_id], faces={couple.husband_id: [1, 1]}, by=SYSTEM_ACTOR)
    assert years_and_orders(children) == [(1320, 1), (1321, 1), (1321, 2)]


def test_a_child_whose_sex_is_rolled_after_the_mothers_death_is_born_in_her_life(campaign):
    """A death during Births (an event, 'killed'): the second child, its sex not yet rolled, was born
    ('a child has been born') before it - in 1320, not 1321."""
    at_step(campaign, Step.BIRTHS, year=1320)
    couple = royal_couple(campaign, "Spain")
    first = births_sex(
        campaign=campaign,
        attempt=births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=SYSTEM_ACTOR),
        faces=[1],
        by=SYSTEM_ACTOR,
    )
    second = births_attempt(campaign=campaign, marriage=couple, faces=[6, 6], by=SYSTEM_ACTOR)
    assert second.child_birth_year == 1321
    survival_event(campaign=campaign, reason="killed", characters=[couple.wife_id], by=SYSTEM_ACTOR)
    child = births_sex(campaign=campaign, attempt=second, faces=[4], by=SYSTEM_ACTOR)
    assert (first.birth_year, first.birth_order, child.birth_year, child.birth_order) == (1320, 1, 1320, 2)
    second.refresh_from_db()
    assert second.child_birth_year == 1320


def test_a_bloodline_mother_who_dies_in_the_turns_survival_bore_her_children_in_her_life(db):
    """BloodLine: 'The first (female) child was born in 1520, the second (male) child was born in
    1522' - and if the Queen then dies in 1520's survival roll, the boy is born in 1520, after his
    sister."""
    eu = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4))
    at_step(eu, Step.BIRTHS, year=1520)
    couple = royal_couple(eu, "France")
    Character.objects.filter(pk=couple.wife_id).update(birth_year=1490)  # 30: young enough in 1520
    children = three_children(eu, couple, [[6, 6], [5, 5], [9, 2]])
    assert years_and_orders(children) == [(1520, 1), (1522, 1)]
    survival_roll(campaign=eu, characters=[couple.wife_id], faces={couple.wife_id: [1, 1]}, by=SYSTEM_ACTOR)
    assert years_and_orders(children) == [(1520, 1), (1520, 2)]


def child_violations(campaign) -> list[str]:
    after_mother = Character.objects.filter(campaign=campaign, mother__death_year__lt=F("birth_year"))
    after_father = Character.objects.filter(campaign=campaign, father__death_year__lt=F("birth_year") - 1)
    return [f"{c.display_name} born {c.birth_year}, mother died {c.mother.death_year}" for c in after_mother] + [
        f"{c.display_name} born {c.birth_year}, father died {c.father.death_year}" for c in after_father
    ]


def gedcom_violations(text: str) -> list[str]:
    """The check genealogy tools make: no BIRT after the mother's DEAT, none a year after the father's."""
    parser = Parser()
    parser.parse(io.BytesIO(text.encode("utf-8")), strict=True)
    elements = parser.get_element_dictionary()
    out = []
    for indi in parser.get_root_child_elements():
        if not isinstance(indi, IndividualElement):
            continue
        born = indi.get_birth_year()
        for fam in parser.get_families(indi, "FAMC"):
            for child in fam.get_child_elements():
                if child.get_tag() not in ("HUSB", "WIFE"):
                    continue
                died = elements[child.get_value()].get_death_year()
                limit = died if child.get_tag() == "WIFE" else died + 1
                if died != -1 and born > limit:
                    out.append(f"{indi.get_pointer()} born {born}, {child.get_tag()} died {died}")
    return out


@pytest.mark.long_simulation
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline", "eu-monarchs"])
@pytest.mark.parametrize("seed", seeds((1, 2)))
def test_simulated_campaigns_keep_every_child_within_its_parents_lives(db, ruleset, seed):
    """Thirty turns (the quick profile: fifteen) of each ruleset played by the automatic player: no child is born after its
    mother's death or more than a year after its father's, in the records or in the GEDCOM export;
    and every crown's Stability stayed on the track (-3..+3) throughout."""
    campaign = campaign_create(name=f"Sim {ruleset} {seed}", ruleset=ruleset, players=5, source=RandomSource(seed))
    simulate(campaign, turns=turns(30), source=RandomSource(seed), by=SYSTEM_ACTOR)
    assert child_violations(campaign) == []
    assert gedcom_violations(export_gedcom(campaign)) == []
    off_track = [
        (e.crown.name, e.year, e.stability_after)
        for e in CrownEvent.objects.filter(campaign=campaign).select_related("crown")
        if not -3 <= e.stability_after <= 3
    ]
    off_track += [(c.name, None, c.stability) for c in Crown.objects.filter(campaign=campaign) if not -3 <= c.stability <= 3]
    assert off_track == []


@pytest.mark.django_db
def test_the_data_migration_dates_an_older_versions_posthumous_children_within_their_parents_lives(campaign):
    """Children an older version dated after their mother's death are dated again by the data
    migration (to her death year, after the elder children of that year); the turn's birth record
    follows, and a child within its parents' lives is left alone."""
    import importlib

    from django.apps import apps

    from tests.factories import person

    couple = royal_couple(campaign, "England")
    Character.objects.filter(pk=couple.wife_id).update(status="dead", death_year=1300)
    elder = person(campaign, None, "Elder", "F", 1300, father=couple.husband, mother=couple.wife, dynastic_name="X")
    late = person(campaign, None, "Late", "M", 1302, father=couple.husband, mother=couple.wife, dynastic_name="X")
    earlier = person(campaign, None, "Earlier", "M", 1290, father=couple.husband, mother=couple.wife, dynastic_name="X")
    BirthAttempt.objects.create(
        campaign=campaign, marriage=couple, year=1300, attempt=3, success=True, child_birth_year=1302, child=late
    )
    migration = importlib.import_module("dynasties.migrations.0012_births_within_lives")
    migration.within_lives(apps, None)
    late.refresh_from_db()
    assert (late.birth_year, late.birth_order) == (1300, 2)  # after Elder, born in 1300
    assert BirthAttempt.objects.get(child=late).child_birth_year == 1300
    elder.refresh_from_db()
    earlier.refresh_from_db()
    assert (elder.birth_year, elder.birth_order, earlier.birth_year) == (1300, 1, 1290)
