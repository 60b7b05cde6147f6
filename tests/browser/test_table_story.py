"""What the board decided, recorded as it happens at the table (issue 31), in Chromium: the GM on a laptop,
England's player on a phone.

A battle in which England's King dies and a Prince is taken by France; England's crown passes at once;
England buys its Prince back from France (the ransom posted to both exchequers); England's player makes
the ransomed Prince Governor from her phone; the Governor falls at the table and his title passes to
his heir, as the title's page shows. England's player sees her own money and the public record, not
another house's exchequer nor its money lines."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from dynasties.models import Character, Posting, Reign, Status, Title
from dynasties.services import event_deaths
from dynasties.services.succession_view import succession_line
from dynasties.services.titles import governor_choices
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _record(page: Page) -> None:
    page.get_by_role("button", name="Record it").click()
    expect(page.locator("ul.messages")).to_be_visible()


def _fits(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width}px wide on a phone"


def test_a_battle_a_succession_a_ransom_a_governor_and_his_heir(browser: Browser, live_server, gm, alice, bob):
    carol = get_user_model().objects.create_user("carol", password="carol-password-1")
    game = campaign_start(
        name="The Hundred Years",
        gm=gm,
        players=5,
        seats={"England": alice, "France": bob, "Spain": carol},
        optional_rules={"governing_provinces": True},
        prehistory_turns=10,
        seed=2,  # England has Princes on the map besides its King and his heir
    )
    england = game.dynasties.get(crown="England")
    france = game.dynasties.get(crown="France")
    reign = Reign.objects.get(campaign=game, crown="England", end_year__isnull=True)
    king = reign.holder
    heir_apparent = succession_line(campaign=game, crown="England").entries[0].character
    fielded = [c for c in event_deaths.exposed(game, "battle") if c.controlled_by_id == england.pk]
    prince = next(c for c in fielded if c.pk not in (king.pk, heir_apparent.pk))  # a Prince who stays a Prince
    base = f"{live_server.url}/c/{game.slug}"

    laptop = browser.new_context(viewport=DESKTOP)
    page = laptop.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        # the battle: the King's dice (1, 1: he dies), the Prince's (6, 6: he lives, taken by France)
        page.goto(f"{base}/events/")
        page.get_by_role("link", name="A battle lost").click()
        for who, faces in ((king, "1"), (prince, "6")):
            row = page.locator(".event-person", has_text=who.display_name).first
            expect(row).to_contain_text("survives on")  # the odds beside him
            row.get_by_role("checkbox").check()
            row.get_by_label("die 1").fill(faces)
            row.get_by_label("die 2").fill(faces)
        page.get_by_label("Captured by").select_option(label=f"The house of {france.name}")
        page.get_by_label("Where, how").fill("at Crécy")
        _record(page)
        expect(page.locator("ul.messages")).to_contain_text(f"{king.display_name} dies")
        king.refresh_from_db()
        prince.refresh_from_db()
        assert king.status == Status.DEAD and prince.prisoner_of_id == france.pk
        # the succession, at once: England has a new monarch, shown on its house's page
        heir = Reign.objects.get(campaign=game, crown="England", end_year__isnull=True).holder
        assert heir.pk != king.pk
        page.goto(f"{base}/dynasty/{england.pk}/")
        expect(page.locator("main")).to_contain_text(f"Reigning: {heir.given_name}")

        # England buys its Prince back from France: 27 Crowns, posted to both exchequers
        page.goto(f"{base}/events/release/")
        page.locator(".event-person", has_text=prince.display_name).first.get_by_role("checkbox").check()
        page.get_by_label("Ransom").fill("27")  # England holds 30
        page.get_by_label("Paid by the house of").select_option(label=england.name)
        _record(page)
        prince.refresh_from_db()
        assert prince.prisoner_of_id is None
        ransom = Posting.objects.get(campaign=game, kind="ransom")
        assert (ransom.payer_id, ransom.payee_id, ransom.amount) == (england.pk, france.pk, 27)
    finally:
        laptop.close()

    # England's player, on her phone: her new King makes the ransomed Prince Governor of Kent
    governor = prince
    assert governor.pk in {g.prince.pk for g in governor_choices(game, {england.pk})}
    phone = browser.new_context(viewport=PHONE)
    small = phone.new_page()
    try:
        log_in(small, live_server.url, "alice", "alice-password-1")
        small.goto(f"{base}/events/title_grant/")
        expect(small.get_by_role("heading", name="A Governor made")).to_be_visible()
        small.get_by_label("The Prince").select_option(value=str(governor.pk))
        small.get_by_label("The province").fill("Kent")
        _fits(small)
        _record(small)
        title = Title.objects.get(campaign=game, holder=governor)
        # she sees her own money, the public record, and nothing of another house's exchequer
        small.goto(f"{base}/treasury/{england.pk}/")
        expect(small.locator("main")).to_contain_text(f"ransom of {prince.display_name}")
        assert small.goto(f"{base}/treasury/{france.pk}/").status in (403, 404)
        small.goto(f"{base}/title/{title.pk}/")
        expect(small.locator("main")).to_contain_text(title.name)
        _fits(small)
    finally:
        phone.close()

    # the Governor falls at the table (the GM): his title passes to his heir, as its page shows
    laptop = browser.new_context(viewport=DESKTOP)
    page = laptop.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/events/killed/")
        page.locator(".event-person", has_text=governor.display_name).first.get_by_role("checkbox").check()
        _record(page)
        title.refresh_from_db()
        assert title.holder_id not in (None, governor.pk)
        page.goto(f"{base}/title/{title.pk}/")
        main = page.locator("main")
        expect(main).to_contain_text(Character.objects.get(pk=title.holder_id).display_name)
        expect(main).to_contain_text(re.compile(r"inherit", re.IGNORECASE))
    finally:
        laptop.close()

    # Spain's player sees that the Prince was released, not for how much
    other = browser.new_context(viewport=PHONE)
    spain = other.new_page()
    try:
        log_in(spain, live_server.url, "carol", "carol-password-1")
        spain.goto(f"{base}/character/{prince.pk}/")
        expect(spain.locator("main")).to_contain_text(prince.given_name)
        expect(spain.locator("main")).not_to_contain_text("27 Crowns")
        assert spain.goto(f"{base}/treasury/{england.pk}/").status in (403, 404)
    finally:
        other.close()
