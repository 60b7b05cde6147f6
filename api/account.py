"""/account/tokens/: a user creates and revokes his own API tokens (the key is shown once)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views.decorators.http import require_http_methods, require_POST

from api.models import ApiToken
from api.services import token_create, token_revoke
from campaign.doors import signed_in
from rules.errors import RuleError


class TokenForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="What the token is for: a bot, a phone, a script.")


def _page(request: HttpRequest, form: TokenForm, key: str | None = None, status: int = 200) -> HttpResponse:
    tokens = ApiToken.objects.filter(user=signed_in(request)).order_by("-created_at", "-pk")
    return render(request, "api/tokens.html", {"form": form, "tokens": tokens, "new_key": key}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request, TokenForm())
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        token, key = token_create(user=request.user, name=form.cleaned_data["name"])
    except ValidationError as exc:
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
        return _page(request, form, status=400)
    messages.success(request, f"Token “{token.name}” created. Copy its key now: it is not shown again.")
    return _page(request, TokenForm(), key=key)  # the key is in this answer only, never stored


@login_required
@require_POST
def revoke(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        token = token_revoke(user=request.user, token_id=pk)
    except RuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Token “{token.name}” revoked: it no longer opens the API.")
    return redirect("account:tokens")


app_name = "account"
urlpatterns = [
    path("tokens/", tokens, name="tokens"),
    path("tokens/<int:pk>/revoke/", revoke, name="token-revoke"),
]
