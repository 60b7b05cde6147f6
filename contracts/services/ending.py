"""Ending by the parties: mutual consent, or a party's escape clause."""

from __future__ import annotations

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, acting_house, require
from campaign.steps import Chronicle, lock_campaign
from contracts.models import ClauseKind, Contract, ContractKind, ContractState, EndKind
from contracts.services.common import BINDING, _contract, _dynasty, _end, _House, _house, _party_ids
from dynasties.models import Dynasty
from rules.errors import RuleError

# ending by the parties ----------------------------------------------------------------------------


@transaction.atomic
def contract_end_by_consent(*, campaign: Campaign | int, contract: Contract | int, reason: str = "", by: Actor) -> Contract:
    """The parties cancel a contract by mutual consent (20.3). A marriage contract in force cannot be
    broken: it lasts while both spouses live (A6)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    require(by, campaign, "party", parties=_party_ids(contract))
    if contract.state == ContractState.ENDED:
        raise RuleError(f"'{contract.title}' already ended in {contract.ended_year} ({contract.end_reason}).", code="ended")
    if contract.kind == ContractKind.MARRIAGE and contract.state == ContractState.IN_FORCE:
        raise RuleError(
            f"'{contract.title}' cannot be broken: a marriage contract lasts while both spouses live (A6).",
            code="unbreakable",
        )
    chronicle = Chronicle(campaign)
    why = "cancelled by mutual consent of the parties" + (f": {reason.strip()}" if reason.strip() else "")
    _end(contract, campaign.current_year, EndKind.CONSENT, why, chronicle, _party_ids(contract))
    chronicle.flush()
    return contract


@transaction.atomic
def contract_escape(
    *,
    campaign: Campaign | int,
    contract: Contract | int,
    reason: str,
    by_dynasty: Dynasty | int | None = None,
    by: Actor,
) -> Contract:
    """A party invokes the contract's escape clause, saying how its condition is met (BloodLine
    allows escape clauses). ``by_dynasty`` names the party; none: the acting player's own house
    (the GM says which)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    require(by, campaign, "party", parties=_party_ids(contract))  # which party invokes it: below
    if contract.state not in BINDING:
        raise RuleError(
            f"'{contract.title}' is {contract.get_state_display().lower()}: there is nothing to escape.", code="not_in_force"
        )
    escape = contract.clauses.filter(kind=ClauseKind.ESCAPE).first()
    if escape is None:
        raise RuleError(f"'{contract.title}' has no escape clause: it ends only as its kind of contract ends.", code="no_escape")
    if by_dynasty is None:
        by_dynasty = acting_house(campaign, by)
    if by_dynasty is None:
        raise RuleError(
            "Say which party invokes the escape clause.", code="invalid", fields={"by_dynasty": "Name the party (a dynasty id)."}
        )
    house = _dynasty(campaign, by_dynasty, "party invoking the escape clause")
    require(by, campaign, "house", dynasty=house.pk)
    parties = _party_ids(contract)
    if house.pk not in parties:
        raise RuleError(f"{_House(house)} is not a party to '{contract.title}'.", code="not_a_party")
    if not reason.strip():
        raise RuleError(
            f"Say how the escape condition is met ({escape.params['condition']}).", code="invalid", fields={"reason": "required"}
        )
    chronicle = Chronicle(campaign)
    _end(
        contract,
        max(campaign.current_year, contract.in_force_year or campaign.current_year),
        EndKind.ESCAPE,
        f"{_house(house)} invokes the escape clause ({escape.params['condition']}): {reason.strip()}",
        chronicle,
        parties,
    )
    chronicle.flush()
    return contract
