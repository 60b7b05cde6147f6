"""Signing: each party its side, or the GM every party at once (the printed contract signed at the table)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from contracts import services
from contracts.models import Contract, ContractKind, ContractState
from pages.common import ActionFailed, member, run_action
from pages.contracts.common import attempt, back_to, visible_contract
from pages.contracts.detail import detail_page
from pages.contracts.forms import SignForm


@require_POST
@login_required
def contract_sign(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The GM records every party's signature at once (the printed contract signed at the table);
    the service asks the policy (403 for anyone else)."""
    campaign, role, mine = member(request, slug)
    contract = visible_contract(request, campaign, pk)
    form = SignForm(request.POST)
    if form.is_valid():
        done = attempt(
            request,
            campaign,
            f"Sign '{contract.title}'",
            lambda c: services.contract_sign(campaign=c, contract=contract.pk, by=request.user),
            form,
        )
        if done is not False:
            if done is not None:
                messages.success(request, _signed(done))
            return back_to(campaign, contract)
    return detail_page(request, campaign, role, mine, contract, {"sign": form}, status=400)


@require_POST
@login_required
def contract_sign_party(request: HttpRequest, slug: str, pk: int, dynasty: int) -> HttpResponse:
    """One party signs its side: a player for his own house only, the GM for any party (the service
    asks the policy)."""
    campaign, role, mine = member(request, slug)
    contract = visible_contract(request, campaign, pk)
    house = next((p for p in contract.parties.all() if p.pk == dynasty), None)
    if house is None:
        raise Http404("No such party to this contract.")
    try:
        done = run_action(
            request,
            campaign,
            f"{house.name} signs '{contract.title}'",
            lambda c: services.contract_sign_party(campaign=c, contract=contract.pk, dynasty=house.pk, by=request.user),
        )
    except ActionFailed as exc:
        return detail_page(request, campaign, role, mine, contract, {"sign_error": exc.message}, status=400)
    if done is not None:
        if done.state == ContractState.DRAFT:
            signed = set(done.signatures.values_list("dynasty_id", flat=True))
            waiting = [p.name for p in done.parties.all() if p.pk not in signed]
            messages.success(request, f"{house.name} has signed '{done.title}'; waiting for {_names(waiting)}.")
        else:
            messages.success(request, f"{house.name} has signed, the last party to sign. {_signed(done)}")
    return back_to(campaign, contract)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _signed(contract: Contract) -> str:
    if contract.state == ContractState.IN_FORCE:
        return f"'{contract.title}' is signed and in force from {contract.in_force_year}."
    if contract.kind == ContractKind.MARRIAGE:
        return f"'{contract.title}' is signed; it binds from the wedding."
    return f"'{contract.title}' is signed; it comes into force in {contract.start_year}."
