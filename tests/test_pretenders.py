"""Pretenders and bastards (event cards; RULES.md A9)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, Origin, Reign, Status
from dynasties.services import survival_finish
from dynasties.services.common import World
from dynasties.services.pretenders import (
    bastard_create,
    pretender_buy_back,
    pretender_declare,
    queens_accession_rebellions,
)
from rules.dice import FixedSource
from rules.errors import InvalidDice, NotFound, RuleError
from tests.factories import at_step, crown, empty_house, person, wed
from tests.test_survival_succession import everyone_survives


@pytest.fixture
def realm(campaign):
    """Testland (seat 5: England sits on its left, Spain on its right). King Old (50) and his sons
    Prince (30; wife Wife, son Little of 10 and daughter Grown of 16) and Second (25)."""
    house = empty_house(campaign)
    house.seat = 5
    house.save()
    king = person(campaign, house, "Old", "M", 1250)
    queen = person(campaign, None, "Ma", "F", 1255, dynastic_name="Else")
    wed(campaign, king, queen, 1268)
    prince = person(campaign, house, "Prince", "M", 1270, father=king, mother=queen)
    prince.prince_piece = "1"
    prince.save()
    second = person(campaign, house, "Second", "M", 1275, father=king, mother=queen)
    wife = person(campaign, None, "Wife", "F", 1272, dynastic_name="Else")
    wife.controlled_by = house
    wife.save()
    wed(campaign, prince, wife, 1283)
    grown = person(campaign, house, "Grown", "F", 1284, father=prince, mother=wife)
    little = person(campaign, house, "Little", "M", 1290, father=prince, mother=wife)
    crown(campaign, king, "Testland", 1280)
    return SimpleNamespace(
        campaign=campaign,
        house=house,
        king=king,
        queen=queen,
        prince=prince,
        second=second,
        wife=wife,
        grown=grown,
        little=little,
        england=Dynasty.objects.get(campaign=campaign, crown="England"),
        france=Dynasty.objects.get(campaign=campaign, crown="France"),
        spain=Dynasty.objects.get(campaign=campaign, crown="Spain"),
    )


def fresh(*characters):
    for c in characters:
        c.refresh_from_db()
    return characters


# --- Pretenders ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_pretender_passes_to_the_player_on_the_left_with_his_wife_and_children_under_15(realm):
    """'The character sheet should be passed to the player on the left ... A Pretender's wife ... and any
    children less than 15 years old should also be passed to the player on the left.'"""
    pretender_declare(campaign=realm.campaign, character=realm.prince, by=SYSTEM_ACTOR)
    prince, wife, little, grown, second = fresh(realm.prince, realm.wife, realm.little, realm.grown, realm.second)
    assert prince.controlled_by == realm.england and prince.pretender_of == realm.house
    assert prince.prince_piece == ""  # a Royal piece of the new dynasty is substituted later
    assert wife.controlled_by == realm.england and little.controlled_by == realm.england
    assert wife.pretender_of is None and little.pretender_of is None
    assert grown.controlled_by == realm.house  # 16: stays
    assert second.controlled_by == realm.house
    entry = ChronicleEntry.objects.get(campaign=realm.campaign, kind="pretender")
    assert entry.text == (
        "Prince Testhouse leaves the house of Testhouse as a Pretender to the crown of Testland: Prince Testhouse, "
        "Wife Else and Little Testhouse pass to the house of Plantagenet, the player on the left. The house of "
        "Testhouse may buy him back for 50 Crowns."
    )
    assert entry.data["pretender_of"] == realm.house.pk and entry.data["dynasty"] == realm.england.pk


@pytest.mark.django_db
def test_pretender_refusals_give_the_rulebooks_reasons(realm):
    c = realm.campaign
    with pytest.raises(RuleError, match="Little Testhouse is 10: characters can only become Pretenders if they are at least 15"):
        pretender_declare(campaign=c, character=realm.little, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Old Testhouse reigns: monarchs may not abdicate nor be deposed"):
        pretender_declare(campaign=c, character=realm.king, by=SYSTEM_ACTOR)
    with pytest.raises(NotFound, match="There is no character #999999"):
        pretender_declare(campaign=c, character=999999, by=SYSTEM_ACTOR)
    realm.second.status, realm.second.death_year = Status.DEAD, 1299
    realm.second.save()
    with pytest.raises(RuleError, match="Second Testhouse is no longer in play"):
        pretender_declare(campaign=c, character=realm.second, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Prince Testhouse is the only male child of King Old Testhouse of Testland") as err:
        pretender_declare(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)  # his brother is dead
    assert err.value.code == "not_a_pretender"
    bastard = person(c, realm.house, "Fitz", "M", 1280, father=realm.king)
    bastard.legitimate = False
    bastard.save()
    with pytest.raises(RuleError, match="Prince Testhouse is the only male child"):
        pretender_declare(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)  # a bastard half-brother is no son for this
    with pytest.raises(RuleError, match="Fitz Testhouse is a bastard"):
        pretender_declare(campaign=c, character=bastard, by=SYSTEM_ACTOR)
    person(c, realm.house, "Third", "M", 1282, father=realm.king, mother=realm.queen)
    pretender_declare(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Prince Testhouse is already a Pretender; his house may buy him back"):
        pretender_declare(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)
    minor = Dynasty.objects.create(campaign=c, name="Minor", kind="minor")
    loner = person(c, minor, "Loner", "M", 1270)
    with pytest.raises(RuleError, match="not controlled by a player with a player on the left") as err:
        pretender_declare(campaign=c, character=loner, by=SYSTEM_ACTOR)
    assert err.value.code == "no_player_left"


@pytest.mark.django_db
def test_a_female_pretenders_husband_returns_to_his_own_house(realm):
    """'A Pretender's wife (though not a husband, who should be returned to his original Dynasty) ...'"""
    c = realm.campaign
    princess = person(c, realm.house, "Princess", "F", 1278, father=realm.king, mother=realm.queen)
    husband = person(c, realm.france, "Louis", "M", 1276)
    husband.controlled_by = realm.house  # he joined her house at the wedding
    husband.save()
    Marriage.objects.create(
        campaign=c, husband=husband, wife=princess, arranged_year=1296, wedding_year=1296, husband_joins_wife=True
    )
    baby = person(c, realm.house, "Baby", "F", 1298, father=husband, mother=princess)
    pretender_declare(campaign=c, character=princess, by=SYSTEM_ACTOR)
    princess, husband, baby = fresh(princess, husband, baby)
    assert princess.controlled_by == realm.england and baby.controlled_by == realm.england
    assert husband.controlled_by == realm.france
    ret = ChronicleEntry.objects.get(campaign=c, kind="return")
    assert ret.text == "Louis Anjou, husband of the Pretender Princess Testhouse, is returned to the house of Anjou."
    assert "may buy her back" in ChronicleEntry.objects.get(campaign=c, kind="pretender").text


@pytest.mark.django_db
def test_buy_back_restores_control_for_50_crowns(realm):
    """'For a 'bribe' of 50 Crowns, the Pretender's original Dynasty may 'buy back' the character, his wife
    and any children. All sins are forgiven.'"""
    c = realm.campaign
    pretender_declare(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)
    born_in_exile = person(
        c, realm.england, "Exiled", "M", 1300, father=realm.prince, mother=realm.wife, dynastic_name="Testhouse"
    )
    married_daughter = person(
        c, realm.england, "Bride", "F", 1285, father=realm.prince, mother=realm.wife, dynastic_name="Testhouse"
    )
    englishman = person(c, realm.england, "John", "M", 1280)
    wed(c, englishman, married_daughter, 1300)
    treasury.post(c, payer=None, payee=realm.house, amount=60, kind="tax", reason="taxes")  # a bribe is paid from cash

    pretender_buy_back(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)

    prince, wife, little, exiled, bride = fresh(realm.prince, realm.wife, realm.little, born_in_exile, married_daughter)
    assert prince.pretender_of is None
    assert {x.controlled_by for x in (prince, wife, little, exiled)} == {realm.house}
    assert bride.controlled_by == realm.england  # a married child stays with her husband's house
    owed = ChronicleEntry.objects.get(campaign=c, kind="payment_owed")
    assert owed.data == {"dynasty": realm.house.pk, "amount": -50, "character": prince.pk}
    assert owed.text == (
        "50 Crowns from the house of Testhouse to the Treasury: the bribe that buys back the Pretender Prince Testhouse."
    )
    back = ChronicleEntry.objects.get(campaign=c, kind="pretender_return").text
    assert back.startswith("The house of Testhouse buys back Prince Testhouse, Wife Else, Little Testhouse and Exiled Testhouse")
    assert back.endswith("from the house of Plantagenet. All sins are forgiven.")
    with pytest.raises(RuleError, match="Prince Testhouse is not a Pretender: there is nobody to buy back") as err:
        pretender_buy_back(campaign=c, character=prince, by=SYSTEM_ACTOR)
    assert err.value.code == "not_pretender"


@pytest.mark.django_db
def test_buy_back_refusals(realm):
    c = realm.campaign
    pretender_declare(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)
    prince = Character.objects.get(pk=realm.prince.pk)
    prince.controlled_by = realm.house  # e.g. brought home by a succession
    prince.save()
    with pytest.raises(RuleError, match="controlled by the house of Testhouse already: there is nothing to buy back"):
        pretender_buy_back(campaign=c, character=prince, by=SYSTEM_ACTOR)
    prince.controlled_by = realm.england
    prince.status, prince.death_year = Status.DEAD, 1300
    prince.save()
    with pytest.raises(RuleError, match="Prince Testhouse is dead: only a living Pretender can be bought back"):
        pretender_buy_back(campaign=c, character=prince, by=SYSTEM_ACTOR)
    assert not ChronicleEntry.objects.filter(campaign=c, kind="payment_owed").exists()


@pytest.mark.django_db
def test_a_pretenders_son_abroad_inherits_the_crown_when_the_line_reaches_him(realm):
    """'A Pretender character or any of his or her heirs may inherit the throne through the normal rules
    while still controlled by a 'foreign' Dynasty.'"""
    c = realm.campaign
    pretender_declare(campaign=c, character=realm.prince, by=SYSTEM_ACTOR)
    assert Character.objects.get(pk=realm.little.pk).controlled_by == realm.england
    at_step(c, Step.SURVIVAL)
    everyone_survives(c, {realm.king.pk: [1, 1], realm.prince.pk: [1, 1]})
    survival_finish(campaign=c, by=SYSTEM_ACTOR)
    reign = Reign.objects.get(campaign=c, crown="Testland", end_year__isnull=True)
    assert reign.holder == realm.little  # the Pretender's son comes before his uncle Second, alive at home
    little = Character.objects.get(pk=realm.little.pk)
    assert little.controlled_by == realm.house  # a new monarch is controlled by his crown's player
    assert reign.regent == realm.grown  # he is 10: his sister of 16, at home, is the first adult in line
    text = ChronicleEntry.objects.get(campaign=c, kind="succession", data__crown="Testland").text
    assert text.startswith("Little I Testhouse succeeds Old Testhouse as King of Testland, aged 10 (the rightful heir)")


# --- Bastards ------------------------------------------------------------------------------------


@pytest.fixture
def bachelor(campaign):
    """King Lone of Testland (seat 5), widowed, with a legitimate daughter Only (18)."""
    house = empty_house(campaign)
    house.seat = 5
    house.save()
    king = person(campaign, house, "Lone", "M", 1265)
    late_queen = person(campaign, None, "Late", "F", 1266, dynastic_name="Else")
    match = wed(campaign, king, late_queen, 1281)
    daughter = person(campaign, house, "Only", "F", 1282, father=king, mother=late_queen)
    late_queen.status, late_queen.death_year = Status.DEAD, 1295
    late_queen.save()
    match.ended_year, match.end_cause = 1295, "death of the wife"
    match.save()
    crown(campaign, king, "Testland", 1290)
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    return SimpleNamespace(campaign=campaign, house=house, king=king, daughter=daughter, spain=spain)


@pytest.mark.django_db
def test_bastard_son_of_an_unmarried_king_goes_to_the_player_on_the_right(bachelor, gm):
    """'Cards 38 and 39 allow for the creation of bastard sons of unmarried Kings. These characters are
    passed to the player on the right, who controls them from now on.'"""
    c = bachelor.campaign
    son = bastard_create(
        campaign=c, father=bachelor.king, given_name="Fitzroy", birth_year=1285, entered=[[6, 6, 6], [3, 3, 3], [1, 1, 1]], by=gm
    )
    son.refresh_from_db()
    assert (son.given_name, son.sex, son.birth_year, son.father, son.mother) == ("Fitzroy", "M", 1285, bachelor.king, None)
    assert son.legitimate is False and son.origin == Origin.BORN
    assert son.controlled_by == bachelor.spain and son.birth_dynasty == bachelor.spain
    assert son.dynastic_name == "Testhouse"
    assert son.characteristics == {"strength": 2, "constitution": 0, "charisma": -2}
    rolls = Roll.objects.filter(purpose="characteristic", subjects__character=son).order_by("pk")
    assert [r.faces for r in rolls] == [[6, 6, 6], [3, 3, 3], [1, 1, 1]]
    assert {r.source for r in rolls} == {"entered"} and {r.entered_by for r in rolls} == {gm}
    text = ChronicleEntry.objects.get(campaign=c, kind="bastard").text
    assert text.startswith("A bastard son, Fitzroy Testhouse, is born in 1285 to Lone Testhouse, King of Testland")
    assert "The house of de Silva, the player on the right, controls him from now on. He never inherits" in text


@pytest.mark.django_db
def test_bastard_refusals(bachelor):
    c = bachelor.campaign
    with pytest.raises(RuleError, match="Only Testhouse is not a reigning King: the cards give bastard sons to unmarried Kings"):
        bastard_create(campaign=c, father=bachelor.daughter, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match=r"1305 is after this turn \(1300-1304\)"):
        bastard_create(campaign=c, father=bachelor.king, birth_year=1305, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Lone Testhouse was 10 in 1275, too young to father a son"):
        bastard_create(campaign=c, father=bachelor.king, birth_year=1275, by=SYSTEM_ACTOR)
    with pytest.raises(InvalidDice, match="Type 3 rolls of 3d6"):
        bastard_create(campaign=c, father=bachelor.king, entered=[[1, 1, 1]], by=SYSTEM_ACTOR)
    bride = person(c, None, "Bride", "F", 1280, dynastic_name="Else")
    wed(c, bachelor.king, bride, 1300)
    with pytest.raises(RuleError, match="Lone Testhouse is married: the cards give bastard sons to unmarried Kings only") as err:
        bastard_create(campaign=c, father=bachelor.king, by=SYSTEM_ACTOR)
    assert err.value.code == "no_bastard"
    assert not Character.objects.filter(legitimate=False).exists()
    assert not Roll.objects.filter(purpose="characteristic", year=1300, step="births").exists()


@pytest.mark.django_db
def test_a_bastard_never_inherits_when_the_king_dies(bachelor):
    """'Bastards' claims can never be inherited, even though the character can marry and have children.'"""
    c = bachelor.campaign
    son = bastard_create(
        campaign=c, father=bachelor.king, given_name="Ajax", birth_year=1283, source=FixedSource([(3, 4, 3)] * 3), by=SYSTEM_ACTOR
    )
    grandson = person(c, bachelor.spain, "Grandson", "M", 1300, father=son)
    at_step(c, Step.SURVIVAL)
    everyone_survives(c, {bachelor.king.pk: [1, 1]})
    survival_finish(campaign=c, by=SYSTEM_ACTOR)
    reign = Reign.objects.get(campaign=c, crown="Testland", end_year__isnull=True)
    assert reign.holder == bachelor.daughter  # not the elder bastard son, nor his son
    assert son.pk not in {reign.holder_id, reign.regent_id} and grandson.pk != reign.holder_id

    # survival_finish checks the queen's accession against the living bastards of past Kings
    assert queens_accession_rebellions(World(c), [reign], Chronicle(c)) == [son]
    assert ChronicleEntry.objects.get(campaign=c, kind="rebellion_check").text == (
        "Only Testhouse comes to the throne of Testland while Ajax Testhouse, a bastard of its Kings, lives: "
        "every province of Testland must be checked for Rebellion (Pretenders and Bastards)."
    )


@pytest.mark.django_db
def test_a_kings_only_son_being_a_bastard_a_relative_is_created(bachelor):
    c = bachelor.campaign
    bachelor.daughter.status, bachelor.daughter.death_year = Status.DEAD, 1299
    bachelor.daughter.save()
    son = bastard_create(campaign=c, father=bachelor.king, birth_year=1283, source=FixedSource([(3, 4, 3)] * 3), by=SYSTEM_ACTOR)
    at_step(c, Step.SURVIVAL)
    everyone_survives(c, {bachelor.king.pk: [1, 1]})
    survival_finish(campaign=c, by=SYSTEM_ACTOR)
    reign = Reign.objects.get(campaign=c, crown="Testland", end_year__isnull=True)
    assert reign.holder != son and reign.holder.origin == Origin.RELATIVE


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["eu-bloodline", "eu-monarchs"])
def test_the_eu_rulesets_have_no_pretenders_nor_bastards(bachelor, ruleset):
    """Pretenders and bastards are Blood Royale's event cards (18-22, 38-39); in an EU campaign they are
    refused with a message (before: a BloodLine bastard failed with KeyError 'characteristic_bands')."""
    c = bachelor.campaign
    c.ruleset = ruleset
    c.save()
    with pytest.raises(RuleError, match="Bastards come from Blood Royale's event cards") as err:
        bastard_create(campaign=c, father=bachelor.king, by=SYSTEM_ACTOR)
    assert err.value.code == "not_in_ruleset"
    with pytest.raises(RuleError, match="Pretenders come from Blood Royale's event cards"):
        pretender_declare(campaign=c, character=bachelor.daughter, by=SYSTEM_ACTOR)
    assert not Character.objects.filter(legitimate=False).exists()
