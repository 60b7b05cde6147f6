"""Contracts (RULES.md A6, B Marriage/Betrothal, D; issue 5): clauses checked per kind, marriage
contracts in force from the wedding and ended by a spouse's death, betrothals void without penalty,
binding agreements freed by a leader's heirless death or mutual consent, fixed terms, recurring
payments posted each turn (or kept unpaid), BloodLine's majority ruling, the medieval parley, its
vote order and tie rules, excommunication and readmission.

The hooks contracts run on the dynasties' events (``contracts_on_wedding``, ``contracts_on_deaths``,
``contracts_turn_advance``; contracts/subscribers.py) are also called here by hand after the
dynastic service that published the event; calling them twice changes nothing."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.urls import reverse

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle, lock_campaign
from contracts.models import (
    Breach,
    Clause,
    ClauseKind,
    Contract,
    ContractPayment,
    ContractState,
    Dispute,
    EndKind,
    Excommunication,
    Parley,
    ParleyVote,
    PaymentStatus,
)
from contracts.services import (
    breach_record,
    contract_draft,
    contract_end_by_consent,
    contract_escape,
    contract_sign,
    contracts_on_deaths,
    contracts_on_marriage_end,
    contracts_on_wedding,
    contracts_turn_advance,
    dispute_majority,
    parley_run,
    payment_settle,
    readmission_parley,
    unpaid_payments,
)
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, Posting, PostingKind, Renunciation, Status
from dynasties.services import marriage_cancel, marriage_wed, turn_advance
from dynasties.services.deaths import character_die
from rules import contracts as rules
from rules.errors import NotFound, RuleError
from tests.factories import at_step, person

# The test campaign: England (Edward, King; John, his son, 1295), France (Jean, King; Louis, 1295),
# Germany (Maximillian, King; Mary, his daughter, 1295), Italy, Spain. Alice plays England, Bob France.


def house(campaign, crown):
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def who(campaign, given, dynasty):
    return Character.objects.get(campaign=campaign, given_name=given, dynastic_name=dynasty)


def fund(campaign, dynasty, amount):
    treasury.post(campaign, payer=None, payee=dynasty, amount=amount, kind=PostingKind.OTHER, reason="test funds")


def die(campaign, *people):
    """A death, as the survival and event services record it, and the contracts hook."""
    with transaction.atomic():
        campaign = lock_campaign(campaign)
        chronicle = Chronicle(campaign)
        ids = [p.pk for p in people]
        character_die(campaign=campaign, character_ids=ids, cause="a test", chronicle=chronicle)
        contracts_on_deaths(campaign, ids, chronicle)
        chronicle.flush()


def advance(campaign):
    """The turn advance, then the contracts hook (as turn_advance calls it)."""
    at_step(campaign, Step.INTERPHASE)
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    with transaction.atomic():
        campaign = lock_campaign(campaign)
        chronicle = Chronicle(campaign)
        contracts_turn_advance(campaign, chronicle)
        chronicle.flush()
    return campaign


def wed(campaign, match):
    """The wedding service, then the contracts hook (as the wedding service calls it)."""
    at_step(campaign, Step.MARRIAGES, year=1310)
    marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    with transaction.atomic():
        campaign = lock_campaign(campaign)
        chronicle = Chronicle(campaign)
        contracts_on_wedding(campaign, match.pk, chronicle)
        chronicle.flush()


def betroth(campaign):
    """John Plantagenet (England) and Mary Hapsburg (Germany), both 5 in 1300: a betrothal."""
    john, mary = who(campaign, "John", "Plantagenet"), who(campaign, "Mary", "Hapsburg")
    return Marriage.objects.create(campaign=campaign, husband=john, wife=mary, arranged_year=1300)


def marriage_contract(campaign, match, clauses=(), **kw):
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    return contract_draft(
        campaign=campaign,
        kind="marriage",
        title="The Plantagenet-Hapsburg match",
        parties=[england.pk, germany.pk],
        marriage=match,
        clauses=list(clauses),
        **{"by": SYSTEM_ACTOR, **kw},
    )


def agreement(campaign, a="England", b="France", clauses=(), kind="agreement", **kw):
    return contract_draft(
        campaign=campaign,
        kind=kind,
        title=f"Pact of {a} and {b}",
        parties=[house(campaign, a), house(campaign, b).pk],
        clauses=list(clauses),
        **{"by": SYSTEM_ACTOR, **kw},
    )


def pay(payer, payee, amount):
    return {"kind": "payment", "params": {"payer": payer.pk, "payee": payee.pk, "amount": amount}}


def entries(campaign, kind):
    return list(ChronicleEntry.objects.filter(campaign=campaign, kind=kind).values_list("text", flat=True))


# clauses -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("payment", {"payer": 1, "payee": 2}, "needs amount"),
        ("payment", {"payer": 1, "payee": 9, "amount": 10}, "payee (dynasty #9) is not a party"),
        ("payment", {"payer": 1, "payee": 1, "amount": 10}, "two different houses"),
        ("payment", {"payer": 1, "payee": 2, "amount": 0}, "at least 1"),
        ("payment", {"payer": 1, "payee": 2, "amount": 5, "when": 1300}, "unknown term(s) when"),
        ("recurring_payment", {"payer": 1, "payee": 2, "amount": 5}, "needs from_year"),
        ("recurring_payment", {"payer": 1, "payee": 2, "amount": 5, "from_year": 1300, "turns": 0}, "number of turns"),
        ("trade_item", {"from": 1, "to": 2, "item": "spice"}, "metals, cloth, food, semi-luxury, luxury"),
        ("military_support", {"exclusions": "Spain"}, "list of written exceptions"),
        ("cession", {"province": "Guyenne", "from": 2, "to": 2}, "one house to another"),
        ("renunciation", {"character": "Isabelle", "crown": "France"}, "character id"),
        ("dowry", {"payer": 1, "payee": 2, "amount": 100, "province": "Savoy"}, "either an amount of money or a province"),
        ("escape", {"condition": "  "}, "must be written out"),
        ("husband_joins_wife", {"dynasty": 1}, "it takes no terms"),
        ("bribe", {}, "Unknown kind of clause"),
    ],
)
def test_clause_terms_are_checked_per_kind(kind, params, message):
    with pytest.raises(RuleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rules.validate_clause(kind, params, parties={1, 2})


def test_clauses_are_cleaned_and_open_ended_by_default():
    assert rules.validate_clause(
        "recurring_payment", {"payer": 1, "payee": 2, "amount": 10, "from_year": 1305}, parties={1, 2}
    ) == {"payer": 1, "payee": 2, "amount": 10, "from_year": 1305, "turns": None}
    assert (
        rules.validate_clause("trade_item", {"from": 2, "to": 1, "item": "cloth", "turns": "open"}, parties={1, 2})["turns"]
        is None
    )
    assert rules.validate_clause("military_support", {"exclusions": [" not against Spain "]}, parties={1, 2}) == {
        "exclusions": ["not against Spain"]
    }
    assert rules.validate_clause("dowry", {"payer": 2, "payee": 1, "province": "Savoy"}, parties={1, 2}) == {
        "payer": 2,
        "payee": 1,
        "province": "Savoy",
    }


def test_marriage_only_and_once_only_clauses():
    with pytest.raises(RuleError, match="dowry clause belongs in a marriage contract"):
        rules.validate_clauses(["payment", "dowry"], marriage_contract=False)
    with pytest.raises(RuleError, match="one damages for breach clause at most"):
        rules.validate_clauses(["damages", "damages"], marriage_contract=True)
    rules.validate_clauses(["payment", "payment", "dowry"], marriage_contract=True)


@pytest.mark.django_db
def test_draft_needs_two_houses_of_the_campaign(campaign):
    england = house(campaign, "England")
    with pytest.raises(RuleError, match="binds two houses or more"):
        contract_draft(campaign=campaign, kind="agreement", title="Alone", parties=[england.pk, england.pk], by=SYSTEM_ACTOR)
    with pytest.raises(NotFound, match="no dynasty #999"):
        contract_draft(campaign=campaign, kind="agreement", title="Ghost", parties=[england.pk, 999], by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Unknown kind of contract 'alliance'"):
        contract_draft(
            campaign=campaign, kind="alliance", title="X", parties=[england.pk, house(campaign, "France").pk], by=SYSTEM_ACTOR
        )
    with pytest.raises(RuleError, match=r"Clause 1 \(one-off payment\): the payer \(dynasty #"):
        agreement(
            campaign,
            clauses=[{"kind": "payment", "params": {"payer": house(campaign, "Spain").pk, "payee": england.pk, "amount": 5}}],
        )
    assert not Contract.objects.exists()


@pytest.mark.django_db
def test_a_marriage_contract_seals_a_match_between_the_spouses_houses(campaign):
    match = betroth(campaign)
    with pytest.raises(RuleError, match="seals a marriage or a betrothal: name the match"):
        marriage_contract(campaign, None)
    with pytest.raises(RuleError, match=r"the house of Hapsburg \(Mary Hapsburg\) must be a party"):
        contract_draft(
            campaign=campaign,
            kind="marriage",
            title="Wrong",
            marriage=match,
            parties=[house(campaign, "England"), house(campaign, "France")],
            by=SYSTEM_ACTOR,
        )
    with pytest.raises(RuleError, match="lasts while the marriage lasts"):
        marriage_contract(campaign, match, term_years=10)
    with pytest.raises(RuleError, match="Only a marriage contract seals"):
        agreement(campaign, marriage=match)
    with pytest.raises(RuleError, match="children are raised in her dynasty"):
        marriage_contract(
            campaign,
            match,
            [
                {"kind": "husband_joins_wife"},
                {"kind": "children_raised_by", "params": {"dynasty": house(campaign, "England").pk}},
            ],
        )
    with pytest.raises(RuleError, match="no crown called 'Atlantis'"):
        marriage_contract(
            campaign, match, [{"kind": "renunciation", "params": {"character": match.wife_id, "crown": "Atlantis"}}]
        )
    contract = marriage_contract(campaign, match, [{"kind": "escape", "params": {"condition": "war with France"}}])
    assert contract.state == ContractState.DRAFT and contract.clauses.get().position == 1
    [drafted] = entries(campaign, "contract_draft")
    assert "drafted between the house of Plantagenet and the house of Hapsburg (1 clause)" in drafted


# marriage contracts: in force from the wedding --------------------------------------------------


@pytest.mark.django_db
def test_signed_before_the_wedding_it_waits_then_comes_into_force_at_the_wedding(campaign):
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    fund(campaign, germany, 200)
    match = betroth(campaign)
    mary = match.wife
    contract = marriage_contract(
        campaign,
        match,
        [
            {"kind": "dowry", "params": {"payer": germany.pk, "payee": england.pk, "amount": 100}},
            {"kind": "payment", "params": {"payer": germany.pk, "payee": england.pk, "amount": 50}, "text": "gift"},
            {"kind": "renunciation", "params": {"character": mary.pk, "crown": "Germany"}},
            {"kind": "children_raised_by", "params": {"dynasty": germany.pk}},
        ],
    )
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    contract.refresh_from_db()
    match.refresh_from_db()
    assert contract.state == ContractState.SIGNED and contract.signed_year == 1300 and contract.in_force_year is None
    assert match.children_raised_by == germany and match.dowry == "100 Crowns"  # terms of the match, read at the wedding
    assert not Posting.objects.filter(contract_link__contract=contract).exists()
    assert not Renunciation.objects.exists()
    assert "binds from the wedding" in entries(campaign, "contract_signed")[0]
    with pytest.raises(RuleError, match="already signed"):
        contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match=r"not in force: nothing in it can be broken \(a marriage contract binds only from"):
        breach_record(campaign=campaign, contract=contract, by_dynasty=germany, text="no dowry", by=SYSTEM_ACTOR)

    wed(campaign, match)
    contract.refresh_from_db()
    assert contract.state == ContractState.IN_FORCE and contract.in_force_year == 1310
    dowry = Posting.objects.get(contract_link__contract=contract, kind=PostingKind.DOWRY)
    assert (dowry.payer, dowry.payee, dowry.amount) == (germany, england, 100)
    assert Posting.objects.get(contract_link__contract=contract, kind=PostingKind.CONTRACT).amount == 50
    assert treasury.balance(campaign, germany) == 50
    renounced = Renunciation.objects.get(character=mary, crown="Germany")
    assert "Plantagenet-Hapsburg" in renounced.source
    assert entries(campaign, "contract_in_force") == [
        "The marriage contract 'The Plantagenet-Hapsburg match' comes into force at the wedding."
    ]
    # the hook twice changes nothing
    with transaction.atomic():
        contracts_on_wedding(lock_campaign(campaign), match, Chronicle(campaign))
    assert Posting.objects.filter(contract_link__contract=contract).count() == 2


@pytest.mark.django_db
def test_husband_joins_wife_is_written_on_the_match_before_the_wedding(campaign):
    match = betroth(campaign)
    contract = marriage_contract(campaign, match, [{"kind": "husband_joins_wife"}])
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    match.refresh_from_db()
    assert match.husband_joins_wife
    wed(campaign, match)
    john = Character.objects.get(pk=match.husband_id)
    assert john.controlled_by == house(campaign, "Germany")  # A6: his sheet passes to her player


@pytest.mark.django_db
def test_husband_joins_wife_comes_too_late_after_the_wedding(campaign):
    match = betroth(campaign)
    wed(campaign, match)
    with pytest.raises(RuleError, match=r"joins the wife's dynasty at the wedding \(A6\).*comes too late"):
        marriage_contract(campaign, match, [{"kind": "husband_joins_wife"}])


@pytest.mark.django_db
def test_signed_after_the_wedding_in_force_at_once_and_one_contract_per_match(campaign):
    match = betroth(campaign)
    wed(campaign, match)
    first = marriage_contract(campaign, match)
    second = marriage_contract(campaign, match)
    contract_sign(campaign=campaign, contract=first, by=SYSTEM_ACTOR)
    first.refresh_from_db()
    assert first.state == ContractState.IN_FORCE and first.in_force_year == 1310
    with pytest.raises(RuleError, match="already sealed by the contract"):
        contract_sign(campaign=campaign, contract=second, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_unpaid_at_the_wedding_is_recorded_not_skipped(campaign):
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    match = betroth(campaign)
    contract = marriage_contract(campaign, match, [pay(germany, england, 80)])
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    wed(campaign, match)
    [due] = unpaid_payments(campaign, england)
    assert (due.payer, due.payee, due.amount, due.status, due.posting) == (germany, england, 80, PaymentStatus.UNPAID, None)
    assert unpaid_payments(campaign, germany) == [due] and unpaid_payments(campaign) == [due]
    assert unpaid_payments(campaign, house(campaign, "Spain")) == []
    [line] = ChronicleEntry.objects.filter(kind="contract_unpaid")
    assert line.text.startswith("UNPAID: the house of Hapsburg owes the house of Plantagenet 80 Crowns")
    assert line.data["parties"] == sorted([england.pk, germany.pk]) and line.data["payment"] == due.pk
    with pytest.raises(treasury.InsufficientFunds, match="holds 0 Crowns and cannot pay 80"):
        payment_settle(campaign=campaign, payment=due, by=SYSTEM_ACTOR)
    fund(campaign, germany, 100)
    payment_settle(campaign=campaign, payment=due, by=SYSTEM_ACTOR)
    due.refresh_from_db()
    assert due.status == PaymentStatus.PAID and due.settled_year == 1310 and due.posting.amount == 80
    assert treasury.balance(campaign, england) == 80
    with pytest.raises(RuleError, match="already paid"):
        payment_settle(campaign=campaign, payment=due, by=SYSTEM_ACTOR)


# ends by death ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_marriage_contract_ends_when_a_spouse_dies_with_the_reason_in_the_chronicle(campaign):
    match = betroth(campaign)
    mary = match.wife
    contract = marriage_contract(
        campaign, match, [{"kind": "renunciation", "params": {"character": mary.pk, "crown": "Germany"}}]
    )
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    wed(campaign, match)
    die(campaign, match.husband)
    contract.refresh_from_db()
    assert contract.state == ContractState.ENDED and contract.ended_year == 1310
    assert contract.end_kind == EndKind.DEATH and contract.end_reason == "death of the husband, John Plantagenet"
    [line] = entries(campaign, "contract_end")
    assert line == "The marriage contract 'The Plantagenet-Hapsburg match' ends: death of the husband, John Plantagenet."
    assert Renunciation.objects.filter(character=mary, crown="Germany").exists()  # A6: it outlives the contract
    die(campaign, mary)  # nothing more to end
    assert len(entries(campaign, "contract_end")) == 1


@pytest.mark.django_db
def test_a_betrothal_contract_dies_without_penalty_if_a_betrothed_dies(campaign):
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    fund(campaign, germany, 500)
    match = betroth(campaign)
    contract = marriage_contract(campaign, match, [pay(germany, england, 50)])
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    die(campaign, match.wife)
    contract.refresh_from_db()
    assert contract.state == ContractState.ENDED and contract.end_kind == EndKind.BETROTHAL_VOID
    assert contract.end_reason == "betrothal void: Mary Hapsburg died before the wedding; no penalty"
    assert not Posting.objects.filter(contract_link__contract=contract).exists() and not ContractPayment.objects.exists()


@pytest.mark.django_db
def test_a_broken_off_betrothal_ends_its_contract(campaign):
    match = betroth(campaign)
    contract = marriage_contract(campaign, match)
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    marriage_cancel(campaign=campaign, marriage=match, reason="the houses fell out", by=SYSTEM_ACTOR)
    with transaction.atomic():
        chronicle = Chronicle(lock_campaign(campaign))
        contracts_on_marriage_end(campaign, match, chronicle)
        chronicle.flush()
    contract.refresh_from_db()
    assert contract.end_kind == EndKind.BETROTHAL_VOID and "the houses fell out" in contract.end_reason


@pytest.mark.django_db
def test_a_binding_agreement_is_freed_when_a_leader_dies_heirless(campaign):
    pact = agreement(campaign)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    spare = agreement(campaign, "Italy", "Spain")
    contract_sign(campaign=campaign, contract=spare, by=SYSTEM_ACTOR)
    edward, jean = who(campaign, "Edward", "Plantagenet"), who(campaign, "Jean", "Anjou")
    die(campaign, edward)  # his son John is his heir: the agreement holds
    pact.refresh_from_db()
    assert pact.state == ContractState.IN_FORCE
    die(campaign, who(campaign, "Louis", "Anjou"))  # not a leader: nothing happens
    die(campaign, jean)  # King of France, his only son dead before him: heirless
    pact.refresh_from_db()
    spare.refresh_from_db()
    assert pact.state == ContractState.ENDED and pact.end_kind == EndKind.HEIRLESS
    assert pact.end_reason == "Jean Anjou, leader of the house of Anjou, died heirless; every party is freed (20.3)"
    assert spare.state == ContractState.IN_FORCE
    assert "died heirless" in entries(campaign, "contract_end")[0]


@pytest.mark.django_db
def test_mutual_consent_ends_an_agreement_but_never_a_marriage_contract_in_force(campaign):
    pact = agreement(campaign)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    contract_end_by_consent(campaign=campaign, contract=pact, reason="peace", by=SYSTEM_ACTOR)
    pact.refresh_from_db()
    assert pact.end_kind == EndKind.CONSENT and pact.end_reason == "cancelled by mutual consent of the parties: peace"
    with pytest.raises(RuleError, match="already ended in 1300"):
        contract_end_by_consent(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    match = betroth(campaign)
    wed(campaign, match)
    contract = marriage_contract(campaign, match)
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match=r"cannot be broken: a marriage contract lasts while both spouses live \(A6\)"):
        contract_end_by_consent(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_an_escape_clause_ends_a_contract(campaign):
    pact = agreement(campaign, clauses=[{"kind": "escape", "params": {"condition": "France attacks Flanders"}}])
    with pytest.raises(RuleError, match="draft: there is nothing to escape"):
        contract_escape(campaign=campaign, contract=pact, by_dynasty=house(campaign, "England"), reason="x", by=SYSTEM_ACTOR)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match=r"Say how the escape condition is met \(France attacks Flanders\)"):
        contract_escape(campaign=campaign, contract=pact, by_dynasty=house(campaign, "England"), reason=" ", by=SYSTEM_ACTOR)
    contract_escape(
        campaign=campaign, contract=pact, by_dynasty=house(campaign, "England"), reason="Bruges besieged", by=SYSTEM_ACTOR
    )
    pact.refresh_from_db()
    assert pact.end_kind == EndKind.ESCAPE and "Bruges besieged" in pact.end_reason
    plain = agreement(campaign, "Italy", "Spain")
    contract_sign(campaign=campaign, contract=plain, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="has no escape clause"):
        contract_escape(campaign=campaign, contract=plain, by_dynasty=house(campaign, "Italy"), reason="x", by=SYSTEM_ACTOR)


# turns: terms, start years, recurring payments --------------------------------------------------


@pytest.mark.django_db
def test_a_fixed_term_expires_at_the_turn_advance(campaign):
    treaty = agreement(campaign, kind="treaty", term_years=10)
    contract_sign(campaign=campaign, contract=treaty, by=SYSTEM_ACTOR)
    campaign = advance(campaign)  # 1305
    treaty.refresh_from_db()
    assert treaty.state == ContractState.IN_FORCE
    campaign = advance(campaign)  # 1310
    treaty.refresh_from_db()
    assert treaty.state == ContractState.ENDED and treaty.ended_year == 1310 and treaty.end_kind == EndKind.TERM
    assert entries(campaign, "contract_end") == [
        "The treaty 'Pact of England and France' ends: its term of 10 years from 1300 has run."
    ]


@pytest.mark.django_db
def test_a_later_start_year_waits_for_its_turn(campaign):
    england, france = house(campaign, "England"), house(campaign, "France")
    fund(campaign, england, 100)
    pact = agreement(campaign, start_year=1305, clauses=[pay(england, france, 30)])
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    pact.refresh_from_db()
    assert pact.state == ContractState.SIGNED and "comes into force in 1305" in entries(campaign, "contract_signed")[0]
    advance(campaign)
    pact.refresh_from_db()
    assert pact.state == ContractState.IN_FORCE and pact.in_force_year == 1305
    assert treasury.balance(campaign, france) == 30


@pytest.mark.django_db
def test_recurring_payments_are_posted_each_turn_and_marked_unpaid_when_the_payer_is_broke(campaign):
    england, france = house(campaign, "England"), house(campaign, "France")
    fund(campaign, england, 45)
    pact = agreement(
        campaign,
        clauses=[{"kind": "recurring_payment", "params": pay(england, france, 20)["params"] | {"from_year": 1300, "turns": 3}}],
    )
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)  # 1300: the first instalment
    campaign = advance(campaign)  # 1305: the second
    assert treasury.balance(campaign, france) == 40
    campaign = advance(campaign)  # 1310: England holds 5, the third is unpaid
    campaign = advance(campaign)  # 1315: three turns done, nothing more
    rows = list(ContractPayment.objects.filter(contract=pact).order_by("year"))
    assert [(r.year, r.status) for r in rows] == [(1300, "paid"), (1305, "paid"), (1310, "unpaid")]
    assert treasury.balance(campaign, england) == 5 and treasury.balance(campaign, france) == 40
    assert Posting.objects.filter(contract_link__contract=pact, kind=PostingKind.CONTRACT).count() == 2
    unpaid = entries(campaign, "contract_unpaid")
    assert unpaid == [
        "UNPAID: the house of Plantagenet owes the house of Anjou 20 Crowns (recurring payment for 1310) under "
        "'Pact of England and France'; the debt stands until it is settled."
    ]
    # the hook run twice in a turn posts nothing twice
    with transaction.atomic():
        contracts_turn_advance(lock_campaign(campaign), Chronicle(campaign))
    assert ContractPayment.objects.filter(contract=pact).count() == 3


@pytest.mark.django_db
def test_an_open_ended_payment_from_a_later_year_and_the_overdraft(campaign):
    england, france = house(campaign, "England"), house(campaign, "France")
    campaign.allow_overdraft = True
    campaign.save()
    pact = agreement(
        campaign,
        clauses=[{"kind": "recurring_payment", "params": pay(england, france, 10)["params"] | {"from_year": 1305}}],
    )
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    assert not ContractPayment.objects.exists()
    for _ in range(3):
        campaign = advance(campaign)
    assert treasury.balance(campaign, england) == -30  # the GM allows overdrafts: posted as debts
    assert set(ContractPayment.objects.values_list("status", flat=True)) == {"paid"}


# breaches: BloodLine's majority of the other players -----------------------------------------------


def bloodline(campaign):
    campaign.ruleset = "eu-bloodline"
    campaign.save()
    return campaign


@pytest.mark.django_db
def test_breach_record_checks_the_parties(campaign):
    pact = agreement(campaign)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="The house of de Silva is not a party"):
        breach_record(campaign=campaign, contract=pact, by_dynasty=house(campaign, "Spain"), text="x", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Say what was broken"):
        breach_record(campaign=campaign, contract=pact, by_dynasty=house(campaign, "France"), text=" ", by=SYSTEM_ACTOR)
    other = agreement(campaign, "Italy", "Spain", clauses=[{"kind": "non_aggression"}])
    with pytest.raises(NotFound, match="is not a term of 'Pact of England and France'"):
        breach_record(
            campaign=campaign,
            contract=pact,
            by_dynasty=house(campaign, "France"),
            text="x",
            clause=other.clauses.get(),
            by=SYSTEM_ACTOR,
        )
    breach = breach_record(
        campaign=campaign, contract=pact, by_dynasty=house(campaign, "France"), text="raided Kent", by=SYSTEM_ACTOR
    )
    assert breach.raised_by == house(campaign, "England")
    assert entries(campaign, "contract_breach") == [
        "The house of Plantagenet accuses the house of Anjou of breaking 'Pact of England and France': raided Kent."
    ]


@pytest.mark.django_db
def test_bloodline_disputes_are_ruled_term_by_term_by_a_majority_of_the_other_players(campaign):
    bloodline(campaign)
    england, france = house(campaign, "England"), house(campaign, "France")
    germany, italy, spain = house(campaign, "Germany"), house(campaign, "Italy"), house(campaign, "Spain")
    fund(campaign, france, 100)
    pact = agreement(
        campaign,
        kind="treaty",
        clauses=[
            {"kind": "non_aggression"},
            {"kind": "payment", "params": {"payer": france.pk, "payee": england.pk, "amount": 10}},
            {"kind": "damages", "params": {"amount": 60}},
        ],
    )
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    peace, pay, damages = pact.clauses.order_by("position")
    breach = breach_record(
        campaign=campaign, contract=pact, by_dynasty=france, clause=peace, text="invaded Gascony", by=SYSTEM_ACTOR
    )
    with pytest.raises(RuleError, match="The house of Anjou is a party to the dispute: disputes are ruled by a majority"):
        dispute_majority(campaign=campaign, breach=breach, votes={france.pk: {peace.pk: False}}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="is not a term of"):
        dispute_majority(campaign=campaign, breach=breach, votes={germany.pk: {99999: True}}, by=SYSTEM_ACTOR)
    dispute = dispute_majority(
        campaign=campaign,
        breach=breach,
        votes={
            germany.pk: {peace.pk: True, damages.pk: True, pay.pk: True},
            str(italy.pk): {str(peace.pk): True, str(damages.pk): True, str(pay.pk): False},
            spain.pk: {peace.pk: False},  # silent on the damages and the payment
        },
        by=SYSTEM_ACTOR,
    )
    terms = {t.clause_id: (t.upheld_by, t.rejected_by, t.upheld) for t in dispute.terms.all()}
    assert terms == {peace.pk: (2, 1, True), damages.pk: (2, 0, True), pay.pk: (1, 1, False)}
    assert sorted(dispute.voters) == sorted([germany.pk, italy.pk, spain.pk])
    assert dispute.votes.count() == 7
    assert dispute.terms.get(clause=damages).enforcement == "damages of 60 ducats posted"
    posting = Posting.objects.get(kind=PostingKind.DAMAGES)
    assert (posting.payer, posting.payee, posting.amount) == (france, england, 60)
    breach.refresh_from_db()
    assert breach.resolution.startswith(
        "BloodLine ruling: of 3 other players, a majority upholds clause 1 (non-aggression), clause 3"
    )
    assert "ignored: clause 2 (one-off payment)" in breach.resolution
    assert "is ruled: of 3 other players" in entries(campaign, "dispute_ruling")[0]
    with pytest.raises(RuleError, match="This breach was settled in 1300"):
        dispute_majority(campaign=campaign, breach=breach, votes={}, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_the_majority_ruling_is_bloodlines(campaign):
    pact = agreement(campaign)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    breach = breach_record(campaign=campaign, contract=pact, by_dynasty=house(campaign, "France"), text="x", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="BloodLine's way of settling disputes"):
        dispute_majority(campaign=campaign, breach=breach, votes={}, by=SYSTEM_ACTOR)


def test_majority_ruling_needs_more_than_half_of_the_other_players():
    [even] = rules.majority_ruling({1: {7: True}, 2: {7: True}, 3: {7: False}}, voters=[1, 2, 3, 4], disputing=[5, 6], terms=[7])
    assert (even.upheld_by, even.rejected_by, even.upheld) == (2, 1, False)  # 2 of 4 is no majority
    with pytest.raises(RuleError, match="no other players to rule"):
        rules.majority_ruling({}, voters=[], disputing=[5, 6], terms=[7])
    with pytest.raises(RuleError, match="Dynasty #9 is not one of the other players"):
        rules.majority_ruling({9: {7: True}}, voters=[1], disputing=[5, 6], terms=[7])


# the medieval parley ---------------------------------------------------------------------------------


def ballot(campaign, crown, stature, choice, cards=0, christian=True):
    return {
        "dynasty": house(campaign, crown).pk,
        "stature": stature,
        "church_cards": cards,
        "christian": christian,
        "choice": choice,
    }


def test_parley_votes_are_cast_most_first_with_church_cards_and_only_christians():
    result = rules.parley_tally(
        [
            rules.VoteIn(1, stature=3, choice="for", seat=0),
            rules.VoteIn(2, stature=2, church_cards=1, choice="against", seat=1),  # 7 votes
            rules.VoteIn(3, stature=3, choice="against", seat=2),  # 3, after dynasty 1 (seat order)
            rules.VoteIn(4, stature=9, christian=False, choice="for", seat=3),
            rules.VoteIn(5, stature=4, excommunicated=True, choice="for", seat=4),
        ]
    )
    assert [(c.dynasty, c.votes, c.position) for c in result.order] == [
        (2, 7, 1),
        (1, 3, 2),
        (3, 3, 3),
        (4, 0, None),
        (5, 0, None),
    ]
    assert result.order[3].excluded == "the leader is not Christian (20.4)"
    assert result.order[4].excluded == "excommunicated: votes only on his own readmission (22.12)"
    assert (result.votes_for, result.votes_against, result.carried) == (3, 10, False)
    tie = rules.parley_tally([rules.VoteIn(1, 4, choice=True), rules.VoteIn(2, 4, choice=False), rules.VoteIn(3, 5)])
    assert tie.tie and tie.carried  # the caller's motion carries on a tie
    readmit = rules.parley_tally([rules.VoteIn(5, 4, excommunicated=True, choice="for")], readmission_of=5)
    assert readmit.order[0].position == 1 and readmit.votes_for == 4
    with pytest.raises(RuleError, match="listed twice"):
        rules.parley_tally([rules.VoteIn(1, 1), rules.VoteIn(1, 2)])
    with pytest.raises(RuleError, match="'for' the caller's motion, 'against' it or 'abstain'"):
        rules.parley_tally([rules.VoteIn(1, 1, choice="maybe")])


def broken_agreement(campaign):
    pact = agreement(campaign)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    return breach_record(
        campaign=campaign, contract=pact, by_dynasty=house(campaign, "France"), text="attacked Calais", by=SYSTEM_ACTOR
    )


@pytest.mark.django_db
def test_a_tie_on_a_broken_agreement_excommunicates_the_breaker(campaign):
    breach = broken_agreement(campaign)
    parley = parley_run(
        campaign=campaign,
        breach=breach,
        votes=[
            ballot(campaign, "England", 4, "for"),
            ballot(campaign, "France", 5, "against"),
            ballot(campaign, "Germany", 1, "for", cards=1),
            ballot(campaign, "Italy", 6, "against", christian=False),
            ballot(campaign, "Spain", 5, "abstain"),
        ],
        by=SYSTEM_ACTOR,
    )
    assert (parley.votes_for, parley.votes_against, parley.carried, parley.tie) == (10, 5, True, False)
    order = [(v.dynasty.crown, v.votes, v.position) for v in ParleyVote.objects.filter(parley=parley).order_by("id")]
    assert order == [("Germany", 6, 1), ("France", 5, 2), ("Spain", 5, 3), ("England", 4, 4), ("Italy", 0, None)]
    excommunication = Excommunication.objects.get(dynasty=house(campaign, "France"))
    assert excommunication.active and excommunication.leader == who(campaign, "Jean", "Anjou")
    assert excommunication.breach == breach and excommunication.parley == parley
    breach.refresh_from_db()
    assert breach.resolution == "parley: excommunicated (10 to 5)"
    [line] = entries(campaign, "excommunication")
    assert "excommunicates the house of Anjou" in line and "votes cast Hapsburg 6 for, Anjou 5 against" in line
    assert "not voting: Visconti (the leader is not Christian (20.4))" in line
    with pytest.raises(RuleError, match="already held"):
        parley_run(campaign=campaign, breach=breach, votes=[], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_a_tie_excommunicates_and_a_majority_against_spares_the_breaker(campaign):
    breach = broken_agreement(campaign)
    parley = parley_run(
        campaign=campaign,
        breach=breach,
        votes=[ballot(campaign, "England", 5, "for"), ballot(campaign, "France", 5, "against")],
        by=SYSTEM_ACTOR,
    )
    assert parley.tie and parley.carried and parley.outcome == "excommunicated (5 to 5, a tie)"
    assert Excommunication.objects.filter(dynasty=house(campaign, "France"), ended_year__isnull=True).exists()
    pact = agreement(campaign, "Italy", "Spain")
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    other = breach_record(campaign=campaign, contract=pact, by_dynasty=house(campaign, "Spain"), text="x", by=SYSTEM_ACTOR)
    spared = parley_run(
        campaign=campaign,
        breach=other,
        votes=[
            ballot(campaign, "Italy", 5, "for"),
            ballot(campaign, "Spain", 3, "against"),
            ballot(campaign, "Germany", 3, "against"),
        ],
        by=SYSTEM_ACTOR,
    )
    assert not spared.carried and spared.outcome == "not excommunicated (5 to 6)"
    assert not Excommunication.objects.filter(dynasty=house(campaign, "Spain")).exists()


@pytest.mark.django_db
def test_only_a_binding_agreement_broken_goes_to_a_parley_called_by_a_christian(campaign):
    treaty = agreement(campaign, kind="treaty")
    contract_sign(campaign=campaign, contract=treaty, by=SYSTEM_ACTOR)
    breach = breach_record(campaign=campaign, contract=treaty, by_dynasty=house(campaign, "France"), text="x", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="is a treaty, not a binding agreement: only breaking a binding agreement is put"):
        parley_run(campaign=campaign, breach=breach, votes=[], by=SYSTEM_ACTOR)
    breach = broken_agreement(campaign)
    with pytest.raises(RuleError, match=r"called only by a player whose leader is Christian \(20.4\)"):
        parley_run(
            campaign=campaign, breach=breach, votes=[ballot(campaign, "England", 5, "for", christian=False)], by=SYSTEM_ACTOR
        )
    with pytest.raises(RuleError, match="List the votes of the house of Plantagenet, who calls the parley"):
        parley_run(campaign=campaign, breach=breach, votes=[ballot(campaign, "France", 5, "against")], by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match=r"The injured party .* calls the parley"):
        parley_run(campaign=campaign, breach=breach, caller=house(campaign, "France"), votes=[], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_other_parleys_favour_the_caller_on_a_tie_and_claims_once_per_round(campaign):
    parley = parley_run(
        campaign=campaign,
        kind="conquest",
        caller=house(campaign, "Italy"),
        opponent=house(campaign, "Spain"),
        subject="Savoy",
        votes=[ballot(campaign, "Italy", 4, "for"), ballot(campaign, "Spain", 4, "against")],
        by=SYSTEM_ACTOR,
    )
    assert parley.carried and parley.outcome.startswith("the caller prevails (4 to 4, a tie: the caller prevails)")
    parley_run(
        campaign=campaign,
        kind="claim",
        caller=house(campaign, "Italy"),
        subject="a claim to Provence",
        votes=[ballot(campaign, "Italy", 4, "for")],
        by=SYSTEM_ACTOR,
    )
    with pytest.raises(RuleError, match=r"once per round \(20.42\)"):
        parley_run(
            campaign=campaign,
            kind="claim",
            caller=house(campaign, "Italy"),
            subject="a claim to Nice",
            votes=[ballot(campaign, "Italy", 4, "for")],
            by=SYSTEM_ACTOR,
        )
    with pytest.raises(RuleError, match="Say what the parley decides"):
        parley_run(campaign=campaign, kind="crusade", caller=house(campaign, "Italy"), votes=[], by=SYSTEM_ACTOR)
    assert Parley.objects.count() == 2


@pytest.mark.django_db
def test_excommunicated_players_neither_vote_nor_call_parleys_but_on_their_readmission(campaign):
    parley_run(
        campaign=campaign,
        breach=broken_agreement(campaign),
        votes=[ballot(campaign, "England", 5, "for"), ballot(campaign, "France", 1, "against")],
        by=SYSTEM_ACTOR,
    )
    france = house(campaign, "France")
    with pytest.raises(RuleError, match=r"is excommunicated: it may call a parley only on its own readmission \(22.13\)"):
        parley_run(
            campaign=campaign,
            kind="inheritance",
            caller=france,
            opponent=house(campaign, "Spain"),
            subject="Burgundy",
            votes=[ballot(campaign, "France", 5, "for")],
            by=SYSTEM_ACTOR,
        )
    vote = parley_run(
        campaign=campaign,
        kind="conquest",
        caller=house(campaign, "Spain"),
        opponent=house(campaign, "Italy"),
        subject="Navarre",
        votes=[ballot(campaign, "Spain", 2, "for"), ballot(campaign, "France", 9, "against")],
        by=SYSTEM_ACTOR,
    )
    assert vote.carried and vote.votes_against == 0
    assert ParleyVote.objects.get(parley=vote, dynasty=france).excluded.startswith("excommunicated")
    # readmission: he votes; a tie readmits; once per round
    refused = readmission_parley(
        campaign=campaign,
        dynasty=france,
        votes=[ballot(campaign, "France", 3, "for"), ballot(campaign, "England", 6, "against")],
        by=SYSTEM_ACTOR,
    )
    assert not refused.carried and refused.outcome == "not readmitted (3 to 6)"
    with pytest.raises(RuleError, match=r"once per round \(20.45\); call again next turn"):
        readmission_parley(campaign=campaign, dynasty=france, votes=[ballot(campaign, "France", 3, "for")], by=SYSTEM_ACTOR)
    campaign = advance(campaign)
    readmitted = readmission_parley(
        campaign=campaign,
        dynasty=france,
        votes=[ballot(campaign, "France", 3, "for", cards=1), ballot(campaign, "England", 8, "against")],
        by=SYSTEM_ACTOR,
    )
    assert readmitted.carried and readmitted.outcome == "readmitted (8 to 8, a tie)"
    excommunication = Excommunication.objects.get(dynasty=france)
    assert excommunication.ended_year == 1305 and excommunication.end_reason == "readmitted by parley (8 to 8, a tie)"
    assert readmitted.excommunication == excommunication
    with pytest.raises(RuleError, match="is not excommunicated: there is nothing to readmit"):
        readmission_parley(campaign=campaign, dynasty=france, votes=[], by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_excommunication_ends_when_the_leader_dies_heirless(campaign):
    parley_run(
        campaign=campaign,
        breach=broken_agreement(campaign),
        votes=[ballot(campaign, "England", 5, "for"), ballot(campaign, "France", 1, "against")],
        by=SYSTEM_ACTOR,
    )
    louis = who(campaign, "Louis", "Anjou")
    die(campaign, louis)
    assert Excommunication.objects.get().active
    die(campaign, who(campaign, "Jean", "Anjou"))
    excommunication = Excommunication.objects.get()
    assert excommunication.ended_year == 1300 and excommunication.end_reason == "Jean Anjou, the leader, died heirless (22.14)"
    assert entries(campaign, "readmission") == [
        "The excommunication of the house of Anjou ends: its leader Jean Anjou died heirless (22.14)."
    ]


@pytest.mark.django_db
def test_an_heir_keeps_the_excommunication_and_the_agreement(campaign):
    pact = agreement(campaign)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    parley_run(
        campaign=campaign,
        breach=breach_record(campaign=campaign, contract=pact, by_dynasty=house(campaign, "France"), text="x", by=SYSTEM_ACTOR),
        votes=[ballot(campaign, "England", 5, "for")],
        by=SYSTEM_ACTOR,
    )
    jean = who(campaign, "Jean", "Anjou")
    nephew_father = person(campaign, house(campaign, "France"), "Robert", "M", 1250)
    Character.objects.filter(pk=jean.pk).update(father=nephew_father)
    Character.objects.filter(pk=nephew_father.pk).update(status=Status.DEAD, death_year=1290)
    person(campaign, house(campaign, "France"), "Charles", "M", 1278, father=nephew_father)  # Jean's brother
    die(campaign, who(campaign, "Louis", "Anjou"), jean)
    assert Excommunication.objects.get().active
    pact.refresh_from_db()
    assert pact.state == ContractState.IN_FORCE


# admin ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_admin_lists_searches_and_signs(admin_client, campaign):
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    match = betroth(campaign)
    contract = marriage_contract(campaign, match, [pay(germany, england, 5)])
    breach = broken_agreement(campaign)
    parley_run(campaign=campaign, breach=breach, votes=[ballot(campaign, "England", 5, "for")], by=SYSTEM_ACTOR)
    for model in ("contract", "contractpayment", "breach", "dispute", "parley", "excommunication"):
        assert admin_client.get(reverse(f"admin:contracts_{model}_changelist")).status_code == 200
    response = admin_client.get(reverse("admin:contracts_contract_changelist"), {"q": "Hapsburg", "state__exact": "draft"})
    assert response.status_code == 200 and "Plantagenet-Hapsburg" in response.content.decode()
    page = admin_client.get(reverse("admin:contracts_contract_change", args=[contract.pk])).content.decode()
    assert "One-off payment" in page
    assert admin_client.get(reverse("admin:contracts_parley_change", args=[Parley.objects.get().pk])).status_code == 200
    assert admin_client.get(reverse("admin:contracts_contract_add")).status_code == 403
    admin_client.post(
        reverse("admin:contracts_contract_changelist"), {"action": "sign", "_selected_action": [contract.pk]}, follow=True
    )
    contract.refresh_from_db()
    assert contract.state == ContractState.SIGNED
    assert Clause.objects.filter(kind=ClauseKind.PAYMENT).count() == 1 and Breach.objects.count() == 1
    assert not Dispute.objects.exists()


@pytest.mark.django_db
def test_a_monarch_cannot_renounce_his_own_crown(campaign):
    """A7: 'Monarchs may not abdicate, nor be deposed': a renunciation of the crown one wears is refused
    at the draft and by the GM's entry; one drafted before she came to the throne lapses at the
    wedding, noted in the chronicle (before: a reigning Queen renounced her own crown at her wedding)."""
    from dynasties.models import Reign
    from dynasties.services.claims import claim_renounce
    from tests.factories import crown

    match = betroth(campaign)
    mary = match.wife
    contract = marriage_contract(
        campaign, match, [{"kind": "renunciation", "params": {"character": mary.pk, "crown": "Germany"}}]
    )
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    crown(campaign, mary, "Germany", campaign.current_year)  # she comes to the throne before the wedding
    with pytest.raises(RuleError, match="Mary Hapsburg reigns over Germany; a monarch cannot renounce his own crown"):
        marriage_contract(campaign, match, [{"kind": "renunciation", "params": {"character": mary.pk, "crown": "Germany"}}])
    with pytest.raises(RuleError, match="Mary Hapsburg reigns over Germany: a monarch cannot renounce") as err:
        claim_renounce(campaign=campaign, character=mary, crown="Germany", by=SYSTEM_ACTOR)
    assert err.value.code == "reigning"
    wed(campaign, match)
    assert not Renunciation.objects.exists()
    [note] = entries(campaign, "contract_note")
    assert "lapses: Mary Hapsburg reigns over it now" in note
    assert Reign.objects.get(campaign=campaign, crown="Germany", end_year__isnull=True).holder == mary


@pytest.mark.django_db
def test_a_match_sealed_by_a_signed_contract_takes_no_second_draft(campaign):
    """One contract seals a match: once one is signed, a second draft for it is refused, naming the
    contract that seals it; competing drafts before any is signed stay allowed (the first signed wins)."""
    match = betroth(campaign)
    first = marriage_contract(campaign, match)
    marriage_contract(campaign, match)  # a competing offer, still a draft
    contract_sign(campaign=campaign, contract=first, by=SYSTEM_ACTOR)
    before = Contract.objects.filter(campaign=campaign).count()
    with pytest.raises(RuleError, match=f"already sealed by the contract '{first.title}' \\(signed\\)") as why:
        marriage_contract(campaign, match)
    assert why.value.code == "already_sealed" and why.value.fields == {"marriage": "sealed"}
    assert Contract.objects.filter(campaign=campaign).count() == before
