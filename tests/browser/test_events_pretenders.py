"""A Pretender declared and bought back, end to end in Chromium (issue 31): the GM declares England's
Prince a Pretender on a laptop (1280x800); he passes to France, the player on the left; Alice,
England's player, buys him back from her own pages on a phone (390x844); Bob, France's player, is
not offered the buy-back of England's Pretender. The forms' screenshots go to ``REGNAL_SCREENSHOTS``
when it is set (``docs/screenshots``: events-pretender.png, events-buy-back-phone.png), else to a
temporary directory; the bastard's and the auction's forms (events-bastard.png, events-auction.png)
go there too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Role
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, Status
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import person, seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORDS = {"gm": "gm-browser-password-1", "alice": "alice-browser-password-1", "bob": "bob-browser-password-1"}
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def table():
    """Alice plays England, Bob France (on England's left). England's King Edward (50) has two grown
    sons, Edmund (wed, with a baby) and Henry; England holds 80 Crowns."""
    users = {name: get_user_model().objects.create_user(name, password=pw) for name, pw in PASSWORDS.items()}
    campaign = campaign_create(
        name="Pretenders Night", players=5, optional_rules={"event_cards": True}, source=RandomSource(7), by=users["gm"]
    )
    houses = {d.crown: d for d in Dynasty.objects.filter(campaign=campaign)}
    england, france = houses["England"], houses["France"]
    seat_member(campaign=campaign, user=users["alice"], role=Role.PLAYER, dynasty=england)
    seat_member(campaign=campaign, user=users["bob"], role=Role.PLAYER, dynasty=france)
    king = Character.objects.get(campaign=campaign, controlled_by=england, birth_year=1275)
    queen = Character.objects.get(campaign=campaign, controlled_by=england, birth_year=1280)
    Character.objects.filter(pk=king.pk).update(birth_year=1250)
    Character.objects.filter(pk=queen.pk).update(birth_year=1255)
    name = king.dynastic_name
    edmund = person(campaign, england, "Edmund", "M", 1280, father=king, mother=queen, dynastic_name=name)
    person(campaign, england, "Henry", "M", 1282, father=king, mother=queen, dynastic_name=name)
    blanche = person(campaign, None, "Blanche", "F", 1281, dynastic_name="Artois")
    blanche.controlled_by = england
    blanche.save()
    Marriage.objects.create(campaign=campaign, husband=edmund, wife=blanche, arranged_year=1298, wedding_year=1298)
    person(campaign, england, "Tom", "M", 1299, father=edmund, mother=blanche, dynastic_name=name)
    treasury.post(campaign, payer=None, payee=england, amount=80, kind="tax", reason="taxes")
    return campaign, england, france, edmund


def fits(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px"


def test_the_gm_declares_a_pretender_and_his_player_buys_him_back_on_a_phone(
    page: Page, browser: Browser, live_server, table, tmp_path
):
    campaign, england, france, edmund = table
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    events = f"{live_server.url}/c/{campaign.slug}/events/"

    # the GM, on a laptop: the card makes Edmund a Pretender
    page.set_viewport_size(LAPTOP)
    log_in(page, live_server.url, "gm", PASSWORDS["gm"])
    page.goto(events)
    page.get_by_role("link", name="A Pretender declared").click()
    expect(page.get_by_role("heading", name="A Pretender declared")).to_be_visible()
    goes = "to the house of Anjou, the player on the left, with Blanche Artois, Tom Plantagenet"
    expect(page.locator("main")).to_contain_text(goes)
    page.get_by_label("Edmund Plantagenet (20, Plantagenet)").check()
    page.screenshot(path=str(folder / "events-pretender.png"), full_page=False)
    page.get_by_role("button", name="Record it").click()
    expect(page.locator("ul.messages")).to_contain_text("Edmund Plantagenet is a Pretender: the house of Anjou controls him")
    edmund.refresh_from_db()
    assert edmund.controlled_by == france and edmund.pretender_of == england

    # a bastard and the auction's forms, for the docs (the GM's; the auction in a three-player game)
    queen = Character.objects.filter(campaign=campaign, controlled_by=england, birth_year=1255)
    queen.update(status=Status.DEAD, death_year=1299)
    Marriage.objects.filter(campaign=campaign, wife__birth_year=1255).update(ended_year=1299, end_cause="death of the wife")
    page.goto(f"{events}bastard/")
    page.locator("label.event-pick").first.click()
    page.get_by_label("His name").fill("Fitzroy")
    for i, face in enumerate((5, 6, 4)):
        page.get_by_label(f"Strength: die {i + 1}").fill(str(face))
    page.screenshot(path=str(folder / "events-bastard.png"), full_page=True)

    # Alice, England's player, on a phone: she buys him back from her own pages
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        hers = phone.new_page()
        log_in(hers, live_server.url, "alice", PASSWORDS["alice"])
        hers.goto(events)
        expect(hers.locator("main")).not_to_contain_text("A Pretender declared")  # the card is the GM's
        hers.get_by_role("link", name="A Pretender bought back").click()
        expect(hers.locator("main")).to_contain_text("50 Crowns from the house of Plantagenet")
        hers.get_by_label("Edmund Plantagenet (20, held by the house of Anjou)").check()
        fits(hers)
        hers.screenshot(path=str(folder / "events-buy-back-phone.png"), full_page=False)
        hers.get_by_role("button", name="Record it").click()
        expect(hers.locator("ul.messages")).to_contain_text("Edmund Plantagenet is bought back by the house of Plantagenet")
        fits(hers)
    finally:
        phone.close()
    edmund.refresh_from_db()
    assert edmund.controlled_by == england and edmund.pretender_of is None
    assert treasury.balance(campaign, england) == 30

    # Bob, France's player, who held him: the buy-back is not his to record
    other = browser.new_context(viewport=PHONE)
    try:
        his = other.new_page()
        log_in(his, live_server.url, "bob", PASSWORDS["bob"])
        answer = his.goto(f"{events}buy_back/")
        assert answer is not None and answer.status == 403
        his.goto(events)
        expect(his.locator("main")).not_to_contain_text("A Pretender bought back")
    finally:
        other.close()


def test_the_gm_types_the_sealed_bids_of_the_three_player_game(page: Page, live_server, tmp_path):
    gm = get_user_model().objects.create_user("gm", password=PASSWORDS["gm"])
    campaign = campaign_create(name="Three Night", players=3, source=RandomSource(2), by=gm)
    campaign.current_year = 1320
    campaign.save()
    houses = {d.crown or "family": d for d in Dynasty.objects.filter(campaign=campaign)}
    for crown in ("England", "France", "Germany"):
        treasury.post(campaign, payer=None, payee=houses[crown], amount=100, kind="tax", reason="taxes")
    child = Character.objects.get(campaign=campaign, controlled_by=houses["family"], birth_year=1295)
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)

    page.set_viewport_size(LAPTOP)
    log_in(page, live_server.url, "gm", PASSWORDS["gm"])
    page.goto(f"{live_server.url}/c/{campaign.slug}/events/auction/")
    page.get_by_label(f"{child.display_name} (25,").check()
    page.get_by_label(str(houses["England"])).fill("40")
    page.get_by_label(str(houses["France"])).fill("25")
    page.screenshot(path=str(folder / "events-auction.png"), full_page=True)
    page.get_by_role("button", name="Record it").click()
    expect(page.locator("ul.messages")).to_contain_text(f"The house of {houses['England'].name} wins the auction")
    child.refresh_from_db()
    assert child.controlled_by == houses["England"]
