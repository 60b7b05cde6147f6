"""API tokens in the admin: list, revoke (an action), create (the key is shown once, in a message)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from api.models import ApiToken
from api.services import token_create, tokens_revoke
from campaign.services import copy_saved


class ApiTokenForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = ApiToken
        fields = ["user", "name"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        user, name = data.get("user"), (data.get("name") or "").strip()
        if self.instance.pk is None and user and ApiToken.objects.filter(user=user, name=name, revoked_at__isnull=True).exists():
            self.add_error("name", "This user already has an active token with that name.")
        return data


SHOWN: list[str | list[str] | tuple[str, ...]] = ["user", "name", "prefix", "created_at", "last_used_at", "revoked_at"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = ApiTokenForm
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "user__username", "prefix"]
    list_select_related = ["user"]
    actions = ["revoke"]
    fields = SHOWN

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return ["prefix", "created_at", "last_used_at", "revoked_at"]
        return [name for name in SHOWN if isinstance(name, str)]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str | list[str] | tuple[str, ...]]:
        return ["user", "name"] if obj is None else list(SHOWN)

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        if change:
            return  # a token is never edited: revoke it and make another
        token, key = token_create(user=obj.user, name=obj.name)
        copy_saved(obj, token)
        messages.warning(request, f"The key of “{token.name}” for {token.user}: {key} (copy it now: it is not shown again).")

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        n = tokens_revoke(tokens=queryset)
        self.message_user(request, f"{n} token(s) revoked.", messages.SUCCESS)
