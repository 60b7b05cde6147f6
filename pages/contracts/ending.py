"""Ending a contract: by consent of every party, or by a party's escape clause."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from campaign.permissions import may_act_for
from contracts import services
from pages.common import member
from pages.contracts.common import attempt, back_to, party_ids, require_party_of, visible_contract
from pages.contracts.detail import detail_page
from pages.contracts.forms import Choices, ConsentForm, EscapeForm


@require_POST
@login_required
def contract_end(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = visible_contract(request, campaign, pk)
    require_party_of(role, mine, contract)
    if request.POST.get("how") == "escape":
        parties = Choices(campaign).house_choices(party_ids(contract))
        allowed = [c for c in parties if may_act_for(role, mine, c[0])]
        form: forms.Form = EscapeForm(allowed, request.POST)
        key = "escape"
        if form.is_valid():
            data = form.cleaned_data
            done = attempt(
                request,
                campaign,
                f"Escape '{contract.title}'",
                lambda c: services.contract_escape(
                    campaign=c, contract=contract.pk, by_dynasty=data["by_dynasty"], reason=data["reason"], by=request.user
                ),
                form,
            )
            if done is not False:
                if done is not None:
                    messages.success(request, f"'{contract.title}' ended: the escape clause was invoked.")
                return back_to(campaign, contract)
    else:
        form = ConsentForm(request.POST)
        key = "consent"
        if form.is_valid():
            reason = form.cleaned_data["reason"]
            done = attempt(
                request,
                campaign,
                f"End '{contract.title}'",
                lambda c: services.contract_end_by_consent(campaign=c, contract=contract.pk, reason=reason, by=request.user),
                form,
            )
            if done is not False:
                if done is not None:
                    messages.success(request, f"'{contract.title}' ended by mutual consent.")
                return back_to(campaign, contract)
    return detail_page(request, campaign, role, mine, contract, {key: form}, status=400)
