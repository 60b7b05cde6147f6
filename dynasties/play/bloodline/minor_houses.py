"""BloodLine's minor houses (RULES.md B, Minor Houses): the minor set-up's family, the monarch rolled
for a minor house whose monarch leaves no heir, and a minor house's spouse, on the unmodified
characteristic dice; the terms of their marriage offers."""

from __future__ import annotations

from collections.abc import Sequence

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty
from dynasties.play.bloodline import sequence
from dynasties.services.play_minor_houses import MinorHouseTerms, SetupDice
from rules import bloodline as bl
from rules.odds import Odds


def starting_family(
    campaign: Campaign, dynasty: Dynasty, box: DiceBox, chronicle: Chronicle, *, year: int, typed: SetupDice
) -> Character:
    return sequence.starting_family(campaign, dynasty, box, chronicle, year=year, typed=typed)


def roll_unmodified(box: DiceBox, character: Character, entered: Sequence[Sequence[int]] | None) -> dict[str, int]:
    """ADM, DIP and MIL of 1d10 each, unmodified (held to 3..9), each roll logged."""
    return sequence.roll_values(box, character, entered, {})


def stats_text(character: Character) -> str:
    return sequence.values_text(character)


def replacement_birth_year(late_birth_year: int, year: int) -> int:
    return bl.minor_replacement_birth_year(late_birth_year, year)


TERMS = MinorHouseTerms(
    setup_rule=bl.MINOR_SETUP_RULE,
    offers_rule=bl.MINOR_OFFERS_RULE,
    max_children=bl.MINOR_MAX_CHILDREN,
    marriage_age=bl.MINOR_MARRIAGE_AGE,
    nobility=Odds(bl.minor_nobility_chance(), bl.MINOR_NOBILITY_DICE),
    nobility_from=bl.MINOR_NOBILITY_FROM,
    dowry_multipliers=bl.DOWRY_MULTIPLIERS,
    minimum_dowry=bl.minimum_dowry,
    offer_letter=lambda stays, title: bl.OFFER_CLASS_LETTERS[bl.offer_class(stays_in_minor=stays, with_title=title)],
    box_key=bl.ROYAL_MARRIAGE_BOX_KEY,
    box_default=bl.ROYAL_MARRIAGE_BOX_DEFAULT,
    king_age_dice=bl.MINOR_KING_AGE_DICE,
    characteristics=bl.CHARACTERISTICS,
    factor_labels=bl.DOWRY_FACTOR_LABELS,
    clean_factors=bl.clean_dowry_factors,
    dowry_explanation=bl.dowry_explanation,
    offer_key=lambda stays, title, dowry, made, order: bl.offer_sort_key(
        stays_in_minor=stays, with_title=title, dowry=dowry, made_year=made, order=order
    ),
    resolution_order=bl.resolution_order,
    nobility_marries=bl.minor_nobility_marries,
    diplomacy_bonus=lambda family, spouse: bl.diplomacy_bonus(
        married_in=True, married_to_child_or_parent_of_monarch=family, spouse_of_monarch=spouse
    ),
)


def terms() -> MinorHouseTerms:
    return TERMS
