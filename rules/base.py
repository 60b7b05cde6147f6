"""The interface every ruleset module offers (a module satisfies this Protocol structurally).

Services ask ``get_ruleset(campaign.ruleset)`` for it; the Europa Universalis rulesets will be
modules of the same shape."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from rules.dice import DiceSpec
from rules.people import Person


class Ruleset(Protocol):
    NAME: str
    LABEL: str
    START_YEAR: int
    TURN_LENGTH: int
    ADULT_AGE: int
    BIRTH_DICE: DiceSpec
    SEX_DICE: DiceSpec
    CHARACTERISTIC_DICE: DiceSpec
    SURVIVAL_DICE: DiceSpec
    OPTIONAL_RULES: dict[str, str]
    DEFAULT_TABLES: dict[str, Any]
    KINGS_WIDOWS_RETIRE: bool  # a King's widow retires instead of going home (Blood Royale, A5)
    TREASURY_PAYS_MATCHES: bool  # the Treasury pays Crowns at weddings and for a new monarch's spouse (A6)

    def clean_options(self, options: Mapping[str, Any] | None) -> dict[str, bool]: ...

    def characteristic_names(self, sex: str) -> tuple[str, str, str]: ...

    def birth_succeeds(self, faces: Sequence[int]) -> bool: ...

    def sex_from_faces(self, faces: Sequence[int]) -> str: ...


    def marriage_problems(
        self,
        husband: Person,
        wife: Person,
        year: int,
        *,
        wedding: bool,
        husband_taken: bool = False,
        wife_taken: bool = False,
        husband_never_marries: bool = False,
        wife_never_marries: bool = False,
    ) -> list[str]: ...
