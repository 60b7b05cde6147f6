"""Blood Royale's optional rules D, E and H in Chromium (issue 33).

- A campaign with rules D, E and H: the GM records a trade item's interception with the owner's die
  typed ("If the modified result is 6 or more, possession of the Trade Item passes to the
  intercepting player", D), then a battle of the third Event/Movement phase ("a third Event/Movement
  Phase is introduced", H); the turn page shows the Movement grouped by phase.
- A campaign without rule E: the Pretender is not offered on the pages, and the API refuses it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect
from rest_framework.test import APIClient

from campaign.models import ChronicleEntry, Role, Roll
from dynasties import treasury
from dynasties.models import Character, Dynasty, Status
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import person, seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}


def test_the_gm_records_an_interception_and_a_battle_of_the_third_phase(browser: Browser, live_server, gm, alice):
    options = {"event_cards": True, "trade_item_movement": True, "extra_movement_phase": True}
    campaign = campaign_create(name="Three Phases", players=5, optional_rules=options, source=RandomSource(5), by=gm)
    houses = {d.crown: d for d in Dynasty.objects.filter(campaign=campaign)}
    england, france = houses["England"], houses["France"]
    seat_member(campaign=campaign, user=alice, role=Role.PLAYER, dynasty=england)
    for house in (england, france):
        treasury.post(campaign, payer=None, payee=house, amount=100, kind="other", reason="purse")
    prince = person(campaign, england, "Richard", "M", campaign.current_year - 22)
    prince.prince_piece = "1"
    prince.save(update_fields=["prince_piece"])
    base = f"{live_server.url}/c/{campaign.slug}"
    page = browser.new_page(viewport=DESKTOP)
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/turn/")
        page.get_by_role("link", name="A trade item intercepted").click()
        page.get_by_label("The owner's house").select_option(label=str(england))
        page.get_by_label("The intercepting house").select_option(label=str(france))
        page.get_by_label("The trade item and its route").fill("Cloth from Flanders to London")
        page.get_by_label("Intercepting Army counters").fill("1")
        page.get_by_label("Crowns the owner pays").fill("15")
        page.get_by_label("Crowns the interceptor pays").fill("40")
        page.get_by_label("die 1").fill("4")  # 4 + 1 - 1 + 2 = 6: taken
        page.get_by_label("In Event/Movement phase").fill("3")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("makes 6: it passes to the house of")

        page.goto(f"{base}/events/battle/")
        row = page.locator(".event-person", has_text=prince.display_name).first
        row.get_by_role("checkbox").check()
        row.get_by_label("die 1").fill("6")
        row.get_by_label("die 2").fill("5")
        page.get_by_label("Captured by").select_option(label=f"The house of {france.name}")
        page.get_by_label("In Event/Movement phase").fill("3")
        page.get_by_role("button", name="Record it").click()
        expect(page.get_by_text("Recorded at the table")).to_be_visible()

        page.goto(f"{base}/turn/")
        third = page.locator('ul.movement-phase[data-phase="3"]')
        expect(third).to_contain_text("tries to intercept Cloth from Flanders to London")
        expect(third).to_contain_text(prince.display_name)
    finally:
        page.close()
    die = Roll.objects.get(campaign=campaign, purpose="interception")
    assert (die.faces, die.source, die.outcome) == ([4], "entered", "taken")
    assert treasury.balance(campaign, england.pk) == 85 and treasury.balance(campaign, france.pk) == 60
    prince.refresh_from_db()
    assert prince.status == Status.ALIVE and prince.prisoner_of_id == france.pk
    assert set(ChronicleEntry.objects.filter(campaign=campaign, data__phase=3).values_list("kind", flat=True)) >= {
        "interception",
        "capture",
    }


def test_without_rule_e_the_pretender_is_not_offered_and_the_api_refuses_it(browser: Browser, live_server, gm):
    campaign = campaign_create(name="No Cards", players=5, source=RandomSource(6), by=gm)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    edmund = person(campaign, england, "Edmund", "M", campaign.current_year - 20)
    page = browser.new_page(viewport=DESKTOP)
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/events/")
        expect(page.get_by_role("link", name="A Battle lost".capitalize())).to_be_visible()
        expect(page.get_by_role("link", name="A Pretender declared")).to_have_count(0)
        expect(page.get_by_role("link", name="A bastard son")).to_have_count(0)
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/")
        expect(page.get_by_role("link", name="A Pretender declared")).to_have_count(0)
    finally:
        page.close()
    client = APIClient()
    client.force_authenticate(gm)
    response = client.post(f"/api/v1/campaigns/{campaign.slug}/events/pretender/", {"character": edmund.pk}, format="json")
    assert response.status_code == 404  # "A Pretender declared: not in this campaign's rules."
    assert Character.objects.get(pk=edmund.pk).pretender_of is None
