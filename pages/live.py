"""The live table: the poll open pages ask (``/c/<slug>/live/?v=<n>``) and the table screen.

A page that follows the table carries ``data-live`` and ``data-version`` on its ``<main>``
(``pages.templatetags.live``); ``regnal-live.js`` asks the poll every 700 ms and, when the campaign
moved on, asks the page's own address again and puts the new ``<main>`` in place: the page is
rebuilt by its own view under the same policy, so a viewer receives only what he may see."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.views.decorators.http import require_GET

from campaign.live import member_version, session_version
from campaign.models import Audience, ChronicleEntry, Step
from campaign.permissions import visible
from campaign.steps import STEP_LABELS, STEP_WAITS
from dynasties.models import Dynasty
from dynasties.printing import announcement_sections
from dynasties.services.sequence_view import births_board, has_families, survival_board
from dynasties.services.succession_view import heirs_now
from pages.common import context, member

RESULTS_SHOWN = 8
"""The newest results of the turn the table screen shows (a normal turn's fit on one screen)."""
SURVIVAL_SHOWN = 16
"""The survival rolls it lists (compact, two columns); more are counted."""


@require_GET
def poll(request: HttpRequest, slug: str) -> HttpResponse:
    """204 while the member's live version is still ``v``, else 200 ``{"version": m}``: no query
    with warm caches (``campaign.live.session_version``: who asks, his seat and the campaign's
    counters from the cache; the session from the cache with ``cached_db``), else one after the
    session's; no session written. 404 for anyone who is not a member. ``as=public``: the count of
    the public writes (a page the whole table looks at, the table screen)."""
    public = request.GET.get("as") == "public"
    answered, version = session_version(request.session, slug, public=public, asked=request.GET.get("v"))
    if not answered:  # no cache, or a session only Django's own check may judge (request.user)
        version = member_version(request.user, slug, public=public)
    if version is None:
        raise Http404("No such campaign.")
    answer = HttpResponse(status=204) if request.GET.get("v") == str(version) else JsonResponse({"version": version})
    answer["Cache-Control"] = "no-store"
    return answer


def _results(request: HttpRequest, campaign: Any) -> list[dict[str, Any]]:
    """This turn's public chronicle lines, newest first, each succession with its crown's heir now
    (the new line). Public only: the screen is for the whole table, whoever opened it."""
    lines = ChronicleEntry.objects.filter(year=campaign.current_year, audience=Audience.PUBLIC).exclude(
        kind__in=("announcements", "setup")
    )
    entries = list(visible(request.user, campaign, lines).order_by("-pk")[:RESULTS_SHOWN])
    heirs = heirs_now(campaign=campaign) if any(e.kind == "succession" for e in entries) else {}
    out = []
    for e in entries:
        heir = heirs.get((e.data or {}).get("crown", "")) if e.kind == "succession" else None
        out.append({"entry": e, "heir": heir})
    return out


@require_GET
@login_required
def table(request: HttpRequest, slug: str) -> HttpResponse:
    """The table screen (a TV or a projector): the step in large type, what it waits for, the odds
    of the rolls being made, this turn's results as they come, then the announcements."""
    campaign, role, mine = member(request, slug)
    step = Step(campaign.step)
    families = has_families(campaign)
    births = births_board(campaign) if families and step == Step.BIRTHS else None
    survival = survival_board(campaign) if families and step == Step.SURVIVAL else None
    published = ChronicleEntry.objects.filter(campaign=campaign, year=campaign.current_year, kind="announcements").exists()
    rows = list(survival.rows) if survival is not None else []
    colours = dict(Dynasty.objects.filter(campaign=campaign).values_list("pk", "color")) if births is not None else {}
    couples = [
        {"row": c, "color": colours.get(c.husband.controlled_by_id or c.wife.controlled_by_id or 0, "#888888")}
        for c in (births.couples if births is not None else ())
    ]
    return render(
        request,
        "pages/table.html",
        context(
            campaign,
            role,
            mine,
            step_label=STEP_LABELS[step],
            waits=STEP_WAITS.get(step, ""),
            births=births,
            couples=couples,
            survival=survival,
            survival_rows=rows[:SURVIVAL_SHOWN],
            survival_more=max(0, len(rows) - SURVIVAL_SHOWN),
            results=_results(request, campaign),
            sections=announcement_sections(campaign, campaign.current_year) if published else [],
        ),
    )


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/live/", poll, name="live"),
    path("<slug:slug>/table/", table, name="table"),
]
