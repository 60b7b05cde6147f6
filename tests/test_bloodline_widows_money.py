"""BloodLine has no retirement and no Blood Royale Treasury money (issue 15, defects 1 and 2).

The variant: "In most cases ... the wife leaves her Dynasty and becomes a member of her husband's
Dynasty until she dies. If her husband dies first, the wife is returned to her original family."
"Every character in the game must succesfully pass a Survival roll." And the only money of a royal
match: "Marriages between Players involving a Player's monarch or any of that monarch's direct heirs
... must be done by standard-EU dynastic alliance (that is either a $100 dowry or at least one
province transferred)". Blood Royale's retirement of a King's widow and its 100 Crowns from the
Treasury are not BloodLine's.
"""

from __future__ import annotations

import pytest
from django.db import transaction

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle, load_tables, lock_campaign
from dynasties.models import Character, Dynasty, Marriage, Posting, PostingKind, Reign, Status
from dynasties.services import (
    announcements_make,
    births_finish,
    campaign_create,
    marriage_arrange,
    marriage_wed,
    marriages_finish,
    survival_finish,
    survival_roll,
    turn_advance,
)
from dynasties.services.common import World
from dynasties.services.marriages import wedding_money
from dynasties.services.succession import crowns_join
from dynasties.services.survival import survival_due
from operations.simulation import simulate
from rules.dice import RandomSource
from tests.factories import crown, person, wed
from tests.profiles import seeds


@pytest.fixture
def eu(db):
    return campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4))


def house(campaign, name: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=name)


def monarch(campaign, name: str) -> Character:
    return Reign.objects.get(campaign=campaign, crown=name, end_year__isnull=True).holder


def survival(campaign, *dying: int) -> set[int]:
    """Births closed, then every character due rolls: 2 (dies from effective age 20) for ``dying``,
    14 (nothing at any age) for the rest. Returns who rolled."""
    campaign.refresh_from_db()
    if campaign.step == Step.BIRTHS:
        births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign))]
    survival_roll(campaign=campaign, faces={pk: [1, 1] if pk in dying else [7, 7] for pk in due}, by=SYSTEM_ACTOR)
    survival_finish(campaign=campaign, source=RandomSource(1), by=SYSTEM_ACTOR)
    return set(due)


def to_next_turn(campaign, year: int) -> None:
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    turn_advance(campaign=campaign, to_year=year, by=SYSTEM_ACTOR)


def no_crowns_anywhere(campaign) -> None:
    assert not Posting.objects.filter(campaign=campaign, kind__in=[PostingKind.MONARCH_MATCH, PostingKind.WEDDING]).exists()
    texts = ChronicleEntry.objects.filter(campaign=campaign).values_list("text", flat=True)
    assert not [t for t in texts if "Crowns" in t]  # case-sensitive ("crowns" are thrones)


@pytest.mark.django_db
def test_a_kings_widow_returns_to_her_birth_house_and_keeps_rolling(eu):
    """BloodLine: 'If her husband dies first, the wife is returned to her original family.' There is
    no retirement: 'Every character in the game must succesfully pass a Survival roll.'"""
    england = house(eu, "England")
    king = monarch(eu, "France")
    queen = Marriage.objects.get(husband=king, ended_year__isnull=True).wife
    Character.objects.filter(pk=queen.pk).update(birth_dynasty=england)  # an English princess
    survival(eu, king.pk)
    to_next_turn(eu, 1497)
    queen.refresh_from_db()
    assert (queen.status, queen.retired_year) == (Status.ALIVE, None)
    assert queen.controlled_by_id == england.pk
    assert ChronicleEntry.objects.get(campaign=eu, kind="return", data__character=queen.pk).text == (
        f"{queen.display_name}, widowed, returns to the house of {england.name}."
    )
    assert not ChronicleEntry.objects.filter(campaign=eu, kind="retirement").exists()
    assert queen.pk in survival(eu)  # she rolls again the next turn


def _union(eu) -> tuple[Character, Character]:
    """Isabella, Queen regnant of England, married to the reigning King of France: a Dynastic Union."""
    england = house(eu, "England")
    old = monarch(eu, "England")
    Character.objects.filter(pk=old.pk).update(status=Status.DEAD, death_year=1492)
    Marriage.objects.filter(husband=old, ended_year__isnull=True).update(ended_year=1492, end_cause="death of the husband")
    queen = person(eu, england, "Isabella", "F", 1470, father=old, adm=6, dip=6, mil=6)
    crown(eu, queen, "England", 1492)
    king = monarch(eu, "France")
    for first in Marriage.objects.filter(husband=king, ended_year__isnull=True):  # a widower
        Character.objects.filter(pk=first.wife_id).update(status=Status.DEAD, death_year=1492)
        Marriage.objects.filter(pk=first.pk).update(ended_year=1492, end_cause="death of the wife")
    wed(eu, king, queen, 1492)
    with transaction.atomic():
        locked = lock_campaign(eu)
        world = World(locked, living_only=True)
        chronicle = Chronicle(locked)
        crowns_join(world, queen_crown=world.crown("England"), king_crown=world.crown("France"), chronicle=chronicle)
        chronicle.flush()
    queen.refresh_from_db()
    return queen, king


@pytest.mark.django_db
def test_a_reigning_queen_widowed_keeps_reigning_and_rolling_until_she_dies(eu):
    """BloodLine: the widow 'is returned to her original family' and keeps rolling for survival; a
    Queen regnant's reign ends only with her death ('Monarchs cannot abdicate')."""
    queen, king = _union(eu)
    survival(eu, king.pk)  # the King of France dies: the union is over
    to_next_turn(eu, 1497)
    queen.refresh_from_db()
    assert queen.status == Status.ALIVE
    assert queen.controlled_by_id == house(eu, "England").pk  # home again
    assert monarch(eu, "England") == queen
    assert queen.pk in survival(eu, queen.pk)  # she rolls, and dies
    queen.refresh_from_db()
    assert (queen.status, queen.death_year) == (Status.DEAD, 1497)
    ended = Reign.objects.get(campaign=eu, crown="England", holder=queen)
    assert ended.end_year == 1497
    assert monarch(eu, "England") != queen


@pytest.mark.django_db
def test_a_house_whose_throne_is_held_is_never_refounded(eu):
    """The Dynastic Crisis is for 'a Player's dynastic line [that] has died out, i.e., there exist no
    members of the dynasty to inherit the throne': a house whose Queen reigns (controlled by her
    husband's house in a Dynastic Union) has not died out."""
    queen, _ = _union(eu)
    england, france = house(eu, "England"), house(eu, "France")
    Character.objects.filter(pk=queen.pk).update(controlled_by=france)  # with her husband's house
    Character.objects.filter(campaign=eu, controlled_by=england, status=Status.ALIVE).update(status=Status.DEAD, death_year=1492)
    survival(eu)
    to_next_turn(eu, 1497)
    england.refresh_from_db()
    assert not ChronicleEntry.objects.filter(campaign=eu, kind="created", text__contains="has died out").exists()
    assert not Character.objects.filter(campaign=eu, birth_dynasty=england, birth_year=1497 - 40).exists()
    assert monarch(eu, "England") == queen


@pytest.mark.django_db
def test_a_match_with_a_reigning_king_pays_the_dowry_and_no_crowns(eu):
    """BloodLine: a royal match 'must be done by standard-EU dynastic alliance (that is either a $100
    dowry or at least one province transferred)': no Crowns from a Treasury."""
    from dynasties import treasury

    england, spain = house(eu, "England"), house(eu, "Spain")
    king = monarch(eu, "Spain")
    for first in Marriage.objects.filter(husband=king, ended_year__isnull=True):  # a widower
        Character.objects.filter(pk=first.wife_id).update(status=Status.DEAD, death_year=1490)
        Marriage.objects.filter(pk=first.pk).update(ended_year=1490, end_cause="death of the wife")
    princess = person(eu, england, "Mary", "F", 1474, father=monarch(eu, "England"), adm=5, dip=5, mil=5)
    match = marriage_arrange(
        campaign=eu, husband=king, wife=princess, dowry="100 ducats", alliance_title="Duke of Kent", by=SYSTEM_ACTOR
    )
    preview = wedding_money(eu, [match])[0]
    assert [(m.payer, m.payee, m.amount, m.kind) for m in preview] == [(england, spain, 100, PostingKind.DOWRY)]
    survival(eu)
    marriages_finish(campaign=eu, by=SYSTEM_ACTOR)
    announcements_make(campaign=eu, by=SYSTEM_ACTOR)
    marriage_wed(campaign=eu, marriage=match, by=SYSTEM_ACTOR)
    postings = list(Posting.objects.filter(campaign=eu).values_list("kind", "payer_id", "payee_id", "amount"))
    assert postings == [(PostingKind.DOWRY, england.pk, spain.pk, 100)]
    assert (treasury.balance(eu, england), treasury.balance(eu, spain)) == (-100, 100)
    no_crowns_anywhere(eu)


@pytest.mark.django_db
def test_a_succession_posts_no_crowns_for_the_new_monarchs_spouse(eu):
    """BloodLine's succession ('The succession happens immediately upon the decease of the monarch')
    owes nothing to the spouse's house: the 100 Crowns are Blood Royale's."""
    france, england = house(eu, "France"), house(eu, "England")
    king = monarch(eu, "France")
    heir = Character.objects.filter(campaign=eu, father=king, sex="M").order_by("birth_year").first()
    if heir is None:  # the set-up's children are of random sex: make sure there is a son
        heir = person(eu, france, "Louis", "M", 1472, father=king, adm=5, dip=5, mil=5)
    Marriage.objects.filter(husband=heir, ended_year__isnull=True).delete()
    bride = person(eu, england, "Anne", "F", 1474, adm=5, dip=5, mil=5)
    Character.objects.filter(pk=bride.pk).update(controlled_by=france)
    wed(eu, heir, bride, 1491)
    survival(eu, king.pk)
    assert monarch(eu, "France") == heir  # the eldest son succeeds, married to a princess of England
    no_crowns_anywhere(eu)


@pytest.mark.django_db
@pytest.mark.long_simulation
@pytest.mark.parametrize("seed", seeds((3, 8)))
def test_a_simulated_bloodline_campaign_retires_nobody_and_no_reign_outlives_its_holder(seed):
    """No BloodLine character ever retires; a reign ends with its holder's death; no Treasury Crowns;
    no house with a living monarch on its throne 'dies out'."""
    campaign = campaign_create(name=f"Sim {seed}", ruleset="eu-bloodline", players=4, source=RandomSource(seed))
    campaign = simulate(campaign, turns=25, source=RandomSource(seed), by=SYSTEM_ACTOR)
    assert not Character.objects.filter(campaign=campaign, status=Status.RETIRED).exists()
    for reign in Reign.objects.filter(campaign=campaign).select_related("holder"):
        holder = reign.holder
        if reign.end_year is None:
            assert holder.status == Status.ALIVE, (reign.crown, holder.display_name, holder.status)
        else:
            assert holder.status == Status.DEAD and holder.death_year == reign.end_year, (reign.crown, holder.display_name)
    no_crowns_anywhere(campaign)
    for line in ChronicleEntry.objects.filter(campaign=campaign, kind="created", text__contains="has died out"):
        dynasty = Dynasty.objects.get(pk=line.data["dynasty"])
        held = Reign.objects.filter(
            campaign=campaign, crown=dynasty.crown, start_year__lt=line.year, end_year__isnull=True
        ) | Reign.objects.filter(campaign=campaign, crown=dynasty.crown, start_year__lt=line.year, end_year__gt=line.year)
        assert not held.exists(), line.text
