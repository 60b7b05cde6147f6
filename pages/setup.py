"""Pages: a campaign being built, or whose set-up failed (issue 30). Every page of such a campaign
(and the list of campaigns) says so (``pages/_setup.html``, ``campaign.building.setup_status``);
its GM retries the set-up or deletes the campaign here (``operations.services``: the policy, only
its GM). Anyone else gets 404, as for a made-up campaign."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from campaign.models import Setup
from campaign.permissions import Forbidden
from operations.services import campaign_setup_delete, campaign_setup_retry, prehistory_job
from pages.common import member
from rules.errors import RuleError


@require_POST
@login_required
def setup(request: HttpRequest, slug: str) -> HttpResponse:
    """``op``: ``retry`` (set it up again) or ``delete`` (the campaign and all of it)."""
    campaign, _, _ = member(request, slug)
    op = request.POST.get("op", "")
    try:
        if op == "retry":
            made = campaign_setup_retry(campaign=campaign, by=request.user)  # type: ignore[arg-type]
        elif op == "delete":
            name = campaign_setup_delete(campaign=campaign, by=request.user)  # type: ignore[arg-type]
            messages.success(request, f"{name} is deleted, with everything its set-up had written.")
            return redirect("home")
        else:
            messages.error(request, "Choose Retry (set the campaign up again) or Delete.")
            return redirect("pages:dashboard", campaign.slug)
    except Forbidden:
        raise Http404("No such campaign.") from None
    except RuleError as exc:
        messages.error(request, exc.message)
        return redirect("pages:dashboard", campaign.slug)
    if made.setup == Setup.BUILDING:  # a worker plays it: its progress
        job = prehistory_job(made)
        if job is not None:
            return redirect(f"{reverse('campaigns:new')}?job={job.pk}")
    if made.setup == Setup.READY:
        messages.success(request, f"{made.name} is set up again and open for play.")
    return redirect("pages:dashboard", made.slug)


urlpatterns: list[URLPattern] = [path("<slug:slug>/setup/", setup, name="setup")]
