"""Issue 32, the goal: four turns of an eu-monarchs campaign of five countries (France, Poland with a
named monarch, Spain, Turkey, Venice with a Doge) played through the monarchs' grid with every die
typed in, counted as ``tests/browser/test_typed_turn.py`` counts (a submit by Enter is a click).
The faces are chosen so that the four turns hold a death, a Dynastic Crisis, a minority and a reign
running out:

- 1492: Turkey's 10 (+1 MIL) reads 11, dead, "revolt and Dynastic Crisis": the successor, typed in
  the same row, is a teenager (an 8) in a Dynastic Crisis;
- 1497: Spain's king dies on a 10, his successor typed in the same row;
- 1502: Venice's Doge dies on a 10, the next Doge typed in the same row (no age die);
- 1507: France's first king rolled a reign of 3 turns: it is spent, a 5 ends it.

The grid (Survival) takes 2 clicks a turn, as the Survival grid does (the dice, then Finish); the
whole turn stays within the typed turn's budget of 12 clicks for 5 crowns; no page loads inside a
step. ``pytest -s`` prints the figures. Then the grid on a 390x844 phone: a refused die, nothing
sideways. Screenshots (eu-grid, eu-grid-phone) go to ``docs/screenshots/`` when
``REGNAL_SCREENSHOTS=docs/screenshots``, else to a temporary folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from campaign.models import Campaign, Roll, Step
from dynasties.models import Reign
from dynasties.services import births_finish
from dynasties.services.eu_monarchs import monarch_status
from operations.exchange import campaign_export
from tests.browser.helpers import log_in
from tests.browser.test_typed_turn import DESKTOP, PHONE, Tally, expect_focus, no_sideways_scroll, shot
from tests.crosscheck.eu_monarchs import check_eu_monarchs
from tests.eu_grid_helpers import crown, eu_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SURVIVAL_GRID_CLICKS = 2  # the Survival grid's: "Enter the dice", then "Finish Survival" (test_typed_turn)
TURN_BUDGET, TURN_CROWNS = 8, 5  # the typed turn's: at most 8 clicks for a 5-house turn (issue 34)
ORDER = ("France", "Poland", "Spain", "Turkey", "Venice")  # the grid's rows, by crown name

# Each turn's keystrokes, crown by crown: the survival die, then (a reign ended) the successor's
# succession, ADM, DIP, MIL and reign dice in the same row. "10" is two keystrokes; a 5 one.
TURNS: dict[int, dict[str, list[str]]] = {
    1492: {"France": ["5"], "Poland": ["5"], "Spain": ["5"], "Turkey": ["10", "8", "5", "5", "5", "5"], "Venice": ["5"]},
    1497: {"France": ["5"], "Poland": ["5"], "Spain": ["10", "5", "6", "7", "8", "5"], "Turkey": ["3"], "Venice": ["5"]},
    1502: {"France": ["5"], "Poland": ["5"], "Spain": ["5"], "Turkey": ["5"], "Venice": ["10", "5", "5", "5", "5", "5"]},
    1507: {"France": ["5", "5", "5", "5", "5", "5"], "Poland": ["5"], "Spain": ["5"], "Turkey": ["5"], "Venice": ["5"]},
}


# The same five thrones typed on the New campaign page (the "page" way): France's king a reign of 3
# turns, Spain's and Turkey's (MIL 4: +1 to his survival) 7, Venice's Doge 5, Poland's Sobieski the aid's.
TYPED_ON_THE_PAGE = {
    "france": ("Jean", (5, 5, 5), 3),
    "spain": ("Juan", (5, 5, 5), 7),
    "turkey": ("Bayezid", (4, 4, 4), 7),
    "venice": ("Agostino", (6, 6, 6), 5),
}


def _created_on_the_page(page, live_server) -> Campaign:
    """A GM creates the campaign from the New campaign page: France, Poland (a historical king), Spain,
    Turkey and Venice (its Doge), the first monarchs typed but Poland's."""
    page.goto(f"{live_server.url}/campaigns/new/")
    page.get_by_label("Name of the campaign").fill("Europa Page")
    page.get_by_label("Europa Universalis: monarch tables").check()
    page.locator("#id_eu_england").uncheck()
    page.locator("#id_eu_austria").uncheck()
    page.locator("#id_eu_poland").check()
    page.locator("#id_eu_venice").check()
    page.locator("#eu_poland-row").get_by_label("A historical monarch").check()
    page.locator("#id_eu_poland_named").select_option("Sobieski")
    page.locator("#id_eu_poland_era").uncheck()  # as the services' campaign: no era (Poland never succeeds here)
    for key, (name, values, reign) in TYPED_ON_THE_PAGE.items():
        page.locator(f"#eu_{key}-row").get_by_label("Typed by the GM").check()
        page.locator(f"#id_eu_{key}_name").fill(name)
        for field, value in zip(("adm", "dip", "mil"), values, strict=True):
            page.locator(f"#id_eu_{key}_{field}").fill(str(value))
        page.locator(f"#id_eu_{key}_reign").fill(str(reign))
    expect(page.locator("#id_eu_venice_doge")).to_be_checked()
    page.get_by_role("button", name="Create the campaign").click()
    game = Campaign.objects.get(name="Europa Page")
    expect(page).to_have_url(f"{live_server.url}/c/{game.slug}/")
    return game


@pytest.mark.parametrize("made", ["services", "page"])
def test_four_eu_turns_with_every_die_typed(browser: Browser, live_server, gm, alice, tmp_path, made):
    """``made``: the campaign made by the set-up's services, or created by the GM on the New campaign page
    (issue 32's goal: from the page's set-up to four typed turns in one browser)."""
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    tally = Tally()
    grid_clicks: list[int] = []
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()

    def loaded(frame) -> None:
        if frame == page.main_frame:
            tally.loads.append(frame.url)
            if tally.in_step:
                tally.loads_in_step += 1

    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        if made == "page":
            game = _created_on_the_page(page, live_server)
        else:
            game = eu_campaign(gm, {"France": alice}, name="Europa Typed", reigns={"France": 1})  # France: 3 turns
        assert Reign.objects.get(campaign=game, crown="France", end_year__isnull=True).planned_end_year == 1507
        keys = {name: crown(game, name).pk for name in ORDER}
        base = f"{live_server.url}/c/{game.slug}"
        page.goto(f"{base}/turn/births/")
        page.on("framenavigated", loaded)
        for year, typed in TURNS.items():
            if year != 1492:  # the next turn's Births, where "Start the next turn" lands (issue 34)
                expect(page).to_have_url(re.compile(r"/turn/births/(#.*)?$"))
            # Births: nothing to roll in this ruleset; the page says where the monarchs roll
            expect(page.locator("#step")).to_contain_text("made on the Survival page, in one grid")
            tally.click(page.get_by_role("button", name="Finish Births"))
            expect(page).to_have_url(re.compile(r"/turn/survival/(#.*)?$"))
            # Survival: the monarchs' grid, every die typed
            tally.in_step = "survival"
            before = tally.clicks
            first = next(name for name in ORDER if len(typed[name]) >= 1)
            expect_focus(page, f"m{keys[first]}-d1")  # the cursor starts in the first crown's survival die
            for name in ORDER:
                row = page.locator(f"#crown-{keys[name]}")
                succession = row.locator("fieldset.succession")
                for n, digits in enumerate(typed[name]):
                    tally.fields += 1
                    page.keyboard.type(digits)
                    if n == 0 and len(typed[name]) > 1:
                        expect(succession).to_be_visible()  # the die ended the reign: its succession opens
                        expect_focus(page, f"n{keys[name]}-succession")
                if len(typed[name]) == 1:
                    expect(succession).to_be_hidden()
            if year == 1492 and made == "services":
                page.locator("form#monarchs-grid").evaluate(
                    "el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8)"
                )
                shot(page, folder, "eu-grid")
            expect(page.get_by_role("button", name="Enter the dice")).to_be_focused()  # the last die done
            tally.enter(page.get_by_role("button", name="Enter the dice"))
            expect(page.locator("#step ul.messages")).to_contain_text("survival roll")
            expect(page.locator("form#monarchs-grid")).to_have_count(0)  # every crown rolled, every throne filled
            tally.in_step = ""
            tally.click(page.get_by_role("button", name="Finish Survival"))
            expect(page.locator("ul.messages")).to_contain_text(f"Survival of {year} closed")
            grid_clicks.append(tally.clicks - before)
            # Marriages (Finish Survival goes on to it: issue 34), the Announcements, the next turn
            expect(page).to_have_url(re.compile(r"/turn/marriages/(#.*)?$"))
            tally.click(page.get_by_role("button", name="Finish Marriages"))
            expect(page.get_by_role("heading", name=f"Announcements of {year}")).to_be_visible()
            tally.click(page.get_by_role("button", name="Publish the announcements"))
            tally.click(page.get_by_role("button", name=re.compile("Start the next turn")))
            expect(page.locator("ul.messages")).to_contain_text(f"The turn of {year + 5} begins with the Births.")
    finally:
        context.close()

    turns = len(TURNS)
    print(
        f"\nFour typed EU turns, {TURN_CROWNS} crowns: {tally.clicks} clicks (submits by Enter included; "
        f"{tally.clicks / turns:.1f} a turn, {tally.clicks / turns / TURN_CROWNS:.2f} a crown and turn), the monarchs' "
        f"grid {grid_clicks} a turn, {tally.fields} dice typed, {tally.loads_in_step} page loads inside a step."
    )
    assert grid_clicks == [SURVIVAL_GRID_CLICKS] * turns
    assert tally.clicks / turns / TURN_CROWNS <= TURN_BUDGET / TURN_CROWNS
    assert tally.loads_in_step == 0
    game.refresh_from_db()
    assert (game.current_year, game.step) == (1512, Step.BIRTHS)
    rolls = Roll.objects.filter(campaign=game, purpose__startswith="monarch_", step=Step.SURVIVAL)
    assert rolls.count() == 5 * 4 + 3 * 5 + 5 and not rolls.exclude(source="entered").exists()  # every die typed
    # what the faces made: a death, a Dynastic Crisis with a minority, a reign running out, Doges
    assert list(Reign.objects.filter(campaign=game, crown="Turkey").values_list("end_year", flat=True).order_by("pk")) == [
        1492,
        None,
    ]
    turk = Reign.objects.get(campaign=game, crown="Turkey", end_year__isnull=True).holder
    assert turk.age(1492) == 10  # a teenager at his accession
    crisis = Roll.objects.get(campaign=game, purpose="monarch_succession", year=1492, step=Step.SURVIVAL)
    assert crisis.outcome.startswith("normal (Dynastic Crisis from the Turkish roll)")
    assert Reign.objects.filter(campaign=game, crown="Spain", end_year=1497).exists()
    assert Reign.objects.filter(campaign=game, crown="Venice", end_year=1502).exists()
    ended = Reign.objects.get(campaign=game, crown="France", end_year=1507)
    assert ended.planned_end_year == 1507 and ended.holder.death_cause == "the end of his rolled reign"
    poland = monarch_status(campaign=game, crown="Poland").monarch
    assert poland.given_name == ("Jan" if made == "page" else "Stefan Báthory")
    assert check_eu_monarchs(campaign_export(game)) == []  # every roll re-read from the aid's tables


def test_the_monarchs_grid_on_a_phone(browser: Browser, live_server, gm, tmp_path):
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    game = eu_campaign(gm, name="Europa Phone")
    births_finish(campaign=game, by=gm)
    keys = {name: crown(game, name).pk for name in ORDER}
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/turn/survival/")
        expect(page.locator("form#monarchs-grid")).to_be_visible()
        no_sideways_scroll(page)
        expect_focus(page, f"m{keys['France']}-d1")
        page.keyboard.type("5")
        page.keyboard.type("11")  # an 11 on a d10 (Poland): two digits, the cursor moves on; refused when sent
        page.keyboard.type("555")
        page.keyboard.press("Enter")
        row = page.locator(f"#crown-{keys['Poland']}")
        expect(row.locator("[role=alert]")).to_contain_text("Survival die: A d10 shows 1 to 10.")
        assert not Roll.objects.filter(campaign=game, purpose="monarch_survival").exists()
        expect(page.locator("#refusal")).to_contain_text("Nothing was entered: fix the 1 crown marked below")
        expect_focus(page, f"m{keys['Poland']}-d1")  # the cursor is on the wrong die
        no_sideways_scroll(page)
        page.keyboard.press("Control+A")
        page.keyboard.type("10")  # Báthory dies: his successor's dice open in his row
        expect(row.locator("fieldset.succession")).to_be_visible()
        expect_focus(page, f"n{keys['Poland']}-succession")
        page.keyboard.type("5")
        page.evaluate("window.scrollTo(0, 0)")
        row.scroll_into_view_if_needed()
        no_sideways_scroll(page)
        shot(page, folder, "eu-grid-phone")
        page.keyboard.type("5555")
        page.get_by_role("button", name="Enter the dice").click()
        expect(page.locator("#step ul.messages")).to_contain_text("Poland:")
        expect(page.locator("form#monarchs-grid")).to_have_count(0)
        no_sideways_scroll(page)
    finally:
        context.close()
    assert Roll.objects.filter(campaign=game, purpose="monarch_survival", source="entered").count() == 5
    assert Reign.objects.filter(campaign=game, crown="Poland", end_year__isnull=True).get().start_year == 1492
