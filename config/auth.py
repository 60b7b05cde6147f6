"""Login rate limiting with django-axes: the backend, the client's address and the lockout page.

Failed logins are counted per username *and* address (``AXES_LOCKOUT_PARAMETERS``): five wrong
passwords for one account from one address lock that pair out for the cool-off time, while the
same account from another address (or other accounts from the same table's laptop) still log in.
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class AxesBackend(AxesStandaloneBackend):  # type: ignore[misc]  # axes ships no types
    """Axes' guard in front of ``ModelBackend`` for every login that comes with a web request.

    ``authenticate()`` without a request (``manage.py shell``, ``Client.login`` in tests) is not a
    login attempt from the network and cannot be counted per address: it passes through to the next
    backend instead of raising as Axes' own backend does. Every login page, the admin's and DRF's
    session login pass the request."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> AbstractBaseUser | None:
        if request is None:
            return None
        user: AbstractBaseUser | None = super().authenticate(request, username=username, password=password, **kwargs)
        return user


def client_ip(request: HttpRequest) -> str | None:
    """The client's address: ``REMOTE_ADDR``, or behind ``PROXY_COUNT`` trusted reverse proxies the
    entry of ``X-Forwarded-For`` the outermost proxy added (entries further left are the client's
    own say and could be forged)."""
    count: int = getattr(settings, "PROXY_COUNT", 0)
    if count > 0:
        header: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
        forwarded = [part.strip() for part in header.split(",") if part.strip()]
        if len(forwarded) >= count:
            return forwarded[-count]
    address: str | None = request.META.get("REMOTE_ADDR")
    return address


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """The login page again, with the reason and how long to wait (HTTP 429)."""
    cool_off = get_cool_off(request)
    if cool_off is None:
        wait = "until an administrator lifts the lock (manage.py axes_reset_username)"
    else:
        minutes = max(1, round(cool_off.total_seconds() / 60))
        wait = f"for {minutes} minute{'s' if minutes != 1 else ''}"
    message = (
        f"Too many failed logins: this account cannot log in from your address {wait}. "
        "Check the username and password with your game master, then try again later."
    )
    username = ""
    if isinstance(credentials, dict):
        username = str(credentials.get("username") or "")
    form = AuthenticationForm(request, initial={"username": username})
    return render(
        request,
        "registration/login.html",
        {"form": form, "lockout": message, "next": request.POST.get("next", request.GET.get("next", ""))},
        status=getattr(settings, "AXES_HTTP_RESPONSE_CODE", 429),  # axes.conf sets it at import: not in config.settings
    )
