"""Pages: the titles and their decisions. Every member sees every title (titles are public record): the
list on ``titles/`` and each title's page (``title/<id>/``: its holder, provinces, income, the holdings
and its line of succession), with links to the forms that grant them (the table's events).

The decisions: BloodLine (RULES.md B, Titles and Dynastic Crisis): the titles with a choice open this
turn; the player who decides (or the GM) takes a title back or chooses its heir at a holder's death,
and claims or gives up a dead line's title in a Dynastic Crisis. Blood Royale (rule G): the
inheritances of this turn the King may dispute, and the GM enters the dispute with the holder the King
names. Every write goes through ``pages.common.run_action`` and the services
(``dynasties.services.bloodline_titles``, ``dynasties.services.titles``), which say who may act."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_GET, require_http_methods

from campaign.models import Campaign
from campaign.permissions import may_act_for, seat_of
from campaign.table_events import available
from dynasties.models import Dynasty, Title, TitleHolding
from dynasties.services.bloodline_titles import (
    crisis_claim,
    crisis_claim_waive,
    title_bequeath,
    title_decisions,
    title_income,
    title_reclaim,
)
from dynasties.services.play_registry import play_of
from dynasties.services.succession_view import title_succession_line
from dynasties.services.titles import title_dispute, title_disputes
from dynasties.treasury import currency
from pages.common import ActionFailed, context, member, run_action
from rules.errors import NotFound

OPS = ("reclaim", "bequeath", "crisis_claim", "crisis_waive", "dispute")


def _int(value: str | None) -> int | None:
    try:
        return int(value or "")
    except ValueError:
        return None


@require_http_methods(["GET", "POST"])
@login_required
def titles(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    if request.method == "GET":
        return _page(request, campaign, role, mine)
    op, pk = request.POST.get("op", ""), _int(request.POST.get("title"))
    if op not in OPS or pk is None:
        return HttpResponse("Unknown form.", status=400, content_type="text/plain")
    by = request.user
    provinces = [p.strip() for p in request.POST.get("provinces", "").split(",") if p.strip()]
    terms = request.POST.get("terms", "")[:200]
    heir = _int(request.POST.get("heir"))
    holder = _int(request.POST.get("holder"))

    def action(locked: Campaign) -> Any:
        if op == "dispute":
            return title_dispute(campaign=locked, title=pk, holder=holder, by=by)
        if op == "reclaim":
            return title_reclaim(campaign=locked, title=pk, by=by)
        if op == "bequeath":
            return title_bequeath(campaign=locked, title=pk, heir=heir or 0, by=by)
        if op == "crisis_claim":
            return crisis_claim(campaign=locked, title=pk, provinces=provinces, terms=terms, by=by)
        return crisis_claim_waive(campaign=locked, title=pk, by=by)

    try:
        done = run_action(request, campaign, f"Title #{pk}: {op.replace('_', ' ')}", action)
    except ActionFailed as failure:
        return _page(request, campaign, role, mine, error=failure.message, status=400)
    if done is not None:
        messages.success(request, "Done: the chronicle has it.")
    return redirect("pages:titles", slug=campaign.slug)


def _page(
    request: HttpRequest, campaign: Campaign, role: str, mine: int | None, *, error: str = "", status: int = 200
) -> HttpResponse:
    every = list(
        Title.objects.filter(campaign=campaign).select_related("holder", "holder__controlled_by").order_by("crown", "name", "pk")
    )
    seat = seat_of(request.user, campaign)
    grants = [e for e in available(campaign, seat) if e.group == "Titles"]  # the table's events: grant, income
    rows = [
        {
            "d": d,
            "mine": may_act_for(role, mine, d.house),
            "giver": may_act_for(role, mine, d.title.granted_by_id),
        }
        for d in title_decisions(campaign)
    ]
    disputes = title_disputes(campaign)
    return render(
        request,
        "pages/titles.html",
        context(campaign, role, mine, rows=rows, disputes=disputes, error=error, every=every, grants=grants),
        status=status,
    )


@require_GET
@login_required
def title(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """One title, public record: its holder, provinces, income, who held it and its line of succession."""
    campaign, role, mine = member(request, slug)
    found = (
        Title.objects.select_related("holder", "holder__controlled_by", "granted_to", "granted_by")
        .filter(campaign=campaign, pk=pk)
        .first()
    )
    if found is None:
        raise Http404("No such title in this campaign.")
    holdings = list(TitleHolding.objects.filter(title=found).select_related("holder").order_by("start_year", "pk"))
    try:
        line = title_succession_line(campaign=campaign, title=found) if found.holder_id is not None else None
    except NotFound:  # a holder out of play whose title has not passed yet (the Survival step finishing)
        line = None
    controllers = Dynasty.objects.in_bulk([p.get("controller") for p in found.provinces or [] if p.get("controller")])
    provinces = [
        {"name": p.get("name", ""), "value": p.get("value", 0), "controller": controllers.get(p.get("controller"))}
        for p in found.provinces or []
    ]
    return render(
        request,
        "pages/title.html",
        context(
            campaign,
            role,
            mine,
            title=found,
            holdings=holdings,
            line=line,
            provinces=provinces,
            income=title_income(found) if found.provinces else None,
            governed_extra=play_of(campaign).succession.title_terms().governed_tax_extra,
            money=currency(campaign),
            disputed_now=any(d.title.pk == found.pk for d in title_disputes(campaign)),
        ),
    )


urlpatterns = [
    path("<slug:slug>/titles/", titles, name="titles"),
    path("<slug:slug>/title/<int:pk>/", title, name="title"),
]
