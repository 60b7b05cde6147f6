"""A crown's Stability track and its revolts (BloodLine and the EU monarch tables): every change of
the marker (``stability``), every revolt to roll (``revolt``), with their history, and the GM's own
door for a change the board decided (``crown_stability_change``). BloodLine's succession consequences
that move the marker (the price of disputed successions, minors, unions, the Dynastic Crisis, the
Turkish options) are its play's (``dynasties/play/bloodline/law.py``)."""

from __future__ import annotations

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Crown, CrownEvent, CrownEventKind, Reign
from dynasties.services.common import World
from rules import crowns as board
from rules import stability as track
from rules.errors import NotFound


def stability(
    world: World,
    record: Crown,
    delta: int,
    reason: str,
    chronicle: Chronicle,
    *,
    cause: str = "",
    reign: Reign | None = None,
) -> CrownEvent:
    """Every Stability change of a crown (BloodLine and EU monarchs): the marker moves on the -3..+3
    track (``rules.stability.change``). The history keeps the rule's change (``delta``) and where the
    marker stands (``stability_after``), so levels the track's end cut off stay on the record; the
    chronicle line says so (docs/rulings.md, "The Stability track")."""
    moved = track.change(record.stability, delta)
    record.stability = moved.after
    record.save(update_fields=["stability"])
    note = f"{moved.note()}; " if moved.cut_short else ""
    chronicle.add(
        "stability",
        f"{record.name}: {delta:+d} Stability ({reason}); {note}now {moved.after:+d}.",
        crown=record.name,
        asked=delta,
        applied=moved.applied,
    )
    return CrownEvent.objects.create(
        campaign=world.campaign,
        crown=record,
        year=world.year,
        kind=CrownEventKind.STABILITY,
        delta=delta,
        stability_after=moved.after,
        reason=reason[:200],
        cause=cause,
        reign=reign,
    )


def revolt(
    world: World,
    record: Crown,
    count: int,
    reason: str,
    chronicle: Chronicle,
    *,
    cause: str = "",
    reign: Reign | None = None,
) -> CrownEvent:
    chronicle.add("revolt", f"{record.name}: {count} revolt{'s' if count != 1 else ''} to roll ({reason}).", crown=record.name)
    return CrownEvent.objects.create(
        campaign=world.campaign,
        crown=record,
        year=world.year,
        kind=CrownEventKind.REVOLT,
        delta=count,
        stability_after=record.stability,
        reason=reason[:200],
        cause=cause,
        reign=reign,
    )


@transaction.atomic
def crown_stability_change(
    *, campaign: Campaign | int, crown: str, delta: int | None = None, reason: str = "", cause: str = "table", by: Actor
) -> CrownEvent:
    """Record a Stability change the board decided, with its cause as the rulebook names it
    (``rules.crowns.BOARD_CAUSES``: a war lost, a bankruptcy, a full peace, Enhance Stability,
    exceptional levies; ``table``, the default: another, said in ``reason``): the rule's own change
    where it fixes one, else ``delta``. The marker moves on the -3..+3 track. The GM records it."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    change = board.board_change(cause, delta, reason)
    world = World(campaign, living_only=True)
    if crown not in world.crowns:
        raise NotFound(f"There is no crown called {crown!r} in {campaign.name}.", fields={"crown": "unknown"})
    found = board.CAUSES[cause]
    said = reason.strip()
    why = said if found.key == "table" else found.label.lower() + (f": {said}" if said else "")
    chronicle = Chronicle(campaign)
    event = stability(world, world.crowns[crown], change, why, chronicle, cause=found.key, reign=open_reign(world, crown))
    chronicle.flush()
    return event


def open_reign(world: World, crown: str) -> Reign | None:
    """The crown's reign now (the one a Stability change is tied to), if any."""
    return next((r for r in world.open_reigns() if r.crown == crown), None)
