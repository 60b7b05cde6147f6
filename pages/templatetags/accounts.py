"""``{% signup_is_open as open %}``: whether the site lets anyone make an account (the login page)."""

from __future__ import annotations

from django import template

from campaign.accounts import signup_open

register = template.Library()


@register.simple_tag
def signup_is_open() -> bool:
    return signup_open()
