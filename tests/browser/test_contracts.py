"""The contracts pages in Chromium: Alice drafts a contract with Bob's France (two clauses) and
signs for England; Bob signs for France on his phone and it comes into force; a contract Bob is
not party to stays out of his reach by URL; the pages fit a phone. Screenshots in
/tmp/shots/contracts/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaign.models import Role
from campaign.permissions import SYSTEM_ACTOR
from contracts.models import Contract, ContractState
from contracts.services import breach_record, contract_draft, contract_sign, contract_sign_party
from dynasties.models import Dynasty
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.factories import seat_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/shots/contracts")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def table():
    """A Blood Royale campaign: the GM, Alice playing England, Bob playing France."""
    users = {name: get_user_model().objects.create_user(name, password=f"{name}-password-1") for name in ("gm", "alice", "bob")}
    campaign = campaign_create(name="Contracts Night", players=5, source=RandomSource(7), by=users["gm"])
    for name, crown in (("alice", "England"), ("bob", "France")):
        dynasty = Dynasty.objects.get(campaign=campaign, crown=crown)
        seat_member(campaign=campaign, user=users[name], role=Role.PLAYER, dynasty=dynasty)
    return campaign


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"{username}-password-1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("navigation", name="Account")).to_contain_text(username)


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def fits(page: Page) -> None:
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width, f"horizontal scroll: {scroll_width}px > {inner_width}px"


def test_each_player_signs_his_side_and_the_contract_comes_into_force(browser: Browser, live_server, table):
    england = Dynasty.objects.get(campaign=table, crown="England")
    france = Dynasty.objects.get(campaign=table, crown="France")
    spain = Dynasty.objects.get(campaign=table, crown="Spain")
    alice = browser.new_context(viewport=DESKTOP)
    try:
        page = alice.new_page()
        log_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/c/{table.slug}/contracts/")
        page.get_by_role("link", name="Draft a contract").first.click()
        expect(page.get_by_role("heading", name="Draft a contract")).to_be_visible()

        page.get_by_label("Kind of contract").select_option("agreement")
        page.get_by_label("Title").fill("The Peace of Dover")
        page.get_by_label(f"{france.name} (France)").check()
        page.get_by_label("Add a clause").select_option("payment")  # added in place as it is picked (issue 34)
        expect(page.locator("fieldset.clause")).to_have_count(1)
        clause = page.locator("fieldset.clause").nth(0)
        expect(clause.locator("legend")).to_have_text("Clause 1: One-off payment")
        clause.get_by_label("Payer").select_option(str(england.pk))
        clause.get_by_label("Payee").select_option(str(france.pk))
        clause.get_by_label("Amount").fill("0")
        page.get_by_label("Add a clause").select_option("escape")
        expect(page.locator("fieldset.clause")).to_have_count(2)
        escape = page.locator("fieldset.clause").nth(1)
        escape.get_by_label("Condition").fill("England is attacked by Spain")
        # what was typed survives adding a clause
        expect(page.get_by_label("Title")).to_have_value("The Peace of Dover")
        expect(clause.get_by_label("Amount")).to_have_value("0")
        shoot(page, "draft-desktop")

        # a bad amount: the browser's own check first, then ours (with the browser's check off)
        page.evaluate("document.querySelector('form.draft').noValidate = true")
        page.get_by_role("button", name="Draft the contract", exact=True).last.click()
        expect(clause.locator(".field.invalid")).to_contain_text("The amount is a whole number of Crowns, at least 1.")
        shoot(page, "draft-error-desktop")
        assert not Contract.objects.filter(campaign=table).exists()

        clause.get_by_label("Amount").fill("10")
        page.get_by_role("button", name="Draft the contract", exact=True).last.click()
        expect(page.get_by_role("heading", name="The Peace of Dover")).to_be_visible()
        expect(page.locator("p > .state")).to_have_text("Draft")
        contract = Contract.objects.get(campaign=table, title="The Peace of Dover")
        assert [c.kind for c in contract.clauses.order_by("position")] == ["payment", "escape"]
        assert contract.clauses.get(kind="payment").params == {"payer": england.pk, "payee": france.pk, "amount": 10}

        # Alice signs for England, and for England only
        signatures = page.locator("#signatures")
        expect(signatures.get_by_role("button")).to_have_count(1)
        expect(page.get_by_role("button", name=f"Sign for {france.name}")).to_have_count(0)
        expect(page.get_by_text("Every party signed at the table")).to_have_count(0)
        page.get_by_role("button", name=f"Sign for {england.name}").click()
        expect(page.locator(".messages")).to_contain_text(f"waiting for {france.name}")
        expect(signatures.locator("li.signed")).to_contain_text(f"{england.name} (England) ✓ Signed in {table.current_year}")
        expect(signatures.locator("li.unsigned")).to_contain_text("Not signed yet")
        expect(page.locator("p > .state")).to_have_text("Draft")
        shoot(page, "signed-by-alice-desktop")
        contract.refresh_from_db()
        assert contract.state == ContractState.DRAFT and contract.signatures.get().dynasty == england
        url = page.url
    finally:
        alice.close()

    bob = browser.new_context(viewport=PHONE)
    try:
        page = bob.new_page()
        log_in(page, live_server.url, "bob")
        page.goto(f"{live_server.url}/c/{table.slug}/contracts/")
        row = page.locator("table.contracts tbody tr").filter(has_text="The Peace of Dover")
        expect(row).to_contain_text("1 of 2 signed")
        expect(row).to_contain_text("awaits your signature")
        fits(page)
        shoot(page, "list-bob-phone")
        row.get_by_role("link", name="The Peace of Dover").click()
        expect(page.get_by_role("button", name=f"Sign for {england.name}")).to_have_count(0)
        fits(page)
        shoot(page, "to-sign-bob-phone")
        page.get_by_role("button", name=f"Sign for {france.name}").click()
        expect(page.locator("p > .state")).to_have_text("In force")
        expect(page.locator(".messages")).to_contain_text("the last party to sign")
        expect(page.locator("table.payments")).to_contain_text("Unpaid")  # England holds nothing yet
        expect(page.locator("#signatures")).to_have_count(0)
        fits(page)
        shoot(page, "in-force-bob-phone")
        assert page.url == url
        contract.refresh_from_db()
        assert contract.state == ContractState.IN_FORCE and contract.signatures.count() == 2

        # a contract Bob's house is not party to: out of his reach by URL, and not listed
        secret = contract_draft(
            campaign=table, kind="treaty", title="The Secret Treaty", parties=[england.pk, spain.pk], by=SYSTEM_ACTOR
        )
        response = page.goto(f"{live_server.url}/c/{table.slug}/contracts/{secret.pk}/")
        assert response is not None and response.status == 404
        response = page.goto(f"{live_server.url}/c/{table.slug}/contracts/{secret.pk}/pdf/")
        assert response is not None and response.status == 404
        page.goto(f"{live_server.url}/c/{table.slug}/contracts/")
        expect(page.locator("table.contracts")).not_to_contain_text("The Secret Treaty")
        expect(page.locator(".tabs")).to_contain_text("All 1")
    finally:
        bob.close()


def test_the_contracts_pages_fit_a_phone(browser: Browser, live_server, table):
    england = Dynasty.objects.get(campaign=table, crown="England")
    france = Dynasty.objects.get(campaign=table, crown="France")
    pact = contract_draft(
        campaign=table,
        kind="agreement",
        title="The Pact of Amiens",
        parties=[england.pk, france.pk],
        clauses=[
            {"kind": "non_aggression", "params": {}, "text": "Neither shall attack the other."},
            {
                "kind": "recurring_payment",
                "params": {"payer": france.pk, "payee": england.pk, "amount": 20, "from_year": table.current_year, "turns": 3},
            },
        ],
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=table, contract=pact, by=SYSTEM_ACTOR)
    breach = breach_record(campaign=table, contract=pact, by_dynasty=france, text="raided Kent", by=SYSTEM_ACTOR)
    waiting = contract_draft(
        campaign=table,
        kind="treaty",
        title="The Treaty of the Three Crowns",
        parties=[england.pk, france.pk, Dynasty.objects.get(campaign=table, crown="Spain").pk],
        by=SYSTEM_ACTOR,
    )
    contract_sign_party(campaign=table, contract=waiting, dynasty=france, by=SYSTEM_ACTOR)
    table.ruleset = "eu-bloodline"  # so that the dispute page shows its grid of votes
    table.save()
    base = f"{live_server.url}/c/{table.slug}/contracts/"
    pages = (
        ("list", base),
        ("detail", f"{base}{pact.pk}/"),
        ("detail-draft", f"{base}{waiting.pk}/"),
        ("draft", f"{base}new/"),
        ("parley", f"{base}parley/?breach={breach.pk}"),
        ("dispute", f"{base}{pact.pk}/breaches/{breach.pk}/dispute/"),
    )
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport)
        try:
            page = context.new_page()
            log_in(page, live_server.url, "gm")
            for name, url in pages:
                page.goto(url)
                expect(page.locator("main h1")).to_be_visible()
                fits(page)
                shoot(page, f"{name}-{size}")
        finally:
            context.close()
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        log_in(page, live_server.url, "gm")
        page.goto(f"{base}new/")
        page.get_by_label("Add a clause").select_option("recurring_payment")
        page.get_by_role("button", name="Add clause").click()
        expect(page.locator("#clause-1 legend")).to_contain_text("Clause 1")  # the page came back with the clause
        fits(page)
        shoot(page, "draft-clause-phone")
        # the GM puts the breach to a parley from the phone
        page.goto(f"{base}parley/?breach={breach.pk}")
        row = page.locator("table.votes-grid tbody tr").filter(has_text="Plantagenet")
        row.get_by_label("Stature of Plantagenet").fill("5")
        row.get_by_label("Vote of Plantagenet").select_option("for")
        row = page.locator("table.votes-grid tbody tr").filter(has_text="Anjou")
        row.get_by_label("Stature of Anjou").fill("5")
        row.get_by_label("Vote of Anjou").select_option("against")
        page.get_by_role("button", name="Count the votes").click()
        expect(page.locator(".messages")).to_contain_text("excommunicated (5 to 5, a tie)")
        fits(page)
        shoot(page, "detail-after-parley-phone")
    finally:
        context.close()
