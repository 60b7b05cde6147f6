"""BloodLine's succession differences (RULES.md B). The BloodLine ruleset itself (characteristics,
births, survival) comes later; these tests switch a campaign's ruleset by hand to exercise them."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import load_tables
from dynasties.models import (
    Character,
    Crown,
    CrownEvent,
    Dynasty,
    Modifier,
    ModifierKind,
    PassedOver,
    Reign,
    Status,
)
from dynasties.services import survival_finish, survival_roll
from dynasties.services.bloodline import crown_stability_change
from dynasties.services.common import World
from dynasties.services.events import character_capture
from dynasties.services.survival import survival_due
from rules import bloodline as bl
from rules.dice import FixedSource, RandomSource
from rules.errors import NotFound, RuleError
from tests.factories import at_step, crown, person, wed


def bloodline(campaign, **options):
    """The shared five-crown cast, switched to BloodLine (with BloodLine's survival table)."""
    from campaign.models import RuleTable
    from rules.tables import defaults_for

    for key, data in defaults_for(bl.DEFAULT_TABLES).items():
        RuleTable.objects.create(campaign=campaign, key=key, data=data)
    campaign.ruleset = "eu-bloodline"
    campaign.optional_rules = {**campaign.optional_rules, **options}
    campaign.save()
    return campaign


def kill(campaign, *dying, source=None, **kw):
    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign))]
    survival_roll(campaign=campaign, faces={pk: [1, 1] if pk in dying else [6, 6] for pk in due}, by=SYSTEM_ACTOR)
    survival_finish(campaign=campaign, source=source or RandomSource(1), **{"by": SYSTEM_ACTOR, **kw})


def england(campaign):
    return Dynasty.objects.get(campaign=campaign, crown="England")


@pytest.mark.django_db
def test_voluntary_dispute_costs_stability_revolts_and_spurns_the_skipped(campaign):
    """B: 'if you wish to skip over the first and second characters in line to the throne, you will
    suffer a total of 3 levels of stability loss, plus generate 2 revolts.'"""
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house = england(campaign)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    first = person(campaign, house, "First", "M", 1278, father=king)
    second = person(campaign, house, "Second", "M", 1279, father=king)
    third = person(campaign, house, "Third", "M", 1280, father=king)
    wife = person(campaign, Dynasty.objects.get(campaign=campaign, crown="France"), "Wife", "F", 1280)
    wed(campaign, second, wife, 1298)
    kill(campaign, king.pk, pass_over={"England": [first.pk, second.pk]}, source=FixedSource([(3,)] + [(1,)] * 20))
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    assert reign.holder == third
    record = Crown.objects.get(campaign=campaign, name="England")
    assert record.stability == -3
    events = CrownEvent.objects.filter(crown=record)
    assert [(e.kind, e.delta) for e in events] == [("stability", -3), ("revolt", 2)]
    assert set(PassedOver.objects.filter(reign=reign).values_list("character_id", flat=True)) == {first.pk, second.pk}
    assert Modifier.objects.filter(kind=ModifierKind.COMBAT_MALUS, dynasty=house, value=-1).count() == 2
    assert Modifier.objects.filter(kind=ModifierKind.ONGOING_DISPUTE, end_year__isnull=True).count() == 2
    second.refresh_from_db()
    first.refresh_from_db()
    assert second.controlled_by.crown == "France"  # to the player controlling his spouse
    assert first.controlled_by != house  # unmarried: to another player drawn at random (a logged roll)
    assert Roll.objects.get(purpose="spurned_heir").outcome == first.controlled_by.name


@pytest.mark.django_db
def test_the_ongoing_roll_costs_stability_on_6_to_10(campaign):
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house = england(campaign)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    first = person(campaign, house, "First", "M", 1278, father=king)
    person(campaign, house, "Second", "M", 1279, father=king)
    # the skipped heir's line is rolled for at the end of this very step: 7 on the d10 strikes, and
    # "1 stability level is lost or a new revolt is generated": a second d10, 3, says Stability
    kill(campaign, king.pk, pass_over={"England": [first.pk]}, source=FixedSource([(1,), (7,), (3,)]))
    record = Crown.objects.get(campaign=campaign, name="England")
    assert record.stability == -2 - 1
    roll = Roll.objects.get(purpose="disputed_line")
    assert roll.dice == "1d10" and roll.outcome == "-1 Stability"
    assert bl.ongoing_dispute_strikes([6]) and not bl.ongoing_dispute_strikes([5])


@pytest.mark.django_db
def test_a_prisoner_heir_costs_one_revolt_and_the_next_heir_rules_in_the_interim(campaign):
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house = england(campaign)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    captive = person(campaign, house, "Captive", "M", 1278, father=king)
    second = person(campaign, house, "Second", "M", 1279, father=king)
    character_capture(
        campaign=campaign, character=captive, captor=Dynasty.objects.get(campaign=campaign, crown="Spain"), by=SYSTEM_ACTOR
    )
    kill(campaign, king.pk, pass_over={"England": [captive.pk]})
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    assert reign.holder == second and reign.interim_for == captive
    record = Crown.objects.get(name="England")
    assert record.stability == 0
    assert [(e.kind, e.delta) for e in CrownEvent.objects.filter(crown=record)] == [("revolt", 1)]
    assert not Modifier.objects.filter(kind=ModifierKind.ONGOING_DISPUTE).exists()


@pytest.mark.django_db
def test_a_minor_on_the_throne_costs_one_stability_a_turn(campaign):
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    kill(campaign, king.pk)  # the heir is the child of 5
    record = Crown.objects.get(name="England")
    assert record.stability == -1
    assert "is a minor" in CrownEvent.objects.get(crown=record).reason


@pytest.mark.django_db
def test_dynastic_crisis_founds_a_new_dynasty(campaign):
    """B: 'The new King is 40 years old with a wife of 35, and presently has 3 children aged 20, 15, 10'."""
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house = england(campaign)
    lonely = person(campaign, house, "Lonely", "M", 1260)
    crown(campaign, lonely, "England", 1300)
    kill(campaign, lonely.pk)
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    king = reign.holder
    assert king.birth_year == 1260 and king.age(1300) == 40
    children = Character.objects.filter(father=king).order_by("birth_year")
    assert [c.birth_year for c in children] == [1280, 1285, 1290]
    assert "Dynastic Crisis" in ChronicleEntry.objects.get(kind="created").text


@pytest.mark.django_db
def test_turkish_options(campaign):
    bloodline(campaign, turkish_princess_rights=True, turkish_fratricide=True)
    at_step(campaign, Step.SURVIVAL)
    turkey = Dynasty.objects.create(campaign=campaign, name="Osman", crown="Turkey", seat=9)
    sultan = person(campaign, turkey, "Murad", "M", 1250)
    crown(campaign, sultan, "Turkey", 1290)
    daughter = person(campaign, turkey, "Fatma", "F", 1275, father=sultan)
    husband = person(campaign, turkey, "Ali", "M", 1272, dynastic_name="Pasha")
    wed(campaign, husband, daughter, 1292)
    kill(campaign, sultan.pk)
    assert Reign.objects.get(campaign=campaign, crown="Turkey", end_year__isnull=True).holder == husband
    # fratricide: a new Sultan puts his brothers to death, not his sisters nor his uncles
    at_step(campaign, Step.SURVIVAL, year=1305)
    uncle = person(campaign, turkey, "Mehmed", "M", 1276, father=sultan)
    son = person(campaign, turkey, "Selim", "M", 1289, father=husband, mother=daughter)
    brother = person(campaign, turkey, "Bayezid", "M", 1290, father=husband, mother=daughter)
    sister = person(campaign, turkey, "Zeynep", "F", 1291, father=husband, mother=daughter)
    kill(campaign, husband.pk)
    assert Reign.objects.get(campaign=campaign, crown="Turkey", end_year__isnull=True).holder == son
    for c in (uncle, brother, sister):
        c.refresh_from_db()
    assert brother.status == Status.DEAD and brother.death_cause == "put to death by the new Sultan"
    assert uncle.status == Status.ALIVE and sister.status == Status.ALIVE


@pytest.mark.django_db
def test_stability_changes_at_the_table_keep_a_history(campaign):
    c = crown_stability_change(campaign=campaign, crown="France", delta=-2, reason="bankruptcy", by=SYSTEM_ACTOR)
    c2 = crown_stability_change(campaign=campaign, crown="France", delta=1, reason="peace", by=SYSTEM_ACTOR)
    assert (c.stability_after, c2.stability_after) == (-2, -1)
    with pytest.raises(RuleError, match="Say why"):
        crown_stability_change(campaign=campaign, crown="France", delta=1, reason=" ", by=SYSTEM_ACTOR)
    with pytest.raises(NotFound, match="no crown called 'Narnia'"):
        crown_stability_change(campaign=campaign, crown="Narnia", delta=1, reason="x", by=SYSTEM_ACTOR)
    assert Crown.objects.get(campaign=campaign, name="France").stability == -1


@pytest.mark.django_db
@pytest.mark.parametrize("recognize", [True, False])
def test_a_released_heir_claims_the_throne(campaign, recognize):
    from dynasties.services.events import character_release
    from dynasties.services.interim import interim_claim_resolve

    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house = england(campaign)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    captive = person(campaign, house, "Captive", "M", 1278, father=king)
    second = person(campaign, house, "Second", "M", 1279, father=king)
    character_capture(
        campaign=campaign, character=captive, captor=Dynasty.objects.get(campaign=campaign, crown="Spain"), by=SYSTEM_ACTOR
    )
    kill(campaign, king.pk, pass_over={"England": [captive.pk]})
    with pytest.raises(RuleError, match="still a prisoner"):
        interim_claim_resolve(campaign=campaign, crown="England", recognize=True, by=SYSTEM_ACTOR)
    character_release(campaign=campaign, character=captive, by=SYSTEM_ACTOR)
    reign = interim_claim_resolve(
        campaign=campaign, crown="England", recognize=recognize, source=RandomSource(2), by=SYSTEM_ACTOR
    )
    record = Crown.objects.get(name="England")
    if recognize:
        assert reign.holder == captive
        assert record.stability == 0
    else:
        assert reign.holder == second and reign.interim_for is None
        assert record.stability == -2  # a voluntary dispute over one heir
        assert Modifier.objects.filter(kind=ModifierKind.ONGOING_DISPUTE, claimant=captive).exists()


@pytest.mark.django_db
def test_a_released_heir_recognised_takes_his_crown_home_from_an_interim_of_another_crown(campaign):
    """BloodLine A: the next heir runs the dynasty while the heir is a prisoner. When that next heir is
    the King of another country, the crown goes with him to his player (A7, Controlling Two Countries);
    the released heir recognised, he steps down and the crown goes back to its own house."""
    from dynasties.services.events import character_release
    from dynasties.services.interim import interim_claim_resolve

    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house, spain = england(campaign), Dynasty.objects.get(campaign=campaign, crown="Spain")
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    Character.objects.filter(father=king).update(status=Status.DEAD, death_year=1299)
    captive = person(campaign, house, "Captive", "M", 1270, father=king)
    france = Reign.objects.get(campaign=campaign, crown="France").holder
    france.father, france.birth_year = king, 1272  # the King of France is the next heir of England
    france.save()
    character_capture(campaign=campaign, character=captive, captor=spain, by=SYSTEM_ACTOR)
    kill(campaign, king.pk, pass_over={"England": [captive.pk]})
    england_crown = Crown.objects.get(campaign=campaign, name="England")
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder == france
    assert england_crown.controlled_by_id == france.controlled_by_id != house.pk  # the interim's player holds both

    character_release(campaign=campaign, character=captive, by=SYSTEM_ACTOR)
    reign = interim_claim_resolve(campaign=campaign, crown="England", recognize=True, by=SYSTEM_ACTOR)
    england_crown.refresh_from_db()
    captive.refresh_from_db()
    assert reign.holder == captive and england_crown.controlled_by_id == house.pk == captive.controlled_by_id
    assert Reign.objects.get(campaign=campaign, crown="France", end_year__isnull=True).holder == france
    assert ChronicleEntry.objects.filter(
        campaign=campaign, kind="return", text__startswith="England goes back to the house of"
    ).exists()


@pytest.mark.django_db
def test_a_married_away_heir_passed_over_freezes_her_line(campaign):
    """B: 'They continue to be controlled by the other Dynasty but make no attempts to remarry nor do they
    produce any further children'."""
    from dynasties.models import PassOverKind
    from dynasties.services import births_attempt, marriage_arrange
    from rules.errors import IllegalMarriage, IneligibleCouple

    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house, france = england(campaign), Dynasty.objects.get(campaign=campaign, crown="France")
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    Character.objects.filter(father=king).update(status=Status.DEAD, death_year=1299)
    daughter = person(campaign, house, "Maud", "F", 1279, father=king)
    daughter.controlled_by = france
    daughter.save()
    husband = person(campaign, france, "Louis", "M", 1275)
    match = wed(campaign, husband, daughter, 1297)
    granddaughter = person(campaign, france, "Blanche", "F", 1298, father=husband, mother=daughter)
    kill(campaign, king.pk, pass_over={"England": [daughter.pk]})
    assert [(e.kind, e.delta) for e in CrownEvent.objects.all()] == [("revolt", 1)]
    malus = Modifier.objects.get(kind=ModifierKind.COMBAT_MALUS)
    assert (malus.claimant, malus.pass_over) == (daughter, PassOverKind.MARRIED_AWAY)
    Modifier.objects.filter(pk=malus.pk).update(reason="Maud, passed over")  # the rule reads the field, not the text
    at_step(campaign, Step.BIRTHS, year=1305)
    with pytest.raises(IneligibleCouple, match="no more children"):
        births_attempt(campaign=campaign, marriage=match, faces=[6, 6], by=SYSTEM_ACTOR)
    suitor = person(campaign, Dynasty.objects.get(campaign=campaign, crown="Spain"), "Juan", "M", 1290)
    with pytest.raises(IllegalMarriage, match="make no new marriages"):
        marriage_arrange(campaign=campaign, husband=suitor, wife=granddaughter, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_the_succession_view_shows_bloodline_prices(campaign):
    from dynasties.services.succession_view import succession_line

    bloodline(campaign)
    house = england(campaign)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    person(campaign, house, "First", "M", 1278, father=king)
    line = succession_line(campaign=campaign, crown="England")
    first = next(e for e in line.entries if e.character.given_name == "First").pass_over
    assert first.allowed and first.text == "voluntary"
    assert first.costs[:2] == ("-2 Stability at once", "1 revolt in the country")


@pytest.mark.django_db
def test_a_brother_put_to_death_who_reigns_elsewhere_is_succeeded_in_the_same_turn(campaign):
    """Turkey #2, 'a new Turkish monarch puts his brothers to death': a brother who wears another
    crown dies with the others, and that crown passes on in the same Succession, as every crown
    whose monarch died does (before: his reign stayed open, held by a dead man, until next turn)."""
    bloodline(campaign, turkish_fratricide=True)
    at_step(campaign, Step.SURVIVAL)
    turkey = Dynasty.objects.create(campaign=campaign, name="Osman", crown="Turkey", seat=9)
    sultan = person(campaign, turkey, "Murad", "M", 1240)
    heir = person(campaign, turkey, "Selim", "M", 1265, father=sultan)
    brother = person(campaign, turkey, "Bayezid", "M", 1267, father=sultan)
    nephew = person(campaign, turkey, "Orhan", "M", 1288, father=brother)
    crown(campaign, brother, "France", campaign.current_year)  # France's reign is read before Turkey's
    crown(campaign, sultan, "Turkey", campaign.current_year)
    kill(campaign, sultan.pk)
    brother.refresh_from_db()
    assert brother.status == Status.DEAD and brother.death_cause == "put to death by the new Sultan"
    year = campaign.current_year
    assert Reign.objects.get(campaign=campaign, crown="Turkey", end_year__isnull=True).holder == heir
    late = Reign.objects.get(campaign=campaign, crown="France", holder=brother)
    assert late.end_year == year
    france = Reign.objects.get(campaign=campaign, crown="France", end_year__isnull=True)
    assert france.holder == nephew and france.start_year == year


@pytest.mark.django_db
def test_a_turkish_princess_without_a_husband_is_passed_by_and_her_son_inherits(campaign):
    """Turkey #1, 'A Turkish princess cannot ascend the throne, but her husband inherits her rights':
    a widowed princess has no husband to carry them; she is passed by and her line goes on through
    her son, who keeps his own right (docs/rulings.md)."""
    bloodline(campaign, turkish_princess_rights=True)
    at_step(campaign, Step.SURVIVAL)
    turkey = Dynasty.objects.create(campaign=campaign, name="Osman", crown="Turkey", seat=9)
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    sultan = person(campaign, turkey, "Selim", "M", 1250)
    crown(campaign, sultan, "Turkey", campaign.current_year)
    daughter = person(campaign, turkey, "Hafsa", "F", 1270, father=sultan)
    late_husband = person(campaign, spain, "Pedro", "M", 1265)
    wed(campaign, late_husband, daughter, 1288)
    grandson = person(campaign, spain, "Carlos", "M", 1289, father=late_husband, mother=daughter)
    kill(campaign, sultan.pk, late_husband.pk)
    assert Reign.objects.get(campaign=campaign, crown="Turkey", end_year__isnull=True).holder == grandson


@pytest.mark.django_db
def test_a_monarch_passed_over_for_another_crown_stays_with_his_own(campaign):
    """B: 'Control of the passed over heirs transfers permanently to the Player controlling their
    spouse, or ... randomly to another Player' - but a monarch of another crown stays its monarch,
    with its player ('Monarchs may not abdicate, nor be deposed'; before: the King of France, passed
    over for England, went to another player's house while France stayed with his own)."""
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    house = england(campaign)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    elder = person(campaign, house, "Elder", "M", 1270, father=king)
    younger = person(campaign, house, "Younger", "M", 1272, father=king)
    crown(campaign, elder, "France", campaign.current_year)
    Character.objects.filter(pk=elder.pk).update(controlled_by=Dynasty.objects.get(campaign=campaign, crown="France"))
    kill(campaign, king.pk, pass_over={"England": [elder.pk]})
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder == younger
    elder.refresh_from_db()
    assert elder.controlled_by.crown == "France"
    assert "reigns over France and stays with its house" in ChronicleEntry.objects.filter(kind="exile").latest("pk").text


@pytest.mark.django_db
def test_a_widowed_king_born_in_another_house_is_not_returned_while_he_reigns(campaign):
    """B: 'If her husband dies first, the wife is returned to her original family' - a reigning King
    whose wife dies stays the monarch of his crown's house (before: a King born elsewhere was
    'returned' to his house of birth while still reigning)."""
    from dynasties.services.announcements import announcements_make
    from dynasties.services.marriages import marriages_finish

    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    king = Reign.objects.get(campaign=campaign, crown="France", end_year__isnull=True).holder
    france = king.controlled_by
    Character.objects.filter(pk=king.pk).update(birth_dynasty=england(campaign))
    wife = Character.objects.get(pk=king.marriages_as_husband.get(ended_year__isnull=True).wife_id)
    kill(campaign, wife.pk)
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    king.refresh_from_db()
    assert king.controlled_by == france


@pytest.mark.django_db
def test_the_migration_reads_the_kind_of_existing_pass_overs_from_their_reasons(campaign):
    """dynasties 0013: rows written before Modifier.pass_over get it from the reason they were written with."""
    import importlib

    from django.apps import apps

    from dynasties.models import PassOverKind

    migration = importlib.import_module("dynasties.migrations.0013_modifier_pass_over")
    made = {
        reason: Modifier.objects.create(campaign=campaign, kind=kind, value=-1, reason=reason, start_year=1300).pk
        for kind, reason in [
            (ModifierKind.COMBAT_MALUS, "Maud passed over for England (married away)"),
            (ModifierKind.COMBAT_MALUS, "Hal passed over for France (prisoner)"),
            (ModifierKind.ONGOING_DISPUTE, "the spurned line of Hal (voluntary)"),
        ]
    }
    migration.kinds_from_reasons(apps, None)
    kinds = dict(Modifier.objects.filter(pk__in=made.values()).values_list("reason", "pass_over"))
    assert kinds == {
        "Maud passed over for England (married away)": PassOverKind.MARRIED_AWAY,
        "Hal passed over for France (prisoner)": PassOverKind.PRISONER,
        "the spurned line of Hal (voluntary)": "",  # only a combat malus carries the kind
    }
