"""A way back for a player who forgot his password (issue 34): the GM gives him a one-time link.

The GM of a campaign makes, on the Players page, a link for a player or an observer of his table
(the policy, ``require(.., "reset_password", user=..)``, says to whom: never a superuser, a staff
account, another table's GM, nor someone who also sits at a table this GM does not run). The link
is Django's own password reset: ``/reset/<uid>/<token>/`` opens ``PasswordResetConfirmView`` (the
password validators, typed twice). Its token is Django's ``PasswordResetTokenGenerator``: a hash of
the account's password hash, last login and the time it was made, signed with the site's secret
key, so nothing is stored and the link works **once** (setting the password changes the hash it was
made from, and so does a login), until ``PASSWORD_RESET_TIMEOUT`` (3 days by default).

Making the link writes nothing but a line in the site's log (who made one for whom): the token
exists only in the answer, as an invitation's secret does."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from campaign import audit
from campaign.models import Campaign, Membership
from campaign.permissions import Actor, require
from campaign.steps import lock_campaign
from rules.errors import NotFound

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResetLink:
    """A one-time link that sets a new password for ``user``: ``path`` is the site's path of it."""

    user: User
    path: str
    expires_at: datetime


def reset_path(user: User) -> str:
    """The path of a fresh one-time reset link for ``user`` (Django's token: nothing is stored)."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)})


@transaction.atomic
def password_reset_link(*, campaign: Campaign | int, membership: int, by: Actor) -> ResetLink:
    """A one-time link setting a new password for the member ``membership`` of ``campaign``, for
    its GM to hand over (shown once on the Players page, or sent by e-mail). Refused (403) when the
    policy does not let this GM reset that account's password; 404 for a member of no such seat."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "members")
    seat = Membership.objects.select_related("user").filter(campaign=campaign, pk=membership).first()
    if seat is None:
        raise NotFound("There is no such member in this campaign.")
    require(by, campaign, "reset_password", user=seat.user)
    maker = audit.acting_user(by)
    log.info(
        "password reset link made for %s in %s by %s",
        seat.user.get_username(),
        campaign.slug,
        maker.get_username() if maker else "the system",
    )
    expires = timezone.now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    return ResetLink(user=seat.user, path=reset_path(seat.user), expires_at=expires)
