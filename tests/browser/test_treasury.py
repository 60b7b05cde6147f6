"""The treasury pages in Chromium: a player cannot reach another's exchequer by URL; her own shows
the balance chart, on a laptop and on a phone; the Interphase helper previews and posts once.
Screenshots go to /tmp/shots/treasury/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Role, Step
from dynasties.models import Dynasty, Posting, PostingKind
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.factories import at_step, seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/treasury")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PASSWORDS = {"gm": "gm-browser-password-1", "alice": "alice-browser-password-1", "bob": "bob-browser-password-1"}
FRENCH_HOARD = 9876


@pytest.fixture
def table():
    """A Blood Royale campaign in the Interphase of 1320: Alice plays England, Bob France; England's
    books go up and down (below zero once), France holds a hoard nobody else may see."""
    users = {name: get_user_model().objects.create_user(name, password=pw) for name, pw in PASSWORDS.items()}
    campaign = campaign_create(name="Game Night Treasury", players=5, source=RandomSource(11), by=users["gm"])
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    seat_member(campaign=campaign, user=users["alice"], role=Role.PLAYER, dynasty=england)
    seat_member(campaign=campaign, user=users["bob"], role=Role.PLAYER, dynasty=france)
    books = [
        (1300, None, england, 60, PostingKind.TAX, "Taxation: 12 provinces at 5 Crowns"),
        (1305, england, None, 24, PostingKind.MAINTENANCE, "Maintenance of 12 armies at 2 Crowns"),
        (1305, england, france, 30, PostingKind.LOAN, "A loan to France against the Gascon wine"),
        (1310, england, None, 75, PostingKind.RAISING, "Raising 15 armies at 5 Crowns"),
        (1310, None, england, 40, PostingKind.TAX, "Taxation: 8 provinces at 5 Crowns"),
        (1315, None, england, 170, PostingKind.CASH_IN, "Cashed in 2 sets of metals, cloth and food at 50 Crowns, and one at 80"),
        (1315, france, england, 30, PostingKind.LOAN, "France repays the loan"),
        (1300, None, france, FRENCH_HOARD, PostingKind.OTHER, "The hoard of the Capets"),
    ]
    for year, payer, payee, amount, kind, reason in books:
        Posting.objects.create(
            campaign=campaign, year=year, step=Step.INTERPHASE, payer=payer, payee=payee, amount=amount, kind=kind, reason=reason
        )
    at_step(campaign, Step.INTERPHASE, year=1320)
    return campaign, england, france


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username", exact=True).fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORDS[username])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("navigation", name="Account")).to_contain_text(username)


def fits(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px"


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_a_player_cannot_reach_another_exchequer_by_url(browser: Browser, live_server, table):
    campaign, england, france = table
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice")

        # France's exchequer, typed into the address bar: not found, and nothing of its books
        response = page.goto(f"{live_server.url}/c/{campaign.slug}/treasury/{france.pk}/")
        assert response is not None and response.status == 404
        body = page.content()
        assert str(FRENCH_HOARD) not in body and "Capets" not in body
        interphase = page.goto(f"{live_server.url}/c/{campaign.slug}/treasury/{france.pk}/interphase/")
        assert interphase is not None and interphase.status == 404

        # the treasury link takes her to her own exchequer, with its chart
        page.goto(f"{live_server.url}/c/{campaign.slug}/treasury/")
        expect(page).to_have_url(re.compile(rf"/treasury/{england.pk}/$"))
        expect(page.get_by_role("heading", level=1)).to_contain_text("Exchequer of the house of")
        expect(page.locator(".holding")).to_contain_text("171 Crowns")
        chart = page.get_by_role("img", name=re.compile("Balance of the house of"))
        expect(chart).to_be_visible()
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 150
        expect(page.locator("svg.balance-chart circle.point")).to_have_count(5)  # 1300 ... 1320
        expect(page.locator("svg.balance-chart circle.point.negative")).to_have_count(1)  # 1310: -29
        expect(page.locator("table.ledger tbody tr")).to_have_count(7)
        assert str(FRENCH_HOARD) not in page.content()
        shot(page, "exchequer-desktop")

        # a gift that would overdraw the exchequer: refused next to the amount, nothing paid
        page.get_by_label("To", exact=True).select_option(label=str(france))
        page.get_by_label("Amount", exact=True).fill("500")
        page.get_by_label("What it is for", exact=True).fill("A dowry")
        page.get_by_role("button", name="Pay").click()
        amount = page.locator(".field", has=page.get_by_label("Amount", exact=True))
        expect(amount.locator(".errorlist")).to_contain_text("holds 171 Crowns and cannot pay 500")
        shot(page, "exchequer-overdraft-refused")
        page.get_by_label("Amount", exact=True).fill("21")
        page.get_by_role("button", name="Pay").click()
        expect(page.locator("ul.messages")).to_contain_text(f"Paid 21 Crowns to {france}: A dowry.")
        expect(page.locator(".holding")).to_contain_text("150 Crowns")
    finally:
        context.close()


def test_the_exchequer_and_the_interphase_helper_on_a_phone(browser: Browser, live_server, table):
    campaign, england, _ = table
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/c/{campaign.slug}/treasury/{england.pk}/")
        chart = page.get_by_role("img", name=re.compile("Balance of the house of"))
        expect(chart).to_be_visible()
        box = chart.bounding_box()
        assert box is not None and box["width"] >= 320  # the chart uses the phone's width
        fits(page)
        shot(page, "exchequer-phone")

        page.goto(f"{live_server.url}/c/{campaign.slug}/treasury/{england.pk}/interphase/")
        fits(page)
        shot(page, "interphase-phone")
        page.get_by_label("Provinces controlled", exact=True).fill("12")
        page.get_by_label("Armies kept", exact=True).fill("10")
        page.get_by_label("Home provinces controlled", exact=True).fill("6")
        page.get_by_label("Armies raised", exact=True).fill("2")
        page.get_by_role("button", name="Preview", exact=True).click()
        preview = page.locator("section.preview")
        expect(preview).to_contain_text("Taxation: 12 provinces at 5 Crowns")
        expect(preview).to_contain_text("Maintenance of 10 armies at 2 Crowns")
        # 171 + 60 - 20 - 10 = 201: no set in the Interphase ("The Full Game Turn ends with Cashing In Resources")
        expect(preview.locator("tr.subtotal")).to_contain_text("171")
        expect(preview.locator("tr.total")).to_contain_text("201 Crowns")
        assert Posting.objects.filter(campaign=campaign, year=1320).count() == 0  # a preview writes nothing
        fits(page)
        shot(page, "interphase-preview-phone")
        # the same form sent twice: a page kept in a second tab (the back button to a private page asks the
        # browser to send its form again, as it is no-store: issue 30)
        form = preview.locator("form").filter(has=page.get_by_role("button", name=re.compile("Post these 3 lines")))
        html = form.evaluate("f => { const c = f.cloneNode(true); c.action = f.action; return c.outerHTML; }")
        twice = context.new_page()
        twice.goto(page.url.split("#")[0].split("?")[0])
        twice.evaluate("html => document.querySelector('main').insertAdjacentHTML('afterbegin', html)", html)
        preview.get_by_role("button", name=re.compile("Post these 3 lines")).click()
        expect(page.locator("ul.messages")).to_contain_text("The Interphase of 1320 is posted")
        expect(page.locator(".holding")).to_contain_text("201 Crowns")
        assert Posting.objects.filter(campaign=campaign, year=1320).count() == 3
        twice.locator("main > form").get_by_role("button", name=re.compile("Post these 3 lines")).click()
        expect(twice.locator("ul.messages")).to_contain_text("already done")
        page = twice
        assert Posting.objects.filter(campaign=campaign, year=1320).count() == 3
        fits(page)
        shot(page, "exchequer-after-interphase-phone")
    finally:
        context.close()


def test_the_gm_sees_every_exchequer(browser: Browser, live_server, table):
    campaign, england, _ = table
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "gm")
        page.goto(f"{live_server.url}/c/{campaign.slug}/treasury/")
        rows = page.locator("table.exchequers tbody tr")
        expect(rows).to_have_count(5)
        expect(page.locator("table.exchequers")).to_contain_text(f"{FRENCH_HOARD} Crowns")
        shot(page, "treasury-gm-desktop")
        page.get_by_role("link", name="Ledger").first.click()
        expect(page.get_by_role("heading", level=1)).to_contain_text("Exchequer of the house of")
        expect(page.locator("td.correct summary").first).to_be_visible()
        page.locator("td.correct summary").first.click()
        shot(page, "exchequer-gm-desktop")
        # the Interphase helper on a laptop, with a broken limit shown next to its field
        page.get_by_role("link", name="Interphase helper").click()
        page.get_by_label("Provinces controlled", exact=True).fill("3")
        page.get_by_label("Home provinces controlled", exact=True).fill("")  # the province register's, cleared
        page.get_by_label("Armies raised", exact=True).fill("4")
        page.get_by_role("button", name="Preview", exact=True).click()
        home = page.locator(".field", has=page.get_by_label("Home provinces controlled", exact=True))
        expect(home.locator(".errorlist")).to_contain_text("Say how many home provinces the country controls")
        shot(page, "interphase-refused-desktop")
        phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
        try:
            small = phone.new_page()
            log_in(small, live_server.url, "gm")
            small.goto(f"{live_server.url}/c/{campaign.slug}/treasury/")
            fits(small)
            shot(small, "treasury-gm-phone")
            small.goto(f"{live_server.url}/c/{campaign.slug}/treasury/{england.pk}/")
            fits(small)
            shot(small, "exchequer-gm-phone")
        finally:
            phone.close()
    finally:
        context.close()
