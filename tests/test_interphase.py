"""The Blood Royale Interphase helper: every line posted to the ledger in one transaction (RULES.md A8)."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR, can_view, visible
from dynasties.models import Character, Dynasty, Posting, PostingKind, Title
from dynasties.services.interphase import (
    CashInAlreadyRun,
    InterphaseAlreadyRun,
    cash_in_open_runs,
    cash_in_preview,
    cash_in_run,
    interphase_preview,
    interphase_run,
)
from dynasties.treasury import InsufficientFunds, balance, balances, post, posting_reverse
from rules import interphase as ip
from rules.errors import NotFound, RuleError, StepOrderError
from rules.interphase import Governed, InterphaseEntry, InterphaseError
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
    markers = {"famine": 1, "rebellion": 2, "rebellions_bought_off": 1}
    forces = {"armies_kept": 6, "fleets_kept": 1, "armies_raised": 2, "fleets_raised": 1}
    entry = InterphaseEntry(provinces=10, tax_rate=7, home_provinces=8, home_in_rebellion=0, **markers, **forces)
    run = interphase_run(campaign=interphase, dynasty=england, entry=entry, by=gm)
    e = england.pk
    # no cash_in lines: "The Full Game Turn ends with Cashing In Resources" (cash_in_run), after the Interphase
    assert rows(interphase) == [
        (None, e, 49, "tax"),  # 7 provinces at 7
        (e, None, 15, "rebellion"),
        (e, None, 12, "maintenance"),
        (e, None, 2, "maintenance"),
        (e, None, 10, "raising"),
        (e, None, 5, "raising"),
    ]
    assert run.balance == balance(interphase, england) == 10 + 49 - 44
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
    assert "Income 49 Crowns, costs 44 Crowns." in entry.text


def test_the_ledger_sums_to_zero_after_runs(interphase, england, france) -> None:
    give(interphase, france, 40)
    interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(provinces=9, armies_raised=8, home_provinces=9),
        by=SYSTEM_ACTOR,
    )
    cash_in_run(campaign=interphase, dynasty=england, basic_sets=2, by=SYSTEM_ACTOR)
    interphase_run(
        campaign=interphase,
        dynasty=france,
        entry=InterphaseEntry(provinces=12, tax_rate=7, armies_kept=10, capital_rebellion=True),
        by=SYSTEM_ACTOR,
    )
    accounts = balances(interphase)
    assert sum(accounts.values()) == 0
    assert accounts[england.pk] == 45 + 100 - 40
    assert accounts[france.pk] == (40 + 84 - 20) - (40 + 84 - 20) // 2
    assert accounts[None] == -(accounts[england.pk] + accounts[france.pk])


def test_a_second_run_in_the_year_is_refused(interphase, england, france) -> None:
    interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR)
    with pytest.raises(InterphaseAlreadyRun) as info:
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR)
    assert info.value.message == (
        f"The house of {england.name} has already run its Interphase of 1305 (once per dynasty per year). To put a "
        "mistake right, reverse that run's postings and run it again."
    )
    assert info.value.code == "interphase_done" and isinstance(info.value, StepOrderError)
    assert balance(interphase, england) == 25
    interphase_run(
        campaign=interphase, dynasty=france, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR
    )  # another house runs its own
    at_step(interphase, Step.INTERPHASE, year=1310)
    assert (
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR).balance == 50
    )  # the next year is open


def test_a_run_with_no_money_moved_still_counts_once(interphase, england) -> None:
    interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR)
    with pytest.raises(InterphaseAlreadyRun):
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR)


def test_a_reversed_run_may_be_run_again(interphase, england) -> None:
    first = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(provinces=5, armies_raised=1, home_provinces=5),
        by=SYSTEM_ACTOR,
    )
    posting_reverse(campaign=interphase, posting=first.postings[0], reason="wrong count", by=SYSTEM_ACTOR)
    with pytest.raises(InterphaseAlreadyRun):  # one line is still standing
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=6), by=SYSTEM_ACTOR)
    posting_reverse(campaign=interphase, posting=first.postings[1], reason="wrong count", by=SYSTEM_ACTOR)
    again = interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=6), by=SYSTEM_ACTOR)
    assert again.balance == 30 == balance(interphase, england)


def test_a_broke_dynasty_is_refused_and_nothing_is_posted(interphase, england) -> None:
    with pytest.raises(InsufficientFunds) as info:
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=0, fleets_kept=2), by=SYSTEM_ACTOR)
    assert info.value.message == (
        f"The house of {england.name} holds 0 Crowns; with 0 of taxes (counted first) that is 0, and the "
        "costs come to 4 (resource sets are cashed in at the end of the turn and pay none of them): 4 Crowns short. "
        "Keep or raise fewer forces or buy off fewer rebellions "
        "(the GM may allow overdrafts for the campaign)."
    )
    assert rows(interphase) == []
    assert not ChronicleEntry.objects.filter(campaign=interphase, data__interphase=True).exists()
    # refused, not run: the house may try again with what it can pay
    assert interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR).balance == 0


def test_costs_above_cash_and_income_are_refused(interphase, england) -> None:
    give(interphase, england, 10)
    with pytest.raises(InsufficientFunds) as info:
        interphase_run(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=4, armies_kept=14, fleets_kept=2, home_provinces=4),
            by=SYSTEM_ACTOR,
        )
    assert info.value.message == (
        f"The house of {england.name} holds 10 Crowns; with 20 of taxes (counted first) that is 30, and the "
        "costs come to 32 (resource sets are cashed in at the end of the turn and pay none of them): 2 Crowns short. "
        "Keep or raise fewer forces or buy off fewer rebellions "
        "(the GM may allow overdrafts for the campaign)."
    )
    assert info.value.code == "insufficient_funds"
    assert rows(interphase) == []
    assert not ChronicleEntry.objects.filter(campaign=interphase, data__interphase=True).exists()
    assert balance(interphase, england) == 10
    # with one army fewer it is paid, the taxes counted first
    run = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(provinces=4, armies_kept=13, fleets_kept=2, home_provinces=4),
        by=SYSTEM_ACTOR,
    )
    assert run.balance == 0


def test_an_overdraft_the_gm_allows_is_posted(interphase, england) -> None:
    Campaign.objects.filter(pk=interphase.pk).update(allow_overdraft=True)
    run = interphase_run(
        campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=1, armies_kept=5, home_provinces=1), by=SYSTEM_ACTOR
    )
    assert run.balance == -5 == balance(interphase, england)
    assert run.result.shortfall == 5


def test_a_rebellion_in_the_capital_returns_half_the_cash_in_hand(interphase, england) -> None:
    give(interphase, england, 101)
    run = interphase_run(
        campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=0, capital_rebellion=True), by=SYSTEM_ACTOR
    )
    assert rows(interphase) == [(england.pk, None, 50, "rebellion")]
    assert run.balance == 51
    assert run.postings[0].reason == (
        "Rebellion in the capital: half of the 101 Crowns in hand, 50 (rounded down), returned to the Treasury"
    )


def test_the_capital_halves_the_cash_after_the_interphase_lines(interphase, england) -> None:
    give(interphase, england, 20)
    run = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(provinces=8, armies_kept=4, home_provinces=8, capital_rebellion=True),
        by=SYSTEM_ACTOR,
    )
    assert [(p.kind, p.amount) for p in run.postings] == [("tax", 40), ("maintenance", 8), ("rebellion", 26)]
    assert run.balance == 26


def test_limits_are_refused_with_their_messages_and_nothing_is_posted(interphase, england) -> None:
    give(interphase, england, 500)
    with pytest.raises(InterphaseError) as info:
        interphase_run(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=6, home_provinces=4, armies_kept=5, armies_raised=4, fleets_kept=4, fleets_raised=1),
            by=SYSTEM_ACTOR,
        )
    assert info.value.message == (
        "At most 4 fleets: 4 kept + 1 raised = 5. Raising 4 armies would put 9 on the map, above 2 x 4 home provinces "
        "not in rebellion (4 controlled, 0 still in rebellion after the buy-offs) = 8: raise at most 3."
    )
    assert info.value.fields == {"fleets_raised": "over_limit", "armies_raised": "over_cap"}
    assert rows(interphase) == []
    with pytest.raises(InterphaseError, match=r"At most 20 armies on the map: 18 kept \+ 3 raised = 21\."):
        interphase_run(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=12, home_provinces=12, armies_kept=18, armies_raised=3),
            by=SYSTEM_ACTOR,
        )
    with pytest.raises(InterphaseError, match=r"Armies kept cannot be negative \(got -2\)\."):
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=3, armies_kept=-2), by=SYSTEM_ACTOR)
    with pytest.raises(InterphaseError, match=r"5 provinces in famine or rebellion, but the country controls only 4\."):
        interphase_run(
            campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=4, famine=3, rebellion=2), by=SYSTEM_ACTOR
        )
    with pytest.raises(InterphaseError, match=r"The tax rate is 5 or 7 Crowns per province"):
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=4, tax_rate=6), by=SYSTEM_ACTOR)
    assert rows(interphase) == []


def test_province_names_may_be_given(interphase, england) -> None:
    give(interphase, england, 50)
    run = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(
            provinces=["Kent", "Wessex", "Mercia", "Calais"],
            famine=["Calais"],
            rebellion=["Mercia"],
            rebellions_bought_off=["Mercia"],
            home_provinces=["Kent", "Wessex", "Mercia"],
            armies_raised=1,
        ),
        by=SYSTEM_ACTOR,
    )
    assert [(p.kind, p.amount) for p in run.postings] == [("tax", 10), ("rebellion", 15), ("raising", 5)]
    assert run.result.raising_cap == 6  # Mercia's rebellion is bought off: 3 quiet home provinces
    assert run.balance == 40


def test_only_in_the_interphase_step(campaign, england) -> None:
    at_step(campaign, Step.MARRIAGES, year=1305)
    with pytest.raises(StepOrderError, match=r"The Interphase and movement .* step is not open yet: 1305 is at Marriages"):
        interphase_run(campaign=campaign, dynasty=england, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR)


def test_the_first_turn_has_nothing_to_maintain(campaign, england) -> None:
    at_step(campaign, Step.INTERPHASE)  # 1300
    with pytest.raises(InterphaseError, match="Armies kept: none in the first turn"):
        interphase_run(campaign=campaign, dynasty=england, entry=InterphaseEntry(provinces=5, armies_kept=1), by=SYSTEM_ACTOR)
    run = interphase_run(
        campaign=campaign, dynasty=england, entry=InterphaseEntry(provinces=5, home_provinces=5, armies_raised=5), by=SYSTEM_ACTOR
    )
    assert run.balance == 0


def test_only_blood_royale_and_only_its_own_dynasties(interphase, england) -> None:
    with pytest.raises(NotFound, match=r"There is no dynasty #999999 in Test Campaign\."):
        interphase_run(campaign=interphase, dynasty=999999, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR)
    Campaign.objects.filter(pk=interphase.pk).update(ruleset="eu-bloodline")
    with pytest.raises(RuleError) as info:
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR)
    assert info.value.code == "wrong_ruleset"


def test_a_preview_posts_nothing_and_reports_the_shortfall(interphase, england) -> None:
    result = interphase_preview(
        campaign=interphase.pk,
        dynasty=england.pk,
        entry=InterphaseEntry(provinces=2, armies_kept=8, home_provinces=2),
        by=SYSTEM_ACTOR,
    )
    assert result.shortfall == 6 and result.cash_after == -6
    assert [(line.kind, line.amount) for line in result.lines] == [("tax", 10), ("maintenance", 16)]
    assert rows(interphase) == []
    assert not ChronicleEntry.objects.filter(campaign=interphase, data__interphase=True).exists()


def test_the_chronicle_line_is_private_like_the_ledger(interphase, england, gm, alice, bob) -> None:
    interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=5), by=SYSTEM_ACTOR)
    entry = ChronicleEntry.objects.get(campaign=interphase, data__interphase=True)
    assert can_view(gm, entry) and can_view(alice, entry) and not can_view(bob, entry)
    assert entry not in visible(bob, interphase, ChronicleEntry.objects.all())


# --- D) Cashing in resources: its own phase at the end of the turn ------------------------------------


def test_sets_pay_none_of_the_interphase_costs(interphase, france) -> None:
    """The sequence of play: "B) INTERPHASE ... Maintaining Forces Raising Forces", "C) MOVEMENT",
    "D) CASHING IN RESOURCES"; "The Full Game Turn ends with Cashing In Resources". France with 0
    Crowns, 10 provinces, 10 armies kept and a basic set at its capital may raise 6 armies, not 10:
    the set is cashed in at the end of the turn."""
    kept = {"provinces": 10, "home_provinces": 10, "armies_kept": 10}
    with pytest.raises(InsufficientFunds, match="5 Crowns short"):
        interphase_run(campaign=interphase, dynasty=france, entry=InterphaseEntry(armies_raised=7, **kept), by=SYSTEM_ACTOR)
    with pytest.raises(TypeError):  # the Interphase takes no sets at all
        interphase_run(
            campaign=interphase, dynasty=france, entry=InterphaseEntry(armies_raised=10, basic_sets=1, **kept), by=SYSTEM_ACTOR
        )  # type: ignore[call-arg]
    assert (
        interphase_run(
            campaign=interphase, dynasty=france, entry=InterphaseEntry(armies_raised=6, **kept), by=SYSTEM_ACTOR
        ).balance
        == 0
    )
    run = cash_in_run(campaign=interphase, dynasty=france, basic_sets=1, by=SYSTEM_ACTOR)
    assert run.balance == 50 == balance(interphase, france)
    assert [(p.payer_id, p.payee_id, p.amount, p.kind) for p in run.postings] == [(None, france.pk, 50, "cash_in")]


def test_a_rebellion_in_the_capital_does_not_halve_the_sets(interphase, france) -> None:
    """Optional rule E: on a Rebellion in the capital "half of that country's current cash in hand
    should be returned to the Treasury" during the Movement's Events; the sets are cashed in after
    ("D) CASHING IN RESOURCES"): 0 Crowns and a basic set leave 50, not 25."""
    run = interphase_run(
        campaign=interphase, dynasty=france, entry=InterphaseEntry(provinces=0, capital_rebellion=True), by=SYSTEM_ACTOR
    )
    assert run.postings == () and run.balance == 0
    assert cash_in_run(campaign=interphase, dynasty=france, basic_sets=1, by=SYSTEM_ACTOR).balance == 50
    assert rows(interphase) == [(None, france.pk, 50, "cash_in")]


def test_the_first_turn_cashes_in_only_at_its_end(campaign, england) -> None:
    """In 1300 "only items 1, 2 and 6 apply": resources are first placed in that Interphase
    ("Placing of New Resources"), so no set can be at the capital when it starts. Sets "may be
    'cashed-in' at the end of any 5-year Turn, including the one in which they arrive at the
    capital": the 1300 cashing-in is open, after the Interphase."""
    at_step(campaign, Step.INTERPHASE)  # 1300
    with pytest.raises(StepOrderError) as info:
        cash_in_run(campaign=campaign, dynasty=england, basic_sets=1, by=SYSTEM_ACTOR)
    assert info.value.code == "interphase_first"
    assert "has not posted its Interphase of 1300" in info.value.message
    assert rows(campaign) == []
    interphase_run(
        campaign=campaign,
        dynasty=england,
        entry=InterphaseEntry(provinces=10, home_provinces=10, armies_raised=10),
        by=SYSTEM_ACTOR,
    )
    assert balance(campaign, england) == 0  # the Interphase's taxes paid the raising, no set among them
    assert cash_in_run(campaign=campaign, dynasty=england, basic_sets=1, by=SYSTEM_ACTOR).balance == 50


def test_a_cashing_in_is_once_a_year_and_closes_the_interphase(interphase, england, gm) -> None:
    interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=2), by=SYSTEM_ACTOR)
    first = cash_in_run(campaign=interphase, dynasty=england, basic_sets=1, semi_luxury_sets=1, luxury_sets=1, by=gm)
    assert [(p.amount, p.kind, p.year, p.step, p.entered_by) for p in first.postings] == [
        (50, "cash_in", 1305, Step.INTERPHASE, gm),
        (80, "cash_in", 1305, Step.INTERPHASE, gm),
        (120, "cash_in", 1305, Step.INTERPHASE, gm),
    ]
    assert first.balance == 10 + 250
    with pytest.raises(CashInAlreadyRun):
        cash_in_run(campaign=interphase, dynasty=england, basic_sets=1, by=SYSTEM_ACTOR)
    with pytest.raises(StepOrderError) as info:  # the Interphase comes before the cashing-in
        interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=2), by=SYSTEM_ACTOR)
    assert info.value.code == "interphase_done"
    for posting in first.postings:
        posting_reverse(campaign=interphase, posting=posting, reason="wrong sets", by=SYSTEM_ACTOR)
    assert cash_in_open_runs(interphase, england) == []
    assert cash_in_run(campaign=interphase, dynasty=england, basic_sets=2, by=SYSTEM_ACTOR).balance == 110


def test_a_cashing_in_is_private_to_the_house_and_its_own(interphase, england, france, alice, bob) -> None:
    interphase_run(campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR)
    with pytest.raises(RuleError) as info:  # the policy: a house cashes in its own sets
        cash_in_run(campaign=interphase, dynasty=england, basic_sets=1, by=bob)
    assert rows(interphase) == []
    cash_in_run(campaign=interphase, dynasty=england, basic_sets=1, by=alice)
    entry = ChronicleEntry.objects.get(campaign=interphase, data__cash_in=True)
    assert can_view(alice, entry) and not can_view(bob, entry)
    assert entry.text.startswith(f"The cashing-in of the house of {england.name} (England), 1305: +50 Cashing-in")
    assert info.value.status == 403


def test_a_cashing_in_refuses_more_sets_than_the_box_and_only_in_the_interphase_step(campaign, england) -> None:
    at_step(campaign, Step.MARRIAGES, year=1305)
    with pytest.raises(StepOrderError):
        cash_in_run(campaign=campaign, dynasty=england, basic_sets=1, by=SYSTEM_ACTOR)
    at_step(campaign, Step.INTERPHASE)
    interphase_run(campaign=campaign, dynasty=england, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR)
    with pytest.raises(InterphaseError) as info:
        cash_in_run(campaign=campaign, dynasty=england, luxury_sets=6, by=SYSTEM_ACTOR)
    assert info.value.fields == {"luxury_sets": "over_limit"}
    assert cash_in_preview(campaign=campaign.pk, dynasty=england.pk, basic_sets=3, by=SYSTEM_ACTOR).cash_after == 150
    assert rows(campaign) == []


# --- optional rule G: governed provinces ---------------------------------------------------------------


def _governor(campaign: Campaign, province: str, holder_house: Dynasty, charisma: int = 0) -> Title:
    holder = Character.objects.filter(campaign=campaign, controlled_by=holder_house, sex="M", status="alive").first()
    assert holder is not None
    holder.characteristics = {**holder.characteristics, "charisma": charisma}
    holder.save()
    return Title.objects.create(
        campaign=campaign,
        name=f"Duke of {province}",
        province=province,
        crown="England",
        holder=holder,
        granted_year=1300,
        granted_to=holder,
    )


def test_governed_provinces_post_to_the_crown_and_to_a_foreign_governor(interphase, england, france, alice, bob) -> None:
    """Rule G: a governed province "raises 2 Crowns extra"; "A Provincial Governor from a foreign
    Dynasty would keep those 2 Crowns for his or her own Dynasty"; he "may also refuse to pay all or
    some of the 5 or 7 Crowns Royal Taxes ... the governing player should take the money from the
    Treasury"; present, "the taxes raised from there should be modified by his or her Charisma"."""
    interphase.optional_rules = {**interphase.optional_rules, "governing_provinces": True}
    interphase.save()
    _governor(interphase, "Kent", england, charisma=1)
    _governor(interphase, "Wessex", france)
    run = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(
            provinces=["Kent", "Wessex", "Mercia"],
            governed=[Governed(province="Kent", present=True), Governed(province="wessex", withheld=5)],
        ),
        by=alice,
    )
    e, f = england.pk, france.pk
    assert rows(interphase) == [
        (None, e, 10, "tax"),  # 3 x 5 less the 5 Wessex's governor withholds
        (None, e, 2, "tax"),  # Kent's 2 extra: the King's own governor
        (None, e, 1, "tax"),  # Kent's governor present, Charisma +1
        (None, f, 2, "tax"),  # Wessex's 2 extra, kept by the French governor
        (None, f, 5, "tax"),  # the royal tax withheld
    ]
    assert run.balance == 13 and balance(interphase, france) == 7
    line = ChronicleEntry.objects.get(campaign=interphase, data__governed=True)
    assert can_view(bob, line) and not can_view(alice, line)  # the French governor's lines, private to his house
    assert line.data["dynasty"] == f and len(line.data["postings"]) == 2
    main = ChronicleEntry.objects.get(campaign=interphase, data__interphase=True)
    assert not can_view(bob, main) and "withholds" not in main.text


def test_governed_provinces_need_rule_g_and_a_living_governor(interphase, england) -> None:
    with pytest.raises(RuleError) as info:
        interphase_preview(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=2, governed=[Governed(province="Kent")]),
            by=SYSTEM_ACTOR,
        )
    assert info.value.code == "option_off"
    interphase.optional_rules = {**interphase.optional_rules, "governing_provinces": True}
    interphase.save()
    with pytest.raises(RuleError) as info:
        interphase_preview(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=2, governed=[Governed(province="Kent")]),
            by=SYSTEM_ACTOR,
        )
    assert info.value.fields == {"governed": "no_governor"}
    assert rows(interphase) == []


def test_the_year_track_limits_raising(interphase, england) -> None:
    """Section 13: "Players may not raise troops from the Army counters on the Year Track"."""
    give(interphase, england, 100)
    with pytest.raises(InterphaseError) as info:
        interphase_run(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=10, home_provinces=10, armies_kept=8, armies_on_track=8, armies_raised=5),
            by=SYSTEM_ACTOR,
        )
    assert info.value.fields == {"armies_raised": "over_pool"}
    assert rows(interphase) == []
    run = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(provinces=10, home_provinces=10, armies_kept=8, armies_on_track=8, armies_raised=4),
        by=SYSTEM_ACTOR,
    )
    assert run.balance == 100 + 50 - 16 - 20


def test_the_raising_lines_say_where_the_forces_are_placed(interphase, england) -> None:
    """Section 13: "New armies are placed in the Capital and Fleets in any coastal Home Province"."""
    give(interphase, england, 100)
    home = ["Middlesex", "Kent", "Cornwall"]
    with pytest.raises(InterphaseError) as info:
        interphase_run(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=home, home_provinces=home, fleets_raised=1, fleet_ports=["Calais"]),
            by=SYSTEM_ACTOR,
        )
    assert info.value.fields == {"fleet_ports": "not_home"}
    run = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(
            provinces=home, home_provinces=home, armies_raised=1, fleets_raised=1, capital="Middlesex", fleet_ports=["Cornwall"]
        ),
        by=SYSTEM_ACTOR,
    )
    assert [p.reason for p in run.postings if p.kind == "raising"] == [
        "Raising 1 army at 5 Crowns, placed in Middlesex (the capital)",
        "Raising 1 fleet at 5 Crowns, placed in Cornwall",
    ]


def test_the_movements_payments_are_posted_with_the_interphase(interphase, england, france, alice) -> None:
    """ "If they capture a Royal character, Neutrals ransom him for 100 Crowns"; rule D's Crowns "to
    the Treasury before the die roll"; an event card's bid "to the Treasury"."""
    give(interphase, england, 200)
    royal = Character.objects.filter(campaign=interphase, controlled_by=england, status="alive").first()
    foreign = Character.objects.filter(campaign=interphase, controlled_by=france, status="alive").first()
    with pytest.raises(RuleError) as info:
        interphase_run(
            campaign=interphase,
            dynasty=england,
            entry=InterphaseEntry(provinces=0, neutral_ransoms=[foreign.pk]),
            by=SYSTEM_ACTOR,
        )
    assert info.value.fields == {"neutral_ransoms": "not_of_the_house"}
    # rule D's Crowns come with rule D (Movement of Trade Items): refused, nothing posted, without it
    with pytest.raises(RuleError, match="Optional Rule D: Movement of Trade Items") as info:
        interphase_run(
            campaign=interphase, dynasty=england, entry=InterphaseEntry(provinces=0, trade_interception_crowns=20), by=alice
        )
    assert info.value.fields == {"trade_interception_crowns": "option_off"}
    interphase.optional_rules = {**interphase.optional_rules, "trade_item_movement": True}
    interphase.save(update_fields=["optional_rules"])
    run = interphase_run(
        campaign=interphase,
        dynasty=england,
        entry=InterphaseEntry(
            provinces=0, neutral_ransoms=[royal.pk], trade_interception_crowns=20, event_payments=[("3 Free Companies", 15)]
        ),
        by=alice,
    )
    assert [(p.payer_id, p.payee_id, p.amount, p.kind, p.character_id) for p in run.postings] == [
        (england.pk, None, 100, "ransom", royal.pk),
        (england.pk, None, 20, "other", None),
        (england.pk, None, 15, "other", None),
    ]
    assert run.balance == 65
