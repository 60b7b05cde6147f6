"""Blood Royale's Announcements (RULES.md A5, A8) and turns: a King's widow retires, the Prince
pieces are handed out, a died-out house is founded anew as at the set-up (A3), a monarch is of age
at 15, and a turn is five years."""

from __future__ import annotations

from typing import Any

from campaign import audit
from campaign.dice import DiceBox
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty, DynastyKind, Origin, Status
from dynasties.services.common import World
from dynasties.services.play_announcements import no_houses_kept
from dynasties.services.setup import blood_royale_starting_family
from rules import blood_royale as br

houses_kept = no_houses_kept  # a house with nobody in play has died out


def widows_retire() -> bool:
    return br.KINGS_WIDOWS_RETIRE


def hand_out(world: World, chronicle: Chronicle) -> None:
    """'K' for a reigning King, numbered pieces for royal males of 20 (A2, Using the Prince pieces)."""
    year = world.year
    reigns = {r.crown: r for r in world.open_reigns()}
    wanted: dict[int, str] = {}
    for dynasty in world.dynasties.values():
        if dynasty.kind != DynastyKind.PLAYER:
            continue
        members = [
            c
            for c in world.characters.values()
            if c.status == Status.ALIVE and c.controlled_by_id == dynasty.pk and c.origin != Origin.BARON
        ]
        reign = reigns.get(dynasty.crown)
        king = world.characters.get(reign.holder_id) if reign else None
        if king is not None and king.controlled_by_id != dynasty.pk:
            king = None
        assigned = br.assign_prince_pieces(
            {c.pk: c.prince_piece for c in members},
            [world.people[c.pk] for c in members],
            world.people[king.pk] if king else None,
            year,
        )
        wanted.update(assigned)
    changed: list[Character] = []
    for character in world.characters.values():
        piece = wanted.get(character.pk, "") if character.status == Status.ALIVE else ""
        if character.prince_piece != piece:
            character.prince_piece = piece
            changed.append(character)
            if piece:
                what = "the King piece" if piece == "K" else f"Prince piece {piece}"
                chronicle.add("piece", f"{character.display_name} takes {what}.", character=character.pk)
    if changed:
        audit.bulk_update(Character, changed, ["prince_piece"])


def found_anew(
    world: World, dynasty: Dynasty, box: DiceBox, chronicle: Chronicle, tables: dict[str, Any], *, reign: bool
) -> Character:
    return blood_royale_starting_family(
        world.campaign,
        dynasty,
        world.campaign.optional_rules or {},
        box,
        None,
        chronicle,
        tables["characteristic_bands"],
        year=world.year,
        reign=reign,
    )


def of_age() -> int:
    return br.ADULT_AGE


def turn_year_given() -> bool:
    return False  # five years a turn
