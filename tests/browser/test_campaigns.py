"""Creating a campaign through the form, then the dashboard and a dynasty page with its tree, in
Chromium (desktop 1280 wide and a 390x844 phone). Screenshots go to /tmp/shots/campaigns/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Campaign, Membership, Role
from tests.factories import member_house

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/campaigns")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PASSWORD = "carol-browser-password-1"


@pytest.fixture
def users(db):
    User = get_user_model()
    carol = User.objects.create_user("carol", password=PASSWORD)
    User.objects.create_user("alice", password="alice-password-1")
    User.objects.create_user("bob", password="bob-password-1")
    return carol


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes().startswith(b"\x89PNG")


def no_sideways_scroll(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px on {page.url}"


def log_in(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill("carol")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()


def tree_links(page: Page) -> list[str]:
    """The links inside the SVG shown by the dynasty page's <object>, once it has loaded."""
    page.wait_for_function(
        "() => { const o = document.querySelector('object.tree');"
        " return o && o.contentDocument && o.contentDocument.querySelectorAll('a').length > 0; }"
    )
    return page.evaluate(
        "Array.from(document.querySelector('object.tree').contentDocument.querySelectorAll('a'))"
        ".map(a => a.getAttribute('xlink:href') || a.getAttribute('href'))"
    )


def test_a_user_creates_a_campaign_with_two_players_and_sees_the_tree(browser: Browser, live_server, users):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url)
        page.get_by_role("link", name="New campaign").click()
        expect(page.get_by_role("heading", name="New campaign")).to_be_visible()

        # the form shows only the crowns the chosen rules and number of players can seat (CSS only)
        expect(page.get_by_label("Italy", exact=True)).to_be_visible()
        expect(page.get_by_label("Sweden", exact=True)).to_be_hidden()
        page.get_by_label("Player dynasties").select_option("3")
        expect(page.get_by_label("Italy", exact=True)).to_be_hidden()
        page.get_by_label("Europa Universalis: BloodLine").check()
        expect(page.get_by_label("Sweden", exact=True)).to_be_hidden()  # 3 players of BloodLine: France, England, Spain
        page.get_by_label("Player dynasties").select_option("7")
        expect(page.get_by_label("Sweden", exact=True)).to_be_visible()
        expect(page.get_by_label("Germany", exact=True)).to_be_hidden()
        expect(page.get_by_text("Turkey #2")).to_be_visible()
        expect(page.get_by_text("Optional Rule C")).to_be_hidden()
        expect(page.get_by_label("Turns of prehistory")).to_be_hidden()
        page.get_by_label("A generated prehistory").check()
        expect(page.get_by_label("Turns of prehistory")).to_be_visible()
        page.get_by_label("The standard starting families").check()

        # back to Blood Royale, five players; a wrong username first
        page.get_by_label("Blood Royale").check()
        page.get_by_label("Player dynasties").select_option("5")
        page.get_by_label("Name of the campaign").fill("Game Night at Carol's")
        page.get_by_label("England", exact=True).fill("alice")
        page.get_by_label("France", exact=True).fill("bobby")
        page.get_by_text("Optional Rule C").click()
        shot(page, "new-desktop")
        page.get_by_role("button", name="Create the campaign").click()
        expect(page.locator(".seat-France .errorlist")).to_contain_text("There is no user called “bobby”")
        expect(page.get_by_label("Name of the campaign")).to_have_value("Game Night at Carol's")
        assert not Campaign.objects.exists()
        shot(page, "new-error-desktop")
        page.get_by_label("France", exact=True).fill("bob")
        page.get_by_role("button", name="Create the campaign").click()

        campaign = Campaign.objects.get()
        expect(page).to_have_url(f"{live_server.url}/c/{campaign.slug}/")
        expect(page.get_by_role("heading", name="Game Night at Carol's")).to_be_visible()
        expect(page.locator("ul.messages")).to_contain_text("you are its game master")
        assert campaign.option("disputed_succession")
        players = {m.user.username: member_house(m).crown for m in Membership.objects.filter(campaign=campaign, role=Role.PLAYER)}
        assert players == {"alice": "England", "bob": "France"}
        shot(page, "dashboard-desktop")

        page.get_by_role("link", name="Plantagenet").first.click()
        expect(page.get_by_role("heading", name="Family tree")).to_be_visible()
        links = tree_links(page)
        assert links and all(re.fullmatch(rf"/c/{campaign.slug}/character/\d+/", href) for href in links), links
        shot(page, "dynasty-desktop")

        page.get_by_role("link", name=re.compile("what if the King dies")).click()
        expect(page.locator("#what-if h3")).to_contain_text("died in 1300")
        expect(page.locator("#what-if .note").first).to_contain_text("would succeed")
        shot(page, "what-if-desktop")

        # a click on a person in the tree opens his character page in the whole window
        frame = None
        for _ in range(60):  # the tree's frame loads after the page: on a busy machine, a moment later
            frame = next((f for f in page.frames if f.url.endswith("links=pages")), None)
            if frame is not None:
                break
            page.wait_for_timeout(250)
        assert frame is not None, [f.url for f in page.frames]
        frame.locator("a").first.click()
        expect(page).to_have_url(re.compile(rf"/c/{campaign.slug}/character/\d+/$"))
        expect(page.get_by_role("heading", name="Family")).to_be_visible()
    finally:
        context.close()

    phone = browser.new_context(viewport=PHONE)
    page = phone.new_page()
    try:
        log_in(page, live_server.url)
        no_sideways_scroll(page)
        page.goto(f"{live_server.url}/campaigns/new/")
        no_sideways_scroll(page)
        shot(page, "new-phone")
        page.goto(f"{live_server.url}/c/{campaign.slug}/")
        no_sideways_scroll(page)
        shot(page, "dashboard-phone")
        page.get_by_role("link", name="Plantagenet").first.click()
        assert tree_links(page)
        no_sideways_scroll(page)  # the tree scrolls inside its box, not the page
        frame_width = page.evaluate("document.querySelector('.tree-frame').getBoundingClientRect().width")
        assert frame_width <= PHONE["width"]
        shot(page, "dynasty-phone")
        page.get_by_role("link", name=re.compile("what if the King dies")).click()
        expect(page.locator("#what-if h3")).to_be_visible()
        no_sideways_scroll(page)
        shot(page, "what-if-phone")
    finally:
        phone.close()


def test_a_prehistory_campaign_and_its_big_tree_on_a_phone(browser: Browser, live_server, users):
    phone = browser.new_context(viewport=PHONE)
    page = phone.new_page()
    try:
        log_in(page, live_server.url)
        page.get_by_role("link", name="New campaign").click()
        page.get_by_label("Name of the campaign").fill("Ancient Houses")
        page.get_by_label("A generated prehistory").check()
        page.get_by_label("Turns of prehistory").fill("8")
        page.get_by_label("Dice seed").fill("5")
        page.get_by_label("England", exact=True).fill("alice")
        page.get_by_role("button", name="Create the campaign").click()
        campaign = Campaign.objects.get()
        expect(page).to_have_url(f"{live_server.url}/c/{campaign.slug}/")
        expect(page.get_by_text("1340", exact=True)).to_be_visible()
        no_sideways_scroll(page)
        shot(page, "prehistory-dashboard-phone")
        page.get_by_role("link", name="Plantagenet").first.click()
        assert len(tree_links(page)) > 5
        no_sideways_scroll(page)
        inner, outer = page.evaluate(
            "[document.querySelector('object.tree').getBoundingClientRect().width,"
            " document.querySelector('.tree-frame').getBoundingClientRect().width]"
        )
        assert inner > outer  # the big tree keeps its size and scrolls inside its frame
        page.locator(".tree-frame").evaluate("el => el.scrollBy(200, 0)")
        shot(page, "prehistory-dynasty-phone")
        page.get_by_label("Fit the whole tree to the screen").check()  # an overview, CSS only
        fitted = page.evaluate("document.querySelector('object.tree').getBoundingClientRect().width")
        assert fitted <= outer
        shot(page, "prehistory-dynasty-fit-phone")
    finally:
        phone.close()
