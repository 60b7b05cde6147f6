"""Template tags of the pages."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from campaign.undo import new_action_key

register = template.Library()


@register.simple_tag
def action_key() -> SafeString:
    """A hidden one-time key for a POST form: the same submit twice is done once."""
    return format_html('<input type="hidden" name="action_key" value="{}">', new_action_key())
