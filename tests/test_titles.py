"""Optional rule G, Governing Provinces (RULES.md A9): titles granted, inherited like the crown,
and disputed by the King."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.db import transaction

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle
from dynasties.models import Dynasty, Modifier, ModifierKind, Status, Title, TitleHolding
from dynasties.services.common import World
from dynasties.services.pretenders import pretender_declare
from dynasties.services.survival import character_die
from dynasties.services.titles import title_dispute, title_disputes, title_grant, titles_pass_on
from rules.errors import NotFound, RuleError, StepOrderError
from tests.factories import at_step, crown, empty_house, person, wed


def rule_g(campaign, on=True):
    campaign.optional_rules = {**campaign.optional_rules, "governing_provinces": on}
    campaign.save()
    return campaign


@pytest.fixture
def realm(campaign):
    """Testland: King Old (50), his sons Duke (25, Strength +2) and Boy (13), his daughter Daughter
    (22); and the French house next door."""
    rule_g(campaign)
    house = empty_house(campaign)
    house.seat = 5
    house.save()
    king = person(campaign, house, "Old", "M", 1250)
    queen = person(campaign, None, "Ma", "F", 1255, dynastic_name="Else")
    wed(campaign, king, queen, 1272)
    duke = person(campaign, house, "Duke", "M", 1275, father=king, mother=queen, strength=2)
    daughter = person(campaign, house, "Daughter", "F", 1278, father=king, mother=queen)
    boy = person(campaign, house, "Boy", "M", 1287, father=king, mother=queen)
    crown(campaign, king, "Testland", 1280)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    return SimpleNamespace(
        campaign=campaign, house=house, king=king, queen=queen, duke=duke, daughter=daughter, boy=boy, france=france
    )


def pass_on(campaign, *dead, year=None):
    """Kill the holders as a survival roll would, then pass their titles on, in one transaction."""
    with transaction.atomic():
        chronicle = Chronicle(campaign)
        character_die(campaign=campaign, character_ids=[c.pk for c in dead], cause="failed survival roll", chronicle=chronicle)
        held = titles_pass_on(World(campaign), chronicle)
        chronicle.flush()
    return held


# --- granting a title (rule G) -----------------------------------------------------------------


@pytest.mark.django_db
def test_rule_g_grant_a_prince_becomes_duke_with_one_strength_once(realm):
    """Rule G: 'the player should immediately give the character a +1 bonus to his or her
    Strength/Guile characteristic. This may take the characteristic above +2. This bonus may only be
    taken once, no matter how many Provinces the character Governs.'"""
    c, duke = realm.campaign, realm.duke
    title = title_grant(campaign=c, character=duke, province="Liguria", by=SYSTEM_ACTOR)
    assert (title.name, title.province, title.crown, title.holder, title.granted_to) == (
        "Duke of Liguria",
        "Liguria",
        "Testland",
        duke,
        duke,
    )
    assert title.granted_year == 1300
    holding = TitleHolding.objects.get(title=title)
    assert (holding.holder, holding.start_year, holding.end_year) == (duke, 1300, None)
    assert holding.how == "granted by King Old Testhouse of Testland"
    duke.refresh_from_db()
    assert duke.characteristics["strength"] == 3  # above +2
    modifier = Modifier.objects.get(kind=ModifierKind.GOVERNOR, character=duke)
    assert modifier.value == 1 and modifier.end_year is None and modifier.crown == "Testland"
    text = ChronicleEntry.objects.get(campaign=c, kind="title_granted").text
    assert "Duke Testhouse is created Duke of Liguria, Governor of Liguria in Testland" in text
    assert "+1 Strength (now +3)" in text and "2 Crowns more in taxes (7 or 9)" in text

    second = title_grant(campaign=c, character=duke, province="Wessex", name="Earl of Wessex", by=SYSTEM_ACTOR)
    assert second.name == "Earl of Wessex"
    duke.refresh_from_db()
    assert duke.characteristics["strength"] == 3  # "only once, no matter how many Provinces"
    assert Modifier.objects.filter(kind=ModifierKind.GOVERNOR, character=duke).count() == 1
    last = ChronicleEntry.objects.filter(campaign=c, kind="title_granted").last()
    assert "no further Strength bonus" in last.text


@pytest.mark.django_db
def test_rule_g_grant_is_refused_when_the_rule_is_not_in_force(realm):
    rule_g(realm.campaign, on=False)
    with pytest.raises(RuleError, match="Optional Rule G: Governing Provinces is not in force") as err:
        title_grant(campaign=realm.campaign, character=realm.duke, province="Liguria", by=SYSTEM_ACTOR)
    assert err.value.code == "option_off"
    assert not Title.objects.exists()


@pytest.mark.django_db
def test_rule_g_grant_only_during_the_dynastic_sequence(realm):
    """Rule G: 'At any time during the Dynastic Phase ...'"""
    for step in (Step.SURVIVAL, Step.MARRIAGES, Step.ANNOUNCEMENTS):
        at_step(realm.campaign, step)
        title_grant(campaign=realm.campaign, character=realm.duke, province=f"Province {step}", by=SYSTEM_ACTOR)
    at_step(realm.campaign, Step.INTERPHASE)
    with pytest.raises(StepOrderError, match=r"only during the Dynastic Sequence .* is at Interphase"):
        title_grant(campaign=realm.campaign, character=realm.duke, province="Liguria", by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_rule_g_grant_refusals_name_the_rule(realm):
    c = realm.campaign
    title_grant(campaign=c, character=realm.duke, province="Liguria", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Liguria already has a Governor: Duke Testhouse, Duke of Liguria") as err:
        title_grant(campaign=c, character=realm.duke, province="liguria", by=SYSTEM_ACTOR)
    assert err.value.code == "province_governed"
    with pytest.raises(RuleError, match="Name the province"):
        title_grant(campaign=c, character=realm.duke, province="  ", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="There is no crown called 'Atlantis'"):
        title_grant(campaign=c, character=realm.duke, province="Kent", crown="Atlantis", by=SYSTEM_ACTOR)
    with pytest.raises(NotFound, match="There is no character #999999"):
        title_grant(campaign=c, character=999999, province="Kent", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Daughter Testhouse is a woman: only a Prince can be created Governor"):
        title_grant(campaign=c, character=realm.daughter, province="Kent", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Boy Testhouse is 13: only a Prince aged at least 15"):
        title_grant(campaign=c, character=realm.boy, province="Kent", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Old Testhouse reigns: the provinces nobody governs are under the monarch"):
        title_grant(campaign=c, character=realm.king, province="Kent", by=SYSTEM_ACTOR)
    stranger = person(c, realm.france, "Stranger", "M", 1270)
    stranger.controlled_by = realm.house
    stranger.save()
    with pytest.raises(RuleError, match="Stranger Anjou is not of the royal blood of Testland") as err:
        title_grant(campaign=c, character=stranger, province="Kent", by=SYSTEM_ACTOR)
    assert err.value.code == "not_a_prince"
    exile = person(c, realm.house, "Exile", "M", 1280, father=realm.king, mother=realm.queen)
    exile.controlled_by = realm.france
    exile.save()
    with pytest.raises(RuleError, match="Exile Testhouse is not of the royal blood of France"):
        title_grant(campaign=c, character=exile, province="Kent", by=SYSTEM_ACTOR)  # the crown defaults to his house's
    with pytest.raises(RuleError, match="Exile Testhouse is not controlled by the player who rules Testland"):
        title_grant(campaign=c, character=exile, province="Kent", crown="Testland", by=SYSTEM_ACTOR)
    bastard = person(c, realm.house, "Fitz", "M", 1280, father=realm.king)
    bastard.legitimate = False
    bastard.save()
    with pytest.raises(RuleError, match="Fitz Testhouse is a bastard, not a Prince"):
        title_grant(campaign=c, character=bastard, province="Kent", by=SYSTEM_ACTOR)
    dead = person(c, realm.house, "Gone", "M", 1276, father=realm.king, mother=realm.queen)
    dead.status, dead.death_year = Status.DEAD, 1299
    dead.save()
    with pytest.raises(RuleError, match="Gone Testhouse is no longer in play and can govern nothing"):
        title_grant(campaign=c, character=dead, province="Kent", by=SYSTEM_ACTOR)
    assert Title.objects.count() == 1


@pytest.mark.django_db
def test_rule_g_a_pretender_serves_his_new_player_as_one_of_his_own(realm):
    """Pretenders: 'The new owning player may use the character as if he or she were a member of
    his/her own Dynasty from then on.'"""
    england = Dynasty.objects.get(campaign=realm.campaign, crown="England")
    pretender_declare(
        campaign=realm.campaign, character=realm.duke, by=SYSTEM_ACTOR
    )  # the player on the left of seat 5 is England
    realm.duke.refresh_from_db()
    assert realm.duke.controlled_by == england
    title = title_grant(campaign=realm.campaign, character=realm.duke, province="Kent", by=SYSTEM_ACTOR)
    assert title.crown == "England"
    assert TitleHolding.objects.get(title=title).how.startswith("granted by King Edward Plantagenet of England")


# --- inheritance (rule G: 'inherited in exactly the same way as the rank of King') -------------------


@pytest.mark.django_db
def test_rule_g_inheritance_leaves_the_dynasty_through_a_daughter_and_the_king_disputes_it(realm):
    """Rule G: 'This may cause the title to leave the Dynasty in which it started, and may even lead to a
    situation where a Province is governed by Prince of one Dynasty, and controlled by the King of another.'"""
    c, duke = realm.campaign, realm.duke
    wife = person(c, None, "Wife", "F", 1277, dynastic_name="Else")
    wed(c, duke, wife, 1295)
    heiress = person(c, realm.house, "Heiress", "F", 1282, father=duke, mother=wife)  # 18, married in France
    frenchman = person(c, realm.france, "Louis", "M", 1280)
    heiress.controlled_by = realm.france
    heiress.save()
    wed(c, frenchman, heiress, 1299)
    title = title_grant(campaign=c, character=duke, province="Liguria", by=SYSTEM_ACTOR)
    at_step(c, Step.SURVIVAL)

    [holding] = pass_on(c, duke)

    title.refresh_from_db()
    assert title.holder == heiress and holding.holder == heiress and holding.start_year == 1300
    assert holding.how == "inherited from Duke Testhouse; the title passes from the house of Testhouse to the house of Anjou"
    old = TitleHolding.objects.get(title=title, holder=duke)
    assert old.end_year == 1300
    heiress.refresh_from_db()
    assert heiress.characteristics["guile"] == 1  # the Governor's bonus goes to a woman's Guile
    assert Modifier.objects.filter(kind=ModifierKind.GOVERNOR, character=heiress).count() == 1
    entry = ChronicleEntry.objects.get(campaign=c, kind="title_inherited")
    assert "On the death of Duke Testhouse, Heiress Testhouse (aged 18) inherits Duke of Liguria" in entry.text
    assert "the title leaves the house of Testhouse for the house of Anjou" in entry.text
    assert "The King of Testland may dispute the inheritance." in entry.text
    assert (entry.data["from_dynasty"], entry.data["to_dynasty"]) == (realm.house.pk, realm.france.pk)

    # The King's dispute of this inheritance: test_rule_g_a_dispute_across_houses_follows_the_kings_wishes.


@pytest.mark.django_db
def test_rule_g_the_eldest_son_inherits_and_the_bonus_is_not_taken_twice(realm):
    c, duke = realm.campaign, realm.duke
    wife = person(c, None, "Wife", "F", 1277, dynastic_name="Else")
    wed(c, duke, wife, 1295)
    daughter = person(c, realm.house, "Elder", "F", 1296, father=duke, mother=wife)
    son = person(c, realm.house, "Younger", "M", 1298, father=duke, mother=wife)  # a son before an elder daughter
    first = title_grant(campaign=c, character=duke, province="Liguria", by=SYSTEM_ACTOR)
    second = title_grant(campaign=c, character=duke, province="Wessex", by=SYSTEM_ACTOR)
    at_step(c, Step.SURVIVAL)

    held = pass_on(c, duke)

    assert {h.holder for h in held} == {son} and {h.title for h in held} == {first, second}
    son.refresh_from_db()
    assert son.characteristics["strength"] == 1  # once, for both provinces
    assert daughter.titles.count() == 0
    entry = ChronicleEntry.objects.filter(campaign=c, kind="title_inherited").first()
    assert "Younger Testhouse (aged 2) inherits Duke of Liguria" in entry.text
    assert "Until he is 15 the 'Regent' of Liguria is the monarch, King Old Testhouse of Testland" in entry.text
    assert "no new character is created" in entry.text
    # Rule G: within the dynasty too the King may dispute ("a Rebellion marker should be placed on that
    # Province, but otherwise the King's wishes are followed"); the line used to say nothing here.
    assert "The King of Testland may dispute the inheritance." in entry.text

    # A dispute within the dynasty was refused here ("the title has not left the dynasty"); rule G places a
    # Rebellion marker "but otherwise the King's wishes are followed":
    # test_rule_g_a_dispute_within_the_dynasty_places_a_rebellion_marker_and_follows_the_kings_wishes.


@pytest.mark.django_db
def test_rule_g_with_nobody_of_the_blood_the_title_lapses_and_may_be_granted_again(realm):
    c = realm.campaign
    cousin = person(c, realm.house, "Cousin", "M", 1270)  # born into the house, no parents on record
    title = title_grant(campaign=c, character=cousin, province="Liguria", by=SYSTEM_ACTOR)
    at_step(c, Step.SURVIVAL)

    assert pass_on(c, cousin) == []

    title.refresh_from_db()
    assert title.holder is None
    assert TitleHolding.objects.get(title=title).end_year == 1300
    text = ChronicleEntry.objects.get(campaign=c, kind="title_lapsed").text
    assert text == (
        "On the death of Cousin Testhouse nobody of the blood is left to inherit Duke of Liguria: the title lapses "
        "and Liguria is again under the direct control of the King of Testland."
    )
    again = title_grant(campaign=c, character=realm.duke, province="Liguria", name="Marquis of Liguria", by=SYSTEM_ACTOR)
    assert again.pk == title.pk and again.holder == realm.duke and again.name == "Marquis of Liguria"
    assert list(TitleHolding.objects.filter(title=title).values_list("holder__given_name", flat=True)) == ["Cousin", "Duke"]


@pytest.mark.django_db
def test_rule_g_a_title_climbs_the_tree_like_the_crown_and_skips_a_bastard(realm):
    """A7 as applied to titles: with no descendants, the holder's brothers' lines come next; a bastard
    son is never in the line."""
    c, duke = realm.campaign, realm.duke
    fitz = person(c, realm.house, "Fitz", "M", 1295, father=duke)
    fitz.legitimate = False
    fitz.save()
    title = title_grant(campaign=c, character=duke, province="Liguria", by=SYSTEM_ACTOR)
    at_step(c, Step.SURVIVAL)
    realm.king.status, realm.king.death_year = Status.DEAD, 1300  # the King died too: up the tree to his line
    realm.king.save()

    [holding] = pass_on(c, duke)

    assert holding.holder == realm.boy  # not Fitz, the bastard; the brother before the sister
    title.refresh_from_db()
    assert title.holder == realm.boy


@pytest.mark.django_db
def test_rule_g_titles_pass_on_needs_the_dead_in_the_world(realm):
    title_grant(campaign=realm.campaign, character=realm.duke, province="Liguria", by=SYSTEM_ACTOR)
    with transaction.atomic():
        world = World(realm.campaign, living_only=True)
        character_die(campaign=realm.campaign, character_ids=[realm.duke.pk], cause="test")
        with pytest.raises(ValueError, match="the dead included"):
            titles_pass_on(world, Chronicle(realm.campaign))


# --- disputes ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_rule_g_dispute_refusals(realm):
    c = realm.campaign
    title = title_grant(campaign=c, character=realm.duke, province="Liguria", by=SYSTEM_ACTOR)
    granted = TitleHolding.objects.get(title=title)
    with pytest.raises(RuleError, match="Duke Testhouse was granted Duke of Liguria, not left it") as err:
        title_dispute(campaign=c, holding=granted, by=SYSTEM_ACTOR)
    assert err.value.code == "not_inherited"
    with pytest.raises(NotFound, match="There is no title holding #999999"):
        title_dispute(campaign=c, holding=999999, by=SYSTEM_ACTOR)

    heir = person(c, realm.house, "Heir", "M", 1296, father=realm.duke)
    heir.controlled_by = realm.france  # raised abroad
    heir.save()
    at_step(c, Step.SURVIVAL)
    [holding] = pass_on(c, realm.duke)
    rule_g(c, on=False)
    with pytest.raises(RuleError, match="Optional Rule G: Governing Provinces is not in force"):
        title_dispute(campaign=c, holding=holding, by=SYSTEM_ACTOR)
    rule_g(c)
    with pytest.raises(RuleError, match=r"no longer holds Duke of Liguria \(until 1300\): only the present holder"):
        title_dispute(campaign=c, holding=granted, by=SYSTEM_ACTOR)
    at_step(c, Step.BIRTHS, year=1305)
    with pytest.raises(RuleError, match="in 1300: the King may dispute an inheritance only in the turn it happens"):
        title_dispute(campaign=c, holding=holding, by=SYSTEM_ACTOR)
    holding.refresh_from_db()
    assert not holding.disputed


RULE_G_DISPUTE = (
    "The King of the relevant country (ie, that in which the Province is situated at the time) may choose to "
    "dispute the normal succession. If this only affects the player's own Dynasty (ie, the Province is governed "
    "by a member of the same Dynasty as the King), a Rebellion marker should be placed on that Province, but "
    "otherwise the King's wishes are followed. If the disputed succession involves another player's Dynasty, then "
    "not only is the Rebellion marker placed in that Province, but Rebellion Die Rolls must be made, with normal "
    "modifiers, for the whole Kingdom."
)


def _heiress_abroad(realm):
    """The Duke's daughter, married in France and controlled there, is the heir to his title; the
    King has a second son, 20, a Prince he could create Governor."""
    c, duke = realm.campaign, realm.duke
    wife = person(c, None, "Wife", "F", 1277, dynastic_name="Else")
    wed(c, duke, wife, 1295)
    heiress = person(c, realm.house, "Heiress", "F", 1282, father=duke, mother=wife)
    heiress.controlled_by = realm.france
    heiress.save()
    second = person(c, realm.house, "Second", "M", 1280, father=realm.king, mother=realm.queen)
    title = title_grant(campaign=c, character=duke, province="Liguria", by=SYSTEM_ACTOR)
    at_step(c, Step.SURVIVAL)
    [holding] = pass_on(c, duke)
    return title, holding, heiress, second


@pytest.mark.django_db
def test_rule_g_a_dispute_across_houses_follows_the_kings_wishes(realm):
    """Rule G: "... otherwise the King's wishes are followed. If the disputed succession involves another
    player's Dynasty, then not only is the Rebellion marker placed in that Province, but Rebellion Die Rolls
    must be made, with normal modifiers, for the whole Kingdom." The King names the holder; the heir
    (of another house) does not keep the title."""
    assert "the King's wishes are followed" in RULE_G_DISPUTE
    c = realm.campaign
    title, holding, heiress, second = _heiress_abroad(realm)
    [choice] = title_disputes(c)
    assert (choice.holding, choice.heir, choice.late, choice.king) == (holding, heiress, realm.duke, realm.king)
    assert [x.display_name for x in choice.candidates] == ["Second Testhouse", "Boy Testhouse", "Daughter Testhouse"]

    named = title_dispute(campaign=c, holding=holding, holder=second, by=SYSTEM_ACTOR)

    title.refresh_from_db()
    holding.refresh_from_db()
    assert title.holder == second and named.holder == second and named.start_year == 1300 and named.end_year is None
    assert named.how == "named by King Old Testhouse of Testland, disputing Heiress Testhouse's inheritance"
    assert (holding.end_year, holding.disputed) == (1300, True)  # the heir's holding ends, marked disputed
    history = TitleHolding.objects.filter(title=title).order_by("start_year", "pk")
    assert [(h.holder.given_name, h.start_year, h.end_year, h.disputed) for h in history] == [
        ("Duke", 1300, 1300, False),
        ("Heiress", 1300, 1300, True),
        ("Second", 1300, None, False),
    ]
    heiress.refresh_from_db()
    second.refresh_from_db()
    assert heiress.characteristics["guile"] == 0  # the bonus taken with the title set aside is taken back
    assert not Modifier.objects.filter(kind=ModifierKind.GOVERNOR, character=heiress).exists()
    assert second.characteristics["strength"] == 1
    entry = ChronicleEntry.objects.get(campaign=c, kind="title_disputed")
    assert entry.text == (
        "King Old Testhouse of Testland disputes the inheritance of Duke of Liguria by Heiress Testhouse of the "
        "house of Anjou (from Duke Testhouse of the house of Testhouse) and names Second Testhouse of the house of "
        "Testhouse to hold it: a Rebellion marker is placed in Liguria, and Rebellion rolls are made, with normal "
        "modifiers, for the whole Kingdom of Testland; the King's wishes are followed. Heiress Testhouse loses the "
        "Governor's +1 Guile (now +0). Second Testhouse is Duke of Liguria: +1 Strength (now +1)."
    )
    assert entry.data["kingdom_rebellion_rolls"] is True and entry.data["rebellion_marker"] == "Liguria"
    assert (entry.data["holding"], entry.data["disputed_holding"]) == (named.pk, holding.pk)
    assert title_disputes(c) == []
    with pytest.raises(RuleError, match="has already been disputed in 1300") as err:
        title_dispute(campaign=c, holding=named, holder=realm.boy, by=SYSTEM_ACTOR)
    assert err.value.code == "already_disputed"


@pytest.mark.django_db
def test_rule_g_a_dispute_within_the_dynasty_places_a_rebellion_marker_and_follows_the_kings_wishes(realm):
    """Rule G: "If this only affects the player's own Dynasty (ie, the Province is governed by a member of
    the same Dynasty as the King), a Rebellion marker should be placed on that Province, but otherwise the
    King's wishes are followed." (It was refused: "the title has not left the dynasty".)"""
    assert "a Rebellion marker should be placed on that Province" in RULE_G_DISPUTE
    c, duke = realm.campaign, realm.duke
    wife = person(c, None, "Wife", "F", 1277, dynastic_name="Else")
    wed(c, duke, wife, 1295)
    elder = person(c, realm.house, "Elder", "F", 1296, father=duke, mother=wife)
    son = person(c, realm.house, "Younger", "M", 1298, father=duke, mother=wife)
    title = title_grant(campaign=c, character=duke, province="Liguria", by=SYSTEM_ACTOR)
    at_step(c, Step.SURVIVAL)
    [holding] = pass_on(c, duke)
    assert holding.holder == son

    named = title_dispute(campaign=c, title=title.pk, holder=elder.pk, by=SYSTEM_ACTOR)  # the door names the title

    title.refresh_from_db()
    holding.refresh_from_db()
    assert title.holder == elder and named.holder == elder
    assert (holding.end_year, holding.disputed) == (1300, True)
    son.refresh_from_db()
    assert son.characteristics["strength"] == 0
    entry = ChronicleEntry.objects.get(campaign=c, kind="title_disputed")
    assert entry.text.startswith(
        "King Old Testhouse of Testland disputes the inheritance of Duke of Liguria by Younger Testhouse of the "
        "house of Testhouse (from Duke Testhouse of the house of Testhouse) and names Elder Testhouse of the house "
        "of Testhouse to hold it: a Rebellion marker is placed in Liguria, but otherwise the King's wishes are "
        "followed."
    )
    assert "Until she is 15 the 'Regent' is the monarch (rule G)." in entry.text
    assert entry.data["kingdom_rebellion_rolls"] is False and entry.data["rebellion_marker"] == "Liguria"


@pytest.mark.django_db
def test_rule_g_the_king_names_one_of_the_eligible(realm):
    """Rule G: "the King's wishes are followed" - among the late holder's heirs or the Princes his player
    could create Governor; the service says whom he may name."""
    c = realm.campaign
    title, holding, heiress, _second = _heiress_abroad(realm)
    stranger = person(c, realm.france, "Louis", "M", 1280)
    with pytest.raises(RuleError, match="Say whom King Old Testhouse names to hold Duke of Liguria: one of Second") as err:
        title_dispute(campaign=c, holding=holding, by=SYSTEM_ACTOR)
    assert err.value.fields == {"holder": "required"}
    for who, why in (
        (heiress, "Heiress Testhouse is the heir whose inheritance is disputed"),
        (realm.king, "Old Testhouse is the King himself"),
        (stranger, "Louis Anjou is neither an heir of Duke Testhouse nor a Prince the King's player could create"),
        (realm.duke, "Duke Testhouse is no longer in play"),
    ):
        with pytest.raises(RuleError, match=why) as err:
            title_dispute(campaign=c, holding=holding, holder=who, by=SYSTEM_ACTOR)
        assert err.value.code == "not_eligible" and err.value.fields == {"holder": "invalid"}
    holding.refresh_from_db()
    assert holding.end_year is None and not holding.disputed
    title.refresh_from_db()
    assert title.holder == heiress


@pytest.mark.django_db
def test_rule_g_the_api_enters_the_kings_dispute_for_the_gm(realm, gm, bob):
    """Rule G: "the King's wishes are followed" - POST titles/{id}/dispute/ with the holder he names."""
    from rest_framework.test import APIClient

    c = realm.campaign
    title, _holding, heiress, second = _heiress_abroad(realm)

    def post(user, body):
        client = APIClient()
        client.force_login(user)
        return client.post(f"/api/v1/campaigns/{c.slug}/titles/{title.pk}/dispute/", body, format="json")

    assert post(bob, {"holder": second.pk}).status_code == 403  # France's player; the GM enters it
    wrong = post(gm, {"holder": heiress.pk})
    assert wrong.status_code == 400 and "the heir whose inheritance is disputed" in wrong.content.decode()
    done = post(gm, {"holder": second.pk})
    assert done.status_code == 200, done.content
    assert done.json()["title"]["holder"]["id"] == second.pk
    assert any("names Second Testhouse" in line["text"] for line in done.json()["chronicle"])


@pytest.mark.django_db
def test_rule_g_the_titles_page_offers_the_dispute_with_the_eligible(realm, gm, bob, client):
    """Rule G: the King "may choose to dispute the normal succession"; the page offers whom he may name."""
    from campaign.undo import new_action_key

    c = realm.campaign
    title, _holding, _heiress, second = _heiress_abroad(realm)
    client.force_login(bob)
    page = client.get(f"/c/{c.slug}/titles/").content.decode()
    assert "Duke of Liguria" in page and "Dispute the inheritance" not in page  # the GM enters it
    client.force_login(gm)
    page = client.get(f"/c/{c.slug}/titles/").content.decode()
    assert "Dispute the inheritance" in page and f'href="/c/{c.slug}/titles/"' in page
    for who in ("Second Testhouse", "Boy Testhouse", "Daughter Testhouse"):
        assert f">{who}</option>" in page
    assert ">Heiress Testhouse</option>" not in page
    form = {"op": "dispute", "title": title.pk, "holder": second.pk, "action_key": new_action_key()}
    assert client.post(f"/c/{c.slug}/titles/", form).status_code == 302
    title.refresh_from_db()
    assert title.holder == second
    page = client.get(f"/c/{c.slug}/titles/").content.decode()
    assert "Dispute the inheritance" not in page
