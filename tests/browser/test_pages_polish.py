"""The game-night pages as a person sees them, in Chromium, on a campaign with twelve turns of
history (a wide family tree, a full exchequer): the dynasty's tree opens at the reigning monarch
(and the page works without JavaScript), a redirect to another page does not keep the form page's
fragment, the chart's year labels never overlap on a phone or a laptop, and a card's first line
sits at its padding. Screenshots of each page go to /tmp/shots/polish/."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Step
from dynasties.models import Dynasty, Reign
from dynasties.selectors import regnal_labels
from operations.services import campaign_start

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/polish")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PASSWORDS = {"gm": "gm-password-1", "alice": "alice-password-1", "bob": "bob-password-1"}


@pytest.fixture
def history(gm, alice, bob):
    """Twelve turns played by the automatic player (1300-1355): now the Births of 1360."""
    game = campaign_start(
        name="Twelve Turns",
        gm=gm,
        players=5,
        seats={"England": alice, "France": bob},
        optional_rules={"disputed_succession": True},
        prehistory_turns=12,
        seed=1,
    )
    assert (game.current_year, game.step) == (1360, Step.BIRTHS)
    return game


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORDS[username])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("navigation", name="Account")).to_contain_text(username)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def fits(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px on {page.url}"


TREE_LOADED = (
    "() => { const o = document.querySelector('object.tree');"
    " return o && o.contentDocument && o.contentDocument.querySelectorAll('g.node').length > 5; }"
)

NODE_IN_FRAME = """id => {
  const frame = document.querySelector('.tree-frame'), tree = frame.querySelector('object.tree');
  const node = tree.contentDocument.getElementById(id);
  if (!node) return null;
  const f = frame.getBoundingClientRect(), o = tree.getBoundingClientRect(), n = node.getBoundingClientRect();
  return {
    inside: o.left + n.left >= f.left && o.left + n.right <= f.right && o.top + n.top >= f.top && o.top + n.bottom <= f.bottom,
    scrollLeft: frame.scrollLeft, scrollTop: frame.scrollTop,
    wide: frame.scrollWidth > frame.clientWidth,
  };
}"""


def test_the_tree_opens_at_the_reigning_monarch(browser: Browser, live_server, history):
    england = Dynasty.objects.get(campaign=history, crown="England")
    king = Reign.objects.get(campaign=history, crown="England", end_year__isnull=True).holder
    url = f"{live_server.url}/c/{history.slug}/dynasty/{england.pk}/"
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice")
        page.goto(url)
        page.wait_for_function(TREE_LOADED)
        page.wait_for_function(f"id => ({NODE_IN_FRAME})(id)?.inside", arg=f"p{king.pk}")
        seen = page.evaluate(NODE_IN_FRAME, f"p{king.pk}")
        assert seen["wide"], "the tree must be wider than its frame for this test to mean anything"
        assert seen["inside"] and seen["scrollLeft"] > 0, seen
        assert page.evaluate("window.scrollY") == 0  # the frame scrolled, not the page
        page.locator("#tree").scroll_into_view_if_needed()
        shot(page, "dynasty-desktop")
        # "Fit the whole tree": no scrolling at all; back again: at the King once more
        page.get_by_label("Fit the whole tree to the screen").check()
        assert page.locator(".tree-frame").evaluate("f => f.scrollWidth <= f.clientWidth + 1")
        page.get_by_label("Fit the whole tree to the screen").uncheck()
        assert page.evaluate(NODE_IN_FRAME, f"p{king.pk}")["inside"]
    finally:
        context.close()

    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        log_in(page, live_server.url, "alice")
        page.goto(url)
        page.wait_for_function(TREE_LOADED)
        page.wait_for_function(f"id => ({NODE_IN_FRAME})(id)?.inside", arg=f"p{king.pk}")
        fits(page)
        page.locator("#tree").scroll_into_view_if_needed()
        shot(page, "dynasty-phone")
    finally:
        phone.close()

    no_js = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    try:
        page = no_js.new_page()
        log_in(page, live_server.url, "alice")
        page.goto(url)
        expect(page.locator("object.tree")).to_be_visible()
        expect(page.get_by_role("link", name="Open full size")).to_have_attribute("href", re.compile(r"dynasty=\d+"))
        expect(page.locator("#line")).to_contain_text("Line of succession of England")
    finally:
        no_js.close()


def type_dice(card, *faces: int) -> None:
    """Fill a grid row's dice, then Enter in the last one: the grid is sent."""
    for i, face in enumerate(faces, start=1):
        card.get_by_label(f"Die {i}", exact=True).fill(str(face))
    card.get_by_label(f"Die {len(faces)}", exact=True).press("Enter")


def test_a_redirect_to_another_page_drops_the_old_fragment(browser: Browser, live_server, history):
    base = f"{live_server.url}/c/{history.slug}/turn"
    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        log_in(page, live_server.url, "alice")
        page.goto(f"{base}/births/")
        card = page.locator("section.couple").filter(has=page.locator("input.die")).first
        expect(card.get_by_label("Die 1", exact=True)).to_be_visible()
        fits(page)
        shot(page, "births-phone")
    finally:
        phone.close()

    king = Reign.objects.get(campaign=history, crown="England", end_year__isnull=True).holder
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "gm")
        page.goto(f"{base}/births/")
        couple = page.locator("section.couple").first.get_attribute("id")
        page.goto(f"{base}/births/#{couple}")
        page.get_by_role("button", name=re.compile("Roll all remaining")).click()
        expect(page.locator("#step ul.messages")).to_contain_text("on the server's dice")  # in the step, swapped in place
        expect(page).to_have_url(f"{base}/births/#{couple}")  # no page load (htmx)
        page.goto(f"{base}/births/#{couple}")
        page.get_by_role("button", name="Finish Births").click()
        expect(page).to_have_url(f"{base}/survival/#top")  # not /survival/#couple-5
        expect(page.locator("ul.messages")).to_contain_text("now Survival")
        assert page.evaluate("window.scrollY") == 0

        type_dice(page.locator(f"#character-{king.pk}"), 1, 1)
        expect(page.locator(f"#character-{king.pk}")).to_contain_text("1 + 1")
        expect(page).to_have_url(f"{base}/survival/#top")  # the grid is swapped in place: no page load
        named = regnal_labels(history, [king])[king.pk]  # with his numeral
        decision = page.locator("#succession .card").filter(has_text=f"England: {named} has died")
        first = decision.locator("ol.line-entries > li").first
        expect(first).to_contain_text("May be passed over (under optional rule C), at this cost:")
        expect(decision).not_to_contain_text("passed over under")
        shot(page, "survival-desktop")
    finally:
        context.close()

    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        log_in(page, live_server.url, "alice")
        page.goto(f"{base}/survival/")
        expect(page.locator("#succession")).to_contain_text("Your decision")
        fits(page)
        shot(page, "survival-phone")
    finally:
        phone.close()


def test_the_dashboard_card_and_the_chart_labels(browser: Browser, live_server, history):
    england = Dynasty.objects.get(campaign=history, crown="England")
    for viewport in (DESKTOP, PHONE):
        context = browser.new_context(viewport=viewport)
        try:
            page = context.new_page()
            log_in(page, live_server.url, "alice")
            page.goto(f"{live_server.url}/c/{history.slug}/")
            # the card's first line sits at the padding (16px inside a 1px border), no margin added
            gap = page.evaluate(
                "() => { const c = document.querySelector('main .card');"
                " return c.firstElementChild.getBoundingClientRect().top - c.getBoundingClientRect().top; }"
            )
            assert gap == pytest.approx(17, abs=0.5)
            fits(page)
            shot(page, f"dashboard-{viewport['width']}")

            page.goto(f"{live_server.url}/c/{history.slug}/treasury/{england.pk}/")
            boxes = [(t.text_content(), t.bounding_box()) for t in page.locator("figure.chart svg g.x-axis text").all()]
            years = [int(text) for text, _ in boxes]
            assert len(years) >= 4 and (years[-1] - years[0]) % 5 == 0
            assert len({b - a for a, b in itertools.pairwise(years)}) == 1  # an even step
            assert all((y - 1300) % 5 == 0 for y in years)  # on turn boundaries
            for (_, a), (_, b) in itertools.pairwise(boxes):
                assert a["x"] + a["width"] + 2 <= b["x"], (viewport, years)  # no overlap, a little room
            assert boxes[0][1]["height"] >= 9  # still readable on the phone
            fits(page)
            shot(page, f"exchequer-{viewport['width']}")
        finally:
            context.close()


def test_on_a_phone_the_campaign_menu_is_one_line_with_a_menu_button(browser: Browser, live_server, campaign):
    """Issue 19: on a 390 px phone the campaign's menu keeps to one line (its name, the turn, "Menu"),
    with only the search box under it (issue 20: a phone searches without opening the menu); the Menu
    link shows the rest (CSS only), and a desktop shows every link on the line as before."""
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "gm")
        page.goto(f"{live_server.url}/c/{campaign.slug}/")
        nav = page.get_by_role("navigation", name="Campaign")
        line = nav.get_by_role("link", name=f"Turn {campaign.current_year}").bounding_box()
        menu = nav.get_by_role("link", name="Menu").bounding_box()
        search = nav.get_by_role("search").bounding_box()
        assert line is not None and menu is not None and search is not None
        assert abs(menu["y"] - line["y"]) < 6  # the turn and Menu on one line
        assert search["y"] >= line["y"] + line["height"] - 2  # the search box under it ...
        assert nav.bounding_box()["height"] < 2.2 * line["height"] + search["height"]  # ... and nothing more
        expect(nav.get_by_role("link", name="Treasury")).to_be_hidden()
        nav.get_by_role("link", name="Menu").click()
        expect(nav.get_by_role("link", name="Treasury")).to_be_visible()
        nav.get_by_role("link", name="Roll log").click()
        expect(page).to_have_url(re.compile(r"/rolls/$"))
        fits(page)
    finally:
        context.close()
    desktop = browser.new_context(viewport=DESKTOP)
    try:
        page = desktop.new_page()
        log_in(page, live_server.url, "gm")
        page.goto(f"{live_server.url}/c/{campaign.slug}/")
        nav = page.get_by_role("navigation", name="Campaign")
        expect(nav.get_by_role("link", name="Treasury")).to_be_visible()
        expect(nav.get_by_role("link", name="Menu")).to_be_hidden()
    finally:
        desktop.close()
