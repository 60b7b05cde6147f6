"""What every page view shares: membership, the policy's answers a page is shaped by, and running
one action.

A view stays thin: it validates its form and hands the write to :func:`run_action`, which calls
the services inside :func:`campaign.undo.step_action` (one transaction, the undo checkpoint, the
one-time form key); who may act, the services ask ``campaign.permissions`` (a refusal is a 403).
A page asks the same policy only to shape itself (which controls to show)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from campaign import doors
from campaign.doors import member as member  # the one member lookup of every door, re-exported for the pages
from campaign.doors import signed_in as signed_in
from campaign.models import ActionKey, Campaign
from campaign.permissions import Forbidden, Seen, runs_the_turn
from campaign.permissions import may_act_for as may_act_for  # the policy's, re-exported for the pages
from campaign.permissions import require_gm as require_gm
from campaign.services import validation_message
from campaign.undo import KEY_MAX, AlreadyDone, action_key
from rules.errors import RuleError

T = TypeVar("T")


def already_done(request: HttpRequest, campaign: Campaign) -> bool:
    """The same form sent again (a double click, the back button) after it was done: say so before
    validating it against a campaign it has already changed (``step_action`` refuses it too)."""
    key = (request.POST.get("action_key") or "").strip()
    if not key or len(key) > KEY_MAX:
        return False  # step_action refuses it with its message
    stored = action_key(key, by=doors.acting_user(request), door="page")
    if ActionKey.objects.filter(campaign=campaign, key=stored).exists():
        messages.info(request, "That was already done (the same form was sent twice): nothing was done again.")
        return True
    return False


class ActionFailed(Exception):
    """The services refused the action; ``message`` says what to fix, ``fields`` where, ``status``
    the answer every door gives that refusal (``campaign.doors.refusal``); the page that shows the
    form again says it with a 400."""

    def __init__(self, message: str, fields: dict[str, str] | None = None, *, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}
        self.status = status


def run_action(
    request: HttpRequest, campaign: Campaign, label: str, action: Callable[[Campaign], T], *, seen: Seen = Seen.GM
) -> T | None:
    """Run ``action`` (which calls the services) as one step action keyed by the form's
    ``action_key``. Returns its result, or None when the same form had already been sent (a
    message says so). Raises :class:`ActionFailed` with the services' message when refused;
    nothing is written then."""
    try:
        return doors.run_action(request, campaign, label, action, key=request.POST.get("action_key"), door="page", seen=seen)
    except AlreadyDone as exc:
        messages.info(request, exc.message)
        return None
    except Forbidden:
        raise  # 403: the policy refused the action (the page's own check should have said so first)
    except RuleError as exc:
        refused = doors.refusal(exc)  # the answer every door gives it: its message, fields and status
        assert refused is not None
        raise ActionFailed(refused.message, refused.fields, status=refused.status) from exc
    except ValidationError as exc:
        raise ActionFailed(validation_message(exc)) from exc


def context(campaign: Campaign, role: str, mine: int | None, **extra: Any) -> dict[str, Any]:
    """The context every campaign page gets (the nav needs ``campaign`` and ``role``)."""
    return {"campaign": campaign, "role": role, "mine": mine, "is_gm": runs_the_turn(role), **extra}


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun in the number it takes: 1 couple, 2 couples, 0 children."""
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"


def set_choices(form: forms.BaseForm, *names: str, choices: Iterable[Any]) -> None:
    """Give the form's choice fields ``names`` the choices known only with the request (the
    campaign's houses, the caller's matches)."""
    listed = list(choices)
    for name in names:
        field = form.fields[name]
        assert isinstance(field, forms.ChoiceField), f"{name} is not a choice field"
        field.choices = listed


def shown_with(record: T, **extra: Any) -> T:
    """The record with what its template shows beside it (its age this year, who may act on it),
    set on this in-memory instance only: nothing is saved."""
    for name, value in extra.items():
        setattr(record, name, value)
    return record
