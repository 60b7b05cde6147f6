"""Who controls a character or a crown, over time: every change of ``controlled_by`` goes through
``move``, which sets it and writes a ``ControlChange`` (the caller saves the object as before)."""

from __future__ import annotations

from campaign.models import Campaign
from dynasties.models import Character, ControlChange, Crown, Dynasty

# The causes written (docs/export-format.md, ``control_changes``).
CAUSES = (
    "auction",  # an aristocratic child sold at auction
    "wedding",  # a spouse joins the other's house
    "widow_returns",  # a widow (or widower) goes back to the birth house
    "pretender",  # a Pretender passed to, or bought back by, a house
    "passed_over",  # BloodLine: a spurned heir goes to another house
    "succession",  # the new monarch's family comes to the crown's house
    "left_house",  # a claimant and family leave with the crown (a usurpation's losers)
    "union",  # a Dynastic Union: a crown goes to the other spouse's house
    "union_ends",  # the union is over: the crown goes home
    "house_restored",  # a crown given back to its home house
)


def move(
    campaign: Campaign,
    obj: Character | Crown,
    to: Dynasty | int | None,
    cause: str,
    *,
    into: list[ControlChange] | None = None,
) -> None:
    """Set ``obj.controlled_by`` to ``to`` and, when that changes it, record the change at the
    campaign's year and step (appended, unsaved, to ``into`` when given: the caller writes a turn's
    changes in one statement)."""
    assert cause in CAUSES, cause
    before = obj.controlled_by_id
    after = to.pk if isinstance(to, Dynasty) else to
    if isinstance(to, Dynasty):
        obj.controlled_by = to
    else:
        obj.controlled_by_id = to
    if before == after:
        return
    change = ControlChange(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        character=obj if isinstance(obj, Character) else None,
        crown=obj if isinstance(obj, Crown) else None,
        from_dynasty_id=before,
        to_dynasty_id=after,
        cause=cause,
    )
    if into is not None:
        into.append(change)
    else:
        change.save()
