"""Hand edits in the admin (issue 20): on a change page only what may be edited by hand is a field
(the rest is shown read-only), the form asks the service's own check, and the save goes through
the service (``dynasties.services.editing``, ``contracts.services.editing``): the policy, the
audit trail and the GM-only chronicle line, as from the Edit pages. Adding a row stays the plain
admin's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django import forms
from django.contrib import messages
from django.db.models import Model
from django.http import HttpRequest

from campaign import audit
from campaign.audit import ADMIN_EDIT
from dynasties.forms import check
from rules.errors import RuleError


def form_fields(model: type[Model]) -> list[str]:
    """Every field a ModelForm of the model would have."""
    return [f.name for f in [*model._meta.fields, *model._meta.many_to_many] if f.editable and not f.auto_created]


class HandEditAdmin:
    """Mix into a ModelAdmin: ``hand_fields`` are edited on a change page, through ``hand_edit``."""

    hand_fields: tuple[str, ...] = ()
    # Each admin names its services: ``hand_checker(campaign, row, changes)``, the service's own check
    # (a refusal is a RuleError, put on the form), and ``hand_editor(campaign=, <hand_key>=, changes=,
    # by=)``, the edit itself.
    hand_checker: Callable[[Any, Any, Mapping[str, Any]], Any]
    hand_editor: Callable[..., Any]
    hand_key: str

    def editable(self, obj: Any) -> tuple[str, ...]:
        """The fields edited by hand on this row (a contract's depend on its state)."""
        return self.hand_fields

    def hand_changes(self, form: forms.BaseForm, obj: Any) -> dict[str, Any]:
        return {name: form.cleaned_data[name] for name in self.editable(obj) if name in form.changed_data}

    def hand_check(self, obj: Any, changes: Mapping[str, Any]) -> Any:
        return type(self).hand_checker(obj.campaign, obj, changes)

    def hand_edit(self, request: HttpRequest, obj: Any, changes: Mapping[str, Any]) -> Any:
        return type(self).hand_editor(campaign=obj.campaign_id, **{self.hand_key: obj.pk}, changes=changes, by=request.user)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))  # type: ignore[misc]
        if obj is None:
            return fields
        keep = self.editable(obj)
        model: type[Model] = self.model  # type: ignore[attr-defined]
        return fields + [name for name in form_fields(model) if name not in keep and name not in fields]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change, **kwargs)  # type: ignore[misc]
        if obj is None:
            return form
        owner = self

        class Checked(form):  # type: ignore[misc, valid-type]
            def clean(self) -> dict[str, Any]:
                data: dict[str, Any] = super().clean()
                self.hand = owner.hand_changes(self, obj)
                check(self, self.hand, lambda changes: owner.hand_check(obj, changes))
                return data

        return Checked

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not change:
            super().save_model(request, obj, form, change)  # type: ignore[misc]
            return
        if not getattr(form, "hand", None):
            return  # nothing edited: nothing written
        campaign = obj.campaign
        try:
            with audit.acting(request.user, year=campaign.current_year, step=campaign.step, label=ADMIN_EDIT):
                done = self.hand_edit(request, obj, form.hand)
        except RuleError as exc:
            messages.error(request, f"Not saved: {exc.message}")
        else:
            messages.info(request, done.message)
