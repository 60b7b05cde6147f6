"""Titles at the table, in Chromium (issue 31): the GM makes a Governor on a laptop (rule G) and finds
the title's page, its holder and its line of succession, from the Titles page; the King's player finds
the same form on her phone, offered her own Princes only. Screenshots (1280x800, 390x844) go to
``REGNAL_SCREENSHOTS`` when it is set (``docs/screenshots``), else to a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, expect

from campaign.models import Role
from dynasties.models import Character, Dynasty, Reign, Title
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import person, seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORDS = {"gm": "gm-browser-password-1", "alice": "alice-browser-password-1"}
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def realm():
    """Blood Royale with rule G; Alice plays England, whose King has a son of 20 (Henry, father of
    Arthur, 2)."""
    users = {name: get_user_model().objects.create_user(name, password=pw) for name, pw in PASSWORDS.items()}
    campaign = campaign_create(
        name="Dukes and Provinces",
        players=5,
        source=RandomSource(11),
        optional_rules={"governing_provinces": True},
        by=users["gm"],
    )
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    seat_member(campaign=campaign, user=users["alice"], role=Role.PLAYER, dynasty=england)
    king = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    queen = Character.objects.get(campaign=campaign, controlled_by=england, sex="F", father__isnull=True)
    henry = person(campaign, england, "Henry", "M", 1280, father=king, mother=queen)
    arthur = person(campaign, england, "Arthur", "M", 1298, father=henry)
    return campaign, henry, arthur


def fits(page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px"


def test_the_gm_makes_a_governor_and_the_title_page_shows_its_line(browser: Browser, live_server, realm, tmp_path):
    campaign, henry, _arthur = realm
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    base = f"{live_server.url}/c/{campaign.slug}"

    laptop = browser.new_context(viewport=LAPTOP)
    try:
        page = laptop.new_page()
        log_in(page, live_server.url, "gm", PASSWORDS["gm"])
        page.goto(f"{base}/turn/")
        page.get_by_role("link", name="A Governor made").click()  # offered at the turn's Births: the Dynastic Sequence
        expect(page.get_by_role("heading", name="A Governor made")).to_be_visible()
        page.get_by_label("The Prince").select_option(str(henry.pk))
        page.get_by_label("The province").fill("Kent")
        page.get_by_label("Whose country").select_option("England")
        page.screenshot(path=str(folder / "events-title-grant.png"), full_page=True)
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("ul.messages")).to_contain_text("Henry Plantagenet is Duke of Kent, Governor of Kent in England")
        title = Title.objects.get(campaign=campaign, province="Kent")
        assert title.holder_id == henry.pk

        page.goto(f"{base}/titles/")
        page.get_by_role("link", name="Duke of Kent").click()
        expect(page.get_by_role("heading", name="Duke of Kent", exact=True)).to_be_visible()
        expect(page.locator(".status-line")).to_contain_text("Held by Henry Plantagenet")
        line = page.locator("ol.line")
        expect(line.locator("li").first).to_contain_text("Arthur Plantagenet")  # his son first
        expect(line).to_contain_text("after the Duke of Kent's own line")  # then up the tree, like the crown
        fits(page)
        page.screenshot(path=str(folder / "title.png"), full_page=True)
        page.set_viewport_size(PHONE)
        fits(page)
        page.screenshot(path=str(folder / "title-phone.png"), full_page=False)
    finally:
        laptop.close()

    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        log_in(page, live_server.url, "alice", PASSWORDS["alice"])
        page.goto(f"{base}/events/title_grant/")
        options = page.get_by_label("The Prince").locator("option")
        expect(options).to_have_count(1)  # her house's one Prince of 15; "Characters may Govern more than one Province"
        expect(options.first).to_contain_text("Henry Plantagenet (20, Plantagenet) — for England: already a Governor")
        page.get_by_label("The province").fill("Essex")
        expect(page.get_by_label("Whose country")).to_have_value("England")  # her one crown, proposed
        fits(page)
        page.screenshot(path=str(folder / "events-title-grant-phone.png"), full_page=False)
    finally:
        phone.close()
