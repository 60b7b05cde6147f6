"""The GEDCOM export's door: the campaign, or one of its dynasties, as a GEDCOM 5.5.1 download (the
writer is ``dynasties.gedcom``). Mounted at the site's root by ``config/urls.py``."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path

from campaign.doors import member
from dynasties.gedcom import export_gedcom
from dynasties.models import Dynasty


@login_required
def gedcom(request: HttpRequest, slug: str, dynasty_id: int | None = None) -> HttpResponse:
    """The campaign (or one dynasty) as GEDCOM 5.5.1; family records are public to members."""
    campaign, _, _ = member(request, slug)
    dynasty = get_object_or_404(Dynasty, pk=dynasty_id, campaign=campaign) if dynasty_id is not None else None
    name = f"{campaign.slug}-{dynasty.name if dynasty else 'campaign'}.ged".replace(" ", "-")
    response = HttpResponse(export_gedcom(campaign, dynasty), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


urlpatterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/gedcom/", gedcom, name="gedcom-campaign"),
    path("campaigns/<slug:slug>/dynasties/<int:dynasty_id>/gedcom/", gedcom, name="gedcom-dynasty"),
]
