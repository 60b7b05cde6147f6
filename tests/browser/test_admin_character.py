"""The admin's character form in Chromium (issue 20): the GM opens a character at the desk, reads
his characteristics as one field each, named by the ruleset with its range, types a value out of
range and is told what to fix, then saves a good one (through the editing service). The screenshot
goes to ``REGNAL_SCREENSHOTS`` when it is set (``docs/screenshots``), else to a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, expect

from campaign.models import ChronicleEntry
from dynasties.models import Character
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}


def test_the_gm_edits_a_characters_characteristics_at_the_desk(
    browser: Browser, live_server, gm, alice, bob, tmp_path, django_user_model
):
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    campaign = campaign_start(name="The Hundred Years", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=1)
    django_user_model.objects.create_superuser("keeper", password="keeper-password-1")  # keeps every campaign's books
    king = Character.objects.get(campaign=campaign, controlled_by__crown="England", sex="M", birth_year=1275)
    page = browser.new_page(viewport=DESKTOP)
    log_in(page, live_server.url, "keeper", "keeper-password-1")
    page.goto(live_server.url + reverse("admin:dynasties_character_change", args=[king.pk]))
    strength = page.get_by_label("Strength")
    expect(strength).to_be_visible()
    expect(page.get_by_label("Constitution")).to_be_visible()
    expect(page.get_by_label("Charisma")).to_be_visible()
    expect(page.get_by_text("-2 to +3")).to_be_visible()
    page.get_by_label("Charisma").fill("4")
    page.get_by_role("button", name="Save and continue editing").click()
    expect(page.get_by_text("Charisma is a whole number up to +2 (a monarch's:", exact=False)).to_be_visible()
    king.refresh_from_db()
    assert king.characteristics["charisma"] != 4
    page.get_by_label("Charisma").fill("2")
    page.get_by_label("Christian name").fill("Edmund")
    page.get_by_role("button", name="Save and continue editing").click()
    expect(page.get_by_text("Christian name Edward -> Edmund", exact=False).first).to_be_visible()
    king.refresh_from_db()
    assert (king.given_name, king.characteristics["charisma"]) == ("Edmund", 2)
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="hand_edit", text__contains="Edmund").exists()
    page.locator("fieldset", has_text="Sheet").first.scroll_into_view_if_needed()
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "admin-character.png"), full_page=False)
    page.close()
