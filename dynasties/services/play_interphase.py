"""The Interphase as a ruleset plays it (issue 35): Blood Royale's taxes, forces and the Treasury's
payments (RULES.md A8), and the cashing-in of resource sets that ends its turn. A ruleset without
an Interphase registers none (``Play.interphase`` is ``None``): its services refuse, its pages say
so, and the province register (Blood Royale's map) is not kept."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rules import interphase as ip


@runtime_checkable
class InterphasePlay(Protocol):
    """What the Interphase services ask the ruleset: every line of a house's Interphase and of its
    cashing-in, computed from what the player entered."""

    def interphase_lines(
        self, entry: ip.InterphaseEntry, *, cash: int, first_turn: bool = False, currency: str = "Crowns"
    ) -> ip.InterphaseResult: ...

    def cash_in_lines(
        self, *, basic_sets: int = 0, semi_luxury_sets: int = 0, luxury_sets: int = 0, cash: int, currency: str = "Crowns"
    ) -> ip.CashInResult: ...
