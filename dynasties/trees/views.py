"""The tree view: GM (or superuser) only, for now; the pages issue will embed the same renders.

GET /trees/<campaign slug>/<kind>/?format=svg&focus=12&generations=3&dynasty=4&crown=England&limit=10
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404

from campaign.models import Campaign, Role
from campaign.permissions import role_of
from dynasties.trees.data import KINDS, TreeError
from dynasties.trees.dot import ADMIN_URL
from dynasties.trees.render import FORMATS, TreeRequest, render_tree


def _int(request: HttpRequest, name: str) -> int | None:
    value = request.GET.get(name) or None
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise TreeError(f"{name} must be a whole number, not {value!r}.") from None


def tree(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    role, _ = role_of(request.user, campaign)
    if role != Role.GM:
        raise PermissionDenied("Only the campaign's GM may see its trees for now.")
    if kind not in KINDS:
        raise Http404(f"No tree of kind {kind!r}.")
    fmt = request.GET.get("format", "svg")
    if fmt not in FORMATS:
        return HttpResponseBadRequest(f"Unknown format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    try:
        wanted = TreeRequest(
            kind=kind,
            dynasty=_int(request, "dynasty"),
            focus=_int(request, "focus"),
            generations=_int(request, "generations"),
            crown=request.GET.get("crown") or None,
            limit=_int(request, "limit") or 10,
            fmt=fmt,
            url=ADMIN_URL,
            paper=request.GET.get("paper", "auto"),
        )
        result = render_tree(campaign, wanted)
    except TreeError as exc:
        return HttpResponseBadRequest(str(exc))
    response = HttpResponse(result.content, content_type=result.content_type)
    if fmt in ("png", "pdf"):
        response["Content-Disposition"] = f'inline; filename="{campaign.slug}-{kind}.{fmt}"'
    response["X-Tree-Cache"] = "hit" if result.cached else "miss"
    response["Cache-Control"] = "private, no-cache"
    return response
