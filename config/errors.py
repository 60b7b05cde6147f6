"""The site's error pages (``handler403``, ``handler404``, ``handler500`` and the CSRF failure view):
styled like the rest of the site, saying what happened in plain words, with a way back (to the
campaign the address belongs to when the visitor may see it, and to his campaigns). Under ``/api/``
they answer the API's JSON error shape instead (``{"code", "message", "fields"}``). A write to a
campaign not open for play, or any domain error, that a door let through is answered as every door
answers it (``RefusalMiddleware``, ``campaign.doors.refusal``)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template import loader
from django.urls import NoReverseMatch, reverse

from campaign.building import NotOpen
from campaign.doors import refusal
from campaign.models import Campaign
from campaign.permissions import can_view
from rules.errors import RuleError

CAMPAIGN_PATH = re.compile(r"^/c/(?P<slug>[-\w]+)/")


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _json(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse({"code": code, "message": message, "fields": {}}, status=status)


def _campaign_back(request: HttpRequest) -> dict[str, str] | None:
    """A link to the dashboard of the campaign the address is under, if the visitor may see it."""
    match = CAMPAIGN_PATH.match(request.path)
    if match is None:
        return None
    campaign = Campaign.objects.filter(slug=match["slug"]).first()
    if campaign is None or not can_view(getattr(request, "user", None), campaign):
        return None
    try:
        url = reverse("pages:dashboard", args=[campaign.slug])
    except NoReverseMatch:  # pragma: no cover - the dashboard's route is the site's own
        return None
    return {"url": url, "label": f"Back to {campaign.name}"}


def _page(request: HttpRequest, template: str, status: int, **context: Any) -> HttpResponse:
    return render(request, template, {"back": _campaign_back(request), **context}, status=status)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return _json("not_found", f"There is nothing at {request.path} in the API (see /api/v1/docs/).", 404)
    return _page(request, "404.html", 404)


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return _json("permission_denied", "You may not do this.", 403)
    reason = str(exception) if exception is not None and str(exception) else ""
    return _page(request, "403.html", 403, reason=reason)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without a valid security token (a page left open across a log-out, or cookies
    blocked): 403, saying to reload the page and send the form again."""
    return _page(request, "403_csrf.html", 403, reason=reason)


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 page is rendered without the request (its context processors may be what failed)."""
    if _api(request):
        return _json("server_error", "The server met an unexpected error; nothing was saved. Try again.", 500)
    return HttpResponse(loader.get_template("500.html").render({}), status=500)


class RefusalMiddleware:
    """A domain error (``rules.errors.RuleError``) that a door let through answers what every door
    answers it (``campaign.doors.refusal``: its status, code, message and fields), not a server
    error; nothing was written (its transaction was rolled back). Under ``/api/`` (a view outside REST
    framework's, whose own errors ``api.exceptions`` answers the same way) the API's error body. A
    page, a tree, a printable, the GEDCOM export: a 404 is the page above (saying nothing of what
    exists), any other status the refusal's page saying what to fix; a write to a campaign not open
    for play (``campaign.building.NotOpen``) goes back where it was (a form) or to the campaign, with
    the message. The policy's ``Forbidden`` is Django's ``PermissionDenied`` too: ``handler403``."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)  # type: ignore[no-any-return]

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, RuleError):
            return None
        refused = refusal(exception)
        assert refused is not None  # every RuleError has its answer
        if _api(request):
            return JsonResponse(
                {"code": refused.code, "message": refused.message, "fields": refused.fields}, status=refused.status
            )
        if isinstance(exception, PermissionDenied):
            return None  # handler403, as any PermissionDenied
        if isinstance(exception, NotOpen):
            messages.error(request, exception.message)
            if request.method == "POST":
                return redirect(request.get_full_path())  # the form again, as it was before the refused save
            back = _campaign_back(request)
            return redirect(back["url"] if back else reverse("home"))
        if refused.status == 404:
            return _page(request, "404.html", 404)
        return _page(request, "refused.html", refused.status, reason=refused.message, fields=refused.fields)
