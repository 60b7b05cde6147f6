"""The countries played on the New campaign page, in Chromium (issue 33, item 8): four players show
no English seat ("England becomes a non-player country"), three tick any three ("Allow a free
selection from all five countries") and see those seats only; another ruleset hides the countries.
CSS only. Screenshot: /tmp/shots/campaigns/countries-three.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from campaign.models import Campaign, Membership, Role
from tests.browser.test_campaigns import DESKTOP, log_in, shot, users  # noqa: F401 - the fixture
from tests.factories import member_house

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_four_players_seat_no_england_and_three_choose_their_countries(browser: Browser, live_server, users):  # noqa: F811
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url)
        page.goto(f"{live_server.url}/campaigns/new/")
        page.get_by_label("Name of the campaign").fill("Three Crowns")
        expect(page.get_by_label("Play England")).to_be_visible()
        page.get_by_label("Player dynasties").select_option("4")
        expect(page.get_by_label("England", exact=True)).to_be_hidden()
        expect(page.get_by_label("Spain", exact=True)).to_be_visible()

        page.get_by_label("Player dynasties").select_option("3")
        for crown in ("England", "Italy", "Spain"):
            page.get_by_label(f"Play {crown}").check()
        for crown in ("England", "Italy", "Spain"):
            expect(page.get_by_label(crown, exact=True)).to_be_visible()
        for crown in ("France", "Germany"):
            expect(page.get_by_label(crown, exact=True)).to_be_hidden()
        page.get_by_label("Spain", exact=True).fill("alice")
        shot(page, "countries-three")

        page.get_by_label("Europa Universalis: BloodLine").check()
        expect(page.get_by_label("Play France")).to_be_visible()  # ticked boxes stay shown to be unticked
        for crown in ("England", "Italy", "Spain"):
            page.get_by_label(f"Play {crown}").uncheck()
        expect(page.get_by_label("Play France")).to_be_hidden()
        page.get_by_label("Blood Royale").check()
        for crown in ("England", "Italy", "Spain"):
            page.get_by_label(f"Play {crown}").check()
        page.get_by_role("button", name="Create the campaign").click()
        expect(page.get_by_text("Three Crowns is created")).to_be_visible()
        campaign = Campaign.objects.get()
        assert sorted(campaign.dynasties.filter(crown__gt="").values_list("crown", flat=True)) == ["England", "Italy", "Spain"]
        assert member_house(Membership.objects.get(campaign=campaign, role=Role.PLAYER)).crown == "Spain"
    finally:
        context.close()
