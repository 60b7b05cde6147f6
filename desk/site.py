"""The admin site of the GM's desk (``admin.site``, through ``desk.admin_config``).

The index lists the campaigns whose books the user keeps (``gm_campaigns``: a GM's own, a
superuser's all) to choose the one the lists show; ``choose/<id>/`` keeps that choice (the
campaign menu's "Admin" link lands there) and ``choose/all/`` drops it. Every page's header names
the chosen campaign with a way to switch. The site's plumbing (``choice.PLUMBING``) is listed apart,
under "Site plumbing", and only superusers see it.

Who gets the desk is the policy's (``campaign.permissions.may_use_desk``): every GM of a campaign, and
superusers; ``is_staff`` plays no part. Its login is the site's own (the desk's login page sends there);
a member who is GM of no campaign is told so (403). "View on site" answers for a row of a campaign the
user keeps, and 404 for anything else, whatever its key."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth.views import redirect_to_login
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache

from campaign.permissions import gm_campaigns, may_use_desk
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

    def has_permission(self, request: HttpRequest) -> bool:
        """The desk is every GM's (the policy), not the staff's."""
        return may_use_desk(request.user)

    @method_decorator(never_cache)
    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        """The desk has no login of its own: the site's (its lock-outs, its pages) leads back here; a
        member who is GM of no campaign is told why he has no desk."""
        if self.has_permission(request):
            return HttpResponseRedirect(reverse("admin:index", current_app=self.name))
        if request.user.is_authenticated:
            raise PermissionDenied(
                "The desk is for game masters: you are not the GM of any campaign. Create one from the home page, "
                "or ask your campaign's GM to change what you need."
            )
        target = request.GET.get("next", "")
        if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
            target = reverse("admin:index", current_app=self.name)
        return redirect_to_login(target, settings.LOGIN_URL)

    def get_urls(self) -> list[Any]:
        urls: list[URLPattern] = [
            path("choose/all/", self.admin_view(self.choose_all), name="desk_all"),
            path("choose/<int:pk>/", self.admin_view(self.choose), name="desk_choose"),
        ]
        theirs = [u for u in super().get_urls() if getattr(u, "name", None) != "view_on_site"]
        mine = [path("r/<path:content_type_id>/<path:object_id>/", self.admin_view(self.view_on_site), name="view_on_site")]
        return urls + mine + theirs

    def autocomplete_view(self, request: HttpRequest) -> HttpResponse:
        """A form's choices, from the campaign the desk works on only (``desk.admin.scope``)."""
        from desk.admin.scope import AUTOCOMPLETE

        setattr(request, AUTOCOMPLETE, True)
        return super().autocomplete_view(request)

    def view_on_site(self, request: HttpRequest, content_type_id: str, object_id: str) -> HttpResponse:
        """ "View on site" for a row the user may see at the desk (its admin's view permission, the
        policy's); 404 for any other row, model or malformed key (never a 500, never a redirect that
        would name another campaign's page)."""
        try:
            model = ContentType.objects.get_for_id(int(content_type_id)).model_class()
        except (ValueError, ContentType.DoesNotExist):
            raise Http404("No such record.") from None
        model_admin = self._registry.get(model) if model is not None else None
        if model_admin is None:
            raise Http404("No such record.")
        try:
            obj = model_admin.get_queryset(request).filter(pk=object_id).first()
        except (ValueError, TypeError, ValidationError):
            obj = None
        if obj is None or not model_admin.has_view_permission(request, obj) or not hasattr(obj, "get_absolute_url"):
            raise Http404("No such record, or no page of its own on the site.")
        return HttpResponseRedirect(obj.get_absolute_url())

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
        return super().index(request, context)

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
