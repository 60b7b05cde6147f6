"""PDF views of the printables: character sheets (one, a dynasty's, the campaign's) and a turn's
announcements. Who may print what follows ``campaign.permissions``:

- a sheet or a dynasty's sheets: the GM (or staff), or the player of the dynasty that controls them;
- the campaign's sheets: the GM (or staff);
- a turn's announcements (public parts only): any member of the campaign.

``?two_up=1`` prints two sheets per A4 page (landscape)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from campaign.models import Campaign, Role
from campaign.permissions import can_view, role_of
from dynasties import print_jobs, printing
from dynasties.models import Character, Dynasty


def _pdf(content: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


def _is_gm(user: Any, campaign: Campaign) -> bool:
    role, _ = role_of(user, campaign)
    return role == Role.GM or bool(getattr(user, "is_staff", False))


def may_print_dynasty(user: Any, dynasty: Dynasty | None, campaign: Campaign) -> bool:
    if _is_gm(user, campaign):
        return True
    role, mine = role_of(user, campaign)
    return role == Role.PLAYER and dynasty is not None and mine == dynasty.pk


def _two_up(request: HttpRequest) -> bool:
    return request.GET.get("two_up", "") not in ("", "0", "false", "no")


@login_required
def character_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    character = get_object_or_404(Character.objects.select_related("campaign", "controlled_by", "father", "mother"), pk=pk)
    if not may_print_dynasty(request.user, character.controlled_by, character.campaign):
        raise PermissionDenied("Only the GM or the player of this character's dynasty prints this sheet.")
    return _pdf(printing.character_sheet_pdf(character), f"sheet-{character.pk}.pdf")


@login_required
def dynasty_sheets(request: HttpRequest, pk: int) -> HttpResponse:
    dynasty = get_object_or_404(Dynasty.objects.select_related("campaign"), pk=pk)
    if not may_print_dynasty(request.user, dynasty, dynasty.campaign):
        raise PermissionDenied("Only the GM or the player of this dynasty prints its sheets.")
    characters = printing.dynasty_characters(dynasty)
    if not characters:
        return HttpResponse("This dynasty controls no character.", status=404, content_type="text/plain")
    return _pdf(printing.sheets_pdf(characters, _two_up(request), dynasty.campaign), f"sheets-{dynasty.name}.pdf")


@login_required
def campaign_sheets(request: HttpRequest, slug: str) -> HttpResponse:
    """Small campaigns print at once; a large batch renders in the background with a ready link."""
    campaign = get_object_or_404(Campaign, slug=slug)
    if not _is_gm(request.user, campaign):
        raise PermissionDenied("Only the GM prints every sheet of the campaign.")
    total = len(printing.campaign_characters(campaign))
    if total > print_jobs.INLINE_LIMIT:
        token = print_jobs.start(campaign.pk, _two_up(request), total)
        return redirect("print:job", slug=campaign.slug, token=token)
    return _pdf(printing.campaign_sheets_pdf(campaign, _two_up(request)), f"sheets-{campaign.slug}.pdf")


@login_required
def job(request: HttpRequest, slug: str, token: str) -> HttpResponse:
    """The background batch's page: it refreshes itself until the PDF is ready, then links to it."""
    campaign = get_object_or_404(Campaign, slug=slug)
    if not _is_gm(request.user, campaign):
        raise PermissionDenied("Only the GM prints every sheet of the campaign.")
    state = print_jobs.status(token) if token.isalnum() else None
    if state is None or state.get("campaign") != campaign.pk:
        raise Http404("No such print job.")
    if request.GET.get("download") and state["state"] == "done":
        return _pdf(print_jobs.pdf_path(token).read_bytes(), f"sheets-{campaign.slug}.pdf")
    return render(request, "print/job.html", {"campaign": campaign, "state": state, "token": token})


@login_required
def announcements(request: HttpRequest, slug: str, year: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    if not (can_view(request.user, campaign) or _is_gm(request.user, campaign)):
        raise PermissionDenied("Only members of the campaign read its announcements.")
    return _pdf(printing.announcements_pdf(campaign, year), f"announcements-{campaign.slug}-{year}.pdf")
