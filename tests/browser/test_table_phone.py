"""Issue 34, "The table, the phone and the print", in Chromium:

- "Open pages say when the connection is lost and when it is back (today they fall silent); the
  'table has moved on' notice never covers the Enter-the-dice button on a phone."
- "The table screen scales its type to the screen (at 1920×1080 it fills less than half the
  height) and wraps long names (cut at 1280×720)."
- "The roll log on a phone is 13,788 px after three turns (one card per roll, no paging): this turn
  by default, compact rows, paged."

Each test PRINTS its figure (docs/pages.md). Screenshots go to ``REGNAL_SCREENSHOTS`` when it is set
(docs/screenshots), else to a temporary folder."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Campaign, Roll, Step
from dynasties.models import Character, Dynasty, Status
from dynasties.services import births_finish, births_roll_all, survival_roll
from dynasties.treasury import treasury_transfer
from operations.services import campaign_start
from rules.dice import RandomSource
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT_MS = 10_000  # the poll asks every 700 ms; long enough for a loaded machine
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
PROJECTOR = {"width": 1280, "height": 720}
TV = {"width": 1920, "height": 1080}
LONG_NAME = "Maximilian Ferdinand Leopold Augustin"


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _survival(gm: Any, alice: Any, name: str) -> Campaign:
    """Two turns played, the third's Births rolled and closed: Survival waits for its dice."""
    game = campaign_start(name=name, gm=gm, players=5, seats={"England": alice}, prehistory_turns=2, seed=3)
    births_roll_all(campaign=game, source=RandomSource(3), by=gm)
    births_finish(campaign=Campaign.objects.get(pk=game.pk), by=gm)
    game.refresh_from_db()
    assert game.step == Step.SURVIVAL
    return game


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def _apart(a: dict[str, float], b: dict[str, float]) -> float:
    """The vertical gap between two boxes (negative: they overlap), after checking they do not
    overlap in both directions at once."""
    overlap_x = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    gap_y = max(b["y"] - (a["y"] + a["height"]), a["y"] - (b["y"] + b["height"]))
    assert overlap_x <= 0 or gap_y >= 0, f"the boxes overlap: {a} and {b}"
    return gap_y


# --- The connection lost, and back; the notice above the dice button -------------------------------


def test_an_open_page_says_the_connection_is_lost_and_back_and_no_notice_covers_the_dice_button(
    browser: Browser, live_server, gm, alice
):
    game = _survival(gm, alice, "Lost and Found")
    england = Dynasty.objects.get(campaign=game, crown="England")
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/survival/")
        expect(page.locator("[data-step-open=survival]")).to_have_count(1)
        sign = page.get_by_role("status").filter(has_text="Connection")
        expect(sign).to_have_count(0)

        # the network goes: the page says so
        lost_at = time.monotonic()
        context.set_offline(True)
        expect(sign).to_contain_text("Connection lost", timeout=WAIT_MS)
        expect(sign).to_be_visible()
        shown_ms = (time.monotonic() - lost_at) * 1000
        # ... and it comes back: the page says that too, then takes the sign down
        back_at = time.monotonic()
        context.set_offline(False)
        expect(sign).to_contain_text("Connection back", timeout=WAIT_MS)
        back_ms = (time.monotonic() - back_at) * 1000
        expect(sign).to_have_count(0, timeout=WAIT_MS)
        cleared_ms = (time.monotonic() - back_at) * 1000
        print(
            f"\nconnection-lost sign: shown {shown_ms:.0f} ms after the network went, 'back' {back_ms:.0f} ms after it "
            f"returned, cleared {cleared_ms:.0f} ms after it returned"
        )

        # the server failing (a 503 from the poll) is a lost connection too; a page that follows
        # again picks up what it missed
        page.route(f"**/c/{game.slug}/live/**", lambda route: route.fulfill(status=503, body="down"))
        expect(sign).to_contain_text("Connection lost", timeout=WAIT_MS)
        treasury_transfer(campaign=game, payer=None, payee=england, amount=7, reason="Alms while away", by=gm)
        page.unroute(f"**/c/{game.slug}/live/**")
        expect(sign).to_contain_text("Connection back", timeout=WAIT_MS)
        expect(page.locator("main")).to_contain_text("Survival")  # (the page drawn again, in place)

        # a die typed in, the table moves on: the notice stands clear of "Enter the dice"
        die = page.locator("form.grid input.die").first
        die.fill("3")
        treasury_transfer(campaign=game, payer=None, payee=england, amount=1, reason="Alms", by=gm)
        banner = page.locator("#live-banner")
        expect(banner).to_contain_text("The table has moved on.", timeout=WAIT_MS)
        expect(page.get_by_role("status").filter(has_text="Connection")).to_have_count(0, timeout=WAIT_MS)
        button = "form.grid .grid-submit button"
        gaps = [_apart(_box(page, "#live-banner"), _box(page, button))]
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")  # at the end of the page
        page.wait_for_timeout(100)
        gaps.append(_apart(_box(page, "#live-banner"), _box(page, button)))
        # both signs at once (the banner, and the connection lost): still clear
        context.set_offline(True)
        expect(sign).to_contain_text("Connection lost", timeout=WAIT_MS)
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(100)
        gaps.append(_apart(_box(page, "#live-signs"), _box(page, button)))
        context.set_offline(False)
        assert die.input_value() == "3"  # nothing typed was swept away
        page.get_by_role("button", name="Enter the dice").click(trial=True)  # reachable: nothing over it
        print(f"phone 390x844: the notice and 'Enter the dice' apart by {', '.join(f'{g:.0f}' for g in gaps)} px")
    finally:
        context.close()


# --- The table screen ------------------------------------------------------------------------------

FILLED = """() => {
  const screen = document.querySelector('.table-screen');
  let bottom = 0;
  for (const el of screen.querySelectorAll('.ts-now > *, .ts-results > *')) {
    bottom = Math.max(bottom, el.getBoundingClientRect().bottom);
  }
  return bottom / innerHeight;
}"""

CUT = """() => {
  const wide = e => e.scrollWidth > e.clientWidth + 1;
  const cut = [...document.querySelectorAll('.ts-who, .ts-line, .ts-what')].filter(wide);
  const panels = [...document.querySelectorAll('.ts-now, .ts-results')]
    .filter(e => e.scrollHeight > e.clientHeight + 1 || wide(e));
  const root = document.documentElement;
  return {
    cut: cut.map(e => e.textContent.trim()), panels: panels.length,
    over: root.scrollWidth - root.clientWidth, down: root.scrollHeight - root.clientHeight,
  };
}"""


def _fitted(page: Page, size: dict[str, int]) -> None:
    page.set_viewport_size(size)
    page.wait_for_function("() => document.querySelector('.table-screen')?.dataset.fitted === '1'")
    page.wait_for_timeout(150)  # the resize's refit (one animation frame)


def test_the_table_screen_fills_a_tv_and_wraps_long_names(browser: Browser, live_server, gm, alice, tmp_path):
    game = campaign_start(name="The Big Screen", gm=gm, players=5, seats={"England": alice}, prehistory_turns=2, seed=3)
    shots = _shots(tmp_path)
    page = browser.new_page(viewport=TV)
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        url = f"{live_server.url}/c/{game.slug}/table/"
        # Births: four couples and their odds, which filled less than half of a TV
        page.goto(url)
        expect(page.locator("h1.ts-step")).to_have_text("Births")
        _fitted(page, TV)
        births = page.evaluate(FILLED)
        page.screenshot(path=str(shots / "table-screen-tv.png"))

        # Survival, with a long name among those who roll
        births_roll_all(campaign=game, source=RandomSource(3), by=gm)
        births_finish(campaign=Campaign.objects.get(pk=game.pk), by=gm)
        eldest = Character.objects.filter(campaign=game, status=Status.ALIVE).order_by("birth_year", "pk").first()
        Character.objects.filter(pk=eldest.pk).update(given_name=LONG_NAME)  # behind the page's back: reload
        page.goto(url)
        expect(page.locator("h1.ts-step")).to_have_text("Survival")
        expect(page.locator(".ts-who").filter(has_text=LONG_NAME)).to_have_count(1)
        _fitted(page, TV)
        survival = page.evaluate(FILLED)
        print(f"\ntable screen at 1920x1080: content fills {births:.0%} of the height (Births), {survival:.0%} (Survival)")
        assert births >= 0.75 and survival >= 0.75, (births, survival)

        for size, name in ((PROJECTOR, "table-screen.png"), (LAPTOP, "table-screen-laptop.png"), (TV, None)):
            _fitted(page, size)
            found = page.evaluate(CUT)
            print(f"table screen at {size['width']}x{size['height']}: {found}")
            assert found == {"cut": [], "panels": 0, "over": 0, "down": 0}, (size, found)
            if name:
                page.screenshot(path=str(shots / name))
        name_box = page.locator(".ts-who").filter(has_text=LONG_NAME)
        _fitted(page, PROJECTOR)
        line = page.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)", name_box.element_handle())
        assert name_box.bounding_box()["height"] > 1.5 * line, "the long name is on one line: cut, or not long enough to test"

        _fitted(page, PHONE)  # a phone scrolls the screen instead
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        page.screenshot(path=str(shots / "table-screen-phone.png"), full_page=True)
    finally:
        page.close()


# --- The roll log on a phone ----------------------------------------------------------------------


def test_the_roll_log_on_a_phone_after_three_turns(browser: Browser, live_server, gm, alice, tmp_path):
    """Three turns of a new campaign: the first two played, the third's Births and Survival rolled."""
    game = _survival(gm, alice, "Three Turns")
    survival_roll(campaign=game, source=RandomSource(4), by=gm)
    total = Roll.objects.filter(campaign=game).count()
    this_turn = Roll.objects.filter(campaign=game, year=game.current_year).count()
    shots = _shots(tmp_path)
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/rolls/")
        expect(page.locator("tr.roll")).to_have_count(min(this_turn, 50))
        height = page.evaluate("document.documentElement.scrollHeight")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.screenshot(path=str(shots / "roll-log-phone.png"), full_page=True)
        row = page.locator("tr.roll").first.bounding_box()
        assert row is not None and row["height"] < 90, row  # a compact row, not a card
        page.get_by_role("link", name="All turns").click()
        expect(page).to_have_url(re.compile(r"year=all"))
        expect(page.locator("tr.roll")).to_have_count(min(total, 50))
        every = page.evaluate("document.documentElement.scrollHeight")
        if total > 50:
            expect(page.get_by_role("link", name="older »")).to_be_visible()
        print(
            f"\nroll log on a 390x844 phone after three turns ({total} rolls): this turn ({this_turn} rolls) "
            f"{height} px; all turns, page 1 of {-(-total // 50)} (50 rolls) {every} px; a row {row['height']:.0f} px"
        )
        assert height < 4000 and every < 4000, (height, every)
        laptop = browser.new_page(viewport=LAPTOP)
        try:
            log_in(laptop, live_server.url, "alice", "alice-password-1")
            laptop.goto(f"{live_server.url}/c/{game.slug}/rolls/")
            expect(laptop.locator("tr.roll")).to_have_count(min(this_turn, 50))
            laptop.screenshot(path=str(shots / "roll-log.png"))
        finally:
            laptop.close()
    finally:
        context.close()
