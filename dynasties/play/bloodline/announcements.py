"""BloodLine's Announcements and turns: a widow goes home like any other, the royal leaders are
named, a house holding a throne has not died out (a Dynastic Crisis comes at the succession), a
died-out house is founded anew as the variant's new dynasty, and the GM gives each turn's year."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty
from dynasties.play.bloodline import sequence
from dynasties.services.bloodline_sequence import royal_leaders
from dynasties.services.common import World
from dynasties.services.play_announcements import DynastySpec, europa_houses
from rules import bloodline as bl


def widows_retire() -> bool:
    return bl.KINGS_WIDOWS_RETIRE


def hand_out(world: World, chronicle: Chronicle) -> None:
    """The variant leaders go to the heirs of 15 or more in order of succession."""
    full = World(world.campaign)
    for crown in sorted(full.crowns):
        leaders = royal_leaders(full, crown)
        if leaders:
            chronicle.add(
                "leaders",
                f"Royal leaders of {crown}: " + ", ".join(f"{n}. {c.display_name}" for n, c in enumerate(leaders[:10], 1)) + ".",
                crown=crown,
                leaders=[c.pk for c in leaders[:10]],
            )


def houses_kept(world: World) -> set[int]:
    """The houses whose throne is held - the holder's house (by control or by birth), the
    crown's own house and the house controlling it. Such a house has not died out: a Dynastic Crisis
    comes only when 'there exist no members of the dynasty to inherit the throne', at a succession."""
    held: set[int | None] = set()
    for reign in world.open_reigns():
        holder = world.characters.get(reign.holder_id)
        if holder is not None:
            held |= {holder.controlled_by_id, holder.birth_dynasty_id}
        record = world.crowns.get(reign.crown)
        if record is not None:
            held |= {record.home_dynasty_id, record.controlled_by_id}
        held |= {d.pk for d in world.dynasties.values() if d.crown == reign.crown}
    return {pk for pk in held if pk is not None}


def found_anew(
    world: World, dynasty: Dynasty, box: DiceBox, chronicle: Chronicle, tables: dict[str, Any], *, reign: bool
) -> Character:
    return sequence.starting_family(world.campaign, dynasty, box, chronicle, year=world.year, reign=reign)


def default_houses(players: int, countries: Sequence[str] | None) -> list[DynastySpec]:
    return europa_houses(bl.LABEL, players, countries)


def starting_family(
    campaign: Campaign,
    dynasty: Dynasty,
    box: DiceBox,
    chronicle: Chronicle,
    *,
    queue: list[list[int]] | None,
    bands: Any,
) -> Character:
    """The variant's starting family (``sequence.starting_family``; nothing typed)."""
    return sequence.starting_family(campaign, dynasty, box, chronicle, year=campaign.start_year)


def of_age() -> int:
    return bl.ADULT_AGE


def turn_year_given() -> bool:
    return True


def prince_pieces() -> tuple[int, int]:
    return 0, 0  # no Prince pieces
