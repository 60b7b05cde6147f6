"""A member's house at the desk (issue 35, item 4: the seat is the dynasties' ``Seat``, no longer a
column of the kernel's membership). The GM opens an observer's membership, is offered his own
campaign's houses only, is told a player needs a house, seats him on one, and the member list
shows it. Screenshots go to /tmp/shots/desk/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from campaign.models import Membership, Role
from dynasties.models import Dynasty
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import member_house, seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
SHOTS = Path("/tmp/shots/desk")


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_gm_seats_an_observer_on_a_house_of_his_campaign_at_the_desk(browser: Browser, live_server):
    User = get_user_model()
    gm = User.objects.create_user("gwen", password="gwen-password-1")
    rival = User.objects.create_user("rival", password="rival-password-1")
    watcher = User.objects.create_user("walt", password="walt-password-1")
    campaign = campaign_create(name="Gwen's Table", players=3, source=RandomSource(4), by=gm)
    other = campaign_create(name="Rival Table", players=3, source=RandomSource(5), by=rival)
    membership = seat_member(campaign=campaign, user=watcher, role=Role.OBSERVER)
    free = Dynasty.objects.filter(campaign=campaign, seats__isnull=True).order_by("pk").first()
    assert free is not None, "a house of the campaign no player sits on"

    page = browser.new_page(viewport=DESKTOP)
    try:
        log_in(page, live_server.url, "gwen", "gwen-password-1")
        page.goto(live_server.url + reverse("admin:campaign_membership_change", args=[membership.pk]))
        house = page.locator('select[name="dynasty"]')
        offered = [int(v) for v in house.locator("option").evaluate_all("os => os.map(o => o.value)") if v]
        assert offered == list(Dynasty.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))
        assert not set(offered) & set(Dynasty.objects.filter(campaign=other).values_list("pk", flat=True))

        # a player with no house: told what to fix, nothing written
        page.locator('select[name="role"]').select_option(Role.PLAYER)
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.locator(".errornote, .errorlist").first).to_be_visible()
        expect(page.get_by_text("needs a dynasty", exact=False).first).to_be_visible()
        shot(page, "seat-refused")
        membership.refresh_from_db()
        assert membership.role == Role.OBSERVER and member_house(membership) is None

        # seated on a house of his campaign
        page.locator('select[name="role"]').select_option(Role.PLAYER)
        house.select_option(str(free.pk))
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.locator("ul.messagelist")).to_contain_text("was changed successfully")
        membership.refresh_from_db()
        assert membership.role == Role.PLAYER and member_house(membership) == free
        expect(page.locator("#result_list")).to_contain_text(str(free.name))
        shot(page, "seated")
        assert Membership.objects.filter(campaign=other, user=watcher).count() == 0
    finally:
        page.close()
