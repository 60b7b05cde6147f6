"""Issue 34, "Money and contracts in view": a contract's payment the payer could not cover (a debt)
shows on the exchequers of both houses, on the dashboard and on the wedding's card, to those two
houses and the GM only; a match a contract already seals is not offered "Draft the contract" again.

The rulebook (BloodLine, A6): "the contract binds only from the wedding", and its payments are made
then; a payer who cannot cover one owes it (docs/rulings.md: kept unpaid, never skipped, until paid)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.permissions import SYSTEM_ACTOR
from contracts.models import ContractPayment, PaymentStatus
from contracts.services import contract_draft, contract_sign
from dynasties.models import Dynasty
from tests.test_contracts import betroth, house, pay, wed


def _debt(campaign, *, third: str | None = None):
    """John Plantagenet (England, Alice's) weds Mary Hapsburg (Germany) under a contract by which
    Germany, holding 0 Crowns, pays England 80: unpaid at the wedding (a debt)."""
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    match = betroth(campaign)
    parties = [england.pk, germany.pk] + ([house(campaign, third).pk] if third else [])
    contract = contract_draft(
        campaign=campaign,
        kind="marriage",
        title="The Plantagenet-Hapsburg match",
        parties=parties,
        marriage=match,
        clauses=[pay(germany, england, 80)],
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    wed(campaign, match)
    [due] = ContractPayment.objects.filter(campaign=campaign, status=PaymentStatus.UNPAID)
    return match, contract, due


def _text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def _url(name, campaign, **kw):
    return reverse(f"pages:{name}", kwargs={"slug": campaign.slug, **kw})


@pytest.mark.django_db
def test_a_debt_shows_on_both_exchequers_the_dashboard_and_the_wedding_card(client, campaign, gm, alice):
    match, contract, due = _debt(campaign)
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    client.force_login(alice)
    page = _text(client.get(_url("exchequer", campaign, dynasty_pk=england.pk)))
    assert "is owed 80 Crowns not yet paid" in page and "owed by Hapsburg since 1310" in page
    assert "The Plantagenet-Hapsburg match" in page  # linked to the contract, where it is paid
    assert "No postings yet (the debts above are not postings until paid)" in page
    dashboard = client.get(_url("dashboard", campaign)).content.decode()
    assert dashboard.count(f'data-debt="{due.pk}"') == 2  # England's row and Germany's
    card = client.get(_url("marriages", campaign)).content.decode()
    wedding = card[card.index(f'id="match-{match.pk}"') :]
    wedding = wedding[: wedding.index("</article>")]
    assert f'data-debt="{due.pk}"' in wedding and "80 Crowns" in wedding
    assert "Sealed by" in wedding and _url("contract", campaign, pk=contract.pk) in wedding
    assert "Draft the contract" not in wedding  # a contract seals it already
    client.force_login(gm)
    page = _text(client.get(_url("exchequer", campaign, dynasty_pk=germany.pk)))
    assert "owes 80 Crowns it could not pay when due" in page and "owed to Plantagenet since 1310" in page
    assert "Pay it now" in page or "paid there with" in page


@pytest.mark.django_db
def test_a_paid_debt_leaves_the_pages(client, campaign, alice):
    from contracts.services import payment_settle
    from dynasties import treasury
    from dynasties.models import PostingKind

    _, _, due = _debt(campaign)
    germany = house(campaign, "Germany")
    treasury.post(campaign, payer=None, payee=germany, amount=100, kind=PostingKind.OTHER, reason="test funds")
    payment_settle(campaign=campaign, payment=due, by=SYSTEM_ACTOR)
    client.force_login(alice)
    england = house(campaign, "England")
    page = client.get(_url("exchequer", campaign, dynasty_pk=england.pk)).content.decode()
    assert 'id="debts"' not in page and "data-debt" not in client.get(_url("dashboard", campaign)).content.decode()


@pytest.mark.django_db
def test_a_debt_is_secret_to_everyone_but_its_two_houses_and_the_gm(client, campaign, bob):
    """France (Bob's) is a third party to the contract: he reads its payments on the contract's page
    (its parties' right), but the debt between England and Germany is not his, on no other page."""
    _, contract, _ = _debt(campaign, third="France")
    client.force_login(bob)
    assert "Unpaid" in client.get(_url("contract", campaign, pk=contract.pk)).content.decode()
    for name, kw in (("dashboard", {}), ("marriages", {})):
        body = client.get(_url(name, campaign, **kw)).content.decode()
        assert "data-debt" not in body and "80 Crowns" not in body, name
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    assert "data-debt" not in client.get(_url("exchequer", campaign, dynasty_pk=france.pk)).content.decode()
    england = house(campaign, "England")
    assert client.get(_url("exchequer", campaign, dynasty_pk=england.pk)).status_code == 404


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_the_pages_read_their_debts_in_a_fixed_number_of_queries(client, campaign, gm, alice):
    _, contract, due = _debt(campaign)
    england = house(campaign, "England")
    urls = [_url("exchequer", campaign, dynasty_pk=england.pk), _url("dashboard", campaign), _url("marriages", campaign)]
    for user in (gm, alice):
        client.force_login(user)
        before = [_queries(client, u) for u in urls]
        for year in (1311, 1312, 1313):  # three more debts of the same contract
            ContractPayment.objects.create(
                campaign=campaign, contract=contract, year=year, payer=due.payer, payee=due.payee, amount=5, status="unpaid"
            )
        after = [_queries(client, u) for u in urls]
        assert after == before, (user, before, after)
        assert client.get(urls[0]).content.decode().count("data-debt=") == 4  # every debt, on England's exchequer
        ContractPayment.objects.filter(year__gt=1310).delete()
