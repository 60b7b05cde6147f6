"""The province register in Chromium (issue 33): the GM records a Famine and a Rebellion on the
Provinces page, England's player runs the next Interphase from the register without typing his
provinces again (the Famine marker gone after it), and a capital is taken and retaken on the page
(the King's Charisma -1 shown, then gone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Dynasty, Posting, PostingKind, Province, Reign
from dynasties.services.provinces import province_record
from dynasties.treasury import post
from tests.browser.helpers import log_in
from tests.factories import at_step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
SHOTS = Path("/tmp/shots/provinces")


def record(page: Page, base: str, label: str, fields: dict[str, str]) -> None:
    """The GM opens an event's form from the Provinces page, fills it and records it."""
    page.goto(f"{base}/provinces/")
    page.get_by_role("link", name=label, exact=True).click()
    expect(page.get_by_role("heading", name=label)).to_be_visible()
    for name, value in fields.items():
        page.locator(f"select[name={name!r}]").select_option(value)
    page.get_by_role("button", name="Record it").click()
    expect(page.locator("ul.messages")).to_contain_text("Recorded")


def test_the_gm_keeps_the_register_and_the_interphase_starts_from_it(browser: Browser, live_server, campaign, gm, alice):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    province_record(campaign=campaign, name="Middlesex", country="England", capital=True, by=SYSTEM_ACTOR)
    for name in ("Kent", "Wessex"):
        province_record(campaign=campaign, name=name, country="England", by=SYSTEM_ACTOR)
    king = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    king.characteristics = {**king.characteristics, "charisma": 1}
    king.save()
    base = f"{live_server.url}/c/{campaign.slug}"
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "gm", "gm-password-1")
        # the turn's Events: Famine in Kent, Rebellion in Wessex
        record(page, base, "A Famine or Rebellion marker", {"province": "Kent", "marker": "famine"})
        record(page, base, "A Famine or Rebellion marker", {"province": "Wessex", "marker": "rebellion"})
        page.goto(f"{base}/provinces/")
        expect(page.locator(".provinces-list tr", has_text="Kent")).to_contain_text("Famine (1300)")
        expect(page.locator(".provinces-list tr", has_text="Wessex")).to_contain_text("Rebellion (1300)")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "provinces-gm.png"), full_page=True)
        # the next Interphase: England's player posts it from the register, typing no province
        at_step(campaign, Step.INTERPHASE, year=1305)
        post(campaign, payer=None, payee=england, amount=40, kind=PostingKind.OTHER, reason="purse")
        context2 = browser.new_context(viewport=DESKTOP)
        player = context2.new_page()
        log_in(player, live_server.url, "alice", "alice-password-1")
        player.goto(f"{base}/treasury/{england.pk}/interphase/")
        expect(player.get_by_label("Provinces controlled", exact=True)).to_have_value(
            "East Anglia, Kent, Middlesex, Wessex, Yorkshire"
        )
        expect(player.get_by_label("Provinces in famine", exact=True)).to_have_value("Kent")
        expect(player.get_by_label("Provinces in rebellion", exact=True)).to_have_value("Wessex")
        expect(player.get_by_label("The capital", exact=True)).to_have_value("Middlesex")
        player.get_by_label("Rebellions bought off", exact=True).fill("Wessex")
        player.get_by_role("button", name="Preview", exact=True).click()
        preview = player.locator("section.preview")
        expect(preview).to_contain_text("Taxation: 3 provinces at 5 Crowns")
        preview.get_by_role("button", name=re.compile("Post these")).click()
        expect(player.locator("ul.messages")).to_contain_text("The Interphase of 1305 is posted")
        assert Posting.objects.filter(campaign=campaign, payee=england, kind=PostingKind.TAX).get().amount == 15
        player.goto(f"{base}/provinces/")
        expect(player.locator(".provinces-list tr", has_text="Kent")).not_to_contain_text("Famine")  # removed after taxes
        expect(player.locator(".provinces-list tr", has_text="Wessex")).not_to_contain_text("Rebellion")  # bought off
        context2.close()
        # the capital taken: the King's Charisma -1 until it is retaken
        record(page, base, "A province changes hands", {"province": "Middlesex", "to": str(france.pk)})
        page.goto(f"{base}/provinces/")
        expect(page.locator(".capital-lost")).to_contain_text("Charisma -1")
        page.goto(f"{base}/character/{king.pk}/")
        expect(page.locator("main")).to_contain_text("Charisma +0")
        record(page, base, "A province changes hands", {"province": "Middlesex", "to": str(england.pk)})
        page.goto(f"{base}/provinces/")
        expect(page.locator(".capital-lost")).to_have_count(0)
        expect(page.locator(".provinces-list tr", has_text="Middlesex")).to_contain_text("Capital of England")
        page.goto(f"{base}/character/{king.pk}/")
        expect(page.locator("main")).to_contain_text("Charisma +1")
        assert Province.objects.get(campaign=campaign, name="Middlesex").castle is False  # never rebuilt
    finally:
        context.close()
