"""Blood Royale has no monarchs' phase: its houses keep families, whose heirs succeed (A6); the EU
monarch tables roll their crowns' monarchs instead. Every question refuses (``wrong_ruleset``),
with the message the monarch doors gave before the play packages. BloodLine's play uses the same."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from campaign.models import Campaign, Roll
from campaign.permissions import Actor
from dynasties.models import Character, Crown, Reign
from dynasties.services.play_monarchs import (
    LOOK_UP,
    EuCountry,
    MonarchStatus,
    MonarchSuccession,
    MonarchSurvival,
    Period,
    SuccessionTerms,
    SurvivalTerms,
)
from rules import eu_monarchs
from rules.dice import DiceSource, DiceSpec
from rules.errors import RuleError


def _refuse(campaign: Campaign | None) -> NoReturn:
    plays = f"{campaign.name} plays {campaign.get_ruleset_display()}; " if campaign is not None else ""
    raise RuleError(f"{plays}the EU monarch tables belong to campaigns of the {eu_monarchs.NAME} ruleset.", code="wrong_ruleset")


def rolls_monarchs() -> bool:
    return False  # its houses keep families


def tables(campaign: Campaign) -> dict[str, Any]:
    _refuse(campaign)


def status(campaign: Campaign, crown: Crown | str) -> MonarchStatus:
    _refuse(campaign)


def status_of(campaign: Campaign, tables: Mapping[str, Any], record: Crown, reign: Reign | None = LOOK_UP) -> MonarchStatus:
    _refuse(campaign)


def values(character: Character) -> dict[str, int]:
    _refuse(None)


def period(campaign: Campaign) -> Period:
    _refuse(campaign)


def succession_dice() -> Mapping[str, DiceSpec]:
    _refuse(None)


def configure(campaign: Campaign, crown: str, settings: Mapping[str, Any]) -> Crown:
    _refuse(campaign)


def survival_roll(
    campaign: Campaign, crown: Crown | str, *, faces: Sequence[int] | None, source: DiceSource | None, by: Actor
) -> MonarchSurvival:
    _refuse(campaign)


def succession_roll(
    campaign: Campaign,
    crown: Crown | str,
    *,
    faces: Mapping[str, Sequence[int]] | None,
    given_name: str | None,
    dynastic_name: str | None,
    sex: str,
    numbered: bool,
    source: DiceSource | None,
    by: Actor,
) -> MonarchSuccession:
    _refuse(campaign)


def place_named(
    campaign: Campaign,
    crown: Crown | str,
    *,
    given_name: str,
    adm: int,
    dip: int,
    mil: int,
    no_survival_turns: int,
    reign_turns: int | None,
    dynastic_name: str | None,
    replace: bool,
    sex: str,
    numbered: bool,
) -> Reign:
    _refuse(campaign)


def ransom(campaign: Campaign, crown: Crown | str, *, major: bool | None) -> Character:
    _refuse(campaign)


def military_skill(
    campaign: Campaign, crown: Crown | str, *, faces: Mapping[str, Sequence[int]] | None, source: DiceSource | None, by: Actor
) -> dict[str, int]:
    _refuse(campaign)


def survival_terms(tables: Mapping[str, Any], status: MonarchStatus, year: int) -> SurvivalTerms:
    _refuse(None)


def succession_terms(
    tables: Mapping[str, Any], status: MonarchStatus, state: Mapping[str, Any], former: Character | None
) -> SuccessionTerms:
    _refuse(None)


def board_line(tables: Mapping[str, Any], status: MonarchStatus, roll: Roll) -> str:
    _refuse(None)


def turkish_line(turkish: str) -> str:
    _refuse(None)


def dice() -> DiceSpec:
    _refuse(None)


def characteristics() -> tuple[str, ...]:
    _refuse(None)


def leader_order() -> tuple[str, ...]:
    _refuse(None)


def after_crisis(tables: Mapping[str, Any]) -> Sequence[int]:
    _refuse(None)


def doge(tables: Mapping[str, Any], crown: str, state: Mapping[str, Any]) -> bool:
    _refuse(None)


def minority_at(tables: Mapping[str, Any], age: int) -> str:
    _refuse(None)


def default_tables() -> dict[str, Any]:
    _refuse(None)


def is_major(tables: Mapping[str, Any], country: str) -> bool:
    _refuse(None)


def known_country(tables: Mapping[str, Any], country: str) -> bool | None:
    _refuse(None)


def period_at(tables: Mapping[str, Any], turn: int) -> Period:
    _refuse(None)


def turn_of(tables: Mapping[str, Any], campaign_turn: int) -> int:
    _refuse(None)


def start_year_of_turn(turn: int) -> int:
    _refuse(None)


def start_at(campaign: Campaign, tables: Mapping[str, Any], first_turn: int) -> dict[str, Any]:
    _refuse(campaign)


def check_first_monarch(
    c: EuCountry, tables: Mapping[str, Any], period: Period | None, turn: int, problems: dict[str, str]
) -> None:
    _refuse(None)


def named_row(tables: Mapping[str, Any], c: EuCountry) -> Mapping[str, Any] | None:
    _refuse(None)


def split_numeral(name: str) -> tuple[str, int | None]:
    _refuse(None)


def value_range() -> tuple[int, int]:
    _refuse(None)


def military_dice() -> DiceSpec:
    _refuse(None)


def military_note(tables: Mapping[str, Any], mil: int, bonus: Mapping[str, int]) -> str:
    _refuse(None)


def ransom_words(tables: Mapping[str, Any], *, major: bool, currency: str) -> str:
    _refuse(None)


def named_monarchs(tables: Mapping[str, Any], country: str) -> list[Mapping[str, Any]]:
    _refuse(None)


def setup_countries(tables: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    _refuse(None)


def period_rows(tables: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    _refuse(None)
