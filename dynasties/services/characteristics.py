"""A character's characteristics written out for a chronicle line, and a set-up's queue of typed rolls.
The rolls themselves are the ruleset's: ``play_of(campaign).births.roll_characteristics`` (Blood
Royale's three 3d6 read on the bands, A2: ``dynasties.play.blood_royale.births``)."""

from __future__ import annotations

from rules.errors import RuleError


def next_entered(queue: list[list[int]] | None) -> list[int] | None:
    """The next typed roll of a set-up's queue (None: nothing typed, the dice are rolled)."""
    if queue is None:
        return None
    if not queue:
        raise RuleError("Not enough typed set-up rolls were given.", code="invalid_dice")
    return queue.pop(0)


def format_characteristics(values: dict[str, int]) -> str:
    """ "Strength +1, Constitution -2, Charisma +0": the characteristics as a chronicle line writes them."""
    return ", ".join(f"{k.capitalize()} {v:+d}" for k, v in values.items())
