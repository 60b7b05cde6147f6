"""BloodLine's minor houses (issue 35): what a ruleset plays for the minor houses' own rules, asked by
``dynasties.services.minor_crowns`` through ``play_of(campaign).minor_houses``.

BloodLine rolls a monarch for a minor house whose monarch leaves no heir, and a minor house's spouse,
with the unmodified characteristic dice; Blood Royale and the EU monarch tables have no such rule and
refuse (``wrong_ruleset``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from campaign.dice import DiceBox
from dynasties.models import Character
from rules.odds import Odds


@dataclass(frozen=True)
class MinorHouseTerms:
    """What the minor houses' forms quote and work out (BloodLine, Minor Houses; its table events)."""

    setup_rule: str  # the rule a minor house is set up by, as cited
    offers_rule: str  # the rule of the minors' marriage offers, as cited
    max_children: int  # the most children a minor house's set-up can give its King
    marriage_age: int  # a minor child younger than this waits
    nobility: Odds  # a minor child with no acceptable offer weds into its own nobility
    nobility_from: int  # ... on this or more (on 1d10)
    dowry_multipliers: Mapping[str, int]  # a dowry's factors, each multiplying the box's rating
    minimum_dowry: Callable[[int, Sequence[str]], int]  # the least dowry for a box rating and factors
    offer_letter: Callable[[bool, bool], str]  # an offer's class (a-d) for (stays in the minor, with a title)
    box_key: str  # where a minor crown's Royal Marriage box rating is kept (``Crown.state``)
    box_default: int  # the rating while the GM has entered none


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

    def terms(self) -> MinorHouseTerms:
        """The minor houses' terms (refused where the ruleset keeps none)."""
        ...
