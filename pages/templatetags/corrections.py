"""The roll log's corrections: which rolls the GM may still correct, a roll's faces as a sum."""

from __future__ import annotations

from django import template

from campaign.models import Campaign, Roll
from dynasties.services.corrections import dice_text, refusal

register = template.Library()


@register.filter
def correctable(roll: Roll, campaign: Campaign) -> bool:
    """A roll of the current step the correction service would take (``corrections`` prefetched)."""
    return refusal(campaign, roll) is None


@register.filter
def dice_sum(roll: Roll) -> str:
    """ "3 + 4 = 7" (``dynasties.services.corrections.dice_text``)."""
    return dice_text(roll)
