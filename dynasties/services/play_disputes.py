"""How a ruleset settles a broken contract (issue 35): BloodLine's other players rule by majority
(B, Marriage/Betrothal); Blood Royale and the EU monarch tables put a broken binding agreement to
a parley (20.3, 20.44). The contracts' services and pages ask ``play_of(campaign).disputes``."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class DisputesPlay(Protocol):
    def by_majority(self) -> bool:
        """A breach is ruled by a majority of the other players (no parley)."""
        ...
