"""The writers of campaign-level data: members, rule tables, and the demo campaign.

Every public function is keyword-only, one transaction, and raises a ``RuleError`` whose message a
game master can act on. The admin, the pages and the management commands call these; none of them
holds a rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction
from django.db.models import Model

from campaign import registry
from campaign.models import Campaign, DiceEntry, House, Membership, Role, RuleTable
from campaign.permissions import Actor, Forbidden, require
from campaign.steps import Seen, lock_campaign
from rules import get_ruleset
from rules.errors import InvalidTable, NotFound, RuleError
from rules.tables import defaults_for, validate_table


def _campaign(campaign: Campaign | int) -> Campaign:
    if isinstance(campaign, Campaign):
        return campaign
    try:
        return Campaign.objects.get(pk=campaign)
    except Campaign.DoesNotExist:
        raise NotFound(f"There is no campaign #{campaign}.") from None


def validation_message(exc: ValidationError) -> str:
    """One readable sentence from a Django ValidationError (field names spelled out)."""
    if not hasattr(exc, "error_dict"):
        return " ".join(exc.messages)
    parts = []
    for field, errors in exc.message_dict.items():
        text = " ".join(errors)
        parts.append(text if field == NON_FIELD_ERRORS else f"{field.replace('_', ' ')}: {text}")
    return " ".join(parts)


# Members --------------------------------------------------------------------------------------


def membership_check(*, campaign: Campaign, user: Any, role: str, dynasty: House | None) -> None:
    """The rules of a membership, shared by ``membership_add`` and the admin's form.

    A player plays one player dynasty of that campaign; a GM or an observer may be tied to a
    dynasty of the campaign (a GM running a minor house, say) but need not be.
    """
    if role not in Role.values:
        raise RuleError(
            f"Unknown role {role!r}; choose one of {', '.join(Role.values)}.", code="invalid", fields={"role": "invalid"}
        )
    if dynasty is not None and dynasty.campaign_id != campaign.pk:
        raise RuleError(
            f"The dynasty {dynasty} belongs to another campaign, not to {campaign.name}.",
            code="invalid",
            fields={"dynasty": "other_campaign"},
        )
    if role == Role.PLAYER:
        if dynasty is None:
            raise RuleError(
                f"A player needs a dynasty of {campaign.name} to play.", code="invalid", fields={"dynasty": "required"}
            )
        if not dynasty.is_player:
            raise RuleError(
                f"{dynasty} is not a player dynasty ({dynasty.get_kind_display()}); a player plays a royal house.",
                code="invalid",
                fields={"dynasty": "not_player"},
            )


@transaction.atomic
def membership_add(*, campaign: Campaign | int, user: User, role: str, dynasty: House | None = None, by: Actor) -> Membership:
    """Make ``user`` a member of ``campaign``: a user belongs to a campaign once, in one role. Seating
    the table is the GM's (``require(.., "members")``); a link the GM made seats its holder
    (``dynasties.invitations``, as the system)."""
    campaign = _campaign(campaign)
    require(by, campaign, "members")
    membership_check(campaign=campaign, user=user, role=role, dynasty=dynasty)
    existing = Membership.objects.filter(campaign=campaign, user=user).first()
    if existing is not None:
        raise RuleError(
            f"{user} is already a member of {campaign.name} ({existing.get_role_display()}); "
            "change that membership instead of adding another.",
            code="already_member",
            fields={"user": "already_member"},
        )
    membership = Membership(campaign=campaign, user=user, role=role)
    try:
        membership.full_clean()
    except ValidationError as exc:
        raise RuleError(f"The membership is not valid: {validation_message(exc)}", code="invalid") from exc
    membership.save()
    if dynasty is not None:  # the house is the game's (campaign.registry.Seats): the kernel names no model above it
        registry.seats().write(membership, dynasty)
    return membership


# Rule tables ----------------------------------------------------------------------------------


def _ruleset_keys(campaign: Campaign) -> list[str]:
    return list(get_ruleset(campaign.ruleset).DEFAULT_TABLES)


def _check_key(campaign: Campaign, key: str) -> None:
    known = _ruleset_keys(campaign)
    if key not in known:
        raise InvalidTable(
            f"The {campaign.get_ruleset_display()} ruleset has no table called {key!r}; known: {', '.join(known)}."
        )


@transaction.atomic
def table_update(*, campaign: Campaign | int, key: str, data: Any, by: Actor) -> RuleTable:
    """Replace a campaign's copy of a rule table with ``data`` once it passes the table's validator.

    The campaign row is locked so an edit never lands in the middle of a step that reads the tables."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    _check_key(campaign, key)
    cleaned = validate_table(key, data)
    table, _created = RuleTable.objects.update_or_create(campaign=campaign, key=key, defaults={"data": cleaned})
    return table


@transaction.atomic
def table_restore_defaults(*, campaign: Campaign | int, keys: Iterable[str] | None = None, by: Actor) -> list[RuleTable]:
    """Put the ruleset's shipped defaults back into the given tables (all of them when ``keys`` is
    None), creating any table the campaign lacks. Returns the restored rows in key order."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    defaults = defaults_for(get_ruleset(campaign.ruleset).DEFAULT_TABLES)
    wanted = list(defaults) if keys is None else list(dict.fromkeys(keys))
    for key in wanted:
        _check_key(campaign, key)
    restored = []
    for key in sorted(wanted):
        table, _created = RuleTable.objects.update_or_create(campaign=campaign, key=key, defaults={"data": defaults[key]})
        restored.append(table)
    return restored


def copy_saved(target: Model, saved: Model) -> None:
    """Make a door's unsaved form instance (the admin's) the row a service wrote, so the admin's log entry,
    messages and redirect point at it."""
    for f in type(saved)._meta.concrete_fields:
        setattr(target, f.attname, getattr(saved, f.attname))
    target._state.adding = False


# How a member types his dice -------------------------------------------------------------------


def dice_entry_for(campaign: Campaign, user: Any) -> str:
    """How ``user`` types dice in this campaign: the campaign's choice (``faces`` or ``totals``), or,
    when it lets each player choose, his own (each die's face until he chooses)."""
    if campaign.dice_entry != DiceEntry.PLAYER:
        return str(campaign.dice_entry)
    if user is None or not getattr(user, "is_authenticated", False):
        return DiceEntry.FACES.value
    chosen = Membership.objects.filter(campaign=campaign, user=user).values_list("dice_entry", flat=True).first()
    return chosen or DiceEntry.FACES.value


@transaction.atomic
def dice_entry_choose(*, campaign: Campaign | int, choice: str, by: Actor) -> Membership:
    """A member who rolls (the GM or a player) chooses how he types his own dice, when the campaign
    lets each player choose."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "play")
    if campaign.dice_entry != DiceEntry.PLAYER:
        raise RuleError(
            f"In {campaign.name} the GM has chosen how dice are typed ({campaign.get_dice_entry_display().lower()}).",
            code="invalid",
            fields={"dice_entry": "campaign"},
        )
    if choice not in (DiceEntry.FACES, DiceEntry.TOTALS):
        raise RuleError(
            f"Type your dice as 'faces' (each die) or 'totals' (each roll's sum); {choice!r} is neither.",
            code="invalid",
            fields={"dice_entry": "invalid"},
        )
    if not isinstance(by, User):  # the system has no seat, nor dice of its own
        raise Forbidden("Only a member of the campaign chooses how he types his own dice.")
    membership = Membership.objects.get(campaign=campaign, user=by)
    membership.dice_entry = choice
    membership.save(update_fields=["dice_entry"])
    return membership
