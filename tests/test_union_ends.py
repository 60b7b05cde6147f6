"""Blood Royale: a Dynastic Union ends with the King or the Queen (issue 16, items 1, 2 and 8)."""

from __future__ import annotations

import pytest
from django.db import transaction

from campaign.models import ChronicleEntry, Step
from campaign.steps import Chronicle, lock_campaign
from dynasties.models import Character, Crown, Dynasty, Marriage, Reign, Status
from dynasties.services.common import World
from dynasties.services.succession import crowns_join
from tests.factories import at_step, crown, person, wed
from tests.test_announcements import to_announcements


def reigning(campaign, name):
    return Reign.objects.get(campaign=campaign, crown=name, end_year__isnull=True).holder


def union(campaign):
    """Matilda, Queen of England, weds the widowed King of France: a Dynastic Union (A7)."""
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    year = campaign.current_year
    late = reigning(campaign, "England")
    Character.objects.filter(pk=late.pk).update(status=Status.DEAD, death_year=year)
    for m in Marriage.objects.filter(husband=late, ended_year__isnull=True):
        Marriage.objects.filter(pk=m.pk).update(ended_year=year, end_cause="death of the husband")
    queen = person(campaign, england, "Matilda", "F", 1276, father=late)
    sister = person(campaign, england, "Joan", "F", 1280, father=late)
    crown(campaign, queen, "England", year)
    king = reigning(campaign, "France")
    for first in Marriage.objects.filter(husband=king, ended_year__isnull=True):
        Character.objects.filter(pk=first.wife_id).update(status=Status.DEAD, death_year=year)
        Marriage.objects.filter(pk=first.pk).update(ended_year=year, end_cause="death of the wife")
    wed(campaign, king, queen, year)
    with transaction.atomic():
        locked = lock_campaign(campaign)
        world = World(locked)
        chronicle = Chronicle(locked)
        crowns_join(world, queen_crown=world.crown("England"), king_crown=world.crown("France"), chronicle=chronicle)
        chronicle.flush()
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    queen.refresh_from_db()
    return england, france, queen, sister, king


def br_union(campaign):
    """The union in Blood Royale: the King's player controls both crowns and the Queen (A7)."""
    england, france, queen, sister, king = union(campaign)
    record = Crown.objects.get(campaign=campaign, name="England")
    assert record.controlled_by == france and record.union_with is not None and queen.controlled_by == france
    return england, france, queen, sister, king


@pytest.mark.django_db
def test_a_widowed_queen_regnant_reigns_on_in_her_own_house_and_the_union_ends(campaign):
    """'any widows (except Queens) are returned'; 'Monarchs may not abdicate, nor be deposed'; the union
    lasts 'as long as the country is ruled by a "foreign" monarch': the King dies, the union is over,
    England goes back to its house with its Queen, who reigns on and keeps rolling for survival
    (before: she was retired as the King's widow and England stayed annexed, in union, for ever)."""
    england, _france, queen, _sister, king = br_union(campaign)
    to_announcements(campaign, {king.pk})
    queen.refresh_from_db()
    assert queen.status == Status.ALIVE and queen.retired_year is None and queen.controlled_by == england
    record = Crown.objects.get(campaign=campaign, name="England")
    assert record.controlled_by == england and record.union_with is None and not record.annexed
    assert Crown.objects.get(campaign=campaign, name="France").union_with is None
    assert reigning(campaign, "England") == queen
    line = ChronicleEntry.objects.filter(campaign=campaign, kind="union_ends").latest("pk").text
    assert line.startswith("The Dynastic Union of England and France ends with the death of")
    assert "Matilda Plantagenet reigns on in her own house" in line
    # she rolls for survival next turn, as every living character of 15 or more
    from campaign.steps import load_tables
    from dynasties.services.survival import survival_due

    campaign.refresh_from_db()
    at_step(campaign, Step.SURVIVAL, year=campaign.current_year + 5)
    due = [d.character.pk for d in survival_due(campaign, World(campaign, living_only=True), load_tables(campaign))]
    assert queen.pk in due


@pytest.mark.django_db
def test_when_the_unions_queen_dies_her_crown_goes_home_and_her_heir_stays_in_her_house(campaign):
    """'A female character who becomes Queen is always controlled by that country's player', and the
    country's player is the crown's home house once its 'foreign' monarch is gone: the Queen dies,
    her unmarried brother succeeds in his own house, their sister stays there too, and England is no longer annexed (before: the
    heir was moved into the King's house and England stayed annexed, its house landless)."""
    england, _france, queen, sister, _king = br_union(campaign)
    to_announcements(campaign, {queen.pk})
    heir = reigning(campaign, "England")
    assert heir.father_id == sister.father_id and heir.controlled_by == england  # her brother John, unmarried
    sister.refresh_from_db()
    assert sister.controlled_by == england
    record = Crown.objects.get(campaign=campaign, name="England")
    assert record.controlled_by == england and record.union_with is None


@pytest.mark.django_db
def test_a_new_queen_brings_any_children_of_the_marriage_married_ones_included(campaign):
    """A7: 'a female character who comes to the Throne would be returned to her original Dynasty,
    bringing with her her Consort and any children of the marriage': a married son who lives in the
    family's house comes with his wife; a daughter married into another house stays there (before:
    only the unmarried children came)."""
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    year = campaign.current_year
    late = reigning(campaign, "England")
    Character.objects.filter(father=late).exclude(sex="F").update(status=Status.DEAD, death_year=year - 1)
    heiress = person(campaign, england, "Isabel", "F", 1255, father=late)
    consort = person(campaign, france, "Louis", "M", 1252)
    wed(campaign, consort, heiress, 1272)
    Character.objects.filter(pk=heiress.pk).update(controlled_by=france)
    son = person(campaign, france, "Charles", "M", 1274, father=consort, mother=heiress)
    daughter_in_law = person(campaign, france, "Blanche", "F", 1276)
    wed(campaign, son, daughter_in_law, 1293)
    daughter = person(campaign, spain, "Marie", "F", 1276, father=consort, mother=heiress)
    wed(campaign, person(campaign, spain, "Pedro", "M", 1270), daughter, 1293)
    Character.objects.filter(father=late, sex="F").exclude(pk=heiress.pk).update(status=Status.DEAD, death_year=year - 1)
    Character.objects.filter(pk=late.pk).update(father=None, mother=None)
    at_step(campaign, Step.SURVIVAL)
    to_announcements(campaign, {late.pk})
    assert reigning(campaign, "England").pk == heiress.pk
    for c in (heiress, consort, son, daughter_in_law, daughter):
        c.refresh_from_db()
    assert {c.controlled_by for c in (heiress, consort, son, daughter_in_law)} == {england}
    assert daughter.controlled_by == spain


@pytest.mark.django_db
def test_the_late_queens_consort_is_regent_before_a_baron_is_created(campaign):
    """A7: 'The player can bring in any other character to act as Regent (if he or she is of age). If
    none are available, a baron or cousin of the late King is created.' The late Queen's consort, an
    adult of her house, is regent for their son of 5 (before: a baron was created); he stays in the
    house while regent, and when the regency ends he goes home as any widower."""
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.models import Origin
    from dynasties.services import turn_advance
    from tests.factories import empty_house

    house = empty_house(campaign)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    year = campaign.current_year
    queen = person(campaign, house, "Maud", "F", 1265)
    crown(campaign, queen, "Testland", year - 10)
    consort = person(campaign, france, "Louis", "M", 1262)
    wed(campaign, consort, queen, 1290)
    Character.objects.filter(pk=consort.pk).update(controlled_by=house)
    son = person(campaign, house, "Henry", "M", year - 5, father=consort, mother=queen)
    to_announcements(campaign, {queen.pk})
    reign = Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True)
    assert reign.holder == son and reign.regent_id == consort.pk
    assert not Character.objects.filter(campaign=campaign, origin=Origin.BARON).exists()
    consort.refresh_from_db()
    assert consort.controlled_by == house  # the regent stays with the crown's house
    Character.objects.filter(pk=son.pk).update(birth_year=year - 15)  # he comes of age next turn
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    consort.refresh_from_db()
    assert consort.controlled_by == france and consort.status == Status.ALIVE
    lines = [e.text for e in ChronicleEntry.objects.filter(campaign=campaign).order_by("pk")]
    assert any("the regency of Louis" in t for t in lines)
    assert "Louis Anjou, widowed, returns to the house of Anjou." in lines
