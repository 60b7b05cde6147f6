"""A capture and its ransom at the table, in Chromium (issue 31): the GM, on a laptop, records that
France took England's King and that England bought him back; England's player, on a phone, sees the
ransom on his own exchequer and nothing of France's books, then pays the neutrals for his Prince from
his own page. The forms' screenshots (1280x800 and 390x844) go to ``REGNAL_SCREENSHOTS`` when it is
set (``docs/screenshots``: events-ransom.png, events-ransom-phone.png), else to a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Role
from dynasties import treasury
from dynasties.models import Character, Dynasty, Posting, PostingKind, Reign
from dynasties.services import campaign_create
from dynasties.services.events import character_capture
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import person, seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "gm-browser-password-1"
ALICE_PASSWORD = "alice-password-1"
RANSOM = 137  # what England pays France: England's and France's books, and the GM's


@pytest.fixture
def table():
    User = get_user_model()
    gm = User.objects.create_user("gm", password=PASSWORD)
    alice = User.objects.create_user("alice", password=ALICE_PASSWORD)
    bob = User.objects.create_user("bob", password="bob-password-1")
    campaign = campaign_create(name="Ransom Night", players=5, source=RandomSource(7), by=gm)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    seat_member(campaign=campaign, user=alice, role=Role.PLAYER, dynasty=england)
    seat_member(campaign=campaign, user=bob, role=Role.PLAYER, dynasty=france)
    treasury.post(campaign, payer=None, payee=england, amount=400, kind="tax", reason="taxes")
    treasury.post(campaign, payer=None, payee=france, amount=250, kind="tax", reason="taxes")
    return campaign


def screenshots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_a_ransom_paid_by_another_house_the_gm_on_a_laptop_the_payer_on_a_phone(
    page: Page, browser: Browser, live_server, table, tmp_path
):
    folder = screenshots(tmp_path)
    england = Dynasty.objects.get(campaign=table, crown="England")
    france = Dynasty.objects.get(campaign=table, crown="France")
    king = Reign.objects.get(campaign=table, crown="England", end_year__isnull=True).holder
    events = f"{live_server.url}/c/{table.slug}/events/"

    # the GM, on a laptop: the capture, then the ransom England pays France
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, "gm", PASSWORD)
    page.goto(events)
    page.get_by_role("link", name="Taken prisoner").click()
    page.get_by_label(king.display_name, exact=False).check()
    page.get_by_label("Taken by the house of").select_option(label=france.name)
    page.get_by_label("How").fill("his army wiped out at Crécy")
    page.get_by_role("button", name="Record it").click()
    expect(page.locator("ul.messages")).to_contain_text(f"prisoner of the house of {france.name}")
    king.refresh_from_db()
    assert king.prisoner_of_id == france.pk

    page.goto(events)
    page.get_by_role("link", name="Released or ransomed").click()
    expect(page.locator("main")).to_contain_text(f"prisoner of the house of {france.name}")
    page.get_by_label(king.display_name, exact=False).check()
    page.get_by_role("spinbutton", name="Ransom").fill(str(RANSOM))
    page.get_by_label("Paid by the house of").select_option(label=england.name)
    page.get_by_label("Other terms").fill("and two bales of wool")
    page.screenshot(path=str(folder / "events-ransom.png"), full_page=False)
    page.get_by_role("button", name="Record it").click()
    expect(page.locator("ul.messages")).to_contain_text(f"{king.display_name} is free")
    paid = Posting.objects.get(campaign=table, kind=PostingKind.RANSOM)
    assert (paid.payer_id, paid.payee_id, paid.amount) == (england.pk, france.pk, RANSOM)

    # England's player, on a phone: his own exchequer shows the ransom; France's books are not his
    prince = person(table, england, "Lionel", "M", 1278, piece="1")
    character_capture(
        campaign=table, characters=[prince.pk], neutrals=True, reason="the Welsh", by=get_user_model().objects.get(username="gm")
    )
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    them = phone.new_page()
    try:
        log_in(them, live_server.url, "alice", ALICE_PASSWORD)
        them.goto(f"{live_server.url}/c/{table.slug}/treasury/{england.pk}/")
        expect(them.locator("main")).to_contain_text("ransom of")
        expect(them.locator("main")).to_contain_text(str(RANSOM))
        refused = them.goto(f"{live_server.url}/c/{table.slug}/treasury/{france.pk}/")
        assert refused is not None and refused.status in (403, 404)
        them.goto(f"{live_server.url}/c/{table.slug}/")
        expect(them.locator("main")).not_to_contain_text(str(treasury.balance(table, france)))

        them.goto(events)
        them.get_by_role("link", name="Released or ransomed").click()
        expect(them.locator("main")).to_contain_text("prisoner of the neutrals: 100 Crowns")
        expect(them.locator("main")).not_to_contain_text(king.display_name)  # nothing of France's to him
        them.get_by_label(prince.display_name, exact=False).check()
        them.get_by_role("spinbutton", name="Ransom").fill("100")
        # the form itself, not the help above it
        them.locator("fieldset.event-people").evaluate("e => window.scrollBy(0, e.getBoundingClientRect().top - 90)")
        them.screenshot(path=str(folder / "events-ransom-phone.png"), full_page=False)
        them.get_by_role("button", name="Record it").click()
        expect(them.locator("ul.messages")).to_contain_text(f"{prince.display_name} is free")
    finally:
        phone.close()
    prince.refresh_from_db()
    assert not prince.is_prisoner
    assert treasury.balance(table, england) == 400 - RANSOM - 100
    assert Character.objects.filter(campaign=table, held_by_neutrals=True).count() == 0
