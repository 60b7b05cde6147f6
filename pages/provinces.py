"""Pages: the province register (Blood Royale; issue 33). Every member sees it, as the map is on the
table (``campaign.permissions.SEES``): each province's country, who controls it, whether it is a Home
Province, its capital and castle, its Resource Area and its Famine and Rebellion markers, and each
house's summary (its provinces, Home Provinces, capital, a capital lost). The writes are the table's
events (group "Provinces": ``dynasties.table_events.provinces``), linked from here for whoever is
offered them. A GET runs a fixed number of queries, however many provinces."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET

from campaign.permissions import seat_of
from campaign.table_events import available
from dynasties.models import Crown, Dynasty, Modifier, ModifierKind, Province
from pages.common import context, member
from rules import provinces as rules


@require_GET
@login_required
def provinces(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
    crowns = list(Crown.objects.filter(campaign=campaign).order_by("name"))
    countries: dict[int, set[str]] = {pk: ({d.crown} if d.crown else set()) for pk, d in houses.items()}
    for c in crowns:
        if c.controlled_by_id is not None:
            countries.setdefault(c.controlled_by_id, set()).add(c.name)
    lost = set(
        Modifier.objects.filter(campaign=campaign, kind=ModifierKind.CAPITAL_LOST, end_year__isnull=True).values_list(
            "crown", flat=True
        )
    )
    rows: list[dict[str, Any]] = []
    summary: dict[int, dict[str, Any]] = {
        pk: {"house": d, "provinces": 0, "home": 0, "capital": "", "famine": 0, "rebellion": 0}
        for pk, d in houses.items()
        if d.crown
    }
    for p in Province.objects.filter(campaign=campaign).order_by("country", "name"):
        owner = houses.get(p.controlled_by_id or 0)
        home = owner is not None and rules.is_home(p.country, countries.get(owner.pk, set()))
        rows.append(
            {
                "p": p,
                "owner": owner,
                "home": home,
                "resource": rules.RESOURCE_LABELS.get(p.resource, ""),
            }
        )
        if owner is not None and owner.pk in summary:
            s = summary[owner.pk]
            s["provinces"] += 1
            s["home"] += int(home)
            s["famine"] += int(p.famine_year is not None)
            s["rebellion"] += int(p.rebellion_year is not None)
            if p.capital_of and p.capital_of in countries.get(owner.pk, set()):
                s["capital"] = p.name
    for s in summary.values():
        s["lost"] = s["house"].crown in lost
    seat = seat_of(request.user, campaign)
    forms = [e for e in available(campaign, seat) if e.group == "Provinces"]
    return render(
        request,
        "pages/provinces.html",
        context(
            campaign,
            role,
            mine,
            rows=rows,
            summary=sorted(summary.values(), key=lambda s: (s["house"].seat, s["house"].name)),
            forms=forms,
            rule_f=campaign.option("neutral_provinces"),
            rule_i=campaign.option("changing_capitals"),
        ),
    )


urlpatterns = [path("<slug:slug>/provinces/", provinces, name="provinces")]
