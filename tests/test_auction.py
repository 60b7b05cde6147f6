"""The aristocratic auction (RULES.md A8): a 10-Crown deposit from each bidder, the highest pays."""

from __future__ import annotations

import pytest

from campaign.permissions import SYSTEM_ACTOR
from dynasties import treasury
from dynasties.models import Character, Dynasty
from dynasties.services import campaign_create
from dynasties.services.auction import auction_run
from dynasties.treasury import InsufficientFunds
from rules.dice import RandomSource
from rules.errors import RuleError


@pytest.fixture
def three(db):
    c = campaign_create(name="Three", players=3, source=RandomSource(2))
    c.current_year = 1320
    c.save()
    houses = {d.crown or "aristo": d for d in Dynasty.objects.filter(campaign=c)}
    for name in ("England", "France", "Germany"):
        treasury.post(c, payer=None, payee=houses[name], amount=100, kind="tax", reason="taxes")
    child = Character.objects.get(campaign=c, controlled_by=houses["aristo"], birth_year=1295)
    return c, houses, child


@pytest.mark.django_db
def test_the_highest_sealed_bid_takes_the_character(three):
    c, h, child = three
    winner = auction_run(campaign=c, character=child, bids={h["England"].pk: 40, h["France"].pk: 25}, by=SYSTEM_ACTOR)
    child.refresh_from_db()
    assert winner == h["England"] and child.controlled_by == h["England"]
    assert treasury.balance(c, h["England"]) == 100 - 10 - 40
    assert treasury.balance(c, h["France"]) == 100 - 10  # the deposit is not returned
    assert treasury.balance(c, None) == -300 + 10 + 10 + 40


@pytest.mark.django_db
def test_auction_refusals(three):
    c, h, child = three
    with pytest.raises(RuleError, match="bid 30 each: the tied players bid again"):
        auction_run(campaign=c, character=child, bids={h["England"].pk: 30, h["France"].pk: 30}, by=SYSTEM_ACTOR)
    king = Character.objects.filter(campaign=c, controlled_by=h["England"]).first()
    with pytest.raises(RuleError, match="not of the aristocratic family"):
        auction_run(campaign=c, character=king, bids={h["France"].pk: 5}, by=SYSTEM_ACTOR)
    with pytest.raises(InsufficientFunds):
        auction_run(campaign=c, character=child, bids={h["Germany"].pk: 500}, by=SYSTEM_ACTOR)
    assert treasury.balance(c, h["Germany"]) == 100  # nothing half-written
