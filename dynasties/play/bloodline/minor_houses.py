"""BloodLine's minor houses (RULES.md B, Minor Houses): the monarch rolled for a minor house whose
monarch leaves no heir, and a minor house's spouse, on the unmodified characteristic dice."""

from __future__ import annotations

from collections.abc import Sequence

from campaign.dice import DiceBox
from dynasties.models import Character
from dynasties.services.play_minor_houses import MinorHouseTerms
from rules import bloodline as bl
from rules.odds import Odds


def kept() -> bool:
    return True


def roll_unmodified(box: DiceBox, character: Character, entered: Sequence[Sequence[int]] | None) -> dict[str, int]:
    """ADM, DIP and MIL of 1d10 each, unmodified (held to 3..9), each roll logged."""
    values: dict[str, int] = {}
    for n, name in enumerate(bl.CHARACTERISTICS):
        roll = box.roll(
            bl.CHARACTERISTIC_DICE,
            purpose="characteristic",
            characters=[character],
            entered=entered[n] if entered is not None else None,
            detail=name,
        )
        values[name] = bl.child_value(roll.faces[0], 0)
        roll.outcome = f"{name} {values[name]}"
    return values


def stats_text(character: Character) -> str:
    return "/".join(str(character.characteristics.get(n, "?")) for n in bl.CHARACTERISTICS) + " (ADM/DIP/MIL)"


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
)


def terms() -> MinorHouseTerms:
    return TERMS
