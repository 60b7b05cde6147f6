"""BloodLine's minor houses (issue 35): what a ruleset plays for the minor houses' own rules, asked by
``dynasties.services.minor_crowns`` through ``play_of(campaign).minor_houses``.

BloodLine rolls a monarch for a minor house whose monarch leaves no heir, and a minor house's spouse,
with the unmodified characteristic dice; Blood Royale and the EU monarch tables have no such rule and
refuse (``wrong_ruleset``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from campaign.dice import DiceBox
from dynasties.models import Character


@runtime_checkable
class MinorHousesPlay(Protocol):
    """The minor houses' rolled people (BloodLine, Minor Houses)."""

    def kept(self) -> bool:
        """Whether the ruleset's minor houses run themselves and make marriage offers (False: the
        minor houses' services refuse, their table events are not offered)."""
        ...

    def roll_unmodified(self, box: DiceBox, character: Character, entered: Sequence[Sequence[int]] | None) -> dict[str, int]:
        """A minor house's rolled character's characteristics, unmodified (each roll logged)."""
        ...

    def stats_text(self, character: Character) -> str:
        """A character's characteristics, as the chronicle shows them."""
        ...

    def replacement_birth_year(self, late_birth_year: int, year: int) -> int:
        """The birth year of the monarch rolled for a minor house whose monarch left no heir."""
        ...
