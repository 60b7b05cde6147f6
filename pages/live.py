"""The live table: the poll open pages ask (``/c/<slug>/live/?v=<n>``) and the table screen.

A page that follows the table carries ``data-live`` and ``data-version`` on its ``<main>``
(``pages.templatetags.live``); ``regnal-live.js`` asks the poll every 700 ms and, when the campaign
moved on, asks the page's own address again and puts the new ``<main>`` in place: the page is
rebuilt by its own view under the same policy, so a viewer receives only what he may see."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, path
from django.views.decorators.http import require_GET

from campaign.live import member_version


@require_GET
def poll(request: HttpRequest, slug: str) -> HttpResponse:
    """204 while the campaign's live version is still ``v``, else 200 ``{"version": m}``: one
    query after the session's, no session written. 404 for anyone who is not a member."""
    version = member_version(request.user, slug)
    if version is None:
        raise Http404("No such campaign.")
    answer = HttpResponse(status=204) if request.GET.get("v") == str(version) else JsonResponse({"version": version})
    answer["Cache-Control"] = "no-store"
    return answer


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/live/", poll, name="live"),
]
