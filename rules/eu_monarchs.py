"""Europa Universalis monarch tables (RULES.md C; ``eu-boardgame-aid.txt``, first section).

For countries whose monarch is rolled on the EU board game's tables rather than born into a family:
survival (1d10, with the Turkish column), succession (Dynastic Crisis, Fragile Health, minority),
reign length, the successor's ADM/DIP/MIL, base columns per country, Venetian Doges, periods, the
Habsburg endogamy modifier, ransoms and the optional military-skill table.

Every table is plain JSON-able data with a validator (a campaign keeps its own copy; the GM may edit
it and restore these defaults). Every function takes faces already rolled (by the server or typed in
from the table) and returns what they mean; nothing here rolls or stores anything. The ``*_odds``
helpers give exact probabilities.
"""

from __future__ import annotations

import copy
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules import families
from rules.characteristics import Characteristic
from rules.dice import D6, D10, TWO_D6, DiceSpec
from rules.errors import IllegalOption, InvalidDice, InvalidTable
from rules.people import Person
from rules.registry import Ruleset, register

JSON = Any

NAME = "eu-monarchs"
LABEL = "Europa Universalis: monarch tables"
START_YEAR = 1492  # period I begins in 1492 (the aid's period tables: "1492-1519 I")
TURN_LENGTH = 5
ADULT_AGE = 15

SURVIVAL_DICE: DiceSpec = D10
SUCCESSION_DICE: DiceSpec = D10
AGE_DICE: DiceSpec = D10
VALUE_DICE: DiceSpec = D10
REIGN_DICE: DiceSpec = D10
MILITARY_DICE: DiceSpec = D10
CHARACTERISTIC_DICE: DiceSpec = D10
CHARACTERISTICS: tuple[str, str, str] = ("adm", "dip", "mil")
LEADER_VALUES: tuple[str, str, str] = ("manoeuvre", "fire", "shock")
SIEGE = "siege"

# The EU monarch tables have no families. A campaign of this ruleset that also keeps families uses
# Blood Royale's births and marriage legality (rules.families, shared with BloodLine).
BIRTH_DICE: DiceSpec = TWO_D6
SEX_DICE: DiceSpec = D6
OPTIONAL_RULES: dict[str, str] = {}
KINGS_WIDOWS_RETIRE = True  # families kept in such a campaign follow Blood Royale here too
TREASURY_PAYS_MATCHES = True

# --- table keys ---------------------------------------------------------------------------------

MONARCH_TABLE = "eu_monarch_table"
MODIFIERS = "eu_monarch_modifiers"
MINORITY = "eu_minority"
SUCCESSOR_VALUES = "eu_successor_values"
COUNTRIES = "eu_countries"
PERIODS = "eu_periods"
HABSBURG = "eu_habsburg_endogamy"
RANSOM = "eu_ransom"
MILITARY = "eu_military_skill"
NAMED = "eu_named_monarchs"

# --- outcome codes ------------------------------------------------------------------------------

EXTRA_TURN, DEAD = "extra_turn", "dead"
SURVIVAL_RESULTS: dict[str, str] = {"": "nothing", EXTRA_TURN: "+1 turn", DEAD: "dead"}
PASHA, REVOLT, REVOLT_CRISIS = "pasha", "revolt", "revolt_crisis"
TURKISH_RESULTS: dict[str, str] = {
    "": "nothing",
    PASHA: "Pasha",
    REVOLT: "revolt",
    REVOLT_CRISIS: "revolt and Dynastic Crisis",
}
CRISIS, FRAGILE = "crisis", "fragile"
SUCCESSION_RESULTS: dict[str, str] = {"": "normal", CRISIS: "Dynastic Crisis", FRAGILE: "Fragile Health"}
ADULT = ""

# --- default tables ------------------------------------------------------------------------------


def _line(roll: int, survival: str, turkey: str, succession: str, minority: str, reign: int | None) -> dict[str, Any]:
    return {
        "roll": roll,
        "survival": survival,
        "turkey": turkey,
        "succession": succession,
        "minority": minority,
        "reign": reign,
    }


# The one 1d10 table read three ways; "roll" 1 is "1 or less", the last row "11 or more".
DEFAULT_MONARCH_TABLE: list[dict[str, Any]] = [
    _line(1, EXTRA_TURN, "", CRISIS, "", 3),
    _line(2, "", "", "", "", 4),
    _line(3, "", "", "", "", 5),
    _line(4, "", "", "", "", 6),
    _line(5, "", PASHA, "", "", 7),
    _line(6, "", PASHA, "", "", 8),
    _line(7, "", PASHA, "", "", 9),
    _line(8, "", "", "", "teenager", 10),
    _line(9, "", REVOLT, "", "child", 11),
    _line(10, DEAD, REVOLT, FRAGILE, "baby", 12),
    _line(11, DEAD, REVOLT_CRISIS, FRAGILE, "", None),  # no reign length printed: reads the row above
]

DEFAULT_MODIFIERS: dict[str, Any] = {
    "fragile_health": 1,  # survival
    "after_crisis": [2, 1],  # survival: first turn after a Dynastic Crisis, second turn
    "negative_stability": 1,  # survival, Stability below 0
    "turkey_low_mil": 1,  # Turkey: survival (and revolts) ...
    "turkey_mil_below": 7,  # ... if MIL below this
    "crisis_stability": -2,  # a Dynastic Crisis costs Stability
    "poland_era": -2,  # Poland, in some eras: to the succession (crisis) roll and the reign length roll
    "doge_reign": -2,  # Venetian Doges: reign length
    "doge_die": 1,  # Venetian Doges: "+1 to die-roll" for each value
    "doge_min_value": 4,  # Venetian Doges: minimal value
}

# The age penalty and who may lead; "age" is the age at accession and the lowest age of the stage.
DEFAULT_MINORITY: dict[str, Any] = {
    "adult_age": 15,
    "adult_accession_age": 20,
    "stages": [
        {"name": "teenager", "age": 10, "penalty": -1, "can_lead": True},
        {"name": "child", "age": 5, "penalty": -2, "can_lead": False},
        {"name": "baby", "age": 0, "penalty": -3, "can_lead": False},
    ],
}

DEFAULT_SUCCESSOR_VALUES: dict[str, Any] = {
    "columns": [3, 4, 5, 6, 7],
    "rows": [
        {"roll": roll, "values": values}
        for roll, values in [
            (1, [3, 3, 3, 3, 3]),
            (2, [3, 3, 3, 3, 4]),
            (3, [3, 3, 3, 4, 5]),
            (4, [3, 4, 4, 5, 6]),
            (5, [4, 4, 5, 5, 6]),
            (6, [4, 5, 5, 6, 7]),
            (7, [4, 5, 6, 6, 7]),
            (8, [5, 6, 7, 7, 8]),
            (9, [6, 7, 8, 8, 8]),
            (10, [7, 8, 9, 9, 9]),
        ]
    ],
}

OTHERS = "*"
# "major": a major power of the aid (a player's house at set-up), else a minor country (a minor house).
DEFAULT_COUNTRIES: list[dict[str, Any]] = [
    {"country": "Turkey", "aliases": ["TUR", "Ottoman Empire"], "column": 4, "turkey": True, "major": True},
    {
        "country": "Poland",
        "aliases": ["POL", "Polonia"],
        "column": 5,
        "leader_die_bonus": {"manoeuvre": 1, "shock": 1},
        "major": True,
    },
    {
        "country": "Russia",
        "aliases": ["RUS", "Muscovy"],
        "column": 5,
        "until": "the reign of Peter the Great",
        "then": 6,
        "major": True,
    },
    {"country": "France", "aliases": ["FRA"], "column": 5, "until": "event III-11", "then": 6, "major": True},
    {"country": "Spain", "aliases": ["HIS", "Hispania", "Castile"], "column": 6, "habsburg": True, "major": True},
    {"country": "Venice", "aliases": ["VEN", "Venetia"], "column": 6, "doge": True, "major": True},
    {"country": "Sweden", "aliases": ["SUE", "Suecia"], "column": 6, "leader_die_bonus": {"fire": 1, "shock": 1}, "major": True},
    {"country": "England", "aliases": ["ANG", "Anglia"], "column": 6, "major": True},
    {"country": "Austria", "aliases": ["AUS", "Habsburgum"], "column": 6, "major": True},
    {"country": "Portugal", "aliases": ["POR", "Portugallia"], "column": 6, "major": True},
    {"country": "Holland", "aliases": ["HOL", "Hollandia"], "column": 6, "major": True},
    {"country": "Prussia", "aliases": ["PRU", "Brandenburg-Prussia"], "column": 6, "major": True},
    # the minor countries the aid names (its Latin name as an alias)
    {"country": "Denmark", "aliases": ["Dania"], "column": 6, "major": False},
    {"country": "Scotland", "aliases": ["Scotia"], "column": 6, "major": False},
    {"country": "Genoa", "aliases": ["Genua"], "column": 6, "major": False},
    {"country": "Savoy", "aliases": ["Sabaudia"], "column": 6, "major": False},
    {"country": "Bavaria", "aliases": [], "column": 6, "major": False},
    {"country": "Saxony", "aliases": ["Saxonia"], "column": 6, "major": False},
    {"country": "Brandenburg", "aliases": ["Brandenburgum"], "column": 6, "major": False},
    {"country": "Hanover", "aliases": ["Hanovere"], "column": 6, "major": False},
    {"country": "Tuscany", "aliases": ["Toscana"], "column": 6, "major": False},
    {"country": "Papal States", "aliases": ["Sancta Sedes"], "column": 6, "major": False},
    {"country": "Hungary", "aliases": ["Hungaria"], "column": 6, "major": False},
    {"country": "Hansa", "aliases": [], "column": 6, "major": False},
    {"country": "Crimea", "aliases": [], "column": 6, "major": False},
    {"country": "Persia", "aliases": [], "column": 6, "major": False},
    {"country": OTHERS, "aliases": [], "column": 6},
]

DEFAULT_PERIODS: dict[str, Any] = {
    "campaign_first_turn": 1,  # the EU turn number of the campaign's first turn (a scenario may start later)
    "periods": [
        {"name": "I", "first_turn": 1},
        {"name": "II", "first_turn": 7},
        {"name": "III", "first_turn": 15},
        {"name": "IV", "first_turn": 26},
        {"name": "V", "first_turn": 35},
        {"name": "VI", "first_turn": 43},
        {"name": "VII", "first_turn": 53},
    ],
}

# Columns: number of dynastic alliances (the first column is "1-2"; none reads 0).
DEFAULT_HABSBURG: dict[str, Any] = {
    "columns": [1, 3, 4, 5, 6, 7, 8, 9],
    "rows": [
        {"periods": ["I"], "values": [0, 0, 0, 0, 0, -1, -2, -3]},
        {"periods": ["II", "III", "IV"], "values": [0, 0, 0, -1, -1, -2, -3, -3]},
        {"periods": ["V"], "values": [0, 0, -1, -1, -2, -3, -3, -3]},
        {"periods": ["VI", "VII"], "values": [0, -1, -2, -2, -3, -3, -3, -3]},
    ],
}

DEFAULT_RANSOM: dict[str, Any] = {
    "major": {"ducats": 200, "stability": -2},
    "minor": {"ducats": 50, "stability": 0},
}

# OPTIONAL, and uncertain: the source prints 11 value columns under 10 die headings. Best reading:
# the columns are the 1d10 results 1..10 and an "11 or more" column; a GM who reads the extra column
# as "0 or less" sets "columns" to 0..10. "*" marks a siege value of 1 + modifier.
DEFAULT_MILITARY: dict[str, Any] = {
    "columns": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    "rows": [
        {"mil": 3, "values": ["0", "0", "0", "0", "0", "0", "0", "1", "1", "1", "1"]},
        {"mil": 4, "values": ["0", "0", "0", "0", "0", "1", "1", "1", "1", "1", "2"]},
        {"mil": 5, "values": ["0", "0", "1", "1", "1", "1", "1", "1", "1", "2", "3"]},
        {"mil": 6, "values": ["0", "1", "1", "1", "1", "1", "2", "2", "2", "3", "3"]},
        {"mil": 7, "values": ["0", "1", "1", "1", "1", "2", "2", "2", "3", "3", "3"]},
        {"mil": 8, "values": ["1", "1", "1", "1", "2", "2", "3", "3", "4", "4*", "4*"]},
        {"mil": 9, "values": ["1", "1", "1", "1", "2", "2", "3", "3*", "4*", "4*", "5"]},
    ],
    "modifiers": [
        {"from": 1, "to": 1, "modifier": -2},
        {"from": 2, "to": 3, "modifier": -1},
        {"from": 4, "to": 7, "modifier": 0},
        {"from": 8, "to": 9, "modifier": 1},
        {"from": 10, "to": 10, "modifier": 2},
    ],
    "min_value": 0,
    "max_value": 6,
    "siege_base": 1,
}


def _named(country: str, name: str, condition: str, **fields: Any) -> dict[str, Any]:
    return {"country": country, "name": name, "condition": condition, **fields}


# The aid's historical ("named") monarchs, per country: when each may reign (its condition, as the
# aid prints it), fixed values where the aid gives them ("values"; none: rolled on the successor's
# table, or typed), "given"/"dynastic" for the name he reigns under (a trailing numeral counts the
# crown's earlier monarchs of that name), "at_start" for the monarch the aid seats at the start,
# "periods" where the set-up may seat him, "requires" for values he must have, "no_survival_turns",
# "reign_turns" or "until_turn" (the EU turn his reign ends), "sex", and "sets": crown settings his
# accession changes (Peter the Great: Russia reads column 6 from then on).
DEFAULT_NAMED: list[dict[str, Any]] = [
    _named("Portugal", "João II", "at start", at_start=True),
    _named("Portugal", "Manuel I", "successor of João II"),
    _named("Sweden", "Erik XIV", "at start (otherwise)", at_start=True),
    _named("Sweden", "Gustav I", "during II-4 (End of the union of Kalmar)", dynastic="Vasa"),
    _named("Sweden", "Karl IX", "during III-13 (Union between POLONIA and SUECIA)"),
    _named("Sweden", "Gustav Adolf", "due to IV-A (Thirty Years' War)"),
    _named(
        "Sweden",
        "Karl XII",
        "after the death of the heir of Gustav Adolf, if MIL 8 or more, or if at war and 1d10 is 3 or less",
        requires={"mil": 8},
    ),
    _named("Russia", "Ivan III", "at start", at_start=True),
    _named("Russia", "Ivan IV", "first tsar of period II", periods=["II"]),
    _named(
        "Russia", "Boris Godunov", "during IV-17 (1) (Time of Troubles); or Romanov, or Dmitry", given="Boris", dynastic="Godunov"
    ),
    _named(
        "Russia",
        "Peter the Great",
        "in period V or later, if ADM 8 or more and the values' sum 18 or more; or by event V-11",
        given="Pyotr I",
        dynastic="Romanov",
        periods=["V", "VI", "VII"],
        requires={"adm": 8, "total": 18},
        sets={"base_column_event_passed": True},
    ),
    _named("Russia", "Peter II", "first monarch of period VII; lasts one turn", periods=["VII"], reign_turns=1),
    _named("Russia", "Catherine II", "replaces Peter II", sex="F"),
    _named("England", "Henry VII", "at start", at_start=True, dynastic="Tudor"),
    _named("England", "Henry VIII", "follows Henry VII; at his death: II-1 (1) (Act of Supremacy)", dynastic="Tudor"),
    _named("England", "Elisabeth I", "comes through II-1 (1) (Act of Supremacy)", sex="F", dynastic="Tudor"),
    _named("England", "Cromwell", "Parliament/Cromwell: during IV-7 (1) (English Civil War)", given="Oliver"),
    _named("England", "Willem III", "due to V-3 (The Glorious Revolution)", dynastic="Orange"),
    _named("France", "Charles VIII", "at start", at_start=True, dynastic="Valois"),
    _named("France", "François I", "first king after I-3 (1) (Wars in Italy (Napoli))", dynastic="Valois"),
    _named(
        "France",
        "Henri IV",
        "or Henri de Guise: at the end of III-11 (Wars of religion in France)",
        dynastic="Bourbon",
        sets={"base_column_event_passed": True},
    ),
    _named("France", "Louis XIV", "after event Richelieu or IV-16 (La Fronde)", dynastic="Bourbon"),
    _named("Spain", "Isabel and Fernando", "at start", at_start=True, dynastic="Trastámara"),
    _named("Spain", "Carlos V", "first king after I-A (Dynastic Alliance of the Habsburgs)", dynastic="Habsburg"),
    _named("Spain", "Felipe II", "successor of Carlos V", dynastic="Habsburg"),
    _named("Turkey", "Bayezid II", "at start (Bāyezid-i sâni)", at_start=True, dynastic="Osman"),
    _named("Turkey", "Selim I", "successor of Bayezid II in period I", periods=["I"], dynastic="Osman"),
    _named("Turkey", "Süleyman I", "first Sultan of period II", periods=["II"], dynastic="Osman"),
    _named("Venice", "Barbarigo", "at start (a Doge)", at_start=True, given="Agostino", dynastic="Barbarigo"),
    _named(
        "Holland",
        "Willem I",
        "at the start of the rebellion; 7 turns; Stadhouder",
        values={"adm": 7, "dip": 9, "mil": 9},
        reign_turns=7,
        dynastic="Orange",
    ),
    _named(
        "Holland",
        "Oldenbarnevelt",
        "turns 19-26; Parliament",
        values={"adm": 9, "dip": 7, "mil": 7},
        until_turn=26,
        given="Johan",
        dynastic="van Oldenbarnevelt",
    ),
    _named(
        "Holland", "Maurits", "turns 20-27; Stadhouder", values={"adm": 7, "dip": 7, "mil": 9}, until_turn=27, dynastic="Nassau"
    ),
    _named(
        "Holland",
        "Frederik Hendrik",
        "turns 27-32; Stadhouder",
        values={"adm": 8, "dip": 7, "mil": 9},
        until_turn=32,
        dynastic="Nassau",
    ),
    _named(
        "Holland",
        "de Witt",
        "by V-10; random duration; Parliament",
        values={"adm": 9, "dip": 7, "mil": 9},
        given="Johan",
        dynastic="de Witt",
    ),
    _named(
        "Holland",
        "Willem III",
        "turns 37-43; Stadhouder (see V-3)",
        values={"adm": 7, "dip": 9, "mil": 7},
        until_turn=43,
        dynastic="Orange",
    ),
    _named("Austria", "Maria Theresia", "due to VI-13 (War of Austrian Succession)", sex="F", dynastic="Habsburg"),
    _named("Poland", "John and Alexander", "at start", at_start=True, dynastic="Jagiellon"),
    _named("Poland", "Zygmunt I", "successor of John and Alexander", dynastic="Jagiellon"),
    _named(
        "Poland",
        "Báthory",
        "an elected king (also a general)",
        values={"adm": 8, "dip": 7, "mil": 9},
        given="Stefan",
        dynastic="Báthory",
    ),
    _named(
        "Poland",
        "Sobieski",
        "an elected king (also a general)",
        values={"adm": 8, "dip": 7, "mil": 9},
        given="Jan III",
        dynastic="Sobieski",
    ),
    _named("Poland", "Zygmunt III", "after III-13 (Union between POLONIA and SUECIA)", dynastic="Vasa"),
    _named("Poland", "August II", "after V-12 (August II)", dynastic="Wettin"),
    _named(
        "Poland",
        "Patkul",
        "an elected king (also a general, or a minister)",
        values={"adm": 5, "dip": 9, "mil": 4},
        given="Johann",
        dynastic="Patkul",
    ),
    _named("Poland", "Stanislas", "by VI-1 (The Great Northern War)", dynastic="Leszczyński"),
    _named(
        "Prussia",
        "Friedrich-Wilhelm",
        "at start; dies turn 51",
        at_start=True,
        values={"adm": 8, "dip": 5, "mil": 9},
        until_turn=51,
        given="Friedrich Wilhelm",
        dynastic="Hohenzollern",
    ),
    _named(
        "Prussia",
        "Friedrich II",
        "at the beginning of VII-1 (Seven years war) or after Friedrich-Wilhelm; no survival roll for 6 turns",
        values={"adm": 9, "dip": 9, "mil": 9},
        no_survival_turns=6,
        dynastic="Hohenzollern",
    ),
]

DEFAULT_TABLES: dict[str, Any] = {
    MONARCH_TABLE: DEFAULT_MONARCH_TABLE,
    MODIFIERS: DEFAULT_MODIFIERS,
    MINORITY: DEFAULT_MINORITY,
    SUCCESSOR_VALUES: DEFAULT_SUCCESSOR_VALUES,
    COUNTRIES: DEFAULT_COUNTRIES,
    PERIODS: DEFAULT_PERIODS,
    HABSBURG: DEFAULT_HABSBURG,
    RANSOM: DEFAULT_RANSOM,
    MILITARY: DEFAULT_MILITARY,
    NAMED: DEFAULT_NAMED,
}

TABLE_TITLES: dict[str, str] = {
    MONARCH_TABLE: "EU monarchs: survival, succession, minority and reign length (1d10)",
    MODIFIERS: "EU monarchs: survival, succession and reign length modifiers",
    MINORITY: "EU monarchs: minority stages (age penalty, who may lead)",
    SUCCESSOR_VALUES: "EU monarchs: successor's values (1d10 by column)",
    COUNTRIES: "EU monarchs: base column and special rules per country",
    PERIODS: "EU monarchs: periods by turn",
    HABSBURG: "EU monarchs: Habsburg endogamy (Spain's column modifier)",
    RANSOM: "EU monarchs: ransom of a captured monarch",
    MILITARY: "EU monarchs: military skill of a monarch as leader (optional; alignment uncertain)",
    NAMED: "EU monarchs: the historical (named) monarchs per country, their values and conditions",
}


def defaults() -> dict[str, Any]:
    """A fresh copy of every default table."""
    return copy.deepcopy(DEFAULT_TABLES)


# --- validation ----------------------------------------------------------------------------------


def _int(value: object, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTable(f"{where} must be a whole number, got {value!r}.")
    if not low <= value <= high:
        raise InvalidTable(f"{where} is {value}, outside {low}..{high}.")
    return value


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidTable(f"{where} must be true or false, got {value!r}.")
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidTable(f"{where} must be some text, got {value!r}.")
    return value.strip()


def _object(data: object, name: str) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise InvalidTable(f"The {name} table must be an object.")
    return data


def _list(data: object, name: str) -> list[Any]:
    if not isinstance(data, list) or not data:
        raise InvalidTable(f"The {name} must be a non-empty list.")
    return data


def _unknown_keys(row: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(row) - allowed)
    if extra:
        raise InvalidTable(f"{where}: unknown field {extra[0]!r}; known: {', '.join(sorted(allowed))}.")


def _choice(value: object, choices: Mapping[str, str] | Sequence[str], where: str) -> str:
    if not isinstance(value, str) or value not in choices:
        shown = ", ".join(repr(c) for c in choices)
        raise InvalidTable(f"{where} is {value!r}; choose one of {shown}.")
    return value


def validate_monarch_table(data: JSON) -> list[dict[str, Any]]:
    rows = _list(data, "monarch table's rows")
    out: list[dict[str, Any]] = []
    fields = {"roll", "survival", "turkey", "succession", "minority", "reign"}
    for i, row in enumerate(rows, start=1):
        where = f"Monarch table, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each row must be an object.")
        _unknown_keys(row, fields, where)
        roll = _int(row.get("roll"), f"{where}: 'roll'", -20, 30)
        if out and roll != out[-1]["roll"] + 1:
            raise InvalidTable(f"{where}: rolls must follow each other (roll {roll} comes after {out[-1]['roll']}).")
        reign = row.get("reign")
        if reign is not None:
            reign = _int(reign, f"{where}: 'reign' (turns)", 1, 40)
        elif not out:
            raise InvalidTable(f"{where}: the first row needs a reign length.")
        minority = row.get("minority", "")
        if not isinstance(minority, str):
            raise InvalidTable(f"{where}: 'minority' must be a stage name or empty, got {minority!r}.")
        out.append(
            {
                "roll": roll,
                "survival": _choice(row.get("survival", ""), SURVIVAL_RESULTS, f"{where}: 'survival'"),
                "turkey": _choice(row.get("turkey", ""), TURKISH_RESULTS, f"{where}: 'turkey'"),
                "succession": _choice(row.get("succession", ""), SUCCESSION_RESULTS, f"{where}: 'succession'"),
                "minority": minority.strip(),
                "reign": reign,
            }
        )
    if out[0]["roll"] > 1 or out[-1]["roll"] < 10:
        raise InvalidTable(
            f"The monarch table runs from {out[0]['roll']} to {out[-1]['roll']}; it must cover every 1d10 face, 1 to 10."
        )
    return out


def validate_modifiers(data: JSON) -> dict[str, Any]:
    table = _object(data, "monarch modifiers")
    _unknown_keys(table, set(DEFAULT_MODIFIERS), "Monarch modifiers")
    out: dict[str, Any] = {}
    for key in DEFAULT_MODIFIERS:
        if key not in table:
            raise InvalidTable(f"Monarch modifiers: '{key}' is missing.")
        if key == "after_crisis":
            turns = table[key]
            if not isinstance(turns, list) or len(turns) > 10:
                raise InvalidTable("Monarch modifiers: 'after_crisis' must be a list (one modifier per turn after a crisis).")
            out[key] = [_int(v, f"Monarch modifiers: 'after_crisis' turn {n}", -10, 10) for n, v in enumerate(turns, 1)]
        elif key in ("turkey_mil_below", "doge_min_value"):
            out[key] = _int(table[key], f"Monarch modifiers: '{key}'", 0, 20)
        else:
            out[key] = _int(table[key], f"Monarch modifiers: '{key}'", -10, 10)
    return out


def validate_minority(data: JSON) -> dict[str, Any]:
    table = _object(data, "minority")
    _unknown_keys(table, {"adult_age", "adult_accession_age", "stages"}, "Minority table")
    adult = _int(table.get("adult_age"), "Minority table: 'adult_age'", 1, 30)
    accession = _int(table.get("adult_accession_age"), "Minority table: 'adult_accession_age'", adult, 90)
    stages: list[dict[str, Any]] = []
    for i, row in enumerate(_list(table.get("stages"), "minority table's stages"), start=1):
        where = f"Minority table, stage {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each stage must be an object.")
        _unknown_keys(row, {"name", "age", "penalty", "can_lead"}, where)
        name = _text(row.get("name"), f"{where}: 'name'")
        if any(s["name"] == name for s in stages):
            raise InvalidTable(f"{where}: the stage {name!r} is listed twice.")
        age = _int(row.get("age"), f"{where}: 'age'", 0, adult - 1)
        if any(s["age"] == age for s in stages):
            raise InvalidTable(f"{where}: two stages begin at age {age}.")
        stages.append(
            {
                "name": name,
                "age": age,
                "penalty": _int(row.get("penalty"), f"{where}: 'penalty'", -10, 0),
                "can_lead": _bool(row.get("can_lead"), f"{where}: 'can_lead'"),
            }
        )
    return {"adult_age": adult, "adult_accession_age": accession, "stages": stages}


def _columns(value: object, where: str) -> list[int]:
    columns = _list(value, f"{where} 'columns'")
    out = [_int(c, f"{where}: a column", -20, 30) for c in columns]
    if any(b != a + 1 for a, b in itertools.pairwise(out)):
        raise InvalidTable(f"{where}: the columns must be consecutive whole numbers, e.g. 3, 4, 5, 6, 7.")
    return out


def validate_successor_values(data: JSON) -> dict[str, Any]:
    table = _object(data, "successor values")
    _unknown_keys(table, {"columns", "rows"}, "Successor values")
    columns = _columns(table.get("columns"), "Successor values")
    rows: list[dict[str, Any]] = []
    for i, row in enumerate(_list(table.get("rows"), "successor values' rows"), start=1):
        where = f"Successor values, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each row must be an object.")
        _unknown_keys(row, {"roll", "values"}, where)
        roll = _int(row.get("roll"), f"{where}: 'roll'", 1, 10)
        if roll != i:
            raise InvalidTable(f"{where}: rows must be the 1d10 faces 1 to 10 in order (found {roll}).")
        values = row.get("values")
        if not isinstance(values, list) or len(values) != len(columns):
            raise InvalidTable(f"{where}: give one value per column ({len(columns)}).")
        rows.append({"roll": roll, "values": [_int(v, f"{where}: a value", 0, 20) for v in values]})
    if len(rows) != 10:
        raise InvalidTable(f"Successor values: {len(rows)} rows; the table needs one per 1d10 face (10).")
    return {"columns": columns, "rows": rows}


def validate_countries(data: JSON) -> list[dict[str, Any]]:
    rows = _list(data, "countries table's rows")
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    fields = {"country", "aliases", "column", "until", "then", "turkey", "doge", "habsburg", "leader_die_bonus", "major"}
    for i, row in enumerate(rows, start=1):
        where = f"Countries, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each row must be an object.")
        _unknown_keys(row, fields, where)
        country = _text(row.get("country"), f"{where}: 'country'")
        aliases = row.get("aliases", [])
        if not isinstance(aliases, list):
            raise InvalidTable(f"{where}: 'aliases' must be a list of names.")
        names = [country, *(_text(a, f"{where}: an alias") for a in aliases)]
        for name in names:
            if name.casefold() in seen:
                raise InvalidTable(f"{where}: {name!r} names two countries.")
            seen.add(name.casefold())
        clean: dict[str, Any] = {
            "country": country,
            "aliases": names[1:],
            "column": _int(row.get("column"), f"{where}: 'column'", -20, 30),
        }
        if "until" in row or "then" in row:
            clean["until"] = _text(row.get("until"), f"{where}: 'until' (what changes the column)")
            clean["then"] = _int(row.get("then"), f"{where}: 'then' (the column after {clean['until']})", -20, 30)
        for flag in ("turkey", "doge", "habsburg", "major"):
            if flag in row:
                clean[flag] = _bool(row[flag], f"{where}: '{flag}'")
        if "leader_die_bonus" in row:
            bonus = row["leader_die_bonus"]
            if not isinstance(bonus, dict):
                raise InvalidTable(f"{where}: 'leader_die_bonus' must map leader values to a die bonus.")
            clean["leader_die_bonus"] = {
                _choice(k, (*LEADER_VALUES, SIEGE), f"{where}: a leader value"): _int(v, f"{where}: the {k} die bonus", -5, 5)
                for k, v in bonus.items()
            }
        out.append(clean)
    if not any(r["country"] == OTHERS for r in out):
        raise InvalidTable(f"Countries: add a row for every other country, with country {OTHERS!r}.")
    return out


def validate_periods(data: JSON) -> dict[str, Any]:
    table = _object(data, "periods")
    _unknown_keys(table, {"campaign_first_turn", "periods"}, "Periods")
    first = _int(table.get("campaign_first_turn"), "Periods: 'campaign_first_turn'", 1, 200)
    periods: list[dict[str, Any]] = []
    for i, row in enumerate(_list(table.get("periods"), "periods"), start=1):
        where = f"Periods, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each period must be an object.")
        _unknown_keys(row, {"name", "first_turn"}, where)
        name = _text(row.get("name"), f"{where}: 'name'")
        turn = _int(row.get("first_turn"), f"{where}: 'first_turn'", 1, 500)
        if not periods and turn != 1:
            raise InvalidTable(f"{where}: the first period must begin at turn 1.")
        if periods and turn <= periods[-1]["first_turn"]:
            raise InvalidTable(f"{where}: period {name} must begin after turn {periods[-1]['first_turn']}.")
        if any(p["name"] == name for p in periods):
            raise InvalidTable(f"{where}: period {name} is listed twice.")
        periods.append({"name": name, "first_turn": turn})
    return {"campaign_first_turn": first, "periods": periods}


def validate_habsburg(data: JSON) -> dict[str, Any]:
    table = _object(data, "Habsburg endogamy")
    _unknown_keys(table, {"columns", "rows"}, "Habsburg endogamy")
    columns = [_int(c, "Habsburg endogamy: a column", 0, 50) for c in _list(table.get("columns"), "Habsburg columns")]
    if columns != sorted(set(columns)):
        raise InvalidTable("Habsburg endogamy: the columns (numbers of dynastic alliances) must increase.")
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, row in enumerate(_list(table.get("rows"), "Habsburg endogamy rows"), start=1):
        where = f"Habsburg endogamy, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each row must be an object.")
        _unknown_keys(row, {"periods", "values"}, where)
        periods = [_text(p, f"{where}: a period") for p in _list(row.get("periods"), f"{where} periods")]
        for p in periods:
            if p in seen:
                raise InvalidTable(f"{where}: period {p} has two rows.")
            seen.add(p)
        values = row.get("values")
        if not isinstance(values, list) or len(values) != len(columns):
            raise InvalidTable(f"{where}: give one value per column ({len(columns)}).")
        rows.append({"periods": periods, "values": [_int(v, f"{where}: a value", -10, 10) for v in values]})
    return {"columns": columns, "rows": rows}


def validate_ransom(data: JSON) -> dict[str, Any]:
    table = _object(data, "ransom")
    _unknown_keys(table, {"major", "minor"}, "Ransom")
    out: dict[str, Any] = {}
    for kind in ("major", "minor"):
        row = table.get(kind)
        if not isinstance(row, dict):
            raise InvalidTable(f"Ransom: '{kind}' must be an object with 'ducats' and 'stability'.")
        _unknown_keys(row, {"ducats", "stability"}, f"Ransom, {kind}")
        out[kind] = {
            "ducats": _int(row.get("ducats"), f"Ransom, {kind}: 'ducats'", 0, 100_000),
            "stability": _int(row.get("stability"), f"Ransom, {kind}: 'stability'", -10, 10),
        }
    return out


_CELL = re.compile(r"^(\d{1,2})(\*?)$")


def validate_military(data: JSON) -> dict[str, Any]:
    table = _object(data, "military skill")
    _unknown_keys(table, {"columns", "rows", "modifiers", "min_value", "max_value", "siege_base"}, "Military skill")
    columns = _columns(table.get("columns"), "Military skill")
    rows: list[dict[str, Any]] = []
    for i, row in enumerate(_list(table.get("rows"), "military skill rows"), start=1):
        where = f"Military skill, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each row must be an object.")
        _unknown_keys(row, {"mil", "values"}, where)
        mil = _int(row.get("mil"), f"{where}: 'mil'", 0, 20)
        if rows and mil != rows[-1]["mil"] + 1:
            raise InvalidTable(f"{where}: MIL rows must follow each other (MIL {mil} comes after {rows[-1]['mil']}).")
        values = row.get("values")
        if not isinstance(values, list) or len(values) != len(columns):
            raise InvalidTable(f"{where}: give one value per column ({len(columns)}).")
        for cell in values:
            if not isinstance(cell, str) or not _CELL.match(cell):
                raise InvalidTable(f"{where}: {cell!r} is not a value such as '3' or '4*' (siege).")
        rows.append({"mil": mil, "values": list(values)})
    bands: list[dict[str, int]] = []
    for i, row in enumerate(_list(table.get("modifiers"), "military skill modifiers"), start=1):
        where = f"Military skill modifiers, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each row must be an object.")
        _unknown_keys(row, {"from", "to", "modifier"}, where)
        low = _int(row.get("from"), f"{where}: 'from'", -20, 30)
        high = _int(row.get("to"), f"{where}: 'to'", low, 30)
        if bands and low != bands[-1]["to"] + 1:
            raise InvalidTable(f"{where}: starts at {low} but must start at {bands[-1]['to'] + 1}.")
        bands.append({"from": low, "to": high, "modifier": _int(row.get("modifier"), f"{where}: 'modifier'", -10, 10)})
    if bands[0]["from"] > 1 or bands[-1]["to"] < 10:
        raise InvalidTable("Military skill modifiers must cover every 1d10 face, 1 to 10.")
    low_value = _int(table.get("min_value"), "Military skill: 'min_value'", 0, 20)
    high_value = _int(table.get("max_value"), "Military skill: 'max_value'", low_value, 20)
    return {
        "columns": columns,
        "rows": rows,
        "modifiers": bands,
        "min_value": low_value,
        "max_value": high_value,
        "siege_base": _int(table.get("siege_base"), "Military skill: 'siege_base'", 0, 20),
    }


_NAMED_FIELDS = {
    "country",
    "name",
    "condition",
    "given",
    "dynastic",
    "values",
    "at_start",
    "periods",
    "requires",
    "no_survival_turns",
    "reign_turns",
    "until_turn",
    "sex",
    "sets",
}
VALUE_RANGE = (3, 9)  # ADM, DIP and MIL (RULES.md B: the successor's table gives 3 to 9)


def _monarch_values(value: object, where: str) -> dict[str, int]:
    if not isinstance(value, dict) or set(value) != set(CHARACTERISTICS):
        raise InvalidTable(f"{where} must give adm, dip and mil, e.g. {{'adm': 8, 'dip': 7, 'mil': 9}}.")
    return {k: _int(value[k], f"{where}: {k.upper()}", *VALUE_RANGE) for k in CHARACTERISTICS}


def validate_named(data: JSON) -> list[dict[str, Any]]:
    """The historical monarchs: each country's named ones, with what the set-up and the pages read."""
    if not isinstance(data, list):
        raise InvalidTable("The named monarchs must be a list (it may be empty).")
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for i, row in enumerate(data, start=1):
        where = f"Named monarchs, row {i}"
        if not isinstance(row, dict):
            raise InvalidTable(f"{where}: each row must be an object.")
        _unknown_keys(row, _NAMED_FIELDS, where)
        country = _text(row.get("country"), f"{where}: 'country'")
        name = _text(row.get("name"), f"{where}: 'name'")
        if (country.casefold(), name.casefold()) in seen:
            raise InvalidTable(f"{where}: {name} of {country} is listed twice.")
        seen.add((country.casefold(), name.casefold()))
        where = f"Named monarchs, {name} ({country})"
        clean: dict[str, Any] = {
            "country": country,
            "name": name,
            "condition": _text(row.get("condition"), f"{where}: 'condition'"),
        }
        for key in ("given", "dynastic"):
            if key in row:
                clean[key] = _text(row[key], f"{where}: '{key}'")
        if "values" in row:
            clean["values"] = _monarch_values(row["values"], f"{where}: 'values'")
        if "at_start" in row:
            clean["at_start"] = _bool(row["at_start"], f"{where}: 'at_start'")
        if "periods" in row:
            clean["periods"] = [_text(p, f"{where}: a period") for p in _list(row["periods"], f"{where} periods")]
        if "requires" in row:
            need = row["requires"]
            if not isinstance(need, dict) or not need or not set(need) <= {*CHARACTERISTICS, "total"}:
                raise InvalidTable(f"{where}: 'requires' maps adm, dip, mil or total to a least value, e.g. {{'adm': 8}}.")
            clean["requires"] = {k: _int(v, f"{where}: 'requires' {k}", 0, 30) for k, v in need.items()}
        for key, low, high in (("no_survival_turns", 1, 30), ("reign_turns", 1, 40), ("until_turn", 1, 500)):
            if key in row:
                clean[key] = _int(row[key], f"{where}: '{key}'", low, high)
        if "reign_turns" in clean and "until_turn" in clean:
            raise InvalidTable(f"{where}: give 'reign_turns' or 'until_turn', not both.")
        if "sex" in row:
            clean["sex"] = _choice(row["sex"], ("M", "F"), f"{where}: 'sex'")
        if "sets" in row:
            if not isinstance(row["sets"], dict) or not row["sets"]:
                raise InvalidTable(f"{where}: 'sets' maps crown settings to their values, e.g. {{'doge': true}}.")
            try:
                clean["sets"] = clean_settings(row["sets"])
            except IllegalOption as exc:
                raise InvalidTable(f"{where}: 'sets': {exc.message}") from None
        out.append(clean)
    return out


VALIDATORS: dict[str, Any] = {
    MONARCH_TABLE: validate_monarch_table,
    MODIFIERS: validate_modifiers,
    MINORITY: validate_minority,
    SUCCESSOR_VALUES: validate_successor_values,
    COUNTRIES: validate_countries,
    PERIODS: validate_periods,
    HABSBURG: validate_habsburg,
    RANSOM: validate_ransom,
    MILITARY: validate_military,
    NAMED: validate_named,
}


def validate_table(key: str, data: JSON) -> JSON:
    try:
        validator = VALIDATORS[key]
    except KeyError:
        raise InvalidTable(f"There is no EU monarch table called {key!r}; known: {', '.join(VALIDATORS)}.") from None
    return validator(data)


def check_together(tables: Mapping[str, Any]) -> None:
    """What no single validator can see: the monarch table's minority names are minority stages."""
    stages = {s["name"] for s in tables[MINORITY]["stages"]}
    for row in tables[MONARCH_TABLE]:
        if row["minority"] and row["minority"] not in stages:
            raise InvalidTable(
                f"Monarch table, roll {row['roll']}: minority {row['minority']!r} is not a stage of the minority "
                f"table ({', '.join(sorted(stages))})."
            )


# --- the Ruleset interface ------------------------------------------------------------------------


def clean_options(options: Mapping[str, Any] | None) -> dict[str, bool]:
    for key in options or {}:
        raise IllegalOption(f"The EU monarch tables have no optional rule {key!r}; per-country rules are crown settings.")
    return {}


def characteristic_names(sex: str) -> tuple[str, str, str]:
    return CHARACTERISTICS


def characteristics(sex: str) -> tuple[Characteristic, ...]:
    """ADM, DIP and MIL, each 3..9 (RULES.md B)."""
    low, high = 3, 9
    return tuple(
        Characteristic(key, key.upper(), low, high, "the successor's values table gives 3 to 9") for key in CHARACTERISTICS
    )


def birth_succeeds(faces: Sequence[int]) -> bool:
    return families.birth_succeeds(faces)


def sex_from_faces(faces: Sequence[int]) -> str:
    return families.sex_from_faces(faces)


def marriage_problems(
    husband: Person,
    wife: Person,
    year: int,
    *,
    wedding: bool,
    husband_taken: bool = False,
    wife_taken: bool = False,
    husband_never_marries: bool = False,
    wife_never_marries: bool = False,
) -> list[str]:
    return families.marriage_problems(
        husband,
        wife,
        year,
        wedding=wedding,
        husband_taken=husband_taken,
        wife_taken=wife_taken,
        husband_never_marries=husband_never_marries,
        wife_never_marries=wife_never_marries,
    )


# --- reading the one 1d10 table -----------------------------------------------------------------


def _die(faces: Sequence[int], spec: DiceSpec = D10) -> int:
    if len(faces) != spec.count or any(not 1 <= f <= spec.sides for f in faces):
        raise InvalidDice(f"Expected one {spec} face, got {list(faces)!r}.")
    return sum(faces)


def table_row(table: Sequence[Mapping[str, Any]], total: int) -> Mapping[str, Any]:
    """The row a modified total reads: below the first row reads the first ("1 or less"), above the
    last reads the last ("11 or more")."""
    first = table[0]["roll"]
    row: Mapping[str, Any] = table[min(max(total, first), table[-1]["roll"]) - first]
    return row


@dataclass(frozen=True)
class SurvivalResult:
    die: int
    modifier: int
    total: int
    outcome: str  # "", "extra_turn" or "dead"
    turkish: str  # "", "pasha", "revolt" or "revolt_crisis" (only read for Turkey)

    @property
    def dies(self) -> bool:
        return self.outcome == DEAD

    @property
    def extra_turn(self) -> bool:
        return self.outcome == EXTRA_TURN

    @property
    def revolts(self) -> int:
        return 1 if self.turkish in (REVOLT, REVOLT_CRISIS) else 0

    @property
    def crisis(self) -> bool:
        return self.turkish == REVOLT_CRISIS

    @property
    def label(self) -> str:
        text = SURVIVAL_RESULTS[self.outcome]
        if self.turkish:
            text += f"; {TURKISH_RESULTS[self.turkish]}"
        return text


def survival_modifiers(
    modifiers: Mapping[str, Any],
    *,
    fragile_health: bool,
    turns_since_crisis: int | None,
    stability: int,
    turkey: bool,
    mil: int | None,
) -> list[tuple[int, str]]:
    """The survival roll's modifiers, each with why (RULES.md C)."""
    out: list[tuple[int, str]] = []
    if fragile_health and modifiers["fragile_health"]:
        out.append((modifiers["fragile_health"], "Fragile Health"))
    after: list[int] = modifiers["after_crisis"]
    if turns_since_crisis is not None and 1 <= turns_since_crisis <= len(after) and after[turns_since_crisis - 1]:
        out.append((after[turns_since_crisis - 1], f"turn {turns_since_crisis} after a Dynastic Crisis"))
    if stability < 0 and modifiers["negative_stability"]:
        out.append((modifiers["negative_stability"], f"Stability {stability}"))
    if turkey and mil is not None and mil < modifiers["turkey_mil_below"] and modifiers["turkey_low_mil"]:
        out.append((modifiers["turkey_low_mil"], f"Turkey, MIL {mil} below {modifiers['turkey_mil_below']}"))
    return out


def survival_result(
    table: Sequence[Mapping[str, Any]], faces: Sequence[int], modifier: int = 0, *, turkey: bool = False
) -> SurvivalResult:
    die = _die(faces)
    row = table_row(table, die + modifier)
    return SurvivalResult(die, modifier, die + modifier, row["survival"], row["turkey"] if turkey else "")


@dataclass(frozen=True)
class SuccessionReading:
    die: int
    modifier: int
    total: int
    outcome: str  # "", "crisis" or "fragile"
    minority: str  # the stage read on the same line ("" for an adult); meaningless when reroll_for_age

    @property
    def crisis(self) -> bool:
        return self.outcome == CRISIS

    @property
    def fragile(self) -> bool:
        return self.outcome == FRAGILE

    @property
    def reroll_for_age(self) -> bool:
        """Dynastic Crisis and Fragile Health both roll again for the age."""
        return self.outcome in (CRISIS, FRAGILE)


def succession_reading(
    table: Sequence[Mapping[str, Any]], faces: Sequence[int], modifier: int = 0, *, no_crisis: bool = False
) -> SuccessionReading:
    """The succession roll: Dynastic Crisis, Fragile Health or normal, and the minority on the same
    line. ``no_crisis`` (Venetian Doges): a Dynastic Crisis line reads as a normal one."""
    die = _die(faces)
    row = table_row(table, die + modifier)
    outcome = row["succession"]
    if outcome == CRISIS and no_crisis:
        outcome = ""
    return SuccessionReading(die, modifier, die + modifier, outcome, row["minority"])


def age_reroll(table: Sequence[Mapping[str, Any]], faces: Sequence[int]) -> str:
    """The roll again for age after a Dynastic Crisis or Fragile Health: only the minority column is read."""
    return str(table_row(table, _die(faces))["minority"])


def reign_modifier(modifiers: Mapping[str, Any], *, doge: bool, poland_era: bool) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    if doge and modifiers["doge_reign"]:
        out.append((modifiers["doge_reign"], "Venetian Doge"))
    if poland_era and modifiers["poland_era"]:
        out.append((modifiers["poland_era"], "Poland's era"))
    return out


def succession_modifier(modifiers: Mapping[str, Any], *, poland_era: bool) -> list[tuple[int, str]]:
    return [(modifiers["poland_era"], "Poland's era")] if poland_era and modifiers["poland_era"] else []


def reign_turns(table: Sequence[Mapping[str, Any]], faces: Sequence[int], modifier: int = 0) -> int:
    """Reign length in turns; a row without a length (the printed "11 or more") reads the row above."""
    die = _die(faces)
    first = table[0]["roll"]
    index = min(max(die + modifier, first), table[-1]["roll"]) - first
    while table[index]["reign"] is None:
        index -= 1
    return int(table[index]["reign"])


# --- minority -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    name: str  # "" for an adult
    penalty: int
    can_lead: bool


ADULT_STAGE = Stage(ADULT, 0, True)


def accession_age(minority: Mapping[str, Any], stage: str) -> int:
    """The age a new monarch is given: the stage's age, or the adult accession age."""
    if not stage:
        return int(minority["adult_accession_age"])
    for row in minority["stages"]:
        if row["name"] == stage:
            return int(row["age"])
    raise InvalidTable(f"The minority table has no stage {stage!r}.")


def stage_at(minority: Mapping[str, Any], age: int) -> Stage:
    """The minority stage of a monarch of ``age``: the stage with the highest age not above his (the
    youngest stage below all of them); an adult from the adult age on. A baby grows into a child."""
    if age >= minority["adult_age"]:
        return ADULT_STAGE
    stages = sorted(minority["stages"], key=lambda s: s["age"])
    chosen = stages[0]
    for row in stages:
        if row["age"] <= age:
            chosen = row
    return Stage(chosen["name"], chosen["penalty"], chosen["can_lead"])


def effective_values(values: Mapping[str, int], *, penalty: int = 0, halved: bool = False) -> dict[str, int]:
    """The values in play: halved (rounded down) in the first turn of a Dynastic Crisis, then the
    minority penalty; never below 0."""
    out: dict[str, int] = {}
    for name in CHARACTERISTICS:
        value = int(values.get(name, 0))
        if halved:
            value //= 2
        out[name] = max(0, value + penalty)
    return out


# --- successor's values -------------------------------------------------------------------------


def successor_column(values_table: Mapping[str, Any], base: int, former: int | None) -> int:
    """The column read: the base column, one right if the former monarch's value was above it, one
    left if below; held to the table."""
    column = base
    if former is not None and former > base:
        column += 1
    elif former is not None and former < base:
        column -= 1
    columns: list[int] = values_table["columns"]
    return min(max(column, columns[0]), columns[-1])


def successor_value(
    values_table: Mapping[str, Any], column: int, faces: Sequence[int], *, die_bonus: int = 0, minimum: int | None = None
) -> int:
    """One value: the 1d10 (+ a Doge's die bonus, read on the 10 row if above it) in the column."""
    die = _die(faces)
    rows: list[dict[str, Any]] = values_table["rows"]
    columns: list[int] = values_table["columns"]
    row = rows[min(max(die + die_bonus, 1), len(rows)) - 1]
    value = int(row["values"][min(max(column, columns[0]), columns[-1]) - columns[0]])
    return max(value, minimum) if minimum is not None else value


def successor_values(
    values_table: Mapping[str, Any],
    base: int,
    former: Mapping[str, int] | None,
    faces: Mapping[str, Sequence[int]],
    *,
    die_bonus: int = 0,
    minimum: int | None = None,
) -> dict[str, int]:
    """ADM, DIP and MIL, each from its own die and its own column."""
    out: dict[str, int] = {}
    for name in CHARACTERISTICS:
        previous = former.get(name) if former else None
        column = successor_column(values_table, base, previous)
        out[name] = successor_value(values_table, column, faces[name], die_bonus=die_bonus, minimum=minimum)
    return out


def doge_value_rules(modifiers: Mapping[str, Any]) -> tuple[int, int]:
    """A Doge's die bonus and minimal value."""
    return int(modifiers["doge_die"]), int(modifiers["doge_min_value"])


# --- countries and columns ------------------------------------------------------------------------


def country_row(countries: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any]:
    """The row of a country by name or alias (case-insensitive); every other country reads '*'."""
    key = name.strip().casefold()
    for row in countries:
        if row["country"].casefold() == key or any(a.casefold() == key for a in row.get("aliases", [])):
            return row
    return next(row for row in countries if row["country"] == OTHERS)


def habsburg_modifier(habsburg: Mapping[str, Any], period: str, alliances: int) -> int:
    """Spain's column modifier by period and number of dynastic alliances (none: 0)."""
    row = next((r for r in habsburg["rows"] if period in r["periods"]), None)
    if row is None:
        raise InvalidTable(f"The Habsburg endogamy table has no row for period {period}.")
    value = 0
    for column, cell in zip(habsburg["columns"], row["values"], strict=True):
        if column <= alliances:
            value = cell
    return int(value)


def base_column(
    countries: Sequence[Mapping[str, Any]],
    country: str,
    *,
    event_passed: bool = False,
    override: int | None = None,
    habsburg: int = 0,
) -> int:
    """A country's base column: an explicit override, else the table's (the 'then' column once the
    'until' event has passed), plus Spain's Habsburg endogamy modifier."""
    if override is not None:
        return override
    row = country_row(countries, country)
    column = int(row["then"]) if event_passed and "then" in row else int(row["column"])
    return column + (habsburg if row.get("habsburg") else 0)


# --- periods ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    name: str
    turn: int  # the EU turn number
    first_turn: int
    last_turn: int | None  # None: the last period runs on


def eu_turn(periods: Mapping[str, Any], campaign_turn: int) -> int:
    return campaign_turn + int(periods["campaign_first_turn"]) - 1


def period_of_turn(periods: Mapping[str, Any], turn: int) -> Period:
    rows: list[dict[str, Any]] = periods["periods"]
    if turn < 1:
        raise InvalidTable(f"Turn {turn} is before the first period.")
    index = max(i for i, row in enumerate(rows) if row["first_turn"] <= turn)
    last = rows[index + 1]["first_turn"] - 1 if index + 1 < len(rows) else None
    return Period(rows[index]["name"], turn, rows[index]["first_turn"], last)


# --- ransom -------------------------------------------------------------------------------------------


def ransom(table: Mapping[str, Any], *, major: bool) -> tuple[int, int]:
    """Ducats and Stability change for ransoming a captured monarch."""
    row = table["major" if major else "minor"]
    return int(row["ducats"]), int(row["stability"])


# --- military skill (optional) -----------------------------------------------------------------------


def military_average(military: Mapping[str, Any], mil: int, faces: Sequence[int]) -> tuple[int, bool]:
    """The average leader value and whether it has a siege star; MIL outside the rows reads the nearest."""
    die = _die(faces)
    rows: list[dict[str, Any]] = military["rows"]
    row = rows[min(max(mil, rows[0]["mil"]), rows[-1]["mil"]) - rows[0]["mil"]]
    columns: list[int] = military["columns"]
    cell = str(row["values"][min(max(die, columns[0]), columns[-1]) - columns[0]])
    match = _CELL.match(cell)
    assert match is not None
    return int(match.group(1)), bool(match.group(2))


def leader_modifier(military: Mapping[str, Any], total: int) -> int:
    bands: list[dict[str, int]] = military["modifiers"]
    total = min(max(total, bands[0]["from"]), bands[-1]["to"])
    return next(b["modifier"] for b in bands if b["from"] <= total <= b["to"])


def leader_values(
    military: Mapping[str, Any],
    average: int,
    siege_star: bool,
    faces: Mapping[str, Sequence[int]],
    die_bonus: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Each leader value: the average plus the modifier its 1d10 (+ the country's die bonus) reads,
    held to min..max; siege is 0 unless starred, then the siege base plus its modifier."""
    bonus = dict(die_bonus or {})
    low, high = int(military["min_value"]), int(military["max_value"])
    out: dict[str, int] = {}
    for name in LEADER_VALUES:
        mod = leader_modifier(military, _die(faces[name]) + bonus.get(name, 0))
        out[name] = min(max(average + mod, low), high)
    if siege_star:
        mod = leader_modifier(military, _die(faces[SIEGE]) + bonus.get(SIEGE, 0))
        out[SIEGE] = min(max(int(military["siege_base"]) + mod, low), high)
    else:
        out[SIEGE] = 0
    return out


# --- exact odds -----------------------------------------------------------------------------------------


def _d10_rows(table: Sequence[Mapping[str, Any]], modifier: int) -> list[tuple[Fraction, Mapping[str, Any]]]:
    return [(Fraction(1, 10), table_row(table, face + modifier)) for face in range(1, 11)]


def survival_odds(table: Sequence[Mapping[str, Any]], modifier: int = 0) -> dict[str, Fraction]:
    out = {key: Fraction(0) for key in SURVIVAL_RESULTS}
    for p, row in _d10_rows(table, modifier):
        out[row["survival"]] += p
    return out


def turkish_odds(table: Sequence[Mapping[str, Any]], modifier: int = 0) -> dict[str, Fraction]:
    out = {key: Fraction(0) for key in TURKISH_RESULTS}
    for p, row in _d10_rows(table, modifier):
        out[row["turkey"]] += p
    return out


def succession_odds(table: Sequence[Mapping[str, Any]], modifier: int = 0, *, no_crisis: bool = False) -> dict[str, Fraction]:
    out = {key: Fraction(0) for key in SUCCESSION_RESULTS}
    for face in range(1, 11):
        out[succession_reading(table, [face], modifier, no_crisis=no_crisis).outcome] += Fraction(1, 10)
    return out


def minority_odds(table: Sequence[Mapping[str, Any]], modifier: int = 0, *, no_crisis: bool = False) -> dict[str, Fraction]:
    """The new monarch's minority stage ("" adult), the roll again for age included."""
    reroll: dict[str, Fraction] = {}
    for face in range(1, 11):
        stage = age_reroll(table, [face])
        reroll[stage] = reroll.get(stage, Fraction(0)) + Fraction(1, 10)
    out: dict[str, Fraction] = {}
    for face in range(1, 11):
        reading = succession_reading(table, [face], modifier, no_crisis=no_crisis)
        if reading.reroll_for_age:
            for stage, p in reroll.items():
                out[stage] = out.get(stage, Fraction(0)) + p / 10
        else:
            out[reading.minority] = out.get(reading.minority, Fraction(0)) + Fraction(1, 10)
    return out


def reign_odds(table: Sequence[Mapping[str, Any]], modifier: int = 0) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for face in range(1, 11):
        turns = reign_turns(table, [face], modifier)
        out[turns] = out.get(turns, Fraction(0)) + Fraction(1, 10)
    return out


def successor_value_odds(
    values_table: Mapping[str, Any], column: int, *, die_bonus: int = 0, minimum: int | None = None
) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for face in range(1, 11):
        value = successor_value(values_table, column, [face], die_bonus=die_bonus, minimum=minimum)
        out[value] = out.get(value, Fraction(0)) + Fraction(1, 10)
    return out


def within_sd(successes: int, n: int, p: Fraction, sds: float = 3.0) -> bool:
    """Is a count of ``successes`` in ``n`` trials within ``sds`` binomial standard deviations of n*p?"""
    expected = n * float(p)
    sd = math.sqrt(n * float(p) * (1 - float(p)))
    return abs(successes - expected) <= sds * sd


# --- per-crown settings (kept in Crown.state) ----------------------------------------------------------

SETTINGS: dict[str, str] = {
    "country": "the country whose rules apply (default: the crown's name), e.g. 'Spain' for Castile",
    "base_column": "an explicit successor-values base column (overrides the country's)",
    "base_column_event_passed": "the event that changes the country's column has happened (France: III-11; "
    "Russia: Peter the Great)",
    "habsburg_modifier": "Spain: the Habsburg endogamy column modifier, as a number",
    "dynastic_alliances": "Spain: the number of Habsburg dynastic alliances (the modifier is then read on the table)",
    "doge": "the ruler is a Venetian Doge (+1 to each value die, minimum 4; reign -2; no Dynastic Crisis)",
    "turkey": "read the Turkish survival column and the MIL < 7 modifier",
    "poland_era": "Poland's era: -2 to the succession (Dynastic Crisis) roll and the reign length roll",
    "fragile_health": "the monarch has Fragile Health (+1 to survival)",
}
_INT_SETTINGS = {"base_column": (-20, 30), "habsburg_modifier": (-10, 10), "dynastic_alliances": (0, 50)}
_BOOL_SETTINGS = {"base_column_event_passed", "doge", "turkey", "poland_era", "fragile_health"}


def clean_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Check per-crown settings; ``None`` clears a setting (back to the country's default)."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        if key not in SETTINGS:
            raise IllegalOption(f"There is no crown setting {key!r}; known: {', '.join(SETTINGS)}.")
        if value is None:
            out[key] = None
        elif key == "country":
            if not isinstance(value, str) or not value.strip():
                raise IllegalOption(f"Crown setting 'country' must be a country's name, got {value!r}.")
            out[key] = value.strip()
        elif key in _BOOL_SETTINGS:
            if not isinstance(value, bool):
                raise IllegalOption(f"Crown setting {key!r} must be true or false, got {value!r}.")
            out[key] = value
        else:
            low, high = _INT_SETTINGS[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise IllegalOption(f"Crown setting {key!r} must be a whole number from {low} to {high}, got {value!r}.")
            out[key] = value
    return out


@dataclass(frozen=True)
class CrownRules:
    """What the tables and a crown's settings make of that country."""

    country: str
    base_column: int
    doge: bool
    turkey: bool
    poland_era: bool
    fragile_health: bool
    leader_die_bonus: dict[str, int]
    column_note: str


def crown_rules(tables: Mapping[str, Any], crown_name: str, state: Mapping[str, Any], period: str) -> CrownRules:
    """Read a crown's settings against the country table (settings win; unset ones take the country's)."""
    country = state.get("country") or crown_name
    row = country_row(tables[COUNTRIES], country)
    passed = bool(state.get("base_column_event_passed"))
    override = state.get("base_column")
    if override is not None:
        note = f"base column {override} (set for this crown)"
    elif passed and "then" in row:
        note = f"base column {row['then']} (after {row['until']})"
    else:
        note = f"base column {row['column']} ({row['country'] if row['country'] != OTHERS else 'all others'})"
    habsburg = 0
    if row.get("habsburg") and override is None:
        if state.get("dynastic_alliances") is not None:
            alliances = int(state["dynastic_alliances"])
            habsburg = habsburg_modifier(tables[HABSBURG], period, alliances)
            note += f", Habsburg endogamy {habsburg:+d} ({alliances} dynastic alliances, period {period})"
        else:
            habsburg = int(state.get("habsburg_modifier") or 0)
            note += f", Habsburg endogamy {habsburg:+d}"
    column = base_column(tables[COUNTRIES], country, event_passed=passed, override=override, habsburg=habsburg)
    return CrownRules(
        country=row["country"] if row["country"] != OTHERS else country,
        base_column=column,
        doge=bool(state["doge"]) if state.get("doge") is not None else bool(row.get("doge")),
        turkey=bool(state["turkey"]) if state.get("turkey") is not None else bool(row.get("turkey")),
        poland_era=bool(state.get("poland_era")),
        fragile_health=bool(state.get("fragile_health")),
        leader_die_bonus=dict(row.get("leader_die_bonus", {})),
        column_note=note,
    )


# --- the set-up: countries and their historical monarchs -------------------------------------------


def setup_countries(countries: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The countries a campaign may start with: the majors and the minors of the table ('*' is not one)."""
    rows = [r for r in countries if r["country"] != OTHERS]
    return [r for r in rows if r.get("major")], [r for r in rows if not r.get("major")]


def named_of(named: Sequence[Mapping[str, Any]], countries: Sequence[Mapping[str, Any]], country: str) -> list[Mapping[str, Any]]:
    """A country's historical monarchs (the country named by name or alias)."""
    row = country_row(countries, country)
    names = (
        {country.casefold()} if row["country"] == OTHERS else {row["country"].casefold(), *(a.casefold() for a in row["aliases"])}
    )
    return [m for m in named if m["country"].casefold() in names]


def named_problems(monarch: Mapping[str, Any], *, period: str, turn: int, values: Mapping[str, int] | None) -> list[str]:
    """Why this historical monarch cannot take the throne now with these values (none: he can)."""
    out: list[str] = []
    periods = monarch.get("periods")
    if periods and period not in periods:
        out.append(f"{monarch['name']} reigns in period {', '.join(periods)}, not in period {period} (turn {turn})")
    until = monarch.get("until_turn")
    if until is not None and turn >= until:
        out.append(f"{monarch['name']}'s reign ends at turn {until}; the campaign starts at turn {turn}")
    for key, least in (monarch.get("requires") or {}).items():
        if values is None:
            out.append(f"{monarch['name']} needs {_requirement(key, least)}: type the values he has")
            break
        have = sum(values.values()) if key == "total" else values[key]
        if have < least:
            out.append(f"{monarch['name']} needs {_requirement(key, least)}; these values give {have}")
    return out


def _requirement(key: str, least: int) -> str:
    return f"ADM + DIP + MIL of {least} or more" if key == "total" else f"{key.upper()} {least} or more"


ROMAN = re.compile(r"^(.*\S)\s+([IVXLC]+)$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def split_numeral(name: str) -> tuple[str, int | None]:
    """'Friedrich II' -> ('Friedrich', 2); a name without a trailing numeral -> (name, None)."""
    match = ROMAN.match(name.strip())
    if not match:
        return name.strip(), None
    total, prev = 0, 0
    for ch in reversed(match.group(2)):
        value = _ROMAN_VALUES[ch]
        total = total - value if value < prev else total + value
        prev = max(prev, value)
    return match.group(1), total


def start_year_of_turn(turn: int) -> int:
    """The year an EU turn begins, counted from 1492 in turns of five years (a scenario's own start
    year may be typed instead)."""
    return START_YEAR + (turn - 1) * TURN_LENGTH


RULESET = register(
    Ruleset(
        name=NAME,
        label=LABEL,
        start_year=START_YEAR,
        turn_length=TURN_LENGTH,
        adult_age=ADULT_AGE,
        currency="ducats",
        birth_dice=BIRTH_DICE,
        sex_dice=SEX_DICE,
        characteristic_dice=CHARACTERISTIC_DICE,
        survival_dice=SURVIVAL_DICE,
        optional_rules=OPTIONAL_RULES,
        tables=DEFAULT_TABLES,
        validators=VALIDATORS,
        table_titles=TABLE_TITLES,
        kings_widows_retire=KINGS_WIDOWS_RETIRE,
        treasury_pays_matches=TREASURY_PAYS_MATCHES,
        clean_options=clean_options,
        characteristic_names=characteristic_names,
        characteristics=characteristics,
        birth_succeeds=birth_succeeds,
        sex_from_faces=sex_from_faces,
        marriage_problems=marriage_problems,
        keeps_families=False,
        monarch_table=True,
        europa_crowns=True,
        table_choices={
            (MONARCH_TABLE, "survival"): SURVIVAL_RESULTS,
            (MONARCH_TABLE, "turkey"): TURKISH_RESULTS,
            (MONARCH_TABLE, "succession"): SUCCESSION_RESULTS,
        },
    )
)
