"""Breaches recorded against a contract, and BloodLine's disputes over them."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_POST

from campaign.permissions import may_act_for
from contracts import services
from contracts.printing import CHARACTER_KEYS, describe
from dynasties.models import Character, Dynasty, DynastyKind
from dynasties.services.play_registry import play_of
from dynasties.treasury import currency
from pages.common import context, member, require_gm
from pages.contracts.common import attempt, back_to, breach_of, party_ids, require_party_of, visible_contract
from pages.contracts.detail import detail_page
from pages.contracts.forms import BreachForm, Choices, DisputeForm


@require_POST
@login_required
def breach_new(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = visible_contract(request, campaign, pk)
    require_party_of(role, mine, contract)
    parties = Choices(campaign).house_choices(party_ids(contract))
    raisers = [c for c in parties if may_act_for(role, mine, c[0])]
    form = BreachForm(raisers, parties, list(contract.clauses.all()), request.POST)
    if form.is_valid():
        data = form.cleaned_data
        done = attempt(
            request,
            campaign,
            f"Breach of '{contract.title}'",
            lambda c: services.breach_record(
                campaign=c,
                contract=contract.pk,
                by_dynasty=data["by_dynasty"],
                raised_by=data["raised_by"],
                clause=data["clause"],
                text=data["text"],
                by=request.user,
            ),
            form,
        )
        if done is not False:
            if done is not None:
                messages.success(request, "The breach is recorded.")
            return back_to(campaign, contract)
    return detail_page(request, campaign, role, mine, contract, {"breach": form}, status=400)


@require_http_methods(["GET", "POST"])
@login_required
def dispute(request: HttpRequest, slug: str, pk: int, breach: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    contract = visible_contract(request, campaign, pk)
    found = breach_of(contract, breach)
    require_gm(role)
    disputing = {found.by_dynasty_id, found.raised_by_id}
    voters = list(
        Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).exclude(pk__in=disputing).order_by("seat", "name")
    )
    clauses = list(contract.clauses.all())
    form = DisputeForm(voters, clauses, request.POST if request.method == "POST" else None)
    choices = Choices(campaign)
    ids = {v for c in clauses for k, v in (c.params or {}).items() if k in CHARACTER_KEYS and isinstance(v, int)}
    people = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=ids)} if ids else {}
    words = [describe(c, choices.by_pk, people, currency(campaign)) for c in clauses]
    status = 200
    if request.method == "POST":
        if form.is_valid():
            votes = form.votes()
            done = attempt(
                request,
                campaign,
                f"Dispute over '{contract.title}'",
                lambda c: services.dispute_majority(campaign=c, breach=found.pk, votes=votes, by=request.user),
                form,
            )
            if done is not False:
                if done is not None:
                    messages.success(request, f"The dispute is ruled: {done.outcome}.")
                return back_to(campaign, contract)
        status = 400
    return render(
        request,
        "pages/contracts/dispute.html",
        context(
            campaign,
            role,
            mine,
            contract=contract,
            breach=found,
            form=form,
            clauses=clauses,
            words=words,
            bloodline=play_of(campaign).disputes.by_majority(),
        ),
        status=status,
    )
