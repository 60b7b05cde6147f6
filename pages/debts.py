"""Debts in view (issue 34): a contract's payment the payer could not cover (``ContractPayment``
left unpaid) shown where the table looks for money, not only on the contract's page: the
exchequers of the house that owes it and of the house owed, the dashboard's rows of both houses,
and the card of the wedding whose contract made it due.

Who sees a debt there, the policy decides (``campaign.permissions.sees_debt``: the two houses and
the GM, never a contract's other parties). Each page reads its debts in one query
(``contracts.services.unpaid_payments``), however many there are."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.urls import reverse

from campaign.models import Campaign
from campaign.permissions import debts_listed, may_settle_debt, sees_debt
from contracts.models import ContractPayment
from contracts.services import unpaid_payments
from dynasties.treasury import currency


def debts_for(
    campaign: Campaign,
    role: str | None,
    mine: int | None,
    *,
    house: int | None = None,
    marriages: Iterable[int] | None = None,
) -> list[dict[str, Any]]:
    """The debts the viewer may see, as rows for a template (one query; none for an observer): the
    GM's every debt, a player's those his house owes or is owed; only those of ``house`` (an
    exchequer's) or of these ``marriages``' contracts, if given."""
    matches = None if marriages is None else list(marriages)
    allowed, whose = debts_listed(role, mine, house)
    if not allowed:
        return []
    found = unpaid_payments(campaign, whose, marriages=matches)
    unit = currency(campaign)
    return [_row(campaign, due, unit, role, mine) for due in found if sees_debt(role, mine, due.payer_id, due.payee_id)]


def _row(campaign: Campaign, due: ContractPayment, unit: str, role: str | None, mine: int | None) -> dict[str, Any]:
    return {
        "pk": due.pk,
        "amount": due.amount,
        "unit": unit,
        "year": due.year,
        "payer_id": due.payer_id,
        "payee_id": due.payee_id,
        "payer": due.payer.name,
        "payee": due.payee.name,
        "marriage_id": due.contract.marriage_id,
        "contract": due.contract.title,
        "url": reverse("pages:contract", kwargs={"slug": campaign.slug, "pk": due.contract_id}) + "#payments",
        "may_settle": may_settle_debt(role, mine, due.payer_id),
        "settle_url": reverse("pages:payment_settle", kwargs={"slug": campaign.slug, "pk": due.contract_id, "payment": due.pk}),
    }


def split(rows: list[dict[str, Any]], house: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(what ``house`` owes, what it is owed) of these debts."""
    return [r for r in rows if r["payer_id"] == house], [r for r in rows if r["payee_id"] == house]
