"""BloodLine's minor houses (issue 35): what a ruleset plays for the minor houses' own rules, asked by
``dynasties.services.minor_crowns`` and ``dynasties.services.minor_houses`` through
``step_of(campaign, "minor_houses")``.

BloodLine sets a minor house up by the minor set-up, rolls a monarch for a minor house whose monarch
leaves no heir, and a minor house's spouse, with the unmodified characteristic dice, and its minor
houses answer the players' marriage offers; Blood Royale and the EU monarch tables have no such rule:
their plays register None and ``step_of`` refuses (``wrong_ruleset``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty
from rules.dice import DiceSpec
from rules.odds import Odds


@dataclass(frozen=True)
class SetupDice:
    """The set-up's dice typed at the table (each None: the server rolls it): the minor King's age
    (2d10), the King's and the wife's ADM, DIP and MIL (1d10 each), and each child's sex die then
    ADM, DIP and MIL, eldest first."""

    king_age: Sequence[int] | None = None
    king: Sequence[int] | None = None
    wife: Sequence[int] | None = None
    children: Sequence[Sequence[int] | None] = ()


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
    king_age_dice: DiceSpec  # the minor set-up's King's age
    characteristics: tuple[str, ...]  # a rolled character's characteristics, in the order typed
    factor_labels: Mapping[str, str]  # each dowry factor, as a refusal names it
    clean_factors: Callable[[Sequence[str]], tuple[str, ...]]  # known factors, each once, in order (else refused)
    dowry_explanation: Callable[[int, Sequence[str]], str]  # how a minimum dowry is reckoned, spelt out
    offer_key: Callable[[bool, bool, int, int, int], tuple[int, ...]]  # (stays, title, dowry, made, order): best first
    resolution_order: Callable[[Sequence[tuple[int, int, int]]], list[int]]  # ids of (id, born, order), eldest first
    nobility_marries: Callable[[Sequence[int]], bool]  # the nobility roll's faces wed the child
    diplomacy_bonus: Callable[[bool, bool], int]  # a marriage into a minor's royal house: (to the monarch's
    # child or parent, to the monarch) -> the player's bonus on the minor


@runtime_checkable
class MinorHousesPlay(Protocol):
    """The minor houses' rolled people (BloodLine, Minor Houses): registered by a ruleset whose minor
    houses run themselves and answer marriage offers (the others register None)."""

    def starting_family(
        self, campaign: Campaign, dynasty: Dynasty, box: DiceBox, chronicle: Chronicle, *, year: int, typed: SetupDice
    ) -> Character:
        """A minor house's family by the minor set-up (``typed``: the table's dice), its King reigning
        from ``year``; the King."""
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
        """The minor houses' terms."""
        ...
