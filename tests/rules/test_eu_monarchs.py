"""The EU board game's monarch tables as pure functions (RULES.md C; eu-boardgame-aid.txt, first section).

Each reading is checked against the printed rows; the exact odds are computed by hand from the
table and checked against the helpers and against a fixed-seed run of the pure readings."""

from __future__ import annotations

import copy
import re
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import eu_monarchs as eu
from rules.dice import D10, RandomSource
from rules.errors import IllegalOption, InvalidDice, InvalidTable

T = eu.DEFAULT_MONARCH_TABLE
V = eu.DEFAULT_SUCCESSOR_VALUES
MODS = eu.DEFAULT_MODIFIERS
MIN = eu.DEFAULT_MINORITY
TENTH = Fraction(1, 10)


# --- defaults are data that pass their own validators --------------------------------------------


@pytest.mark.parametrize("key", list(eu.DEFAULT_TABLES))
def test_every_default_table_passes_its_validator_unchanged(key: str) -> None:
    assert eu.validate_table(key, copy.deepcopy(eu.DEFAULT_TABLES[key])) == eu.DEFAULT_TABLES[key]
    assert key in eu.TABLE_TITLES


def test_defaults_are_a_fresh_copy() -> None:
    tables = eu.defaults()
    tables[eu.MONARCH_TABLE][0]["reign"] = 99
    assert eu.DEFAULT_MONARCH_TABLE[0]["reign"] == 3


def test_the_tables_agree_with_each_other() -> None:
    eu.check_together(eu.defaults())
    tables = eu.defaults()
    tables[eu.MONARCH_TABLE][7]["minority"] = "toddler"
    with pytest.raises(InvalidTable, match="roll 8: minority 'toddler' is not a stage of the minority table"):
        eu.check_together(tables)


def test_unknown_table_key_is_refused() -> None:
    with pytest.raises(InvalidTable, match="no EU monarch table called 'nope'"):
        eu.validate_table("nope", {})


# --- the one 1d10 table: survival -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "outcome"),
    [
        (-3, "extra_turn"),
        (0, "extra_turn"),
        (1, "extra_turn"),
        (2, ""),
        (5, ""),
        (9, ""),
        (10, "dead"),
        (11, "dead"),
        (15, "dead"),
    ],
)
def test_survival_column_le1_plus_one_turn_10_and_more_dead(total: int, outcome: str) -> None:
    """| 1 or less | +1 turn | ... | 10 | dead | 11 or more | dead |"""
    die = min(max(total, 1), 10)
    result = eu.survival_result(T, [die], total - die)
    assert result.outcome == outcome
    assert result.total == total
    assert result.turkish == ""  # the Turkish column is only read for Turkey


@pytest.mark.parametrize(
    ("total", "turkish"),
    [
        (1, ""),
        (4, ""),
        (5, "pasha"),
        (6, "pasha"),
        (7, "pasha"),
        (8, ""),
        (9, "revolt"),
        (10, "revolt"),
        (11, "revolt_crisis"),
        (13, "revolt_crisis"),
    ],
)
def test_turkish_column_5_7_pasha_9_10_revolt_11_revolt_and_crisis(total: int, turkish: str) -> None:
    die = min(total, 10)
    result = eu.survival_result(T, [die], total - die, turkey=True)
    assert result.turkish == turkish
    assert result.revolts == (1 if turkish in ("revolt", "revolt_crisis") else 0)
    assert result.crisis == (turkish == "revolt_crisis")
    assert result.dies == (total >= 10)


def test_survival_labels() -> None:
    assert eu.survival_result(T, [1]).label == "+1 turn"
    assert eu.survival_result(T, [10], 1, turkey=True).label == "dead; revolt and Dynastic Crisis"
    assert eu.survival_result(T, [3]).label == "nothing"


def test_survival_modifiers_each_with_its_reason() -> None:
    """+1 Fragile Health; +2 turn 1 after a DC, +1 turn 2; +1 Stability < 0; Turkey +1 if MIL < 7."""
    assert eu.survival_modifiers(MODS, fragile_health=False, turns_since_crisis=None, stability=0, turkey=False, mil=5) == []
    mods = eu.survival_modifiers(MODS, fragile_health=True, turns_since_crisis=1, stability=-1, turkey=True, mil=6)
    assert mods == [
        (1, "Fragile Health"),
        (2, "turn 1 after a Dynastic Crisis"),
        (1, "Stability -1"),
        (1, "Turkey, MIL 6 below 7"),
    ]
    assert eu.survival_modifiers(MODS, fragile_health=False, turns_since_crisis=2, stability=0, turkey=False, mil=5) == [
        (1, "turn 2 after a Dynastic Crisis")
    ]
    for since in (0, 3, 10):
        assert eu.survival_modifiers(MODS, fragile_health=False, turns_since_crisis=since, stability=0, turkey=False, mil=5) == []
    assert eu.survival_modifiers(MODS, fragile_health=False, turns_since_crisis=None, stability=0, turkey=True, mil=7) == []
    assert eu.survival_modifiers(MODS, fragile_health=False, turns_since_crisis=None, stability=0, turkey=False, mil=3) == []


def test_typed_faces_must_be_one_d10_face() -> None:
    with pytest.raises(InvalidDice):
        eu.survival_result(T, [11])
    with pytest.raises(InvalidDice):
        eu.survival_result(T, [3, 4])


# --- succession and minority ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "outcome", "minority"),
    [(1, "crisis", ""), (2, "", ""), (7, "", ""), (8, "", "teenager"), (9, "", "child"), (10, "fragile", "baby")],
)
def test_succession_roll_rows(die: int, outcome: str, minority: str) -> None:
    """| 1 or less | DC | ... | 8 | teenager | 9 | child | 10 | Fragile Health | baby |"""
    reading = eu.succession_reading(T, [die])
    assert reading.outcome == outcome
    assert reading.minority == minority
    assert reading.reroll_for_age == (outcome != "")


def test_succession_11_or_more_is_fragile_health() -> None:
    assert eu.succession_reading(T, [10], 1).fragile


def test_doges_never_have_a_dynastic_crisis() -> None:
    reading = eu.succession_reading(T, [1], no_crisis=True)
    assert reading.outcome == "" and not reading.reroll_for_age


def test_poland_era_minus_2_turns_a_3_into_a_crisis() -> None:
    mod = sum(m for m, _ in eu.succession_modifier(MODS, poland_era=True))
    assert mod == -2
    assert eu.succession_reading(T, [3], mod).crisis
    assert not eu.succession_reading(T, [4], mod).crisis
    assert eu.succession_modifier(MODS, poland_era=False) == []


@pytest.mark.parametrize(("die", "stage"), [(1, ""), (7, ""), (8, "teenager"), (9, "child"), (10, "baby")])
def test_the_roll_again_for_age_reads_only_the_minority_column(die: int, stage: str) -> None:
    assert eu.age_reroll(T, [die]) == stage


def test_minority_penalties_teenager_1_child_2_cannot_lead_baby_3() -> None:
    """Age penalty: -1 teenage, -2 child (not a leader), -3 baby."""
    assert eu.stage_at(MIN, eu.accession_age(MIN, "teenager")) == eu.Stage("teenager", -1, True)
    assert eu.stage_at(MIN, eu.accession_age(MIN, "child")) == eu.Stage("child", -2, False)
    assert eu.stage_at(MIN, eu.accession_age(MIN, "baby")) == eu.Stage("baby", -3, False)
    assert eu.stage_at(MIN, eu.accession_age(MIN, "")) == eu.ADULT_STAGE
    with pytest.raises(InvalidTable, match="no stage 'toddler'"):
        eu.accession_age(MIN, "toddler")


@pytest.mark.parametrize(
    ("age", "stage"),
    [(0, "baby"), (4, "baby"), (5, "child"), (9, "child"), (10, "teenager"), (14, "teenager"), (15, ""), (40, "")],
)
def test_a_minor_grows_out_of_his_stage_one_turn_at_a_time(age: int, stage: str) -> None:
    assert eu.stage_at(MIN, age).name == stage


def test_effective_values_halved_rounded_down_then_the_penalty_never_below_0() -> None:
    values = {"adm": 7, "dip": 3, "mil": 9}
    assert eu.effective_values(values) == values
    assert eu.effective_values(values, halved=True) == {"adm": 3, "dip": 1, "mil": 4}
    assert eu.effective_values(values, penalty=-2) == {"adm": 5, "dip": 1, "mil": 7}
    assert eu.effective_values(values, penalty=-3, halved=True) == {"adm": 0, "dip": 0, "mil": 1}


# --- reign length ------------------------------------------------------------------------------------


@pytest.mark.parametrize("die", range(1, 11))
def test_reign_length_is_the_die_plus_2_turns(die: int) -> None:
    """| 1 or less | 3 turns | 2 | 4 | ... | 10 | 12 |"""
    assert eu.reign_turns(T, [die]) == die + 2


def test_reign_length_ends_at_3_and_12() -> None:
    assert eu.reign_turns(T, [1], -2) == 3
    assert eu.reign_turns(T, [10], 1) == 12  # 11 or more prints no length: the row above
    assert eu.reign_turns(T, [10], 5) == 12


def test_venice_minus_2_and_poland_era_minus_2() -> None:
    assert eu.reign_modifier(MODS, doge=True, poland_era=False) == [(-2, "Venetian Doge")]
    assert eu.reign_modifier(MODS, doge=False, poland_era=True) == [(-2, "Poland's era")]
    assert eu.reign_modifier(MODS, doge=False, poland_era=False) == []
    assert [eu.reign_turns(T, [d], -2) for d in range(1, 11)] == [3, 3, 3, 4, 5, 6, 7, 8, 9, 10]


# --- successor's values ---------------------------------------------------------------------------

PRINTED = {
    1: [3, 3, 3, 3, 3],
    2: [3, 3, 3, 3, 4],
    3: [3, 3, 3, 4, 5],
    4: [3, 4, 4, 5, 6],
    5: [4, 4, 5, 5, 6],
    6: [4, 5, 5, 6, 7],
    7: [4, 5, 6, 6, 7],
    8: [5, 6, 7, 7, 8],
    9: [6, 7, 8, 8, 8],
    10: [7, 8, 9, 9, 9],
}


@pytest.mark.parametrize("die", range(1, 11))
def test_successor_values_every_printed_cell(die: int) -> None:
    for column, expected in zip([3, 4, 5, 6, 7], PRINTED[die], strict=True):
        assert eu.successor_value(V, column, [die]) == expected


def test_column_moves_right_above_left_below_and_stays_on_the_table() -> None:
    """+1 col. if former > base; -1 col. if former < base."""
    assert eu.successor_column(V, 6, None) == 6
    assert eu.successor_column(V, 6, 6) == 6
    assert eu.successor_column(V, 6, 8) == 7
    assert eu.successor_column(V, 6, 3) == 5
    assert eu.successor_column(V, 7, 9) == 7  # no column 8
    assert eu.successor_column(V, 3, 2) == 3
    assert eu.successor_column(V, 4, 3) == 3  # Turkey after a weak Sultan


def test_successor_values_read_each_value_in_its_own_column() -> None:
    former = {"adm": 8, "dip": 4, "mil": 6}
    faces = {"adm": [6], "dip": [6], "mil": [6]}
    assert eu.successor_values(V, 6, former, faces) == {"adm": 7, "dip": 5, "mil": 6}
    assert eu.successor_values(V, 6, None, faces) == {"adm": 6, "dip": 6, "mil": 6}


def test_doges_plus_1_to_the_die_and_minimum_4() -> None:
    """Doges: "Characteristics rolled with +1 to die-roll, and minimal value of 4"."""
    bonus, minimum = eu.doge_value_rules(MODS)
    assert (bonus, minimum) == (1, 4)
    assert eu.successor_value(V, 6, [1], die_bonus=bonus, minimum=minimum) == 4  # row 2: 3, raised to 4
    assert eu.successor_value(V, 6, [3], die_bonus=bonus, minimum=minimum) == 5  # row 4
    assert eu.successor_value(V, 6, [10], die_bonus=bonus, minimum=minimum) == 9  # 11 reads row 10


# --- base columns, Habsburg, periods, ransom -----------------------------------------------------------

C = eu.DEFAULT_COUNTRIES


@pytest.mark.parametrize(
    ("country", "column"),
    [
        ("Turkey", 4),
        ("TUR", 4),
        ("Poland", 5),
        ("Russia", 5),
        ("France", 5),
        ("fra", 5),
        ("Spain", 6),
        ("Venice", 6),
        ("England", 6),
        ("Sweden", 6),
        ("Prussia", 6),
    ],
)
def test_base_columns(country: str, column: int) -> None:
    """TUR 4, POL 5, RUS 5 (before Peter the Great), FRA 5 (before III-11), HIS 6 + endogamy, others 6."""
    assert eu.base_column(C, country) == column


def test_base_column_after_the_event_override_and_habsburg() -> None:
    assert eu.base_column(C, "France", event_passed=True) == 6
    assert eu.base_column(C, "Russia", event_passed=True) == 6
    assert eu.base_column(C, "Poland", event_passed=True) == 5  # no such event for Poland
    assert eu.base_column(C, "Spain", habsburg=-2) == 4
    assert eu.base_column(C, "France", habsburg=-2) == 5  # only Spain is Habsburg
    assert eu.base_column(C, "England", override=3) == 3


@pytest.mark.parametrize(
    ("period", "alliances", "modifier"),
    [
        ("I", 0, 0),
        ("I", 6, 0),
        ("I", 7, -1),
        ("I", 8, -2),
        ("I", 9, -3),
        ("I", 15, -3),
        ("II", 4, 0),
        ("III", 5, -1),
        ("IV", 7, -2),
        ("IV", 8, -3),
        ("V", 3, 0),
        ("V", 4, -1),
        ("V", 6, -2),
        ("V", 7, -3),
        ("VI", 2, 0),
        ("VI", 3, -1),
        ("VII", 4, -2),
        ("VII", 6, -3),
    ],
)
def test_habsburg_endogamy_by_period_and_dynastic_alliances(period: str, alliances: int, modifier: int) -> None:
    assert eu.habsburg_modifier(eu.DEFAULT_HABSBURG, period, alliances) == modifier


def test_habsburg_needs_a_row_for_the_period() -> None:
    with pytest.raises(InvalidTable, match="no row for period VIII"):
        eu.habsburg_modifier(eu.DEFAULT_HABSBURG, "VIII", 3)


@pytest.mark.parametrize(
    ("turn", "name", "first", "last"),
    [
        (1, "I", 1, 6),
        (6, "I", 1, 6),
        (7, "II", 7, 14),
        (14, "II", 7, 14),
        (15, "III", 15, 25),
        (25, "III", 15, 25),
        (26, "IV", 26, 34),
        (34, "IV", 26, 34),
        (35, "V", 35, 42),
        (42, "V", 35, 42),
        (43, "VI", 43, 52),
        (52, "VI", 43, 52),
        (53, "VII", 53, None),
        (70, "VII", 53, None),
    ],
)
def test_periods_by_turn(turn: int, name: str, first: int, last: int | None) -> None:
    """I 1-6, II 7-14, III 15-25, IV 26-34, V 35-42, VI 43-52, VII 53+."""
    assert eu.period_of_turn(eu.DEFAULT_PERIODS, turn) == eu.Period(name, turn, first, last)


def test_a_campaign_may_start_at_a_later_turn() -> None:
    periods = {**eu.DEFAULT_PERIODS, "campaign_first_turn": 15}
    assert eu.eu_turn(periods, 1) == 15
    assert eu.period_of_turn(periods, eu.eu_turn(periods, 1)).name == "III"
    with pytest.raises(InvalidTable, match="before the first period"):
        eu.period_of_turn(periods, 0)


def test_ransom_major_200_and_minus_2_stability_minor_50() -> None:
    assert eu.ransom(eu.DEFAULT_RANSOM, major=True) == (200, -2)
    assert eu.ransom(eu.DEFAULT_RANSOM, major=False) == (50, 0)


# --- per-crown settings -----------------------------------------------------------------------------


def test_crown_rules_from_country_and_settings() -> None:
    tables = eu.defaults()
    venice = eu.crown_rules(tables, "Venice", {}, "I")
    assert venice.doge and not venice.turkey and venice.base_column == 6
    turkey = eu.crown_rules(tables, "Ottomans", {"country": "Turkey"}, "I")
    assert turkey.turkey and turkey.base_column == 4 and turkey.country == "Turkey"
    spain = eu.crown_rules(tables, "Spain", {"dynastic_alliances": 7}, "I")
    assert spain.base_column == 5 and "Habsburg endogamy -1" in spain.column_note
    assert eu.crown_rules(tables, "Spain", {"habsburg_modifier": -3}, "I").base_column == 3
    assert eu.crown_rules(tables, "France", {"base_column_event_passed": True}, "I").base_column == 6
    poland = eu.crown_rules(tables, "Poland", {"poland_era": True}, "I")
    assert poland.poland_era and poland.leader_die_bonus == {"manoeuvre": 1, "shock": 1}
    assert not eu.crown_rules(tables, "Venice", {"doge": False}, "I").doge
    other = eu.crown_rules(tables, "Bavaria", {"base_column": 7}, "I")
    assert other.base_column == 7 and other.country == "Bavaria" and other.column_note == "base column 7 (set for this crown)"


def test_clean_settings_refuses_what_it_does_not_know() -> None:
    assert eu.clean_settings({"doge": True, "base_column": 5, "country": " Spain ", "poland_era": None}) == {
        "doge": True,
        "base_column": 5,
        "country": "Spain",
        "poland_era": None,
    }
    with pytest.raises(IllegalOption, match="no crown setting 'dodge'"):
        eu.clean_settings({"dodge": True})
    with pytest.raises(IllegalOption, match="'doge' must be true or false"):
        eu.clean_settings({"doge": "yes"})
    with pytest.raises(IllegalOption, match="'base_column' must be a whole number from -20 to 30"):
        eu.clean_settings({"base_column": True})
    with pytest.raises(IllegalOption, match="'country' must be a country's name"):
        eu.clean_settings({"country": ""})


def test_the_module_is_a_ruleset() -> None:
    assert eu.NAME == "eu-monarchs"
    assert eu.characteristic_names("M") == ("adm", "dip", "mil")
    assert eu.clean_options(None) == {}
    with pytest.raises(IllegalOption, match="no optional rule 'x'"):
        eu.clean_options({"x": True})
    # families, where a campaign keeps them, follow Blood Royale
    assert eu.birth_succeeds([3, 4]) and not eu.birth_succeeds([3, 3])
    assert eu.sex_from_faces([2]) == "M" and eu.sex_from_faces([5]) == "F"
    from rules.people import FEMALE, MALE, Person

    assert eu.marriage_problems(Person(1, MALE, 1280), Person(2, FEMALE, 1282), 1300, wedding=True) == []


# --- the optional military-skill table ----------------------------------------------------------------

M = eu.DEFAULT_MILITARY


def test_military_average_reads_the_row_and_the_star() -> None:
    assert eu.military_average(M, 3, [1]) == (0, False)
    assert eu.military_average(M, 3, [8]) == (1, False)
    assert eu.military_average(M, 8, [10]) == (4, True)
    assert eu.military_average(M, 9, [8]) == (3, True)
    assert eu.military_average(M, 9, [10]) == (4, True)
    assert eu.military_average(M, 1, [10]) == eu.military_average(M, 3, [10])  # below the rows: MIL 3
    assert eu.military_average(M, 10, [9]) == eu.military_average(M, 9, [9])


@pytest.mark.parametrize(("total", "mod"), [(1, -2), (2, -1), (3, -1), (4, 0), (7, 0), (8, 1), (9, 1), (10, 2), (11, 2)])
def test_leader_modifier_bands(total: int, mod: int) -> None:
    """1: -2, 2-3: -1, 4-7: 0, 8-9: +1, 10: +2 (an 11 with a country's bonus reads 10)."""
    assert eu.leader_modifier(M, total) == mod


def test_leader_values_clamped_0_to_6_siege_only_with_a_star() -> None:
    faces = {"manoeuvre": [10], "fire": [1], "shock": [5], "siege": [10]}
    assert eu.leader_values(M, 5, True, faces) == {"manoeuvre": 6, "fire": 3, "shock": 5, "siege": 3}
    assert eu.leader_values(M, 1, False, faces) == {"manoeuvre": 3, "fire": 0, "shock": 1, "siege": 0}
    # Poland +1 to the die for manoeuvre and shock: a 7 becomes 8 (+1)
    poland = {"manoeuvre": 1, "shock": 1}
    sevens = {"manoeuvre": [7], "fire": [7], "shock": [7]}
    assert eu.leader_values(M, 2, False, sevens, poland) == {"manoeuvre": 3, "fire": 2, "shock": 3, "siege": 0}


# --- validators refuse with what to fix ---------------------------------------------------------------


def _edited(key: str, change: Any) -> Any:
    data = copy.deepcopy(eu.DEFAULT_TABLES[key])
    change(data)
    return data


@pytest.mark.parametrize(
    ("key", "change", "message"),
    [
        (eu.MONARCH_TABLE, lambda d: d.pop(3), "rolls must follow each other"),
        (eu.MONARCH_TABLE, lambda d: d[0].update(survival="alive"), "'survival' is 'alive'; choose one of"),
        (eu.MONARCH_TABLE, lambda d: d[0].update(reign=None), "the first row needs a reign length"),
        (eu.MONARCH_TABLE, lambda d: d[1].update(colour="red"), "unknown field 'colour'"),
        (eu.MONARCH_TABLE, lambda d: d.__delitem__(slice(9, None)), "must cover every 1d10 face"),
        (eu.MODIFIERS, lambda d: d.pop("fragile_health"), "'fragile_health' is missing"),
        (eu.MODIFIERS, lambda d: d.update(after_crisis=3), "'after_crisis' must be a list"),
        (eu.MINORITY, lambda d: d["stages"][0].update(age=15), "'age' is 15, outside 0..14"),
        (eu.MINORITY, lambda d: d["stages"][1].update(name="teenager"), "the stage 'teenager' is listed twice"),
        (eu.SUCCESSOR_VALUES, lambda d: d["rows"].pop(), "needs one per 1d10 face"),
        (eu.SUCCESSOR_VALUES, lambda d: d["rows"][0]["values"].pop(), "give one value per column (5)"),
        (eu.SUCCESSOR_VALUES, lambda d: d.update(columns=[3, 5, 6, 7, 8]), "columns must be consecutive"),
        (eu.COUNTRIES, lambda d: d.pop(), "add a row for every other country"),
        (eu.COUNTRIES, lambda d: d[1].update(aliases=["TUR"]), "'TUR' names two countries"),
        (eu.COUNTRIES, lambda d: d[2].pop("then"), "'then' (the column after the reign of Peter the Great)"),
        (eu.PERIODS, lambda d: d["periods"][0].update(first_turn=2), "the first period must begin at turn 1"),
        (eu.PERIODS, lambda d: d["periods"][2].update(first_turn=7), "period III must begin after turn 7"),
        (eu.HABSBURG, lambda d: d["rows"][1]["periods"].append("I"), "period I has two rows"),
        (eu.RANSOM, lambda d: d["major"].update(ducats=-1), "'ducats' is -1"),
        (eu.MILITARY, lambda d: d["rows"][0]["values"].__setitem__(0, "x"), "'x' is not a value such as '3' or '4*'"),
        (eu.MILITARY, lambda d: d["modifiers"].pop(1), "starts at 4 but must start at 2"),
    ],
)
def test_validators_say_what_to_fix(key: str, change: Any, message: str) -> None:
    with pytest.raises(InvalidTable, match=re.escape(message)):
        eu.validate_table(key, _edited(key, change))


def test_a_gm_edited_table_is_the_one_read() -> None:
    table = eu.validate_monarch_table(_edited(eu.MONARCH_TABLE, lambda d: d[8].update(survival="dead")))
    assert eu.survival_result(table, [9]).dies
    values = eu.validate_successor_values(_edited(eu.SUCCESSOR_VALUES, lambda d: d["rows"][0]["values"].__setitem__(2, 5)))
    assert eu.successor_value(values, 5, [1]) == 5


# --- exact odds ---------------------------------------------------------------------------------------


def test_exact_survival_odds() -> None:
    assert eu.survival_odds(T) == {"": Fraction(8, 10), "extra_turn": TENTH, "dead": TENTH}
    assert eu.survival_odds(T, 1) == {"": Fraction(8, 10), "extra_turn": 0, "dead": Fraction(2, 10)}
    assert eu.survival_odds(T, 4)["dead"] == Fraction(5, 10)
    assert eu.survival_odds(T, -1)["extra_turn"] == Fraction(2, 10)


def test_exact_turkish_odds() -> None:
    assert eu.turkish_odds(T) == {"": Fraction(5, 10), "pasha": Fraction(3, 10), "revolt": Fraction(2, 10), "revolt_crisis": 0}
    assert eu.turkish_odds(T, 1) == {
        "": Fraction(4, 10),
        "pasha": Fraction(3, 10),
        "revolt": Fraction(2, 10),
        "revolt_crisis": TENTH,
    }


def test_exact_succession_and_minority_odds() -> None:
    assert eu.succession_odds(T) == {"": Fraction(8, 10), "crisis": TENTH, "fragile": TENTH}
    assert eu.succession_odds(T, no_crisis=True) == {"": Fraction(9, 10), "crisis": 0, "fragile": TENTH}
    assert eu.succession_odds(T, -2)["crisis"] == Fraction(3, 10)
    # lines 2-7 adult, 8 teenager, 9 child; 1 and 10 roll again: 7/10 adult, 1/10 each stage
    assert eu.minority_odds(T) == {
        "": Fraction(6, 10) + Fraction(2, 10) * Fraction(7, 10),
        "teenager": TENTH + Fraction(2, 100),
        "child": TENTH + Fraction(2, 100),
        "baby": Fraction(2, 100),
    }
    assert sum(eu.minority_odds(T, -2).values()) == 1


def test_exact_reign_and_value_odds() -> None:
    assert eu.reign_odds(T) == {t: TENTH for t in range(3, 13)}
    assert eu.reign_odds(T, -2) == {3: Fraction(3, 10), **{t: TENTH for t in range(4, 11)}}
    assert eu.successor_value_odds(V, 6) == {
        3: Fraction(2, 10),
        4: TENTH,
        5: Fraction(2, 10),
        6: Fraction(2, 10),
        7: TENTH,
        8: TENTH,
        9: TENTH,
    }
    doge = eu.successor_value_odds(V, 6, die_bonus=1, minimum=4)
    assert doge == {4: Fraction(2, 10), 5: Fraction(2, 10), 6: Fraction(2, 10), 7: TENTH, 8: TENTH, 9: Fraction(2, 10)}


def test_within_sd_is_tight_enough_to_catch_a_stub() -> None:
    assert eu.within_sd(300, 3000, TENTH)
    assert not eu.within_sd(0, 3000, TENTH)
    assert not eu.within_sd(360, 3000, TENTH)  # 2 percentage points off is 3.65 sd out


def test_fixed_seed_pure_readings_match_the_exact_odds() -> None:
    n = 20_000
    source = RandomSource(1492)
    survival: Counter[str] = Counter()
    turkish: Counter[str] = Counter()
    succession: Counter[str] = Counter()
    minority: Counter[str] = Counter()
    reign: Counter[int] = Counter()
    for _ in range(n):
        s = eu.survival_result(T, source.faces(D10), 1, turkey=True)
        survival[s.outcome] += 1
        turkish[s.turkish] += 1
        reading = eu.succession_reading(T, source.faces(D10))
        succession[reading.outcome] += 1
        minority[eu.age_reroll(T, source.faces(D10)) if reading.reroll_for_age else reading.minority] += 1
        reign[eu.reign_turns(T, source.faces(D10), -2)] += 1
    for counts, odds in (
        (survival, eu.survival_odds(T, 1)),
        (turkish, eu.turkish_odds(T, 1)),
        (succession, eu.succession_odds(T)),
        (minority, eu.minority_odds(T)),
        (reign, eu.reign_odds(T, -2)),
    ):
        assert set(counts) <= {k for k, p in odds.items() if p}
        for key, p in odds.items():
            assert eu.within_sd(counts[key], n, p), (key, counts[key], float(p) * n)


# --- properties ------------------------------------------------------------------------------------


@given(
    base=st.integers(-5, 15),
    former=st.fixed_dictionaries({k: st.integers(0, 12) for k in eu.CHARACTERISTICS}) | st.none(),
    faces=st.fixed_dictionaries({k: st.lists(st.integers(1, 10), min_size=1, max_size=1) for k in eu.CHARACTERISTICS}),
)
def test_successor_values_always_within_3_to_9(base: int, former: dict[str, int] | None, faces: dict[str, list[int]]) -> None:
    values = eu.successor_values(V, base, former, faces)
    assert all(3 <= v <= 9 for v in values.values())


@given(
    base=st.integers(-5, 15),
    former=st.fixed_dictionaries({k: st.integers(0, 12) for k in eu.CHARACTERISTICS}) | st.none(),
    faces=st.fixed_dictionaries({k: st.lists(st.integers(1, 10), min_size=1, max_size=1) for k in eu.CHARACTERISTICS}),
)
def test_doge_values_at_least_4(base: int, former: dict[str, int] | None, faces: dict[str, list[int]]) -> None:
    bonus, minimum = eu.doge_value_rules(MODS)
    values = eu.successor_values(V, base, former, faces, die_bonus=bonus, minimum=minimum)
    assert all(4 <= v <= 9 for v in values.values())
    plain = eu.successor_values(V, base, former, faces)
    assert all(values[k] >= plain[k] for k in eu.CHARACTERISTICS)  # +1 to the die never lowers a value


@given(die=st.integers(1, 10), modifier=st.integers(-15, 15))
def test_every_modified_total_reads_a_row(die: int, modifier: int) -> None:
    assert 3 <= eu.reign_turns(T, [die], modifier) <= 12
    assert eu.survival_result(T, [die], modifier, turkey=True).outcome in eu.SURVIVAL_RESULTS
    assert eu.succession_reading(T, [die], modifier).outcome in eu.SUCCESSION_RESULTS
