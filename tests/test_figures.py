"""Issue 31, "Effective figures where players look": a leader's figure in battle and every lasting
modifier on him, on the character page and his printed sheet (dynasties.figures; the arithmetic is
rules.combat's, tested in tests/rules/test_combat.py). The API's detail: tests/api/test_character_figures.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import load_tables
from dynasties import printing
from dynasties.figures import figures, figures_of
from dynasties.models import Character, Dynasty, Modifier, ModifierKind, PassOverKind, Reign, Title
from dynasties.services import campaign_create, survival_finish, survival_roll
from dynasties.services.bloodline_titles import bloodline_title_grant
from dynasties.services.common import World
from dynasties.services.events import character_capture
from dynasties.services.survival import survival_due
from dynasties.services.titles import title_grant
from rules.dice import RandomSource
from tests.factories import at_step, person, wed
from tests.test_printables import PDFTOTEXT, pages, pdf_png


def house(campaign, crown_name):
    return Dynasty.objects.get(campaign=campaign, crown=crown_name)


def king_of(campaign, crown_name):
    return Reign.objects.get(campaign=campaign, crown=crown_name, end_year__isnull=True).holder


def queen_of(king):
    return king.marriages_as_husband.get().wife


def page(client, user, campaign, character) -> str:
    client.force_login(user)
    response = client.get(reverse("pages:character", args=[campaign.slug, character.pk]))
    assert response.status_code == 200
    return response.content.decode()


def sheet_text(pdf: bytes, tmp_path: Path) -> str:
    """The sheet's words in the order they are drawn (``pdftotext`` without ``-layout``: the modifiers
    printed beside the year track stay whole), white space made single."""
    src = tmp_path / "sheet.pdf"
    src.write_bytes(pdf)
    out = subprocess.run([PDFTOTEXT, str(src), "-"], check=True, capture_output=True, text=True).stdout
    return re.sub(r"\s+", " ", out)


def battle_block(html: str) -> str:
    """The text of the page's "In battle" and "Lasting modifiers" blocks, tags stripped."""
    start = html.index('id="in-battle"')
    end = html.index("</ul>", html.index('id="modifiers"'))
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html[start:end])))


# --- a King whose wife has Guile 4: +2, held -------------------------------------------------------


@pytest.mark.django_db
def test_a_kings_page_shows_his_strength_with_his_wifes_guile_held(campaign, client, alice, bob):
    """A2: "if a wife's score would modify the husband's score outside of this range, the excess is ignored"."""
    king = king_of(campaign, "England")
    queen = queen_of(king)
    queen.characteristics = {**queen.characteristics, "guile": 4}
    queen.save()
    for user in (alice, bob):  # the family record is every member's: another house's player sees it too
        text = battle_block(page(client, user, campaign, king))
        assert "In battle Strength +2 as King of England (the King piece)" in text
        assert "= his own Strength 0, his wife Mary Tudor's Guile +2" in text
        assert "(+4 given; only +2 counts: the excess over ±2 is ignored)" in text
        assert "Birth (6): \"His wife's rating is added to (or subtracted from) his" in text
        assert "Lasting modifiers None." in text
    # the Queen has no figure of her own: her Guile counts for him
    text = battle_block(page(client, alice, campaign, queen))
    assert "Women lead no army in Blood Royale" in text
    assert "Her Guile +4 is added to her husband Edward Plantagenet's Strength, held to -2..+2." in text


# --- a usurper, and the rival house against him (real services) --------------------------------------


@pytest.fixture
def usurped(campaign):
    """England passes over its heir, a prisoner of France (A7): the new King Second and his men fight at
    -1 while the captive's claim lives, France at +1 against England; Second's Charisma drops (1d6: 5 = -2)."""
    at_step(campaign, Step.SURVIVAL)
    england, france = house(campaign, "England"), house(campaign, "France")
    king = king_of(campaign, "England")
    captive = person(campaign, england, "Captive", "M", 1278, father=king, piece="2")  # on the map: he may be taken
    second = person(campaign, england, "Second", "M", 1279, father=king, strength=1)
    character_capture(campaign=campaign, character=captive, captor=france, reason="taken at Crecy", by=SYSTEM_ACTOR)
    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign))]
    survival_roll(campaign=campaign, faces={pk: [1, 1] if pk == king.pk else [6, 6] for pk in due}, by=SYSTEM_ACTOR)
    survival_finish(campaign=campaign, pass_over={"England": [captive.pk]}, entered=[[5]], by=SYSTEM_ACTOR)
    assert king_of(campaign, "England") == second
    return captive, second


@pytest.mark.django_db
def test_the_usurpers_page_shows_the_minus_1_and_the_rivals_the_plus_1_against_him(campaign, usurped, client, alice):
    captive, second = usurped
    text = battle_block(page(client, alice, campaign, second))
    # a reigning King of 15 or more leads: the King piece comes at the Announcements
    assert "Strength 0 as King of England (the King piece from the Announcements)" in text
    assert "= his own Strength +1, his house usurps a crown -1" in text
    assert "Captive Plantagenet passed over for the crown of England (a prisoner of another player)" in text
    assert "which can reduce a character's Strength below -2" in text
    # his lasting modifiers: the house's -1 and his own Charisma loss, with why and until when
    assert "-1 Strength for the men of the house of Plantagenet" in text
    assert "while Captive Plantagenet's claim lives: Captive Plantagenet or an heir of that line alive" in text
    assert "-2 Charisma for him" in text and "for life; his heirs do not inherit it" in text
    # France holds the rightful heir: +1 against England only
    text = battle_block(page(client, alice, campaign, king_of(campaign, "France")))
    assert "Strength 0 as King of France" in text
    assert "Against the house of Plantagenet: Strength +1" in text
    assert "+1 Strength against the house of Plantagenet for the men of the house of Anjou" in text
    # the captive leads nothing while held
    text = battle_block(page(client, alice, campaign, captive))
    assert "A prisoner of the house of Anjou: leads no army while held." in text


@pytest.mark.django_db
def test_an_ended_claim_shows_as_ended_and_no_longer_counts(campaign, usurped, client, alice):
    from dynasties.services.claims import claim_renounce

    captive, second = usurped
    claim_renounce(campaign=campaign, character=captive, crown="England", source="treaty of Calais", by=SYSTEM_ACTOR)
    found = figures_of(campaign, second)
    assert found.combat.figure.total == 1  # his own +1 again
    ended = [m for m in found.modifiers if not m.active]
    assert [m.kind for m in ended] == [ModifierKind.USURPER_STRENGTH]
    assert ended[0].until.startswith("ended 1300: Captive Plantagenet renounced the claim to England")
    text = battle_block(page(client, alice, campaign, second))
    assert "Strength +1 as King of England" in text and "(ended)" in text


# --- a Governor (optional rule G, the real service) ---------------------------------------------------


@pytest.fixture
def governor(campaign):
    campaign.optional_rules = {**campaign.optional_rules, "governing_provinces": True}
    campaign.save()
    england = house(campaign, "England")
    king = king_of(campaign, "England")
    prince = person(campaign, england, "Lionel", "M", 1278, father=king, strength=2)
    prince.prince_piece = "1"
    prince.save()
    wife = person(campaign, england, "Elizabeth", "F", 1280, dynastic_name="de Burgh", guile=1)
    wed(campaign, prince, wife, 1298)
    title_grant(campaign=campaign, character=prince, province="Clarence", by=SYSTEM_ACTOR)
    prince.refresh_from_db()
    assert prince.characteristics["strength"] == 3  # rule G writes the +1 on his sheet
    return prince


@pytest.mark.django_db
def test_a_governors_page_shows_the_plus_1_above_plus_2(campaign, governor, client, alice):
    """Rule G: "This may take the characteristic above +2"; his wife's +1 would take him further: ignored."""
    text = battle_block(page(client, alice, campaign, governor))
    assert "Strength +3 as Prince (piece 1)" in text
    assert "= his own Strength +2, a Governor's bonus +1, his wife Elizabeth de Burgh's Guile 0" in text
    assert "Lionel Plantagenet, Duke of Clarence" in text  # why the +1
    assert "(+1 given; only 0 counts: the excess over ±2 is ignored)" in text
    assert "+1 Strength for him" in text and "for life (a Governor takes it once)" in text


@pytest.fixture
def lionel(campaign, usurped):
    """The late King's third son, made Duke of Clarence (rule G), wed to a +1 Guile bride; his house holds a
    claim against the Hapsburgs (+1 against them)."""
    captive, _second = usurped
    campaign.optional_rules = {**campaign.optional_rules, "governing_provinces": True}
    campaign.save()
    england, germany = (Dynasty.objects.get(campaign=campaign, crown=c) for c in ("England", "Germany"))
    lionel = person(campaign, england, "Lionel", "M", 1280, father=captive.father, order=2, strength=1)
    lionel.prince_piece = "2"
    lionel.save()
    bride = person(campaign, england, "Elizabeth", "F", 1282, dynastic_name="de Burgh", guile=1)
    wed(campaign, lionel, bride, 1299)
    title_grant(campaign=campaign, character=lionel, province="Clarence", by=SYSTEM_ACTOR)
    heiress = person(campaign, germany, "Adelheid", "F", 1283, dynastic_name="Hapsburg")
    Modifier.objects.create(
        campaign=campaign,
        kind=ModifierKind.RIVAL_STRENGTH,
        value=1,
        crown="Germany",
        dynasty=england,
        against=germany,
        claimant=heiress,
        reason="Adelheid Hapsburg passed over for the crown of Germany (a prisoner of another player)",
        start_year=1300,
    )
    return Character.objects.get(pk=lionel.pk)


# --- BloodLine: a royal leader with a title, under a malus -------------------------------------------


@pytest.fixture
def europa(db, gm):
    return campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4), by=gm)


@pytest.mark.django_db
def test_a_bloodline_leaders_page_shows_the_malus_and_his_title_lands(europa, client, gm):
    england = house(europa, "England")
    heir = Character.objects.get(campaign=europa, given_name="John", controlled_by=england)
    bloodline_title_grant(
        campaign=europa,
        giver=england,
        character=heir,
        name="Duke of York",
        provinces=[{"name": "York", "value": 3}, {"name": "Lancaster", "value": 2}],
        by=SYSTEM_ACTOR,
    )
    claimant = Character.objects.get(campaign=europa, given_name="Elizabeth", controlled_by=england)
    Modifier.objects.create(
        campaign=europa,
        kind=ModifierKind.COMBAT_MALUS,
        value=-1,
        crown="England",
        dynasty=england,
        claimant=claimant,
        pass_over=PassOverKind.MARRIED_AWAY,
        reason="Elizabeth Plantagenet passed over for England (married away)",
        start_year=europa.current_year,
    )
    text = battle_block(page(client, gm, europa, heir))
    assert "Battle rolls -1 as royal leader no. 1 of England" in text
    assert "= his country's malus -1" in text
    assert "Within his title lands of Duke of York (York, Lancaster): battle rolls 0" in text
    assert "anywhere within his title lands" in text
    assert "-1 on battle rolls for the forces of England" in text
    # the monarch is no royal leader in BloodLine; a child of 10 is none yet
    assert "The monarch is no royal leader" in battle_block(page(client, gm, europa, king_of(europa, "England")))
    child = Character.objects.get(campaign=europa, given_name="Elizabeth", controlled_by=england)
    assert "Royal leaders are the heirs of 15 or more" in battle_block(page(client, gm, europa, child))


# --- who leads -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_only_the_king_and_princes_with_pieces_have_a_figure(campaign):
    england = house(campaign, "England")
    king = king_of(campaign, "England")
    boy = person(campaign, england, "Boy", "M", 1288, father=king)  # 12
    waiting = person(campaign, england, "Waiting", "M", 1275, father=king)  # 25, no piece handed out yet
    prince = person(campaign, england, "Prince", "M", 1276, father=king, strength=-2)
    prince.prince_piece = "3"
    prince.save()
    found = figures(campaign, [king, boy, waiting, prince])
    assert found[king.pk].combat.leads and found[prince.pk].combat.leads
    assert found[prince.pk].combat.headline == "Strength -2" and found[prince.pk].combat.role == "Prince (piece 3)"
    assert not found[boy.pk].combat.leads and "takes a piece at 20" in found[boy.pk].combat.note
    assert not found[waiting.pk].combat.leads and "holds no Prince piece" in found[waiting.pk].combat.note


@pytest.mark.django_db
def test_a_boy_king_under_a_regent_leads_no_army_and_a_new_king_leads_before_his_piece(campaign):
    """A2 (docs/rulings.md, Prince pieces): 'K' for a reigning King of 15 or more; nobody holds it during
    a regency. A King of 15 or more who has just succeeded leads before the Announcements hand it to him."""
    from tests.factories import crown

    england = house(campaign, "England")
    old = king_of(campaign, "England")
    boy = person(campaign, england, "Boy", "M", 1290, father=old)
    reign = crown(campaign, boy, "England", 1300)
    reign.regent = old
    reign.save()
    found = figures_of(campaign, boy).combat
    assert not found.leads and found.note.startswith("A King under 15 leads no army")
    youth = person(campaign, england, "Youth", "M", 1284, father=old)
    crown(campaign, youth, "England", 1300)
    found = figures_of(campaign, youth).combat
    assert found.leads and found.role == "King of England (the King piece from the Announcements)"


@pytest.mark.django_db
def test_a_ruleset_without_a_figure_says_so(db):
    c = campaign_create(name="Monarchs", ruleset="eu-monarchs", players=3, source=RandomSource(2))
    someone = person(c, Dynasty.objects.filter(campaign=c).first(), "Louis", "M", c.current_year - 30)
    found = figures_of(c, someone)
    assert not found.combat.leads and found.combat.note == (
        "No figure in battle is kept for characters under Europa Universalis: monarch tables."
    )


# --- the printed sheet -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sheet_prints_the_figure_and_the_modifiers(campaign, usurped, tmp_path):
    _captive, second = usurped
    second = Character.objects.select_related("campaign", "father", "mother", "controlled_by").get(pk=second.pk)
    text = sheet_text(printing.character_sheet_pdf(second), tmp_path)
    assert "In battle" in text
    assert "Strength 0 as King of England" in text
    assert "his own Strength +1 [Blood Royale, Birth (6)]; his house usurps a crown -1 [Blood Royale, Succession (9)]" in text
    assert "Lasting modifiers" in text and "-1 Strength for the men of the house of Plantagenet" in text
    assert "-2 Charisma for him" in text
    king = king_of(campaign, "France")
    text = sheet_text(printing.character_sheet_pdf(king), tmp_path)
    assert "Against the house of Plantagenet: Strength +1" in text


@pytest.mark.django_db
def test_the_sheet_of_a_king_with_a_plus_4_wife_and_of_a_non_leader(campaign, tmp_path):
    king = king_of(campaign, "England")
    queen = queen_of(king)
    queen.characteristics = {**queen.characteristics, "guile": 4}
    queen.save()
    text = sheet_text(printing.character_sheet_pdf(king), tmp_path)
    assert "Strength +2 as King of England (the King piece)" in text
    assert "his wife Mary Tudor's Guile +2 (+4, held to ±2)" in text
    text = sheet_text(printing.character_sheet_pdf(queen), tmp_path)
    assert "Women lead no army in Blood Royale" in text


# --- bounded queries ---------------------------------------------------------------------------------


def _count(fn) -> int:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_the_character_pages_queries_do_not_grow_with_the_family(campaign, usurped, client, alice):
    _captive, second = usurped
    client.force_login(alice)
    path = reverse("pages:character", args=[campaign.slug, second.pk])
    client.get(path)  # warm the caches a first request fills
    small = _count(lambda: client.get(path))
    england = house(campaign, "England")
    wife = person(campaign, england, "Wife", "F", 1282, dynastic_name="Other", guile=2)
    wed(campaign, second, wife, 1299)
    for n in range(8):
        kid = person(campaign, england, f"Kid{n}", "MF"[n % 2], 1290 + n, father=second, mother=wife)
        if n % 2 == 0:
            kid.prince_piece = str(n // 2 + 1)
            kid.save()
    for n in range(5):
        Modifier.objects.create(
            campaign=campaign,
            kind=ModifierKind.USURPER_STRENGTH,
            value=-1,
            crown="England",
            dynasty=england,
            reason=f"claim {n}",
            start_year=1300,
        )
    Title.objects.create(
        campaign=campaign,
        name="Duke of Kent",
        province="Kent",
        crown="England",
        holder=second,
        granted_year=1300,
        granted_to=second,
    )
    big = _count(lambda: client.get(path))
    assert big == small, f"{small} queries with a small family, {big} with a large one"
    assert figures_of(campaign, second).combat.figure.total == 2 - 6  # his +1 and his wife's +1 (of +2), six claims


@pytest.mark.django_db
def test_figures_of_a_batch_cost_the_same_for_three_or_thirty(campaign):
    england = house(campaign, "England")
    three = list(Character.objects.filter(campaign=campaign, controlled_by=england))
    few = _count(lambda: figures(campaign, three))
    king = king_of(campaign, "England")
    for n in range(27):
        person(campaign, england, f"Kin{n}", "MF"[n % 2], 1270 + n, father=king)
    many = list(Character.objects.filter(campaign=campaign, controlled_by=england))
    assert len(many) == 30
    assert _count(lambda: figures(campaign, many)) == few <= 3


@pytest.mark.django_db
def test_bloodline_figures_cost_a_fixed_number_of_queries(europa):
    people = list(Character.objects.filter(campaign=europa))
    few = _count(lambda: figures(europa, people[:3]))
    assert _count(lambda: figures(europa, people)) == few


@pytest.mark.django_db
def test_a_sheet_with_many_modifiers_stays_on_its_page(campaign, usurped, tmp_path):
    """The sheet prints three modifiers and says how many more; a sheet is never split across pages."""
    _captive, second = usurped
    for n in range(4):
        Modifier.objects.create(
            campaign=campaign,
            kind=ModifierKind.USURPER_STRENGTH,
            value=-1,
            crown="England",
            dynasty=second.controlled_by,
            reason=f"claim {n} of a long line of heirs passed over for the crown of England",
            start_year=1300,
        )
    second = Character.objects.select_related("campaign", "father", "mother", "controlled_by").get(pk=second.pk)
    one = printing.character_sheet_pdf(second)
    text = sheet_text(one, tmp_path)
    assert pages(one) == 1
    assert "his house usurps a crown -5 (5 claims)" in text  # the same term once on paper, with its count
    assert "… and 3 more: the character's page lists them all." in text
    assert pages(printing.sheets_pdf([second] * 3, two_up=True)) == 2


@pytest.mark.django_db
def test_lionels_sheet_as_a_picture(campaign, lionel, tmp_path):
    """Prince Lionel's sheet, turned into a PNG (docs/screenshots/character-sheet-combat.png when
    ``REGNAL_SCREENSHOTS`` is set): his Strength +1 term by term and his three lasting modifiers."""
    pdf = printing.character_sheet_pdf(lionel)
    text = sheet_text(pdf, tmp_path)
    assert "Strength +1 as Prince (piece 2)" in text
    assert "his wife Elizabeth de Burgh's Guile 0 (+1, held to ±2)" in text
    assert "Against the house of Hapsburg: Strength +2 (his house holds the rightful heir +1)" in text
    (png,) = pdf_png(pdf, tmp_path, "lionel", dpi=80)
    folder = os.environ.get("REGNAL_SCREENSHOTS")
    if folder:
        shutil.copy(png, Path(folder) / "character-sheet-combat.png")
