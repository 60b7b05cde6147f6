"""BloodLine's minor houses at the table (issue 31), in Chromium: a player makes an offer for a minor
house's daughter from his own page on a phone, and the GM has the minor houses answer on a laptop,
typing the table's 1d10 and the noble spouse's dice for the younger daughter. Screenshots of both
forms go to docs/screenshots/ (events-offer-phone.png, events-offers-resolve.png)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Role, Roll, RollSource, Step
from dynasties.models import Character, Dynasty, Marriage, MarriageOffer, OfferStatus, Reign, Status
from dynasties.services import DynastySpec, campaign_create
from dynasties.services.minor_houses import royal_marriage_box_set
from rules import bloodline as bl
from rules.dice import RandomSource
from tests.browser.helpers import log_in
from tests.factories import person, seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def table(db):
    """A BloodLine campaign at the Marriages step: Alice plays France; Savoy's two daughters, Bianca
    (22) and Lucia (20), wait for offers (the set-up's children put out of the way); Jean (24) is
    France's unmarried prince."""
    users = get_user_model().objects
    gm = users.create_user("gm", password="gm-password-1")
    alice = users.create_user("alice", password="alice-password-1")
    c = campaign_create(
        name="Minor houses",
        ruleset=bl.NAME,
        dynasties=[DynastySpec("Valois", "France"), DynastySpec("Tudor", "England"), DynastySpec("Savoia", "Savoy", "minor")],
        source=RandomSource(4),
        by=gm,
    )
    houses = {d.crown: d for d in Dynasty.objects.filter(campaign=c)}
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=houses["France"])
    Character.objects.filter(campaign=c, controlled_by=houses["Savoy"], father__isnull=False).update(
        status=Status.DEAD, death_year=c.current_year, death_cause="out of the way"
    )
    king = Reign.objects.get(campaign=c, crown="Savoy", end_year__isnull=True).holder
    queen = Marriage.objects.get(campaign=c, husband=king, ended_year__isnull=True).wife
    year = c.current_year
    bianca = person(c, houses["Savoy"], "Bianca", "F", year - 22, father=king, mother=queen, order=1, adm=6, dip=5, mil=4)
    lucia = person(c, houses["Savoy"], "Lucia", "F", year - 20, father=king, mother=queen, order=2, adm=8, dip=7, mil=5)
    jean = person(c, houses["France"], "Jean", "M", year - 24, adm=5, dip=6, mil=7)
    royal_marriage_box_set(campaign=c, crown="Savoy", rating=3, by=gm)
    c.step = Step.MARRIAGES
    c.save(update_fields=["step"])
    return c, bianca, lucia, jean


def no_horizontal_scroll(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px"


def test_a_player_offers_on_a_phone_and_the_gm_has_the_minor_houses_answer_on_a_laptop(browser: Browser, live_server, table):
    campaign, bianca, lucia, jean = table
    year = campaign.current_year

    # Alice, on her phone: the events she may record, then her offer for Bianca.
    phone = browser.new_context(viewport=PHONE)
    try:
        page = phone.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/events/")
        expect(page.get_by_role("link", name="An offer for a minor house's child")).to_be_visible()
        expect(page.get_by_role("link", name="The minor houses answer the offers")).to_have_count(0)
        page.get_by_role("link", name="An offer for a minor house's child").click()
        expect(page.get_by_role("heading", name="An offer for a minor house's child")).to_be_visible()
        page.get_by_role("combobox", name="Your suitor").select_option(label=f"{jean.display_name} (24, Valois)")
        minimum = "min. 6 ducats (box 3 x2 heir apparent)"
        page.get_by_role("combobox", name="For the minor house's child:", exact=True).select_option(
            label=f"{bianca.display_name} (22, Savoia) — {minimum}"
        )
        page.get_by_label("Dowry (ducats)").fill("5")
        page.get_by_label("The child stays in the minor house").check()
        page.screenshot(path=str(SHOTS / "events-offer-phone.png"), full_page=True)
        no_horizontal_scroll(page)
        page.get_by_role("button", name="Record it").click()
        expect(page.locator(".errorlist, .refusal").first).to_contain_text("below the minimum dowry")
        expect(page.locator(".errorlist, .refusal").first).to_contain_text(bl.MINOR_OFFERS_RULE)
        assert not MarriageOffer.objects.filter(campaign=campaign).exists()
        page.get_by_label("Dowry (ducats)").fill("40")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("ul.messages")).to_contain_text(
            f"Offered: {jean.display_name} for {bianca.display_name}: 40 ducats, stays"
        )
        no_horizontal_scroll(page)
    finally:
        phone.close()
    offer = MarriageOffer.objects.get(campaign=campaign)
    assert (offer.suitor, offer.minor_character, offer.dowry, offer.stays_in_minor) == (jean, bianca, 40, True)

    # The GM, on a laptop: the minor houses answer; the table's dice for Lucia, who has no offer.
    laptop = browser.new_context(viewport=LAPTOP)
    try:
        page = laptop.new_page()
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/")
        page.get_by_role("link", name="The minor houses answer the offers").click()
        expect(page.get_by_role("heading", name="The minor houses answer the offers")).to_be_visible()
        form = page.locator("form.event-form")
        expect(form).to_contain_text(f"1 open offer ({jean.display_name})")
        expect(form).to_contain_text("no offer: weds into the nobility on 6-10 on 1d10: 5 in 10 (1/2, 50%)")
        page.get_by_role("checkbox", name=f"{lucia.display_name} (20, Savoia)").check()
        page.get_by_label(f"{lucia.display_name} (20, Savoia): To wed (6-10): die 1", exact=True).fill("8")
        for n, face in enumerate((9, 4, 6), start=1):
            page.get_by_label(f"{lucia.display_name} (20, Savoia): Spouse's ADM, DIP, MIL: die {n}", exact=True).fill(str(face))
        page.screenshot(path=str(SHOTS / "events-offers-resolve.png"))
        no_horizontal_scroll(page)
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("ul.messages")).to_contain_text(
            f"{bianca.display_name} accepts an offer; {lucia.display_name} weds into the nobility"
        )
    finally:
        laptop.close()
    offer.refresh_from_db()
    assert offer.status == OfferStatus.ACCEPTED
    assert Marriage.objects.filter(husband=jean, wife=bianca, ended_year__isnull=True).exists()
    noble = Marriage.objects.get(wife=lucia).husband
    assert noble.characteristics == {"adm": 9, "dip": 4, "mil": 6} and noble.age(year) == 20
    wed = Roll.objects.get(campaign=campaign, purpose="minor_nobility")
    assert (wed.faces, wed.source) == ([8], RollSource.ENTERED)
