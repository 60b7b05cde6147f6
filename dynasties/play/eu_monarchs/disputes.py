"""How the EU monarch tables settle a broken contract, as ``rules.eu_monarchs.RULESET`` registers it."""

from __future__ import annotations

from rules.eu_monarchs import RULESET


def by_majority() -> bool:
    return RULESET.majority_disputes
