"""How a game of the EU monarch tables ends, as ``rules.eu_monarchs.RULESET`` registers it: no money win."""

from __future__ import annotations

from rules.eu_monarchs import RULESET


def money_wins() -> bool:
    return RULESET.money_wins


def money_target_example() -> int:
    return RULESET.money_target_example
