"""The end of the game in Chromium (Blood Royale section 22): the GM sets the agreed last turn and the
money target on the closing page, the turn is played to its Interphase, England posts its final
cashing-in, the GM starts the next turn and the game ends instead; the closing page shows the final
table to the GM and to England's player (every house's money, public once the game has ended), the
dashboard links it, and the printable final table downloads as a PDF."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from campaign.models import Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import PostingKind
from dynasties.services import announcements_make, marriages_finish, survival_finish, survival_roll
from dynasties.services.interphase import interphase_run
from dynasties.treasury import post
from operations.services import campaign_start
from operations.simulation import play_births
from rules.dice import RandomSource
from rules.interphase import InterphaseEntry
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PDFTOPPM = shutil.which("pdftoppm") or "/usr/bin/pdftoppm"
SHOTS = Path(os.environ.get("REGNAL_SHOTS", "/tmp/end-shots"))


def _to_interphase(game) -> None:
    """The rest of the turn, as the table plays it (the dice from a seed)."""
    source = RandomSource(4)
    play_births(game, source, by=SYSTEM_ACTOR)
    survival_roll(campaign=game, source=source, by=SYSTEM_ACTOR)
    survival_finish(campaign=game, source=source, by=SYSTEM_ACTOR)
    marriages_finish(campaign=game, by=SYSTEM_ACTOR)
    announcements_make(campaign=game, source=source, by=SYSTEM_ACTOR)
    game.refresh_from_db()
    assert game.step == Step.INTERPHASE


def test_the_gm_sets_an_end_plays_to_it_and_prints_the_final_table(browser: Browser, live_server, gm, alice, bob):
    game = campaign_start(name="The Last Turn", gm=gm, players=5, seats={"England": alice, "France": bob})
    england = game.dynasties.get(crown="England")
    france = game.dynasties.get(crown="France")
    base = f"{live_server.url}/c/{game.slug}"
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/end/")
        page.get_by_label("The agreed last turn (its year)").fill("1200")
        page.get_by_label("The money target").fill("800")
        page.get_by_role("button", name="Save the end of the game").click()
        expect(page.locator(".end-settings")).to_contain_text("cannot be before the turn in play (1300)")
        page.get_by_label("The agreed last turn (its year)").fill("1300")
        page.get_by_role("button", name="Save the end of the game").click()
        expect(page.locator("ul.messages")).to_contain_text("The end of the game is set.")
        expect(page.locator(".closing")).to_contain_text("the agreed last turn is 1300 (turn 1); the money target is 800 Crowns")

        _to_interphase(game)
        post(game, payer=None, payee=france, amount=150, kind=PostingKind.OTHER, reason="a purse")
        post(game, payer=None, payee=england, amount=90, kind=PostingKind.OTHER, reason="a purse")
        interphase_run(campaign=game, dynasty=england, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR)
        # England's final cashing-in, from the treasury page: one full set, +120 -> 210, the most
        page.goto(f"{base}/treasury/{england.pk}/interphase/")
        form = page.locator("form", has=page.get_by_role("button", name="Cash in", exact=True))
        form.get_by_label("Luxury sets cashed in", exact=True).fill("1")
        form.get_by_role("button", name="Cash in", exact=True).click()
        expect(page.locator("ul.messages")).to_be_visible()

        page.goto(f"{base}/turn/announcements/")
        expect(page.locator(".end-due")).to_contain_text("1300 is the agreed last turn")
        page.get_by_role("button", name="Start the next turn").click()
        page.wait_for_url(f"{base}/end/")
        expect(page.locator("ul.messages")).to_contain_text("The game has ended in 1300")
        expect(page.locator(".closing")).to_contain_text("The game ended in 1300: the agreed last turn was played.")
        expect(page.locator("tr.standing.winner")).to_contain_text(england.name)
        expect(page.locator("tr.standing.winner .money")).to_have_text("210")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "closing-gm.png"), full_page=True)

        href = page.get_by_role("link", name="The final table (printable PDF)").get_attribute("href")
        response = page.request.get(f"{live_server.url}{href}")
        assert response.status == 200 and response.headers["content-type"] == "application/pdf"
        pdf = SHOTS / "final-table.pdf"
        pdf.write_bytes(response.body())
        subprocess.run([PDFTOPPM, "-png", "-r", "60", "-singlefile", str(pdf), str(SHOTS / "final-table")], check=True)
        assert (SHOTS / "final-table.png").stat().st_size > 5000

        # the GM may no longer play a turn; the books stay readable
        page.goto(f"{base}/turn/announcements/")
        page.get_by_role("button", name="Start the next turn").click()
        expect(page.locator("main")).to_contain_text("The game ended in 1300; its books stay readable")
        page.goto(f"{base}/treasury/{france.pk}/")
        expect(page.locator("main")).to_contain_text("150")

        # England's player: the dashboard links the final table, which shows every house's money
        player = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        log_in(player, live_server.url, "alice", "alice-password-1")
        player.goto(f"{base}/")
        expect(player.locator(".game-ended")).to_contain_text("The game ended in 1300.")
        player.get_by_role("link", name="The final table").first.click()
        expect(player.locator("tr.standing", has_text=france.name).locator(".money")).to_have_text("150")
        expect(player.get_by_role("button", name="End the game now")).to_have_count(0)
        player.screenshot(path=str(SHOTS / "closing-player.png"), full_page=True)
        player.context.close()
    finally:
        context.close()
