"""Blood Royale's provinces as pure rules (rulebook sections 11 Taxation, 13 Raising, 15 Events,
17 Controlling Provinces, 18 Capitals; optional rules F Neutral Provinces and I Changing Initial
Capitals and/or Resource Areas). Nothing here stores anything: ``dynasties.services.provinces``
keeps the register and asks these functions.

- A Home Province is "a province of his original country that he still controls" (13); a
  Neutral Province conquered by the player whose country it would have been in the Basic Game
  "becomes a Home Province after conquest" (F). So a province is a Home Province of the house
  that controls it when it belongs to one of that house's countries (its own, or one it rules).
- The capital (18): taken, "the defeated player may nominate any other controlled Home Province
  to be his or her capital ... This new Capital would not be considered to be a castle"; "If a
  time ever comes when a player has no controlled Home Province in which to locate a Capital, all
  other Provinces they control are returned to their original owners".
- Rule I's placement (i)-(v), and "the Capital may not be placed in a Province in which there is a
  Resource Area": :func:`placement_problems`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

METALS, CLOTH, FOOD, SEMI_LUXURY, LUXURY = "metals", "cloth", "food", "semi_luxury", "luxury"
BASIC = (METALS, CLOTH, FOOD)
RESOURCES = (METALS, CLOTH, FOOD, SEMI_LUXURY, LUXURY)
RESOURCE_LABELS = {
    METALS: "Metals",
    CLOTH: "Cloth",
    FOOD: "Food",
    SEMI_LUXURY: "Semi-luxury",
    LUXURY: "Luxury",
}
# Section 12: "a maximum total of nine 'basic', two semi-luxury and one luxury Trade Item counters
# will be placed on the board each Interphase": one per Resource Area.
MAX_AREAS = {"basic": 9, SEMI_LUXURY: 2, LUXURY: 1}
MAX_MARKERS_PER_COUNTRY = 3  # rule I (iii)
MAX_SAME_BASIC_PER_COUNTRY = 2  # rule I (v)

# Optional rule F: "ten such Provinces are marked at the beginning of the game".
NEUTRAL_PROVINCES: dict[str, tuple[str, str]] = {
    "England": ("Yorkshire", "East Anglia"),
    "France": ("Burgundy", "France"),
    "Germany": ("Friesland", "Swabia"),
    "Italy": ("Piedmont", "Sicily"),
    "Spain": ("Aragon", "Portugal"),
}

RULE_F = (
    "Blood Royale, optional rule F: 'If the Province would have been part of that player's country in the Basic Game, "
    "it becomes a Home Province after conquest.'"
)
RULE_18_NOMINATE = (
    "Blood Royale 18: 'the defeated player may nominate any other controlled Home Province to be his or her capital'"
)
RULE_18_NONE_LEFT = (
    "Blood Royale 18: 'If a time ever comes when a player has no controlled Home Province in which to locate a Capital, "
    "all other Provinces they control are returned to their original owners, and the player must continue as a "
    "Baronial Dynasty'"
)
RULE_I = "Blood Royale, optional rule I (Changing Initial Capitals and/or Resource Areas)"
RULE_I_CAPITAL = "the Capital may not be placed in a Province in which there is a Resource Area (rule I)"


def is_home(country: str, controller_countries: Iterable[str]) -> bool:
    """A province of ``country`` is a Home Province of a house that controls it and whose countries
    (its own, or one it rules) include ``country``."""
    return bool(country) and country in set(controller_countries)


@dataclass(frozen=True)
class Placed:
    """One province as rule I's placement sees it: its country, its Resource Area (or "") and
    whether a Capital Marker is placed in it."""

    name: str
    country: str
    resource: str = ""
    capital: bool = False


def placement_problems(placed: Sequence[Placed]) -> list[str]:
    """Rule I's limits broken by a placement of Resource Areas and Capitals, in words (empty: lawful).

    (ii) No Province may have more than one Marker; (iii) no country may have more than three
    Markers of all types, and no country can have a full set of the three basic resources; (iv) the
    Luxury and the two Semi-luxury Markers must be in three different countries; (v) no country
    should have more than 2 Basic Resources of the same type; and the Capital may not be placed in
    a Province in which there is a Resource Area. (i), the order of placing, is the order of the
    rolls, which the register does not keep (docs/rulings.md)."""
    problems: list[str] = []
    for p in placed:
        if p.resource and p.resource not in RESOURCES:
            problems.append(f"{p.name}: {p.resource!r} is not a Resource Area (one of {', '.join(RESOURCES)}).")
        if p.resource and p.capital:
            problems.append(f"{p.name} holds a Resource Area: {RULE_I_CAPITAL}; (ii) no Province may have more than one Marker.")
    counts = {"basic": 0, SEMI_LUXURY: 0, LUXURY: 0}
    for p in placed:
        if p.resource in BASIC:
            counts["basic"] += 1
        elif p.resource in (SEMI_LUXURY, LUXURY):
            counts[p.resource] += 1
    for kind, most in MAX_AREAS.items():
        if counts[kind] > most:
            label = "basic" if kind == "basic" else RESOURCE_LABELS[kind].lower()
            problems.append(f"There are {counts[kind]} {label} Resource Areas: the game has {most}.")
    by_country: dict[str, list[Placed]] = {}
    for p in placed:
        if p.country and p.resource:
            by_country.setdefault(p.country, []).append(p)
    for country, areas in sorted(by_country.items()):
        if len(areas) > MAX_MARKERS_PER_COUNTRY:
            problems.append(
                f"(iii) {country} has {len(areas)} Resource Area markers: no country may have more than "
                f"{MAX_MARKERS_PER_COUNTRY}."
            )
        kinds = [a.resource for a in areas]
        if all(k in kinds for k in BASIC):
            problems.append(f"(iii) {country} has a full set of the three basic resources: no country can have one.")
        for k in BASIC:
            if kinds.count(k) > MAX_SAME_BASIC_PER_COUNTRY:
                problems.append(
                    f"(v) {country} has {kinds.count(k)} {RESOURCE_LABELS[k].lower()} areas: no more than "
                    f"{MAX_SAME_BASIC_PER_COUNTRY} of the same type."
                )
    luxuries = [p for p in placed if p.resource in (SEMI_LUXURY, LUXURY)]
    countries = [p.country for p in luxuries]
    if len(set(countries)) < len(countries):
        problems.append("(iv) The Luxury and the two Semi-luxury Markers must be in three different countries.")
    return problems


def nominable(
    provinces: Mapping[str, tuple[str, int | None]], controller: int, countries: Iterable[str], lost: Iterable[str] = ()
) -> list[str]:
    """The provinces a house may nominate as its new capital: the Home Provinces it controls
    (``provinces``: name -> (country, controller id)), less those just lost."""
    gone = set(lost)
    mine = set(countries)
    return sorted(
        name for name, (country, who) in provinces.items() if who == controller and country in mine and name not in gone
    )
