"""The policy: who may **see** what and who may **do** what, for every door.

Secrecy is a feature (Blood Royale chapter 24; RULES.md E7): characteristics and the family
record are public to every member of a campaign; a player sees only his own exchequer, its
postings, the contracts his dynasty is party to and the lines and money terms written for his
house; the GM sees everything; outsiders nothing (they get 404, as for what does not exist).

Seeing: each app declares who sees its models' rows when it registers them (``campaign.registry``:
every member, the houses a row names, a line's audience); this module applies those rules, and
anything unmarked is denied. A chronicle line
carries its audience from the moment it is made (:func:`line_audience`): public, the houses named
in its readers, or the GM only. A marriage's dowry carries its readers the same way.

Acting: every service that acts for someone takes him as ``by`` (keyword-only, required: an
:data:`Actor`) and asks :func:`require`, which decides from ``by`` alone: a user sits where his
membership seats him (an anonymous user, or one of no seat, is refused); :data:`SYSTEM_ACTOR`, the
one named system actor, sits at the :data:`SYSTEM` seat with the GM's powers; anything else (None,
a forgotten argument) is :class:`NoActor`, a 403, never the GM. Nothing a request carries can be
the system: a request's user is a ``User`` or an ``AnonymousUser``, and ``SYSTEM_ACTOR`` is
neither, whatever its name. Only code that says so acts as the system: management commands, the
background jobs a site's process starts on its own, the simulator, the demo, an import run on the
server, and the rules' own consequences of an action already allowed (a renunciation a signed
contract makes); a job a person started acts for that person. The policy never reads who acts from
anywhere else: ``campaign.audit`` keeps the running action's user and the request's (the admin's)
to **record** who changed a row, not to decide whether he may. Pages and the API ask the same
functions to shape their answers (which buttons to show) and never decide it themselves. The table
of who may do what is :data:`ACTIONS`, shown in docs/pages.md (checked by a test)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeAlias

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.core.signals import request_finished, request_started
from django.db.models import F, Field, Model, Q, QuerySet
from django.db.models.signals import post_delete, post_save

from campaign import registry
from campaign.models import Audience, Campaign, Membership, Role
from rules.errors import RuleError


class Forbidden(RuleError, PermissionDenied):
    """The user may not do this: 403 through every door (a domain error for the services, the API
    and the admin; Django's PermissionDenied for the pages)."""

    code = "permission_denied"
    status = 403


class NoActor(Forbidden):
    """A service was called without saying for whom it acts (``by`` missing, None or not an
    :data:`Actor`): refused as any other 403, never run as the GM or the system."""

    code = "no_actor"


# --- who is acting ---------------------------------------------------------------------------------


class SystemActor:
    """The system acting by itself: the one instance is :data:`SYSTEM_ACTOR`. Not a user (no request
    carries one, no form or token names one); it equals only itself, and a copy or an unpickled one
    is the same object."""

    __slots__ = ()
    _instance: SystemActor | None = None
    is_authenticated: Final = False  # recorded as no one (``campaign.audit``): not a person
    pk: Final = None

    def __new__(cls) -> SystemActor:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "SYSTEM_ACTOR"

    def __reduce__(self) -> str:
        return "SYSTEM_ACTOR"

    def __copy__(self) -> SystemActor:
        return self

    def __deepcopy__(self, memo: Any) -> SystemActor:
        return self


SYSTEM_ACTOR: Final = SystemActor()
"""The named system actor: commands, jobs started by the site itself, the simulator, the demo,
imports run on the server and the rules' own consequences pass it as ``by``; it acts as the GM."""

Actor: TypeAlias = User | AnonymousUser | SystemActor
"""Whom a service acts for: a user (his seat decides), or :data:`SYSTEM_ACTOR`."""


# --- who is asking ---------------------------------------------------------------------------------


_seats = threading.local()
"""This thread's request's seats as read (``memo``: (user id, campaign id) -> (role, dynasty)); None
outside a request."""


def _seats_open(**kwargs: Any) -> None:
    _seats.memo = {}


def _seats_closed(**kwargs: Any) -> None:
    _seats.memo = None


def forget_seats(**kwargs: Any) -> None:
    """Forget the seats this request has read: a seat was written (a membership saved or deleted),
    or a write that may move one ended (``campaign.undo.step_action``, ``change_set``)."""
    memo = getattr(_seats, "memo", None)
    if memo:
        memo.clear()


request_started.connect(_seats_open, dispatch_uid="campaign.permissions.seats_open")
request_finished.connect(_seats_closed, dispatch_uid="campaign.permissions.seats_closed")
post_save.connect(forget_seats, sender=Membership, dispatch_uid="campaign.permissions.seat_saved")
post_delete.connect(forget_seats, sender=Membership, dispatch_uid="campaign.permissions.seat_deleted")


def role_of(user: Any, campaign: Campaign | int) -> tuple[str | None, int | None]:
    """(role, dynasty id) of the user in the campaign; a superuser is a GM everywhere. ``is_staff``
    alone is nothing: the admin of a campaign is its GM. An anonymous or unsaved user sits nowhere.

    Within one request the seat is read once: the door's lookup (``campaign.doors.member``) and the
    policy asked by the service share it (a request acts in the seat it came in with), until a
    membership is written or a step action or desk save ends (:func:`forget_seats`). Outside a
    request (commands, jobs, tests calling services) it is read every time."""
    if user is None or not getattr(user, "is_authenticated", False) or getattr(user, "pk", None) is None:
        return None, None
    if getattr(user, "is_superuser", False):
        return Role.GM, None
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    memo: dict[tuple[int, int], tuple[str | None, int | None]] | None = getattr(_seats, "memo", None)
    if memo is not None and (user.pk, pk) in memo:
        return memo[(user.pk, pk)]
    row = Membership.objects.filter(campaign_id=pk, user=user).values_list("role", registry.seats().house).first()
    found: tuple[str | None, int | None] = (None, None) if row is None else (row[0], row[1])
    if memo is not None:
        memo[(user.pk, pk)] = found
    return found


def member_of(user: Any, slug: str) -> tuple[Campaign | None, str | None, int | None]:
    """The campaign of ``slug`` with ``user``'s (role, dynasty id) in it, as :func:`role_of` says,
    in one query (the membership with its campaign); (None, None, None) when he is no member of it
    (or it does not exist: the same answer)."""
    if getattr(user, "is_superuser", False) or not getattr(user, "is_authenticated", False) or user.pk is None:
        campaign = Campaign.objects.filter(slug=slug).first()
        role, dynasty = role_of(user, campaign) if campaign is not None else (None, None)
        return (campaign, role, dynasty) if role is not None else (None, None, None)
    seat = (
        Membership.objects.filter(campaign__slug=slug, user=user)
        .select_related("campaign")
        .annotate(seat_house=F(registry.seats().house))  # the game keeps a member's house (one query, a join)
        .order_by("pk")
        .first()
    )
    if seat is None:
        return None, None, None
    house: int | None = seat.seat_house
    memo: dict[tuple[int, int], tuple[str | None, int | None]] | None = getattr(_seats, "memo", None)
    if memo is not None:
        memo[(user.pk, seat.campaign_id)] = (seat.role, house)
    return seat.campaign, seat.role, house


@dataclass(frozen=True)
class Seat:
    """Where a user sits at one campaign's table: his role and his house (None for the system)."""

    user: Any
    role: str | None
    dynasty: int | None
    system: bool = False

    @property
    def is_gm(self) -> bool:
        return self.system or self.role == Role.GM

    @property
    def is_member(self) -> bool:
        return self.system or self.role is not None


SYSTEM = Seat(user=None, role=Role.GM, dynasty=None, system=True)
"""The seat of :data:`SYSTEM_ACTOR`: the GM's powers, no house, no user."""


def seat_of(user: Any, campaign: Campaign | int) -> Seat:
    role, dynasty = role_of(user, campaign)
    return Seat(user=user, role=role, dynasty=dynasty)


def actor_seat(campaign: Campaign | int, by: Actor) -> Seat:
    """The seat of ``by`` and of nothing else: a user's own (an anonymous user's is no seat),
    :data:`SYSTEM` for :data:`SYSTEM_ACTOR`; :class:`NoActor` for None or anything else. Neither
    the running action (``campaign.audit``) nor the request is asked: they only record."""
    if by is SYSTEM_ACTOR:
        return SYSTEM
    if isinstance(by, (AbstractBaseUser, AnonymousUser)):
        return seat_of(by, campaign)
    raise no_actor(by)


def no_actor(who: object) -> NoActor:
    """The refusal of ``who`` as an actor (None: no one, as a job whose user is gone)."""
    return NoActor(f"No one is named as acting (by={who!r}): a person, or SYSTEM_ACTOR for a command or a job, must be given.")


# --- acting ----------------------------------------------------------------------------------------

ACTIONS: dict[str, str] = {
    "run the turn": "the GM (open and finish steps, announcements, the next turn, undo, corrections, the Interphase)",
    "act for a house": "the GM, or the player of that house (transfers from it, its Interphase choices, its cashing-in, "
    "buying back its Pretender)",
    "roll for a couple": "the GM, or the player of either spouse's house",
    "decide a succession": "the GM, or the player of the crown's house",
    "arrange a marriage": "the GM, or the player of either house",
    "draft a contract": "the GM, or the player of a house party to it",
    "act on a contract": "the GM, or the player of a party (sign his side, end, breach, dispute, vote, pay)",
    "keep the claims register": "the GM (record a claim from the board, an exchange two houses agreed, parleys); "
    "the player of the house renounces its claim, and complies with or refuses a parley's decision against it",
    "edit a record by hand": "the GM (a name, characteristics, a house's name and colour, a match's year, a draft's terms)",
    "observe": "an observer reads what is public and never acts",
    "write a note": "the GM (every note); a player the note for its player on his house and on its people",
    "set a portrait": "the GM, or the player of the house (its coat of arms, its people's portraits)",
    "seat the table": "the GM (invite by a link, revoke a link, move a seat to another user, remove a member)",
    "join by a link": "anyone logged in who holds a live invitation link, once, if its seat is free",
    "give a password-reset link": "the GM, to a player or observer of his campaign who sits at no table the GM does "
    "not run (never to a superuser, a staff account or another table's GM)",
    "end the game": "the GM (the agreed last turn, the money target, a series' start, ending by agreement, reopening)",
    "keep the books at the desk": "the GM of the campaign (the admin at /admin/, one campaign at a time; no staff flag needed)",
}
"""Who may do what: the table docs/pages.md shows (tests/test_policy.py checks they agree)."""


def may_act_for(role: str | None, mine: int | None, dynasty: int | None) -> bool:
    """The GM acts for everyone; a player for his own house only; an observer for no one."""
    return role == Role.GM or (role == Role.PLAYER and dynasty is not None and mine == dynasty)


def may_act_for_any(role: str | None, mine: int | None, houses: Iterable[int | None]) -> bool:
    """The GM, or the player of one of ``houses`` (a couple's, a contract's parties)."""
    return role == Role.GM or any(may_act_for(role, mine, d) for d in houses if d is not None)


def may_play(role: str | None) -> bool:
    """The GM or a player: an observer only looks."""
    return role in (Role.GM, Role.PLAYER)


def require_gm(role: str | None) -> None:
    if role != Role.GM:
        raise Forbidden("Only the game master may do this.")


def require_play(role: str | None) -> None:
    if not may_play(role):
        raise Forbidden("An observer only looks: only the GM and the players act.")


def require_act_for(role: str | None, mine: int | None, dynasty: int | None, what: str = "") -> None:
    if not may_act_for(role, mine, dynasty):
        raise Forbidden(f"You may act only for your own dynasty{': ' + what if what else ''}.")


def couple_houses(marriage: Any) -> list[int | None]:
    """The houses a couple's rolls are made for: the husband's and the wife's."""
    return [marriage.husband.controlled_by_id, marriage.wife.controlled_by_id]


def require_couple(role: str | None, mine: int | None, houses: Iterable[int | None]) -> None:
    require_play(role)
    if not may_act_for_any(role, mine, houses):
        raise Forbidden("You may roll only for your own dynasty's couples.")


def require_party(role: str | None, mine: int | None, parties: Iterable[int | None]) -> None:
    require_play(role)
    if not may_act_for_any(role, mine, parties):
        raise Forbidden("Only the GM and the players of the parties act on a contract.")


def require_drafter(role: str | None, mine: int | None, parties: Iterable[int | None]) -> None:
    """A contract is drafted by the GM or the player of one of its parties; the refusal names the
    parties field, where a page shows it."""
    require_play(role)
    if not may_act_for_any(role, mine, parties):
        raise Forbidden(
            "You draft only contracts your house is party to: tick your own house among the parties.", fields={"parties": "yours"}
        )


def may_decide_succession(role: str | None, mine: int | None, player: int | None) -> bool:
    """The succession to a crown is decided by the player of the crown's house, or the GM."""
    return role == Role.GM or (player is not None and may_act_for(role, mine, player))


def require_crown_player(role: str | None, mine: int | None, player: int | None, crown: str) -> None:
    require_play(role)
    if not may_decide_succession(role, mine, player):
        raise Forbidden(f"Only the player of {crown}'s house or the GM decides its succession.")


def require(by: Actor, campaign: Campaign | int, check: str, **terms: Any) -> Seat:
    """The acting check a service makes: ``check`` is one of ``gm``, ``play``, ``house``
    (``dynasty=``), ``couple`` (``houses=``), ``party`` (``parties=``), ``crown`` (``player=``,
    ``crown=``), ``correct_roll``, ``members``, ``note`` (``audience=``, ``house=``, ``on_campaign=``),
    ``portrait`` (``house=``), ``edit``. Returns the seat; raises :class:`Forbidden` (403) when it may
    not, :class:`NoActor` when ``by`` names no one. :data:`SYSTEM_ACTOR` passes every check."""
    seat = actor_seat(campaign, by)
    if seat.system:
        return seat
    if not seat.is_member:
        raise Forbidden("You are not a member of this campaign.")
    role, mine = seat.role, seat.dynasty
    if check == "gm":
        require_gm(role)
    elif check == "play":
        require_play(role)
    elif check == "house":
        require_act_for(role, mine, terms["dynasty"], terms.get("what", ""))
    elif check == "couple":
        require_couple(role, mine, terms["houses"])
    elif check == "party":
        require_party(role, mine, terms["parties"])
    elif check == "draft":  # ACTIONS: "draft a contract"
        require_drafter(role, mine, terms["parties"])
    elif check == "crown":
        require_crown_player(role, mine, terms["player"], terms["crown"])
    elif check == "members":  # invitations, seats and members: the GM's (ACTIONS: "seat the table")
        require_gm(role)
    elif check == "reset_password":  # ACTIONS: "give a password-reset link" (``user=``: whose password)
        require_gm(role)
        refused = reset_refusal(seat.user, _campaign_pk(campaign), terms["user"])
        if refused:
            raise Forbidden(refused)
    elif check == "note":  # ACTIONS: "write a note"
        if not may_write_note(role, mine, terms["audience"], terms["house"], terms["on_campaign"]):
            raise Forbidden("Only the GM writes this note: a player writes only the note for its player on his own house.")
    elif check == "portrait":  # ACTIONS: "set a portrait"
        require_act_for(role, mine, terms["house"], "its portraits and its coat of arms")
    elif check in ("correct_roll", "edit"):  # a die already in the log ("run the turn"), a hand edit ("edit a record by hand")
        require_gm(role)
    else:  # a check nobody wrote is a refusal, not a pass
        raise Forbidden(f"No rule says who may {check!r}.")
    return seat


def _campaign_pk(campaign: Campaign | int) -> int:
    return campaign.pk if isinstance(campaign, Campaign) else campaign


def reset_refusal(gm: Any, campaign: int, user: Any) -> str:
    """Why the GM ``gm`` of ``campaign`` may not give ``user`` a link that sets a new password ("":
    he may). A new password is the whole account: whoever sets it reads what the account reads, at
    every table. So the GM gives it only to a member of his campaign (a player or an observer) who
    sits at no table he does not run himself, and never to a superuser or a staff account (a
    superuser GM: any member who is neither)."""
    name = str(user.get_username())
    if getattr(user, "is_superuser", False) or getattr(user, "is_staff", False):
        return f"{name} is an administrator of this site: only he (or another administrator) sets his password."
    seats = list(Membership.objects.filter(user=user).values_list("campaign_id", "role"))
    if not any(c == campaign and role != Role.GM for c, role in seats):
        return f"{name} is not a player or an observer of this campaign: you give a reset link only to your own table."
    if getattr(gm, "is_superuser", False):
        return ""
    elsewhere = {c for c, _ in seats if c != campaign}
    if any(role == Role.GM for _, role in seats):
        return f"{name} runs a campaign himself: only he (or the site's administrator) sets his password."
    runs = Membership.objects.filter(user=gm, role=Role.GM, campaign_id__in=elsewhere).values_list("campaign_id", flat=True)
    if elsewhere and set(runs) != elsewhere:
        return (
            f"{name} also sits at a table you do not run: a new password would open it to you, so only he "
            "(or the site's administrator) sets it."
        )
    return ""


# --- seeing: chronicle lines and money terms ------------------------------------------------------

SEES: dict[str, str] = {
    "characters, families, reigns, rolls": "every member",
    "public chronicle lines, the announcements": "every member",
    "an exchequer and its postings": "its house and the GM",
    "a transfer, a ransom, a wedding's money": "the houses paying or paid, and the GM",
    "a contract, its lines, payments and signatures": "its parties and the GM",
    "a dowry": "the houses of the match (a contract's: its parties) and the GM",
    "a debt (a contract's payment left unpaid) on the exchequers, the dashboard and the wedding's card": "the house "
    "that owes it, the house owed, and the GM (never a contract's other parties there)",
    "a parley, its decision, a claim to an area, an excommunication": "every member (public at the table: the board "
    "shows claims; the medieval rulebook makes none secret)",
    "the province register (control, capitals, Resource Areas, Famine and Rebellion markers)": "every member (the map "
    "is public at the table)",
    "a line of no known audience": "the GM",
    "a public note": "every member",
    "a note for its player": "its house's players (a character's: his house's) and the GM; the campaign's: every player",
    "a GM note": "the GM",
    "the final table (every house's money at the game's end)": "every member once the game has ended",
    "the standings before the end": "the GM (a player sees only his own house's money)",
    "the houses' money at a session's start (a series)": "the GM until the game has ended",
    "anything of a campaign": "no one who is not a member (404, as for what does not exist)",
}
"""Who sees what: the table docs/pages.md shows (tests/test_policy.py checks they agree)."""

PUBLIC_LINE_KINDS = frozenset(
    {
        "announcements",
        "area_claim",
        "area_claim_end",
        "auction",
        "bastard",
        "betrothal",
        "betrothal_end",
        "birth",
        "campaign",
        "capital",
        "capital_rebellion",
        "capture",
        "claim",
        "claim_end",
        "countries",
        "created",
        "crown_settings",
        "death",
        "descendants",
        "dynastic_crisis",
        "event",
        "excommunication",
        "exile",
        "fragile_health",
        "health",
        "home_provinces",
        "interception",
        "intervention",
        "leader",
        "leaders",
        "luxury_sets",
        "major_heir_apparent",
        "membership",
        "minor_heir_apparent",
        "minor_is_monarch",
        "minor_offer",
        "minor_offers_resolved",
        "monarch_survival",
        "obligation",
        "parley",
        "pasha",
        "pass_over",
        "piece",
        "pretender",
        "province",
        "pretender_return",
        "readmission",
        "rebellion_check",
        "regency",
        "regency_end",
        "reign",
        "release",
        "renunciation",
        "retirement",
        "return",
        "revolt",
        "setup",
        "stability",
        "succession",
        "title",
        "title_disputed",
        "title_granted",
        "title_inherited",
        "title_lapsed",
        "union",
        "union_ends",
        "wedding",
        "game_end",  # the game's end and its final table: public once the game has ended (sees_final_table)
        "game_reopened",
        "game_settings",  # the agreed last turn and the money target (no house's money)
    }
)
"""Kinds of chronicle line that every member may read. A line of any other kind is read only by
the houses it names (``readers=``) and the GM; with no readers, by the GM alone."""

MONEY_LINE_KINDS = frozenset({"payment", "payment_owed", "contract_payment", "contract_unpaid"})
"""Lines that tell of money: they must name their readers (payer, payee), never public."""


def readers_text(houses: Iterable[int | None]) -> str:
    """The stored form of a list of houses: ',3,17,' (sorted, once each; '' for none)."""
    ids = sorted({int(h) for h in houses if h is not None})
    return f",{','.join(map(str, ids))}," if ids else ""


def readers_list(text: str) -> list[int]:
    return [int(p) for p in (text or "").split(",") if p.strip()]


def line_audience(kind: str, readers: Iterable[int | None] | None = None) -> tuple[str, str]:
    """(audience, readers) of a new chronicle line: the houses named if any (a private line), public
    if its kind is public and it names none, else the GM's alone. A money line is never public."""
    if readers is not None:
        text = readers_text(readers)
        return (Audience.PARTIES, text) if text else (Audience.GM, "")
    if kind in PUBLIC_LINE_KINDS and kind not in MONEY_LINE_KINDS:
        return Audience.PUBLIC, ""
    return Audience.GM, ""


def legacy_line_audience(kind: str, data: dict[str, Any]) -> tuple[str, str]:
    """The audience of a line written before lines carried one (an older export, the migration): a
    money line is its house's (``data["dynasty"]``), a contract's line its parties', a public kind
    public, anything else the GM's."""
    if kind in ("payment", "payment_owed"):
        return line_audience(kind, [data.get("dynasty")])
    if kind.startswith("contract_") or kind == "dispute_ruling":
        parties = data.get("parties")
        return line_audience(kind, parties if isinstance(parties, list) else [])
    return line_audience(kind)


def line_filter(seat: Seat) -> Q:
    """The chronicle lines the seat may read, as a query condition (deny by default)."""
    if seat.is_gm:
        return Q()
    if not seat.is_member:
        return Q(pk__in=[])
    shown = Q(audience=Audience.PUBLIC)
    if seat.dynasty is not None:
        shown |= Q(audience=Audience.PARTIES, readers__contains=f",{seat.dynasty},")
    return shown


def may_read_line(seat: Seat, audience: str, readers: str) -> bool:
    if seat.is_gm:
        return True
    if not seat.is_member:
        return False
    if audience == Audience.PUBLIC:
        return True
    return audience == Audience.PARTIES and seat.dynasty is not None and f",{seat.dynasty}," in (readers or "")


NOTE_PUBLIC, NOTE_PLAYER, NOTE_GM = "public", "player", "gm"
"""A note's audiences (``dynasties.models.NoteAudience``): every member, its player, the GM."""


def note_filter(seat: Seat) -> Q:
    """The notes the seat may read, as a query condition (deny by default): the public ones; for a
    player, the player notes on his house and on the characters it controls, and the campaign's."""
    if seat.is_gm:
        return Q()
    if not seat.is_member:
        return Q(pk__in=[])
    shown = Q(audience=NOTE_PUBLIC)
    if seat.role == Role.PLAYER:
        shown |= Q(audience=NOTE_PLAYER, character__isnull=True, dynasty__isnull=True)
        if seat.dynasty is not None:
            shown |= Q(audience=NOTE_PLAYER) & (Q(dynasty=seat.dynasty) | Q(character__controlled_by=seat.dynasty))
    return shown


def may_read_note(role: str | None, mine: int | None, audience: str, house: int | None, on_campaign: bool) -> bool:
    """As :func:`note_filter`, for one note: ``house`` is the house it is about (a character's: the
    house that controls him), ``on_campaign`` whether it is the campaign's own."""
    if role == Role.GM:
        return True
    if role is None:
        return False
    if audience == NOTE_PUBLIC:
        return True
    if audience != NOTE_PLAYER or role != Role.PLAYER:
        return False
    return on_campaign or (mine is not None and house == mine)


def may_write_note(role: str | None, mine: int | None, audience: str, house: int | None, on_campaign: bool) -> bool:
    """The GM writes every note; a player only the note for its player on his own house or on a
    character his house controls (docs/rulings.md, "Notes and portraits")."""
    if role == Role.GM:
        return True
    return role == Role.PLAYER and audience == NOTE_PLAYER and not on_campaign and mine is not None and house == mine


def sees_money(role: str | None, mine: int | None, *houses: int | None) -> bool:
    """Money between houses (a posting, a wedding's payments): the GM and the houses it names."""
    return role == Role.GM or (role is not None and mine is not None and mine in houses)


def sees_debt(role: str | None, mine: int | None, payer: int, payee: int) -> bool:
    """A debt (a contract's payment left unpaid) shown on an exchequer, the dashboard or a wedding's
    card: the GM, the house that owes it and the house owed; no one else, not even a third party to
    the contract (who reads it on the contract's page only, with the contract's lines)."""
    return sees_money(role, mine, payer, payee)


def debts_listed(role: str | None, mine: int | None, house: int | None) -> tuple[bool, int | None]:
    """Whose debts a viewer may list (``sees_debt`` then filters each): the GM any house's (``house``,
    or every house's), a player his own house's only (asked for another house's: none); nobody
    else. Returns (may list, the house to list: None for every house)."""
    if role == Role.GM:
        return True, house
    if role == Role.PLAYER and mine is not None and house in (None, mine):
        return True, mine
    return False, None


def may_settle_debt(role: str | None, mine: int | None, payer: int) -> bool:
    """A debt's "Pay it now": the GM, or the player of the house that owes it."""
    return role == Role.GM or (role == Role.PLAYER and mine is not None and mine == payer)


def sees_marriage_money(role: str | None, mine: int | None, marriage: Any) -> bool:
    """A marriage's dowry (money terms): the GM and the houses written with it."""
    return role == Role.GM or (role is not None and mine is not None and f",{mine}," in (marriage.money_readers or ""))


def sees_house_money(role: str | None, mine: int | None, house: int | None, *, ended: bool) -> bool:
    """One house's money on the standings (docs/rulings.md, "The end of the game"): the GM always;
    once the game has ended, every member (the final table is public: the winner is the richest, so
    the table must show what each house holds); before the end, a player only his own house's."""
    if role == Role.GM:
        return True
    if role is None:
        return False
    return ended or (role == Role.PLAYER and mine is not None and mine == house)


def sees_final_table(role: str | None, *, ended: bool) -> bool:
    """The whole final table (every house's money, the winners, a series' increases) and its
    printable: every member once the game has ended; the GM at any time (as it stands)."""
    return role == Role.GM or (role is not None and ended)


def runs_the_turn(role: str | None) -> bool:
    """The GM runs the turn (:data:`ACTIONS`, "run the turn"): the doors show him its controls."""
    return role == Role.GM


def prints_sheets_of(role: str | None, mine: int | None, dynasty: int | None) -> bool:
    """A character sheet, or a dynasty's sheets: the GM's (a superuser is one everywhere), or the
    player's of the dynasty that controls them; nobody else's (not an observer's)."""
    return role == Role.GM or (role == Role.PLAYER and dynasty is not None and mine == dynasty)


def prints_the_campaign(role: str | None) -> bool:
    """The campaign's sheets at once (and their background job): the GM's."""
    return role == Role.GM


def may_correct_rolls(role: str | None) -> bool:
    """Whether the doors offer to correct a die of the current step (``require(.., "correct_roll")``):
    the GM's, as running the turn is."""
    return role == Role.GM


def keeps_claims_register(role: str | None) -> bool:
    """Records claims from the board and the exchanges two houses agreed (ACTIONS: "keep the claims register")."""
    return role == Role.GM


def may_edit_by_hand(role: str | None) -> bool:
    """Whether the doors offer an Edit button (``require(.., "edit")``): the GM's."""
    return role == Role.GM


def sees_undo_plan(role: str | None) -> bool:
    """What an undo would put back (every house's rolls, lines and postings it drops): the GM's, as
    undo is his to do."""
    return role == Role.GM


def sees_every_exchequer(role: str | None) -> bool:
    """Every house's exchequer and the Treasury at once: the GM (a player sees his own,
    :func:`can_view_exchequer`)."""
    return role == Role.GM


def has_own_house(role: str | None, mine: int | None) -> bool:
    """A player with a house of his own: he rolls for it, signs for it, goes straight to its
    exchequer (the GM and an observer have none)."""
    return role == Role.PLAYER and mine is not None


def sees_exchequer(role: str | None, mine: int | None, house: int | None) -> bool:
    """One house's exchequer and its postings (:data:`SEES`): the GM and that house's player."""
    return role == Role.GM or (has_own_house(role, mine) and mine == house)


def exchequers_listed(role: str | None, mine: int | None, houses: Iterable[int]) -> set[int]:
    """Of ``houses``, those whose exchequer a page may link to for this viewer: the GM every one,
    a player his own, anyone else none (the exchequer's page asks :func:`can_view_exchequer` again)."""
    return {h for h in houses if role == Role.GM or (role is not None and mine is not None and h == mine)}


def keeps_the_ledger(role: str | None) -> bool:
    """Corrects the ledger (reverses a posting) and moves money to and from the Treasury: the GM's
    (:data:`ACTIONS`, "run the turn")."""
    return role == Role.GM


def links_to_the_desk(role: str | None) -> bool:
    """Whether a page links to a record's page at the desk (the admin): the GM's, who keeps the
    books there (:func:`keeps_books` decides at the desk itself)."""
    return role == Role.GM


def sees_every_name(role: str | None) -> bool:
    """Whether the audit trail names every user who made a change (the GM), or says only "you",
    "the GM", "the player of <house>" (anyone else)."""
    return role == Role.GM


def own_house(role: str | None, mine: int | None) -> int | None:
    """The house a caller acts for when he names none: a player's own; the GM and an observer have
    none (they must say which)."""
    return mine if role == Role.PLAYER else None


def acting_house(campaign: Campaign | int, by: Actor) -> int | None:
    """The house ``by`` (:func:`actor_seat`: :class:`NoActor` for no one) acts for when he names
    none: :func:`own_house` of his seat. The services ask it; the GM, an observer and the system
    must say which."""
    seat = actor_seat(campaign, by)
    return None if seat.system else own_house(seat.role, seat.dynasty)


PRIVATE_FIELDS: dict[tuple[str, str], str] = {("dynasties", "marriage"): "dowry"}
"""Fields of public records that hold money terms: shown only to those ``sees_private_field`` allows."""


def sees_private_field(role: str | None, mine: int | None, record: Any, field: str) -> bool:
    """May this role see ``field`` of ``record`` (a row or a historical row of its model)?"""
    meta = record.instance_type._meta if hasattr(record, "instance_type") else record._meta
    if PRIVATE_FIELDS.get((meta.app_label, meta.model_name)) != field:
        return True
    return sees_marriage_money(role, mine, record)


# --- seeing: objects and querysets -----------------------------------------------------------------


def _campaign_id(obj: Any, path: str) -> int:
    """The id of the campaign a row belongs to, along its registered lookup."""
    *hops, last = path.split("__")
    for hop in hops:
        obj = getattr(obj, hop)
    campaign: int = getattr(obj, f"{last}_id")
    return campaign


def _direct(model: Any, lookup: str) -> bool:
    """A lookup that is a foreign key of the model itself (read from the row, no query)."""
    if "__" in lookup:
        return False
    field = model._meta.get_field(lookup)
    return bool(field.many_to_one and field.concrete)


def _houses(entry: registry.Entry, mine: int) -> Q:
    shown = Q(pk__in=[])
    for lookup in entry.houses:
        shown |= Q(**{lookup: mine})
    return shown


def can_view(user: Any, obj: Any) -> bool:
    """May this user see this object? The campaign itself: its members. A row of a registered model
    (``campaign.registry``): as its app declared it (every member, the houses it names, the line's
    audience); a row of an unregistered or unmarked model: the GM alone."""
    entry = None if isinstance(obj, Campaign) else registry.entry(type(obj))
    if isinstance(obj, Campaign):
        campaign: Campaign | int = obj
    elif entry is not None and entry.campaign_path:
        campaign = _campaign_id(obj, entry.campaign_path)
    else:
        campaign = obj.campaign
    seat = seat_of(user, campaign)
    if not seat.is_member:
        return False
    if seat.is_gm or isinstance(obj, Campaign):
        return True
    sees = entry.sees if entry is not None else registry.GM_ONLY
    if sees == registry.MEMBERS:
        return True
    if sees == registry.AUDIENCE:
        return may_read_line(seat, obj.audience, obj.readers)
    if sees == registry.NOTES:
        house = obj.character.controlled_by_id if obj.character_id is not None else obj.dynasty_id
        on_campaign = obj.character_id is None and obj.dynasty_id is None
        return may_read_note(seat.role, seat.dynasty, obj.audience, house, on_campaign)
    if sees == registry.HOUSES and entry is not None and seat.dynasty is not None:
        if all(_direct(entry.model, lookup) for lookup in entry.houses):
            return seat.dynasty in [getattr(obj, f"{lookup}_id") for lookup in entry.houses]
        return entry.model._default_manager.filter(_houses(entry, seat.dynasty), pk=obj.pk).exists()
    return False  # unmarked: denied


def can_view_exchequer(user: Any, dynasty: Any) -> bool:
    seat = seat_of(user, dynasty.campaign_id)
    return seat.is_gm or (seat.is_member and seat.dynasty == dynasty.pk)


def visible(user: Any, campaign: Campaign, queryset: QuerySet[Any]) -> QuerySet[Any]:
    """The part of a queryset of this campaign the user may see (one rule, as ``can_view``)."""
    entry = registry.entry(queryset.model)
    path = entry.campaign_path if entry is not None and entry.campaign_path else "campaign"
    seat = seat_of(user, campaign)
    queryset = queryset.filter(**{path: campaign.pk})
    if not seat.is_member:
        return queryset.none()
    if seat.is_gm:
        return queryset
    sees = entry.sees if entry is not None else registry.GM_ONLY
    if sees == registry.MEMBERS:
        return queryset
    if sees == registry.AUDIENCE:
        return queryset.filter(line_filter(seat))
    if sees == registry.NOTES:
        return queryset.filter(note_filter(seat))
    if sees == registry.HOUSES and entry is not None and seat.dynasty is not None:
        shown = queryset.filter(_houses(entry, seat.dynasty))
        return shown if all(_direct(entry.model, lookup) for lookup in entry.houses) else shown.distinct()
    return queryset.none()  # unmarked: denied


def gm_campaigns(user: Any) -> QuerySet[Campaign]:
    """The campaigns whose books this user keeps: all for a superuser, else those he is GM of (the
    admin shows a staff user only these)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Campaign.objects.none()
    if getattr(user, "is_superuser", False):
        return Campaign.objects.all()
    return Campaign.objects.filter(memberships__user=user, memberships__role=Role.GM)


def may_use_desk(user: Any) -> bool:
    """Whether the user gets the GM's desk (the admin) at all: an active account that is the GM of a
    campaign, or a superuser. ``is_staff`` and Django's model permissions play no part (ACTIONS,
    "keep the books at the desk")."""
    if user is None or not getattr(user, "is_active", False):
        return False
    return bool(getattr(user, "is_superuser", False)) or gm_campaigns(user).exists()


def keeps_books(user: Any, campaign: Campaign | int | None) -> bool:
    """Whether the user keeps this campaign's books at the desk: its GM (a superuser: any)."""
    if campaign is None or user is None or not getattr(user, "is_active", False):
        return False
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    return gm_campaigns(user).filter(pk=pk).exists()


def member_campaigns(user: Any) -> QuerySet[Campaign]:
    """The campaigns this user is a member of, as :func:`role_of` says (a superuser: all)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Campaign.objects.none()
    if getattr(user, "is_superuser", False):
        return Campaign.objects.all()
    return Campaign.objects.filter(pk__in=Membership.objects.filter(user=user).values("campaign_id"))


# --- seeing: the live table ------------------------------------------------------------------------

LIVE_PUBLIC, LIVE_PLAYERS = "public", "players"
"""The counters of ``Campaign.live_seen`` besides each house's (keyed by its id): the writes every
member sees, and those every player sees but not the observers."""


@dataclass(frozen=True)
class Seen:
    """Who sees a write (``campaign.live`` counts it in their live versions): every member
    (:attr:`ALL`), every player but not the observers (:attr:`PLAYERS`: the campaign's note for its
    players), the houses named (:meth:`by`: a transfer's payer and payee, a contract's parties, the
    note for a house's player) or, unmarked, the GM alone (:attr:`GM`). The GM sees every write."""

    everyone: bool = False
    players: bool = False
    houses: frozenset[int] = frozenset()

    ALL: ClassVar[Seen]
    PLAYERS: ClassVar[Seen]
    GM: ClassVar[Seen]

    @staticmethod
    def by(*houses: Any) -> Seen:
        """Seen by these houses (rows or ids; None and what is no id are left out) and the GM."""
        ids = set()
        for house in houses:
            pk = getattr(house, "pk", house)
            if isinstance(pk, str) and pk.strip().isdigit():
                pk = int(pk)
            if isinstance(pk, int) and not isinstance(pk, bool):
                ids.add(pk)
        return Seen(houses=frozenset(ids))

    def __or__(self, other: Seen) -> Seen:
        if self.everyone or other.everyone:
            return Seen.ALL
        if self.players or other.players:
            return Seen.PLAYERS
        return Seen(houses=self.houses | other.houses)

    def beyond(self, known: Seen) -> Seen:
        """What this adds to ``known``: the audiences whose counters a write already counted for
        ``known`` must still raise to be seen by this."""
        if known.everyone:
            return Seen.GM
        if self.everyone:
            return Seen.ALL
        if known.players:
            return Seen.GM
        if self.players:
            return Seen.PLAYERS
        return Seen(houses=self.houses - known.houses)

    def counters(self) -> list[str]:
        """The counters of ``Campaign.live_seen`` a write seen so raises (none: the GM's alone)."""
        if self.everyone:
            return [LIVE_PUBLIC]
        if self.players:
            return [LIVE_PLAYERS]
        return [str(h) for h in sorted(self.houses)]

    @staticmethod
    def of_counters(counters: Iterable[str]) -> Seen:
        """The inverse of :meth:`counters` (as kept with an undo, for its redo)."""
        names = set(counters)
        if LIVE_PUBLIC in names:
            return Seen.ALL
        if LIVE_PLAYERS in names:
            return Seen.PLAYERS
        return Seen.by(*names)


Seen.ALL = Seen(everyone=True)
Seen.PLAYERS = Seen(players=True)
Seen.GM = Seen()


def live_count(role: str | None, dynasty: int | None, version: int, seen: Mapping[str, Any] | None) -> int:
    """The live version a member polls (``campaign.live``): the count of the writes he sees. The
    GM's is every write (``version``); a player's the public writes, the players' and his house's;
    an observer's the public writes only; anyone else's nothing. So a page never rebuilds, nor a
    poll answers, on a write its viewer may not see (docs/architecture.md, "A live table")."""
    if role == Role.GM:
        return version
    if role not in (Role.PLAYER, Role.OBSERVER):
        return 0
    counts = seen or {}
    total = int(counts.get(LIVE_PUBLIC, 0))
    if role == Role.PLAYER:
        total += int(counts.get(LIVE_PLAYERS, 0))
        if dynasty is not None:
            total += int(counts.get(str(dynasty), 0))
    return total


def line_seen(audience: str, readers: str) -> Seen:
    """Who sees a chronicle line being written (:func:`may_read_line`): every member, its readers,
    or the GM alone."""
    if audience == Audience.PUBLIC:
        return Seen.ALL
    if audience == Audience.PARTIES:
        return Seen.by(*readers_list(readers))
    return Seen.GM


def note_seen(audience: str, house: int | None, on_campaign: bool) -> Seen:
    """Who sees a note being written (:func:`may_read_note`): the public note every member; the note
    for its player its house's players (the campaign's: every player); a GM note the GM alone."""
    if audience == NOTE_PUBLIC:
        return Seen.ALL
    if audience == NOTE_PLAYER:
        return Seen.PLAYERS if on_campaign else Seen.by(house)
    return Seen.GM


def rows_seen(rows: Mapping[type[Model], Iterable[tuple[int, Mapping[str, Any]]]]) -> Seen:
    """Who sees a change to these rows (a desk save, an undo, a redo): each row as its columns'
    values (``column: value``, as the undo's change log keeps it), before or after the change, by
    model; the union of what each model's registration says of its rows (``campaign.registry``):
    every member, a line's or a note's own audience, the houses at its lookups (read from the row,
    or through the database as it is now for a lookup past the row itself), else the GM alone."""
    listed = {model: list(images) for model, images in rows.items()}
    listed = {model: images for model, images in listed.items() if images}
    entries = {model: registry.entry(model) for model in listed}
    if any(e is not None and e.sees == registry.MEMBERS and not e.exempt for e in entries.values()):
        return Seen.ALL
    seen = Seen.GM
    for model, images in listed.items():
        entry = entries[model]
        if entry is None or entry.exempt:
            continue  # unmarked: the GM's
        if entry.sees == registry.AUDIENCE:
            for _, image in images:
                seen |= line_seen(str(image.get("audience") or ""), str(image.get("readers") or ""))
        elif entry.sees == registry.NOTES:
            seen |= _notes_seen(model, [image for _, image in images])
        elif entry.sees == registry.HOUSES:
            seen |= Seen.by(*_houses_of(model, entry.houses, images))
        if seen.everyone:
            break
    return seen


def _notes_seen(model: type[Model], images: list[Mapping[str, Any]]) -> Seen:
    seen = Seen.GM
    characters = []
    for image in images:
        audience = image.get("audience")
        if audience == NOTE_PUBLIC:
            return Seen.ALL
        if audience != NOTE_PLAYER:
            continue
        if image.get("character_id") is not None:
            characters.append(image["character_id"])
        else:
            seen |= note_seen(NOTE_PLAYER, image.get("dynasty_id"), image.get("dynasty_id") is None)
    if characters:  # a character's player note is his controlling house's
        people = registry.related(model._meta.get_field("character"))
        houses = people._base_manager.filter(pk__in=characters).values_list("controlled_by_id", flat=True)
        seen |= Seen.by(*houses)
    return seen


def _houses_of(model: type[Model], lookups: Iterable[str], images: list[tuple[int, Mapping[str, Any]]]) -> set[Any]:
    """The houses at ``lookups`` of these rows: a lookup's first step read from each row when it is
    the row's own foreign key, the rest through the database."""
    houses: set[Any] = set()
    for lookup in lookups:
        hop, _, rest = lookup.partition("__")
        field = model._meta.get_field(hop)
        if isinstance(field, Field) and field.many_to_one and field.concrete:
            values = {image.get(registry.column(field)) for _, image in images} - {None}
            if not rest:
                houses |= values
            elif values:
                related = registry.related(field)._base_manager
                houses |= set(related.filter(pk__in=list(values)).values_list(rest, flat=True))
        else:  # a many-to-many of the row (a contract's parties): as the database has them now
            houses |= set(model._base_manager.filter(pk__in=[pk for pk, _ in images]).values_list(lookup, flat=True))
    return houses
