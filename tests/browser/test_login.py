"""Logging in and out through the real pages, in Chromium."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from dynasties.services import campaign_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "gm-browser-password-1"
PHONE = {"width": 390, "height": 800}


@pytest.fixture
def gm_with_campaign():
    gm = get_user_model().objects.create_user("gm", password=PASSWORD)
    campaign_create(name="Game Night Campaign", players=3, by=gm)
    return gm


def log_in(page: Page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_gm_logs_in_sees_campaign_and_logs_out(page: Page, live_server, gm_with_campaign, tmp_path):
    log_in(page, live_server.url, "gm", PASSWORD)

    expect(page).to_have_url(f"{live_server.url}/")
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    expect(page.locator("table.campaigns")).to_contain_text("Game Night Campaign")
    expect(page.get_by_role("navigation", name="Account")).to_contain_text("gm")

    shot = tmp_path / "home.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.exists()
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    page.get_by_role("navigation", name="Account").get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/login/$"))
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    expect(page.get_by_role("navigation", name="Account")).to_have_count(0)

    # The home page is closed again once logged out.
    page.goto(f"{live_server.url}/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/$"))


def test_wrong_password_shows_the_error(page: Page, live_server, gm_with_campaign):
    log_in(page, live_server.url, "gm", "not-the-password")

    expect(page).to_have_url(re.compile(r"/login/$"))
    expect(page.locator("ul.errorlist")).to_contain_text("Please enter a correct username and password")
    expect(page.get_by_role("navigation", name="Account")).to_have_count(0)


def test_login_page_fits_a_phone(browser: Browser, live_server, tmp_path):
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/login/")
        expect(page.get_by_role("button", name="Log in")).to_be_visible()

        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert inner_width == PHONE["width"]
        assert scroll_width <= inner_width, f"horizontal scroll on a phone: {scroll_width}px > {inner_width}px"

        shot = tmp_path / "login-phone.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.exists()
        assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    finally:
        context.close()
