"""BloodLine's royal leaders (the heirs of age of a crown's present dynasty, who lead its troops and
may be lost at sea) and the diplomacy bonus a player's marriage into a minor house's royal house
gives on that minor. The rest of BloodLine's Dynastic Sequence (the set-up's families, who may try
for a child, who rolls for survival) is its play's (``dynasties/play/bloodline/sequence.py``)."""

from __future__ import annotations

from dynasties.models import Character, Dynasty
from dynasties.services.common import World
from dynasties.services.play_registry import play_of, step_of
from rules.succession import iter_succession


def royal_leaders(world: World, crown: str) -> list[Character]:
    """The variant's royal leaders: the monarch's heirs of 15 or more, in order of succession, who
    are characters of the present dynasty ("the person in line to the throne of the present
    dynasty"; "Female characters still in the Dynasty"): an heir another house controls (a daughter
    married away, her children, a spurned heir) leads nobody's troops for this crown."""
    reign = next((r for r in world.open_reigns() if r.crown == crown), None)
    if reign is None:
        return []
    record = world.crowns.get(crown)
    house = record.home_dynasty_id if record is not None and record.home_dynasty_id else None
    if house is None:
        house = next((d.pk for d in sorted(world.dynasties.values(), key=lambda d: d.pk) if d.crown == crown), None)
    of_age = play_of(world.campaign).succession.crown_terms().leaders_age
    out = []
    for pid in iter_succession(world.people, reign.holder_id, royal=world.past_holders(crown)):
        c = world.characters[pid]
        if c.age(world.year) >= of_age and c.controlled_by_id == house:
            out.append(c)
    return out


def diplomacy_bonus(world: World, player: Dynasty, minor: Dynasty) -> tuple[int, str]:
    """A player's best bonus on a minor from marriages into its royal house (+1 / +2 / +4)."""
    reign = next((r for r in world.open_reigns() if r.crown and r.crown == minor.crown), None)
    monarch = world.characters[reign.holder_id] if reign else None
    bonus_of = step_of(world.campaign, "minor_houses").terms().diplomacy_bonus
    best, why = 0, "no marriage into its royal house"
    for m in world.open_marriages:
        if m.wedding_year is None:
            continue
        for mine, theirs in ((m.husband_id, m.wife_id), (m.wife_id, m.husband_id)):
            a, b = world.characters.get(mine), world.characters.get(theirs)
            if a is None or b is None or a.controlled_by_id != player.pk:
                continue
            if b.birth_dynasty_id != minor.pk and b.controlled_by_id != minor.pk:
                continue
            spouse_of_monarch = monarch is not None and b.pk == monarch.pk
            family = monarch is not None and (
                b.pk in (monarch.father_id, monarch.mother_id) or monarch.pk in (b.father_id, b.mother_id)
            )
            bonus = bonus_of(family, spouse_of_monarch)
            if bonus > best:
                best = bonus
                why = f"{a.display_name} is married to {b.display_name}"
    return best, why
