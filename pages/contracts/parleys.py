"""Parleys: the whole table's vote (over a breach, an excommunication, a readmission)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from campaign.models import Campaign
from contracts import services
from contracts.models import Breach, Contract, Excommunication, Parley
from dynasties.models import Dynasty, DynastyKind
from pages.common import context, member, require_gm
from pages.contracts.common import attempt, back_to, breach_of, visible_contract
from pages.contracts.forms import ParleyForm


@require_http_methods(["GET", "POST"])
@login_required
def parley(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    source = request.POST if request.method == "POST" else request.GET
    found: Breach | None = None
    contract: Contract | None = None
    if source.get("breach"):
        try:
            breach_pk = int(source["breach"])
        except ValueError:
            raise Http404("No such breach.") from None
        owner = Breach.objects.filter(pk=breach_pk, campaign=campaign).values_list("contract_id", flat=True).first()
        if owner is None:
            raise Http404("No such breach.")
        contract = visible_contract(request, campaign, owner)
        found = breach_of(contract, breach_pk)
    require_gm(role)
    houses = list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "name"))
    banned = set(Excommunication.objects.filter(campaign=campaign, ended_year__isnull=True).values_list("dynasty_id", flat=True))
    form = ParleyForm(houses, found is not None, banned, request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data, votes = form.cleaned_data, form.votes()

            def run(c: Campaign) -> Parley:
                return services.parley_hold(
                    campaign=c,
                    votes=votes,
                    breach=found.pk if found is not None else None,
                    kind=data.get("kind"),
                    caller=data.get("caller"),
                    subject=data.get("subject") or "",
                    area=data.get("area") or "",
                    opponent=data.get("opponent"),
                    by=request.user,
                )

            done = attempt(request, campaign, "Parley", run, form)
            if done is not False:
                if done is not None:
                    messages.success(request, f"The parley is held: {done.outcome}.")
                if contract is not None:
                    return back_to(campaign, contract)
                if done is not None:
                    return redirect("pages:parley_detail", campaign.slug, done.pk)
                return redirect("pages:contracts", campaign.slug)
        status = 400
    return render(
        request,
        "pages/contracts/parley.html",
        context(campaign, role, mine, form=form, breach=found, contract=contract),
        status=status,
    )
