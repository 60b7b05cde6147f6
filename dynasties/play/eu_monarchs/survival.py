"""The EU monarch tables' Survival: no family member rolls (each crown's monarch rolls the 1d10
monarch table, ``services.eu_monarchs``); Survival closes once every crown has rolled and every
throne is filled."""

from __future__ import annotations

from collections.abc import Mapping

from campaign.models import Campaign
from dynasties.play.blood_royale.survival import death_line as death_line
from dynasties.play.blood_royale.survival import effective_ages as effective_ages  # real ages only
from dynasties.play.blood_royale.survival import odds as odds  # of nobody: nobody is due
from dynasties.play.blood_royale.survival import reading as reading
from dynasties.play.blood_royale.survival import roll as roll  # of nobody: nobody is due
from dynasties.play.blood_royale.survival import rolled_odds as rolled_odds
from dynasties.play.blood_royale.survival import survival_dice as survival_dice  # the family dice, as before
from dynasties.services.common import World
from dynasties.services.monarchs_view import SURVIVAL, monarchs_board
from dynasties.services.play_registry import SurvivalDue, SurvivalResult, nothing_after_successions
from rules import eu_monarchs as eu
from rules.errors import RuleError


def due(campaign: Campaign, world: World, tables: Mapping[str, object]) -> list[SurvivalDue]:
    return []  # a monarch's survival is the 1d10 monarch roll


def adult_age() -> int:
    return eu.ADULT_AGE


def pass_certain(campaign: Campaign) -> list[SurvivalResult]:
    return []


def before_close(campaign: Campaign) -> None:
    """Every crown's monarch rolled, every throne filled."""
    to_roll = monarchs_board(campaign).to_roll
    if to_roll:
        names = ", ".join(f"{r.name} ({'survival' if r.due == SURVIVAL else 'the succession'})" for r in to_roll)
        raise RuleError(
            f"{len(to_roll)} crown{'s' if len(to_roll) != 1 else ''} still to roll before Survival closes: {names}.",
            code="survival_pending",
        )


after_successions = nothing_after_successions
