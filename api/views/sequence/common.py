"""What the Dynastic Sequence's API views share: the rolls an answer cites, the crown's player."""

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


def crown_player(campaign: Campaign, crown: str) -> int | None:
    """The dynasty whose player controls the crown now (another in a Dynastic Union)."""
    record = Crown.objects.filter(campaign=campaign, name=crown).only("controlled_by_id").first()
    if record is not None and record.controlled_by_id:
        return record.controlled_by_id
    return Dynasty.objects.filter(campaign=campaign, crown=crown).values_list("pk", flat=True).first()


def require_crown(campaign: Campaign, crown: str) -> None:
    known = (
        Reign.objects.filter(campaign=campaign, crown=crown).exists()
        or Dynasty.objects.filter(campaign=campaign, crown=crown).exists()
        or Crown.objects.filter(campaign=campaign, name=crown).exists()
    )
    if not known:
        raise NotFound(f"There is no crown {crown!r} in this campaign.")
