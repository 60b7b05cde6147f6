"""What the contract pages share: the contract the viewer may see, who acts for a party, one write through the services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect

from campaign.models import Campaign
from campaign.permissions import may_act_for_any, require_party, visible
from contracts.models import Breach, Contract
from pages.common import ActionFailed, run_action

# who sees, who acts ----------------------------------------------------------------------------


def visible_contract(request: HttpRequest, campaign: Campaign, pk: int) -> Contract:
    """The contract if the viewer may see it, else 404 (whether or not it exists)."""
    found: Contract | None = (
        visible(request.user, campaign, Contract.objects.filter(pk=pk))
        .select_related("marriage__husband", "marriage__wife")
        .prefetch_related("parties")
        .first()
    )
    if found is None:
        raise Http404("No such contract.")
    return found


def party_ids(contract: Contract) -> list[int]:
    return [p.pk for p in contract.parties.all()]


def acts_for_a_party(role: str, mine: int | None, contract: Contract) -> bool:
    return may_act_for_any(role, mine, party_ids(contract))


def require_party_of(role: str, mine: int | None, contract: Contract) -> None:
    require_party(role, mine, party_ids(contract))


def attempt(request: HttpRequest, campaign: Campaign, label: str, action: Callable[[Campaign], Any], form: forms.Form) -> Any:
    """Run the action; on a refusal put the services' message next to the field it names (or at
    the top of the form) and return ``False``. None: the same form had already been sent."""
    try:
        return run_action(request, campaign, label, action)
    except ActionFailed as exc:
        place_error(form, exc)
        return False


def place_error(form: forms.Form, exc: ActionFailed) -> None:
    named = [f for f in exc.fields if f in form.fields]
    form.add_error(named[0] if named else None, exc.message)


def back_to(campaign: Campaign, contract: Contract) -> HttpResponse:
    return redirect("pages:contract", campaign.slug, contract.pk)


# disputes and parleys ------------------------------------------------------------------------


def breach_of(contract: Contract, pk: int) -> Breach:
    found = Breach.objects.filter(pk=pk, contract=contract).select_related("by_dynasty", "raised_by", "clause").first()
    if found is None:
        raise Http404("No such breach.")
    return found
