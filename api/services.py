"""The API's own writers: creating, revoking and checking API tokens.

A key is ``rgn_`` and 40 random URL-safe characters. Only its SHA-256 is stored (a key is random
enough that a slow password hash adds nothing); the key itself is returned once, at creation."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from api.models import ApiToken
from rules.errors import NotFound

KEY_PREFIX = "rgn_"
SHOWN = 12  # characters of the key kept for display ("rgn_" and 8 more)
LAST_USED_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often per token


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def token_create(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns it with its key (shown once, never stored)."""
    name = (name or "").strip()
    if ApiToken.objects.filter(user=user, name=name, revoked_at__isnull=True).exists():
        raise ValidationError({"name": "You already have an active token with that name."})
    key = KEY_PREFIX + secrets.token_urlsafe(30)
    token = ApiToken(user=user, name=name, key_hash=key_hash(key), prefix=key[:SHOWN])
    token.full_clean()
    with transaction.atomic():
        token.save()
    return token, key


def token_revoke(*, user: Any, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s tokens (a second revoke changes nothing)."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(user=user, pk=token_id).first()
        if token is None:
            raise NotFound("No such token.")
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
    return token


def tokens_revoke(*, tokens: Any) -> int:
    """Revoke every active token of a queryset (the admin's action); returns how many."""
    return int(tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now()))


def token_check(key: str) -> ApiToken | None:
    """The token (with its user) this key belongs to, revoked or not; None for an unknown key.
    Marks it used (at most once a minute, so reads stay one query)."""
    if not key.startswith(KEY_PREFIX):
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=key_hash(key)).first()
    if token is None or token.revoked_at is not None:
        return token
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
