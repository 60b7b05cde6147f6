"""The treasury (RULES.md A8): a double-entry ledger, the rules' payments posted by themselves,
gifts and loans, overdrafts, corrections."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.models import Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import load_tables
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, Posting, PostingKind, Reign
from dynasties.services import marriage_arrange, survival_finish, survival_roll
from dynasties.services.common import World
from dynasties.services.survival import survival_due
from dynasties.treasury import InsufficientFunds, posting_reverse, treasury_transfer
from rules.errors import RuleError
from tests.factories import at_step, crown, empty_house, person, wed
from tests.profiles import examples


def house(campaign, name):
    return Dynasty.objects.get(campaign=campaign, crown=name)


@pytest.mark.django_db
@pytest.mark.parametrize(("charisma", "crowns"), [(-2, -60), (-1, -30), (0, 0), (1, 30), (2, 60)])
def test_a6_the_brides_charisma_is_paid_at_the_wedding(campaign, charisma, crowns):
    """A6: 'a bride with a +1 score confers a 30 Crown benefit ... the player of the male character must pay
    30 Crowns to the Treasury for a -1 Charisma bride, and 60 Crowns for a -2 Charisma bride.'"""
    england, france = house(campaign, "England"), house(campaign, "France")
    groom = person(campaign, england, "Groom", "M", 1278)
    bride = person(campaign, france, "Bride", "F", 1280, charisma=charisma)
    at_step(campaign, Step.MARRIAGES)
    marriage_arrange(campaign=campaign, husband=groom, wife=bride, wed=True, by=SYSTEM_ACTOR)
    assert treasury.balance(campaign, england) == crowns
    assert treasury.balance(campaign, None) == -crowns
    if crowns:
        posting = Posting.objects.get(campaign=campaign)
        assert posting.kind == PostingKind.WEDDING and posting.amount == abs(crowns)
        assert posting.marriage.husband == groom


def kill_at_survival(campaign, dying, year=None):
    at_step(campaign, Step.SURVIVAL, year=year)
    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign))]
    survival_roll(campaign=campaign, faces={pk: [1, 1] if pk == dying.pk else [6, 6] for pk in due}, by=SYSTEM_ACTOR)
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)


def prince_and_bride(campaign):
    """Testland's old King, his son the Prince, wed to a bride born in France's house."""
    testhouse = empty_house(campaign)
    king = person(campaign, testhouse, "Old", "M", 1250)
    crown(campaign, king, "Testland", 1280)
    prince = person(campaign, testhouse, "Prince", "M", 1275, father=king)
    bride = person(campaign, house(campaign, "France"), "Bride", "F", 1278)
    bride.controlled_by = testhouse
    bride.save()
    wed(campaign, prince, bride, 1296)
    return testhouse, king, prince, bride


@pytest.mark.django_db
def test_a6_100_crowns_when_her_husband_later_becomes_king(campaign):
    """A6: 'If a bride marries a King or a Prince who later becomes a King, the player from whose Dynasty
    she came receives 100 Crowns from the Treasury, either at the time of the marriage or when the male
    character succeeds to the throne.'"""
    france = house(campaign, "France")
    _testhouse, king, prince, _bride = prince_and_bride(campaign)
    assert treasury.balance(campaign, france) == 0
    kill_at_survival(campaign, king)
    assert Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True).holder == prince
    assert treasury.balance(campaign, france) == 100
    assert Posting.objects.get(campaign=campaign).kind == PostingKind.MONARCH_MATCH


@pytest.mark.django_db
def test_a6_the_100_crowns_are_paid_once_per_match_not_again_at_a_second_throne(campaign):
    """A6: '... receives 100 Crowns from the Treasury, either at the time of the marriage or when the
    male character succeeds to the throne': once for the match. A King who later inherits a second
    crown does not earn his wife's house another 100 (before: paid again at each throne)."""
    france = house(campaign, "France")
    testhouse, king, prince, bride = prince_and_bride(campaign)
    kill_at_survival(campaign, king)
    assert treasury.balance(campaign, france) == 100
    uncle = person(campaign, testhouse, "Uncle", "M", 1240)
    crown(campaign, uncle, "Otherland", 1280)
    Character.objects.filter(pk=king.pk).update(father=uncle)  # the uncle's heir is his grandson, the new King
    kill_at_survival(campaign, uncle, year=campaign.current_year + 5)
    assert Reign.objects.get(campaign=campaign, crown="Otherland", end_year__isnull=True).holder == prince
    assert treasury.balance(campaign, france) == 100
    [paid] = Posting.objects.filter(campaign=campaign, kind=PostingKind.MONARCH_MATCH)
    assert paid.marriage.wife == bride


@pytest.mark.django_db
def test_a_bride_for_a_reigning_king_is_paid_at_once(campaign):
    france, england = house(campaign, "France"), house(campaign, "England")
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    Marriage.objects.filter(husband=king).update(ended_year=1300, end_cause="death of the wife")
    bride = person(campaign, france, "Bride", "F", 1282, charisma=1)
    at_step(campaign, Step.MARRIAGES)
    marriage_arrange(campaign=campaign, husband=king, wife=bride, wed=True, by=SYSTEM_ACTOR)
    assert treasury.balance(campaign, france) == 100
    assert treasury.balance(campaign, england) == 30


@pytest.mark.django_db
def test_gifts_loans_overdrafts_and_corrections(campaign, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    with pytest.raises(InsufficientFunds, match="The house of Plantagenet holds 0 Crowns and cannot pay 10"):
        treasury_transfer(campaign=campaign, payer=england, payee=france, amount=10, reason="a gift", by=SYSTEM_ACTOR)
    treasury.post(campaign, payer=None, payee=england, amount=40, kind="tax", reason="taxes")
    loan = treasury_transfer(campaign=campaign, payer=england, payee=france, amount=25, reason="a loan", kind="loan", by=gm)
    assert (treasury.balance(campaign, england), treasury.balance(campaign, france)) == (15, 25)
    assert loan.entered_by == gm
    with pytest.raises(RuleError, match="must be a whole number above 0"):
        treasury_transfer(campaign=campaign, payer=england, payee=france, amount=0, reason="nothing", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="'tax' postings are made by the rules"):
        treasury_transfer(campaign=campaign, payer=None, payee=france, amount=5, reason="free money", kind="tax", by=SYSTEM_ACTOR)
    campaign.allow_overdraft = True
    campaign.save()
    treasury_transfer(campaign=campaign, payer=england, payee=france, amount=100, reason="on credit", by=SYSTEM_ACTOR)
    assert treasury.balance(campaign, england) == -85
    fix = posting_reverse(campaign=campaign, posting=loan, reason="entered twice", by=SYSTEM_ACTOR)
    assert fix.kind == PostingKind.CORRECTION and fix.payer == france and fix.payee == england
    assert (treasury.balance(campaign, england), treasury.balance(campaign, france)) == (-60, 100)
    with pytest.raises(RuleError, match="already reversed"):
        posting_reverse(campaign=campaign, posting=loan, reason="again", by=SYSTEM_ACTOR)
    assert Posting.objects.filter(campaign=campaign).count() == 4  # nothing edited or deleted
    assert treasury.currency(campaign) == "Crowns"


@pytest.mark.django_db
def test_the_service_asks_the_policy_who_pays_and_who_pays_the_treasury(campaign, gm, alice, bob):
    """Whatever the door (page, API, shell): a player pays from his own exchequer only, to another house
    only (the Treasury is paid by the GM's hand); too little money is said next to the amount."""
    from campaign.permissions import Forbidden

    england, france = house(campaign, "England"), house(campaign, "France")
    treasury.post(campaign, payer=None, payee=england, amount=40, kind="tax", reason="taxes")
    with pytest.raises(Forbidden):
        treasury_transfer(campaign=campaign, payer=england, payee=None, amount=5, reason="a tithe", by=alice)
    with pytest.raises(Forbidden):
        treasury_transfer(campaign=campaign, payer=england, payee=france, amount=5, reason="not his", by=bob)
    with pytest.raises(InsufficientFunds) as refused:
        treasury_transfer(campaign=campaign, payer=england, payee=france, amount=41, reason="too much", by=alice)
    assert refused.value.fields == {"amount": "insufficient_funds"}
    treasury_transfer(campaign=campaign, payer=england, payee=None, amount=5, reason="a fine", by=gm)
    treasury_transfer(campaign=campaign, payer=england, payee=france, amount=5, reason="a gift", by=alice)
    assert (treasury.balance(campaign, england), treasury.balance(campaign, france)) == (30, 5)


@pytest.mark.django_db(transaction=False)
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(-200, 200)), max_size=25))
def test_the_ledger_always_sums_to_zero(campaign, moves):
    from django.db import transaction

    sid = transaction.savepoint()
    try:
        houses = [None, *Dynasty.objects.filter(campaign=campaign).order_by("pk")]
        for a, b, amount in moves:
            if a == b:
                continue
            treasury.post(campaign, payer=houses[a], payee=houses[b], amount=amount, kind="other", reason="a move")
        totals = treasury.balances(campaign)
        assert sum(totals.values()) == 0
        for d in houses[1:]:
            assert treasury.balance(campaign, d) == totals.get(d.pk, 0)
        assert treasury.balance(campaign, None) == totals.get(None, 0)
    finally:
        transaction.savepoint_rollback(sid)
