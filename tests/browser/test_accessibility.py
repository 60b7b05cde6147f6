"""Issue 34, accessible to everyone at the table: "the dashboard, the grids, the table screen, the
Players page and the character page pass axe-core's WCAG 2.1 AA rules with no serious or critical
violation (axe-core from the npm registry, run inside the browser tests); every die field has a label
a screen reader reads ('Anna Welf, survival, die 1'); the grids work with the keyboard alone."

axe-core is the npm registry's package, pinned by package.json / package-lock.json and installed into
node_modules/ by ``make setup-dev`` (``npm ci``). Each page gets it injected (the context bypasses the
site's CSP for that script only: the pages themselves are served as always) and runs it on the whole
document with the WCAG 2.0 and 2.1 A and AA rules. The pages are checked as the GM sees them on a
laptop (the grids in each state of a turn: empty, a die refused, the children's dice due) and as a
player sees them on a phone. The test prints the count of serious and critical violations per page
(``-s``) and holds each to 0; the die fields are found by the names Chromium computes for them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Campaign, Roll, Step
from dynasties.models import BirthAttempt, Character, Status
from dynasties.services import births_finish, births_roll_all
from dynasties.services.sequence_view import births_board, survival_board
from operations.services import campaign_start
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.eu_grid_helpers import eu_campaign, monarch, to_survival

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
GRAVE = ("serious", "critical")
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def axe_violations(page: Page) -> list[dict]:
    """axe-core's WCAG 2.1 AA violations on the page as it stands (every impact)."""
    assert AXE.exists(), f"{AXE} is missing: `make setup-dev` installs axe-core from the npm registry (npm ci)"
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("values => axe.run(document, {runOnly: {type: 'tag', values}})", WCAG_AA)
    assert len(result["passes"]) >= 10, "axe-core checked the page"  # it ran its rules (a stub would not)
    return result["violations"]


def described(violations: list[dict]) -> str:
    return "\n".join(
        f"{v['impact']} {v['id']}: {v['help']} -> {[n['target'] for n in v['nodes'][:4]]} {v['nodes'][0]['failureSummary'][:300]}"
        for v in violations
    )


class Audit:
    """axe-core run on page after page: the serious and critical violations of each, printed."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.found: dict[str, str] = {}

    def check(self, page: Page, name: str) -> None:
        every = axe_violations(page)
        grave = [v for v in every if v["impact"] in GRAVE]
        self.counts[name] = sum(len(v["nodes"]) for v in grave)
        lesser = sum(len(v["nodes"]) for v in every if v["impact"] not in GRAVE)
        print(f"axe-core, serious and critical violations on {name}: {self.counts[name]} (minor and moderate: {lesser})")
        if every:
            print(described(every))
        if grave:
            self.found[name] = described(grave)


def die(page: Page, name: str):
    """A die field found by the name a screen reader reads (Chromium's accessible name)."""
    return page.get_by_role("spinbutton", name=name, exact=True)


def test_the_table_pages_pass_axe_core_wcag21_aa(browser: Browser, live_server, gm, alice, bob):
    game = campaign_start(name="Axe", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    base = f"{live_server.url}/c/{game.slug}"
    couples = births_board(game).couples
    first, second = couples[0], couples[1]
    audit = Audit()

    # --- the GM on a laptop ----------------------------------------------------------------------
    context = browser.new_context(viewport=LAPTOP, bypass_csp=True)  # the site's CSP refuses an injected script
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/")
        audit.check(page, "the dashboard (GM, laptop)")
        page.goto(f"{base}/turn/births/")
        couple = f"{first.husband.display_name} and {first.wife.display_name}"
        expect(die(page, f"{couple}, birth attempt 1, Die 1")).to_be_focused()  # the cursor, by its spoken name
        audit.check(page, "the Births grid (GM, laptop)")
        # the control: a die field with no name is what axe-core calls a critical violation
        page.evaluate("""() => { const bare = document.createElement('input'); bare.type = 'number';
            bare.id = 'bare-die'; document.querySelector('form.grid').append(bare); }""")
        assert "label" in {v["id"] for v in axe_violations(page) if v["impact"] == "critical"}
        page.evaluate("() => document.getElementById('bare-die').remove()")
        page.keyboard.type("7" + "1" * 9)  # a 7 on a d6: refused
        page.keyboard.press("Enter")
        expect(page.locator("#refusal")).to_contain_text("Nothing was entered")
        expect(die(page, f"{couple}, birth attempt 1, Die 1")).to_be_focused()
        audit.check(page, "the Births grid, a die refused (GM, laptop)")
        page.keyboard.type("45" + "36")  # the refused die replaced; two children
        page.keyboard.press("Enter")
        expect(page.locator(f"#couple-{first.marriage.pk}")).to_contain_text("A child is born.")
        child = f"the child of {couple}"
        expect(die(page, f"{child}, Strength or Guile, die 1")).to_be_visible()
        audit.check(page, "the Births grid, the children's dice due (GM, laptop)")
        page.keyboard.type("2" + "4" * 9 + "5" + "4" * 9)
        page.keyboard.press("Enter")
        expect(page.locator("#step ul.messages")).to_contain_text("A daughter:")
        page.goto(f"{base}/table/")
        audit.check(page, "the table screen at Births (GM, laptop)")
        page.goto(f"{base}/players/")
        audit.check(page, "the Players page (GM, laptop)")
        someone = Character.objects.filter(campaign=game, status=Status.ALIVE).order_by("pk").first()
        assert someone is not None
        page.goto(f"{base}/character/{someone.pk}/")
        audit.check(page, "a character page (GM, laptop)")

        births_finish(campaign=Campaign.objects.get(pk=game.pk), by=gm)
        rows = survival_board(Campaign.objects.get(pk=game.pk)).to_roll
        page.goto(f"{base}/turn/survival/")
        expect(die(page, f"{rows[0].character.display_name}, survival, Die 1")).to_be_focused()
        expect(die(page, f"{rows[-1].character.display_name}, survival, Die 2")).to_be_visible()
        audit.check(page, "the Survival grid (GM, laptop)")
        page.goto(f"{base}/table/")
        audit.check(page, "the table screen at Survival (GM, laptop)")
    finally:
        context.close()
    assert BirthAttempt.objects.filter(campaign=game, marriage=second.marriage, child__isnull=False).exists()

    # --- a player on a phone, and the GM's Players page there ------------------------------------
    mine = Character.objects.filter(campaign=game, controlled_by__crown="England").order_by("pk").first()
    assert mine is not None
    phone = {
        ("alice", "alice-password-1", "player"): [
            ("the dashboard", "/"),
            ("the Survival grid", "/turn/survival/"),
            ("the table screen", "/table/"),
            ("a character page", f"/character/{mine.pk}/"),
            ("the house's page and its tree", f"/dynasty/{mine.controlled_by_id}/"),
        ],
        ("gm", "gm-password-1", "GM"): [("the Players page", "/players/")],
    }
    for (username, password, who), visits in phone.items():
        context = browser.new_context(viewport=PHONE, bypass_csp=True)
        page = context.new_page()
        try:
            log_in(page, live_server.url, username, password)
            for name, path in visits:
                assert page.goto(f"{base}{path}").status == 200, path
                audit.check(page, f"{name} ({who}, phone)")
        finally:
            context.close()

    assert len(audit.counts) == 15
    assert not audit.found, "\n\n".join(f"{name}:\n{text}" for name, text in audit.found.items())


def test_the_survival_grid_with_the_keyboard_alone(browser: Browser, live_server, gm, alice, bob):
    """No mouse: the cursor starts in the first die; digits fill the dice and move on; Shift+Tab
    goes back to a row's "typed / server" choice and a letter chooses the server's dice; Tab goes on
    through the row (its name's link, its choice, its dice); Enter sends the grid."""
    game = campaign_start(name="Keys", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=4)
    births_roll_all(campaign=game, source=RandomSource(4), by=gm)
    births_finish(campaign=Campaign.objects.get(pk=game.pk), by=gm)
    game = Campaign.objects.get(pk=game.pk)
    rows = [r.character for r in survival_board(game).to_roll]
    assert len(rows) >= 6
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    clicks: list[int] = []
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")  # the login page is not the grid: typed, then a click
        page.goto(f"{live_server.url}/c/{game.slug}/turn/survival/")
        page.evaluate("() => { window.__clicks = 0; document.addEventListener('mousedown', () => window.__clicks++, true); }")
        expect(die(page, f"{rows[0].display_name}, survival, Die 1")).to_be_focused()
        page.keyboard.type("6" + "5" + "4" + "3")  # two rows; the cursor is on the third's first die
        third = die(page, f"{rows[2].display_name}, survival, Die 1")
        expect(third).to_be_focused()
        page.keyboard.press("Shift+Tab")  # back to the third row's choice of dice
        choice = page.locator(f'select[name="how-{rows[2].pk}"]')
        expect(choice).to_be_focused()
        page.keyboard.type("s")  # "server": the server rolls this one
        expect(choice).to_have_value("server")
        for _ in range(8):  # Tab on through the row, to the fourth row's first die
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.name") == f"s{rows[3].pk}-d1":
                break
        expect(die(page, f"{rows[3].display_name}, survival, Die 1")).to_be_focused()
        page.keyboard.type("66" * (len(rows) - 3))
        expect(page.get_by_role("button", name="Enter the dice")).to_be_focused()  # the last die done: the button
        page.keyboard.press("Enter")
        expect(page.locator("#step ul.messages")).to_contain_text(f"{len(rows)} survival rolls")
        expect(page.locator("form#survival-grid")).to_have_count(0)  # everyone rolled
        clicks.append(page.evaluate("window.__clicks"))  # the page was never reloaded: its counter stands
    finally:
        context.close()
    survival = Roll.objects.filter(campaign=game, step=Step.SURVIVAL).prefetch_related("characters")
    rolls = {c.pk: r for r in survival for c in r.characters.all()}
    assert len(rolls) == len(rows)
    assert (rolls[rows[0].pk].faces, rolls[rows[1].pk].faces) == ([6, 5], [4, 3])
    assert rolls[rows[2].pk].source == "server"
    assert all(rolls[c.pk].faces == [6, 6] and rolls[c.pk].source == "entered" for c in rows[3:])
    print(f"The Survival grid by keyboard alone: {len(rows)} rows entered, {clicks[0]} mouse presses on the page")
    assert clicks == [0]


def test_the_eu_monarchs_grid_passes_axe_core_and_names_its_dice(browser: Browser, live_server, gm, alice, bob):
    """The third grid: an eu-monarchs campaign's Survival, one card per crown."""
    game = to_survival(eu_campaign(gm, {"France": alice, "Poland": bob}))
    king = monarch(game, "France")
    audit = Audit()
    context = browser.new_context(viewport=LAPTOP, bypass_csp=True)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/survival/")
        expect(die(page, f"{king.display_name}, France, Survival die")).to_be_visible()
        audit.check(page, "the EU monarchs' grid (GM, laptop)")
    finally:
        context.close()
    assert not audit.found, audit.found


def test_the_births_grid_with_the_keyboard_alone(browser: Browser, live_server, gm, alice, bob):
    """No mouse: the couples' dice typed on, Enter; the children's sex and characteristics typed on
    (the couple's optional further attempt, closed, skipped by the cursor); Shift+Tab from the button
    (past the other couples' links) reaches its "Try again?", Enter opens it, Tab reaches its dice, and Enter sends it all."""
    game = campaign_start(name="Keys Births", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    first = births_board(game).couples[0]
    couple = f"{first.husband.display_name} and {first.wife.display_name}"
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/births/")
        page.evaluate("() => { window.__clicks = 0; document.addEventListener('mousedown', () => window.__clicks++, true); }")
        expect(die(page, f"{couple}, birth attempt 1, Die 1")).to_be_focused()
        page.keyboard.type("45" + "11" * 4)  # a child for the first couple, none for the others
        page.keyboard.press("Enter")
        card = page.locator(f"#couple-{first.marriage.pk}")
        expect(card).to_contain_text("A child is born.")
        expect(die(page, f"the child of {couple}, Strength or Guile, die 1")).to_be_visible()
        expect(card.get_by_label(re.compile("^Sex die"))).to_be_focused()  # the step settled: the cursor is on it
        page.keyboard.type("2" + "4" * 9)  # its sex, then three characteristics of three dice
        button = page.get_by_role("button", name="Enter the dice")
        expect(button).to_be_focused()  # the closed "Try again?" skipped
        summary = card.locator("details.try-again summary")
        back = 0
        while back < 30 and not summary.evaluate("s => s === document.activeElement"):
            page.keyboard.press("Shift+Tab")  # back past the other couples' links to the first couple's
            back += 1
        expect(summary).to_be_focused()
        page.keyboard.press("Enter")  # opens the further attempt
        expect(card.locator("details.try-again")).to_have_attribute("open", "")
        again = die(page, f"{couple}, birth attempt 2, Die 1")
        for _ in range(6):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.name") == f"r{first.marriage.pk}-d1":
                break
        expect(again).to_be_focused()
        page.keyboard.type("66")
        page.keyboard.press("Enter")
        expect(page.locator("#step ul.messages")).to_contain_text("A son:")
        expect(page.locator("#step ul.messages")).to_contain_text("attempt 2: 6 + 6 = 12: a child!")
        presses = page.evaluate("window.__clicks")
    finally:
        context.close()
    attempts = BirthAttempt.objects.filter(marriage=first.marriage).select_related("roll").order_by("attempt")
    assert [(a.attempt, a.roll.faces) for a in attempts] == [(1, [4, 5]), (2, [6, 6])]
    assert attempts[0].child is not None and attempts[0].child.sex == "M"
    print(
        f"The Births grid by keyboard alone: a child, its 10 dice, a further attempt reached by {back} Shift+Tab"
        f" and opened by Enter; {presses} mouse presses"
    )
    assert presses == 0
