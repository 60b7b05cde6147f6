"""Issue 19, the goal: a whole 5-house Blood Royale turn with every die typed in, counted. The GM
types the dice from the table on a 1280x800 screen - Births (every couple, then the children's sex
and characteristics), Survival (everyone) - and goes on through Marriages and the Announcements to
the next turn. The test counts the clicks (a submit by Enter counts as a click), the fields filled
and the full page loads inside a step, prints them (run with ``-s`` to see them) and holds them to
the goal: at most 8 clicks (issue 34; issue 19's was 12), no page load inside a step. Then the Survival grid on a 390x844 phone:
nothing scrolls sideways.

Screenshots (births-grid, survival-grid, survival-grid-phone) go to ``docs/screenshots/`` when the
environment names that directory (``REGNAL_SCREENSHOTS=docs/screenshots``), else to a temporary one."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Campaign, Roll, Step
from dynasties.models import BirthAttempt
from dynasties.services import births_finish, births_roll_all
from dynasties.services.sequence_view import births_board, survival_board
from operations.services import campaign_start
from rules.dice import RandomSource
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MAX_SHOT = 250_000  # bytes, for the README
TURN_CLICKS = 8  # issue 34's budget for a typed 5-house turn (issue 19's was 12)


@dataclass
class Tally:
    """What the GM did: clicks (submits by Enter included), fields filled, page loads inside a step."""

    clicks: int = 0
    fields: int = 0
    loads_in_step: int = 0
    in_step: str = ""
    loads: list[str] = field(default_factory=list)

    def click(self, locator) -> None:
        self.clicks += 1
        locator.click()

    def enter(self, locator) -> None:
        self.clicks += 1
        locator.press("Enter")

    def type_dice(self, page: Page, faces: str) -> None:
        """Type the digits as a person does: each completes a d6 and the cursor moves to the next die."""
        self.fields += len(faces)
        page.keyboard.type(faces)

    def fill(self, locator, value: str) -> None:
        self.fields += 1
        locator.fill(value)


def shot(page: Page, folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) < MAX_SHOT, (name, len(data))


def no_sideways_scroll(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px on {page.url}"


def expect_focus(page: Page, name: str) -> None:
    """The cursor is on the field ``name``, or gets there (the grid's script moves it after a
    keystroke and after the step's part is swapped in: on a busy machine, a moment later)."""
    expect(page.locator(f'[name="{name}"]')).to_be_focused()


def test_a_whole_turn_with_every_die_typed(browser: Browser, live_server, gm, alice, bob, tmp_path):
    """``pytest -s`` prints the figures."""
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    game = campaign_start(name="Typed Turn", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    assert (game.current_year, game.step) == (1300, Step.BIRTHS)
    couples = [row.marriage.pk for row in births_board(game).couples]
    assert len(couples) == 5
    base = f"{live_server.url}/c/{game.slug}"
    tally = Tally()

    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()

    def loaded(frame) -> None:
        if frame == page.main_frame:
            tally.loads.append(frame.url)
            if tally.in_step:
                tally.loads_in_step += 1

    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/turn/births/")  # where the GM starts: the Births page, open on the table's laptop
        page.on("framenavigated", loaded)
        tally.in_step = "births"

        # --- Births: every couple's attempt in one grid (the first two have a child) -----------
        expect(page.get_by_role("button", name="Enter the dice")).to_be_visible()
        expect_focus(page, f"a{couples[0]}-d1")  # the cursor starts in the first die
        tally.type_dice(page, "45" + "36" + "11" * 3)
        expect(page.get_by_role("button", name="Enter the dice")).to_be_focused()  # the last die done: the button
        tally.click(page.get_by_role("button", name="Enter the dice"))
        expect(page.locator("#step ul.messages li")).to_have_count(5)
        expect(page.locator("#step ul.messages")).to_contain_text("4 + 5 = 9: a child! Now its sex.")
        born = couples[:2]
        for pk in born:
            expect(page.locator(f"#couple-{pk}")).to_contain_text("A child is born.")
        expect(page.locator(f"#couple-{couples[2]}")).to_contain_text("1 + 1 = 2")
        expect_focus(page, f"x{born[0]}-sex")  # after the swap: the first empty die again
        page.locator(f"#couple-{born[0]}").evaluate(
            "el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8)"
        )
        shot(page, folder, "births-grid")
        # the grid of a 5-house turn fits about two screens (issue 34: a couple's further attempt is
        # closed until asked; it was 2,700-2,900 px with every "Try again?" box open)
        grid_height = page.locator("form#births-grid").evaluate("f => f.getBoundingClientRect().height")
        assert grid_height <= 2.2 * DESKTOP["height"], grid_height

        # --- the children: sex and the three characteristics of each, typed on; the couple's further
        # attempt ("Try again?") is closed and optional, so the cursor goes from the first child's last
        # characteristic to the second child's sex die (issue 34), then to the button
        for pk in born:
            expect(page.locator(f"#couple-{pk} details.try-again")).to_have_count(1)
            expect(page.locator(f"#couple-{pk} details.try-again")).not_to_have_attribute("open", re.compile(".*"))
        tally.type_dice(page, "2" + "4" * 9)
        expect_focus(page, f"x{born[1]}-sex")
        tally.type_dice(page, "5" + "4" * 9)
        expect(page.get_by_role("button", name="Enter the dice")).to_be_focused()
        tally.enter(page.get_by_role("button", name="Enter the dice"))
        expect(page.locator("#step ul.messages")).to_contain_text("A son:")
        expect(page.locator("#step ul.messages")).to_contain_text("A daughter:")
        children = [BirthAttempt.objects.get(marriage_id=pk, attempt=1).child for pk in born]
        assert [c.sex for c in children if c is not None] == ["M", "F"]
        for pk in born:
            expect(page.locator(f"#couple-{pk}")).to_contain_text("Try again?")

        tally.in_step = ""
        tally.click(page.get_by_role("button", name="Finish Births"))  # loads Survival: between steps

        # --- Survival: everyone in one grid ------------------------------------------------------
        expect(page).to_have_url(re.compile(r"/turn/survival/(#.*)?$"))
        expect(page.locator("#step ul.messages")).to_contain_text("Births of 1300 closed: now Survival.")
        tally.in_step = "survival"
        game.refresh_from_db()
        rows = [r.character.pk for r in survival_board(game).to_roll]
        assert len(rows) >= 10
        expect_focus(page, f"s{rows[0]}-d1")
        tally.type_dice(page, "66" * len(rows))
        shot(page, folder, "survival-grid")
        tally.enter(page.locator(f"#character-{rows[-1]}").get_by_label("Die 2", exact=True))
        expect(page.locator("#step ul.messages")).to_contain_text(f"{len(rows)} survival rolls")
        expect(page.locator("form#survival-grid")).to_have_count(0)  # everyone rolled
        tally.in_step = ""
        tally.click(page.get_by_role("button", name=re.compile("^Finish Survival")))

        # --- Marriages (Finish Survival goes on to it: issue 34), the Announcements, the next turn --
        expect(page).to_have_url(re.compile(r"/turn/marriages/(#.*)?$"))
        expect(page.locator("ul.messages")).to_contain_text("Survival of 1300 closed")
        tally.click(page.get_by_role("button", name="Finish Marriages"))
        expect(page.get_by_role("heading", name="Announcements of 1300")).to_be_visible()
        tally.click(page.get_by_role("button", name="Publish the announcements"))
        expect(page.locator("ul.messages")).to_contain_text("The announcements of 1300 are published.")
        tally.click(page.get_by_role("button", name=re.compile("Start the next turn")))
        expect(page).to_have_url(re.compile(r"/turn/births/(#.*)?$"))  # the new turn's Births, not the dashboard
        expect(page.locator("ul.messages")).to_contain_text("The turn of 1305 begins with the Births.")
    finally:
        context.close()

    print(
        f"\nA typed 5-house turn: {tally.clicks} clicks (submits by Enter included), {tally.fields} dice fields, "
        f"{tally.loads_in_step} page loads inside a step ({len(tally.loads)} page loads in all, between steps); "
        f"the Births grid with two children due is {grid_height:.0f} px tall at 1280x800."
    )
    assert tally.clicks <= TURN_CLICKS
    assert tally.loads_in_step == 0
    game.refresh_from_db()
    assert (game.current_year, game.step) == (1305, Step.BIRTHS)
    typed = Roll.objects.filter(campaign=game, year=1300, step__in=[Step.BIRTHS, Step.SURVIVAL])
    assert typed.exists() and not typed.exclude(source="entered").exists()  # every die was typed in


def test_the_survival_grid_on_a_phone(browser: Browser, live_server, gm, alice, bob, tmp_path):
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    game = campaign_start(name="Phone Turn", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=4)
    births_roll_all(campaign=game, source=RandomSource(4), by=gm)
    births_finish(campaign=game, by=gm)
    game = Campaign.objects.get(pk=game.pk)
    rows = [r.character.pk for r in survival_board(game).to_roll]
    assert len(rows) >= 10
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/survival/")
        expect(page.locator("form#survival-grid")).to_be_visible()
        no_sideways_scroll(page)
        # one line per character: each row no taller than two thumbs
        heights = page.locator("form#survival-grid tbody tr").evaluate_all(
            "trs => trs.map(t => t.getBoundingClientRect().height)"
        )
        assert len(heights) == len(rows) and max(heights) <= 60, heights
        expect_focus(page, f"s{rows[0]}-d1")
        page.keyboard.type("6" + "9")  # a 9 on a d6: refused next to the die, nothing rolled
        page.keyboard.type("66" * (len(rows) - 1))
        page.keyboard.press("Enter")
        row = page.locator(f"#character-{rows[0]}")
        expect(row.locator("[role=alert]")).to_contain_text("Die 2: A d6 shows 1 to 6.")
        assert not Roll.objects.filter(campaign=game, purpose="survival").exists()
        expect(page.locator("#refusal")).to_contain_text("Nothing was entered: fix the 1 character marked below")
        expect_focus(page, f"s{rows[0]}-d2")  # the cursor is on the wrong die
        no_sideways_scroll(page)
        page.keyboard.press("Control+A")
        page.keyboard.type("5")
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("form#survival-grid").scroll_into_view_if_needed()
        shot(page, folder, "survival-grid-phone")
        page.get_by_role("button", name="Enter the dice").click()
        expect(page.locator("#step ul.messages")).to_contain_text(f"{len(rows)} survival rolls")
        expect(page.locator("form#survival-grid")).to_have_count(0)
        no_sideways_scroll(page)
    finally:
        context.close()
    assert Roll.objects.filter(campaign=game, purpose="survival").count() == len(rows)
    first = Roll.objects.get(campaign=game, purpose="survival", subjects__character_id=rows[0])
    assert first.faces == [6, 5] and first.source == "entered"


def test_the_grid_works_without_javascript(browser: Browser, live_server, gm, alice, bob):
    game = campaign_start(name="No Script", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=5)
    couples = [row.marriage.pk for row in births_board(game).couples]
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/births/")
        mine = page.locator("section.couple.mine")
        expect(mine).to_have_count(1)  # England's couple, first
        expect(page.locator("section.couple").first).to_have_class(re.compile(r"\bmine\b"))
        mine.get_by_label("Die 1", exact=True).fill("2")
        mine.get_by_label("Die 2", exact=True).fill("7")  # a 7 on a d6: the page comes back with the die marked
        page.get_by_role("button", name="Enter the dice").click()
        expect(mine.locator("[role=alert]")).to_contain_text("Die 2: A d6 shows 1 to 6.")
        mine.get_by_label("Die 2", exact=True).fill("3")
        page.get_by_role("button", name="Enter the dice").click()
        expect(page).to_have_url(re.compile(r"/turn/births/#step$"))  # the form's own POST, then the page
        expect(page.locator("#step ul.messages")).to_contain_text("attempt 1: 2 + 3 = 5: no child.")
    finally:
        context.close()
    made = BirthAttempt.objects.get(campaign=game)
    assert made.marriage_id in couples and made.roll.faces == [2, 3] and made.roll.source == "entered"


def test_a_d10_waits_for_its_second_digit(browser: Browser, live_server):
    """BloodLine rolls 2d10: a "1" may be the start of "10", so the cursor waits; "10" or any
    other digit completes the die."""
    from campaign.models import Membership, Role
    from operations.services import demo_create

    demo = demo_create(ruleset="eu-bloodline").campaign
    master = Membership.objects.get(campaign=demo, role=Role.GM).user
    master.set_password("gm-password-1")
    master.save()
    first = next(row for row in births_board(demo).couples if row.may_attempt).marriage.pk
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url, master.get_username(), "gm-password-1")
        page.goto(f"{live_server.url}/c/{demo.slug}/turn/births/")
        expect(page.get_by_role("button", name="Enter the dice")).to_be_visible()
        expect_focus(page, f"a{first}-d1")
        page.keyboard.type("1")
        expect_focus(page, f"a{first}-d1")  # "1" of a d10 waits
        page.keyboard.type("0")
        expect_focus(page, f"a{first}-d2")  # "10": on to the next die
        page.keyboard.type("5")
        expect(page.locator(f'[name="a{first}-d2"]')).not_to_be_focused()  # a "5" is a whole d10
        assert page.locator(f"#id_a{first}-d1").input_value() == "10"
        assert page.locator(f"#id_a{first}-d2").input_value() == "5"
    finally:
        context.close()


SETTLE_MS = 2500  # htmx settles a swapped step after 20 ms; made long here, so the race is certain


def test_the_cursor_stays_where_the_gm_put_it_while_the_step_settles(browser: Browser, live_server, gm, alice, bob):
    """After the grid is sent, the step is swapped in and, once it settles, the cursor goes to the
    first empty die - unless the GM has meanwhile clicked into a field himself: his keystrokes must
    land there, not in a die the script chose (they went to another couple's die, or were lost)."""
    game = campaign_start(name="Settling", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    first, _, other = (row.marriage.pk for row in births_board(game).couples[:3])
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/births/")
        expect_focus(page, f"a{first}-d1")
        page.evaluate(
            f"htmx.config.defaultSettleDelay = {SETTLE_MS};"
            "window.__settled = false;"
            "document.addEventListener('htmx:afterSettle', () => { window.__settled = true; }, {once: true})"
        )
        page.keyboard.type("45")  # the first couple's attempt: a child; the cursor moves on to the second's
        page.keyboard.press("Enter")
        expect(page.locator("#step ul.messages")).to_contain_text("4 + 5 = 9: a child! Now its sex.")
        page.locator(f'[name="a{other}-d1"]').click()  # the GM picks the third couple, the step not yet settled
        assert page.evaluate("window.__settled") is False, "the step settled before the click: no race to test"
        page.wait_for_function("() => window.__settled === true")
        expect_focus(page, f"a{other}-d1")
        page.keyboard.type("36")
        assert page.locator(f'[name="a{other}-d1"]').input_value() == "3"
        assert page.locator(f'[name="a{other}-d2"]').input_value() == "6"
        assert page.locator(f'[name="x{first}-sex"]').input_value() == ""
    finally:
        context.close()
