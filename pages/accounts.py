"""Pages: accounts (issue 34). ``/signup/`` makes an account when the site allows open sign-up
(``REGNAL_OPEN_SIGNUP``; refused with the reason otherwise), with the join page's username checks
(``campaign.accounts``) and Django's password validators; the new account is logged in and goes on
to its home page (New campaign) or back to the invitation it came from (``next``). Attempts are
counted per address (``REGNAL_RATE_SIGNUP``), as django-axes counts failed logins.

``/reset/<uid>/<token>/`` is Django's ``PasswordResetConfirmView``: the one-time link a GM gives a
player who forgot his password (``campaign.password_reset``). The new password logs him in."""

from __future__ import annotations

import time
from typing import Any

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from campaign.accounts import SIGNUP_CLOSED, account_signup, signup_open
from pages.invitations import JoinForm
from rules.errors import RuleError

SECONDS = {"s": 1, "min": 60, "hour": 3600, "day": 86400}
LOGIN_BACKEND = "django.contrib.auth.backends.ModelBackend"


class SignupForm(JoinForm):
    """Username and password twice (the join form's checks), and an e-mail address if he likes."""

    class Meta(JoinForm.Meta):
        fields = ("username", "email")  # type: ignore[assignment]  # django-stubs types Meta.fields as one name

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        email = self.fields["email"]
        email.required = False
        email.label = "E-mail (optional)"
        email.help_text = "Only to send you a password-reset link if you forget your password (where the site sends mail)."


def _rate() -> tuple[int, int]:
    count, _, unit = str(settings.REGNAL_RATE_SIGNUP).partition("/")
    return int(count), SECONDS[unit]


def _over_rate(request: HttpRequest) -> int:
    """Count this sign-up attempt of the caller's address; the seconds to wait when it is one too
    many (0: it may go on). A fixed window in the site's cache."""
    limit, period = _rate()
    window = int(time.time()) // period
    key = f"regnal:signup:{get_client_ip_address(request) or '-'}:{window}"
    cache.add(key, 0, timeout=period + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=period + 1)
        count = 1
    if count <= limit:
        return 0
    return max(1, (window + 1) * period - int(time.time()))


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return ""


def _page(request: HttpRequest, form: SignupForm | None, status: int = 200, refused: str = "") -> HttpResponse:
    context = {"form": form, "refused": refused, "next": _next(request), "open": signup_open()}
    return render(request, "registration/signup.html", context, status=status)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Make an account (when the site allows it), log in and go on."""
    if request.user.is_authenticated:
        return redirect(_next(request) or "home")
    if not signup_open():
        return _page(request, None, status=403, refused=SIGNUP_CLOSED)
    if request.method != "POST":
        return _page(request, SignupForm())
    wait = _over_rate(request)
    if wait:
        minutes = max(1, round(wait / 60))
        refused = (
            f"Too many sign-up attempts from your address: try again in {minutes} minute{'s' if minutes != 1 else ''}, "
            "or ask your game master for an invitation link."
        )
        return _page(request, SignupForm(request.POST), status=429, refused=refused)
    form = SignupForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        user = account_signup(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data.get("email") or "",
        )
    except RuleError as exc:
        if exc.code == "signup_closed":
            return _page(request, None, status=403, refused=exc.message)
        form.add_error("username" if "username" in exc.fields else None, exc.message)
        return _page(request, form, status=400)
    login(request, user, backend=LOGIN_BACKEND)
    target = _next(request)
    if target:
        messages.success(request, f"Welcome, {user.get_username()}: your account is made.")
        return redirect(target)
    messages.success(
        request,
        f"Welcome, {user.get_username()}: your account is made. Start a campaign (you will be its game master), "
        "or open the invitation link your game master gave you.",
    )
    return redirect("home")


class ResetConfirm(auth_views.PasswordResetConfirmView):
    """A GM's one-time link: the new password twice; it logs the player in and takes him home."""

    post_reset_login = True
    post_reset_login_backend = LOGIN_BACKEND
    success_url = reverse_lazy("home")
    template_name = "registration/reset_confirm.html"

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        messages.success(self.request, "Your new password is set, and you are logged in. The link no longer works.")
        return response


urlpatterns: list[URLPattern] = [
    path("signup/", signup, name="signup"),
    path("reset/<uidb64>/<token>/", ResetConfirm.as_view(), name="password_reset_confirm"),
]
