"""The admin's door to the policy: a staff user keeps the books of the campaigns he is GM of, and
sees and changes nothing of any other (``campaign.permissions.gm_campaigns``); a superuser keeps
all. Every registered model that belongs to a campaign is scoped here once, when the apps are
ready, so a model added to the admin later cannot be left unscoped. What the admin's actions do
goes through the services, which ask the policy who may act (``campaign.permissions.require``)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from campaign.models import Campaign
from campaign.permissions import gm_campaigns


def campaign_path(model: type[Model]) -> str | None:
    """How a model's rows reach their campaign ('pk' for Campaign itself, 'campaign' for most);
    None for models outside any campaign (users, tokens)."""
    if model is Campaign:
        return "pk"
    try:
        field = model._meta.get_field("campaign")
    except FieldDoesNotExist:
        return None
    return "campaign" if field.is_relation else None


def _campaign_of(obj: Any, path: str) -> int | None:
    return obj.pk if path == "pk" else getattr(obj, "campaign_id", None)


def _scope(model_admin: admin.ModelAdmin, path: str) -> None:  # type: ignore[type-arg]
    get_queryset = model_admin.get_queryset
    checks = {
        name: getattr(model_admin, name) for name in ("has_view_permission", "has_change_permission", "has_delete_permission")
    }

    def scoped_queryset(request: HttpRequest) -> QuerySet[Any]:
        queryset = get_queryset(request)
        if getattr(request.user, "is_superuser", False):
            return queryset
        return queryset.filter(**{f"{path}__in": gm_campaigns(request.user).values("pk")})

    def guard(check: Any) -> Any:
        def allowed(request: HttpRequest, obj: Any = None) -> bool:
            if not check(request, obj):
                return False
            if obj is None or getattr(request.user, "is_superuser", False):
                return True
            return gm_campaigns(request.user).filter(pk=_campaign_of(obj, path)).exists()

        return allowed

    model_admin.get_queryset = scoped_queryset  # type: ignore[method-assign]
    # a filter by campaign offers only the campaigns the rows shown belong to (not every campaign's name)
    model_admin.list_filter = [(f, admin.RelatedOnlyFieldListFilter) if f == "campaign" else f for f in model_admin.list_filter]
    for name, check in checks.items():
        setattr(model_admin, name, guard(check))


def scope_admin(site: admin.AdminSite = admin.site) -> list[type[Model]]:
    """Scope every campaign model registered on ``site``; returns the models scoped."""
    scoped = []
    for model, model_admin in site._registry.items():
        path = campaign_path(model)
        if path is not None:
            _scope(model_admin, path)
            scoped.append(model)
    return scoped
