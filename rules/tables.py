"""Rule tables as data: shipped defaults, validation and look-ups.

A campaign keeps its own copy of every table (the GM may edit it and restore the defaults);
these functions never read a global, they are handed the campaign's copy.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from rules.errors import InvalidTable

JSON = Any

SURVIVAL = "survival"
CHARACTERISTIC_BANDS = "characteristic_bands"

# RULES.md A5: the printed table is missing from the source; 25 and 30 needing 4 are certain.
DEFAULT_SURVIVAL: list[dict[str, int]] = [
    {"age": age, "need": need}
    for age, need in [
        (15, 3),
        (20, 3),
        (25, 4),
        (30, 4),
        (35, 5),
        (40, 5),
        (45, 6),
        (50, 7),
        (55, 8),
        (60, 9),
        (65, 10),
        (70, 11),
        (75, 12),
        (80, 13),
    ]
]

# RULES.md A2: 3d6 read on bands; the printed table is missing, this is the shipped default.
DEFAULT_CHARACTERISTIC_BANDS: list[dict[str, int]] = [
    {"low": 3, "high": 5, "value": -2},
    {"low": 6, "high": 8, "value": -1},
    {"low": 9, "high": 12, "value": 0},
    {"low": 13, "high": 15, "value": 1},
    {"low": 16, "high": 18, "value": 2},
]

BLOOD_ROYALE_DEFAULTS: dict[str, JSON] = {
    SURVIVAL: DEFAULT_SURVIVAL,
    CHARACTERISTIC_BANDS: DEFAULT_CHARACTERISTIC_BANDS,
}

BLOOD_ROYALE_TITLES: dict[str, str] = {
    SURVIVAL: "Survival numbers by age (2d6 + Constitution must reach)",
    CHARACTERISTIC_BANDS: "Characteristic bands (3d6 total to value)",
}


def defaults_for(tables: Mapping[str, JSON]) -> dict[str, JSON]:
    return copy.deepcopy(dict(tables))


def _int(row: Mapping[str, Any], key: str, where: str) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTable(f"{where}: '{key}' must be a whole number, got {value!r}.")
    return value


def _rows(data: JSON, name: str) -> Sequence[Mapping[str, Any]]:
    if not isinstance(data, list) or not data:
        raise InvalidTable(f"The {name} table must be a non-empty list of rows.")
    for i, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise InvalidTable(f"The {name} table, row {i}: each row must be an object.")
    return data


def validate_survival(data: JSON) -> list[dict[str, int]]:
    rows = _rows(data, "survival")
    out: list[dict[str, int]] = []
    last_age = -1
    for i, row in enumerate(rows, start=1):
        where = f"Survival table, row {i}"
        age, need = _int(row, "age", where), _int(row, "need", where)
        if age <= last_age:
            raise InvalidTable(f"{where}: ages must increase (age {age} comes after {last_age}).")
        if not 0 <= age <= 150:
            raise InvalidTable(f"{where}: age {age} is outside 0-150.")
        if not -10 <= need <= 30:
            raise InvalidTable(f"{where}: the number needed, {need}, is outside -10..30.")
        last_age = age
        out.append({"age": age, "need": need})
    return out


def validate_characteristic_bands(data: JSON) -> list[dict[str, int]]:
    rows = _rows(data, "characteristic bands")
    out: list[dict[str, int]] = []
    expected_low = 3
    for i, row in enumerate(rows, start=1):
        where = f"Characteristic bands, row {i}"
        low, high, value = _int(row, "low", where), _int(row, "high", where), _int(row, "value", where)
        if low != expected_low:
            raise InvalidTable(f"{where}: starts at {low} but must start at {expected_low} so every 3d6 total is covered.")
        if high < low:
            raise InvalidTable(f"{where}: high {high} is below low {low}.")
        if not -5 <= value <= 5:
            raise InvalidTable(f"{where}: value {value} is outside -5..+5.")
        expected_low = high + 1
        out.append({"low": low, "high": high, "value": value})
    if expected_low != 19:
        raise InvalidTable(f"Characteristic bands end at {expected_low - 1}; they must cover 3 to 18.")
    return out


BLOOD_ROYALE_VALIDATORS: dict[str, Any] = {
    SURVIVAL: validate_survival,
    CHARACTERISTIC_BANDS: validate_characteristic_bands,
}

# Every registered ruleset's tables (filled by rules.registry.register).
VALIDATORS: dict[str, Any] = {}
TABLE_TITLES: dict[str, str] = {}


def register_tables(validators: Mapping[str, Any], titles: Mapping[str, str]) -> None:
    """A ruleset's tables join the known tables (called by ``rules.registry.register``)."""
    VALIDATORS.update(validators)
    TABLE_TITLES.update(titles)


def validate_table(key: str, data: JSON) -> JSON:
    try:
        validator = VALIDATORS[key]
    except KeyError:
        raise InvalidTable(f"There is no rule table called {key!r}; known: {', '.join(sorted(VALIDATORS))}.") from None
    return validator(data)


def survival_need(table: Sequence[Mapping[str, int]], age: int) -> int:
    """The survival number for ``age``: an age between two listed ages reads the lower one."""
    need: int | None = None
    for row in table:
        if row["age"] <= age:
            need = row["need"]
        else:
            break
    if need is None:
        return table[0]["need"]
    return need


def characteristic_value(bands: Sequence[Mapping[str, int]], total: int) -> int:
    for row in bands:
        if row["low"] <= total <= row["high"]:
            return row["value"]
    raise InvalidTable(f"The characteristic bands do not cover a 3d6 total of {total}.")
