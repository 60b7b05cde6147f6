"""The search box in Chromium (issue 20): a player types a name in the box of a campaign page,
presses Enter and reads the results grouped by kind, on a laptop and on a phone, with only what he
may see; the same search without JavaScript. On PostgreSQL, so its accent folding is checked there.
The screenshots go to ``REGNAL_SCREENSHOTS`` when it is set (``docs/screenshots``), else to a
temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Audience, ChronicleEntry
from contracts.services import contract_draft
from dynasties.models import Dynasty
from operations.services import campaign_start
from tests.browser.helpers import log_in
from tests.factories import person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
OURS = "Truce of England and France"
THEIRS = "Alliance of France and Spain"  # France and Spain's: Alice (England) never finds it


def shot(page: Page, folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=False)


def fits(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px on {page.url}"


def test_a_player_searches_from_the_menu(browser: Browser, live_server, gm, alice, bob, tmp_path):
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    demo = campaign_start(
        name="The Hundred Years", gm=gm, players=5, seats={"England": alice, "France": bob}, prehistory_turns=4, seed=1
    )
    house = {d.crown: d for d in Dynasty.objects.filter(campaign=demo)}
    contract_draft(campaign=demo, kind="agreement", title=OURS, parties=[house["England"], house["France"]], by=gm)
    contract_draft(campaign=demo, kind="agreement", title=THEIRS, parties=[house["France"], house["Spain"]], by=gm)
    person(demo, house["France"], "Françoise", "F", demo.current_year - 16)
    ChronicleEntry.objects.create(
        campaign=demo,
        year=demo.current_year,
        step="births",
        kind="event",
        text="The GM alone: France is broke.",
        audience=Audience.GM,
    )
    base = f"{live_server.url}/c/{demo.slug}"

    desktop = browser.new_context(viewport=DESKTOP)
    page = desktop.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{base}/contracts/")
        box = page.get_by_role("searchbox", name="Search The Hundred Years")
        box.fill("franc")
        box.press("Enter")
        expect(page.get_by_role("heading", name="Search for “franc”")).to_be_visible()
        main = page.locator("main")
        for heading in ("Houses", "Crowns", "Contracts", "Chronicle"):
            expect(page.get_by_role("heading", name=heading)).to_be_visible()
        expect(page.locator("#found-people")).to_contain_text("Françoise")  # "franc" finds the accented name
        expect(main).to_contain_text(OURS)
        expect(main).not_to_contain_text(THEIRS)
        expect(main).not_to_contain_text("France is broke")
        fits(page)
        shot(page, folder, "search")
        page.locator("#found-contracts").get_by_role("link", name=OURS).click()
        expect(page.get_by_role("heading", name=OURS)).to_be_visible()
    finally:
        desktop.close()

    phone = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = phone.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{base}/")
        box = page.get_by_role("searchbox", name="Search The Hundred Years")
        expect(box).to_be_visible()  # not behind the Menu link
        box.fill("FRANÇOISE")
        page.locator("nav.campaign-nav").get_by_role("button", name="Search").click()
        expect(page.locator("#found-people")).to_contain_text("Françoise")
        page.goto(f"{base}/search/?q=franc")
        expect(page.get_by_role("heading", name="Contracts")).to_be_visible()
        fits(page)
        shot(page, folder, "search-phone")
    finally:
        phone.close()
