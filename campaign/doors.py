"""What every door (the pages, the API, the trees, the printables, the GEDCOM export) does the same
way before it reaches a service: find the campaign of the URL for a member of it, and run a write
as one step action.

An outsider hears 404, word for word the same whether the campaign exists or not (he cannot tell a
secret campaign from a made-up one); who is a member, and in which seat, is
``campaign.permissions.role_of``'s to say. The doors' own modules (``pages.common``,
``api.common``, ``pages.trees``, ``pages.prints``, ``pages.gedcom``) call
:func:`member` and decide nothing about membership themselves.

A write goes through :func:`run_action`: ``campaign.undo.step_action`` with the requesting user as
the actor, keyed by the door's one-time key (a page's form key, the API's ``Idempotency-Key``). What
a refusal answers (its status, code, message, fields) is :func:`refusal`'s, for every door; each
draws it its own way (a page's message, the API's error body)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import Http404

from campaign.models import Campaign
from campaign.permissions import Forbidden, Seen, member_of
from campaign.undo import KeyUse, step_action
from rules.errors import RuleError

T = TypeVar("T")

NO_SUCH_CAMPAIGN = "No such campaign."


@contextmanager
def refused_as_missing(missing: str = NO_SUCH_CAMPAIGN) -> Iterator[None]:
    """Around a service call whose refusal (the policy's ``Forbidden``) the door answers as for what
    does not exist: a page only its GM may see (backups, the Players page) is 404 to anyone else."""
    try:
        yield
    except Forbidden:
        raise Http404(missing) from None


def member(request: Any, slug: str, *, missing: str = NO_SUCH_CAMPAIGN) -> tuple[Campaign, str, int | None]:
    """The campaign of ``slug``, the requesting user's role in it and his dynasty id; 404 (saying
    ``missing``) for anyone who is not a member, as for a campaign that does not exist."""
    campaign, role, dynasty = member_of(request.user, slug)  # one query: the seat with its campaign
    if campaign is None or role is None:  # one answer, word for word, for both
        raise Http404(missing)
    return campaign, role, dynasty


def acting_user(request: Any) -> Any:
    """Whom a request acts for: its user if logged in, else no one (``None``: the policy refuses it)."""
    return request.user if request.user.is_authenticated else None


def run_action(
    request: Any,
    campaign: Campaign,
    label: str,
    action: Callable[[Campaign], T],
    *,
    key: str | None,
    door: str,
    use: KeyUse | None = None,
    seen: Seen = Seen.GM,
) -> T:
    """Run ``action`` (which calls the services with the locked campaign) as one step action of
    ``door`` (``"page"``, ``"api"``) for the requesting user: one transaction, the undo checkpoint
    of the step, the one-time ``key`` (``use``: what an API key is bound to). Raises what
    ``step_action`` raises; a refused action leaves nothing behind. ``seen``: who the services say
    see the write, counted by the step action's lock (``step_action``)."""
    return step_action(
        campaign=campaign, key=key, label=label, action=action, by=acting_user(request), door=door, use=use, seen=seen
    )


# --- What a refusal answers ------------------------------------------------------------------------
# One mapping, for every door, of an error to the answer it gets: its HTTP status, its stable code,
# its message and the fields it names. The kernel knows no template and no REST framework: the mapping
# is data, and each door draws it its own way (a page at that status, the API's error body).

NOT_FOUND = "Not found."
NOT_ALLOWED = "You may not do this."


@dataclass(frozen=True)
class Refusal:
    """What a door answers for a refused request: ``status``, ``code``, ``message``, ``fields``."""

    status: int
    code: str
    message: str
    fields: dict[str, str] = field(default_factory=dict)


def refusal(exc: BaseException) -> Refusal | None:
    """The answer to ``exc`` at every door, or None for an error no door expects (a 500).

    - a ``RuleError`` keeps its own status and code (``NotFound`` 404, the policy's ``Forbidden``
      403, ``StepOrderError``, ``AlreadyDone`` and ``NotOpen`` 409, ``KeyReused`` 422, the rest 400);
    - Django's ``Http404`` is 404 ``not_found``, its ``PermissionDenied`` 403 ``permission_denied``."""
    if isinstance(exc, RuleError):
        return Refusal(exc.status, exc.code, exc.message, dict(exc.fields))
    if isinstance(exc, Http404):
        return Refusal(404, "not_found", str(exc) or NOT_FOUND)
    if isinstance(exc, PermissionDenied):
        return Refusal(403, "permission_denied", str(exc) or NOT_ALLOWED)
    return None


def status_of(exc: BaseException) -> int | None:
    """The HTTP status ``exc`` answers at every door (None: none expected, a 500)."""
    found = refusal(exc)
    return found.status if found is not None else None


class _Signed(Protocol):
    user: Any


def signed_in(request: _Signed) -> User:
    """The caller of a door that requires a login (``login_required``, the API's ``IsAuthenticated``):
    a user, never the anonymous one."""
    user = request.user
    assert isinstance(user, User), "this door is called signed in"
    return user
