"""Diplomacy's consequences: one parley with its decision (the claim it granted, what it made due and
the buttons to comply or refuse), and the campaign's claims register (record, exchange, renounce)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaign.models import Campaign
from campaign.permissions import keeps_claims_register, may_act_for
from contracts import services
from contracts.models import Claim, Obligation, ObligationState, Parley, ParleyVote
from dynasties.models import Dynasty, DynastyKind
from pages.common import ActionFailed, context, member, run_action, set_choices, shown_with
from pages.contracts.common import attempt

ENDED_SHOWN = 50


def _one(obj: Any, attr: str) -> Any:
    try:
        return getattr(obj, attr)
    except ObjectDoesNotExist:
        return None


# one parley ------------------------------------------------------------------------------------


def _parley_page(request: HttpRequest, slug: str, pk: int, error: str = "", status: int = 200) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    found = (
        Parley.objects.filter(pk=pk, campaign=campaign)
        .select_related("caller", "opponent", "breach__contract", "claim", "obligation__obliged", "obligation__owed_to")
        .select_related("obligation__excommunication")
        .first()
    )
    if found is None:
        raise Http404("No such parley.")
    votes = list(ParleyVote.objects.filter(parley=found).select_related("dynasty").order_by("position", "pk"))
    due: Obligation | None = _one(found, "obligation")
    may_resolve = due is not None and due.state == ObligationState.OPEN and may_act_for(role, mine, due.obliged_id)
    return render(
        request,
        "pages/contracts/parley_detail.html",
        context(
            campaign,
            role,
            mine,
            parley=found,
            votes=votes,
            claim=_one(found, "claim"),
            due=due,
            may_resolve=may_resolve,
            resolve_error=error,
        ),
        status=status,
    )


@require_GET
@login_required
def parley_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _parley_page(request, slug, pk)


@require_POST
@login_required
def obligation_resolve(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, _role, _mine = member(request, slug)
    due = Obligation.objects.filter(pk=pk, campaign=campaign).first()
    if due is None:
        raise Http404("No such decision.")
    answer = request.POST.get("complied")
    if answer not in ("yes", "no"):
        return _parley_page(request, slug, due.parley_id, "Say whether the decision was complied with or refused.", 400)
    try:
        done = run_action(
            request,
            campaign,
            "Resolve a parley's decision",
            lambda c: services.obligation_resolve(campaign=c, obligation=due.pk, complied=answer == "yes", by=request.user),
        )
    except ActionFailed as exc:
        return _parley_page(request, slug, due.parley_id, exc.message, 400)
    if done is not None:
        messages.success(request, f"{done.words}: {done.get_state_display().lower()}.")
    return redirect("pages:parley_detail", campaign.slug, due.parley_id)


# the claims register -----------------------------------------------------------------------------


class ClaimRecordForm(forms.Form):
    dynasty = forms.TypedChoiceField(label="House", coerce=int)
    area = forms.CharField(label="Area", max_length=100, help_text="As the board names it.")
    note = forms.CharField(label="Note", max_length=200, required=False)

    def __init__(self, houses: list[Dynasty], data: Any = None) -> None:
        super().__init__(data, prefix="record")
        set_choices(self, "dynasty", choices=[("", "Choose a house")] + [(d.pk, d.name) for d in houses])


class ClaimExchangeForm(forms.Form):
    first = forms.TypedChoiceField(label="One house", coerce=int)
    first_gives = forms.TypedMultipleChoiceField(label="It gives", coerce=int, required=False)
    second = forms.TypedChoiceField(label="The other house", coerce=int)
    second_gives = forms.TypedMultipleChoiceField(label="It gives", coerce=int, required=False)
    note = forms.CharField(label="Note", max_length=200, required=False, help_text="What was agreed in return, if anything.")

    def __init__(self, houses: list[Dynasty], held: list[Claim], data: Any = None) -> None:
        super().__init__(data, prefix="exchange")
        choices = [("", "Choose a house")] + [(d.pk, d.name) for d in houses]
        set_choices(self, "first", "second", choices=choices)
        claims = [(c.pk, f"{c.area} ({c.dynasty.name})") for c in held]
        set_choices(self, "first_gives", "second_gives", choices=claims)


def _claims_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    record: ClaimRecordForm | None = None,
    exchange: ClaimExchangeForm | None = None,
    status: int = 200,
) -> HttpResponse:
    held = list(Claim.objects.filter(campaign=campaign, ended_year__isnull=True).select_related("dynasty", "parley"))
    ended = list(
        Claim.objects.filter(campaign=campaign, ended_year__isnull=False)
        .select_related("dynasty", "passed_to__dynasty")
        .order_by("-ended_year", "-pk")[:ENDED_SHOWN]
    )
    open_due = list(
        Obligation.objects.filter(campaign=campaign, state=ObligationState.OPEN)
        .select_related("obliged", "owed_to", "parley")
        .order_by("due_year", "pk")
    )
    for c in held:
        shown_with(c, may_renounce=may_act_for(role, mine, c.dynasty_id))
    keeper = keeps_claims_register(role)
    houses = _houses(campaign) if keeper else []
    return render(
        request,
        "pages/contracts/claims.html",
        context(
            campaign,
            role,
            mine,
            held=held,
            ended=ended,
            ended_shown=ENDED_SHOWN,
            open_due=open_due,
            record=record or (ClaimRecordForm(houses) if keeper else None),
            exchange=exchange or (ClaimExchangeForm(houses, held) if keeper else None),
        ),
        status=status,
    )


@require_http_methods(["GET"])
@login_required
def claims(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    return _claims_page(request, campaign, role, mine)


def _houses(campaign: Campaign) -> list[Dynasty]:
    return list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "name"))


def _held(campaign: Campaign) -> list[Claim]:
    return list(Claim.objects.filter(campaign=campaign, ended_year__isnull=True).select_related("dynasty"))


@require_POST
@login_required
def area_claim_record(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    form = ClaimRecordForm(_houses(campaign), request.POST)
    if form.is_valid():
        d = form.cleaned_data
        done = attempt(
            request,
            campaign,
            "Record a claim",
            lambda c: services.area_claim_record(
                campaign=c, dynasty=d["dynasty"], area=d["area"], note=d["note"], by=request.user
            ),
            form,
        )
        if done is not False:
            if done is not None:
                messages.success(request, f"{done.dynasty.name}'s claim to {done.area} is recorded.")
            return redirect("pages:claims", campaign.slug)
    return _claims_page(request, campaign, role, mine, record=form, status=400)


@require_POST
@login_required
def area_claim_exchange(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    form = ClaimExchangeForm(_houses(campaign), _held(campaign), request.POST)
    if form.is_valid():
        d = form.cleaned_data
        done = attempt(
            request,
            campaign,
            "Exchange claims",
            lambda c: services.area_claim_exchange(
                campaign=c,
                first=d["first"],
                second=d["second"],
                first_gives=d["first_gives"],
                second_gives=d["second_gives"],
                note=d["note"],
                by=request.user,
            ),
            form,
        )
        if done is not False:
            if done is not None:
                messages.success(
                    request, "The exchange is recorded: " + "; ".join(f"{c.dynasty.name} now claims {c.area}" for c in done) + "."
                )
            return redirect("pages:claims", campaign.slug)
    return _claims_page(request, campaign, role, mine, exchange=form, status=400)


@require_POST
@login_required
def area_claim_renounce(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, _role, _mine = member(request, slug)
    found = Claim.objects.filter(pk=pk, campaign=campaign).first()
    if found is None:
        raise Http404("No such claim.")
    try:
        done = run_action(
            request,
            campaign,
            "Renounce a claim",
            lambda c: services.area_claim_renounce(campaign=c, claim=found.pk, by=request.user),
        )
    except ActionFailed as exc:
        messages.error(request, exc.message)
        return redirect("pages:claims", campaign.slug)
    if done is not None:
        messages.success(request, f"The claim to {done.area} is renounced.")
    return redirect("pages:claims", campaign.slug)
