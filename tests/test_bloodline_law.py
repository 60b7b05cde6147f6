"""BloodLine's Dynastic Union, pass-over prices, spurned lines and royal leaders as the variant
words them (issue 15, defects 4 and part of 6)."""

from __future__ import annotations

import pytest
from django.db import transaction

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle, load_tables, lock_campaign
from dynasties.models import Character, Crown, CrownEvent, Dynasty, Marriage, PassedOver, Reign, Status
from dynasties.services import (
    announcements_make,
    births_finish,
    campaign_create,
    marriages_finish,
    survival_finish,
    survival_roll,
    turn_advance,
)
from dynasties.services.common import World
from dynasties.services.succession import crowns_join
from dynasties.services.succession_choices import crown_player
from dynasties.services.survival import survival_due
from rules.dice import FixedSource, RandomSource
from tests.factories import at_step, crown, person, wed


@pytest.fixture
def eu(db):
    return campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4))


def house(campaign, name: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=name)


def monarch(campaign, name: str) -> Character:
    return Reign.objects.get(campaign=campaign, crown=name, end_year__isnull=True).holder


def survival(campaign, *dying: int, source=None, **kw) -> None:
    """Births closed, then every character due rolls: 2 (dies from effective age 20) for ``dying``,
    14 (nothing at any age) for the rest; Survival finished."""
    campaign.refresh_from_db()
    if campaign.step == Step.BIRTHS:
        births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign))]
    survival_roll(campaign=campaign, faces={pk: [1, 1] if pk in dying else [7, 7] for pk in due}, by=SYSTEM_ACTOR)
    survival_finish(campaign=campaign, source=source or RandomSource(1), **{"by": SYSTEM_ACTOR, **kw})


def to_next_turn(campaign, year: int) -> None:
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    turn_advance(campaign=campaign, to_year=year, by=SYSTEM_ACTOR)


def join(campaign, queen_crown: str, king_crown: str) -> None:
    with transaction.atomic():
        locked = lock_campaign(campaign)
        world = World(locked, living_only=True)
        chronicle = Chronicle(locked)
        crowns_join(world, queen_crown=world.crown(queen_crown), king_crown=world.crown(king_crown), chronicle=chronicle)
        chronicle.flush()


def union(campaign) -> tuple[Character, Character]:
    """Isabella, Queen regnant of England, weds the reigning (widowed) King of France in 1492."""
    old = monarch(campaign, "England")
    Character.objects.filter(pk=old.pk).update(status=Status.DEAD, death_year=1492)
    Marriage.objects.filter(husband=old, ended_year__isnull=True).update(ended_year=1492, end_cause="death of the husband")
    queen = person(campaign, house(campaign, "England"), "Isabella", "F", 1470, father=old, adm=6, dip=6, mil=6)
    crown(campaign, queen, "England", 1492)
    king = monarch(campaign, "France")
    for first in Marriage.objects.filter(husband=king, ended_year__isnull=True):
        Character.objects.filter(pk=first.wife_id).update(status=Status.DEAD, death_year=1492)
        Marriage.objects.filter(pk=first.pk).update(ended_year=1492, end_cause="death of the wife")
    wed(campaign, king, queen, 1492)
    join(campaign, "England", "France")
    return queen, king


def union_losses(campaign, name: str = "England") -> list[tuple[int, int]]:
    return list(
        CrownEvent.objects.filter(crown__campaign=campaign, crown__name=name, reason="a Dynastic Union's first turns")
        .order_by("pk")
        .values_list("year", "delta")
    )


@pytest.mark.django_db
def test_a_union_lasting_two_turns_costs_the_queens_country_two_stability(eu):
    """BloodLine, Dynastic Union: 'The Queen's country loses stability of 1 level per Turn for the
    first two Turns that this condition exists.' The turn it forms is its first; turns are as long
    as the GM makes them (here three years), so the count is of turns, not of years."""
    _queen, king = union(eu)
    survival(eu)  # 1492: the union's first turn
    to_next_turn(eu, 1495)
    survival(eu)  # 1495: its second
    to_next_turn(eu, 1498)
    survival(eu, king.pk)  # 1498: the King dies and the union is over
    assert union_losses(eu) == [(1492, -1), (1495, -1)]
    record = Crown.objects.get(campaign=eu, name="England")
    assert record.union_with is None
    assert CrownEvent.objects.filter(crown=record, reason="the Dynastic Union is over", delta=1).count() == 1


@pytest.mark.django_db
def test_the_king_inheriting_another_crown_does_not_restart_the_unions_losses(eu):
    """BloodLine, Dynastic Union: the Queen's country loses 1 Stability a turn 'for the first two
    Turns that this condition exists' - the condition is her union with this King, which goes on
    when he also inherits another crown."""
    _queen, king = union(eu)
    survival(eu)  # 1492
    to_next_turn(eu, 1497)
    survival(eu)  # 1497
    # the King of France also inherits Spain (what the succession's bring_home does: join again)
    crown(eu, king, "Spain", 1497)
    join(eu, "England", "Spain")
    for year in (1502, 1507):
        to_next_turn(eu, year)
        survival(eu)  # the union's third and fourth turns cost nothing
    assert union_losses(eu) == [(1492, -1), (1497, -1)]
    record = Crown.objects.get(campaign=eu, name="England")
    assert record.union_since == 1492 and record.union_with.name == "France"


@pytest.mark.django_db
def test_a_union_between_two_players_is_joint(eu):
    """BloodLine, Dynastic Union: 'When both husband and wife are from Player Dynasties are both
    Monarchs, husband's controller participates fully in the decision-making process for the Queen's
    country during all subsequent phases/situations except the Diplomatic and Peace phases, and both
    the Player and the husband's controller must agree on their course of actions (or else nothing
    is done).' The Queen's country stays her house's; the King's player decides with it."""
    union(eu)
    england, france = house(eu, "England"), house(eu, "France")
    record = Crown.objects.get(campaign=eu, name="England")
    assert record.controlled_by == england and not record.annexed
    assert record.union_with.name == "France" and Crown.objects.get(campaign=eu, name="France").controlled_by == france
    assert crown_player(eu, "England") == england.pk  # the API's "who decides the succession"
    line = ChronicleEntry.objects.get(campaign=eu, kind="union").text
    assert f"the house of {england.name} keeps England and the house of {france.name} decides with it" in line
    assert "controls both" not in line


@pytest.mark.django_db
def test_passing_over_an_heir_charges_each_heir_of_his_line_skipped(eu):
    """BloodLine, Voluntary Disputed Succession: 'the country suffers a -1 Stability, and then suffers
    an additional Stability level loss and a revolt for each legitimate heir passed over.' Passing
    over the eldest son passes over his son too: two heirs, -3 Stability and 2 revolts."""
    france = house(eu, "France")
    king = monarch(eu, "France")
    first = person(eu, france, "Premier", "M", 1469, father=king, adm=5, dip=5, mil=5)
    grandson = person(eu, france, "Petitfils", "M", 1490, father=first, adm=5, dip=5, mil=5)
    second = person(eu, france, "Second", "M", 1470, father=king, adm=5, dip=5, mil=5)
    survival(eu, king.pk, pass_over={"France": [first.pk]})
    assert monarch(eu, "France") == second
    record = Crown.objects.get(campaign=eu, name="France")
    events = CrownEvent.objects.filter(crown=record, reason="voluntary succession").order_by("pk")
    assert [(e.kind, e.delta) for e in events] == [("stability", -3), ("revolt", 2)]
    reign = Reign.objects.get(campaign=eu, crown="France", end_year__isnull=True)
    assert set(PassedOver.objects.filter(reign=reign).values_list("character_id", flat=True)) == {first.pk, grandson.pk}
    first.refresh_from_db()
    grandson.refresh_from_db()
    assert first.controlled_by != france and grandson.controlled_by == first.controlled_by  # the line goes with him


@pytest.mark.django_db
def test_the_spurned_line_roll_may_raise_a_revolt(campaign):
    """BloodLine, Voluntary Disputed Succession: 'for as along as any of the skipped claimants, there
    is a 50% chance that 1 stability level is lost or a new revolt is generated each Turn'. 6-10 on
    the d10 strikes; a second d10 says which: 8 is a revolt."""
    from tests.test_bloodline_succession import bloodline, kill

    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    england = house(campaign, "England")
    king = monarch(campaign, "England")
    first = person(campaign, england, "First", "M", 1278, father=king)
    person(campaign, england, "Second", "M", 1279, father=king)
    # the spurned heir's new house (1), the turn's roll for his line (7: strikes), which (8: a revolt)
    kill(campaign, king.pk, pass_over={"England": [first.pk]}, source=FixedSource([(1,), (7,), (8,)]))
    record = Crown.objects.get(campaign=campaign, name="England")
    spurned = CrownEvent.objects.filter(crown=record, reason=f"the spurned line of {first.display_name}")
    assert [(e.kind, e.delta) for e in spurned] == [("revolt", 1)]
    assert record.stability == -2  # only the pass-over's own price
    assert Roll.objects.get(purpose="disputed_line").outcome == "a revolt"
    which = Roll.objects.get(purpose="disputed_line_which")
    assert (which.dice, which.faces, which.outcome) == ("1d10", [8], "a revolt")


@pytest.mark.django_db
def test_royal_leaders_are_only_the_present_dynastys_characters(eu):
    """BloodLine, Royal Characters in Battle: 'The variant leaders controlled by a country ...
    represent the person in line to the throne of the present dynasty' and 'Female characters still
    in the Dynasty are also assigned variant leaders this way (married females are typically
    transferred to their husband's dynasty anyway so this is not an issue).' A daughter married into
    England stays in France's line but leads nothing for France."""
    france, england = house(eu, "France"), house(eu, "England")
    king = monarch(eu, "France")
    son = person(eu, france, "Dauphin", "M", 1470, father=king, adm=5, dip=5, mil=5)
    daughter = person(eu, france, "Yolande", "F", 1468, father=king, adm=5, dip=5, mil=5)
    groom = person(eu, england, "Edmund", "M", 1465, adm=5, dip=5, mil=5)
    wed(eu, groom, daughter, 1488)
    Character.objects.filter(pk=daughter.pk).update(controlled_by=england)  # she joined her husband's house
    at_step(eu, Step.ANNOUNCEMENTS)
    announcements_make(campaign=eu, by=SYSTEM_ACTOR)
    line = ChronicleEntry.objects.get(campaign=eu, kind="leaders", data__crown="France").text
    assert line.startswith(f"Royal leaders of France: 1. {son.display_name}")
    assert "Yolande" not in line
