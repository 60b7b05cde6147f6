"""The site's home page: the campaigns of the user, each with its state."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from campaign.building import setup_statuses
from campaign.models import Membership
from dynasties.models import house_of


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The user's campaigns; one not open for play says so (being built, or its set-up failed: its
    GM retries or deletes it from here or from its page)."""
    user = request.user
    assert user.is_authenticated  # login_required
    memberships = list(Membership.objects.filter(user=user).select_related("campaign", "seat__house").order_by("campaign__name"))
    statuses = setup_statuses(m.campaign for m in memberships)
    for m in memberships:
        m.setup_status = statuses.get(m.campaign_id)  # type: ignore[attr-defined]
        m.house = house_of(m)  # type: ignore[attr-defined]
    return render(request, "home.html", {"memberships": memberships})
