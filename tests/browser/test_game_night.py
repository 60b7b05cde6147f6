"""Game night end to end, in Chromium (issue 7): a GM creates a campaign through the form and plays
one whole Dynastic Sequence through the pages with typed dice - a birth, the King of England's
death and his heir's accession - then publishes the announcements and starts the next turn. And
the GM's Undo on the turn page puts a step back as it was. And the README's screenshots, taken of a
demo-like campaign with a generated prehistory: written to ``docs/screenshots/`` when the
environment names that directory (``REGNAL_SCREENSHOTS=docs/screenshots``), else to a temporary
directory (the test still checks the pages they show).

The dice the test does not type are the server's: ``campaign.dice.RandomSource`` is seeded here
(the live server runs in this process), so every run plays the same game. Screenshots of the
evening go to /tmp/shots/game-night/."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign import dice as server_dice
from campaign.models import Campaign, Membership, Role, Step
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage, Reign, Status
from dynasties.selectors import regnal_labels
from dynasties.services.regnal import crowned_name
from operations.services import campaign_start
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import member_house

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/game-night")
DESKTOP = {"width": 1280, "height": 900}
README_DESKTOP = {"width": 1280, "height": 800}
README_PHONE = {"width": 390, "height": 844}
MAX_README_SHOT = 250_000  # bytes


class SeededSource(RandomSource):
    """The server's dice, made repeatable: every dice box the pages open rolls from the same seed."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1300 if seed is None else seed)


@pytest.fixture
def seeded_dice(monkeypatch):
    monkeypatch.setattr(server_dice, "RandomSource", SeededSource)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def type_dice(card, *faces: int) -> None:
    """Fill a grid row's dice in order, then Enter in the last one: the grid is sent (the rows left
    empty are skipped)."""
    for i, face in enumerate(faces, start=1):
        card.get_by_label(f"Die {i}", exact=True).fill(str(face))
    card.get_by_label(f"Die {len(faces)}", exact=True).press("Enter")


def test_a_gm_creates_a_campaign_and_plays_a_whole_dynastic_sequence(browser: Browser, live_server, gm, alice, bob, seeded_dice):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        # --- the campaign, through the creation form -------------------------------------------
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.get_by_role("link", name="New campaign").click()
        page.get_by_label("Name of the campaign").fill("Game Night")
        page.get_by_label("Blood Royale").check()
        page.get_by_label("Player dynasties").select_option("5")
        page.get_by_label("The standard starting families").check()
        page.get_by_label("England", exact=True).fill("alice")
        page.get_by_label("France", exact=True).fill("bob")
        page.get_by_role("button", name="Create the campaign").click()
        game = Campaign.objects.get()
        expect(page).to_have_url(f"{live_server.url}/c/{game.slug}/")
        expect(page.locator("ul.messages")).to_contain_text("you are its game master")
        players = {m.user.username: member_house(m).crown for m in Membership.objects.filter(campaign=game, role=Role.PLAYER)}
        assert players == {"alice": "England", "bob": "France"}
        assert (game.current_year, game.step) == (1300, Step.BIRTHS)
        england = Dynasty.objects.get(campaign=game, crown="England")
        king = Reign.objects.get(campaign=game, crown="England", end_year__isnull=True).holder
        couple = Marriage.objects.get(campaign=game, husband=king)
        queen = couple.wife

        # --- the turn hub, then Births ---------------------------------------------------------
        page.get_by_role("navigation", name="Campaign").get_by_role("link", name="Turn 1300").click()
        expect(page.locator("li[aria-current=step]")).to_contain_text("Births")
        page.locator("li[aria-current=step]").get_by_role("link", name=re.compile("Births")).click()
        expect(page.get_by_role("heading", name=re.compile("Births"))).to_be_visible()

        card = page.locator(f"#couple-{couple.pk}")
        expect(card).to_contain_text("Odds of a child")
        type_dice(card, 4, 5)  # 9: at least 7 on 2d6, a child
        expect(page.locator("ul.messages")).to_contain_text("attempt 1: 4 + 5 = 9: a child!")
        card = page.locator(f"#couple-{couple.pk}")
        expect(card).to_contain_text("A child is born.")
        expect(card.get_by_label(re.compile("^Name of the"))).to_have_count(0)  # named once its sex is known
        card.get_by_label(re.compile("^Sex die")).fill("2")
        card.get_by_label(re.compile("^Sex die")).press("Enter")
        expect(page.locator("ul.messages")).to_contain_text(re.compile(r"A son: \w+ Plantagenet"))
        card = page.locator(f"#couple-{couple.pk}")
        card.get_by_label("Name of the son born to this couple").fill("Richard")
        card.get_by_label("Name of the son born to this couple").press("Enter")
        expect(page.locator("ul.messages")).to_contain_text("The child is named Richard Plantagenet.")
        child = BirthAttempt.objects.get(marriage=couple).child
        assert child is not None and child.given_name == "Richard" and child.sex == "M"
        expect(page.locator(f"#couple-{couple.pk}")).to_contain_text("Try again?")

        # every other couple: typed dice that give no child (2 on 2d6), all in one submit
        waiting = page.locator("section.couple").filter(has=page.locator("input.die"))
        others = [pk for pk in waiting.evaluate_all("els => els.map(e => e.id)") if pk != f"couple-{couple.pk}"]
        assert others, "the standard set-up has other wed couples"
        for pk in others:
            page.locator(f"#{pk}").get_by_label("Die 1", exact=True).fill("1")
            page.locator(f"#{pk}").get_by_label("Die 2", exact=True).fill("1")
        page.get_by_role("button", name="Enter the dice").click()
        expect(page.locator("ul.messages li").filter(has_text="1 + 1 = 2: no child.")).to_have_count(len(others))
        shot(page, "births-done")
        page.get_by_role("button", name="Finish Births").click()

        # --- Survival: the King of England dies, his heir is crowned ---------------------------
        expect(page).to_have_url(re.compile(rf"/c/{game.slug}/turn/survival/(#.*)?$"))
        expect(page.locator("ul.messages")).to_contain_text("Births of 1300 closed: now Survival.")
        row = page.locator(f"#character-{king.pk}")
        odds = row.locator("td[data-label='Odds of surviving']").inner_text()
        won, of = map(int, re.match(r"(\d+) in (\d+)", odds).groups())
        assert won < of, f"{king.display_name} cannot die this turn ({odds})"
        type_dice(row, 1, 1)
        expect(page.locator("ul.messages")).to_contain_text(f"Died: {king.display_name}")
        expect(page.locator(f"#character-{king.pk}")).to_contain_text("1 + 1 = 2 (typed): died")
        named = regnal_labels(king.campaign, [king])[king.pk]  # with his numeral
        decision = page.locator("#succession .card").filter(has_text=f"England: {named} has died")
        expect(decision).to_be_visible()
        # the line of succession at the death: his son of the set-up first, then the new-born
        line = decision.locator("ol.line-entries > li")
        expect(line).to_have_count(2)
        expect(line.first).to_contain_text("a minor: a regent would rule")
        expect(line.nth(1)).to_contain_text("Richard")
        href = line.first.locator("a").first.get_attribute("href") or ""
        heir = Character.objects.get(pk=int(re.search(r"/character/(\d+)/", href).group(1)))
        assert heir.father_id == king.pk and heir.birth_year < 1300 and heir.controlled_by_id == england.pk
        expect(page.locator(f"#character-{heir.pk}")).to_have_count(0)  # a child makes no survival roll
        page.get_by_role("button", name=re.compile("Roll all remaining")).click()
        expect(page.locator("ul.messages")).to_contain_text("survival roll")
        shot(page, "survival-succession")
        page.get_by_role("button", name=re.compile("^Finish Survival")).click()
        reign = Reign.objects.get(campaign=game, crown="England", end_year__isnull=True)
        late = Reign.objects.get(campaign=game, crown="England", holder=king)
        succeeds = f"{crowned_name(heir, reign)} succeeds {crowned_name(king, late)}"  # with their numerals
        expect(page).to_have_url(re.compile(r"/turn/marriages/(#.*)?$"))  # on to the next step (issue 34)
        expect(page.locator("ul.messages")).to_contain_text(f"New monarchs: {succeeds}")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/survival/")  # the successions stay on Survival
        expect(page.locator("#succession")).to_contain_text("New monarchs")
        expect(page.locator("#succession")).to_contain_text(succeeds)
        expect(page.locator("#succession")).to_contain_text("regent until the King is 15")
        shot(page, "survival-closed")
        assert reign.holder_id == heir.pk and reign.start_year == 1300
        assert reign.regent is not None and reign.regent.age(1300) >= 15
        expect(page.locator("#succession")).to_contain_text(f"{reign.regent.display_name} is regent")

        # --- Marriages, Announcements, the next turn -------------------------------------------
        page.get_by_role("navigation", name="Campaign").get_by_role("link", name="Marriages").click()
        expect(page.get_by_role("heading", name="Marriages of 1300")).to_be_visible()
        page.get_by_role("button", name="Finish Marriages").click()
        expect(page.get_by_role("heading", name="Announcements of 1300")).to_be_visible()
        page.get_by_role("button", name="Publish the announcements").click()
        expect(page.locator("ul.messages")).to_contain_text("The announcements of 1300 are published.")
        announced = page.locator(".announced")
        expect(announced).to_contain_text(f"A son, {child.display_name}, is born in 1300")
        expect(announced).to_contain_text(f"{king.display_name} dies in 1300")
        expect(announced).to_contain_text(succeeds)
        shot(page, "announcements")
        page.get_by_role("button", name=re.compile("Start the next turn")).click()
        expect(page).to_have_url(re.compile(rf"/c/{game.slug}/turn/births/(#.*)?$"))  # the new turn's Births (issue 34)
        expect(page.locator("ul.messages")).to_contain_text("The turn of 1305 begins with the Births.")
        page.goto(f"{live_server.url}/c/{game.slug}/")
        expect(page.get_by_role("navigation", name="Campaign")).to_contain_text("Turn 1305")
        shot(page, "dashboard-1305")
    finally:
        context.close()

    game.refresh_from_db()
    assert (game.current_year, game.step) == (1305, Step.BIRTHS)
    born = BirthAttempt.objects.filter(campaign=game, success=True)
    assert born.count() == 1
    attempt = born.get()
    assert attempt.marriage_id == couple.pk and attempt.roll.faces == [4, 5] and attempt.roll.source == "entered"
    assert attempt.child.father_id == king.pk and attempt.child.mother_id == queen.pk and attempt.child.birth_year == 1300
    assert not BirthAttempt.objects.filter(campaign=game, success=False).exclude(roll__faces=[1, 1]).exists()
    king.refresh_from_db()
    assert king.status == Status.DEAD and king.death_year == 1300
    old = Reign.objects.get(campaign=game, crown="England", holder=king)
    assert old.end_year == 1300
    assert Reign.objects.get(campaign=game, crown="England", end_year__isnull=True).holder_id == heir.pk


def test_the_gms_undo_on_the_turn_page_restores_the_births(browser: Browser, live_server, campaign, gm):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    couple = Marriage.objects.get(campaign=campaign, husband__controlled_by=england)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/births/")
        type_dice(page.locator(f"#couple-{couple.pk}"), 4, 5)
        expect(page.locator(f"#couple-{couple.pk} ol.attempts")).to_contain_text("Attempt 1: 4 + 5 = 9")
        assert BirthAttempt.objects.filter(marriage=couple).count() == 1

        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/")
        expect(page.locator(".gm-box")).to_contain_text("Undo the step: back to the start of Births 1300")
        page.get_by_role("link", name="Undo the step…").click()  # asks first: what it throws away, then confirm
        expect(page.locator(".gm-box")).to_contain_text("It throws away: 1 roll, ")  # counted here (issue 36)
        page.get_by_role("button", name="Yes, undo the step").click()
        expect(page.locator("ul.messages")).to_contain_text("back at the start of Births 1300")
        expect(page.locator("li[aria-current=step]")).to_contain_text("Births")

        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/births/")
        expect(page.locator("ol.attempts")).to_have_count(0)
        expect(page.locator(f"#couple-{couple.pk}").get_by_label("Die 1", exact=True)).to_be_visible()
    finally:
        context.close()
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()
    campaign.refresh_from_db()
    assert (campaign.current_year, campaign.step) == (1300, Step.BIRTHS)


def readme_shot(page: Page, folder: Path, name: str) -> None:
    """A screenshot of what the window shows (not the whole page), small enough for the README."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) < MAX_README_SHOT, (name, len(data))


def fits(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px on {page.url}"


def scroll_to(page: Page, selector: str, margin: int = 12) -> None:
    """Put the element at the top of the window (below a small margin)."""
    page.locator(selector).first.evaluate(f"el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - {margin})")


def test_the_readme_screenshots(browser: Browser, live_server, gm, alice, bob, seeded_dice, tmp_path):
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    demo = campaign_start(
        name="The Hundred Years",
        gm=gm,
        players=5,
        seats={"England": alice, "France": bob},
        optional_rules={"disputed_succession": True},
        prehistory_turns=12,
        seed=1,
    )
    assert (demo.current_year, demo.step) == (1360, Step.BIRTHS)
    england = Dynasty.objects.get(campaign=demo, crown="England")
    king = Reign.objects.get(campaign=demo, crown="England", end_year__isnull=True).holder
    base = f"{live_server.url}/c/{demo.slug}"

    desktop = browser.new_context(viewport=README_DESKTOP)
    page = desktop.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/")
        expect(page.get_by_role("heading", name="The Hundred Years")).to_be_visible()
        expect(page.locator("main")).to_contain_text(regnal_labels(demo, [king])[king.pk])  # with his numeral
        readme_shot(page, folder, "dashboard")

        page.goto(f"{base}/dynasty/{england.pk}/")
        page.wait_for_function(
            "() => { const o = document.querySelector('object.tree');"
            " return o && o.contentDocument && o.contentDocument.querySelectorAll('a').length > 5; }"
        )
        # the frame opens at the King (the page's script scrolls it there once the SVG is in)
        page.wait_for_function(
            "id => { const f = document.querySelector('.tree-frame'), o = f.querySelector('object.tree');"
            " const n = o.contentDocument.getElementById(id); if (!n) return false;"
            " const a = f.getBoundingClientRect(), b = o.getBoundingClientRect(), r = n.getBoundingClientRect();"
            " return b.left + r.left >= a.left && b.left + r.right <= a.right; }",
            arg=f"p{king.pk}",
        )
        scroll_to(page, "#tree")
        readme_shot(page, folder, "dynasty-tree")

        page.goto(f"{base}/treasury/{england.pk}/")
        expect(page.locator("figure.chart svg")).to_be_visible()
        readme_shot(page, folder, "treasury")
    finally:
        desktop.close()

    phone = browser.new_context(viewport=README_PHONE)
    page = phone.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{base}/turn/births/")
        card = page.locator("section.couple").filter(has=page.locator("input.die")).first
        expect(card).to_contain_text("Odds of a child")
        expect(card.get_by_label("Die 1", exact=True)).to_be_visible()
        fits(page)
        scroll_to(page, "h1")
        readme_shot(page, folder, "births-phone")
    finally:
        phone.close()

    desktop = browser.new_context(viewport=README_DESKTOP)
    page = desktop.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/turn/births/")
        page.get_by_role("button", name=re.compile("Roll all remaining")).click()
        page.get_by_role("button", name="Finish Births").click()
        expect(page).to_have_url(re.compile(r"/turn/survival/(#.*)?$"))
        type_dice(page.locator(f"#character-{king.pk}"), 1, 1)
        expect(page.locator("ul.messages")).to_contain_text(f"Died: {king.display_name}")
        named = regnal_labels(king.campaign, [king])[king.pk]  # with his numeral
        decision = page.locator("#succession .card").filter(has_text=f"England: {named} has died")
        expect(decision.locator("ol.line-entries > li").first).to_contain_text("May be passed over")
        scroll_to(page, "#succession")
        readme_shot(page, folder, "survival")
    finally:
        desktop.close()
