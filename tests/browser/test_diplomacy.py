"""Diplomacy's consequences in Chromium (issue 33): the GM holds a claim parley that ties and grants
Italy the claim to Savoy (20.42); a parley contesting Spain's conquest of Navarre goes to Aragon's
caller, Spain's player refuses on his phone to return it and Spain is excommunicated (20.41, 22.1);
the GM records an exchange of claims between England and France on the Claims page. Screenshots in
/tmp/shots/diplomacy/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Role
from campaign.permissions import SYSTEM_ACTOR
from contracts.models import Claim, ClaimHow, Excommunication, Obligation, ObligationState
from contracts.services import area_claim_record
from dynasties.models import Dynasty
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.factories import seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/diplomacy")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"{username}-password-1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("navigation", name="Account")).to_contain_text(username)


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def vote(page: Page, house: str, stature: str, choice: str) -> None:
    row = page.locator("table.votes-grid tbody tr").filter(has_text=house)
    row.get_by_label(f"Stature of {house}").fill(stature)
    row.get_by_label(f"Vote of {house}").select_option(choice)


def test_a_claim_granted_a_conquest_refused_and_an_exchange(browser: Browser, live_server):
    users = {n: get_user_model().objects.create_user(n, password=f"{n}-password-1") for n in ("gm", "sancho")}
    campaign = campaign_create(name="Grand Diplomacy", players=5, source=RandomSource(7), by=users["gm"])
    house = {d.crown: d for d in Dynasty.objects.filter(campaign=campaign)}
    seat_member(campaign=campaign, user=users["sancho"], role=Role.PLAYER, dynasty=house["Spain"])
    italy, spain, england, france = (house[c].name for c in ("Italy", "Spain", "England", "France"))
    calais = area_claim_record(campaign=campaign, dynasty=house["England"], area="Calais", by=SYSTEM_ACTOR)
    area_claim_record(campaign=campaign, dynasty=house["France"], area="Anjou", by=SYSTEM_ACTOR)
    base = f"{live_server.url}/c/{campaign.slug}/"

    laptop = browser.new_context(viewport=DESKTOP)
    try:
        page = laptop.new_page()
        log_in(page, live_server.url, "gm")
        # 20.42: a claim parley, a tie: Italy obtains the claim
        page.goto(f"{base}contracts/parley/")
        page.get_by_label("Kind of parley").select_option("claim")
        page.get_by_label("Called by").select_option(label=italy)
        page.get_by_label("Area").fill("Savoy")
        vote(page, italy, "4", "for")
        vote(page, spain, "4", "against")
        page.get_by_role("button", name="Count the votes").click()
        expect(page.locator(".messages")).to_contain_text("the caller prevails (4 to 4, a tie")
        expect(page.locator(".claim-granted")).to_contain_text(f"{italy} obtains the claim to Savoy")
        shoot(page, "claim-parley")
        granted = Claim.objects.get(area="Savoy")
        assert granted.how == ClaimHow.PARLEY and granted.dynasty == house["Italy"] and granted.parley is not None
        # 20.41: Italy contests Spain's conquest of Navarre and prevails
        page.goto(f"{base}contracts/parley/")
        page.get_by_label("Kind of parley").select_option("conquest")
        page.get_by_label("Called by").select_option(label=italy)
        page.get_by_label("Area").fill("Navarre")
        page.get_by_label("Opponent").select_option(label=spain)
        vote(page, italy, "6", "for")
        vote(page, spain, "3", "against")
        page.get_by_role("button", name="Count the votes").click()
        expect(page.locator("#obligation")).to_contain_text(f"{spain} must return Navarre to {italy}")
        expect(page.locator("#obligation")).to_contain_text("Open")
        parley_url = page.url
        # the exchange on the Claims page: England's Calais for France's Anjou
        page.goto(f"{base}claims/")
        expect(page.locator("table.claims")).to_contain_text("Savoy")
        page.locator("#exchange summary").click()
        page.get_by_label("One house").select_option(label=england)
        page.locator("#id_exchange-first_gives").select_option(label=f"Calais ({england})")
        page.get_by_label("The other house").select_option(label=france)
        page.locator("#id_exchange-second_gives").select_option(label=f"Anjou ({france})")
        page.get_by_role("button", name="Record the exchange").click()
        expect(page.locator(".messages")).to_contain_text(f"{france} now claims Calais")
        expect(page.locator("table.claims-ended")).to_contain_text("Given to another house")
        shoot(page, "claims-after-exchange")
        calais.refresh_from_db()
        assert calais.end == "given" and calais.passed_to.dynasty == house["France"]
        assert Claim.objects.get(dynasty=house["England"], ended_year__isnull=True).area == "Anjou"
    finally:
        laptop.close()

    phone = browser.new_context(viewport=PHONE)
    try:
        page = phone.new_page()
        log_in(page, live_server.url, "sancho")  # Spain's player answers the decision against him
        page.goto(parley_url)
        page.get_by_role("button", name=f"Refused: excommunicate {spain}").click()
        expect(page.locator("#obligation")).to_contain_text("Refused: excommunicated")
        expect(page.locator("#obligation")).to_contain_text("excommunicated since 1300")
        shoot(page, "conquest-refused-phone")
        due = Obligation.objects.get(area="Navarre")
        ban = Excommunication.objects.get(dynasty=house["Spain"])
        assert due.state == ObligationState.REFUSED and due.excommunication == ban and ban.active
        page.goto(f"{base}contracts/")
        expect(page.locator("main")).to_contain_text("Excommunicated")
        expect(page.locator("main ul.card")).to_contain_text(spain)
    finally:
        phone.close()
