"""``{{ user|keeps_a_desk }}``: whether the menu shows the desk's Admin link (the policy's
``may_use_desk``: every GM of a campaign, superusers), asked once per request and user."""

from __future__ import annotations

from typing import Any

from django import template

from campaign.permissions import may_use_desk

register = template.Library()

_CACHED = "_regnal_keeps_a_desk"


@register.filter
def keeps_a_desk(user: Any) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if not hasattr(user, _CACHED):
        setattr(user, _CACHED, may_use_desk(user))
    return bool(getattr(user, _CACHED))
