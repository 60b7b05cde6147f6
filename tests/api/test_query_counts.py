"""Queries per list request do not grow with the page size nor with the database: the same count
for a page of 10 out of ~10 rows and a page of 100 out of 1,000 (rows created in bulk)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign.models import Roll
from contracts.models import Breach, Clause, Contract, Dispute, DisputeTerm, DisputeVote, Parley, ParleyVote
from dynasties.models import Character, Dynasty, Marriage, Posting, RollSubject
from tests.api.conftest import url


def houses(campaign):
    return list(Dynasty.objects.filter(campaign=campaign).order_by("pk"))


def add_characters(campaign, n):
    england = houses(campaign)[0]
    parents = list(Character.objects.filter(campaign=campaign).order_by("pk")[:2])
    Character.objects.bulk_create(
        Character(
            campaign=campaign,
            given_name=f"Child {i}",
            sex="MF"[i % 2],
            birth_year=1290 + i % 10,
            dynastic_name="Bulk",
            father=parents[0],
            mother=parents[1],
            controlled_by=england,
        )
        for i in range(n)
    )


def add_marriages(campaign, n):
    add_characters(campaign, 2 * n)
    people = list(Character.objects.filter(campaign=campaign, dynastic_name="Bulk").order_by("-pk")[: 2 * n])
    Marriage.objects.bulk_create(
        Marriage(
            campaign=campaign,
            husband=people[2 * i],
            wife=people[2 * i + 1],
            arranged_year=1300,
            wedding_year=1300 if i % 2 else None,
        )
        for i in range(n)
    )


def add_rolls(campaign, n):
    people = list(Character.objects.filter(campaign=campaign).order_by("pk")[:3])
    rolls = Roll.objects.bulk_create(
        Roll(campaign=campaign, year=1300, step="survival", purpose="survival", dice="2d6", faces=[3, 4], source="server")
        for _ in range(n)
    )
    RollSubject.objects.bulk_create(RollSubject(roll=r, character=people[i % 3], position=0) for i, r in enumerate(rolls))


def add_postings(campaign, n):
    england, france = houses(campaign)[:2]
    Posting.objects.bulk_create(
        Posting(
            campaign=campaign,
            year=1300,
            step="births",
            payer=england if i % 2 else None,
            payee=france if i % 2 else england,
            amount=1 + i,
            kind="transfer",
            reason=f"Gift {i}",
        )
        for i in range(n)
    )


def add_contracts(campaign, n):
    england, france, spain = houses(campaign)[:3]
    contracts = Contract.objects.bulk_create(
        Contract(campaign=campaign, kind="agreement", title=f"Pact {i}", start_year=1300) for i in range(n)
    )
    through = Contract.parties.through
    through.objects.bulk_create(
        [through(contract=c, dynasty=d) for c in contracts for d in (england, france if c.pk % 2 else spain)]
    )
    clauses = Clause.objects.bulk_create(Clause(contract=c, position=1, kind="non_aggression") for c in contracts)
    breaches = Breach.objects.bulk_create(
        Breach(campaign=campaign, contract=c, clause=cl, by_dynasty=england, raised_by=spain, year=1300, text="Raid")
        for c, cl in zip(contracts, clauses, strict=True)
    )
    parleys = Parley.objects.bulk_create(
        Parley(
            campaign=campaign,
            year=1300,
            step="interphase",
            kind="breach",
            subject="Raid",
            caller=spain,
            breach=b,
            carried=True,
            outcome="Upheld",
        )
        for b in breaches
    )
    ParleyVote.objects.bulk_create(
        ParleyVote(parley=p, dynasty=france, stature=5, christian=True, votes=5, choice="for", position=1) for p in parleys
    )
    disputes = Dispute.objects.bulk_create(Dispute(campaign=campaign, breach=b, year=1300) for b in breaches)
    DisputeTerm.objects.bulk_create(
        DisputeTerm(dispute=d, clause=cl, upheld_by=1, rejected_by=0, upheld=True)
        for d, cl in zip(disputes, clauses, strict=True)
    )
    DisputeVote.objects.bulk_create(
        DisputeVote(dispute=d, dynasty=france, clause=cl, upholds=True) for d, cl in zip(disputes, clauses, strict=True)
    )


CASES = {
    "characters": add_characters,
    "marriages": add_marriages,
    "rolls": add_rolls,
    "ledger": add_postings,
    "contracts": add_contracts,
}


def count(client, path, page_size) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path, {"page_size": page_size})
    assert response.status_code == 200, response.content
    return len(ctx.captured_queries), len(response.json()["results"])


@pytest.mark.django_db
@pytest.mark.parametrize("resource", list(CASES))
@pytest.mark.parametrize("who", ["gm", "alice"])
def test_list_queries_do_not_grow(campaign, gm, alice, client_for, resource, who):
    client = client_for({"gm": gm, "alice": alice}[who])
    path = url(campaign, resource)
    CASES[resource](campaign, 10)
    small, rows_small = count(client, path, 10)
    CASES[resource](campaign, 990)
    big, rows_big = count(client, path, 100)
    assert rows_small == 10 and rows_big == 100
    assert big == small, f"{resource} as {who}: {small} queries for 10 rows, {big} for 100 of 1,000"
    assert small <= 16


@pytest.mark.django_db
def test_the_characters_list_query_budget(campaign, gm, client_for):
    """Session, user, the campaign with the caller's membership (one read, which ``visible`` then
    remembers for the request), count, page, the page's children, the page's matches."""
    add_characters(campaign, 50)
    queries, _ = count(client_for(gm), url(campaign, "characters"), 100)
    assert queries == 7
