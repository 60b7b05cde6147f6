"""Breaches and BloodLine's disputes: a breach recorded, ruled term by term by a majority of the other players,
the terms enforced."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, acting_house, require
from campaign.steps import Chronicle, lock_campaign
from contracts.models import (
    Breach,
    Clause,
    ClauseKind,
    Contract,
    ContractKind,
    ContractState,
    Dispute,
    DisputeTerm,
    DisputeVote,
    PaymentStatus,
)
from contracts.services.common import _contract, _data, _dynasty, _House, _house, _party_ids, _pk
from contracts.services.in_force import _pay
from dynasties import treasury
from dynasties.models import Dynasty, DynastyKind, PostingKind
from dynasties.services.play_registry import play_of
from rules import contracts as rules
from rules.errors import NotFound, RuleError

# breaches and disputes ------------------------------------------------------------------------


@transaction.atomic
def breach_record(
    *,
    campaign: Campaign | int,
    contract: Contract | int,
    by_dynasty: Dynasty | int,
    text: str,
    clause: Clause | int | None = None,
    raised_by: Dynasty | int | None = None,
    by: Actor,
) -> Breach:
    """A party records that another party broke the contract (``by_dynasty`` is the one in breach,
    ``raised_by`` the injured party: by default the acting player's own house, else (the GM) the
    other party of a two-party contract)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    require(by, campaign, "party", parties=_party_ids(contract))
    if contract.state != ContractState.IN_FORCE:
        raise RuleError(
            f"'{contract.title}' is {contract.get_state_display().lower()}, not in force: nothing in it can be broken"
            + (" (a marriage contract binds only from the wedding, A6)" if contract.kind == ContractKind.MARRIAGE else "")
            + ".",
            code="not_in_force",
        )
    parties = _party_ids(contract)
    breaker = _dynasty(campaign, by_dynasty, "party in breach")
    if breaker.pk not in parties:
        raise RuleError(f"{_House(breaker)} is not a party to '{contract.title}' and cannot break it.", code="not_a_party")
    if raised_by is None:
        raised_by = acting_house(campaign, by)
    if raised_by is not None and _pk(raised_by, "dynasty") == breaker.pk:
        raise RuleError(
            "A party does not accuse itself: name the other party.",
            code="invalid",
            fields={"by_dynasty": "A party does not accuse itself: name the other party."},
        )
    if raised_by is None:
        others = [pk for pk in parties if pk != breaker.pk]
        if len(others) != 1:
            raise RuleError(
                "Say which party raises the breach: the contract has more than two parties.",
                code="invalid",
                fields={"raised_by": "Name the injured party (a dynasty id)."},
            )
        injured = Dynasty.objects.get(pk=others[0])
    else:
        injured = _dynasty(campaign, raised_by, "injured party")
        if injured.pk not in parties or injured.pk == breaker.pk:
            raise RuleError(f"The breach is raised by another party to '{contract.title}'.", code="not_a_party")
    require(by, campaign, "house", dynasty=injured.pk, what="a house raises a breach for itself")
    term: Clause | None = None
    if clause is not None:
        term = contract.clauses.filter(pk=_pk(clause, "clause")).first()
        if term is None:
            raise NotFound(f"Clause #{_pk(clause, 'clause')} is not a term of '{contract.title}'.")
    if not text.strip():
        raise RuleError("Say what was broken.", code="invalid", fields={"text": "required"})
    breach = Breach.objects.create(
        campaign=campaign,
        contract=contract,
        clause=term,
        by_dynasty=breaker,
        raised_by=injured,
        year=campaign.current_year,
        text=text.strip(),
    )
    chronicle = Chronicle(campaign)
    chronicle.add(
        "contract_breach",
        f"{_House(injured)} accuses {_house(breaker)} of breaking '{contract.title}'"
        + (f" (clause {term.position}, {term.get_kind_display().lower()})" if term else "")
        + f": {text.strip()}.",
        **_data(contract, parties, breach=breach.pk, by_dynasty=breaker.pk, raised_by=injured.pk),
    )
    chronicle.flush()
    return breach


def _breach(campaign: Campaign, breach: Breach | int) -> Breach:
    pk = _pk(breach, "breach")
    try:
        return Breach.objects.select_related("contract", "by_dynasty", "raised_by", "clause").get(pk=pk, campaign=campaign)
    except Breach.DoesNotExist:
        raise NotFound(f"There is no breach #{pk} in {campaign.name}.") from None


def _unsettled(breach: Breach) -> None:
    if breach.resolved_year is not None:
        raise RuleError(f"This breach was settled in {breach.resolved_year}: {breach.resolution}.", code="settled")


@transaction.atomic
def dispute_majority(
    *,
    campaign: Campaign | int,
    breach: Breach | int,
    votes: Mapping[Any, Mapping[Any, bool]],
    by: Actor,
) -> Dispute:
    """BloodLine: the other players (not the disputing parties) read the contract and vote on each
    disputed term (``votes = {dynasty: {clause: uphold?}}``); the terms a majority of them upholds
    are enforced (damages are posted), the rest ignored."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    if not play_of(campaign).disputes.by_majority():
        raise RuleError(
            "A ruling by a majority of the other players is BloodLine's way of settling disputes (B, Marriage/Betrothal); "
            "in this campaign put a broken binding agreement to a parley.",
            code="wrong_ruleset",
        )
    breach = _breach(campaign, breach)
    _unsettled(breach)
    contract = breach.contract
    clauses = {c.pk: c for c in contract.clauses.all()}
    disputing = {breach.by_dynasty_id, breach.raised_by_id}
    players = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER)}
    voters = sorted(pk for pk in players if pk not in disputing)
    cleaned: dict[int, dict[int, bool]] = {}
    for dynasty, ballot in votes.items():
        dpk = _pk(dynasty, "dynasty")
        if dpk in disputing:
            name = (breach.by_dynasty if dpk == breach.by_dynasty_id else breach.raised_by).name
            raise RuleError(
                f"The house of {name} is a party to the dispute: disputes are ruled by a majority of the other players "
                "(BloodLine, Marriage/Betrothal).",
                code="not_a_voter",
            )
        cleaned[dpk] = {}
        for clause, vote in ballot.items():
            cpk = _pk(clause, "clause")
            if cpk not in clauses:
                raise RuleError(f"Clause #{cpk} is not a term of '{contract.title}'.", code="invalid")
            cleaned[dpk][cpk] = vote
    terms = sorted({c for t in cleaned.values() for c in t} | ({breach.clause_id} if breach.clause_id else set()))
    rulings = rules.majority_ruling(cleaned, voters=voters, disputing=disputing, terms=terms)
    chronicle = Chronicle(campaign)
    parties = _party_ids(contract)
    dispute = Dispute.objects.create(campaign=campaign, breach=breach, year=campaign.current_year, voters=voters)
    DisputeVote.objects.bulk_create(
        [
            DisputeVote(dispute=dispute, dynasty_id=d, clause_id=c, upholds=v)
            for d, t in sorted(cleaned.items())
            for c, v in sorted(t.items())
        ]
    )
    upheld: list[str] = []
    ignored: list[str] = []
    term_rows: list[DisputeTerm] = []
    for ruling in rulings:
        clause = clauses[ruling.clause]
        label = f"clause {clause.position} ({clause.get_kind_display().lower()})"
        enforcement = ""
        if ruling.upheld:
            upheld.append(label)
            enforcement = _enforce(campaign, breach, clause, chronicle, parties)
        else:
            ignored.append(label)
        term_rows.append(
            DisputeTerm(
                dispute=dispute,
                clause=clause,
                upheld_by=ruling.upheld_by,
                rejected_by=ruling.rejected_by,
                upheld=ruling.upheld,
                enforcement=enforcement[:200],
            )
        )
    DisputeTerm.objects.bulk_create(term_rows)
    outcome = (
        f"of {len(voters)} other players, a majority upholds "
        + (", ".join(upheld) if upheld else "no term")
        + ("; ignored: " + ", ".join(ignored) if ignored else "")
    )
    dispute.outcome = outcome
    dispute.save(update_fields=["outcome"])
    breach.resolution = f"BloodLine ruling: {outcome}"[:300]
    breach.resolved_year = campaign.current_year
    breach.save(update_fields=["resolution", "resolved_year"])
    chronicle.add(
        "dispute_ruling",
        f"The dispute over '{contract.title}' between {_house(breach.raised_by)} and {_house(breach.by_dynasty)} is ruled: "
        f"{outcome}.",
        **_data(contract, parties, breach=breach.pk, dispute=dispute.pk),
    )
    chronicle.flush()
    return dispute


def _enforce(campaign: Campaign, breach: Breach, clause: Clause, chronicle: Chronicle, parties: Sequence[int]) -> str:
    """What the companion can do to enforce an upheld term: post the damages; point at unpaid
    payments still owed. Other terms are honoured at the table."""
    if clause.kind == ClauseKind.DAMAGES:
        payment = _pay(
            campaign,
            breach.contract,
            clause=clause,
            payer=breach.by_dynasty,
            payee=breach.raised_by,
            amount=clause.params["amount"],
            kind=PostingKind.DAMAGES,
            reason="damages for breach",
            chronicle=chronicle,
            parties=parties,
            breach=breach,
        )
        return f"damages of {payment.amount} {treasury.currency(campaign)} " + (
            "posted" if payment.status == PaymentStatus.PAID else "owed (unpaid)"
        )
    owed = clause.payments.filter(status=PaymentStatus.UNPAID).count()
    if owed:
        return f"{owed} unpaid payment{'s' if owed != 1 else ''} under it remain owed"
    return "to be honoured at the table"
