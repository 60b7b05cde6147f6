"""The succession view (RULES.md A7, A9): the line with reasons, ages, regencies and what passing an heir
over would cost, a what-if that writes nothing, titles, the admin table, and flat query counts."""

from __future__ import annotations

import html

import pytest
from django.contrib import admin
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Campaign, ChronicleEntry, Roll
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Dynasty, Marriage, Modifier, Reign, Renunciation, Status, Title, TitleHolding
from dynasties.play.blood_royale.succession import CHARISMA_ODDS
from dynasties.services import campaign_create
from dynasties.services.common import World
from dynasties.services.succession_view import succession_line, succession_what_if, title_succession_line
from operations.simulation import simulate
from rules.dice import RandomSource
from rules.errors import NotFound, RuleError
from tests.factories import crown, empty_house, person, wed

KING = "the King's"


def _dead(c: Character, year: int) -> Character:
    c.status, c.death_year = Status.DEAD, year
    c.save()
    return c


@pytest.fixture
def house(campaign):
    """Testland in 1300. Old Grandpa (King 1260-1280, died 1280) left King Old (60) and a younger son,
    Brother. King Old and Queen Ma: First (dead 1295; his son Grandson is 10), Daughter (married to the
    French Louis and controlled by France), Second, Third."""
    h = empty_house(campaign)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    grandpa = person(campaign, h, "Grandpa", "M", 1210)
    king = person(campaign, h, "Old", "M", 1240, father=grandpa)
    brother = person(campaign, h, "Brother", "M", 1245, father=grandpa)
    queen = person(campaign, h, "Ma", "F", 1245, dynastic_name="Else")
    wed(campaign, king, queen, 1260)
    kids = {"queen": queen}
    for name, sex, born in (("First", "M", 1262), ("Daughter", "F", 1263), ("Second", "M", 1265), ("Third", "M", 1268)):
        kids[name.lower()] = person(campaign, h, name, sex, born, father=king, mother=queen)
    grandson = person(campaign, h, "Grandson", "M", 1290, father=kids["first"])
    louis = person(campaign, france, "Lewis", "M", 1260)
    wed(campaign, louis, kids["daughter"], 1285)
    Character.objects.filter(pk=kids["daughter"].pk).update(controlled_by=france)
    crown(campaign, grandpa, "Testland", 1260)
    crown(campaign, king, "Testland", 1280)
    _dead(grandpa, 1280)
    _dead(kids["first"], 1295)
    return {
        "house": h,
        "france": france,
        "louis": louis,
        "grandpa": grandpa,
        "king": king,
        "brother": brother,
        "grandson": grandson,
        **kids,
    }


def names(line) -> list[str]:
    return [e.character.given_name for e in line.entries]


# --- the line and its reasons --------------------------------------------------------------------


@pytest.mark.django_db
def test_a7_the_line_with_reasons_ages_and_minors(campaign, house):
    line = succession_line(campaign=campaign, crown="Testland")
    assert line.monarch == house["king"] and line.year == 1300 and line.total == 5
    assert names(line) == ["Grandson", "Second", "Third", "Daughter", "Brother"]
    assert [e.reason for e in line.entries] == [
        f"grandson: eldest son of First Testhouse (deceased), {KING} eldest son",
        "second son",
        "third son",
        "eldest daughter",
        f"younger brother: second son of Grandpa Testhouse (deceased), {KING} father (after {KING[:-2]}'s own line)",
    ]
    grandson = line.entries[0]
    assert (grandson.position, grandson.age, grandson.minor, grandson.kin) == (1, 10, True, "grandson")
    assert [e.minor for e in line.entries[1:]] == [False] * 4
    assert line.heir is grandson
    assert [e.position for e in succession_line(campaign=campaign, crown="Testland", limit=2).entries] == [1, 2]


@pytest.mark.django_db
def test_a7_renounced_and_bastard_lines_are_left_out(campaign, house):
    Renunciation.objects.create(campaign=campaign, character=house["second"], crown="Testland", year=1290)
    Character.objects.filter(pk=house["third"].pk).update(legitimate=False)
    line = succession_line(campaign=campaign, crown="Testland")
    assert names(line) == ["Grandson", "Daughter", "Brother"]
    # the renunciation came in 1290: in 1289 Second was still in the line
    assert "Second" in names(succession_line(campaign=campaign, crown="Testland", year=1289))


@pytest.mark.django_db
def test_the_line_as_it_stood_in_a_past_year(campaign, house):
    then = succession_line(campaign=campaign, crown="Testland", year=1292)  # First still alive
    assert then.monarch == house["king"]
    assert names(then)[:2] == ["First", "Grandson"]
    assert then.entries[1].reason == f"grandson: eldest son of First Testhouse, {KING} eldest son"
    assert then.entries[1].age == 2
    assert any("as it stood in 1292" in n for n in then.notes)
    earlier = succession_line(campaign=campaign, crown="Testland", year=1270)  # Grandpa reigned
    assert earlier.monarch == house["grandpa"]
    assert names(earlier) == ["Old", "First", "Second", "Third", "Daughter", "Brother"]  # no Grandson yet
    assert [e.reason for e in earlier.entries[:2]] == ["eldest son", f"grandson: eldest son of Old Testhouse, {KING} eldest son"]
    assert earlier.entries[1].age == 8 and earlier.entries[1].minor
    with pytest.raises(NotFound, match="Nobody reigned over Testland in 1250"):
        succession_line(campaign=campaign, crown="Testland", year=1250)
    with pytest.raises(NotFound, match="never had a monarch"):
        succession_line(campaign=campaign, crown="Atlantis")


# --- passing over ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a7_who_may_be_passed_over_and_at_what_cost(campaign, house):
    Character.objects.filter(pk=house["second"].pk).update(prisoner_of=house["france"])
    line = succession_line(campaign=campaign, crown="Testland")
    assert not line.rule_c and line.player == house["house"]
    by_name = {e.character.given_name: e.pass_over for e in line.entries}

    ordinary = by_name["Grandson"]
    assert not ordinary.allowed and ordinary.cost is None and ordinary.costs == ()
    assert "optional rule C is not in force" in ordinary.text
    assert ordinary.summary.startswith("No: ")
    assert not by_name["Third"].allowed

    prisoner = by_name["Second"]  # a male prisoner of another player: passable, with the Charisma roll
    assert prisoner.allowed and prisoner.text == "a prisoner of another player"
    assert prisoner.cost.charisma_roll and not prisoner.cost.exile_left
    assert prisoner.usurper == house["house"] and prisoner.rival == house["france"]  # his captor holds him
    assert prisoner.costs == (
        "-1 Strength for every man of the house of Testhouse while Second Testhouse's claim lives "
        "(it passes to the heirs of the body; a renunciation ends it)",
        f"+1 Strength for the house of {house['france'].name} when fighting the house of Testhouse, as long as the claim lives",
        f"the new monarch rolls 1d6 for Charisma: {CHARISMA_ODDS} (it may fall below -2; not inherited)",
        "Second Testhouse's descendants are passed over with him: they carry the same claim",
    )
    assert CHARISMA_ODDS == "1-3 (3 in 6): -1 Charisma; 4-6 (3 in 6): -2 Charisma"

    wife = by_name["Daughter"]  # a woman controlled by another player through marriage
    assert wife.allowed and wife.text == "a woman controlled by another player through marriage"
    assert not wife.cost.charisma_roll and wife.rival == house["france"]
    france = house["france"].name
    assert wife.costs[1] == (
        f"+1 Strength for the house of {france} when fighting the house of Testhouse, as long as the claim lives"
    )
    assert wife.costs[2] == "Daughter Testhouse's descendants are passed over with her: they carry the same claim"
    assert len(wife.costs) == 3


@pytest.mark.django_db
def test_optional_rule_c_lets_any_heir_be_passed_over_into_exile(campaign, house):
    campaign.optional_rules = {**campaign.optional_rules, "disputed_succession": True}
    campaign.save()
    line = succession_line(campaign=campaign, crown="Testland")
    assert line.rule_c
    grandson = line.entries[0].pass_over
    left = World(campaign).seat_left(house["house"])
    assert left is not None
    assert grandson.allowed and grandson.text == "under optional rule C"
    assert grandson.cost.charisma_roll and grandson.cost.exile_left and grandson.exile_to == left
    assert grandson.rival == left  # exiled first, so the house on the left holds the claim
    exile = f"Grandson Testhouse, with spouse and children, goes into exile with the house of {left.name} (rule C)"
    assert exile in grandson.costs
    daughter = line.entries[3].pass_over  # the basic rules already allow it: no exile, no roll
    assert daughter.allowed and not daughter.cost.exile_left and not daughter.cost.charisma_roll


# --- what if ---------------------------------------------------------------------------------------


def _snapshot(campaign: Campaign) -> tuple:
    return (
        list(
            Character.objects.filter(campaign=campaign)
            .order_by("pk")
            .values_list("pk", "status", "death_year", "controlled_by", "prisoner_of", "characteristics", "retired_year")
        ),
        list(Reign.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "holder", "end_year", "regent")),
        list(Marriage.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "ended_year")),
        Modifier.objects.count(),
        ChronicleEntry.objects.count(),
        Roll.objects.count(),
    )


@pytest.mark.django_db
def test_what_if_the_king_dies_writes_nothing_and_names_successor_and_regent(campaign, house):
    before = _snapshot(campaign)
    with CaptureQueriesContext(connection) as ctx:
        line = succession_what_if(campaign=campaign, crown="Testland", dies=[house["king"].pk])
    assert ctx.captured_queries
    assert all(q["sql"].lstrip().upper().startswith("SELECT") for q in ctx.captured_queries), ctx.captured_queries
    assert _snapshot(campaign) == before
    house["king"].refresh_from_db()
    assert house["king"].status == Status.ALIVE
    assert line.monarch_dies and line.dead == (house["king"].pk,)
    assert line.successor.character == house["grandson"] and line.successor.minor
    assert line.entries[0].reason == "grandson: eldest son of First Testhouse (deceased), the late King's eldest son"
    assert line.regent == house["second"]  # the first adult in the new King's line
    assert "Grandson Testhouse would succeed Old Testhouse as King of Testland, aged 10." in line.notes
    assert any("Second Testhouse, the first adult in the line, would be regent" in n for n in line.notes)


@pytest.mark.django_db
def test_what_if_an_heir_dies_the_line_closes_up(campaign, house):
    line = succession_what_if(campaign=campaign, crown="Testland", dies=[house["grandson"].pk, house["third"].pk])
    assert not line.monarch_dies and line.successor is None
    assert names(line) == ["Second", "Daughter", "Brother"]
    assert line.monarch == house["king"] and line.total == 3


@pytest.mark.django_db
def test_what_if_a_widow_of_the_dead_is_no_longer_married_away(campaign, house):
    line = succession_what_if(campaign=campaign, crown="Testland", dies=[house["louis"].pk])
    daughter = next(e for e in line.entries if e.character.given_name == "Daughter")
    assert not daughter.pass_over.allowed  # her marriage ends with Louis: as the succession would see it


@pytest.mark.django_db
def test_what_if_nobody_of_the_blood_is_left_a_relative_is_created(campaign, house):
    everyone = [house[k].pk for k in ("king", "grandson", "second", "third", "daughter", "brother")]
    before = _snapshot(campaign)
    line = succession_what_if(campaign=campaign, crown="Testland", dies=everyone)
    assert _snapshot(campaign) == before
    assert line.entries == () and line.successor is None and line.total == 0
    assert line.relative.relative_birth_year == 1245  # 5 years younger than the late King of 60
    assert line.relative.children_birth_years == (1270, 1275, 1280, 1285, 1290, 1295, 1300)
    assert any("a relative of the late King would be created, aged 55 (born 1245)" in n for n in line.notes)


@pytest.mark.django_db
def test_what_if_a_minor_heir_and_nobody_fit_to_be_regent(campaign, house):
    for key in ("second", "third", "brother"):
        house[key].prisoner_of = house["france"]
        house[key].save()
    line = succession_what_if(campaign=campaign, crown="Testland", dies=[house["king"].pk])
    assert line.successor.character == house["grandson"]
    # the widow never acts; Daughter is controlled by France; the rest are prisoners: a baron is created
    assert line.regent is None
    assert any("a baron and cousin of the late King, aged 55, would be created" in n for n in line.notes)


@pytest.mark.django_db
def test_what_if_refuses_unknown_and_dead_characters(campaign, house):
    with pytest.raises(NotFound):
        succession_what_if(campaign=campaign, crown="Testland", dies=[10**9])
    with pytest.raises(RuleError, match="First Testhouse is already dead"):
        succession_what_if(campaign=campaign, crown="Testland", dies=[house["first"].pk])


# --- titles ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a9_a_title_passes_like_the_crown(campaign, house):
    title = Title.objects.create(
        campaign=campaign,
        name="Duke of Kent",
        province="Kent",
        crown="Testland",
        holder=house["third"],
        granted_year=1295,
        granted_to=house["third"],
    )
    TitleHolding.objects.create(title=title, holder=house["third"], start_year=1295, how="granted")
    line = title_succession_line(campaign=campaign, title="Duke of Kent")
    assert line.title == "Duke of Kent" and line.crown == "Testland" and line.monarch == house["third"]
    assert names(line) == ["Old", "Grandson", "Second", "Daughter", "Brother"]
    assert line.entries[0].reason == "father (the Duke of Kent's own line is extinct)"
    assert line.entries[1].reason == (
        "nephew: eldest son of First Testhouse (deceased), eldest son of Old Testhouse, the Duke of Kent's father "
        "(the Duke of Kent's own line is extinct)"
    )
    assert all(e.pass_over is None for e in line.entries)
    Renunciation.objects.create(campaign=campaign, character=house["second"], crown="Duke of Kent", year=1299)
    assert "Second" not in names(title_succession_line(campaign=campaign, title="Duke of Kent"))
    with pytest.raises(NotFound, match="no holder in 1290"):
        title_succession_line(campaign=campaign, title="Duke of Kent", year=1290)
    with pytest.raises(NotFound):
        title_succession_line(campaign=campaign, title="Earl of Nowhere")


# --- the admin -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_reign_and_dynasty_pages_show_the_line(admin_client, campaign, house):
    reign = Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True)
    page = html.unescape(admin_client.get(reverse("admin:dynasties_reign_change", args=[reign.pk])).content.decode())
    assert "Line of succession" in page
    link = reverse("admin:dynasties_character_change", args=[house["grandson"].pk])
    assert f'<a href="{link}">Grandson Testhouse</a>' in page
    assert f"grandson: eldest son of First Testhouse (deceased), {KING} eldest son" in page
    assert "10 (a minor: a regent would rule)" in page
    assert "No (a)" in page  # the refusal's rule is given once, below the table
    assert page.count("The rightful heir may be passed over only if") == 1
    assert "(a) The rightful heir may be passed over only if" in page
    assert "Yes (a woman controlled by another player through marriage)" in page
    past = Reign.objects.get(campaign=campaign, crown="Testland", holder=house["grandpa"])
    page = html.unescape(admin_client.get(reverse("admin:dynasties_reign_change", args=[past.pk])).content.decode())
    assert "The line as it stood in 1279" in page and "Old Testhouse" in page
    page = html.unescape(admin_client.get(reverse("admin:dynasties_dynasty_change", args=[house["house"].pk])).content.decode())
    assert "Line of succession" in page and f'<a href="{link}">Grandson Testhouse</a>' in page


# --- queries -----------------------------------------------------------------------------------------


GROWN_TURNS = 16


def _count(fn) -> int:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    assert all(q["sql"].lstrip().upper().startswith("SELECT") for q in ctx.captured_queries)
    return len(ctx.captured_queries)


def _counts(c: Campaign) -> dict[str, int]:
    monarch = Reign.objects.get(campaign=c, crown="England", end_year__isnull=True).holder_id
    alive = list(Character.objects.filter(campaign=c, status=Status.ALIVE).exclude(pk=monarch).values_list("pk", flat=True))
    return {
        "line": _count(lambda: succession_line(campaign=c, crown="England")),
        "line_year": _count(lambda: succession_line(campaign=c, crown="England", year=c.current_year)),
        "all": _count(lambda: succession_line(campaign=c, crown="England", limit=None)),
        "king_dies": _count(lambda: succession_what_if(campaign=c, crown="England", dies=[monarch])),
        "many_die": _count(lambda: succession_what_if(campaign=c, crown="England", dies=alive[:5])),
    }


@pytest.mark.long
@pytest.mark.django_db
def test_queries_do_not_grow_with_the_campaign(admin_client):
    small = campaign_create(name="Small", players=5, source=RandomSource(4))
    grown = simulate(
        campaign_create(name="Grown", players=5, source=RandomSource(4)),
        turns=GROWN_TURNS,
        source=RandomSource(4),
        by=SYSTEM_ACTOR,
    )
    assert Character.objects.filter(campaign=grown).count() > 4 * Character.objects.filter(campaign=small).count()
    assert _counts(small) == _counts(grown)
    fields = []
    for c in (small, grown):
        reign = Reign.objects.get(campaign=c, crown="England", end_year__isnull=True)
        dynasty = Dynasty.objects.get(campaign=c, crown="England")
        reign_admin, dynasty_admin = admin.site._registry[Reign], admin.site._registry[Dynasty]
        fields.append(
            (
                _count(lambda: reign_admin.line_of_succession(reign)),  # noqa: B023
                _count(lambda: dynasty_admin.line_of_succession(dynasty)),  # noqa: B023
            )
        )
        assert admin_client.get(reverse("admin:dynasties_reign_change", args=[reign.pk])).status_code == 200
    assert fields[0] == fields[1]
