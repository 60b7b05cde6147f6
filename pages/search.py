"""Pages: the search box of every campaign page, and its results (``operations.search``, which
asks the policy what the viewer may find). A plain GET form: it works without JavaScript."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.views.decorators.http import require_GET

from operations.search import KINDS, PER_KIND, PER_PAGE, search
from pages.common import context, member

MAX_PAGE = 1000


def _page(value: str | None) -> int:
    """The page asked for, from 1 to :data:`MAX_PAGE` (anything else: the first)."""
    try:
        return min(max(1, int(value or "1")), MAX_PAGE)
    except ValueError:
        return 1


@require_GET
@login_required
def search_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, role, mine = member(request, slug)
    results = search(
        campaign,
        request.user,
        request.GET.get("q", ""),
        kind=request.GET.get("kind", ""),
        page=_page(request.GET.get("page")),
    )
    return render(
        request,
        "pages/search.html",
        context(
            campaign,
            role,
            mine,
            results=results,
            q=results.query,
            kinds=KINDS,
            per_kind=PER_KIND,
            per_page=PER_PAGE,
            searching=True,  # the page has its own box: the menu leaves out its
        ),
    )


urlpatterns: list[URLPattern] = [path("<slug:slug>/search/", search_view, name="search")]
