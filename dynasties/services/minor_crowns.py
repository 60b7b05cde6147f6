"""BloodLine's minor houses at the succession: whose crown is a minor house's, and the monarch rolled
for a minor house whose monarch leaves no heir (the succession's door; the offers and the minors'
answers are minor_houses.py, which builds on the marriage services)."""

from __future__ import annotations

from collections.abc import Sequence

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import (
    Character,
    Dynasty,
    DynastyKind,
    Origin,
)
from dynasties.services.common import World
from dynasties.services.play_registry import step_of
from rules.errors import RuleError
from rules.names import given_name

REPLACED_HOW = "a monarch rolled for the minor house, 5 years younger, as the late monarch left no heir"


def home_house(world: World, crown: str) -> Dynasty | None:
    """The royal house whose country ``crown`` is (whoever controls it now)."""
    record = world.crowns.get(crown)
    if record is not None and record.home_dynasty_id is not None:
        return world.dynasties.get(record.home_dynasty_id)
    return next((d for d in world.dynasties.values() if d.crown == crown), None)


def is_minor_crown(world: World, crown: str) -> bool:
    """The crown of a minor house (its monarch leaving no heir is replaced, not a Dynastic Crisis)."""
    house = home_house(world, crown)
    return house is not None and house.kind == DynastyKind.MINOR


def roll_unmodified(box: DiceBox, character: Character, entered: Sequence[Sequence[int]] | None) -> dict[str, int]:
    """A minor house's rolled character's characteristics, unmodified, each roll logged (BloodLine: ADM,
    DIP and MIL of 1d10 each, held to 3..9)."""
    return step_of(box.campaign, "minor_houses").roll_unmodified(box, character, entered)


def stats_text(campaign: Campaign, c: Character) -> str:
    """A character's characteristics, as the chronicle shows them."""
    return step_of(campaign, "minor_houses").stats_text(c)


def minor_monarch_replaced(
    world: World,
    crown: str,
    late: Character,
    box: DiceBox,
    chronicle: Chronicle,
    *,
    entered: Sequence[Sequence[int]] | None = None,
) -> Character:
    """A minor monarch dying without issue: 'a randomly rolled monarch 5 years younger than the
    previous one takes the throne' (1d10 each for ADM/DIP/MIL, unmodified, logged; no family).
    The caller opens the reign."""
    house = home_house(world, crown)
    if house is None or house.kind != DynastyKind.MINOR:
        raise RuleError(f"{crown} is not a minor house's crown.", code="invalid")
    born = step_of(world.campaign, "minor_houses").replacement_birth_year(late.birth_year, world.year)
    used = {c.given_name for c in world.characters.values() if c.birth_dynasty_id == house.pk and c.sex == "M"}
    index = 0
    while given_name(crown, "M", index) in used and index < 12:
        index += 1
    king = Character.objects.create(
        campaign=world.campaign,
        given_name=given_name(crown, "M", index),
        sex="M",
        birth_year=born,
        dynastic_name=house.name,
        birth_dynasty=house,
        controlled_by=house,
        characteristics={},
        origin=Origin.RELATIVE,
    )
    king.characteristics = roll_unmodified(box, king, entered)
    king.save(update_fields=["characteristics"])
    world.characters[king.pk] = king
    world.refresh_person(king)
    chronicle.add(
        "created",
        f"{late.display_name} of {crown} leaves no heir: a new monarch, {king.display_name} ({king.age(world.year)}, "
        f"5 years younger than the late monarch), is rolled for the house of {house.name}: {stats_text(world.campaign, king)}.",
        character=king.pk,
        crown=crown,
    )
    return king
