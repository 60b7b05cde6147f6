"""The EU monarch tables' operations: their demo (logins ``eu-...``) and the automatic player's law,
in the order it plays it (the seeded campaigns replay byte for byte: the order is the golden exports')."""

from __future__ import annotations

from typing import Any

from campaign.models import Campaign
from campaign.permissions import Actor
from dynasties.services.eu_setup import HISTORICAL, ROLL, EuCountry
from operations import services
from operations import simulation as sim
from operations.simulation import LawPart
from rules.dice import DiceSource
from rules.eu_monarchs import NAME

# The EU demo's countries: five majors (a player's house and a login each), Venice with its Doge and
# Denmark, a minor house (no login: the GM runs them); the aid's monarch at the start where it names one.
DEMO_COUNTRIES = ("France", "England", "Spain", "Austria", "Turkey", "Venice", "Denmark")
DEMO_FIRST: dict[str, dict[str, Any]] = {
    "France": {"first": HISTORICAL, "named": "Charles VIII"},
    "England": {"first": HISTORICAL, "named": "Henry VII"},
    "Spain": {"first": HISTORICAL, "named": "Isabel and Fernando", "settings": {"dynastic_alliances": 0}},
    "Turkey": {"first": HISTORICAL, "named": "Bayezid II"},
    "Venice": {"first": HISTORICAL, "named": "Barbarigo"},
}

DEMO = services.Demo(
    slug="demo-eu-monarchs",
    name="Demo EU Monarchs Campaign",
    prefix="eu-",
    countries=tuple(EuCountry(crown, **DEMO_FIRST.get(crown, {"first": ROLL})) for crown in DEMO_COUNTRIES),
)


def play_law(campaign: Campaign, source: DiceSource, wed: list[int], *, by: Actor) -> None:
    sim.play_monarchs_law(campaign, source, by=by)
    sim.play_stability(campaign, source, by=by)


LAW = (
    LawPart("monarchs' survival", rolls=("monarch_survival",)),
    LawPart("successions", rolls=("monarch_succession",)),
    LawPart("the Doge", count=lambda c: sim.crown_rolls(c, "Venice")),
    LawPart("Poland's elections", count=lambda c: sim.crown_rolls(c, "Poland")),
    LawPart("military skill", rolls=("monarch_military",)),
    LawPart("Turkish column", kinds=("pasha",), count=lambda c: sim.crown_lines(c, "Turkey", "revolt")),
    LawPart("Dynastic Crises", kinds=("dynastic_crisis",)),
    LawPart("ransoms", postings=("ransom",), count=lambda c: sim.lines_with(c, "payment_owed", "ransom")),
    LawPart("Stability changed by the board", count=lambda c: sim.board_stability(c)),
)


def register() -> None:
    """Called once, by ``OperationsConfig.ready()``."""
    services.register_demo(NAME, DEMO)
    sim.register_law(NAME, player=play_law, parts=LAW)
