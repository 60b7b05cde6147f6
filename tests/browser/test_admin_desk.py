"""The GM's desk in Chromium (issues 20 and 30): a GM who created his campaign on the site (an ordinary
account: no staff flag, no model permission) reaches its desk from the campaign's menu, lands with
it chosen, keeps its books there (a rule table's cell, a death recorded at the table) and meets
nothing of another campaign; the roll list, newest first, fits a 1280 px screen. A player sees no
Admin link, and the desk tells him why it is not his. Screenshots go to /tmp/shots/desk/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from campaign.models import Campaign, Roll, RuleTable
from dynasties.models import Character
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
SHOTS = Path("/tmp/shots/desk")


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_gm_who_made_his_campaign_on_the_site_keeps_it_at_the_desk(browser: Browser, live_server):
    User = get_user_model()
    User.objects.create_user("dora", password="dora-password-1")
    alice = User.objects.create_user("alice", password="alice-password-1")
    rival = User.objects.create_user("rival", password="rival-password-1")
    campaign_create(name="Rival Secrets", players=3, source=RandomSource(9), by=rival)  # another GM's campaign
    page = browser.new_page(viewport=DESKTOP)
    try:
        log_in(page, live_server.url, "dora", "dora-password-1")
        page.get_by_role("link", name="New campaign").click()
        page.get_by_label("Name of the campaign").fill("Dora's Table")
        page.get_by_label("England", exact=True).fill("alice")
        page.get_by_role("button", name="Create the campaign").click()
        expect(page.get_by_role("heading", name="Dora's Table")).to_be_visible()
        campaign = Campaign.objects.get(name="Dora's Table")
        dora = User.objects.get(username="dora")
        assert not dora.is_staff and not dora.is_superuser and not dora.user_permissions.exists()

        # from the campaign's page to its desk, with it chosen: one Admin link (the header's), not two
        expect(page.get_by_role("link", name="Admin", exact=True)).to_have_count(1)
        page.get_by_role("navigation", name="Account").get_by_role("link", name="Admin").click()
        expect(page.locator("#desk-campaign")).to_contain_text("Campaign: Dora's Table")
        expect(page.get_by_text("Site plumbing")).to_have_count(0)
        expect(page.get_by_text("Rival Secrets")).to_have_count(0)
        shot(page, "index")

        # a rule table's cell, through its grid
        table = RuleTable.objects.get(campaign=campaign, key="survival")
        page.goto(live_server.url + reverse("admin:campaign_ruletable_change", args=[table.pk]))
        cell = page.locator('input[name="t-0-need"]')
        cell.fill("3")
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.locator("ul.messagelist")).to_contain_text("was changed successfully")
        table.refresh_from_db()
        assert table.data[0]["need"] == 3

        # a death recorded at the table, the characters' list action
        page.goto(live_server.url + reverse("admin:dynasties_character_changelist"))
        victim = Character.objects.filter(campaign=campaign, status="alive").order_by("-birth_year", "pk").first()
        page.locator(f'input[name="_selected_action"][value="{victim.pk}"]').check()
        page.locator('select[name="action"]').select_option("event_killed")
        page.get_by_role("button", name="Go").click()
        expect(page.locator("ul.messagelist")).to_contain_text("killed")
        victim.refresh_from_db()
        assert victim.status == "dead"

        # a new character's form offers his campaign's people only
        page.goto(live_server.url + reverse("admin:dynasties_character_add"))
        expect(page.locator(".desk-adding")).to_contain_text("Dora's Table")
        page.locator(".field-father .select2-selection").click()
        with page.expect_response(lambda r: "/admin/autocomplete/" in r.url and "term=a" in r.url) as answer:
            page.locator(".select2-search__field").fill("a")
        offered = {int(option["id"]) for option in answer.value.json()["results"]}
        expect(page.locator(".select2-results__option").first).to_be_visible()
        ours = set(Character.objects.filter(campaign=campaign).values_list("pk", flat=True))
        assert offered and offered <= ours, "the form offers another campaign's people"
        shot(page, "add-character")

        # the roll list fits a laptop, the newest first
        page.goto(live_server.url + reverse("admin:campaign_roll_changelist"))
        expect(page.locator("#result_list")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]  # nothing cut off or scrolled
        newest = Roll.objects.filter(campaign=campaign).latest("pk")
        expect(page.locator("#result_list tbody tr").first.locator("th a")).to_have_text(str(newest.pk))
    finally:
        page.close()

    # a player: no Admin link, and the desk says why it is not his
    page = browser.new_page(viewport=DESKTOP)
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(live_server.url + reverse("pages:dashboard", args=[campaign.slug]))
        expect(page.get_by_role("link", name="Admin")).to_have_count(0)
        page.goto(live_server.url + reverse("admin:index"))
        expect(page.locator("body")).to_contain_text("not the GM of any campaign")
        assert alice.pk  # (the account the link was refused to)
    finally:
        page.close()
