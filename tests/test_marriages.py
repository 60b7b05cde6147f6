"""Step 3, Marriages (RULES.md A6), through the services: betrothals, weddings, the money the
rules fix, and what death and the marriage contract do to a match."""

from __future__ import annotations

import re

import pytest

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import load_tables
from dynasties.models import Character, Dynasty, Marriage, Origin, Reign, Status
from dynasties.services import (
    Match,
    births_attempt,
    births_sex,
    marriage_arrange,
    marriage_arrange_many,
    marriage_cancel,
    marriage_wed,
    marriage_wed_many,
    survival_roll,
)
from dynasties.services.common import World
from dynasties.services.survival import survival_due
from rules.errors import IllegalMarriage, RuleError, StepOrderError
from tests.factories import at_step, crown, empty_house, person


def house(campaign, crown_name: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown_name)


def survive_all(campaign, dying=()):
    """Survival rolls for everyone due: double six, or snake eyes for those in ``dying``."""
    from campaign.steps import load_tables
    from dynasties.services.common import World
    from dynasties.services.survival import survival_due

    due = [d.character.pk for d in survival_due(campaign, World(campaign, living_only=True), load_tables(campaign))]
    return survival_roll(campaign=campaign, faces={pk: [1, 1] if pk in dying else [6, 6] for pk in due}, by=SYSTEM_ACTOR)


def payments(campaign) -> list[tuple[str, int, int]]:
    return [
        (e.text, e.data["amount"], e.data["dynasty"])
        for e in ChronicleEntry.objects.filter(campaign=campaign, kind="payment_owed").order_by("id")
    ]


@pytest.fixture
def england(campaign):
    return house(campaign, "England")


@pytest.fixture
def france(campaign):
    return house(campaign, "France")


@pytest.fixture
def germany(campaign):
    return house(campaign, "Germany")


# --- betrothals -------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("step", [Step.BIRTHS, Step.SURVIVAL, Step.MARRIAGES, Step.ANNOUNCEMENTS])
def test_a6_children_may_be_betrothed_at_any_step(campaign, england, france, step):
    """A6: 'Marriages may be arranged earlier, even before birth (a betrothal): the contract binds
    only from the wedding.'"""
    at_step(campaign, step)
    boy = person(campaign, england, "Richard", "M", 1295)  # 5
    girl = person(campaign, france, "Blanche", "F", 1297)  # 3
    match = marriage_arrange(campaign=campaign, husband=boy, wife=girl, by=SYSTEM_ACTOR)
    match.refresh_from_db()
    assert (match.arranged_year, match.wedding_year, match.ended_year) == (1300, None, None)
    assert match.is_betrothal and not match.is_wed
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="betrothal")
    assert entry.text == "Richard Plantagenet and Blanche Anjou are betrothed."
    assert (entry.year, entry.step, entry.data) == (1300, step, {"marriage": match.pk})
    girl.refresh_from_db()
    assert girl.controlled_by == france  # nothing passes before the wedding


@pytest.mark.django_db
def test_a6_betrothal_arranged_as_children_is_wed_once_both_are_15(campaign, england, france):
    boy = person(campaign, england, "Richard", "M", 1295)
    girl = person(campaign, france, "Blanche", "F", 1296)
    match = marriage_arrange(campaign=campaign, husband=boy, wife=girl, by=SYSTEM_ACTOR)
    at_step(campaign, Step.MARRIAGES, year=1310)  # he is 15, she is 14
    with pytest.raises(
        IllegalMarriage,
        match=re.escape(
            "Richard Plantagenet and Blanche Anjou: The wife is 14; a wedding needs both to be 15 or older "
            "(a betrothal may be arranged earlier; Marriage, A6)."
        ),
    ) as err:
        marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    assert err.value.code == "illegal_marriage"
    match.refresh_from_db()
    assert match.wedding_year is None
    at_step(campaign, Step.MARRIAGES, year=1315)
    marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    match.refresh_from_db()
    assert (match.arranged_year, match.wedding_year) == (1300, 1315)
    assert ChronicleEntry.objects.get(campaign=campaign, kind="wedding").text == (
        "Richard Plantagenet (20) weds Blanche Anjou (19)."
    )


@pytest.mark.django_db
def test_a6_the_wedding_happens_only_in_the_marriages_step(campaign, england, france, germany):
    groom = person(campaign, england, "Edmund", "M", 1278)
    bride = person(campaign, france, "Odette", "F", 1282)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=bride, by=SYSTEM_ACTOR)  # Births: a betrothal is fine
    with pytest.raises(
        StepOrderError, match=re.escape("The Marriages step is not open yet: 1300 is at Births; finish Births first.")
    ):
        marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    other = person(campaign, germany, "Karl", "M", 1277)
    lady = person(campaign, france, "Isabelle", "F", 1281)
    with pytest.raises(StepOrderError, match="Marriages step is not open yet"):
        marriage_arrange(campaign=campaign, husband=other, wife=lady, wed=True, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(husband=other).exists()
    at_step(campaign, Step.ANNOUNCEMENTS)
    done = "The Marriages step of 1300 is already done; the campaign is at Announcements."
    with pytest.raises(StepOrderError, match=re.escape(done)):
        marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    at_step(campaign, Step.MARRIAGES)
    marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    match.refresh_from_db()
    assert match.wedding_year == 1300 and match.is_wed


@pytest.mark.django_db
def test_a6_arranged_and_wed_at_once_needs_both_15(campaign, england, france):
    at_step(campaign, Step.MARRIAGES)
    groom = person(campaign, england, "Edmund", "M", 1286)  # 14
    bride = person(campaign, france, "Odette", "F", 1285)  # 15: old enough
    with pytest.raises(
        IllegalMarriage,
        match=re.escape("Edmund Plantagenet and Odette Anjou: The husband is 14; a wedding needs both to be 15 or older"),
    ):
        marriage_arrange(campaign=campaign, husband=groom, wife=bride, wed=True, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(husband=groom).exists()
    older = person(campaign, england, "Alfred", "M", 1285)
    match = marriage_arrange(campaign=campaign, husband=older, wife=bride, wed=True, by=SYSTEM_ACTOR)
    assert match.wedding_year == 1300 == match.arranged_year


# --- what forbids a match ---------------------------------------------------------------------


@pytest.mark.django_db
def test_a6_same_dynastic_name_may_not_marry_whatever_the_house(campaign, england, france):
    """A6: 'Two characters carrying the same dynastic name may not marry; nothing else forbids a match.'"""
    groom = person(campaign, england, "Edmund", "M", 1278)
    cousin = person(campaign, france, "Maud", "F", 1282, dynastic_name="Plantagenet")  # raised in France
    with pytest.raises(
        IllegalMarriage,
        match=re.escape(
            "Edmund Plantagenet and Maud Plantagenet: Both carry the dynastic name Plantagenet; characters of the "
            "same dynastic name may not marry (Marriage, A6)."
        ),
    ):
        marriage_arrange(campaign=campaign, husband=groom, wife=cousin, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(husband=groom).exists()
    # a lady of the English court with another dynastic name may marry him: nothing else forbids it
    lady = person(campaign, england, "Anne", "F", 1283, dynastic_name="Percy")
    assert marriage_arrange(campaign=campaign, husband=groom, wife=lady, by=SYSTEM_ACTOR).is_betrothal


@pytest.mark.django_db
def test_a6_someone_already_married_or_betrothed_is_refused(campaign, england, france, germany):
    king = Marriage.objects.get(campaign=campaign, husband__controlled_by=england, ended_year__isnull=True).husband
    lady = person(campaign, france, "Odette", "F", 1282)
    with pytest.raises(
        IllegalMarriage,
        match=re.escape(f"{king.display_name} and Odette Anjou: The husband is already married or betrothed (Marriage, A6)."),
    ):
        marriage_arrange(campaign=campaign, husband=king, wife=lady, by=SYSTEM_ACTOR)
    prince = person(campaign, england, "Edmund", "M", 1278)
    marriage_arrange(campaign=campaign, husband=prince, wife=lady, by=SYSTEM_ACTOR)
    rival = person(campaign, germany, "Karl", "M", 1277)
    with pytest.raises(
        IllegalMarriage,
        match=re.escape("Karl Hapsburg and Odette Anjou: The wife is already married or betrothed (Marriage, A6)."),
    ):
        marriage_arrange(campaign=campaign, husband=rival, wife=lady, by=SYSTEM_ACTOR)
    assert Marriage.objects.filter(wife=lady).count() == 1


@pytest.mark.django_db
def test_a5_a6_dead_or_retired_partner_is_refused(campaign, england, france):
    at_step(campaign, Step.MARRIAGES)
    groom = person(campaign, england, "Edmund", "M", 1278)
    dead = person(campaign, france, "Odette", "F", 1282)
    Character.objects.filter(pk=dead.pk).update(status=Status.DEAD, death_year=1300)
    with pytest.raises(
        IllegalMarriage, match=re.escape("Edmund Plantagenet and Odette Anjou: The wife is dead and cannot marry (Survival, A5).")
    ):
        marriage_arrange(campaign=campaign, husband=groom, wife=dead, wed=True, by=SYSTEM_ACTOR)
    with pytest.raises(IllegalMarriage, match="The wife is dead"):
        marriage_arrange(campaign=campaign, husband=groom, wife=dead, by=SYSTEM_ACTOR)  # not even a betrothal
    widow = person(campaign, france, "Louise", "F", 1282)
    Character.objects.filter(pk=widow.pk).update(status=Status.RETIRED, retired_year=1295)
    with pytest.raises(
        IllegalMarriage,
        match=re.escape("The wife is retired from the game and may not marry (a King's widow never remarries; Survival, A5)."),
    ):
        marriage_arrange(campaign=campaign, husband=groom, wife=widow, wed=True, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(husband=groom).exists()


@pytest.mark.django_db
def test_a6_a_betrothed_who_is_later_retired_or_dead_cannot_be_wed(campaign, england, france, germany):
    at_step(campaign, Step.MARRIAGES)
    groom = person(campaign, england, "Edmund", "M", 1278)
    bride = person(campaign, france, "Odette", "F", 1282)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=bride, by=SYSTEM_ACTOR)
    Character.objects.filter(pk=bride.pk).update(status=Status.RETIRED, retired_year=1300)
    with pytest.raises(IllegalMarriage, match="Edmund Plantagenet and Odette Anjou: The wife is retired from the game"):
        marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    other = person(campaign, germany, "Karl", "M", 1277)
    lady = person(campaign, france, "Isabelle", "F", 1281)
    betrothal = marriage_arrange(campaign=campaign, husband=other, wife=lady, by=SYSTEM_ACTOR)
    Character.objects.filter(pk=other.pk).update(status=Status.DEAD, death_year=1300)
    with pytest.raises(IllegalMarriage, match=re.escape("The husband is dead and cannot marry (Survival, A5).")):
        marriage_wed(campaign=campaign, marriage=betrothal, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(wedding_year__isnull=False, husband__in=[groom, other]).exists()


@pytest.mark.django_db
def test_a6_a_prisoner_may_be_betrothed_but_not_wed(campaign, england, france, germany):
    at_step(campaign, Step.MARRIAGES)
    groom = person(campaign, england, "Edmund", "M", 1278)
    groom.prisoner_of = germany
    groom.save()
    bride = person(campaign, france, "Odette", "F", 1282)
    with pytest.raises(
        IllegalMarriage,
        match=re.escape(
            "Edmund Plantagenet and Odette Anjou: The husband is a prisoner and cannot be wed until released (Marriage, A6)."
        ),
    ):
        marriage_arrange(campaign=campaign, husband=groom, wife=bride, wed=True, by=SYSTEM_ACTOR)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=bride, by=SYSTEM_ACTOR)
    assert match.is_betrothal
    with pytest.raises(IllegalMarriage, match="The husband is a prisoner"):
        marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    groom.prisoner_of = None
    groom.save()
    assert marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR).wedding_year == 1300


@pytest.mark.django_db
def test_a7_a_created_baron_never_marries(campaign, england, france):
    """A7: the baron or cousin created as regent 'never marries and has no children'."""
    baron = person(campaign, england, "Alfred", "M", 1270)
    Character.objects.filter(pk=baron.pk).update(origin=Origin.BARON)
    lady = person(campaign, france, "Odette", "F", 1282)
    with pytest.raises(
        IllegalMarriage,
        match=re.escape(
            "Alfred Plantagenet and Odette Anjou: The husband was created only to act as regent and never marries "
            "(Succession, A7)."
        ),
    ):
        marriage_arrange(campaign=campaign, husband=baron, wife=lady, by=SYSTEM_ACTOR)
    at_step(campaign, Step.MARRIAGES)
    with pytest.raises(IllegalMarriage, match="never marries"):
        marriage_arrange(campaign=campaign, husband=baron, wife=lady, wed=True, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(husband=baron).exists()


# --- the wedding: who controls whom -----------------------------------------------------------


@pytest.mark.django_db
def test_a6_at_the_wedding_the_bride_passes_to_the_grooms_house(campaign, england, france):
    """A6: 'At the wedding the bride's sheet passes to the groom's player.'"""
    at_step(campaign, Step.MARRIAGES)
    groom = person(campaign, england, "Edmund", "M", 1278)
    bride = person(campaign, france, "Odette", "F", 1282)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=bride, wed=True, by=SYSTEM_ACTOR)
    bride.refresh_from_db()
    groom.refresh_from_db()
    assert bride.controlled_by == england and bride.birth_dynasty == france  # she stays born an Anjou
    assert groom.controlled_by == england
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="wedding")
    assert entry.text == "Edmund Plantagenet (22) weds Odette Anjou (18)."
    assert (entry.step, entry.data) == (Step.MARRIAGES, {"marriage": match.pk})
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="betrothal").exists()
    assert payments(campaign) == []  # a bride of Charisma 0 brings nothing


@pytest.mark.django_db
def test_a6_the_husband_may_join_the_wifes_house(campaign, england, france):
    """A6: '... unless the contract says the husband joins her dynasty (then his sheet passes to her player).'"""
    groom = person(campaign, england, "Edmund", "M", 1278)
    groom.prince_piece = "2"
    groom.save()
    bride = person(campaign, france, "Odette", "F", 1282)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=bride, husband_joins_wife=True, by=SYSTEM_ACTOR)
    assert ChronicleEntry.objects.get(campaign=campaign, kind="betrothal").text == (
        "Edmund Plantagenet and Odette Anjou are betrothed; he is to join the house of Anjou."
    )
    groom.refresh_from_db()
    assert groom.controlled_by == england and groom.prince_piece == "2"  # nothing moves before the wedding
    at_step(campaign, Step.MARRIAGES)
    marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    groom.refresh_from_db()
    bride.refresh_from_db()
    assert groom.controlled_by == france and groom.birth_dynasty == england
    assert groom.prince_piece == ""  # his English piece is freed
    assert bride.controlled_by == france
    assert ChronicleEntry.objects.get(campaign=campaign, kind="wedding").text == (
        "Edmund Plantagenet (22) weds Odette Anjou (18); he joins the house of Anjou."
    )


# --- the money --------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("charisma", "amount", "text"),
    [
        (2, 60, "60 Crowns from the Treasury to the house of Plantagenet: bride's Charisma +2 x 30."),
        (1, 30, "30 Crowns from the Treasury to the house of Plantagenet: bride's Charisma +1 x 30."),
        (-1, -30, "30 Crowns to the Treasury from the house of Plantagenet: bride's Charisma -1 x 30."),
        (-2, -60, "60 Crowns to the Treasury from the house of Plantagenet: bride's Charisma -2 x 30."),
    ],
)
def test_a6_brides_charisma_times_30_to_the_grooms_house(campaign, england, france, charisma, amount, text):
    """A6: 'bride's Charisma x 30 Crowns to (or, if negative, from) the groom's dynasty'."""
    at_step(campaign, Step.MARRIAGES)
    groom = person(campaign, england, "Edmund", "M", 1278)
    bride = person(campaign, france, "Odette", "F", 1282, charisma=charisma)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=bride, wed=True, by=SYSTEM_ACTOR)
    assert payments(campaign) == [(text, amount, england.pk)]
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="payment_owed")
    assert entry.data == {"amount": amount, "dynasty": england.pk, "marriage": match.pk}
    assert entry.step == Step.MARRIAGES and entry.year == 1300


@pytest.mark.django_db
def test_a6_charisma_money_goes_to_the_groom_even_when_he_joins_her_house(campaign, england, france):
    """docs/rulings.md (A6): the Charisma money goes to the house controlling the groom at the wedding."""
    at_step(campaign, Step.MARRIAGES)
    groom = person(campaign, england, "Edmund", "M", 1278)
    bride = person(campaign, france, "Odette", "F", 1282, charisma=1)
    marriage_arrange(campaign=campaign, husband=groom, wife=bride, husband_joins_wife=True, wed=True, by=SYSTEM_ACTOR)
    assert payments(campaign) == [
        ("30 Crowns from the Treasury to the house of Plantagenet: bride's Charisma +1 x 30.", 30, england.pk)
    ]


@pytest.mark.django_db
def test_a6_100_crowns_to_the_brides_birth_house_when_she_marries_a_reigning_king(campaign, france, germany):
    """A6: '100 Crowns to the bride's original dynasty if she marries a King'."""
    testhouse = empty_house(campaign)
    king = person(campaign, testhouse, "Rex", "M", 1270)
    crown(campaign, king, "Testland", 1290)
    bride = person(campaign, france, "Odette", "F", 1282, charisma=1)
    bride.controlled_by = germany  # born an Anjou, in German hands now: the money still goes to Anjou
    bride.save()
    at_step(campaign, Step.MARRIAGES)
    match = marriage_arrange(campaign=campaign, husband=king, wife=bride, wed=True, by=SYSTEM_ACTOR)
    assert payments(campaign) == [
        ("30 Crowns from the Treasury to the house of Testhouse: bride's Charisma +1 x 30.", 30, testhouse.pk),
        ("100 Crowns from the Treasury to the house of Anjou: a bride for a reigning King.", 100, france.pk),
    ]
    assert all(e.data["marriage"] == match.pk for e in ChronicleEntry.objects.filter(kind="payment_owed"))
    bride.refresh_from_db()
    assert bride.controlled_by == testhouse


@pytest.mark.django_db
def test_a6_no_100_crowns_for_marrying_a_prince_who_does_not_reign(campaign, england, france):
    at_step(campaign, Step.MARRIAGES)
    prince = person(campaign, england, "Edmund", "M", 1278)
    bride = person(campaign, france, "Odette", "F", 1282)
    marriage_arrange(campaign=campaign, husband=prince, wife=bride, wed=True, by=SYSTEM_ACTOR)
    assert payments(campaign) == []


@pytest.mark.django_db
def test_a6_100_crowns_to_the_grooms_house_when_he_marries_a_queen_regnant(campaign, france):
    """A6: 'likewise 100 Crowns to a man's dynasty when he marries a Queen regnant'."""
    testhouse = empty_house(campaign)
    queen = person(campaign, testhouse, "Regina", "F", 1280)
    crown(campaign, queen, "Testland", 1295)
    groom = person(campaign, france, "Louis", "M", 1277)
    at_step(campaign, Step.MARRIAGES)
    marriage_arrange(campaign=campaign, husband=groom, wife=queen, husband_joins_wife=True, wed=True, by=SYSTEM_ACTOR)
    assert payments(campaign) == [
        ("100 Crowns from the Treasury to the house of Anjou: a husband for a Queen regnant.", 100, france.pk)
    ]
    groom.refresh_from_db()
    queen.refresh_from_db()
    assert groom.controlled_by == testhouse and queen.controlled_by == testhouse  # he is her Consort


# --- many at once -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a6_arrange_many_is_all_or_nothing(campaign, england, france, germany):
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282)
    karl = person(campaign, germany, "Karl", "M", 1277)
    anna = person(campaign, germany, "Anna", "F", 1281)  # a Hapsburg: Karl may not marry her
    matches = [Match(edmund.pk, odette.pk), Match(karl.pk, anna.pk)]
    with pytest.raises(
        IllegalMarriage, match=re.escape("Karl Hapsburg and Anna Hapsburg: Both carry the dynastic name Hapsburg")
    ):
        marriage_arrange_many(campaign=campaign, matches=matches, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(husband__in=[edmund, karl]).exists()  # the legal one was refused too
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="betrothal").exists()
    # two illegal matches: every problem is named
    louis = person(campaign, france, "Louis", "M", 1279)
    with pytest.raises(IllegalMarriage) as err:
        marriage_arrange_many(
            campaign=campaign,
            matches=[Match(edmund.pk, odette.pk), Match(karl.pk, anna.pk), Match(louis.pk, odette.pk)],
            by=SYSTEM_ACTOR,
        )
    message = str(err.value)
    assert message.startswith("Refused: ") and message.count(" | ") == 1
    assert "Karl Hapsburg and Anna Hapsburg: Both carry the dynastic name Hapsburg" in message
    assert "Louis Anjou and Odette Anjou: Both carry the dynastic name Anjou" in message
    assert "The wife is already married or betrothed" in message  # Odette is in the batch twice
    assert not Marriage.objects.filter(husband__in=[edmund, karl, louis]).exists()
    # the legal matches alone go through, in order
    made = marriage_arrange_many(
        campaign=campaign, matches=[Match(edmund.pk, odette.pk), Match(louis.pk, anna.pk)], by=SYSTEM_ACTOR
    )
    assert [(m.husband_id, m.wife_id) for m in made] == [(edmund.pk, odette.pk), (louis.pk, anna.pk)]
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="betrothal").count() == 2


@pytest.mark.django_db
def test_a6_arrange_many_refuses_the_same_person_twice(campaign, england, france, germany):
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282)
    anna = person(campaign, germany, "Anna", "F", 1281)
    with pytest.raises(
        IllegalMarriage,
        match=re.escape("Edmund Plantagenet and Anna Hapsburg: The husband is already married or betrothed (Marriage, A6)."),
    ):
        marriage_arrange_many(
            campaign=campaign, matches=[Match(edmund.pk, odette.pk), Match(edmund.pk, anna.pk)], by=SYSTEM_ACTOR
        )
    assert not Marriage.objects.filter(husband=edmund).exists()


@pytest.mark.django_db
def test_a6_arrange_and_wed_many_is_all_or_nothing(campaign, england, france, germany):
    at_step(campaign, Step.MARRIAGES)
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282, charisma=2)
    karl = person(campaign, germany, "Karl", "M", 1277)
    girl = person(campaign, france, "Blanche", "F", 1290)  # 10
    with pytest.raises(IllegalMarriage, match="The wife is 10"):
        marriage_arrange_many(
            campaign=campaign, matches=[Match(edmund.pk, odette.pk), Match(karl.pk, girl.pk)], wed=True, by=SYSTEM_ACTOR
        )
    odette.refresh_from_db()
    assert odette.controlled_by == france
    assert not Marriage.objects.filter(husband__in=[edmund, karl]).exists()
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind__in=["wedding", "payment_owed"]).exists()


@pytest.mark.django_db
def test_a6_wed_many_weds_several_betrothals(campaign, england, france, germany):
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282)
    karl = person(campaign, germany, "Karl", "M", 1277)
    mary = person(campaign, england, "Mary", "F", 1281, charisma=-1)
    first, second = marriage_arrange_many(
        campaign=campaign, matches=[Match(edmund.pk, odette.pk), Match(karl.pk, mary.pk)], by=SYSTEM_ACTOR
    )
    at_step(campaign, Step.MARRIAGES)
    wed = marriage_wed_many(campaign=campaign, marriages=[first, second.pk], by=SYSTEM_ACTOR)
    assert [m.pk for m in wed] == [first.pk, second.pk]
    assert set(Marriage.objects.filter(pk__in=[first.pk, second.pk]).values_list("wedding_year", flat=True)) == {1300}
    odette.refresh_from_db()
    mary.refresh_from_db()
    assert (odette.controlled_by, mary.controlled_by) == (england, germany)
    assert list(ChronicleEntry.objects.filter(campaign=campaign, kind="wedding").values_list("text", flat=True)) == [
        "Edmund Plantagenet (22) weds Odette Anjou (18).",
        "Karl Hapsburg (23) weds Mary Plantagenet (19).",
    ]
    assert payments(campaign) == [
        ("30 Crowns to the Treasury from the house of Hapsburg: bride's Charisma -1 x 30.", -30, germany.pk)
    ]
    with pytest.raises(IllegalMarriage, match=re.escape("Edmund Plantagenet and Odette Anjou were already wed in 1300.")):
        marriage_wed_many(campaign=campaign, marriages=[first], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_a6_wed_many_is_all_or_nothing(campaign, england, france, germany):
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282)
    karl = person(campaign, germany, "Karl", "M", 1277)
    girl = person(campaign, france, "Blanche", "F", 1290)
    ready = marriage_arrange(campaign=campaign, husband=edmund, wife=odette, by=SYSTEM_ACTOR)
    young = marriage_arrange(campaign=campaign, husband=karl, wife=girl, by=SYSTEM_ACTOR)
    at_step(campaign, Step.MARRIAGES)
    with pytest.raises(IllegalMarriage, match=re.escape("Karl Hapsburg and Blanche Anjou: The wife is 10")):
        marriage_wed_many(campaign=campaign, marriages=[ready, young], by=SYSTEM_ACTOR)
    ready.refresh_from_db()
    odette.refresh_from_db()
    assert ready.wedding_year is None and odette.controlled_by == france


# --- breaking off, and death ------------------------------------------------------------------


@pytest.mark.django_db
def test_a6_a_betrothal_may_be_broken_off_with_a_reason_but_not_a_marriage(campaign, england, france, germany):
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282)
    match = marriage_arrange(campaign=campaign, husband=edmund, wife=odette, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match=re.escape("Say why the betrothal is broken off.")) as err:
        marriage_cancel(campaign=campaign, marriage=match, reason="   ", by=SYSTEM_ACTOR)
    assert err.value.fields == {"reason": "required"}
    ended = marriage_cancel(campaign=campaign, marriage=match.pk, reason=" the treaty of Calais failed ", by=SYSTEM_ACTOR)
    assert (ended.ended_year, ended.end_cause) == (1300, "betrothal broken off: the treaty of Calais failed")
    assert not ended.is_betrothal
    assert ChronicleEntry.objects.get(campaign=campaign, kind="betrothal_end").text == (
        "The betrothal of Edmund Plantagenet & Odette Anjou is broken off: the treaty of Calais failed."
    )
    with pytest.raises(IllegalMarriage, match=re.escape("This betrothal already ended in 1300.")):
        marriage_cancel(campaign=campaign, marriage=match, reason="again", by=SYSTEM_ACTOR)
    # both are free again
    karl = person(campaign, germany, "Karl", "M", 1277)
    assert marriage_arrange(campaign=campaign, husband=karl, wife=odette, by=SYSTEM_ACTOR).is_betrothal
    at_step(campaign, Step.MARRIAGES)
    with pytest.raises(IllegalMarriage, match=re.escape("this match ended in 1300 (betrothal broken off")):
        marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    anna = person(campaign, germany, "Anna", "F", 1283)
    wedded = marriage_arrange(campaign=campaign, husband=edmund, wife=anna, wed=True, by=SYSTEM_ACTOR)
    lasting = "A wedded marriage cannot be broken off; it lasts while both spouses live."
    with pytest.raises(IllegalMarriage, match=re.escape(lasting)):
        marriage_cancel(campaign=campaign, marriage=wedded, reason="a quarrel", by=SYSTEM_ACTOR)
    wedded.refresh_from_db()
    assert wedded.ended_year is None


@pytest.mark.django_db
def test_a5_a_betrothal_is_void_when_a_betrothed_dies(campaign, england, france, germany):
    """A5/A6: death ends every match of the dead; the betrothal binds nobody (docs/rulings.md A5)."""
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282)
    match = marriage_arrange(campaign=campaign, husband=edmund, wife=odette, by=SYSTEM_ACTOR)
    at_step(campaign, Step.SURVIVAL)
    survive_all(campaign, dying={edmund.pk})
    match.refresh_from_db()
    edmund.refresh_from_db()
    odette.refresh_from_db()
    assert edmund.status == Status.DEAD
    assert (match.ended_year, match.end_cause) == (1300, "betrothal void: death before the wedding")
    assert match.wedding_year is None
    assert odette.status == Status.ALIVE and odette.controlled_by == france
    at_step(campaign, Step.MARRIAGES)
    with pytest.raises(
        IllegalMarriage,
        match=re.escape(
            "Edmund Plantagenet and Odette Anjou: this match ended in 1300 (betrothal void: death before the wedding)."
        ),
    ):
        marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    karl = person(campaign, germany, "Karl", "M", 1277)
    assert marriage_arrange(campaign=campaign, husband=karl, wife=odette, wed=True, by=SYSTEM_ACTOR).is_wed  # she is free


# --- the children of a marriage ---------------------------------------------------------------


def born_child(campaign, match, sex_face=1):
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[6, 6], by=SYSTEM_ACTOR)
    return births_sex(campaign=campaign, attempt=attempt, faces=[sex_face], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_a6_children_are_raised_by_the_dynasty_the_contract_names(campaign, england, france, germany):
    """A4/A6: children are brought up by the father's dynasty unless a marriage contract says otherwise."""
    at_step(campaign, Step.MARRIAGES)
    edmund = person(campaign, england, "Edmund", "M", 1278)
    anna = person(campaign, germany, "Anna", "F", 1281)
    match = marriage_arrange(campaign=campaign, husband=edmund, wife=anna, children_raised_by=france, wed=True, by=SYSTEM_ACTOR)
    assert match.children_raised_by == france
    at_step(campaign, Step.BIRTHS, year=1305)
    child = born_child(campaign, match)
    assert (child.controlled_by, child.birth_dynasty) == (france, france)
    assert child.dynastic_name == "Plantagenet"  # the father's name all the same
    assert (child.father, child.mother) == (edmund, anna)
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="birth")
    assert entry.data == {"character": child.pk, "dynasty": france.pk}


@pytest.mark.django_db
def test_a6_by_default_the_fathers_house_raises_the_children_or_hers_if_he_joined_it(campaign, england, france, germany):
    at_step(campaign, Step.MARRIAGES)
    plain = marriage_arrange(
        campaign=campaign,
        husband=person(campaign, england, "Edmund", "M", 1278),
        wife=person(campaign, germany, "Anna", "F", 1281),
        wed=True,
        by=SYSTEM_ACTOR,
    )
    joined = marriage_arrange(
        campaign=campaign,
        husband=person(campaign, france, "Louis", "M", 1277),
        wife=person(campaign, germany, "Florenz", "F", 1282),
        husband_joins_wife=True,
        wed=True,
        by=SYSTEM_ACTOR,
    )
    at_step(campaign, Step.BIRTHS, year=1305)
    first = born_child(campaign, plain)
    second = born_child(campaign, joined, sex_face=6)
    assert (first.controlled_by, first.birth_dynasty, first.dynastic_name) == (england, england, "Plantagenet")
    assert (second.controlled_by, second.birth_dynasty, second.dynastic_name) == (germany, germany, "Anjou")


@pytest.mark.django_db
def test_a6_children_raised_by_must_be_a_dynasty_of_the_campaign(campaign, england, france):
    edmund = person(campaign, england, "Edmund", "M", 1278)
    odette = person(campaign, france, "Odette", "F", 1282)
    with pytest.raises(IllegalMarriage, match=re.escape("There is no dynasty #987654 to raise the children.")):
        marriage_arrange(campaign=campaign, husband=edmund, wife=odette, children_raised_by=987654, by=SYSTEM_ACTOR)
    assert not Marriage.objects.filter(husband=edmund).exists()


# --- regressions found in review -------------------------------------------------------------


def _roll_all(campaign, dying=()):
    from dynasties.services import survival_roll

    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign))]
    survival_roll(campaign=campaign, faces={pk: [1, 1] if pk in dying else [6, 6] for pk in due}, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_a5_a_kings_widow_may_not_remarry_in_the_turn_he_dies(campaign):
    """A5: 'the widow of a King, who is retired (queen mothers never remarry)'."""
    from dynasties.services import announcements_make, births_finish, marriages_finish, survival_finish

    king = Reign.objects.get(campaign=campaign, crown="England").holder
    queen = Marriage.objects.get(husband=king).wife
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    _roll_all(campaign, {king.pk})
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    suitor = person(campaign, Dynasty.objects.get(campaign=campaign, crown="Germany"), "Otto", "M", 1275)
    with pytest.raises(IllegalMarriage, match="widow of a King who died this turn"):
        marriage_arrange(campaign=campaign, husband=suitor, wife=queen, wed=True, by=SYSTEM_ACTOR)
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    queen.refresh_from_db()
    assert queen.status == Status.RETIRED


@pytest.mark.django_db
def test_a7_a_queen_regnant_keeps_her_house_and_her_husband_becomes_consort(campaign):
    """A7: 'a Queen regnant is always controlled by her own country's player'."""
    testhouse = empty_house(campaign)
    queen = person(campaign, testhouse, "Regina", "F", 1278)
    crown(campaign, queen, "Testland", 1295)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    groom = person(campaign, france, "Louis", "M", 1275)
    at_step(campaign, Step.MARRIAGES)
    match = marriage_arrange(campaign=campaign, husband=groom, wife=queen, wed=True, by=SYSTEM_ACTOR)
    queen.refresh_from_db()
    groom.refresh_from_db()
    assert queen.controlled_by == testhouse
    assert groom.controlled_by == testhouse and match.husband_joins_wife
    owed = ChronicleEntry.objects.get(kind="payment_owed", data__marriage=match.pk)
    assert owed.data == {"dynasty": france.pk, "amount": 100, "marriage": match.pk}


@pytest.mark.django_db
def test_a6_no_100_crowns_for_a_noble_bride_without_a_house_of_birth(campaign):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    king = person(campaign, empty_house(campaign), "Rex", "M", 1270)
    crown(campaign, king, "Testland", 1290)
    noble = person(campaign, None, "Joan", "F", 1280, dynastic_name="Percy")
    noble.controlled_by = england
    noble.save()
    at_step(campaign, Step.MARRIAGES)
    marriage_arrange(campaign=campaign, husband=king, wife=noble, wed=True, by=SYSTEM_ACTOR)
    assert not ChronicleEntry.objects.filter(kind="payment_owed").exists()


@pytest.mark.django_db
def test_the_same_betrothal_twice_in_one_batch_is_refused(campaign):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    m = marriage_arrange(
        campaign=campaign,
        husband=person(campaign, england, "Ed", "M", 1275),
        wife=person(campaign, france, "Lou", "F", 1280),
        by=SYSTEM_ACTOR,
    )
    at_step(campaign, Step.MARRIAGES)
    with pytest.raises(IllegalMarriage, match="listed twice"):
        marriage_wed_many(campaign=campaign, marriages=[m.pk, m.pk], by=SYSTEM_ACTOR)
    m.refresh_from_db()
    assert m.wedding_year is None
