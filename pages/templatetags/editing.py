"""The Edit button of a page (issue 20): shown when the policy lets the viewer edit by hand."""

from __future__ import annotations

from django import template

from campaign.permissions import may_edit_by_hand as _may_edit_by_hand

register = template.Library()


@register.filter
def may_edit_by_hand(role: str | None) -> bool:
    """``{% if role|may_edit_by_hand %}``: the policy's answer (the GM's), never the page's."""
    return _may_edit_by_hand(role)
