"""Pages: a crown, for every member (``crown/<name>/``): whose country it is and who holds it, its
union, its monarch and his standing, its Stability on the track with its history and revolts, the
lasting modifiers it carries, its royal leaders and its reigns (``dynasties.services.crowns_view``).
The table events about a crown the viewer is offered are linked, the crown filled in (an EU monarch's
military skill and ransom among them)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET

from campaign.permissions import seat_of
from campaign.table_events import Kind, available
from dynasties.services.crowns_view import crown_view
from pages.common import context, member
from rules.errors import NotFound


@require_GET
@login_required
def crown(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    try:
        view = crown_view(campaign=campaign, name=name)
    except NotFound:
        raise Http404("No such crown in this campaign.") from None
    seat = seat_of(request.user, campaign)
    record = [e for e in available(campaign, seat) if any(f.name == "crown" and f.kind == Kind.CROWN for f in e.fields)]
    return render(request, "pages/crown.html", context(campaign, role, mine, view=view, record=record))


urlpatterns = [path("<slug:slug>/crown/<str:name>/", crown, name="crown")]
