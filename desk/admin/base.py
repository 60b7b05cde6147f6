"""What every list and form of the desk is made of: the policy decides who uses them, and every choice
a form offers belongs to the campaign being kept.

- **Who.** :class:`DeskAdmin` and :class:`DeskInline` ask the policy (``campaign.permissions``:
  ``may_use_desk``, ``keeps_books``), not ``is_staff`` nor Django's model permissions: a campaign's GM
  keeps its books without being made staff or granted anything by hand. The admins' own refusals
  (read-only logs, rows only the services write) are mixed in before these and still win.
- **Which campaign.** A form works on one campaign (:func:`form_campaign`): a row's own, or for a new
  row the campaign the desk works on (``desk.choice.chosen_campaign``; a GM of one campaign has it
  chosen for him). The ``campaign`` field is never a choice: it is shown, and set by the desk. An add
  form carries the campaign it was drawn for, and is refused if the desk has switched since.
- **What it offers.** Every foreign key and many-to-many field offers only rows of that campaign
  (:func:`campaign_choices`: the registry's lookup to the campaign; users: its members; anything
  else: nothing); the autocomplete answers from the chosen campaign only; a raw id names a row only
  if it is one of those; values a query string puts in an add form (``?father=``) are dropped unless
  they are. The same check stands behind them at the model (``campaign.integrity``)."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import AdminSite, widgets
from django.contrib.auth import get_user_model
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.text import Truncator

from campaign.integrity import campaign_lookup, campaign_of
from campaign.models import Campaign
from campaign.permissions import gm_campaigns, keeps_books, may_use_desk
from desk.choice import choose_campaign, chosen_campaign

FORM_CAMPAIGN = "_desk_form_campaign"
"""The request's attribute naming the campaign the form being drawn or checked works on (its id)."""

DRAWN_FOR = "desk_campaign"
"""The add form's hidden input (``admin/change_form.html``): the campaign it was drawn for."""


def campaign_of_row(obj: Any) -> int | None:
    """The id of the campaign a row belongs to (the campaign's own for a campaign)."""
    return campaign_of(obj)


def campaign_choices(queryset: QuerySet[Any], campaign: int | None) -> QuerySet[Any]:
    """The part of ``queryset`` a form of ``campaign`` may offer: that campaign's rows; for users, its
    members; nothing of any other model (deny by default) or when there is no campaign."""
    model = queryset.model
    if campaign is None:
        return queryset.none()
    if model is get_user_model():
        return queryset.filter(memberships__campaign_id=campaign).distinct()
    path = campaign_lookup(model)
    if path is None:
        return queryset.none()
    return queryset.filter(**{path: campaign})


def form_campaign(request: HttpRequest) -> int | None:
    return getattr(request, FORM_CAMPAIGN, None)


class ScopedRawIdWidget(widgets.ForeignKeyRawIdWidget):
    """A raw id that names the row it points to only when that row is one the field offers."""

    def __init__(self, *args: Any, queryset: QuerySet[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queryset = queryset

    def label_and_url_for_value(self, value: Any) -> tuple[str, str]:
        key = self.rel.get_related_field().name
        try:
            obj = self.queryset.get(**{key: value})
        except (ValueError, TypeError, self.queryset.model.DoesNotExist, forms.ValidationError):
            return "", ""
        opts = obj._meta
        url = reverse(f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change", args=(obj.pk,))
        return Truncator(obj).words(14), url


def _drop_foreign_initial(form: forms.BaseForm) -> None:
    """A value a query string or a saved link put in the form is kept only if the field offers it."""
    for name, field in form.fields.items():
        value = form.initial.get(name)
        if value in (None, "", []) or not isinstance(field, forms.ModelChoiceField) or field.queryset is None or form.is_bound:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        pks = [getattr(v, "pk", v) for v in values]
        try:
            offered = field.queryset.filter(pk__in=pks).count() == len(set(map(str, pks)))
        except (ValueError, TypeError, forms.ValidationError):
            offered = False
        if not offered:
            del form.initial[name]


class ScopedFields:
    """Mix into a ModelAdmin or an inline: its foreign keys offer only the form's campaign's rows."""

    raw_id_fields: ClassVar[list[str] | tuple[str, ...] | tuple[()]]  # as ModelAdmin's
    admin_site: AdminSite

    def get_field_queryset(self, db: Any, db_field: Any, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_field_queryset(db, db_field, request)  # type: ignore[misc]
        if queryset is None:
            queryset = db_field.remote_field.model._default_manager.using(db).all()
        return campaign_choices(queryset, form_campaign(request))

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if "queryset" not in kwargs:
            kwargs["queryset"] = self.get_field_queryset(kwargs.get("using"), db_field, request)
        if db_field.name in self.raw_id_fields and "widget" not in kwargs:
            kwargs["widget"] = ScopedRawIdWidget(
                db_field.remote_field, self.admin_site, using=kwargs.get("using"), queryset=kwargs["queryset"]
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if "queryset" not in kwargs:
            kwargs["queryset"] = self.get_field_queryset(kwargs.get("using"), db_field, request)
        return super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[misc]


def keeps(request: HttpRequest, obj: Any = None) -> bool:
    """The policy at the desk: a row, its campaign's GM (``keeps_books``); a list or a page with no
    row yet, whoever has a desk (``may_use_desk``; the lists show him his campaigns' rows only)."""
    if obj is None:
        return may_use_desk(request.user)
    return keeps_books(request.user, campaign_of_row(obj))


class DeskAdmin(ScopedFields, admin.ModelAdmin):  # type: ignore[type-arg]
    """The base of every desk admin of a campaign model (``desk.admin.scope`` refuses any other)."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return may_use_desk(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return keeps(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return may_use_desk(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return keeps(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return keeps(request, obj)

    # the campaign of a form ----------------------------------------------------------------------

    @property
    def in_a_campaign(self) -> bool:
        """A row of a campaign (not the campaign itself)."""
        return self.model is not Campaign

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if self.in_a_campaign and _has_campaign_field(self.model) and "campaign" not in fields:
            fields.insert(0, "campaign")  # never a choice: a row's campaign is the one the desk works on
        return fields

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> list[str] | None:
        excluded = list(super().get_exclude(request, obj) or [])
        if self.in_a_campaign and _has_campaign_field(self.model) and "campaign" not in excluded:
            excluded.append("campaign")  # whatever the admin's fields say, its form never takes a campaign
        return excluded or None

    def get_autocomplete_fields(self, request: HttpRequest) -> list[str]:
        return [f for f in super().get_autocomplete_fields(request) if f != "campaign"]

    def adding_campaign(self, request: HttpRequest) -> Campaign | None:
        """The campaign a new row is added to: the one the desk works on; a GM keeping the books of a
        single campaign has it chosen for him."""
        chosen = chosen_campaign(request)
        if chosen is None:
            kept = list(gm_campaigns(request.user).order_by("pk")[:2])
            if len(kept) == 1:
                chosen = kept[0]
                choose_campaign(request, chosen)
        return chosen

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        if not self.in_a_campaign:
            setattr(request, FORM_CAMPAIGN, None)
            return super().add_view(request, form_url, extra_context)
        campaign = self.adding_campaign(request)
        if campaign is None:
            messages.warning(
                request,
                f"Choose the campaign to add a {self.model._meta.verbose_name} to: the desk adds to the campaign it works on.",
            )
            return HttpResponseRedirect(reverse("admin:index", current_app=self.admin_site.name) + "#desk-campaigns")
        setattr(request, FORM_CAMPAIGN, campaign.pk)
        return super().add_view(request, form_url, {**(extra_context or {}), "desk_adding_to": campaign})

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        obj = self.get_object(request, object_id)
        campaign = campaign_of_row(obj) if obj is not None else None
        setattr(request, FORM_CAMPAIGN, campaign)
        chosen = chosen_campaign(request)
        switching = chosen is None or chosen.pk != campaign
        if obj is not None and campaign is not None and switching and self.has_view_permission(request, obj):
            kept = gm_campaigns(request.user).filter(pk=campaign).first()  # another of his: the desk works on it now
            if kept is not None:
                choose_campaign(request, kept)
                if chosen is not None:
                    what = self.model._meta.verbose_name
                    messages.info(request, f"The desk now works on {kept.name}, the campaign of this {what}.")
        return super().change_view(request, object_id, form_url, extra_context)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is not None:
            setattr(request, FORM_CAMPAIGN, campaign_of_row(obj))
        form = super().get_form(request, obj, change, **kwargs)
        campaign = form_campaign(request)
        if obj is not None or not self.in_a_campaign:
            return _scoped_form(form, None, None)
        return _scoped_form(form, campaign, self.model)

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)
        initial.pop("campaign", None)
        return initial


class DeskInline(ScopedFields, admin.options.InlineModelAdmin):  # type: ignore[type-arg]
    """The base of every desk inline: its rows are its parent's campaign's, and the policy decides."""

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return keeps(request, obj)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return keeps(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return keeps(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return keeps(request, obj)

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        setattr(request, FORM_CAMPAIGN, campaign_of_row(obj) if obj is not None else form_campaign(request))
        return super().get_formset(request, obj, **kwargs)


class DeskTabularInline(DeskInline, admin.TabularInline):  # type: ignore[type-arg]
    pass


def _has_campaign_field(model: type[Model]) -> bool:
    """Whether the model's rows carry the campaign key themselves (a form would offer it)."""
    return any(f.name == "campaign" and f.is_relation for f in model._meta.concrete_fields)


def _scoped_form(form: Any, campaign: int | None, model: type[Model] | None) -> Any:
    """The admin's form class, with what a query string put in it checked and, for a new row of a
    campaign, the campaign set on the row and carried by a hidden field."""

    class Scoped(form):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            _drop_foreign_initial(self)
            if model is not None and _has_campaign_field(model):
                self.instance.campaign_id = campaign

        def clean(self) -> dict[str, Any]:
            cleaned: dict[str, Any] = super().clean()
            if model is not None and self.data.get(DRAWN_FOR) != str(campaign):
                raise forms.ValidationError(
                    "The desk has switched to another campaign since this form was opened: nothing was added. "
                    "Check the campaign named above and send the form again."
                )
            return cleaned

    Scoped.__name__ = form.__name__
    return Scoped
