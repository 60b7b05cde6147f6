"""Blood Royale has no minor houses' rolled people (BloodLine's rule): every question refuses
(``wrong_ruleset``). The EU monarch tables' play uses the same."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from campaign.dice import DiceBox
from dynasties.models import Character
from dynasties.services.play_minor_houses import MinorHouseTerms
from rules.errors import RuleError


def _refuse() -> NoReturn:
    raise RuleError("Minor houses' rolled monarchs and spouses belong to the BloodLine ruleset.", code="wrong_ruleset")


def kept() -> bool:
    return False  # the GM runs its minor houses (no offers of their own)


def roll_unmodified(box: DiceBox, character: Character, entered: Sequence[Sequence[int]] | None) -> dict[str, int]:
    _refuse()


def stats_text(character: Character) -> str:
    _refuse()


def replacement_birth_year(late_birth_year: int, year: int) -> int:
    _refuse()


def terms() -> MinorHouseTerms:
    _refuse()
