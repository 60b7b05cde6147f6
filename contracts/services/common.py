"""What every stage of a contract's life shares: the states, finding a contract or a house in the campaign, the
chronicle's wording of houses, ending a contract, a dynasty's leader and excommunication."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from django.db.models import Q

from campaign.models import Campaign
from campaign.steps import Chronicle
from contracts.models import Contract, ContractPayment, ContractState, EndKind, Excommunication, PaymentStatus
from dynasties.models import Dynasty, Reign
from dynasties.services.common import World
from rules.errors import NotFound, RuleError
from rules.succession import iter_succession

LIVE = (ContractState.DRAFT, ContractState.SIGNED, ContractState.IN_FORCE)
BINDING = (ContractState.SIGNED, ContractState.IN_FORCE)


# helpers ------------------------------------------------------------------------------------------


def _pk(value: Any, what: str) -> int:
    pk = getattr(value, "pk", value)
    if isinstance(pk, str) and pk.strip().isdigit():
        pk = int(pk)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not a {what} id.", code="invalid")
    return pk


def _contract(campaign: Campaign, contract: Contract | int) -> Contract:
    pk = _pk(contract, "contract")
    try:
        return Contract.objects.select_related("marriage__husband", "marriage__wife").get(pk=pk, campaign=campaign)
    except Contract.DoesNotExist:
        raise NotFound(f"There is no contract #{pk} in {campaign.name}.") from None


def _dynasty(campaign: Campaign, value: Dynasty | int, role: str) -> Dynasty:
    pk = _pk(value, "dynasty")
    try:
        return Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no dynasty #{pk} in {campaign.name} to be the {role}.") from None


def _house(d: Dynasty) -> str:
    return f"the house of {d.name}"


def _House(d: Dynasty) -> str:
    return f"The house of {d.name}"


def _houses(names: Iterable[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _party_ids(contract: Contract) -> list[int]:
    return sorted(contract.parties.values_list("pk", flat=True))


def _data(contract: Contract, parties: Sequence[int], **extra: Any) -> dict[str, Any]:
    """What every chronicle line of a contract carries: its readers are the contract's parties (the
    policy shows the line to them and the GM, no one else)."""
    return {"contract": contract.pk, "parties": list(parties), "readers": list(parties), **extra}


def leader_of(dynasty: Dynasty, reigns: Iterable[Reign], year: int) -> int | None:
    """A house's leader: the monarch of its crown (his reign open, or ended this very year)."""
    if not dynasty.crown:
        return None
    for reign in reigns:
        if reign.crown == dynasty.crown and (reign.end_year is None or reign.end_year == year):
            return reign.holder_id
    return None


def died_heirless(world: World, leader: int, crown: str) -> bool:
    """Nobody in the late leader's line of succession (the world must hold the dead)."""
    barred = world.renounced.get(crown, set())
    return next(iter_succession(world.people, leader, royal=world.past_holders(crown), barred=barred), None) is None


def excommunicated(campaign: Campaign) -> dict[int, Excommunication]:
    """The houses excommunicated now."""
    return {e.dynasty_id: e for e in Excommunication.objects.filter(campaign=campaign, ended_year__isnull=True)}


def unpaid_payments(
    campaign: Campaign, dynasty: Dynasty | int | None = None, *, marriages: Collection[int] | None = None
) -> list[ContractPayment]:
    """Contract payments still unpaid (debts), in one query; for a house, those it owes or is owed
    (the GM: all); for ``marriages``, those of the contracts sealing these matches."""
    qs = ContractPayment.objects.filter(campaign=campaign, status=PaymentStatus.UNPAID)
    if dynasty is not None:
        pk = _pk(dynasty, "dynasty")
        qs = qs.filter(Q(payer_id=pk) | Q(payee_id=pk))
    if marriages is not None:
        qs = qs.filter(contract__marriage_id__in=list(marriages))
    return list(qs.select_related("contract", "clause", "payer", "payee").order_by("year", "pk"))


def _end(contract: Contract, year: int, kind: EndKind, reason: str, chronicle: Chronicle, parties: Sequence[int]) -> None:
    contract.state = ContractState.ENDED
    contract.ended_year = year
    contract.end_kind = kind
    contract.end_reason = reason[:200]
    contract.save(update_fields=["state", "ended_year", "end_kind", "end_reason"])
    chronicle.add(
        "contract_end",
        f"The {contract.get_kind_display().lower()} '{contract.title}' ends: {reason}.",
        **_data(contract, parties, end_kind=str(kind)),
    )
