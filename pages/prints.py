"""The printables' door: PDF views of character sheets (one, a dynasty's, the campaign's) and a turn's
announcements. Who may print what follows ``campaign.permissions.role_of``:

- a sheet or a dynasty's sheets: the GM, or the player of the dynasty that controls them;
- the campaign's sheets and their background job (``print_jobs``, its PDF in the storage): the GM;
- a turn's announcements (public parts only): any member of the campaign;
- the EU monarch tables' monarch cards (what the crown page shows every member): any member.

Anyone else gets 404, the answer a made-up campaign, character, dynasty or job gets, so nobody
learns what exists (issue 14). Being staff is not being the GM: a staff user who is neither the
campaign's GM nor a superuser prints what his membership allows, if any.

``?two_up=1`` prints two sheets per A4 page (landscape). Mounted at ``print/`` (namespace ``print``)
by ``config/urls.py``; the PDFs and the background batches are ``dynasties.printing`` and
``dynasties.print_jobs``'s."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path

from campaign.doors import member
from campaign.jobs import job_check
from campaign.models import Campaign, JobState
from campaign.permissions import prints_the_campaign
from dynasties import print_jobs, printing
from dynasties.models import Character, Crown, Dynasty
from dynasties.printing import may_print_dynasty
from dynasties.services.play_registry import plays

NOT_YOURS = "No such {}, or not yours to print."


def _pdf(content: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


def _campaign_for(request: HttpRequest, slug: str, *, gm_only: bool) -> Campaign:
    """The campaign if the user is a member (its GM, with ``gm_only``); else 404, as for no campaign."""
    campaign, role, _ = member(request, slug, missing=NOT_YOURS.format("campaign"))
    if gm_only and not prints_the_campaign(role):
        raise Http404(NOT_YOURS.format("campaign"))
    return campaign


def _two_up(request: HttpRequest) -> bool:
    return request.GET.get("two_up", "") not in ("", "0", "false", "no")


@login_required
def character_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    character = Character.objects.select_related("campaign", "controlled_by", "father", "mother").filter(pk=pk).first()
    if character is None or not may_print_dynasty(request.user, character.controlled_by, character.campaign):
        raise Http404(NOT_YOURS.format("character sheet"))
    return _pdf(printing.character_sheet_pdf(character), f"sheet-{character.pk}.pdf")


@login_required
def dynasty_sheets(request: HttpRequest, pk: int) -> HttpResponse:
    dynasty = Dynasty.objects.select_related("campaign").filter(pk=pk).first()
    if dynasty is None or not may_print_dynasty(request.user, dynasty, dynasty.campaign):
        raise Http404(NOT_YOURS.format("dynasty"))
    characters = printing.dynasty_characters(dynasty)
    if not characters:
        return HttpResponse("This dynasty controls no character.", status=404, content_type="text/plain")
    return _pdf(printing.sheets_pdf(characters, _two_up(request), dynasty.campaign), f"sheets-{dynasty.name}.pdf")


@login_required
def campaign_sheets(request: HttpRequest, slug: str) -> HttpResponse:
    """Small campaigns print at once; a large batch renders in the background with a ready link."""
    campaign = _campaign_for(request, slug, gm_only=True)
    total = len(printing.campaign_characters(campaign))
    if total > print_jobs.INLINE_LIMIT:
        job = print_jobs.start(campaign, _two_up(request), total, by=request.user)
        return redirect("print:job", slug=campaign.slug, token=job.pk)
    return _pdf(printing.campaign_sheets_pdf(campaign, _two_up(request)), f"sheets-{campaign.slug}.pdf")


@login_required
def job(request: HttpRequest, slug: str, token: str) -> HttpResponse:
    """The background batch's page: it refreshes itself until the PDF is ready, then links to it;
    a failed batch says why."""
    campaign = _campaign_for(request, slug, gm_only=True)
    job = print_jobs.find(campaign, token)
    if job is None:
        raise Http404("No such print job.")
    job = job_check(job)  # a lost one says so
    if request.GET.get("download") and job.state == JobState.DONE:
        return _pdf(print_jobs.pdf(job), f"sheets-{campaign.slug}.pdf")
    return render(request, "print/job.html", {"campaign": campaign, "job": job})


@login_required
def announcements(request: HttpRequest, slug: str, year: int) -> HttpResponse:
    campaign = _campaign_for(request, slug, gm_only=False)
    if not campaign.start_year <= year <= campaign.current_year:
        raise Http404(f"No announcements for {year}: the campaign runs from {campaign.start_year} to {campaign.current_year}.")
    return _pdf(printing.announcements_pdf(campaign, year), f"announcements-{campaign.slug}-{year}.pdf")


def _eu_campaign(request: HttpRequest, slug: str) -> Campaign:
    campaign = _campaign_for(request, slug, gm_only=False)
    if not plays(campaign, "monarchs"):
        raise Http404("Monarch cards belong to campaigns of the EU monarch tables.")
    return campaign


@login_required
def monarch_cards(request: HttpRequest, slug: str) -> HttpResponse:
    """A card for each crown's monarch: his values as they count this turn, his reign, his standing."""
    campaign = _eu_campaign(request, slug)
    return _pdf(printing.monarch_cards_pdf(campaign), f"monarchs-{campaign.slug}-{campaign.current_year}.pdf")


@login_required
def monarch_card(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    campaign = _eu_campaign(request, slug)
    crown = Crown.objects.filter(campaign=campaign, name=name).first()
    if crown is None:
        raise Http404("No such crown in this campaign.")
    return _pdf(printing.monarch_cards_pdf(campaign, [crown]), f"monarch-{campaign.slug}-{crown.pk}.pdf")


urlpatterns: list[URLPattern] = [
    path("sheet/<int:pk>.pdf", character_sheet, name="character_sheet"),
    path("dynasty/<int:pk>/sheets.pdf", dynasty_sheets, name="dynasty_sheets"),
    path("campaign/<slug:slug>/sheets.pdf", campaign_sheets, name="campaign_sheets"),
    path("campaign/<slug:slug>/announcements/<int:year>.pdf", announcements, name="announcements"),
    path("campaign/<slug:slug>/jobs/<str:token>/", job, name="job"),
    path("campaign/<slug:slug>/monarch-cards.pdf", monarch_cards, name="monarch_cards"),
    path("campaign/<slug:slug>/crown/<str:name>/monarch-card.pdf", monarch_card, name="monarch_card"),
]
