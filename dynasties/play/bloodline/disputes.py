"""How BloodLine settles a broken contract, as ``rules.bloodline.RULESET`` registers it."""

from __future__ import annotations

from rules.bloodline import RULESET


def by_majority() -> bool:
    return RULESET.majority_disputes
