"""A player arranges a marriage through the pages and sees the wedding money (issue 7), in Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Step
from dynasties.models import Dynasty, Marriage, Posting
from tests.browser.helpers import log_in
from tests.factories import at_step, person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/marriages")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def couple(campaign):
    """England's Edmund (20) and France's Isabelle (17, Charisma +1); the campaign at the Marriages step."""
    at_step(campaign, Step.MARRIAGES)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    groom = person(campaign, england, "Edmund", "M", campaign.current_year - 20)
    bride = person(campaign, france, "Isabelle", "F", campaign.current_year - 17, charisma=1)
    return groom, bride, england


def no_horizontal_scroll(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px"


def arrange_and_see_the_money(page: Page, base_url: str, campaign, couple, size: str) -> None:
    groom, bride, england = couple
    log_in(page, base_url, "alice", "alice-password-1")
    page.goto(f"{base_url}/c/{campaign.slug}/turn/marriages/")
    expect(page.get_by_role("heading", name=f"Marriages of {campaign.current_year}")).to_be_visible()
    page.get_by_label("Groom").select_option(label=f"{groom.display_name} (20)")
    page.get_by_label("Bride").select_option(label=f"{bride.display_name} (17, Charisma +1)")
    page.get_by_label("Wed now").check()

    page.get_by_role("button", name="Check").click()
    check = page.locator("#check")
    expect(check).to_contain_text("Nothing forbids this wedding now")
    expect(check).to_contain_text(f"30 Crowns from the Treasury to the house of {england.name}")
    expect(check).to_contain_text("bride's Charisma +1 x 30")
    assert not Marriage.objects.filter(husband=groom).exists()  # the check writes nothing
    page.screenshot(path=str(SHOTS / f"check-{size}.png"), full_page=True)
    no_horizontal_scroll(page)

    page.get_by_role("button", name="Arrange").click()
    expect(page).to_have_url(re.compile(r"/turn/marriages/#match-\d+$"))
    expect(page.locator("ul.messages")).to_contain_text(f"{groom.display_name} and {bride.display_name} are wed.")
    match = Marriage.objects.get(husband=groom, wife=bride)
    wedding = page.locator(f"#match-{match.pk}")
    expect(wedding).to_contain_text("Wedding money posted:")
    expect(wedding).to_contain_text(f"30 Crowns from the Treasury to the house of {england.name}")
    expect(wedding.get_by_role("link", name="Draft the contract")).to_have_attribute(
        "href", f"/c/{campaign.slug}/contracts/new/?marriage={match.pk}"
    )
    posting = Posting.objects.get(marriage=match)
    assert (posting.payer_id, posting.payee_id, posting.amount, posting.kind) == (None, england.pk, 30, "wedding")
    page.screenshot(path=str(SHOTS / f"wed-{size}.png"), full_page=True)
    no_horizontal_scroll(page)

    # The chronicle of the turn: the wedding for all, its money marked private for her.
    page.get_by_role("navigation", name="The turn").get_by_role("link", name="Announcements").click()
    expect(page.get_by_role("heading", name=f"Announcements of {campaign.current_year}")).to_be_visible()
    expect(page.locator(".announced")).to_contain_text(f"{groom.display_name} (20) weds {bride.display_name} (17)")
    expect(page.locator("li.private")).to_contain_text(f"30 Crowns from the Treasury to the house of {england.name}")
    page.screenshot(path=str(SHOTS / f"announcements-{size}.png"), full_page=True)
    no_horizontal_scroll(page)


def test_player_arranges_a_marriage_and_sees_the_wedding_money(page: Page, live_server, campaign, couple):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(DESKTOP)
    arrange_and_see_the_money(page, live_server.url, campaign, couple, "desktop")


def test_the_same_on_a_phone(browser: Browser, live_server, campaign, couple):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport=PHONE)
    try:
        arrange_and_see_the_money(context.new_page(), live_server.url, campaign, couple, "phone")
    finally:
        context.close()
