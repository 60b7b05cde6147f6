"""The crowns at the table in Chromium (issue 31): a player chooses his minor King's regent from his own
page on a phone, the rules' choice proposed; the GM records a peace and a bankruptcy from a crown's
page on a laptop and the player reads it on his phone, the Stability marker on the board's track. The
screenshots go to ``REGNAL_SCREENSHOTS`` when it is set (``docs/screenshots``), else to a temporary
directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Role
from dynasties.models import Dynasty, Reign
from dynasties.services import campaign_create
from dynasties.services.bloodline import revolt
from dynasties.services.common import World
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import person, seat_member
from tests.test_events_crowns import england_regency

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def shot(page: Page, folder: Path, name: str, *, full: bool = False) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=full)


def fits(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px on {page.url}"


def folder_for(tmp_path: Path) -> Path:
    return Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")


def test_a_player_chooses_his_regent_on_a_phone(browser: Browser, live_server, campaign, alice, tmp_path):
    folder = folder_for(tmp_path)
    reign = england_regency(campaign)  # the King dies at Survival: his son is a child, a baron rules for him
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    uncle = person(campaign, england, "Richard", "M", 1270)
    aunt = person(campaign, england, "Matilda", "F", 1276)
    base = f"{live_server.url}/c/{campaign.slug}"
    phone = browser.new_context(viewport=PHONE)
    page = phone.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{base}/events/")
        page.get_by_role("link", name="A regent chosen").click()
        expect(page.get_by_role("heading", name="A regent chosen")).to_be_visible()
        expect(page.get_by_label("Crown")).to_have_value("England")
        regent = page.locator("#id_regent")
        expect(regent).to_have_value(str(uncle.pk))  # the regent the rules would name today, proposed
        expect(regent.locator("option", has_text="the rules' choice")).to_contain_text("Richard")
        expect(page.get_by_label("The baron's Charisma (3d6): die 1")).to_be_visible()  # a created baron's dice, labelled
        fits(page)
        shot(page, folder, "events-regent-phone")  # as proposed
        regent.select_option(str(aunt.pk))  # the player's own choice
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("Matilda")
        expect(page.locator("main")).to_contain_text("is regent of England")
        reign.refresh_from_db()
        assert reign.regent_id == aunt.pk
        page.goto(f"{base}/crown/England/")
        expect(page.locator(".crown-monarch")).to_contain_text("Matilda")
        expect(page.locator(".crown-monarch")).to_contain_text("rules as regent")
        fits(page)
    finally:
        phone.close()


def test_the_crown_page_on_a_laptop_and_a_phone(browser: Browser, live_server, gm, alice, tmp_path):
    folder = folder_for(tmp_path)
    europa = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4), by=gm)
    france = Dynasty.objects.get(campaign=europa, crown="France")
    seat_member(campaign=europa, user=alice, role=Role.PLAYER, dynasty=france)
    world = World(europa)
    from campaign.steps import Chronicle

    lines = Chronicle(europa)
    revolt(world, world.crowns["France"], 1, "a disputed succession", lines, cause="pass_over")
    lines.flush()
    base = f"{live_server.url}/c/{europa.slug}"
    laptop = browser.new_context(viewport=DESKTOP)
    page = laptop.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/")
        page.get_by_role("link", name="France", exact=True).first.click()
        expect(page.get_by_role("heading", name="France", exact=True)).to_be_visible()
        page.get_by_role("link", name="Stability changed by the board").click()
        expect(page.get_by_label("Crown")).to_have_value("France")  # filled in from the crown's page
        page.get_by_label("Cause").select_option("peace")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("Stability +1 (a full peace), now +1")
        page.get_by_label("Crown").select_option("France")
        page.get_by_label("Cause").select_option("bankruptcy")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("#id_delta + p + ul, .errorlist, .refusal").first).to_contain_text("type the change")
        page.get_by_label("Change").fill("-2")
        page.get_by_label("What happened").fill("the Fuggers call in their loans")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("now -1")
        page.goto(f"{base}/crown/France/")
        track = page.get_by_role("list", name="The Stability track, -3 to +3: France stands at -1")
        expect(track.locator("[aria-current=true]")).to_have_text("-1")
        expect(page.locator("table.crown-events")).to_contain_text("the Fuggers call in their loans")
        expect(page.locator("table.crown-events")).to_contain_text("1 revolt")
        fits(page)
        shot(page, folder, "crown", full=True)
    finally:
        laptop.close()
    phone = browser.new_context(viewport=PHONE)
    page = phone.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{base}/crown/France/")
        expect(page.get_by_role("heading", name="Stability -1")).to_be_visible()
        expect(page.get_by_role("link", name="Stability changed by the board")).to_have_count(0)  # the GM's to record
        king = Reign.objects.get(campaign=europa, crown="France", end_year__isnull=True).holder
        expect(page.locator(".crown-monarch")).to_contain_text(king.given_name)
        fits(page)
        shot(page, folder, "crown-phone")
    finally:
        phone.close()
