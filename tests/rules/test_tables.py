"""Rule tables as data (RULES.md A5 survival table, A2 characteristic bands)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from rules import tables as T
from rules.errors import InvalidTable

# --- A5 Survival: the default table -----------------------------------------------------------------


def test_a5_default_survival_table_is_as_the_digest_prints_it() -> None:
    """A5: | age | 15 | 20 | 25 | 30 | 35 | 40 | 45 | 50 | 55 | 60 | 65 | 70 | 75 | 80+ |
    | needs | 3 | 3 | 4 | 4 | 5 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 |"""
    ages = [15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80]
    needs = [3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert [{"age": a, "need": n} for a, n in zip(ages, needs, strict=True)] == T.DEFAULT_SURVIVAL
    assert T.validate_survival(T.DEFAULT_SURVIVAL) == T.DEFAULT_SURVIVAL


def test_a5_ages_25_and_30_need_4() -> None:
    """A5, the two certain points: "A mother aged 30 needs 4 or more to survive"; "a character born
    in 1310 would be 25 in 1335, and would have to make a Survival Roll of 4 or more"."""
    assert T.survival_need(T.DEFAULT_SURVIVAL, 30) == 4
    assert T.survival_need(T.DEFAULT_SURVIVAL, 25) == 4


@pytest.mark.parametrize(
    ("age", "need"),
    [
        (15, 3),
        (16, 3),
        (19, 3),
        (20, 3),
        (24, 3),
        (26, 4),
        (29, 4),
        (34, 4),
        (35, 5),
        (44, 5),
        (49, 6),
        (50, 7),
        (54, 7),
        (79, 12),
        (80, 13),
        (81, 13),
        (95, 13),
        (120, 13),
    ],
)
def test_a5_an_age_between_listed_ages_reads_the_lower_one(age: int, need: int) -> None:
    """A5: "An age between two listed ages reads the lower one (age 19 needs what 15 needs)"; 80+ reads 13."""
    assert T.survival_need(T.DEFAULT_SURVIVAL, age) == need


def test_a5_age_19_reads_15s_number_even_when_15_and_20_differ() -> None:
    table = [{"age": 15, "need": 2}, {"age": 20, "need": 6}]
    assert T.survival_need(table, 19) == 2
    assert T.survival_need(table, 20) == 6


def test_a5_every_listed_age_reads_its_own_number() -> None:
    for row in T.DEFAULT_SURVIVAL:
        assert T.survival_need(T.DEFAULT_SURVIVAL, row["age"]) == row["need"]


def test_a5_below_the_first_listed_age_reads_the_first_number() -> None:
    assert T.survival_need(T.DEFAULT_SURVIVAL, 10) == 3
    assert T.survival_need([{"age": 15, "need": 5}], 3) == 5


def test_a5_a_gm_edited_table_is_the_one_read() -> None:
    edited = T.validate_survival([{"age": 0, "need": 2}, {"age": 30, "need": 9}])
    assert T.survival_need(edited, 29) == 2
    assert T.survival_need(edited, 30) == 9


def test_defaults_for_is_a_deep_copy() -> None:
    copied = T.defaults_for(T.BLOOD_ROYALE_DEFAULTS)
    assert copied == T.BLOOD_ROYALE_DEFAULTS
    copied[T.SURVIVAL][0]["need"] = 99
    copied[T.CHARACTERISTIC_BANDS].pop()
    assert T.DEFAULT_SURVIVAL[0]["need"] == 3
    assert len(T.DEFAULT_CHARACTERISTIC_BANDS) == 5
    assert T.BLOOD_ROYALE_DEFAULTS[T.SURVIVAL] is T.DEFAULT_SURVIVAL


# --- A5 Survival: validation -------------------------------------------------------------------------


def _survival(*rows: tuple[Any, Any]) -> list[dict[str, Any]]:
    return [{"age": a, "need": n} for a, n in rows]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (_survival((15, 3), (15, 4)), "Survival table, row 2: ages must increase (age 15 comes after 15)."),
        (_survival((15, 3), (25, 4), (20, 5)), "Survival table, row 3: ages must increase (age 20 comes after 25)."),
    ],
)
def test_a5_survival_validator_refuses_non_increasing_ages(rows: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(InvalidTable) as info:
        T.validate_survival(rows)
    assert info.value.message == message
    assert info.value.code == "invalid_table"


@pytest.mark.parametrize(
    ("rows", "fragment"),
    [
        (_survival(("15", 3)), "Survival table, row 1: 'age' must be a whole number, got '15'."),
        (_survival((15, 3.5)), "Survival table, row 1: 'need' must be a whole number, got 3.5."),
        (_survival((15, 3), (20, True)), "Survival table, row 2: 'need' must be a whole number, got True."),
        (_survival((15, 3), (20.0, 3)), "Survival table, row 2: 'age' must be a whole number, got 20.0."),
        ([{"age": 15}], "Survival table, row 1: 'need' must be a whole number, got None."),
    ],
)
def test_a5_survival_validator_refuses_non_integers(rows: list[dict[str, Any]], fragment: str) -> None:
    with pytest.raises(InvalidTable) as info:
        T.validate_survival(rows)
    assert info.value.message == fragment


@pytest.mark.parametrize("data", [[], None, {}, {"age": 15, "need": 3}, "15:3", ()])
def test_a5_survival_validator_refuses_empty_or_non_list_tables(data: Any) -> None:
    with pytest.raises(InvalidTable, match=r"^The survival table must be a non-empty list of rows\.$"):
        T.validate_survival(data)


def test_a5_survival_validator_refuses_rows_that_are_not_objects() -> None:
    with pytest.raises(InvalidTable, match=r"^The survival table, row 2: each row must be an object\.$"):
        T.validate_survival([{"age": 15, "need": 3}, [20, 3]])


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (_survival((151, 3)), "Survival table, row 1: age 151 is outside 0-150."),
        (_survival((15, 31)), "Survival table, row 1: the number needed, 31, is outside -10..30."),
        (_survival((15, -11)), "Survival table, row 1: the number needed, -11, is outside -10..30."),
    ],
)
def test_a5_survival_validator_refuses_out_of_range_numbers(rows: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(InvalidTable) as info:
        T.validate_survival(rows)
    assert info.value.message == message


def test_a5_survival_validator_returns_clean_rows_without_extra_keys() -> None:
    assert T.validate_survival([{"age": 15, "need": 3, "note": "x"}]) == [{"age": 15, "need": 3}]


# --- A2 characteristic bands --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "value"),
    [
        (3, -2),
        (4, -2),
        (5, -2),
        (6, -1),
        (7, -1),
        (8, -1),
        (9, 0),
        (10, 0),
        (11, 0),
        (12, 0),
        (13, 1),
        (14, 1),
        (15, 1),
        (16, 2),
        (17, 2),
        (18, 2),
    ],
)
def test_a2_default_characteristic_bands(total: int, value: int) -> None:
    """A2: | 3d6 | 3-5 | 6-8 | 9-12 | 13-15 | 16-18 | -> | -2 | -1 | 0 | +1 | +2 |"""
    assert T.characteristic_value(T.DEFAULT_CHARACTERISTIC_BANDS, total) == value


def test_a2_default_bands_validate_unchanged() -> None:
    assert T.validate_characteristic_bands(T.DEFAULT_CHARACTERISTIC_BANDS) == T.DEFAULT_CHARACTERISTIC_BANDS


@pytest.mark.parametrize("total", [2, 19, 0, -1])
def test_a2_totals_outside_3d6_are_refused(total: int) -> None:
    with pytest.raises(InvalidTable, match=f"do not cover a 3d6 total of {total}"):
        T.characteristic_value(T.DEFAULT_CHARACTERISTIC_BANDS, total)


def _bands(*rows: tuple[Any, Any, Any]) -> list[dict[str, Any]]:
    return [{"low": lo, "high": hi, "value": v} for lo, hi, v in rows]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (  # a gap: 6 is missing
            _bands((3, 5, -2), (7, 12, 0), (13, 18, 1)),
            "Characteristic bands, row 2: starts at 7 but must start at 6 so every 3d6 total is covered.",
        ),
        (  # an overlap: 5 is in two bands
            _bands((3, 5, -2), (5, 12, 0), (13, 18, 1)),
            "Characteristic bands, row 2: starts at 5 but must start at 6 so every 3d6 total is covered.",
        ),
        (
            _bands((4, 18, 0)),
            "Characteristic bands, row 1: starts at 4 but must start at 3 so every 3d6 total is covered.",
        ),
        (_bands((3, 17, 0)), "Characteristic bands end at 17; they must cover 3 to 18."),
        (_bands((3, 20, 0)), "Characteristic bands end at 20; they must cover 3 to 18."),
        (_bands((3, 18, 0), (19, 20, 1)), "Characteristic bands end at 20; they must cover 3 to 18."),
        (_bands((3, 2, 0)), "Characteristic bands, row 1: high 2 is below low 3."),
        (_bands((3, 18, 6)), "Characteristic bands, row 1: value 6 is outside -5..+5."),
        (_bands((3, "8", 0)), "Characteristic bands, row 1: 'high' must be a whole number, got '8'."),
        (_bands((3, 18, 0.5)), "Characteristic bands, row 1: 'value' must be a whole number, got 0.5."),
        (_bands((3, 18, False)), "Characteristic bands, row 1: 'value' must be a whole number, got False."),
    ],
)
def test_a2_band_validator_refuses_bad_tables(rows: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(InvalidTable) as info:
        T.validate_characteristic_bands(rows)
    assert info.value.message == message


@pytest.mark.parametrize("data", [[], None, {"low": 3}])
def test_a2_band_validator_refuses_empty_tables(data: Any) -> None:
    with pytest.raises(InvalidTable, match=r"^The characteristic bands table must be a non-empty list of rows\.$"):
        T.validate_characteristic_bands(data)


def test_a2_a_gm_edited_band_table_is_honoured() -> None:
    bands = T.validate_characteristic_bands(_bands((3, 10, -1), (11, 18, 1)))
    assert T.characteristic_value(bands, 10) == -1
    assert T.characteristic_value(bands, 11) == 1


# --- dispatch ------------------------------------------------------------------------------------------


def test_validate_table_dispatches_by_key() -> None:
    assert T.validate_table(T.SURVIVAL, copy.deepcopy(T.DEFAULT_SURVIVAL)) == T.DEFAULT_SURVIVAL
    assert T.validate_table(T.CHARACTERISTIC_BANDS, T.DEFAULT_CHARACTERISTIC_BANDS) == T.DEFAULT_CHARACTERISTIC_BANDS
    with pytest.raises(InvalidTable, match="Survival table, row 1"):
        T.validate_table(T.SURVIVAL, T.DEFAULT_CHARACTERISTIC_BANDS)


def test_validate_table_refuses_an_unknown_table() -> None:
    with pytest.raises(InvalidTable) as info:
        T.validate_table("reign_lengths_of_narnia", [])
    assert info.value.message.startswith("There is no rule table called 'reign_lengths_of_narnia'; known: ")
    assert "bloodline_survival, characteristic_bands" in info.value.message


def test_every_default_table_has_a_validator_and_a_title() -> None:
    from rules import bloodline

    defaults = {**T.BLOOD_ROYALE_DEFAULTS, **bloodline.DEFAULT_TABLES}
    assert set(defaults) <= set(T.VALIDATORS)
    assert set(T.VALIDATORS) == set(T.TABLE_TITLES)
    for key, data in defaults.items():
        assert T.validate_table(key, data) == data
