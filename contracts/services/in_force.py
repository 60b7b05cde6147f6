"""In force: what coming into force applies (payments and dowries posted, a renunciation, the match's terms), a
payment posted or kept unpaid, and an unpaid payment settled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR, Actor, readers_text, require
from campaign.steps import Chronicle, lock_campaign
from contracts.models import Breach, Clause, ClauseKind, Contract, ContractPayment, ContractPosting, ContractState, PaymentStatus
from contracts.services.common import _data, _House, _house, _party_ids, _pk
from dynasties import treasury
from dynasties.models import Character, Dynasty, Posting, PostingKind, Reign, Renunciation, Status
from dynasties.services.claims import claim_renounce
from rules import contracts as rules
from rules.errors import NotFound, RuleError


def post_under(campaign: Campaign, contract: Contract, **posting: Any) -> Posting:
    """Post a payment under ``contract`` (``dynasties.treasury.post``'s arguments) and keep which
    contract it paid (``ContractPosting``: the ledger knows no contract)."""
    paid = treasury.post(campaign, **posting)
    assert paid is not None  # a contract's payments are more than 0
    ContractPosting.objects.create(campaign=campaign, posting=paid, contract=contract)
    return paid


def _pay(
    campaign: Campaign,
    contract: Contract,
    *,
    clause: Clause | None,
    payer: Dynasty,
    payee: Dynasty,
    amount: int,
    kind: str,
    reason: str,
    chronicle: Chronicle,
    parties: Sequence[int],
    breach: Breach | None = None,
) -> ContractPayment:
    """Post a payment the contract makes due, or record it as unpaid when the payer cannot cover it
    (unless the GM allows overdrafts): never skipped silently."""
    money = treasury.currency(campaign)
    held = treasury.balance(campaign, payer)
    common = dict(
        campaign=campaign,
        contract=contract,
        clause=clause,
        breach=breach,
        year=campaign.current_year,
        payer=payer,
        payee=payee,
        amount=amount,
    )
    if held < amount and not campaign.allow_overdraft:
        payment = ContractPayment.objects.create(
            status=PaymentStatus.UNPAID, note="unpaid: the payer could not cover it", **common
        )  # the payer's balance is his and the GM's: his exchequer shows it, this note does not
        chronicle.add(
            "contract_unpaid",
            f"UNPAID: {_house(payer)} owes {_house(payee)} {amount} {money} ({reason}) under '{contract.title}'; "
            "the debt stands until it is settled.",
            **_data(contract, parties, payment=payment.pk, payer=payer.pk, payee=payee.pk, amount=amount),
        )
        return payment
    posting = post_under(
        campaign, contract, payer=payer, payee=payee, amount=amount, kind=kind, reason=f"{contract.title}: {reason}"
    )
    payment = ContractPayment.objects.create(status=PaymentStatus.PAID, posting=posting, **common)
    chronicle.add(
        "contract_payment",
        f"{amount} {money} from {_house(payer)} to {_house(payee)} ({reason}) under '{contract.title}'.",
        **_data(contract, parties, payment=payment.pk, payer=payer.pk, payee=payee.pk, amount=amount),
    )
    return payment


def _write_match_terms(campaign: Campaign, contract: Contract, clauses: Sequence[Clause]) -> None:
    """Who raises the children, whether the husband joins the wife, and the dowry are terms of the
    match: written on it so the wedding and the births read them."""
    match = contract.marriage
    if match is None:
        return
    changed: list[str] = []
    for clause in clauses:
        if clause.kind == ClauseKind.HUSBAND_JOINS_WIFE and not match.husband_joins_wife:
            match.husband_joins_wife = True
            changed.append("husband_joins_wife")
        elif clause.kind == ClauseKind.CHILDREN_RAISED_BY and match.children_raised_by_id != clause.params["dynasty"]:
            match.children_raised_by_id = clause.params["dynasty"]
            changed.append("children_raised_by")
        elif clause.kind == ClauseKind.DOWRY and not match.dowry:
            p = clause.params
            dowry = f"{p['amount']} {treasury.currency(campaign)}" if "amount" in p else f"province: {p['province']}"
            match.dowry = dowry[:120]
            match.money_readers = readers_text(contract.parties.values_list("pk", flat=True))  # the contract's parties
            changed += ["dowry", "money_readers"]
    if changed:
        match.save(update_fields=changed)


def _come_into_force(campaign: Campaign, contract: Contract, chronicle: Chronicle, why: str) -> None:
    year = campaign.current_year
    parties = _party_ids(contract)
    houses = {d.pk: d for d in Dynasty.objects.filter(pk__in=parties)}
    contract.state = ContractState.IN_FORCE
    contract.in_force_year = year
    contract.save(update_fields=["state", "in_force_year"])
    chronicle.add(
        "contract_in_force",
        f"The {contract.get_kind_display().lower()} '{contract.title}' comes into force {why}.",
        **_data(contract, parties),
    )
    clauses = list(contract.clauses.all())
    _write_match_terms(campaign, contract, clauses)
    for clause in clauses:
        p = clause.params
        if clause.kind == ClauseKind.PAYMENT:
            _pay(
                campaign,
                contract,
                clause=clause,
                payer=houses[p["payer"]],
                payee=houses[p["payee"]],
                amount=p["amount"],
                kind=PostingKind.CONTRACT,
                reason="one-off payment",
                chronicle=chronicle,
                parties=parties,
            )
        elif clause.kind == ClauseKind.DOWRY and "amount" in p:
            _pay(
                campaign,
                contract,
                clause=clause,
                payer=houses[p["payer"]],
                payee=houses[p["payee"]],
                amount=p["amount"],
                kind=PostingKind.DOWRY,
                reason="dowry",
                chronicle=chronicle,
                parties=parties,
            )
        elif clause.kind == ClauseKind.RECURRING_PAYMENT and rules.instalment_due(p, year, 0):
            _pay(
                campaign,
                contract,
                clause=clause,
                payer=houses[p["payer"]],
                payee=houses[p["payee"]],
                amount=p["amount"],
                kind=PostingKind.CONTRACT,
                reason=f"recurring payment for {year}",
                chronicle=chronicle,
                parties=parties,
            )
        elif clause.kind == ClauseKind.CESSION or (clause.kind == ClauseKind.DOWRY and "province" in p):
            giver, taker = (p["from"], p["to"]) if clause.kind == ClauseKind.CESSION else (p["payer"], p["payee"])
            chronicle.add(
                "contract_cession",
                f"{houses[giver].name} cedes the province of {p['province']} to {_house(houses[taker])}"
                + (" as a dowry" if clause.kind == ClauseKind.DOWRY else "")
                + f" ('{contract.title}').",
                **_data(contract, parties, province=p["province"], giver=giver, taker=taker),
            )
        elif clause.kind == ClauseKind.RENUNCIATION:
            _renounce(campaign, contract, p, chronicle, parties)


def _renounce(campaign: Campaign, contract: Contract, p: Mapping[str, Any], chronicle: Chronicle, parties: Sequence[int]) -> None:
    """A renunciation in force; it outlives the contract (A6). One that cannot be made any more
    (the character died, or had renounced already) is noted, not fatal to a wedding."""
    who = Character.objects.filter(pk=p["character"], campaign=campaign).first()
    if who is None or who.status == Status.DEAD:
        chronicle.add(
            "contract_note",
            f"The renunciation of the crown of {p['crown']} in '{contract.title}' lapses: the character is dead.",
            **_data(contract, parties),
        )
        return
    if Renunciation.objects.filter(character=who, crown=p["crown"]).exists():
        return
    if Reign.objects.filter(campaign=campaign, crown=p["crown"], holder=who, end_year__isnull=True).exists():
        chronicle.add(
            "contract_note",
            f"The renunciation of the crown of {p['crown']} in '{contract.title}' lapses: {who.display_name} reigns "
            "over it now, and a monarch cannot renounce his own crown.",
            **_data(contract, parties),
        )
        return
    # the contract's term, signed by its parties: the rules' own consequence, not the GM's entry
    claim_renounce(campaign=campaign, character=who, crown=p["crown"], source=f"contract '{contract.title}'", by=SYSTEM_ACTOR)


@transaction.atomic
def payment_settle(*, campaign: Campaign | int, payment: ContractPayment | int, by: Actor) -> ContractPayment:
    """Make good an unpaid contract payment now (refused if the payer still cannot cover it)."""
    campaign = lock_campaign(campaign)
    pk = _pk(payment, "payment")
    try:
        due = ContractPayment.objects.select_related("contract", "payer", "payee").get(pk=pk, campaign=campaign)
    except ContractPayment.DoesNotExist:
        raise NotFound(f"There is no contract payment #{pk} in {campaign.name}.") from None
    require(by, campaign, "house", dynasty=due.payer_id, what="the payer settles what it owes")
    if due.status == PaymentStatus.PAID:
        raise RuleError(f"Payment #{pk} was already paid.", code="already_paid")
    kind = PostingKind.DAMAGES if due.breach_id else PostingKind.CONTRACT
    posting = post_under(
        campaign,
        due.contract,
        payer=due.payer,
        payee=due.payee,
        amount=due.amount,
        kind=kind,
        reason=f"{due.contract.title}: settles the unpaid payment of {due.year}",
        check_funds=True,
        by=by,
    )
    due.status = PaymentStatus.PAID
    due.posting = posting
    due.settled_year = campaign.current_year
    due.save(update_fields=["status", "posting", "settled_year"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "contract_payment",
        f"{_House(due.payer)} settles the {due.amount} {treasury.currency(campaign)} owed to "
        f"{_house(due.payee)} since {due.year} under '{due.contract.title}'.",
        **_data(
            due.contract, _party_ids(due.contract), payment=due.pk, payer=due.payer_id, payee=due.payee_id, amount=due.amount
        ),
    )
    chronicle.flush()
    return due
