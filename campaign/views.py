from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from campaign.models import Membership


@login_required
def home(request: HttpRequest) -> HttpResponse:
    memberships = Membership.objects.filter(user=request.user).select_related("campaign", "dynasty").order_by("campaign__name")
    return render(request, "home.html", {"memberships": memberships})
