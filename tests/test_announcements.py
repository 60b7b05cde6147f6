"""Step 4, the Announcements (rulebook section 10; RULES.md A5 returns and retirements, A2 Prince
pieces), and the advance to the next turn, through the services."""

from __future__ import annotations

import re

import pytest

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Dynasty, Marriage, Reign, Status
from dynasties.services import (
    announcements_make,
    births_attempt,
    births_finish,
    births_sex,
    marriage_arrange,
    marriages_finish,
    survival_finish,
    survival_roll,
    turn_advance,
)
from dynasties.services.regnal import crowned_name
from rules.dice import FixedSource
from rules.errors import StepOrderError
from tests.factories import at_step, crown, empty_house, person, wed

ALL_SECTIONS = [
    "Births",
    "Deaths",
    "Successions and regencies",
    "Marriages",
    "Returns and retirements",
    "Prince pieces",
]


def house(campaign, crown_name: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown_name)


def king_of(campaign, crown_name: str) -> Character:
    return Reign.objects.get(campaign=campaign, crown=crown_name, end_year__isnull=True).holder


def survive_all(campaign, dying=()):
    """Survival rolls for everyone due: double six, or snake eyes for those in ``dying``."""
    from campaign.steps import load_tables
    from dynasties.services.common import World
    from dynasties.services.survival import rolled_this_turn, survival_due

    done = rolled_this_turn(campaign)
    due = [
        d.character.pk
        for d in survival_due(campaign, World(campaign, living_only=True), load_tables(campaign))
        if d.character.pk not in done
    ]
    return survival_roll(campaign=campaign, faces={pk: [1, 1] if pk in dying else [6, 6] for pk in due}, by=SYSTEM_ACTOR)


def through_survival(campaign, dying=(), **finish):
    """From Births (or Survival) to the Marriages step, with the given characters dying."""
    campaign.refresh_from_db()
    if campaign.step == Step.BIRTHS:
        births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    survive_all(campaign, dying)
    survival_finish(campaign=campaign, **{"by": SYSTEM_ACTOR, **finish})


def to_announcements(campaign, dying=(), **finish):
    through_survival(campaign, dying, **finish)
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    return announcements_make(campaign=campaign, by=SYSTEM_ACTOR)


def pieces(*characters) -> list[str]:
    out = []
    for c in characters:
        c.refresh_from_db()
        out.append(c.prince_piece)
    return out


# --- the announcement itself ------------------------------------------------------------------


@pytest.mark.django_db
def test_section_10_announcements_gather_the_turn_in_sections(campaign):
    """Section 10 of the rulebook: the turn's births, deaths, successions, marriages, returns,
    pieces and money are announced together; the Dynastic Sequence is then over."""
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    prince = person(campaign, england, "Edmund", "M", 1280)  # 20 this turn: a Prince piece
    lady = person(campaign, germany, "Anna", "F", 1282, charisma=1)
    # Births: the English royal couple has a son
    couple = Marriage.objects.get(campaign=campaign, husband__controlled_by=england, ended_year__isnull=True)
    attempt = births_attempt(campaign=campaign, marriage=couple, faces=[5, 5], by=SYSTEM_ACTOR)
    son = births_sex(
        campaign=campaign, attempt=attempt, faces=[2], characteristic_faces=[[6, 6, 6], [1, 1, 1], [4, 4, 4]], by=SYSTEM_ACTOR
    )
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    # Survival: the King of France dies; his son or daughter of 5 succeeds under a created regent
    king = king_of(campaign, "France")
    through_survival(campaign, {king.pk}, source=FixedSource([(3, 3, 3), (3, 3, 3), (3, 3, 3)]))
    # Marriages: the prince weds a German lady of Charisma +1
    marriage_arrange(campaign=campaign, husband=prince, wife=lady, wed=True, by=SYSTEM_ACTOR)
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcement = announcements_make(campaign=campaign, by=SYSTEM_ACTOR)

    campaign.refresh_from_db()
    assert campaign.step == Step.INTERPHASE and campaign.current_year == 1300
    assert (announcement.kind, announcement.step, announcement.year) == ("announcements", Step.ANNOUNCEMENTS, 1300)
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="announcements").count() == 1
    sections = announcement.data["sections"]
    assert list(sections) == ALL_SECTIONS
    reign = Reign.objects.get(campaign=campaign, crown="France", end_year__isnull=True)
    heir = reign.holder
    late = Reign.objects.get(campaign=campaign, crown="France", holder=king)
    assert sections["Births"] == [
        f"A son, {son.display_name}, is born in 1300 to {couple.husband.display_name} and "
        f"{couple.wife.display_name}: Strength +2, Constitution -2, Charisma +0."
    ]
    assert sections["Deaths"] == [f"{king.display_name} dies in 1300, aged 25 (rolled 2+0, needed 4)."]
    successions = sections["Successions and regencies"]
    assert successions[0] == (
        f"{crowned_name(heir, reign)} succeeds {crowned_name(king, late)} as {'King' if heir.sex == 'M' else 'Queen'} of France, "
        "aged 5 (the rightful heir)."
    )
    assert any("a baron and cousin of the late King" in line for line in successions)
    assert any("is regent until the" in line for line in successions)
    assert sections["Marriages"] == ["Edmund Plantagenet (20) weds Anna Hapsburg (18)."]
    widow = Marriage.objects.get(husband=king).wife
    assert sections["Returns and retirements"] == [
        f"{widow.display_name}, widow of King {king.display_name}, retires from the game (queen mothers never remarry)."
    ]
    assert sections["Prince pieces"] == ["Edmund Plantagenet takes Prince piece 1."]
    # money stays private (RULES.md E7): its lines are in the chronicle for the parties, not announced
    assert "Money moved by the rules" not in sections
    assert "Crowns" not in announcement.text
    assert ChronicleEntry.objects.filter(kind="payment_owed", year=1300).exists()
    # the text is the same, headed by the year, one section after the other
    lines = announcement.text.splitlines()
    assert lines[0] == "Announcements for 1300"
    headings = [line[:-1] for line in lines[1:] if not line.startswith("- ")]
    assert headings == ALL_SECTIONS
    assert f"- {king.display_name} dies in 1300, aged 25 (rolled 2+0, needed 4)." in lines
    assert lines.index("Deaths:") < lines.index(f"- {king.display_name} dies in 1300, aged 25 (rolled 2+0, needed 4).")
    with pytest.raises(StepOrderError, match="The Announcements step of 1300 is already done"):
        announcements_make(campaign=campaign, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_section_10_a_turn_with_nothing_happening_says_so(campaign):
    announcement = to_announcements(campaign)
    assert announcement.text == "Announcements for 1300\nNothing to announce: no births, deaths or marriages this turn."
    assert announcement.data == {"sections": {}}
    campaign.refresh_from_db()
    assert campaign.step == Step.INTERPHASE


@pytest.mark.django_db
def test_section_10_only_this_years_chronicle_is_announced(campaign):
    england, france = house(campaign, "England"), house(campaign, "France")
    marriage_arrange(
        campaign=campaign,
        husband=person(campaign, england, "Edmund", "M", 1290),
        wife=person(campaign, france, "Odette", "F", 1292),
        by=SYSTEM_ACTOR,
    )
    first = to_announcements(campaign)
    assert first.data["sections"] == {"Marriages": ["Edmund Plantagenet and Odette Anjou are betrothed."]}
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    second = to_announcements(campaign)
    assert second.year == 1305
    assert "betrothed" not in second.text and second.data["sections"] == {}


@pytest.mark.django_db
def test_each_line_is_announced_once(campaign):
    """Issue 19: a fact written twice in the turn's chronicle (or under two kinds) is announced once."""
    from campaign.steps import Chronicle

    chronicle = Chronicle(campaign)
    for kind in ("death", "death", "succession"):
        chronicle.add(kind, "Edward Plantagenet dies in 1300, aged 40.")
    chronicle.add("birth", "Alice Plantagenet is born.")
    chronicle.flush()
    announcement = to_announcements(campaign)
    assert announcement.text.count("Edward Plantagenet dies in 1300") == 1
    assert announcement.data["sections"] == {
        "Births": ["Alice Plantagenet is born."],
        "Deaths": ["Edward Plantagenet dies in 1300, aged 40."],
    }


# --- returns and retirements (A5) -------------------------------------------------------------


@pytest.mark.django_db
def test_a5_a_husband_who_joined_his_wifes_house_returns_to_his_own_when_she_dies(campaign):
    """A5: 'A surviving spouse who came from another dynasty is returned to their original dynasty';
    returns happen at the Announcements."""
    england, france = house(campaign, "England"), house(campaign, "France")
    princess = person(campaign, england, "Maud", "F", 1278)
    husband = person(campaign, france, "Louis", "M", 1276)
    husband.controlled_by = england
    husband.save()
    match = wed(campaign, husband, princess, 1296)
    Marriage.objects.filter(pk=match.pk).update(husband_joins_wife=True)
    through_survival(campaign, {princess.pk})
    husband.refresh_from_db()
    assert husband.controlled_by == england  # not before the Announcements
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcement = announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    husband.refresh_from_db()
    assert husband.controlled_by == france and husband.status == Status.ALIVE
    assert announcement.data["sections"]["Returns and retirements"] == ["Louis Anjou, widowed, returns to the house of Anjou."]
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="return")
    assert entry.data == {"character": husband.pk, "dynasty": france.pk}


@pytest.mark.django_db
def test_a7_when_a_married_queen_regnant_dies_her_consort_returns_and_the_children_stay(campaign):
    """A7: 'If a married Queen dies, her Consort returns to his original dynasty; the children stay.'"""
    france = house(campaign, "France")
    testhouse = empty_house(campaign)
    queen = person(campaign, testhouse, "Regina", "F", 1262)
    consort = person(campaign, france, "Louis", "M", 1260)
    consort.controlled_by = testhouse
    consort.save()
    wed(campaign, consort, queen, 1280)
    crown(campaign, queen, "Testland", 1285)
    daughter = person(campaign, testhouse, "Alice", "F", 1282, father=consort, mother=queen, dynastic_name="Testhouse")
    to_announcements(campaign, {queen.pk})
    consort.refresh_from_db()
    daughter.refresh_from_db()
    assert consort.controlled_by == france and consort.status == Status.ALIVE
    assert daughter.controlled_by == testhouse
    assert Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True).holder == daughter


@pytest.mark.django_db
def test_a5_a_widow_wed_again_in_the_same_turn_is_not_returned(campaign):
    """docs/rulings.md (A5): a surviving spouse wed again before the Announcements is not returned."""
    england, france, germany = house(campaign, "England"), house(campaign, "France"), house(campaign, "Germany")
    prince = person(campaign, england, "Edmund", "M", 1276)
    widow = person(campaign, france, "Odette", "F", 1280)
    widow.controlled_by = england
    widow.save()
    wed(campaign, prince, widow, 1298)
    through_survival(campaign, {prince.pk})
    suitor = person(campaign, germany, "Karl", "M", 1277)
    marriage_arrange(campaign=campaign, husband=suitor, wife=widow, wed=True, by=SYSTEM_ACTOR)
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcement = announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    widow.refresh_from_db()
    assert widow.controlled_by == germany and widow.status == Status.ALIVE
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="return").exists()
    assert "Returns and retirements" not in announcement.data["sections"]


@pytest.mark.django_db
def test_a5_a_widow_of_the_same_house_stays_and_a_foreign_one_returns(campaign):
    england, france = house(campaign, "England"), house(campaign, "France")
    one = person(campaign, england, "Edmund", "M", 1276)
    native = person(campaign, england, "Anne", "F", 1280, dynastic_name="Percy")  # of the English court
    two = person(campaign, england, "John", "M", 1277)
    foreign = person(campaign, france, "Odette", "F", 1281)
    foreign.controlled_by = england
    foreign.save()
    wed(campaign, one, native, 1298)
    wed(campaign, two, foreign, 1298)
    announcement = to_announcements(campaign, {one.pk, two.pk})
    native.refresh_from_db()
    foreign.refresh_from_db()
    assert native.controlled_by == england and foreign.controlled_by == france
    assert announcement.data["sections"]["Returns and retirements"] == ["Odette Anjou, widowed, returns to the house of Anjou."]


@pytest.mark.django_db
def test_a5_the_widow_of_a_king_retires(campaign):
    """A5: '... except the widow of a King, who is retired (queen mothers never remarry)'."""
    king = king_of(campaign, "Spain")
    queen = Marriage.objects.get(husband=king).wife
    through_survival(campaign, {king.pk})
    queen.refresh_from_db()
    assert queen.status == Status.ALIVE  # not before the Announcements
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    queen.refresh_from_db()
    assert (queen.status, queen.retired_year) == (Status.RETIRED, 1300)
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="retirement")
    assert entry.text == (
        f"{queen.display_name}, widow of King {king.display_name}, retires from the game (queen mothers never remarry)."
    )


# --- Prince pieces (A2, A7) -------------------------------------------------------------------


@pytest.mark.django_db
def test_a2_a_royal_male_reaching_20_takes_a_prince_piece_at_the_announcements(campaign):
    england = house(campaign, "England")
    twenty = person(campaign, england, "Edmund", "M", 1280)
    nineteen = person(campaign, england, "John", "M", 1281)
    sister = person(campaign, england, "Maud", "F", 1279)
    at_step(campaign, Step.MARRIAGES)
    assert pieces(twenty) == [""]  # nothing before the Announcements
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcement = announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    assert pieces(twenty, nineteen, sister) == ["1", "", ""]
    assert king_of(campaign, "England").prince_piece == "K"  # the King keeps his piece
    entry = ChronicleEntry.objects.get(campaign=campaign, kind="piece")
    assert entry.text == "Edmund Plantagenet takes Prince piece 1."
    assert (entry.data, entry.step) == ({"character": twenty.pk}, Step.ANNOUNCEMENTS)
    assert announcement.data["sections"] == {"Prince pieces": ["Edmund Plantagenet takes Prince piece 1."]}
    # the next turn John is 24 and takes piece 2; Edmund keeps his and is not announced again
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    to_announcements(campaign)
    assert pieces(twenty, nineteen) == ["1", "2"]
    assert list(ChronicleEntry.objects.filter(campaign=campaign, kind="piece", year=1305).values_list("text", flat=True)) == [
        "John Plantagenet takes Prince piece 2."
    ]


@pytest.mark.django_db
def test_a2_at_most_five_prince_pieces_and_the_oldest_waiting_prince_takes_a_freed_one(campaign):
    """A2: 'max 5 on the board per country; extra princes wait in the capital; when a piece is freed
    the oldest unplaced prince takes it'."""
    england = house(campaign, "England")
    princes = [person(campaign, england, f"Prince{n}", "M", 1270 + n) for n in range(7)]  # 30 down to 24
    at_step(campaign, Step.ANNOUNCEMENTS)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    assert pieces(*princes) == ["1", "2", "3", "4", "5", "", ""]
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="piece", year=1300).count() == 5
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    announcement = to_announcements(campaign, {princes[2].pk})  # the holder of piece 3 dies
    assert pieces(*princes) == ["1", "2", "", "4", "5", "3", ""]
    assert announcement.data["sections"]["Prince pieces"] == ["Prince5 Plantagenet takes Prince piece 3."]


@pytest.mark.django_db
def test_a7_a_new_king_of_15_or_more_takes_the_king_piece(campaign):
    """A7: 'A Prince who becomes King swaps to the K piece'; his numbered piece is freed."""
    testhouse = empty_house(campaign)
    old = person(campaign, testhouse, "Old", "M", 1250)
    old.prince_piece = "K"
    old.save()
    crown(campaign, old, "Testland", 1280)
    son = person(campaign, testhouse, "Son", "M", 1275, father=old)
    son.prince_piece = "1"
    son.save()
    younger = person(campaign, testhouse, "Younger", "M", 1278, father=old)
    announcement = to_announcements(campaign, {old.pk})
    assert pieces(old, son, younger) == ["", "K", "1"]
    assert announcement.data["sections"]["Prince pieces"] == [
        "Son Testhouse takes the King piece.",
        "Younger Testhouse takes Prince piece 1.",
    ]


@pytest.mark.django_db
def test_a7_a_minor_king_takes_no_piece(campaign):
    """docs/rulings.md (A2): nobody holds K during a regency."""
    king = king_of(campaign, "England")
    announcement = to_announcements(campaign, {king.pk}, source=FixedSource([(3, 3, 3)] * 3))
    heir = king_of(campaign, "England")
    assert heir.birth_year == 1295 and heir.prince_piece == ""
    assert pieces(king) == [""]
    england = house(campaign, "England")
    assert not Character.objects.filter(campaign=campaign, controlled_by=england).exclude(prince_piece="").exists()
    assert "Prince pieces" not in announcement.data["sections"]


# --- the next turn ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a1_turn_advance_moves_five_years_on_to_the_births(campaign):
    """A1: a turn is 5 years; each turn begins with the Births step."""
    at_step(campaign, Step.ANNOUNCEMENTS)
    with pytest.raises(
        StepOrderError,
        match=re.escape(
            "The Interphase and movement (sequence done) step is not open yet: 1300 is at Announcements; "
            "finish Announcements first."
        ),
    ):
        turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    assert (campaign.current_year, campaign.step) == (1300, Step.ANNOUNCEMENTS)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    advanced = turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    assert (advanced.current_year, advanced.step, advanced.turn_number) == (1305, Step.BIRTHS, 2)
    campaign.refresh_from_db()
    assert (campaign.current_year, campaign.step) == (1305, Step.BIRTHS)
    with pytest.raises(StepOrderError, match="not open yet: 1305 is at Births"):
        turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    with pytest.raises(StepOrderError, match="The Announcements step is not open yet: 1305 is at Births"):
        announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
