"""Seating the table from a phone (issue 34): the GM makes a link on his Players page, its QR code is
drawn beside it and the seat selector moves on to the next house without a link; a phone (390x844)
that scans the code (the figure names the link: reading it is what the camera does) opens the join
page, makes an account and lands in the campaign. A player who forgot his password gets a one-time
link from the GM, opened on his phone. Prints the clicks each costs (docs/pages.md).

Screenshots (the Players page with the QR, the phone's join page) go to ``REGNAL_SCREENSHOTS`` when
it is set (``docs/screenshots``), else to a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Locator, Page, expect

from campaign.models import Membership, Role
from dynasties.models import Dynasty
from tests.browser.helpers import log_in, seated_table
from tests.factories import member_house_id

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "gm-browser-password-1"
NEWCOMER_PASSWORD = "a-long-Passphrase-77"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


@pytest.fixture
def table():
    return seated_table("QR Night", PASSWORD)


class Clicks:
    """Counts the clicks and taps a person makes (typing is not a click)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, target: Locator) -> None:
        self.count += 1
        target.click()


def folder_for(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_a_player_joins_by_scanning_the_qr_code_on_a_phone(page: Page, browser: Browser, live_server, table, tmp_path):
    order = [d for d in Dynasty.objects.filter(campaign=table).order_by("pk") if d.is_player and d.crown != "England"]
    log_in(page, live_server.url, "gm", PASSWORD)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/c/{table.slug}/players/")
    seat = page.get_by_label("Seat", exact=True)
    expect(seat).to_have_value(str(order[0].pk))  # the first house nobody plays, offered first
    page.get_by_role("button", name="Make the link").click()
    qr = page.locator(".new-link figure.qr")
    expect(qr).to_be_visible()
    link = page.locator(".new-link .link-qr").get_attribute("data-link")
    assert link and link == page.locator("#invite-link").input_value()
    assert qr.get_attribute("aria-label") == f"QR code: {link}"
    box = qr.locator("svg").bounding_box()
    assert box and box["width"] >= 150, box  # big enough to scan across a table
    expect(seat).to_have_value(str(order[1].pk))  # moved on to the next house without a link
    expect(seat.locator("option:checked")).to_have_text(f"The player of {order[1]}")
    expect(seat.locator(f'option[value="{order[0].pk}"]')).to_contain_text("(a link is waiting)")
    page.screenshot(path=str(folder_for(tmp_path) / "players-qr.png"), full_page=False)

    # a second link for the same seat is flagged, naming the waiting one
    seat.select_option(str(order[0].pk))
    page.get_by_role("button", name="Make the link").click()
    expect(page.locator("main")).to_contain_text(f"A link for the player of {order[0]} is waiting already")

    phone = browser.new_context(**PHONE)
    them = phone.new_page()
    click = Clicks()
    try:
        them.goto(link)  # what the camera app does with the code
        expect(them.get_by_role("heading", name="Join QR Night")).to_be_visible()
        them.screenshot(path=str(folder_for(tmp_path) / "join-qr-phone.png"), full_page=False)
        them.get_by_label("Username").fill("dora")
        them.get_by_label("Password", exact=True).fill(NEWCOMER_PASSWORD)
        them.get_by_label("Password confirmation").fill(NEWCOMER_PASSWORD)
        click(them.get_by_role("button", name="Create the account and join"))
        expect(them).to_have_url(f"{live_server.url}/c/{table.slug}/")
        expect(them.get_by_role("navigation", name="Account")).to_contain_text("dora")
        width = them.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, width  # nothing wider than the phone
        new_account = click.count
        membership = Membership.objects.get(campaign=table, user__username="dora")
        assert (membership.role, member_house_id(membership)) == (Role.PLAYER, order[0].pk)
    finally:
        phone.close()

    # a player who has an account already: scan, log in, join
    get_user_model().objects.create_user("erik", password=NEWCOMER_PASSWORD)
    page.goto(f"{live_server.url}/c/{table.slug}/players/")
    expect(page.get_by_label("Seat", exact=True)).to_have_value(str(order[1].pk))
    page.get_by_role("button", name="Make the link").click()
    second = page.locator(".new-link .link-qr").get_attribute("data-link")
    phone = browser.new_context(**PHONE)
    them = phone.new_page()
    click = Clicks()
    try:
        them.goto(second)
        click(them.get_by_role("link", name="Log in"))
        them.get_by_label("Username").fill("erik")
        them.get_by_label("Password").fill(NEWCOMER_PASSWORD)
        click(them.get_by_role("button", name="Log in"))
        click(them.get_by_role("button", name=f"Join as the player of {order[1]}"))
        expect(them).to_have_url(f"{live_server.url}/c/{table.slug}/")
        assert member_house_id(Membership.objects.get(campaign=table, user__username="erik")) == order[1].pk
        with_account = click.count
    finally:
        phone.close()
    print(
        f"joining by QR on a phone: {new_account} click (new account: 3 fields typed), "
        f"{with_account} clicks (an existing account: log in, then join)"
    )
    assert new_account == 1 and with_account == 3


def test_a_forgotten_password_and_a_new_gm_on_a_phone(page: Page, browser: Browser, live_server, table, tmp_path):
    log_in(page, live_server.url, "gm", PASSWORD)
    page.goto(f"{live_server.url}/c/{table.slug}/players/")
    page.get_by_role("button", name="A password-reset link for alice").click()
    expect(page.get_by_role("heading", name="A new password for alice")).to_be_visible()
    link = page.locator(".new-link .link-qr").get_attribute("data-link")
    assert link and "/reset/" in link
    expect(page.locator(".new-link figure.qr")).to_be_visible()

    phone = browser.new_context(**PHONE)
    them = phone.new_page()
    click = Clicks()
    new = "another-Passphrase-88"
    try:
        them.goto(link)
        expect(them.get_by_role("heading", name="Choose the new password of alice")).to_be_visible()
        them.get_by_label("New password", exact=True).fill(new)
        them.get_by_label("New password confirmation").fill(new)
        click(them.get_by_role("button", name="Set the password and log in"))
        expect(them.get_by_role("navigation", name="Account")).to_contain_text("alice")
        expect(them.locator("ul.messages")).to_contain_text("Your new password is set")
        reset_clicks = click.count
        them.goto(link)  # once only
        expect(them.get_by_role("alert")).to_contain_text("This link no longer works")
    finally:
        phone.close()
    assert get_user_model().objects.get(username="alice").check_password(new)

    # a GM with no account yet signs up from the login page, then starts a campaign
    phone = browser.new_context(**PHONE)
    them = phone.new_page()
    click = Clicks()
    try:
        them.goto(f"{live_server.url}/login/")
        expect(them.locator("main")).to_contain_text("manage.py createsuperuser")
        click(them.get_by_role("link", name="Make an account"))
        them.get_by_label("Username").fill("newgm")
        them.get_by_label("Password", exact=True).fill(NEWCOMER_PASSWORD)
        them.get_by_label("Password confirmation").fill(NEWCOMER_PASSWORD)
        click(them.get_by_role("button", name="Make the account"))
        expect(them.get_by_role("navigation", name="Account")).to_contain_text("newgm")
        expect(them.get_by_role("link", name="New campaign")).to_be_visible()
        signup_clicks = click.count
    finally:
        phone.close()
    print(f"a forgotten password on a phone: {reset_clicks} click; a new GM's account: {signup_clicks} clicks")
    assert reset_clicks == 1 and signup_clicks == 2
