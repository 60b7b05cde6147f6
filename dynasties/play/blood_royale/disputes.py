"""How Blood Royale settles a broken contract, as ``rules.blood_royale.RULESET`` registers it."""

from __future__ import annotations

from rules.blood_royale import RULESET


def by_majority() -> bool:
    return RULESET.majority_disputes
