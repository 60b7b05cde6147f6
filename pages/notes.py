"""Notes and portraits on the character, dynasty and dashboard pages (issue 20): what the viewer
may read and write, the note's form, the portrait's upload and the image itself.

Thin: the policy (``campaign.permissions``) decides who reads which note and who may write it or
set a portrait; the services (``dynasties.services.notes`` and ``.portraits``) check it again and
write. A note is not a move of the game: it is saved outside the steps' undo (docs/rulings.md)."""

from __future__ import annotations

import mimetypes
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.views.decorators.http import require_GET, require_POST

from campaign.models import Campaign
from campaign.permissions import Forbidden, may_act_for
from dynasties.models import Character, Dynasty, Portrait
from dynasties.notes import notes_shown, subject_house
from dynasties.services.notes import note_write
from dynasties.services.portraits import portrait_remove, portrait_set
from pages.common import member
from rules.errors import RuleError

KINDS = ("character", "dynasty")


def subject_context(
    request: HttpRequest,
    campaign: Campaign,
    role: str,
    mine: int | None,
    *,
    character: Character | None = None,
    dynasty: Dynasty | None = None,
) -> dict[str, Any]:
    """What a page needs to show its subject's notes and portrait (the campaign's: neither given)."""
    kind = "character" if character is not None else "dynasty" if dynasty is not None else "campaign"
    subject = character if character is not None else dynasty
    found: dict[str, Any] = {
        "notes": notes_shown(request.user, campaign, character=character, dynasty=dynasty),
        "note_on": kind,
        "note_id": subject.pk if subject is not None else "",
    }
    if subject is not None:
        found["portrait"] = Portrait.objects.filter(campaign=campaign, character=character, dynasty=dynasty).first()
        found["portrait_kind"] = kind
        found["portrait_id"] = subject.pk
        found["may_set_portrait"] = may_act_for(role, mine, subject_house(character, dynasty))
    return found


def _subject(campaign: Campaign, kind: str, pk: Any) -> tuple[Character | None, Dynasty | None]:
    if kind == "campaign":
        return None, None
    try:
        number = int(pk)
    except (TypeError, ValueError):
        raise Http404("No such page.") from None
    if kind == "character":
        return get_object_or_404(Character, campaign=campaign, pk=number), None
    if kind == "dynasty":
        return None, get_object_or_404(Dynasty, campaign=campaign, pk=number)
    raise Http404("No such page.")


def _back(campaign: Campaign, character: Character | None, dynasty: Dynasty | None) -> str:
    if character is not None:
        return reverse("pages:character", args=[campaign.slug, character.pk]) + "#notes"
    if dynasty is not None:
        return reverse("pages:dynasty", args=[campaign.slug, dynasty.pk]) + "#notes"
    return reverse("pages:dashboard", args=[campaign.slug]) + "#notes"


@require_POST
@login_required
def note_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Saves one note (``on``: character, dynasty or campaign; ``id``; ``audience``; ``text``)."""
    campaign, _role, _mine = member(request, slug)
    character, dynasty = _subject(campaign, request.POST.get("on", ""), request.POST.get("id"))
    try:
        note_write(
            campaign,
            audience=request.POST.get("audience", ""),
            text=request.POST.get("text", ""),
            character=character,
            dynasty=dynasty,
            by=request.user,
        )
    except Forbidden:
        raise  # 403: the page offers the form only to those who may write
    except RuleError as exc:
        messages.error(request, f"The note was not saved: {exc.message}")
    else:
        messages.success(request, "The note is saved.")
    return redirect(_back(campaign, character, dynasty))


@require_POST
@login_required
def portrait_upload(request: HttpRequest, slug: str, kind: str, pk: int) -> HttpResponse:
    """Sets the character's portrait or the dynasty's arms (``image``), or takes it away (``remove``)."""
    campaign, _role, _mine = member(request, slug)
    if kind not in KINDS:
        raise Http404("No such page.")
    character, dynasty = _subject(campaign, kind, pk)
    what = "portrait" if character is not None else "coat of arms"
    try:
        if request.POST.get("remove"):
            portrait_remove(campaign, character=character, dynasty=dynasty, by=request.user)
            messages.success(request, f"The {what} is taken away.")
        else:
            upload = request.FILES.get("image")
            if upload is None:
                raise RuleError("Choose an image file first (PNG, JPEG, GIF or WebP).")
            portrait_set(campaign, upload, character=character, dynasty=dynasty, by=request.user)
            messages.success(request, f"The {what} is saved.")
    except Forbidden:
        raise
    except RuleError as exc:
        messages.error(request, f"The {what} was not saved: {exc.message}")
    return redirect(_back(campaign, character, dynasty).replace("#notes", ""))


@require_GET
@login_required
def portrait(request: HttpRequest, slug: str, kind: str, pk: int) -> HttpResponseBase:
    """The image itself, to the campaign's members (portraits are public to them, as the family is)."""
    campaign, _role, _mine = member(request, slug)
    if kind not in KINDS:
        raise Http404("No such page.")
    character, dynasty = _subject(campaign, kind, pk)
    found = Portrait.objects.filter(campaign=campaign, character=character, dynasty=dynasty).first()
    if found is None or not default_storage.exists(found.name):
        raise Http404("No portrait.")
    response = FileResponse(default_storage.open(found.name, "rb"), content_type=mimetypes.guess_type(found.name)[0])
    response["Cache-Control"] = "private, max-age=86400"  # a new image has a new ?v=
    return response


urlpatterns = [
    path("<slug:slug>/notes/", note_save, name="note_save"),
    path("<slug:slug>/portrait/<str:kind>/<int:pk>/", portrait, name="portrait"),
    path("<slug:slug>/portrait/<str:kind>/<int:pk>/upload/", portrait_upload, name="portrait_upload"),
]
