"""The list of contracts (by state) and the page of one contract, with its PDF."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from campaign.models import Campaign
from campaign.permissions import has_own_house, links_to_the_desk, may_play, runs_the_turn, visible
from contracts import services
from contracts.models import (
    Clause,
    ClauseKind,
    Contract,
    ContractKind,
    ContractSignature,
    ContractState,
    DisputeTerm,
    Excommunication,
    Parley,
    ParleyVote,
    PaymentStatus,
)
from contracts.printing import CHARACTER_KEYS, contract_pdf, describe
from dynasties.models import Character
from dynasties.services.play_registry import play_of
from dynasties.treasury import currency
from pages.common import context, may_act_for, member, shown_with
from pages.contracts.common import acts_for_a_party, party_ids, visible_contract
from pages.contracts.forms import BreachForm, Choices, ConsentForm, EscapeForm, SignForm
from pages.trail import Source, Trail, trail

STATE_TABS = {
    ContractState.DRAFT: "Drafts",
    ContractState.SIGNED: "Signed",
    ContractState.IN_FORCE: "In force",
    ContractState.ENDED: "Ended",
}


def _one(obj: Any, attr: str) -> Any:
    """A reverse one-to-one, or None."""
    try:
        return getattr(obj, attr)
    except ObjectDoesNotExist:
        return None


# the list ------------------------------------------------------------------------------------


@require_GET
@login_required
def contract_list(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    seen = visible(request.user, campaign, Contract.objects.all())
    counts = dict(seen.order_by().values_list("state").annotate(n=Count("pk", distinct=True)))
    state = request.GET.get("state", "")
    shown = seen.filter(state=state) if state in ContractState.values else seen
    contracts = list(shown.prefetch_related("parties", "signatures").order_by("-start_year", "-pk"))
    for c in contracts:
        signed = {s.dynasty_id for s in c.signatures.all()}
        c.signed_count, c.party_count = len(signed), len(c.parties.all())
        c.awaits_me = c.state == ContractState.DRAFT and has_own_house(role, mine) and mine in party_ids(c) and mine not in signed
    tabs = [("", "All", sum(counts.values()))] + [(s, label, counts.get(s, 0)) for s, label in STATE_TABS.items()]
    parleys = list(
        Parley.objects.filter(campaign=campaign, breach__isnull=True).select_related("caller").order_by("-year", "-pk")[:30]
    )
    banned = list(
        Excommunication.objects.filter(campaign=campaign, ended_year__isnull=True)
        .select_related("dynasty")
        .order_by("dynasty__seat")
    )
    return render(
        request,
        "pages/contracts/list.html",
        context(
            campaign,
            role,
            mine,
            contracts=contracts,
            tabs=tabs,
            state=state,
            parleys=parleys,
            banned=banned,
            may_draft=may_play(role),
        ),
    )


# one contract ----------------------------------------------------------------------------------


def detail_page(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    contract: Contract,
    bound: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    bound = bound or {}
    choices = Choices(campaign)
    parties = [choices.by_pk[pk] for pk in party_ids(contract) if pk in choices.by_pk]
    party_choices = choices.house_choices(p.pk for p in parties)
    clauses = list(contract.clauses.all())
    ids = {v for c in clauses for k, v in (c.params or {}).items() if k in CHARACTER_KEYS and isinstance(v, int)}
    people = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=ids)} if ids else {}
    money = currency(campaign)
    payments = list(contract.payments.select_related("clause", "payer", "payee").order_by("year", "pk"))
    breaches = list(
        contract.breaches.select_related("by_dynasty", "raised_by", "clause", "dispute", "parley__caller")
        .prefetch_related(
            Prefetch("dispute__terms", queryset=DisputeTerm.objects.select_related("clause")),
            Prefetch("parley__votes", queryset=ParleyVote.objects.select_related("dynasty")),
        )
        .order_by("year", "pk")
    )
    runs = runs_the_turn(role)
    acts = acts_for_a_party(role, mine, contract)
    bloodline = play_of(campaign).disputes.by_majority()
    for b in breaches:
        parley = _one(b, "parley")
        shown_with(
            b,
            the_dispute=_one(b, "dispute"),
            the_parley=parley,
            may_dispute=runs and bloodline and b.resolved_year is None,
            may_parley=runs and contract.kind == ContractKind.AGREEMENT and b.resolved_year is None and parley is None,
        )
    for p in payments:
        shown_with(p, may_settle=p.status == PaymentStatus.UNPAID and may_act_for(role, mine, p.payer_id))
    mine_only = not runs
    raisers = [c for c in party_choices if not mine_only or c[0] == mine]
    draft = contract.state == ContractState.DRAFT
    signed = {s.dynasty_id: s for s in contract.signatures.select_related("signed_by")}
    signing = [
        {"house": p, "signature": signed.get(p.pk), "may_sign": draft and p.pk not in signed and may_act_for(role, mine, p.pk)}
        for p in parties
    ]
    live = contract.state in services.LIVE
    binding = contract.state in services.BINDING
    has_escape = any(c.kind == ClauseKind.ESCAPE for c in clauses)
    unbreakable = contract.kind == ContractKind.MARRIAGE and contract.state == ContractState.IN_FORCE
    forms_ = {
        "sign": bound.get("sign") or SignForm(),
        "consent": bound.get("consent") or ConsentForm(),
        "escape": bound.get("escape") or EscapeForm(raisers),
        "breach": bound.get("breach") or BreachForm(raisers, party_choices, clauses),
    }
    actions = {
        "sign": runs and draft,
        "consent": acts and live and not unbreakable,
        "escape": acts and binding and has_escape,
        "breach": acts and contract.state == ContractState.IN_FORCE,
    }
    for key in actions:
        actions[key] = actions[key] or key in bound  # a refused form is shown with its message
    return render(
        request,
        "pages/contracts/detail.html",
        context(
            campaign,
            role,
            mine,
            contract=contract,
            parties=parties,
            currency=money,
            clauses=[(c, describe(c, choices.by_pk, people, money)) for c in clauses],
            payments=payments,
            breaches=breaches,
            forms=forms_,
            actions=actions,
            settle_error=bound.get("settle_error"),
            signing=signing,
            waiting=[s["house"] for s in signing if s["signature"] is None],
            sign_error=bound.get("sign_error"),
            escape_condition=next((c.params.get("condition") for c in clauses if c.kind == ClauseKind.ESCAPE), ""),
            bloodline=bloodline,
            trail=_contract_trail(request, campaign, role, contract),
        ),
        status=status,
    )


def _contract_trail(request: HttpRequest, campaign: Campaign, role: str, contract: Contract) -> Trail:
    """The audit trail of the contract, its clauses and its signatures (seen by whoever may see
    the contract: the page is reached through ``visible_contract``)."""
    clause_kinds = dict(ClauseKind.choices)
    found = trail(
        request.user,
        campaign,
        role,
        [
            Source(Contract, Contract.history.filter(id=contract.pk), select=("marriage__husband", "marriage__wife")),
            Source(
                Clause,
                Clause.history.filter(contract_id=contract.pk),
                lambda r: f"Clause {r.position} ({clause_kinds.get(r.kind, r.kind)})",
            ),
            Source(
                ContractSignature,
                ContractSignature.history.filter(contract_id=contract.pk),
                lambda r: f"Signature of {r.dynasty.name if r.dynasty else 'a removed house'}",
            ),
        ],
    )
    if links_to_the_desk(role):  # the GM keeps the books at the desk (campaign.permissions.may_use_desk)
        found.admin_url = reverse("admin:contracts_contract_history", args=[contract.pk])
    return found


@require_GET
@login_required
def contract_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    return detail_page(request, campaign, role, mine, visible_contract(request, campaign, pk))


@require_GET
@login_required
def contract_pdf_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    campaign, _, _ = member(request, slug)
    contract = visible_contract(request, campaign, pk)
    response = HttpResponse(contract_pdf(contract), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="contract-{contract.pk}.pdf"'
    return response
