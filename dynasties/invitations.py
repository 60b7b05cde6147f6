"""Seating the table: invitations by link, moving a seat, removing a member (issue 20).

The GM makes a link per seat (the player of a named house, or an observer) with an expiry; whoever
opens it logged in (or makes an account from it) becomes a member in that seat, once. Only the
SHA-256 of the link's secret is stored, so the link is shown once, when it is made, and a lookup by
the hash tells nothing about other links. The GM may revoke a link, move a seat to another user and
remove a member: his house stays in play, unplayed, until the GM seats someone else.

Every public function is one transaction under the campaign's lock, asks the policy
(``require(.., "members")``: the GM's) and raises a ``RuleError`` whose message says what to do. An
accepted link, a moved seat and a removed member each write a public chronicle line (kind
``membership``); the invitation row itself records who made, used or revoked it and when.

The table is not the game: these writes go through no ``step_action`` nor change set, on purpose.
Undo does not restore the members (``campaign.registry`` exempts them), so it keeps their lines too
(``campaign.undo.TABLE_LINES``); an undone step's redo stays offered. docs/rulings.md, "Undo"."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from campaign import audit
from campaign.accounts import account_create
from campaign.models import Campaign, Membership, Role
from campaign.permissions import SYSTEM_ACTOR, Actor, require
from campaign.services import membership_add
from campaign.steps import Chronicle, lock_campaign
from dynasties.models import Dynasty, Invitation, house_of
from rules.errors import NotFound, RuleError

DEFAULT_DAYS = 7
MAX_DAYS = 60
"""How long a link lives: a week unless the GM says otherwise, two months at most."""

OPEN, USED, REVOKED, EXPIRED = "open", "used", "revoked", "expired"
STATES = {OPEN: "waiting", USED: "used", REVOKED: "revoked", EXPIRED: "expired"}

NO_SUCH = "There is no such invitation: check that the whole link was copied, or ask the game master for a new one."


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def state(invitation: Invitation, now: datetime | None = None) -> str:
    """open, used, revoked or expired."""
    if invitation.used_at is not None:
        return USED
    if invitation.revoked_at is not None:
        return REVOKED
    if invitation.expires_at <= (now or timezone.now()):
        return EXPIRED
    return OPEN


def _seat_holder(campaign: Campaign | int, dynasty_id: int) -> Membership | None:
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    return Membership.objects.filter(campaign_id=pk, role=Role.PLAYER, seat__house=dynasty_id).select_related("user").first()


def waiting_links(campaign: Campaign | int, dynasty_id: int) -> list[Invitation]:
    """The links of a house's seat that still work (used by nobody, not revoked, not expired), oldest first."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    return list(
        Invitation.objects.filter(
            campaign_id=pk, dynasty_id=dynasty_id, used_at=None, revoked_at=None, expires_at__gt=timezone.now()
        )
        .select_related("created_by")
        .order_by("created_at", "pk")
    )


def problem(invitation: Invitation, user: Any = None, now: datetime | None = None) -> RuleError | None:
    """Why this invitation cannot seat ``user`` (None: it can). The join page says it before anyone
    makes an account; :func:`invitation_accept` refuses with it."""
    when = state(invitation, now)
    ask = "ask the game master for a new link."
    if when == USED:
        return RuleError(f"This invitation has been used already: a link seats one person. If it was not you, {ask}", code="used")
    if when == REVOKED:
        return RuleError(f"The game master has withdrawn this invitation: {ask}", code="revoked")
    if when == EXPIRED:
        return RuleError(f"This invitation expired on {invitation.expires_at:%Y-%m-%d at %H:%M} UTC: {ask}", code="expired")
    if invitation.dynasty_id is not None:
        holder = _seat_holder(invitation.campaign_id, invitation.dynasty_id)
        if holder is not None and (user is None or holder.user_id != getattr(user, "pk", None)):
            # whoever holds the link learns that the seat is taken, never by whom (issue 30)
            return RuleError(
                f"{invitation.dynasty} has a player already: this link's seat is taken. {ask.capitalize()}", code="seat_taken"
            )
    if user is not None and getattr(user, "is_authenticated", False):
        if getattr(user, "is_superuser", False):
            return RuleError(
                "You are a superuser: you run every campaign already. Log out and open the link as the person invited.",
                code="already_member",
            )
        mine = Membership.objects.filter(campaign_id=invitation.campaign_id, user=user).first()
        if mine is not None:
            return RuleError(
                f"You are a member of {invitation.campaign.name} already ({mine.get_role_display().lower()}): "
                "open the campaign from your home page.",
                code="already_member",
            )
    return None


def _line(campaign: Campaign, text: str, **data: Any) -> None:
    chronicle = Chronicle(campaign)
    chronicle.add("membership", text, **data)
    chronicle.flush()


def _name(user: Any) -> str:
    return str(user.get_username())


def _role_text(role: str, dynasty: Dynasty | None) -> str:
    return f"the player of {dynasty}" if role == Role.PLAYER else "an observer"


# The GM's -----------------------------------------------------------------------------------------


@transaction.atomic
def invitation_create(
    *,
    campaign: Campaign | int,
    role: str,
    dynasty: Any = None,
    days: int = DEFAULT_DAYS,
    replace: bool = False,
    secret: str = "",
    by: Actor,
) -> tuple[Invitation, str]:
    """A link for one seat: the player of ``dynasty`` (one of the campaign's player houses, nobody's
    yet) or an observer. Returns the invitation and its secret (the link's last part, shown once).

    A house's seat has one waiting link at a time (docs/rulings.md, "A second link for a seat"): a
    second one is refused, naming the waiting link, unless ``replace`` says to revoke it and make the
    new one in the same step. ``secret`` is the caller's own secret for the link (the demo derives
    one it can show again: ``operations.services``), at least 32 characters; otherwise a random one."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "members")
    if role not in (Role.PLAYER, Role.OBSERVER):
        raise RuleError("Invite a player (of a house) or an observer.", code="invalid", fields={"role": "invalid"})
    if not 1 <= int(days) <= MAX_DAYS:
        raise RuleError(f"A link lives 1 to {MAX_DAYS} days; {days} is not that.", code="invalid", fields={"days": "range"})
    if role == Role.OBSERVER:
        dynasty = None
    else:
        if dynasty is not None and not hasattr(dynasty, "pk"):
            dynasty = Dynasty.objects.filter(campaign=campaign, pk=dynasty).first()
        if dynasty is None or dynasty.campaign_id != campaign.pk:
            raise RuleError(
                f"Choose which house of {campaign.name} the player plays.", code="invalid", fields={"dynasty": "required"}
            )
        if not dynasty.is_player:
            raise RuleError(
                f"{dynasty} is not a player house: a player plays a royal house.",
                code="invalid",
                fields={"dynasty": "not_player"},
            )
        holder = _seat_holder(campaign, dynasty.pk)
        if holder is not None:
            raise RuleError(
                f"{dynasty} is played by {_name(holder.user)} already: remove him or move his seat first.",
                code="seat_taken",
                fields={"dynasty": "taken"},
            )
        waiting = waiting_links(campaign, dynasty.pk)
        if waiting and not replace:
            first = waiting[0]
            maker = f" by {_name(first.created_by)}" if first.created_by else ""
            raise RuleError(
                f"A link for the player of {dynasty} is waiting already (made {first.created_at:%Y-%m-%d %H:%M}{maker}, "
                f"works until {first.expires_at:%Y-%m-%d %H:%M} UTC): give that one, or revoke it and make a new one "
                "(“Replace the waiting link”).",
                code="seat_waiting",
                fields={"dynasty": "waiting"},
            )
        now = timezone.now()
        for old in waiting:
            old.revoked_at = now
            old.save(update_fields=["revoked_at"])
    if secret and len(secret) < 32:
        raise RuleError("A link's secret is at least 32 characters.", code="invalid", fields={"secret": "short"})
    token = secret or secrets.token_urlsafe(24)
    invitation = Invitation.objects.create(
        campaign=campaign,
        role=role,
        dynasty=dynasty,
        token_hash=token_hash(token),
        expires_at=timezone.now() + timedelta(days=int(days)),
        created_by=audit.acting_user(by),
    )
    return invitation, token


@transaction.atomic
def invitation_revoke(*, campaign: Campaign | int, invitation: int, by: Actor) -> Invitation:
    """Withdraw a link that has not been used (a second revoke changes nothing)."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "members")
    found = Invitation.objects.select_related("dynasty").filter(campaign=campaign, pk=invitation).first()
    if found is None:
        raise NotFound("There is no such invitation in this campaign.")
    if found.used_at is not None:
        raise RuleError(
            f"This invitation was used already: to unseat its member, remove him from {campaign.name} instead.", code="used"
        )
    if found.revoked_at is None:
        found.revoked_at = timezone.now()
        found.save(update_fields=["revoked_at"])
    return found


@transaction.atomic
def seat_move(*, campaign: Campaign | int, membership: int, username: str, by: Actor) -> Membership:
    """Give a member's seat (his house, or his place as an observer) to another user, who is no
    member yet; the first user leaves the campaign."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "members")
    seat = Membership.objects.select_related("user", "seat__house").filter(campaign=campaign, pk=membership).first()
    if seat is None:
        raise NotFound("There is no such member in this campaign.")
    if seat.role == Role.GM:
        raise RuleError("The game master's seat is not moved here: a campaign keeps its game master.", code="invalid")
    User = get_user_model()
    username = (username or "").strip()
    user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
    if user is None:
        raise RuleError(
            f"There is no user called “{username}”: check the spelling, or remove the member and invite the newcomer by a link.",
            code="invalid",
            fields={"username": "unknown"},
        )
    other = Membership.objects.filter(campaign=campaign, user=user).first()
    if other is not None or user.is_superuser:
        raise RuleError(
            f"{username} is a member of {campaign.name} already: a user sits at a table once.",
            code="already_member",
            fields={"username": "already_member"},
        )
    before = seat.user
    seat.user = user
    seat.dice_entry = ""  # his own way of typing dice was the first user's
    seat.save(update_fields=["user", "dice_entry"])
    house = house_of(seat)
    _line(
        campaign,
        f"{_name(user)} takes over from {_name(before)} as {_role_text(seat.role, house)}.",
        dynasty=None if house is None else house.pk,
    )
    return seat


@transaction.atomic
def member_remove(*, campaign: Campaign | int, membership: int, by: Actor) -> Membership:
    """Remove a player or an observer. A player's house stays in play, unplayed (the GM acts for it)
    until the GM seats another player; nothing of the game changes."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "members")
    seat = Membership.objects.select_related("user", "seat__house").filter(campaign=campaign, pk=membership).first()
    if seat is None:
        raise NotFound("There is no such member in this campaign.")
    if seat.role == Role.GM:
        raise RuleError("A game master is not removed here: a campaign keeps its game master.", code="invalid")
    house = house_of(seat)
    if house is not None and seat.role == Role.PLAYER:
        text = f"{_name(seat.user)} leaves the table; {house} stays in play, unplayed, until a new player takes it."
    else:
        text = f"{_name(seat.user)} no longer observes the campaign."
    _line(campaign, text, dynasty=None if house is None else house.pk)
    seat.delete()
    seat.house = house  # type: ignore[attr-defined]  # read by the page's message after the row is gone
    return seat


@dataclass
class TableSeat:
    """A player house: who plays it (None: nobody) and its waiting links."""

    dynasty: Dynasty
    member: Membership | None
    invitations: list[Invitation] = field(default_factory=list)


@dataclass
class Table:
    """The Players page: the houses' seats, the GM and observers, and every link made, newest first."""

    seats: list[TableSeat]
    others: list[Membership]
    invitations: list[tuple[Invitation, str]]


def table_of(campaign: Campaign, *, by: Actor) -> Table:
    """Who sits where, for the GM (the policy: ``members``)."""
    require(by, campaign, "members")
    members = list(Membership.objects.filter(campaign=campaign).select_related("user", "seat__house").order_by("role", "pk"))
    for m in members:
        m.house = house_of(m)  # type: ignore[attr-defined]  # the page shows it
    playing = {m.house.pk: m for m in members if m.role == Role.PLAYER and m.house is not None}  # type: ignore[attr-defined]
    now = timezone.now()
    invitations = list(
        Invitation.objects.filter(campaign=campaign)
        .select_related("dynasty", "used_by", "created_by")
        .order_by("-created_at", "-pk")
    )
    houses = [d for d in Dynasty.objects.filter(campaign=campaign).order_by("pk") if d.is_player]
    seats = [TableSeat(d, playing.get(d.pk)) for d in houses]
    waiting = {s.dynasty.pk: s for s in seats}
    for inv in invitations:
        if inv.dynasty_id in waiting and state(inv, now) == OPEN:
            waiting[inv.dynasty_id].invitations.append(inv)
    others = [m for m in members if m.role != Role.PLAYER]
    return Table(seats=seats, others=others, invitations=[(inv, STATES[state(inv, now)]) for inv in invitations])


# The invited person's ---------------------------------------------------------------------------


def invitation_find(token: str) -> Invitation | None:
    """The invitation of a link's secret (its hash is looked up), or None."""
    if not token or len(token) > 100:
        return None
    return Invitation.objects.select_related("campaign", "dynasty").filter(token_hash=token_hash(token)).first()


def _seat(invitation: Invitation, user: Any) -> Membership:
    failed = problem(invitation, user)
    if failed is not None:
        raise failed
    # the GM's link, checked just above, is his leave to seat its holder: the system seats him
    membership = membership_add(
        campaign=invitation.campaign, user=user, role=invitation.role, dynasty=invitation.dynasty, by=SYSTEM_ACTOR
    )
    invitation.used_by = user
    invitation.used_at = timezone.now()
    invitation.save(update_fields=["used_by", "used_at"])
    _line(
        invitation.campaign,
        f"{_name(user)} joins the table as {_role_text(invitation.role, invitation.dynasty)}.",
        dynasty=invitation.dynasty_id,
    )
    return membership


def _locked(token: str) -> Invitation:
    found = invitation_find(token)
    if found is None:
        raise NotFound(NO_SUCH)
    campaign = lock_campaign(found.campaign_id)
    invitation = Invitation.objects.select_related("dynasty").select_for_update(of=("self",)).get(pk=found.pk)
    invitation.campaign = campaign
    return invitation


@transaction.atomic
def invitation_accept(*, token: str, user: User) -> Membership:
    """The logged-in ``user`` takes the invitation's seat: he becomes a member, the link is used up.
    Refused (nothing written) when the link is unknown, used, revoked or expired, its house is played
    already, or he is a member already."""
    if not getattr(user, "is_authenticated", False):
        raise RuleError("Log in (or make an account) to accept the invitation.", code="login")
    return _seat(_locked(token), user)


@transaction.atomic
def account_join(*, token: str, username: str, password: str) -> tuple[User, Membership]:
    """A new account made from an invitation, seated at once: the link is checked first, so a dead
    link makes no account. The username is normalised and refused when it is another account's up
    to case or look-alike letters (``campaign.accounts``); the door checks the password (Django's
    validators)."""
    invitation = _locked(token)
    failed = problem(invitation)
    if failed is not None:
        raise failed
    user = account_create(username=username, password=password)
    return user, _seat(invitation, user)
