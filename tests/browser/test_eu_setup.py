"""Issue 32: a new GM creates an eu-monarchs campaign from the New campaign page on a laptop
(1280x800) - five countries: France rolled, Poland with a historical king (Sobieski), Venice with its
Doge, Turkey typed, Spain with its dynastic alliances - and finds a monarch on every throne; the same
page on a phone (390x844) has no sideways scroll. Screenshots: docs/screenshots/eu-setup.png and
eu-setup-phone.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Campaign
from dynasties.models import Reign
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PASSWORD = "new-gm-password-1"
MAX_BYTES = 250_000


@pytest.fixture
def new_gm(db):
    return get_user_model().objects.create_user("margaret", password=PASSWORD)


def shot(page: Page, name: str) -> None:
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    assert path.read_bytes().startswith(b"\x89PNG")
    assert path.stat().st_size < MAX_BYTES, f"{name}.png is {path.stat().st_size} bytes"


def no_sideways_scroll(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px on {page.url}"


def row(page: Page, key: str):
    return page.locator(f"#{key}-row")


def test_a_new_gm_sets_up_an_eu_campaign_from_the_page(browser: Browser, live_server, new_gm):
    laptop = browser.new_context(viewport=LAPTOP)
    page = laptop.new_page()
    try:
        log_in(page, live_server.url, "margaret", PASSWORD)
        page.get_by_role("link", name="New campaign").click()
        page.get_by_label("Name of the campaign").fill("Europa 1492")
        countries = page.locator(".eu-setup")
        expect(countries).to_be_hidden()  # another ruleset's page has no countries
        page.get_by_label("Europa Universalis: monarch tables").check()
        expect(countries).to_be_visible()
        expect(page.locator(".field.players")).to_be_hidden()  # the countries are ticked, not counted
        # the five majors come ticked, each showing its rules; two are swapped for Poland and Venice
        for key in ("eu_france", "eu_england", "eu_spain", "eu_austria", "eu_turkey"):
            expect(page.locator(f"#id_{key}")).to_be_checked()
        expect(row(page, "eu_turkey")).to_contain_text("column 4; the Turkish survival column")
        page.locator("#id_eu_england").uncheck()
        page.locator("#id_eu_austria").uncheck()
        expect(row(page, "eu_austria").locator(".eu-monarch")).to_be_hidden()
        page.locator("#id_eu_poland").check()
        page.locator("#id_eu_venice").check()
        # Poland: a historical king with the aid's values
        row(page, "eu_poland").get_by_label("A historical monarch").check()
        page.locator("#id_eu_poland_named").select_option("Sobieski")
        expect(page.locator("#id_eu_poland_era")).to_be_checked()
        # Venice: its Doge at the start
        expect(page.locator("#id_eu_venice_doge")).to_be_checked()
        row(page, "eu_venice").get_by_label("A historical monarch").check()
        expect(page.locator("#id_eu_venice_named")).to_have_value("Barbarigo")
        # Turkey: typed by the GM, first a value out of range
        row(page, "eu_turkey").get_by_label("Typed by the GM").check()
        page.locator("#id_eu_turkey_name").fill("Mehmed II")
        page.locator("#id_eu_turkey_adm").fill("6")
        page.locator("#id_eu_turkey_dip").fill("5")
        page.locator("#id_eu_turkey_mil").fill("8")
        page.locator("#id_eu_spain_alliances").fill("2")
        page.locator("#eu_poland-row").evaluate("el => el.scrollIntoView({block: 'start'})")
        page.evaluate("window.scrollBy(0, -10)")
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot(page, "eu-setup")
        no_sideways_scroll(page)
        page.get_by_role("button", name="Create the campaign").click()
        campaign = Campaign.objects.get()
        expect(page).to_have_url(f"{live_server.url}/c/{campaign.slug}/")
        table = page.locator("table.campaigns")
        expect(table).to_contain_text("Jan III Sobieski")
        expect(table).to_contain_text("ADM 8 · DIP 7 · MIL 9")
        expect(table).to_contain_text("Agostino Barbarigo")
        expect(table).to_contain_text("Mehmed II")
        expect(table).not_to_contain_text("none")
        crowns = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("crown", flat=True))
        assert crowns == {"France", "Poland", "Venice", "Turkey", "Spain"}
    finally:
        laptop.close()

    phone = browser.new_context(viewport=PHONE)
    page = phone.new_page()
    try:
        log_in(page, live_server.url, "margaret", PASSWORD)
        page.goto(f"{live_server.url}/campaigns/new/")
        page.get_by_label("Europa Universalis: monarch tables").check()
        page.get_by_label("Name of the campaign").fill("Europa 1709")
        page.locator("#id_eu_russia").check()
        row(page, "eu_russia").get_by_label("A historical monarch").check()
        page.locator("#id_eu_russia_named").select_option("Peter the Great")  # refused: period V on, and his values
        row(page, "eu_turkey").get_by_label("Typed by the GM").check()
        page.locator("#id_eu_turkey_adm").fill("7")  # no name, no DIP or MIL: refused beside each
        page.get_by_role("button", name="Create the campaign").click()
        expect(page.locator(".form-errors")).to_be_visible()
        expect(row(page, "eu_turkey").locator(".eu-name")).to_contain_text("Name Turkey's first monarch")
        expect(row(page, "eu_turkey").locator(".eu-value").nth(1)).to_contain_text("Give his DIP (3 to 9)")
        expect(row(page, "eu_russia").locator(".eu-named")).to_contain_text("not in period I")
        expect(page.locator("#id_eu_turkey_adm")).to_have_value("7")  # what was typed is kept
        assert Campaign.objects.count() == 1  # nothing more was written
        no_sideways_scroll(page)
        row(page, "eu_russia").scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, -60)")
        shot(page, "eu-setup-phone")
    finally:
        phone.close()
