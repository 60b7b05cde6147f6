"""What the Dynastic Sequence's API views share: the rolls an answer cites, the crown asked for (the crown's
player is the services' own: ``dynasties.services.succession_choices.crown_player``)."""

from __future__ import annotations

from api.views.actions import rolls_with_subjects
from campaign.models import Campaign, Roll
from dynasties.models import Crown, Dynasty, Reign
from rules.errors import NotFound


def rolls_by_pk(ids: list[int | None]) -> dict[int, Roll]:
    wanted = [pk for pk in ids if pk]
    if not wanted:
        return {}
    return {r.pk: r for r in rolls_with_subjects(Roll.objects.filter(pk__in=wanted))}


def require_crown(campaign: Campaign, crown: str) -> None:
    known = (
        Reign.objects.filter(campaign=campaign, crown=crown).exists()
        or Dynasty.objects.filter(campaign=campaign, crown=crown).exists()
        or Crown.objects.filter(campaign=campaign, name=crown).exists()
    )
    if not known:
        raise NotFound(f"There is no crown {crown!r} in this campaign.")
