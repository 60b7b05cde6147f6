"""The automatic player corrects a die after its step closed (issue 34), as a table does when a die
read wrong is noticed later: at Marriages of every fourth turn, the first survival roll of the turn
whose two dice differ is typed again with its faces the other way round (the GM misread which die
showed what). The outcome stays, so the game and the random stream go on exactly as without it,
while the correction runs the whole late path (``dynasties.services.corrections``: a roll of a
closed step, what was done since checked). ``late_corrections`` counts them for ``LAW``."""

from __future__ import annotations

from campaign.models import Campaign, Roll, Step
from campaign.permissions import Actor
from dynasties.services.corrections import correct_roll, refusal

EVERY = 4
"""A late correction at every this many turns."""


def play_late_correction(campaign: Campaign, *, by: Actor) -> bool:
    """At Marriages: one survival die of this turn corrected, its faces swapped. Whether one was."""
    if campaign.step != Step.MARRIAGES or campaign.turn_number % EVERY:
        return False
    rolls = Roll.objects.filter(
        campaign=campaign, year=campaign.current_year, step=Step.SURVIVAL, purpose="survival", corrections__isnull=True
    ).prefetch_related("corrections")
    for roll in rolls.order_by("pk")[:50]:
        if len(roll.faces) == 2 and roll.faces[0] != roll.faces[1] and refusal(campaign, roll) is None:
            correct_roll(campaign=campaign, roll=roll, faces=[roll.faces[1], roll.faces[0]], by=by)
            return True
    return False


def late_corrections(campaign: Campaign) -> int:
    """The dice corrected after their step closed (a correction made at a later step than its roll's)."""
    return Roll.objects.filter(campaign=campaign, corrects__isnull=False, purpose="survival").count()
