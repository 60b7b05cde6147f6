"""Pages: title decisions. BloodLine (RULES.md B, Titles and Dynastic Crisis): every member sees the
titles with a choice open this turn (titles are public record); the player who decides (or the GM)
takes a title back or chooses its heir at a holder's death, and claims or gives up a dead line's
title in a Dynastic Crisis. Blood Royale (rule G): the inheritances of this turn the King may
dispute, and the GM enters the dispute with the holder the King names. Every write goes through
``pages.common.run_action`` and the services (``dynasties.services.bloodline_titles``,
``dynasties.services.titles``), which say who may act."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_http_methods

from campaign.models import Campaign, Role
from campaign.permissions import may_act_for
from dynasties.services.bloodline_titles import (
    crisis_claim,
    crisis_claim_waive,
    title_bequeath,
    title_decisions,
    title_reclaim,
)
from dynasties.services.titles import title_dispute, title_disputes
from pages.common import ActionFailed, context, member, run_action

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
    if role not in (Role.GM, Role.PLAYER):
        raise PermissionDenied("An observer only looks.")
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
    rows = [
        {
            "d": d,
            "mine": role == Role.GM or may_act_for(role, mine, d.house),
            "giver": role == Role.GM or may_act_for(role, mine, d.title.granted_by_id),
        }
        for d in title_decisions(campaign)
    ]
    disputes = title_disputes(campaign)
    return render(
        request, "pages/titles.html", context(campaign, role, mine, rows=rows, disputes=disputes, error=error), status=status
    )


urlpatterns = [path("<slug:slug>/titles/", titles, name="titles")]
