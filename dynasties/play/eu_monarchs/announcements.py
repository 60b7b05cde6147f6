"""The EU monarch tables' Announcements and turns: a King's widow retires (families kept by hand
follow Blood Royale), nothing is handed out, no house is founded anew (the houses keep no families:
an empty throne waits for its succession roll), and a turn is the ruleset's length."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty
from dynasties.play.blood_royale.announcements import found_anew as found_anew  # never asked: no families
from dynasties.play.blood_royale.announcements import houses_kept as houses_kept
from dynasties.play.blood_royale.announcements import turn_year_given as turn_year_given
from dynasties.services.common import World
from dynasties.services.play_announcements import DynastySpec, europa_houses
from rules import eu_monarchs as eu


def widows_retire() -> bool:
    return eu.KINGS_WIDOWS_RETIRE


def hand_out(world: World, chronicle: Chronicle) -> None:
    """No Prince pieces and no royal leaders."""


def of_age() -> int:
    return eu.ADULT_AGE


def default_houses(players: int, countries: Sequence[str] | None) -> list[DynastySpec]:
    return europa_houses(eu.LABEL, players, countries)


def starting_family(
    campaign: Campaign,
    dynasty: Dynasty,
    box: DiceBox,
    chronicle: Chronicle,
    *,
    queue: list[list[int]] | None,
    bands: Any,
) -> Character | None:
    return None  # each throne starts vacant: a succession roll (or a named monarch) fills it


def prince_pieces() -> tuple[int, int]:
    return 0, 0  # no Prince pieces
