"""The Dynastic Sequence pages in Chromium: a player's Births on a phone, the GM's Survival and
succession on a laptop. Screenshots go to /tmp/shots/sequence/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaign.models import Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage, Reign
from dynasties.services import births_finish
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/sequence")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def no_horizontal_scroll(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px"


def test_a_player_types_his_couples_dice_on_a_phone(browser: Browser, live_server, campaign, alice):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    couple = Marriage.objects.get(campaign=campaign, husband__controlled_by=england)
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/")
        expect(page.locator("li[aria-current=step]")).to_contain_text("Births")
        shot(page, "phone-turn-player")
        page.locator("li[aria-current=step]").get_by_role("link", name=re.compile("Births")).click()
        expect(page.get_by_role("heading", name=re.compile("Births"))).to_be_visible()
        no_horizontal_scroll(page)
        card = page.locator(f"#couple-{couple.pk}")
        expect(card).to_contain_text("21 in 36 (7/12, 58.3%)")
        expect(card.get_by_label("Die 1", exact=True)).to_be_visible()
        box = page.get_by_role("button", name="Enter the dice").bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 120  # a thumb's button
        die = card.get_by_label("Die 1", exact=True).bounding_box()
        assert die is not None and die["height"] >= 40
        # Only her own couple has dice: France's card has none.
        france = page.locator(f"#couple-{Marriage.objects.get(campaign=campaign, husband__controlled_by__crown='France').pk}")
        expect(france.locator("input.die")).to_have_count(0)
        shot(page, "phone-births-before")

        card.get_by_label("Die 1", exact=True).fill("4")
        card.get_by_label("Die 2", exact=True).fill("5")
        shot(page, "phone-births-typing")
        page.get_by_role("button", name="Enter the dice").click()
        expect(page.locator("ul.messages")).to_contain_text("attempt 1: 4 + 5 = 9: a child!")
        card = page.locator(f"#couple-{couple.pk}")
        expect(card).to_contain_text("A child is born.")
        no_horizontal_scroll(page)
        shot(page, "phone-births-child")

        card.get_by_label(re.compile("^Sex die")).fill("5")
        card.get_by_label("Strength or Guile, die 1").fill("6")
        page.get_by_role("button", name="Enter the dice").click()  # one characteristic die only: refused
        card = page.locator(f"#couple-{couple.pk}")
        expect(card.locator(".errorlist").first).to_contain_text("Type every characteristic die, or none")
        no_horizontal_scroll(page)
        shot(page, "phone-births-sex-error")
        card.get_by_label("Strength or Guile, die 1").fill("")
        card.get_by_label(re.compile("^Sex die")).fill("5")
        page.get_by_role("button", name="Enter the dice").click()
        expect(page.locator("ul.messages")).to_contain_text("A daughter: ")
        card = page.locator(f"#couple-{couple.pk}")
        card.get_by_label("Name of the daughter born to this couple").fill("Eleanor")  # named once her sex is known
        card.get_by_label("Name of the daughter born to this couple").press("Enter")
        expect(page.locator("ul.messages")).to_contain_text("The child is named Eleanor Plantagenet.")
        card = page.locator(f"#couple-{couple.pk}")
        expect(card).to_contain_text("Try again?")
        expect(card.get_by_label("Die 1", exact=True)).to_be_hidden()  # optional: closed until asked (issue 34)
        card.get_by_text("Try again?").click()
        expect(card).to_contain_text("costs Mary Tudor 1 Constitution")
        expect(card).to_contain_text("33 in 36 (11/12, 91.7%)")
        expect(card.get_by_label("Die 1", exact=True)).to_be_visible()  # another attempt, in place
        no_horizontal_scroll(page)
        shot(page, "phone-births-try-again")
    finally:
        context.close()
    attempt = BirthAttempt.objects.get(marriage=couple)
    assert attempt.roll.faces == [4, 5] and attempt.child.given_name == "Eleanor" and attempt.child.sex == "F"


def test_the_gm_sees_a_death_and_crowns_the_heir(browser: Browser, live_server, campaign, gm):
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    edward = Marriage.objects.get(campaign=campaign, husband__controlled_by=england).husband
    john = Character.objects.get(campaign=campaign, father=edward)
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        context = browser.new_context(viewport=viewport)
        try:
            page = context.new_page()
            log_in(page, live_server.url, "gm", "gm-password-1")
            page.goto(f"{live_server.url}/c/{campaign.slug}/turn/survival/")
            no_horizontal_scroll(page)
            shot(page, f"{name}-survival-before")
        finally:
            context.close()

    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/survival/")
        row = page.locator(f"#character-{edward.pk}")
        expect(row).to_contain_text("33 in 36 (11/12, 91.7%)")
        row.get_by_label("Die 1", exact=True).fill("1")
        row.get_by_label("Die 2", exact=True).fill("2")
        row.get_by_label("Die 2", exact=True).press("Enter")
        expect(page.locator("ul.messages")).to_contain_text("Died: Edward Plantagenet")
        expect(page.locator(f"#character-{edward.pk}")).to_contain_text("died")
        expect(page.locator("#succession")).to_contain_text("England: Edward I Plantagenet has died")  # his numeral
        page.get_by_role("button", name=re.compile("Roll all remaining")).click()
        expect(page.locator("ul.messages")).to_contain_text("survival roll")
        shot(page, "desktop-survival-succession")
        page.get_by_role("button", name=re.compile("Finish Survival")).click()
        john_i = f"{john.given_name} I {john.dynastic_name}"  # numbered
        expect(page).to_have_url(re.compile(r"/turn/marriages/(#.*)?$"))  # on to the next step (issue 34)
        expect(page.locator("ul.messages")).to_contain_text(f"New monarchs: {john_i} succeeds Edward I Plantagenet")
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/survival/")  # the successions stay on Survival
        expect(page.locator("#succession")).to_contain_text("New monarchs")
        expect(page.locator("#succession")).to_contain_text(f"{john_i} succeeds Edward I Plantagenet")
        shot(page, "desktop-survival-after")

        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/")
        expect(page.locator("li[aria-current=step]")).to_contain_text("Marriages")
        shot(page, "desktop-turn-gm")
        page.get_by_role("link", name="Undo the step…").click()  # asks first: what it throws away, then confirm
        page.get_by_role("button", name="Yes, undo the step").click()
        expect(page.locator("ul.messages")).to_contain_text("back at the start of Survival 1300")
        expect(page.locator("li[aria-current=step]")).to_contain_text("Survival")
    finally:
        context.close()
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder_id == edward.pk
    edward.refresh_from_db()
    assert edward.status == "alive"
    campaign.refresh_from_db()
    assert campaign.step == Step.SURVIVAL
