"""The admin's door to the policy: a GM keeps the books of the campaigns he is GM of, and sees and
changes nothing of any other (``campaign.permissions.gm_campaigns``, ``keeps_books``); a superuser
keeps all. Every registered model that belongs to a campaign is scoped here once, when the apps are
ready, so a model added to the admin later cannot be left unscoped; its admin must be a
``desk.admin.base.DeskAdmin`` (the policy's permissions, its forms' choices kept to one campaign), or
the site refuses to start. What the admin's actions do
goes through the services, which ask the policy who may act (``campaign.permissions.require``).

Every save the desk makes to a campaign (a change, an addition, a deletion, an action or a list
edit) is a change set of its own (``campaign.undo.change_set``): it shows in the undo history and
undo takes it back before the step it followed. A list action or list edit touches one campaign's
rows at a time; creating or deleting a whole campaign is not a change set (nothing to go back to).

A GM works on one campaign at a time: the one he chose (``chosen_campaign``, kept in the session)
is the only one whose rows the lists show (without a campaign column) and the autocomplete offers,
and the one a new row is added to. The site's
plumbing (``PLUMBING``: login lock-outs, action keys, undo checkpoints, jobs, API tokens) is for
superusers only."""

from __future__ import annotations

from types import MethodType
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from campaign.models import Campaign
from campaign.permissions import gm_campaigns, keeps_books
from campaign.undo import change_set
from desk.admin.base import DeskAdmin, DeskInline, form_campaign
from desk.choice import PLUMBING, chosen_campaign

AUTOCOMPLETE = "_desk_autocomplete"
"""The request's flag: an autocomplete's answer (``desk.site.DeskSite.autocomplete_view``), which
offers the chosen campaign's rows only."""


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

    get_changelist_instance, get_list_display = model_admin.get_changelist_instance, model_admin.get_list_display

    def scoped_queryset(request: HttpRequest) -> QuerySet[Any]:
        queryset = get_queryset(request)
        if not getattr(request.user, "is_superuser", False):
            queryset = queryset.filter(**{f"{path}__in": gm_campaigns(request.user).values("pk")})
        if getattr(request, AUTOCOMPLETE, False):  # a form's choices: the campaign being kept, or none
            chosen = chosen_campaign(request)
            return queryset.none() if chosen is None else queryset.filter(**{path: chosen.pk})
        chosen = chosen_campaign(request) if path != "pk" and getattr(request, _LISTING, False) else None
        return queryset if chosen is None else queryset.filter(**{path: chosen.pk})

    def listing(request: HttpRequest) -> Any:
        """A list (and its actions, which act on the list's rows) shows the chosen campaign's rows."""
        setattr(request, _LISTING, True)
        return get_changelist_instance(request)

    def list_display(self: Any, request: HttpRequest) -> Any:
        """One campaign's list needs no campaign column (its filter stays: a saved link may use it)."""
        fields = get_list_display(request)
        return fields if path == "pk" or chosen_campaign(request) is None else [f for f in fields if f != "campaign"]

    def guard(check: Any) -> Any:
        def allowed(request: HttpRequest, obj: Any = None) -> bool:
            if not check(request, obj):
                return False
            if obj is None:
                return True
            return keeps_books(request.user, _campaign_of(obj, path))

        return allowed

    model_admin.get_queryset = scoped_queryset  # type: ignore[method-assign]
    model_admin.get_changelist_instance = listing  # type: ignore[method-assign]
    model_admin.get_list_display = MethodType(list_display, model_admin)  # type: ignore[method-assign]  # a method: the checks read its __func__
    _record(model_admin, path)
    # a filter by campaign offers only the campaigns the rows shown belong to (not every campaign's name)
    model_admin.list_filter = [  # type: ignore[misc]  # a ClassVar in the stubs; Django reads the instance's
        (f, admin.RelatedOnlyFieldListFilter) if f == "campaign" else f for f in model_admin.list_filter
    ]
    for name, check in checks.items():
        setattr(model_admin, name, guard(check))


def _record(model_admin: admin.ModelAdmin, path: str) -> None:  # type: ignore[type-arg]
    """Wrap the admin's writing views so that each POST is one change set of the row's campaign."""
    model = model_admin.model
    name = str(model._meta.verbose_name)
    base = model._base_manager

    def campaign_of(object_id: str | None, request: HttpRequest) -> int | None:
        if object_id is None:  # an addition: the campaign the desk adds to (a new campaign has none)
            return None if path == "pk" else form_campaign(request)
        if path == "pk":
            return int(object_id) if str(object_id).isdigit() else None
        return base.filter(pk=object_id).values_list(f"{path}_id", flat=True).first()  # type: ignore[no-any-return]

    def label(verb: str, object_id: str | None) -> str:
        return f"Desk: {verb} {name}" + (f" #{object_id}" if object_id else "")

    changeform_view, delete_view, changelist_view = (
        model_admin.changeform_view,
        model_admin.delete_view,
        model_admin.changelist_view,
    )

    def recorded_changeform(request: HttpRequest, object_id: str | None = None, *args: Any, **kwargs: Any) -> HttpResponse:
        campaign = campaign_of(object_id, request) if request.method == "POST" else None
        if campaign is None or not keeps_books(request.user, campaign):  # nothing of his to record: the view refuses
            return changeform_view(request, object_id, *args, **kwargs)
        with change_set(campaign, label=label("changed" if object_id else "added", object_id), by=request.user):
            return changeform_view(request, object_id, *args, **kwargs)

    def recorded_delete(request: HttpRequest, object_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        campaign = campaign_of(object_id, request) if request.method == "POST" and path != "pk" else None
        if campaign is None or not keeps_books(request.user, campaign):  # a whole campaign deleted, or not his: the view decides
            return delete_view(request, object_id, *args, **kwargs)
        with change_set(campaign, label=label("deleted", object_id), by=request.user):
            return delete_view(request, object_id, *args, **kwargs)

    def recorded_changelist(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "POST":
            return changelist_view(request, *args, **kwargs)
        ids = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)  # an action's rows
        ids += [
            v for k, v in request.POST.items() if k.startswith("form-") and k.endswith("-id") and isinstance(v, str)
        ]  # a list edit's
        lookup = "pk" if path == "pk" else f"{path}_id"
        campaigns = set(base.filter(pk__in=[i for i in ids if i.isdigit()]).values_list(lookup, flat=True))
        if len(campaigns) > 1:
            messages.error(request, "Choose rows of one campaign at a time: each campaign's undo history records its own.")
            return HttpResponseRedirect(request.get_full_path())
        if not campaigns or (path == "pk" and request.POST.get("action") == "delete_selected"):
            return changelist_view(request, *args, **kwargs)
        (campaign,) = campaigns
        if not keeps_books(request.user, campaign):  # not his rows: the list (scoped) finds none of them
            return changelist_view(request, *args, **kwargs)
        verb = f"ran “{request.POST.get('action')}” on" if "action" in request.POST else "edited the list of"
        with change_set(campaign, label=label(verb, None), by=request.user):
            return changelist_view(request, *args, **kwargs)

    model_admin.changeform_view = recorded_changeform  # type: ignore[method-assign]
    model_admin.delete_view = recorded_delete  # type: ignore[method-assign]
    model_admin.changelist_view = recorded_changelist  # type: ignore[method-assign]


_LISTING = "_desk_listing"


def _superusers_only(model_admin: admin.ModelAdmin) -> None:  # type: ignore[type-arg]
    for name in (
        "has_module_permission",
        "has_view_permission",
        "has_add_permission",
        "has_change_permission",
        "has_delete_permission",
    ):
        check = getattr(model_admin, name)

        def allowed(request: HttpRequest, *args: Any, check: Any = check, **kwargs: Any) -> bool:
            return bool(getattr(request.user, "is_superuser", False) and check(request, *args, **kwargs))

        setattr(model_admin, name, allowed)


def keep_plumbing(site: admin.AdminSite = admin.site) -> list[type[Model]]:
    """Make the site's plumbing (``PLUMBING``) superusers only; returns the models concerned."""
    kept = [model for model in site._registry if model._meta.label_lower in PLUMBING]
    for model in kept:
        _superusers_only(site._registry[model])
    return kept


def scope_admin(site: admin.AdminSite = admin.site) -> list[type[Model]]:
    """Scope every campaign model registered on ``site``; returns the models scoped. A campaign
    model's admin that is not a ``DeskAdmin`` stops the site: its forms would offer other campaigns'
    rows and its permissions would be Django's, not the policy's."""
    scoped = []
    for model, model_admin in site._registry.items():
        path = campaign_path(model)
        if path is not None:
            if not isinstance(model_admin, DeskAdmin):
                raise ImproperlyConfigured(
                    f"The desk's admin of {model._meta.label} must derive from desk.admin.base.DeskAdmin "
                    "(the policy's permissions, its forms' choices kept to one campaign)."
                )
            for inline in model_admin.inlines:
                if not issubclass(inline, DeskInline):
                    raise ImproperlyConfigured(f"The desk's inline {inline.__name__} must derive from desk.admin.base.DeskInline")
            _scope(model_admin, path)
            scoped.append(model)
    return scoped
