"""A character's characteristics: Blood Royale's three 3d6 rolls read on the bands (A2), each logged
against him (faces typed or rolled), and the characteristics written out for a chronicle line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campaign.dice import DiceBox
from dynasties.models import Character
from rules import blood_royale as br
from rules.dice import Entered, TypedTotal
from rules.errors import RuleError


def next_entered(queue: list[list[int]] | None) -> list[int] | None:
    """The next typed roll of a set-up's queue (None: nothing typed, the dice are rolled)."""
    if queue is None:
        return None
    if not queue:
        raise RuleError("Not enough typed set-up rolls were given.", code="invalid_dice")
    return queue.pop(0)


def roll_characteristics(
    box: DiceBox,
    character: Character,
    bands: Any,
    queue: list[list[int]] | None = None,
    entered: Sequence[Entered | None] | None = None,
) -> dict[str, int]:
    """Three 3d6 rolls read on the bands (A2), each logged against the character (typed: the
    faces of each, or its total; one typed as None is rolled)."""
    rolls = []
    for n, trait in enumerate(br.characteristic_names(character.sex)):
        typed = entered[n] if entered is not None else None
        faces: Entered | None = next_entered(queue) if typed is None else typed if isinstance(typed, TypedTotal) else list(typed)
        rolls.append(
            box.roll(br.CHARACTERISTIC_DICE, purpose="characteristic", characters=[character], entered=faces, detail=trait)
        )
    values = br.characteristics_from_totals(bands, character.sex, [sum(r.faces) for r in rolls])
    for roll in rolls:
        roll.outcome = f"{roll.detail} {values[roll.detail]:+d}"
    return values


def format_characteristics(values: dict[str, int]) -> str:
    """ "Strength +1, Constitution -2, Charisma +0": the characteristics as a chronicle line writes them."""
    return ", ".join(f"{k.capitalize()} {v:+d}" for k, v in values.items())
