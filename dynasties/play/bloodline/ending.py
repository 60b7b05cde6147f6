"""How a game of BloodLine ends, as ``rules.bloodline.RULESET`` registers it: no money win."""

from __future__ import annotations

from rules.bloodline import RULESET


def money_wins() -> bool:
    return RULESET.money_wins


def money_target_example() -> int:
    return RULESET.money_target_example
