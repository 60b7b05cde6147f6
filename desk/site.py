"""The admin site of the GM's desk (``admin.site``, through ``desk.admin_config``).

The index lists the campaigns whose books the user keeps (``gm_campaigns``: a GM's own, a
superuser's all) to choose the one the lists show; ``choose/<id>/`` keeps that choice (the
campaign menu's "Admin" link lands there) and ``choose/all/`` drops it. Every page's header names
the chosen campaign with a way to switch. The site's plumbing (``choice.PLUMBING``) is listed apart,
under "Site plumbing", and only superusers see it."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme

from campaign.permissions import gm_campaigns
from desk.choice import PLUMBING, choose_campaign, chosen_campaign


def split_plumbing(app_list: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The index's apps as (the game's, the site plumbing's), each app keeping its own models."""
    game, plumbing = [], []
    for app in app_list:
        ours = [m for m in app["models"] if m["model"]._meta.label_lower not in PLUMBING]
        theirs = [m for m in app["models"] if m["model"]._meta.label_lower in PLUMBING]
        if ours:
            game.append({**app, "models": ours})
        if theirs:
            plumbing.append({**app, "models": theirs})
    return game, plumbing


class DeskSite(admin.AdminSite):
    site_header = "Regnal: the GM's desk"
    site_title = "Regnal admin"
    index_title = "The GM's desk"
    index_template = "admin/desk/index.html"
    enable_nav_sidebar = False  # the lists get the whole width of a laptop (the index and breadcrumbs lead back)

    def get_urls(self) -> list[Any]:
        urls: list[URLPattern] = [
            path("choose/all/", self.admin_view(self.choose_all), name="desk_all"),
            path("choose/<int:pk>/", self.admin_view(self.choose), name="desk_choose"),
        ]
        return urls + super().get_urls()

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        return {**super().each_context(request), "desk_campaign": chosen_campaign(request)}

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        game, plumbing = split_plumbing(self.get_app_list(request))
        context = {
            "app_list": game,
            "plumbing_list": plumbing,
            "desk_campaigns": gm_campaigns(request.user).order_by("name"),
            **(extra_context or {}),
        }
        return super().index(request, context)  # type: ignore[no-any-return]

    def choose(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Work on campaign ``pk`` (one the user keeps the books of) and go on to ``next``."""
        campaign = gm_campaigns(request.user).filter(pk=pk).first()
        if campaign is None:
            messages.error(request, "You are not the game master of that campaign: choose one of yours below.")
            return HttpResponseRedirect(reverse("admin:index", current_app=self.name))
        choose_campaign(request, campaign)
        return self._next(request)

    def choose_all(self, request: HttpRequest) -> HttpResponse:
        """Show the rows of every campaign the user keeps the books of again."""
        choose_campaign(request, None)
        return self._next(request)

    def _next(self, request: HttpRequest) -> HttpResponse:
        target = request.GET.get("next", "")
        if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
            target = reverse("admin:index", current_app=self.name)
        return HttpResponseRedirect(target)
