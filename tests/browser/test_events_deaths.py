"""A battle lost, recorded by the GM in Chromium on a laptop (issue 31): the royal pieces offered with
the odds of each one's roll, the King's and a Prince's dice typed, the victor chosen, the King's heir
passed over should he die (rule C) - one form, one step. The screenshots go to ``REGNAL_SCREENSHOTS``
when it is set (``docs/screenshots``), else to a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from campaign.models import Roll
from dynasties.models import Character, Dynasty, Reign, Status
from dynasties.services import event_deaths
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def test_the_gm_records_a_battle_where_the_king_dies_and_a_prince_is_taken(browser: Browser, live_server, gm, alice, tmp_path):
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    demo = campaign_start(
        name="The Hundred Years",
        gm=gm,
        players=5,
        seats={"England": alice},
        optional_rules={"disputed_succession": True},
        prehistory_turns=4,
        seed=3,
    )
    fielded = event_deaths.exposed(demo, "battle")
    reign = next(r for r in Reign.objects.filter(campaign=demo, end_year__isnull=True) if r.holder in fielded)
    king = reign.holder
    prince = next(c for c in fielded if c.pk != king.pk and c.prince_piece != "K")
    victor = Dynasty.objects.filter(campaign=demo).exclude(pk__in=[king.controlled_by_id, prince.controlled_by_id]).first()
    assert victor is not None
    heirs = event_deaths.pass_overs_if_dies(demo, [king.pk])
    url = f"{live_server.url}/c/{demo.slug}/events/battle/"

    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{demo.slug}/events/")
        page.get_by_role("link", name="A battle lost").click()
        expect(page.get_by_role("heading", name="A battle lost")).to_be_visible()
        row = page.locator(".event-person", has_text=king.display_name).first
        expect(row).to_contain_text("survives on")
        row.get_by_role("checkbox").check()
        row.get_by_label("die 1").fill("1")
        row.get_by_label("die 2").fill("1")
        other = page.locator(".event-person", has_text=prince.display_name).first
        other.get_by_role("checkbox").check()
        other.get_by_label("die 1").fill("6")
        other.get_by_label("die 2").fill("6")
        page.get_by_label("Captured by").select_option(label=f"The house of {victor.name}")
        passed = None
        if heirs:
            passed = heirs[0].heir
            page.locator(".event-person", has_text=f"pass over {passed.display_name}").get_by_role("checkbox").check()
        page.get_by_label("Where, how").fill("at Crécy")
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(folder / "events-battle.png"))
        page.get_by_role("button", name="Record it").click()
        expect(page.get_by_text("Recorded at the table")).to_be_visible()
        expect(page.get_by_text(f"{king.display_name} dies (rolled 2")).to_be_visible()
    finally:
        context.close()

    king.refresh_from_db()
    prince.refresh_from_db()
    assert king.status == Status.DEAD and prince.prisoner_of_id == victor.pk
    new = Reign.objects.get(campaign=demo, crown=reign.crown, end_year__isnull=True)
    assert new.holder_id != king.pk and (passed is None or new.holder_id != passed.pk)
    assert Roll.objects.filter(campaign=demo, purpose="battle", source="entered").count() == 2

    phone = browser.new_context(viewport=PHONE)
    small = phone.new_page()
    try:
        log_in(small, live_server.url, "gm", "gm-password-1")
        small.goto(url)
        expect(small.get_by_role("heading", name="A battle lost")).to_be_visible()
        small.locator(".event-person").first.get_by_role("checkbox").check()
        small.evaluate("window.scrollTo(0, 0)")
        small.screenshot(path=str(folder / "events-battle-phone.png"))
        width = small.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the form is {width}px wide on a phone"
    finally:
        phone.close()
    assert Character.objects.filter(campaign=demo, status=Status.ALIVE).exists()
