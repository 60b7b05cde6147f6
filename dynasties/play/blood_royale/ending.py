"""How a game of Blood Royale ends, as ``rules.blood_royale.RULESET`` registers it: the richest
house wins, and a money target may end the game."""

from __future__ import annotations

from rules.blood_royale import RULESET


def money_wins() -> bool:
    return RULESET.money_wins


def money_target_example() -> int:
    return RULESET.money_target_example
