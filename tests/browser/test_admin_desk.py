"""The GM's desk in Chromium (issue 20): from the campaign's menu the GM lands in the admin with that
campaign chosen (named in the header), and the roll list, newest first, fits a 1280 px screen."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from playwright.sync_api import Browser, expect

from campaign.models import Roll
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}


def test_the_gm_reaches_his_campaigns_desk_and_its_roll_list_fits_a_laptop(browser: Browser, live_server, gm, alice, bob):
    campaign = campaign_start(name="The Hundred Years", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=1)
    gm.is_staff = True
    gm.save(update_fields=["is_staff"])
    gm.user_permissions.set(Permission.objects.filter(content_type__app_label__in=["campaign", "dynasties", "contracts"]))
    page = browser.new_page(viewport=DESKTOP)
    log_in(page, live_server.url, "gm", "gm-password-1")
    page.goto(live_server.url + reverse("pages:dashboard", args=[campaign.slug]))
    page.locator("#campaign-menu").get_by_role("link", name="Admin").click()
    expect(page.locator("#desk-campaign")).to_contain_text("Campaign: The Hundred Years")
    expect(page.get_by_text("Site plumbing")).to_have_count(0)
    page.get_by_role("link", name="Rolls").first.click()
    expect(page.locator("#result_list")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]  # nothing cut off or scrolled
    newest = Roll.objects.filter(campaign=campaign).latest("pk")
    expect(page.locator("#result_list tbody tr").first.locator("th a")).to_have_text(str(newest.pk))
    page.close()
