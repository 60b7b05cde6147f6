"""Issue 34, between the steps: "A player's open step page follows the table to the next step
(today it says the step is closed and waits for a tap)." Alice watches the Births page; the GM
rolls every couple and finishes Births (from his own screen: here the services, as his page calls
them); her page goes on to Survival by itself, with no click. A page with a die being typed in is
never swept away: it keeps the "table has moved on" banner."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from campaign.models import Campaign
from dynasties.models import Dynasty
from dynasties.services import births_finish, births_roll_all
from dynasties.treasury import treasury_transfer
from operations.services import campaign_start
from rules.dice import RandomSource
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT_MS = 10_000  # the poll asks every 700 ms; long enough for a loaded machine


def test_an_open_step_page_follows_the_table_to_the_next_step(browser: Browser, live_server, gm, alice, bob):
    game = campaign_start(name="Follow", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    base = f"{live_server.url}/c/{game.slug}"
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{base}/turn/births/")
        expect(page.locator("[data-step-open=births]")).to_have_count(1)
        births_roll_all(campaign=game, source=RandomSource(3), by=gm)
        births_finish(campaign=Campaign.objects.get(pk=game.pk), by=gm)
        expect(page).to_have_url(re.compile(r"/turn/survival/$"), timeout=WAIT_MS)  # no click: it followed
        expect(page.get_by_role("heading", name=re.compile("^Survival"))).to_be_visible()
        expect(page.locator("[data-step-open=survival]")).to_have_count(1)

        # a die typed in on her page: the page stays, the banner says the table moved on
        mine = page.locator("form.grid input.die").first
        expect(mine).to_be_visible()
        mine.fill("3")
        england = Dynasty.objects.get(campaign=game, crown="England")
        treasury_transfer(campaign=game, payer=None, payee=england, amount=1, reason="Alms", by=gm)  # news for her
        expect(page.locator("#live-banner")).to_contain_text("The table has moved on.", timeout=WAIT_MS)
        assert re.search(r"/turn/survival/$", page.url) and mine.input_value() == "3"
    finally:
        context.close()
