"""The audit trail in the admin: the History button of a character, a marriage or a contract lists
every change, newest first (django-simple-history's history view, 100 to a page), with who made
it, when, the campaign's year and step, the action and the fields it changed.

A GM's edit saved here is recorded as his, with the campaign's year and step and "Admin edit".
The trail is read-only: a record's page shows the object as it was, and nothing is reverted from
it (a correction is a new edit, recorded like any other)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from simple_history.admin import SimpleHistoryAdmin

from campaign import audit
from campaign.audit import ADMIN_EDIT
from desk.admin.base import DeskAdmin


def _campaign(obj: Any) -> Any:
    return getattr(obj, "campaign", None) or getattr(getattr(obj, "contract", None), "campaign", None)


class AuditedAdmin(SimpleHistoryAdmin, DeskAdmin):  # type: ignore[misc]
    object_history_list_template = "admin/audit/history_list.html"

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        campaign = _campaign(obj)
        with audit.acting(
            request.user,
            year=campaign.current_year if campaign is not None else None,
            step=campaign.step if campaign is not None else "",
            label=ADMIN_EDIT,
        ):
            super().save_model(request, obj, form, change)

    def revert_disabled(self, request: HttpRequest, obj: Any = None) -> bool:
        return True

    def history_form_view(self, request: HttpRequest, object_id: str, version_id: str, extra_context: Any = None) -> HttpResponse:
        if request.method == "POST":
            raise PermissionDenied("The audit trail is read-only: edit the object itself.")
        return super().history_form_view(request, object_id, version_id, extra_context)  # type: ignore[no-any-return]
