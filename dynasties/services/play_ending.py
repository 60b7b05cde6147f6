"""How a ruleset's game is won and may end early (issue 35): Blood Royale's richest house wins and a
money target may end the game (Blood Royale 3, 22); the other rulesets keep no money win. The end's
settings, its final table and its pages ask ``play_of(campaign).ending``."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class EndingPlay(Protocol):
    def money_wins(self) -> bool:
        """The most money wins the game, and a money target may end it."""
        ...

    def money_target_example(self) -> int:
        """The money target the rulebook gives as its example (0: none)."""
        ...
