"""The trees' door: the tree view, for the members of the campaign (the GM, players, observers); the dynasty page
embeds it.

GET /trees/<campaign slug>/<kind>/?format=svg&focus=12&generations=3&dynasty=4&crown=England&limit=10&links=pages
GET /trees/<campaign slug>/<kind>/?format=pdf&paper=a4&orientation=portrait   (paper: a4, a3, letter, auto)

A tree shows only what every member may see (characters, marriages, reigns, regencies, titles,
captivity: RULES.md E7, the family record is public), so membership is the whole test
(``campaign.doors.member`` asks ``campaign.permissions.role_of``); a non-member (a staff user too, unless he is a superuser)
gets 404 whatever he asks, as for a made-up campaign; an anonymous visitor the login page, as
everywhere. The parameters' bounds are :meth:`~dynasties.trees.render.TreeRequest.checked`'s
(the API's too): out of bounds is a 400 saying what to write.
The people in an SVG link to their character pages (``links=pages``, the default for players and
observers) or, for the GM, to the admin (``links=admin``, his default, as the admin's links expect).

A tree of more than ``settings.TREE_INLINE_PEOPLE`` people that is not in the cache is drawn by the
task queue (:mod:`dynasties.trees.jobs`): the answer is a redirect to the job's page, which
refreshes itself until the render is ready, then serves it (members of the campaign only, as here).

GET /trees/<campaign slug>/jobs/<job id>/

Mounted at ``trees/`` (namespace ``trees``) by ``config/urls.py``; the tree's data, DOT, render,
cache and jobs are ``dynasties.trees``'s.
"""

from __future__ import annotations

from csp.constants import SELF
from csp.decorators import csp_replace
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET

from campaign.doors import member
from campaign.jobs import job_check
from campaign.models import Campaign, JobState
from campaign.permissions import links_to_the_desk
from dynasties.trees import jobs
from dynasties.trees.data import KINDS, TreeError
from dynasties.trees.dot import ADMIN_URL
from dynasties.trees.render import FORMATS, TreeRequest, cached_tree, pages_url, render_tree, tree_people

LINKS = ("pages", "admin")


def _int(request: HttpRequest, name: str) -> int | None:
    value = request.GET.get(name) or None
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise TreeError(f"{name} must be a whole number, not {value!r}.") from None


@require_GET
@login_required
@xframe_options_sameorigin  # the dynasty page shows the SVG in an <object>
# ... and so may this site (only), CSP's word for the same; django-csp types a view as taking the request alone
@csp_replace({"frame-ancestors": [SELF]})  # type: ignore[arg-type]
def tree(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    campaign, role, _ = member(request, slug)
    if kind not in KINDS:
        raise Http404(f"No tree of kind {kind!r}.")
    fmt = request.GET.get("format", "svg")
    if fmt not in FORMATS:
        return HttpResponseBadRequest(f"Unknown format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    links = request.GET.get("links") or None
    if links is not None and links not in LINKS:
        return HttpResponseBadRequest(f"Unknown links {links!r}; choose one of {', '.join(LINKS)}.")
    admin_links = links_to_the_desk(role) and links != "pages"
    try:
        wanted = TreeRequest(
            kind=kind,
            dynasty=_int(request, "dynasty"),
            focus=_int(request, "focus"),
            generations=_int(request, "generations"),
            crown=request.GET.get("crown") or None,
            limit=_int(request, "limit"),
            fmt=fmt,
            url=ADMIN_URL if admin_links else pages_url(campaign),
            paper=request.GET.get("paper") or "auto",  # a4, a3, letter or auto (any case): checked() says what else
            orientation=request.GET.get("orientation") or "landscape",
        ).checked()
        result = cached_tree(campaign, wanted)
        if result is None and tree_people(campaign, wanted, over=jobs.inline_people()) > jobs.inline_people():
            job = jobs.start(campaign, wanted, request.get_full_path(), by=request.user)
            return redirect("trees:job", slug=campaign.slug, token=job.pk)
        if result is None:
            result = render_tree(campaign, wanted)
    except TreeError as exc:
        return HttpResponseBadRequest(str(exc))
    return _served(result.content, result.content_type, campaign, kind, fmt, cached=result.cached)


def _served(content: bytes, content_type: str, campaign: Campaign, kind: str, fmt: str, *, cached: bool) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    if fmt in ("png", "pdf"):
        response["Content-Disposition"] = f'inline; filename="{campaign.slug}-{kind}.{fmt}"'
    response["X-Tree-Cache"] = "hit" if cached else "miss"
    return response


@require_GET
@login_required
@xframe_options_sameorigin  # followed inside the dynasty page's <object> too
@csp_replace({"frame-ancestors": [SELF]})  # type: ignore[arg-type]  # django-csp: a view taking the request alone
def job(request: HttpRequest, slug: str, token: str) -> HttpResponse:
    """A large tree being drawn: the page refreshes itself until the render is ready, then is the
    render; a failed one says why. Its file gone since (evicted): the tree is asked again."""
    campaign, _, _ = member(request, slug)
    found = jobs.find(campaign, token)
    if found is None:
        raise Http404("No such tree being drawn.")
    found = job_check(found)  # a lost one says so
    if found.state == JobState.DONE:
        ready = jobs.rendered(found)
        if ready is None:
            return redirect(found.params["path"])
        wanted = found.params["request"]
        return _served(ready[0], ready[1], campaign, wanted["kind"], wanted["fmt"], cached=True)
    return render(request, "trees/job.html", {"campaign": campaign, "job": found})


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/jobs/<str:token>/", job, name="job"),
    path("<slug:slug>/<str:kind>/", tree, name="tree"),
]
