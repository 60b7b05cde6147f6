"""Issue 34, the typo (the commonest mistake at a table): a 7 typed for a d6 on the Births grid.

"A refused grid (a 7 typed for a d6) is not scrolled into view and the cursor is lost
(``document.activeElement`` is BODY; htmx fires no swap for the 400); Enter then does nothing and the
next click reloads the whole page [...] Goal: the refusal shows beside the die and at the top of the
view, the cursor is on that die with its value selected, and fixing it is one digit and Enter: no
extra click, no reload."

Served as ``make run`` serves it (DEBUG on: django-htmx's debug script then replaced the whole
document with any 400, which is how the cursor was lost), at 1280x800 and on a 390x844 phone. The
test counts the clicks, the digits and the page loads of the recovery and prints them (``-s``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from dynasties.models import BirthAttempt
from dynasties.services.sequence_view import births_board
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def in_view(page: Page, selector: str) -> bool:
    """The element's box lies inside the viewport (wholly)."""
    return page.evaluate(
        """sel => { const r = document.querySelector(sel).getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }""",
        selector,
    )


@pytest.mark.parametrize("size", list(SIZES))
def test_a_refused_die_costs_one_digit_and_enter(browser: Browser, live_server, gm, alice, bob, settings, tmp_path, size):
    settings.DEBUG = True  # as `make run` serves the site: django-htmx's debug script is on the page
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    game = campaign_start(name="Typo", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    couples = [row.marriage.pk for row in births_board(game).couples]
    assert len(couples) == 5
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    loads: list[str] = []
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/births/")
        first = page.locator(f'[name="a{couples[0]}-d1"]')
        expect(first).to_be_focused()
        page.on("framenavigated", lambda frame: loads.append(frame.url) if frame == page.main_frame else None)
        clicks = digits = 0

        page.keyboard.type("7312121212")  # the first die a 7: a d6 shows 1 to 6
        page.keyboard.press("Enter")
        # refused: beside the die, and at the top of the view; nothing entered
        card = page.locator(f"#couple-{couples[0]}")
        expect(card.locator("[role=alert]")).to_contain_text("Die 1: A d6 shows 1 to 6.")
        expect(page.locator("#refusal")).to_contain_text("Nothing was entered")
        assert not BirthAttempt.objects.filter(campaign=game).exists()
        expect(first).to_be_focused()  # the cursor on the refused die (it was on BODY)
        page.wait_for_function(
            "sel => { const r = document.querySelector(sel).getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= innerHeight; }",
            arg=f'[name="a{couples[0]}-d1"]',
        )
        assert in_view(page, "#refusal"), "the refusal's summary is at the top of the view"
        assert page.evaluate("document.querySelector('#refusal').getBoundingClientRect().top") <= 1
        page.screenshot(path=str(folder / f"births-refused-{size}.png"))

        page.keyboard.type("4")  # its value selected: the digit replaces the 7 (it gave "74" before)
        digits += 1
        assert first.input_value() == "4"
        page.keyboard.press("Enter")  # the cursor went on to die 2 (its 3 selected): Enter sends the grid
        expect(page.locator("#step ul.messages li")).to_have_count(5)
        expect(page.locator("#step ul.messages")).to_contain_text("4 + 3 = 7: a child! Now its sex.")
        expect(page.locator("#refusal")).to_have_count(0)
        expect(page.locator(f'[name="x{couples[0]}-sex"]')).to_be_focused()  # on to the die that must be rolled
    finally:
        context.close()
    screen = f"{SIZES[size]['width']}x{SIZES[size]['height']}"
    print(f"\nA refused die ({size} {screen}): {clicks} clicks, {digits} digit, Enter; {len(loads)} page loads.")
    assert (clicks, digits, loads) == (0, 1, [])
    assert BirthAttempt.objects.filter(campaign=game).count() == 5
    made = BirthAttempt.objects.get(marriage_id=couples[0], attempt=1)
    assert made.roll is not None and made.roll.faces == [4, 3] and made.success
