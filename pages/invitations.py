"""Pages: seating the table (issue 20). The GM's Players page lists the houses and who plays them,
the observers and every invitation link; it makes a link per seat (shown once, to copy, or sent by
e-mail when the site has a mail server), revokes one, moves a seat, removes a member. The services
(``dynasties.invitations``) ask the policy: anyone but the GM gets 404 there, as for a made-up
campaign.

``/join/<secret>/`` is the invited person's: it names the campaign and the seat, then lets him make
an account (Django's password validators) or log in and come back, and seats him in one click."""

from __future__ import annotations

import logging
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import BaseUserCreationForm
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_http_methods

from campaign.accounts import username_problem
from campaign.doors import refused_as_missing
from campaign.models import Campaign, Role
from campaign.password_reset import password_reset_link
from campaign.permissions import Forbidden, require
from dynasties import invitations as inv
from dynasties.models import Invitation
from pages.common import member, set_choices
from rules.errors import NotFound, RuleError

log = logging.getLogger(__name__)
OBSERVER = "observer"


def mail_configured() -> bool:
    """A mail server is configured (``EMAIL_HOST`` set): links may be sent as well as copied."""
    return bool(settings.is_overridden("EMAIL_HOST"))  # type: ignore[misc]  # LazySettings has it; django-stubs does not say so


class InviteForm(forms.Form):
    seat = forms.ChoiceField(label="Seat", error_messages={"required": "Choose the seat: a house to play, or an observer."})
    days = forms.IntegerField(
        label="The link works for (days)",
        min_value=1,
        max_value=inv.MAX_DAYS,
        initial=inv.DEFAULT_DAYS,
        help_text=f"1 to {inv.MAX_DAYS} days; after that, make a new link.",
    )
    email = forms.EmailField(
        required=False, label="Send it to (optional)", help_text="An e-mail address: the link is also sent there."
    )

    replace = forms.BooleanField(
        required=False,
        label="Replace the waiting link",
        help_text="If this seat has a link waiting already, revoke it (it stops working) and make a new one.",
    )

    def __init__(self, *args: Any, houses: list[Any], waiting: frozenset[int] = frozenset(), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(str(d.pk), f"The player of {d}{' (a link is waiting)' if d.pk in waiting else ''}") for d in houses]
        set_choices(self, "seat", choices=[*choices, (OBSERVER, "An observer (reads what is public, never acts)")])
        if not mail_configured():
            del self.fields["email"]


def next_seat(table: inv.Table, after: int | None = None) -> str:
    """The seat the invite form offers first: the next house (after the one just given a link, in
    the table's order, going round) that has no player and no waiting link; else an observer."""
    open_seats = [s.dynasty.pk for s in table.seats if s.member is None and not s.invitations]
    order = [s.dynasty.pk for s in table.seats]
    if after in order:
        at = order.index(after)
        order = order[at + 1 :] + order[: at + 1]
    return next((str(pk) for pk in order if pk in open_seats), OBSERVER)


def _link(request: HttpRequest, token: str) -> str:
    return request.build_absolute_uri(reverse("join", args=[token]))


def _houses(table: inv.Table) -> dict[str, Any]:
    return {
        "houses": [s.dynasty for s in table.seats if s.member is None],
        "waiting": frozenset(s.dynasty.pk for s in table.seats if s.member is None and s.invitations),
    }


def _players_page(
    request: HttpRequest,
    campaign: Campaign,
    form: InviteForm | None = None,
    new: dict[str, Any] | None = None,
    status: int = 200,
    reset: dict[str, Any] | None = None,
) -> HttpResponse:
    with refused_as_missing():
        table = inv.table_of(campaign, by=request.user)
    if form is None:
        after = new["invitation"].dynasty_id if new else None
        form = InviteForm(**_houses(table), initial={"seat": next_seat(table, after)})
    context = {"campaign": campaign, "role": Role.GM, "table": table, "form": form, "new": new, "reset": reset}
    return render(request, "pages/players.html", context, status=status)


def _send(request: HttpRequest, campaign: Campaign, invitation: Invitation, link: str, to: str) -> None:
    body = (
        f"You are invited to {campaign.name} on Regnal as {invitation.seat}.\n\n"
        f"Open this link to make an account (or log in) and join: {link}\n\n"
        f"It works until {invitation.expires_at:%Y-%m-%d %H:%M} UTC, once."
    )
    try:
        send_mail(f"Your invitation to {campaign.name}", body, None, [to])
    except OSError as exc:
        log.warning("invitation mail to %s failed: %s", to, exc)
        messages.warning(request, f"The link could not be sent to {to} ({exc}): copy it below and send it yourself.")
    else:
        messages.success(request, f"The link was sent to {to}.")


@require_http_methods(["GET", "POST"])
@login_required
def players(request: HttpRequest, slug: str) -> HttpResponse:
    """The GM's Players page, and its four actions (``op``: invite, revoke, move, remove)."""
    campaign, _, _ = member(request, slug)
    if request.method != "POST":
        return _players_page(request, campaign)
    op = request.POST.get("op", "")
    by = request.user
    with refused_as_missing():
        try:
            if op == "invite":
                return _invite(request, campaign)
            if op == "reset":
                return _reset(request, campaign)
            if op == "revoke":
                done = inv.invitation_revoke(campaign=campaign, invitation=_pk(request, "invitation"), by=by)
                messages.success(request, f"The link for {done.seat} is revoked: it no longer works.")
            elif op == "move":
                moved = inv.seat_move(
                    campaign=campaign,
                    membership=_pk(request, "membership"),
                    username=request.POST.get("username", ""),
                    by=by,
                )
                messages.success(request, f"{moved.user.get_username()} now sits as {moved.get_role_display().lower()}.")
            elif op == "remove":
                gone = inv.member_remove(campaign=campaign, membership=_pk(request, "membership"), by=by)
                house = f" {gone.house} stays in play, unplayed, until you seat a new player." if gone.house else ""  # type: ignore[attr-defined]
                messages.success(request, f"{gone.user.get_username()} is no longer a member.{house}")
            else:
                messages.error(request, "Choose what to do: invite, revoke a link, move a seat or remove a member.")
                return _players_page(request, campaign, status=400)
        except NotFound as exc:
            messages.error(request, exc.message)
            return _players_page(request, campaign, status=404)
        except RuleError as exc:
            if isinstance(exc, Forbidden):
                raise
            messages.error(request, exc.message)
            return _players_page(request, campaign, status=400)
    return redirect("pages:players", campaign.slug)


def _reset(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """A one-time password-reset link for a member (``campaign.password_reset``): shown once, with
    its QR code, and sent by e-mail too where the site has a mail server and he an address. The GM
    refused for this member (he sits at another table, runs one, or is an administrator) is told why;
    anyone else gets the page's 404."""
    try:
        made = password_reset_link(campaign=campaign, membership=_pk(request, "membership"), by=request.user)
    except Forbidden as exc:
        require(request.user, campaign, "members")  # not the GM: the page's 404
        messages.error(request, exc.message)
        return _players_page(request, campaign, status=403)
    link = request.build_absolute_uri(made.path)
    name = made.user.get_username()
    address = str(getattr(made.user, "email", "") or "")
    sent = ""
    if mail_configured() and address:
        body = (
            f"Your game master of {campaign.name} on Regnal gave you a link to set a new password for {name}:\n\n"
            f"{link}\n\nIt works once, until {made.expires_at:%Y-%m-%d %H:%M} UTC. If you did not ask for it, ignore it."
        )
        try:
            send_mail("A new password for Regnal", body, None, [address])
        except OSError as exc:
            log.warning("password reset mail for %s failed: %s", name, exc)
            messages.warning(request, f"The link could not be sent to {name} by e-mail ({exc}): give it below.")
        else:
            sent = address
    return _players_page(request, campaign, reset={"user": made.user, "link": link, "expires_at": made.expires_at, "sent": sent})


def _pk(request: HttpRequest, name: str) -> int:
    try:
        return int(request.POST.get(name, ""))
    except ValueError:
        raise NotFound(f"Choose the {name} to act on.") from None


def _invite(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    with refused_as_missing():
        table = inv.table_of(campaign, by=request.user)
    form = InviteForm(request.POST, **_houses(table))
    if not form.is_valid():
        return _players_page(request, campaign, form=form, status=400)
    seat = form.cleaned_data["seat"]
    role = Role.OBSERVER if seat == OBSERVER else Role.PLAYER
    try:
        invitation, token = inv.invitation_create(
            campaign=campaign,
            role=role,
            dynasty=None if seat == OBSERVER else int(seat),
            days=form.cleaned_data["days"],
            replace=form.cleaned_data["replace"],
            by=request.user,
        )
    except RuleError as exc:
        if isinstance(exc, Forbidden):
            raise
        form.add_error(next((f for f in exc.fields if f in form.fields), None) or "seat", exc.message)
        return _players_page(request, campaign, form=form, status=400)
    link = _link(request, token)
    if form.cleaned_data.get("email"):
        _send(request, campaign, invitation, link, form.cleaned_data["email"])
    # the link is in this answer only: its secret is not stored
    return _players_page(request, campaign, new={"invitation": invitation, "link": link})


# The invited person's page -------------------------------------------------------------------------


class JoinForm(BaseUserCreationForm):  # type: ignore[type-arg]
    """A new account: a username (normalised, and no other account's up to case or look-alike
    letters: ``campaign.accounts``, which the service asks again) and a password checked by the
    site's password validators."""

    class Meta(BaseUserCreationForm.Meta):
        fields = ("username",)

    def clean_username(self) -> str:
        username: str = self.cleaned_data.get("username") or ""
        problem = username_problem(username)
        if problem is not None:
            raise forms.ValidationError(problem.message, code=problem.code)
        return username


def _join_page(
    request: HttpRequest, token: str, invitation: Invitation, form: JoinForm | None = None, status: int = 200
) -> HttpResponse:
    user = request.user if request.user.is_authenticated else None
    refused = inv.problem(invitation, user)
    if refused is not None and refused.code in ("used", "revoked", "expired") and status == 200:
        status = 410
    context = {
        "invitation": invitation,
        "campaign": invitation.campaign,
        "refused": refused,
        "form": form if form is not None else JoinForm(),
        "login_url": f"{reverse('login')}?next={reverse('join', args=[token])}",
    }
    return render(request, "pages/join.html", context, status=status)


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation's page: who is invited where; make an account, or log in, and join."""
    invitation = inv.invitation_find(token)
    if invitation is None:
        return render(request, "pages/join.html", {"missing": inv.NO_SUCH}, status=404)
    if request.method != "POST":
        return _join_page(request, token, invitation)
    form = None
    try:
        if request.user.is_authenticated:
            inv.invitation_accept(token=token, user=request.user)
        else:
            form = JoinForm(request.POST)
            if not form.is_valid():
                return _join_page(request, token, invitation, form=form, status=400)
            user, _ = inv.account_join(
                token=token, username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
            )
            _login(request, user)
    except RuleError as exc:
        if form is not None and "username" in exc.fields:  # taken a moment ago: said beside the name
            form.add_error("username", exc.message)
            return _join_page(request, token, invitation, form=form, status=400)
        messages.error(request, exc.message)
        return _join_page(request, token, invitation, status=410 if exc.code in ("used", "revoked", "expired") else 400)
    messages.success(request, f"Welcome to {invitation.campaign.name}: you sit at its table as {invitation.seat}.")
    return redirect("pages:dashboard", invitation.campaign.slug)


def _login(request: HttpRequest, user: User) -> None:
    """Log the new account in (its password was just set: no backend needs to check it)."""
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")


urlpatterns: list[URLPattern] = [path("<slug:slug>/players/", players, name="players")]
join_urlpatterns: list[URLPattern] = [path("join/<str:token>/", join, name="join")]
