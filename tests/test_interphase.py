"""The Blood Royale Interphase helper: every line posted to the ledger in one transaction (RULES.md A8)."""

from __future__ import annotations

import pytest

from campaign.interphase import InterphaseAlreadyRun, interphase_preview, interphase_run
from campaign.models import Campaign, ChronicleEntry, Posting, PostingKind, Step
from campaign.permissions import can_view, visible
from campaign.treasury import InsufficientFunds, balance, balances, post, posting_reverse
from dynasties.models import Dynasty
from dynasties.rules import interphase as ip
from dynasties.rules.errors import NotFound, RuleError, StepOrderError
from dynasties.rules.interphase import InterphaseError
from tests.factories import at_step


@pytest.fixture
def interphase(campaign: Campaign) -> Campaign:
    return at_step(campaign, Step.INTERPHASE, year=1305)


@pytest.fixture
def england(campaign: Campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


@pytest.fixture
def france(campaign: Campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="France")


def give(campaign: Campaign, dynasty: Dynasty, amount: int) -> None:
    post(campaign, payer=None, payee=dynasty, amount=amount, kind=PostingKind.OTHER, reason="starting purse")


def rows(campaign: Campaign) -> list[tuple[int | None, int | None, int, str]]:
    return list(
        Posting.objects.filter(campaign=campaign, kind__in=ip.KINDS)
        .order_by("id")
        .values_list("payer_id", "payee_id", "amount", "kind")
    )


def test_the_kinds_are_posting_kinds() -> None:
    assert set(ip.KINDS) <= set(PostingKind.values)
    assert PostingKind.TAX == ip.TAX and PostingKind.CASH_IN == ip.CASH_IN and PostingKind.REBELLION == ip.REBELLION


def test_a_run_posts_every_line_between_the_treasury_and_the_dynasty(interphase, england, gm) -> None:
    give(interphase, england, 10)
    run = interphase_run(
        campaign=interphase, dynasty=england, provinces=10, tax_rate=7, famine=1, rebellion=2, rebellions_bought_off=1,
        home_provinces=8, home_in_rebellion=0, armies_kept=6, fleets_kept=1, armies_raised=2, fleets_raised=1,
        basic_sets=1, semi_luxury_sets=1, by=gm,
    )
    e = england.pk
    assert rows(interphase) == [
        (None, e, 49, "tax"),  # 7 provinces at 7
        (None, e, 50, "cash_in"),
        (None, e, 80, "cash_in"),
        (e, None, 15, "rebellion"),
        (e, None, 12, "maintenance"),
        (e, None, 2, "maintenance"),
        (e, None, 10, "raising"),
        (e, None, 5, "raising"),
    ]
    assert run.balance == balance(interphase, england) == 10 + 49 + 130 - 44
    assert [p.pk for p in run.postings] == list(
        Posting.objects.filter(campaign=interphase, kind__in=ip.KINDS).order_by("id").values_list("pk", flat=True)
    )
    assert [line.amount for line in run.lines] == [p.amount for p in run.postings]
    assert all(p.year == 1305 and p.step == Step.INTERPHASE and p.entered_by == gm for p in run.postings)
    assert run.postings[0].reason.startswith("Taxation: 7 provinces at 7 Crowns; 3 in famine or rebellion pay nothing")
    assert run.result.rebellion_modifier == -2
    assert any("apply -2 to every Rebellion roll" in note for note in run.notes)
    entry = ChronicleEntry.objects.get(campaign=interphase, kind="payment", data__interphase=True)
    assert entry.year == 1305 and entry.data["dynasty"] == e and entry.data["postings"] == [p.pk for p in run.postings]
    assert entry.text.startswith(f"The Interphase of the house of {england.name} (England), 1305: +49 Taxation")
    assert "Income 179 Crowns, costs 44 Crowns." in entry.text


def test_the_ledger_sums_to_zero_after_runs(interphase, england, france) -> None:
    give(interphase, france, 40)
    interphase_run(campaign=interphase, dynasty=england, provinces=9, armies_raised=8, home_provinces=9, basic_sets=2)
    interphase_run(campaign=interphase, dynasty=france, provinces=12, tax_rate=7, armies_kept=10, capital_rebellion=True)
    accounts = balances(interphase)
    assert sum(accounts.values()) == 0
    assert accounts[england.pk] == 45 + 100 - 40
    assert accounts[france.pk] == (40 + 84 - 20) - (40 + 84 - 20) // 2
    assert accounts[None] == -(accounts[england.pk] + accounts[france.pk])


def test_a_second_run_in_the_year_is_refused(interphase, england, france) -> None:
    interphase_run(campaign=interphase, dynasty=england, provinces=5)
    with pytest.raises(InterphaseAlreadyRun) as info:
        interphase_run(campaign=interphase, dynasty=england, provinces=5)
    assert info.value.message == (
        f"The house of {england.name} has already run its Interphase of 1305 (once per dynasty per year). To put a "
        "mistake right, reverse that run's postings and run it again."
    )
    assert info.value.code == "interphase_done" and isinstance(info.value, StepOrderError)
    assert balance(interphase, england) == 25
    interphase_run(campaign=interphase, dynasty=france, provinces=5)  # another house runs its own
    at_step(interphase, Step.INTERPHASE, year=1310)
    assert interphase_run(campaign=interphase, dynasty=england, provinces=5).balance == 50  # the next year is open


def test_a_run_with_no_money_moved_still_counts_once(interphase, england) -> None:
    interphase_run(campaign=interphase, dynasty=england, provinces=0)
    with pytest.raises(InterphaseAlreadyRun):
        interphase_run(campaign=interphase, dynasty=england, provinces=0)


def test_a_reversed_run_may_be_run_again(interphase, england) -> None:
    first = interphase_run(campaign=interphase, dynasty=england, provinces=5, armies_raised=1, home_provinces=5)
    posting_reverse(campaign=interphase, posting=first.postings[0], reason="wrong count")
    with pytest.raises(InterphaseAlreadyRun):  # one line is still standing
        interphase_run(campaign=interphase, dynasty=england, provinces=6)
    posting_reverse(campaign=interphase, posting=first.postings[1], reason="wrong count")
    again = interphase_run(campaign=interphase, dynasty=england, provinces=6)
    assert again.balance == 30 == balance(interphase, england)


def test_a_broke_dynasty_is_refused_and_nothing_is_posted(interphase, england) -> None:
    with pytest.raises(InsufficientFunds) as info:
        interphase_run(campaign=interphase, dynasty=england, provinces=0, fleets_kept=2)
    assert info.value.message == (
        f"The house of {england.name} holds 0 Crowns; with 0 of income (taxes and sets cashed in, counted first) "
        "that is 0, and the costs come to 4: 4 Crowns short. Keep or raise fewer forces or buy off fewer rebellions "
        "(the GM may allow overdrafts for the campaign)."
    )
    assert rows(interphase) == []
    assert not ChronicleEntry.objects.filter(campaign=interphase, data__interphase=True).exists()
    # refused, not run: the house may try again with what it can pay
    assert interphase_run(campaign=interphase, dynasty=england, provinces=0).balance == 0


def test_costs_above_cash_and_income_are_refused(interphase, england) -> None:
    give(interphase, england, 10)
    with pytest.raises(InsufficientFunds) as info:
        interphase_run(campaign=interphase, dynasty=england, provinces=4, armies_kept=14, fleets_kept=2, home_provinces=4)
    assert info.value.message == (
        f"The house of {england.name} holds 10 Crowns; with 20 of income (taxes and sets cashed in, counted first) "
        "that is 30, and the costs come to 32: 2 Crowns short. Keep or raise fewer forces or buy off fewer rebellions "
        "(the GM may allow overdrafts for the campaign)."
    )
    assert info.value.code == "insufficient_funds"
    assert rows(interphase) == []
    assert not ChronicleEntry.objects.filter(campaign=interphase, data__interphase=True).exists()
    assert balance(interphase, england) == 10
    # with one army fewer it is paid, the taxes counted first
    run = interphase_run(campaign=interphase, dynasty=england, provinces=4, armies_kept=13, fleets_kept=2, home_provinces=4)
    assert run.balance == 0


def test_an_overdraft_the_gm_allows_is_posted(interphase, england) -> None:
    Campaign.objects.filter(pk=interphase.pk).update(allow_overdraft=True)
    run = interphase_run(campaign=interphase, dynasty=england, provinces=1, armies_kept=5, home_provinces=1)
    assert run.balance == -5 == balance(interphase, england)
    assert run.result.shortfall == 5


def test_a_rebellion_in_the_capital_returns_half_the_cash_in_hand(interphase, england) -> None:
    give(interphase, england, 101)
    run = interphase_run(campaign=interphase, dynasty=england, provinces=0, capital_rebellion=True)
    assert rows(interphase) == [(england.pk, None, 50, "rebellion")]
    assert run.balance == 51
    assert run.postings[0].reason == (
        "Rebellion in the capital: half of the 101 Crowns in hand, 50 (rounded down), returned to the Treasury"
    )


def test_the_capital_halves_the_cash_after_the_interphase_lines(interphase, england) -> None:
    give(interphase, england, 20)
    run = interphase_run(
        campaign=interphase, dynasty=england, provinces=8, armies_kept=4, home_provinces=8, capital_rebellion=True
    )
    assert [(p.kind, p.amount) for p in run.postings] == [("tax", 40), ("maintenance", 8), ("rebellion", 26)]
    assert run.balance == 26


def test_limits_are_refused_with_their_messages_and_nothing_is_posted(interphase, england) -> None:
    give(interphase, england, 500)
    with pytest.raises(InterphaseError) as info:
        interphase_run(
            campaign=interphase, dynasty=england, provinces=6, home_provinces=4, armies_kept=5, armies_raised=4,
            fleets_kept=4, fleets_raised=1,
        )
    assert info.value.message == (
        "At most 4 fleets: 4 kept + 1 raised = 5. Raising 4 armies would put 9 on the map, above 2 x 4 home provinces "
        "not in rebellion (4 controlled, 0 still in rebellion after the buy-offs) = 8: raise at most 3."
    )
    assert info.value.fields == {"fleets_raised": "over_limit", "armies_raised": "over_cap"}
    assert rows(interphase) == []
    with pytest.raises(InterphaseError, match=r"At most 20 armies on the map: 18 kept \+ 3 raised = 21\."):
        interphase_run(campaign=interphase, dynasty=england, provinces=12, home_provinces=12, armies_kept=18, armies_raised=3)
    with pytest.raises(InterphaseError, match=r"Armies kept cannot be negative \(got -2\)\."):
        interphase_run(campaign=interphase, dynasty=england, provinces=3, armies_kept=-2)
    with pytest.raises(InterphaseError, match=r"5 provinces in famine or rebellion, but the country controls only 4\."):
        interphase_run(campaign=interphase, dynasty=england, provinces=4, famine=3, rebellion=2)
    with pytest.raises(InterphaseError, match=r"The tax rate is 5 or 7 Crowns per province"):
        interphase_run(campaign=interphase, dynasty=england, provinces=4, tax_rate=6)
    assert rows(interphase) == []


def test_province_names_may_be_given(interphase, england) -> None:
    give(interphase, england, 50)
    run = interphase_run(
        campaign=interphase, dynasty=england, provinces=["Kent", "Wessex", "Mercia", "Calais"],
        famine=["Calais"], rebellion=["Mercia"], rebellions_bought_off=["Mercia"],
        home_provinces=["Kent", "Wessex", "Mercia"], armies_raised=1,
    )
    assert [(p.kind, p.amount) for p in run.postings] == [("tax", 10), ("rebellion", 15), ("raising", 5)]
    assert run.result.raising_cap == 6  # Mercia's rebellion is bought off: 3 quiet home provinces
    assert run.balance == 40


def test_only_in_the_interphase_step(campaign, england) -> None:
    at_step(campaign, Step.MARRIAGES, year=1305)
    with pytest.raises(StepOrderError, match=r"The Interphase and movement .* step is not open yet: 1305 is at Marriages"):
        interphase_run(campaign=campaign, dynasty=england, provinces=5)


def test_the_first_turn_has_nothing_to_maintain(campaign, england) -> None:
    at_step(campaign, Step.INTERPHASE)  # 1300
    with pytest.raises(InterphaseError, match="Armies kept: none in the first turn"):
        interphase_run(campaign=campaign, dynasty=england, provinces=5, armies_kept=1)
    run = interphase_run(campaign=campaign, dynasty=england, provinces=5, home_provinces=5, armies_raised=5)
    assert run.balance == 0


def test_only_blood_royale_and_only_its_own_dynasties(interphase, england) -> None:
    with pytest.raises(NotFound, match=r"There is no dynasty #999999 in Test Campaign\."):
        interphase_run(campaign=interphase, dynasty=999999, provinces=5)
    Campaign.objects.filter(pk=interphase.pk).update(ruleset="eu-bloodline")
    with pytest.raises(RuleError) as info:
        interphase_run(campaign=interphase, dynasty=england, provinces=5)
    assert info.value.code == "wrong_ruleset"


def test_a_preview_posts_nothing_and_reports_the_shortfall(interphase, england) -> None:
    result = interphase_preview(campaign=interphase.pk, dynasty=england.pk, provinces=2, armies_kept=8, home_provinces=2)
    assert result.shortfall == 6 and result.cash_after == -6
    assert [(line.kind, line.amount) for line in result.lines] == [("tax", 10), ("maintenance", 16)]
    assert rows(interphase) == []
    assert not ChronicleEntry.objects.filter(campaign=interphase, data__interphase=True).exists()



def test_the_chronicle_line_is_private_like_the_ledger(interphase, england, gm, alice, bob) -> None:
    interphase_run(campaign=interphase, dynasty=england, provinces=5)
    entry = ChronicleEntry.objects.get(campaign=interphase, data__interphase=True)
    assert can_view(gm, entry) and can_view(alice, entry) and not can_view(bob, entry)
    assert entry not in visible(bob, interphase, ChronicleEntry.objects.all())
