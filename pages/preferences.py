"""Pages: a member's own preferences in a campaign - how he types his dice, when the campaign lets
each player choose (issue 19). The service (campaign.services.dice_entry_choose) asks the policy."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLPattern, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from campaign.models import DiceEntry
from campaign.permissions import Forbidden
from campaign.services import dice_entry_choose
from pages.common import member
from rules.errors import RuleError


@require_POST
@login_required
def dice_entry(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, _role, _mine = member(request, slug)
    back = request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = reverse("pages:dashboard", args=[campaign.slug])
    choice = request.POST.get("dice_entry", "")
    try:
        dice_entry_choose(campaign=campaign, choice=choice, by=request.user)
    except Forbidden:
        raise
    except RuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"You type your dice as: {DiceEntry(choice).label.lower()}.")
    return redirect(back)


urlpatterns: list[URLPattern] = [path("<slug:slug>/dice-entry/", dice_entry, name="dice_entry")]
