"""Europa Universalis "BloodLine": where its succession differs from Blood Royale (RULES.md B).

The order is the same male-preference primogeniture (going back to the monarch's eldest sibling
and down when his own line is extinct: `succession.iter_succession`). What differs is the price of
a disputed succession — Stability and revolts instead of Strength — the Dynastic Union, the
Dynastic Crisis and the Turkish options. The rest of the ruleset (ADM/DIP/MIL, effective age,
births, survival table) arrives with the BloodLine ruleset itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules import families
from rules import options as options_module
from rules.characteristics import Characteristic
from rules.combat import BATTLE_ROLLS
from rules.dice import D10, TWO_D10, DiceSpec, chance_at_least, distribution
from rules.errors import IllegalOption, IllegalPassOver, InvalidTable, RuleError
from rules.people import FEMALE, MALE, Person
from rules.registry import Ruleset, register

NAME = "eu-bloodline"
ADULT_AGE = 15
MINOR_STABILITY_PER_TURN = -1  # a monarch under 15 costs -1 Stability every turn
ONGOING_DISPUTE_DICE: DiceSpec = D10  # "a 50% chance ... each Turn": 6-10 on 1d10
ONGOING_DISPUTE_FROM = 6
ONGOING_DISPUTE_WHICH_DICE: DiceSpec = D10  # after a strike, which of the two: 1-5 Stability, 6-10 a revolt
ONGOING_DISPUTE_REVOLT_FROM = 6
UNION_QUEEN_STABILITY_TURNS = 2  # the Queen's country loses 1 Stability a turn for two turns
UNION_QUEEN_STABILITY_PER_TURN = -1
UNION_END_STABILITY = 1
LEADERS_AT_SEA = (
    "BloodLine (Royal Characters in Battle): a royal is on the map only as a variant leader ('if these counters "
    "are captured or killed then that character suffers the same fate'), so only a crown's royal leaders can be "
    "lost at sea"
)
CRISIS_AGES = (40, 35, (20, 15, 10))  # a new dynasty: King 40, wife 35, three children
OPTIONAL_RULES: dict[str, str] = {
    "turkish_princess_rights": "Turkey #1: a Turkish princess cannot reign; her husband inherits her rights",
    "turkish_fratricide": "Turkey #2: a new Turkish monarch puts his brothers to death",
}


@dataclass(frozen=True)
class DisputeCost:
    """What passing over heirs costs a BloodLine country."""

    kind: str  # "prisoner", "married_away" or "voluntary"
    stability: int  # levels lost at once (negative)
    revolts: int  # revolts rolled at once, in the country
    combat_malus: int  # on all combat rolls while the condition lasts
    ongoing_roll: bool  # each turn after survival, while a skipped line lives: 50% -1 Stability or a revolt
    interim: bool  # the next heir only runs the dynasty until the prisoner dies or is released
    explanation: str


def dispute_cost(*, sex: str, prisoner_of_another: bool, married_away: bool, skipped: int, line_heirs: int = 0) -> DisputeCost:
    """The price of passing over ``skipped`` heirs, the first of whom is described (RULES.md B).
    ``line_heirs``: the heirs of their lines who stood ahead of the new monarch and are passed over
    with them; a voluntary dispute charges each ("for each legitimate heir passed over")."""
    if skipped < 1:
        raise IllegalPassOver("Name at least one heir to pass over.")
    if skipped == 1 and prisoner_of_another:
        return DisputeCost(
            "prisoner",
            0,
            1,
            0,
            False,
            True,
            "the heir is a prisoner: one revolt at home; the next heir runs the dynasty until the heir dies or is "
            "released, and a released heir claims the throne at once",
        )
    if skipped == 1 and sex == FEMALE and married_away:
        return DisputeCost(
            "married_away",
            0,
            1,
            -1,
            False,
            False,
            "the heir is a woman controlled by another player through marriage: one revolt, and -1 on all combat "
            "rolls while she or her direct descendants live; her line stays with the other dynasty, makes no new "
            "marriages and has no more children",
        )
    heirs = skipped + max(0, line_heirs)
    return DisputeCost(
        "voluntary",
        -1 - heirs,
        heirs,
        -1,
        True,
        False,
        f"voluntary disputed succession: -1 Stability, plus -1 Stability and one revolt for each of the {heirs} "
        "heirs skipped; -1 on battle rolls and a 50% roll each turn (-1 Stability or a revolt) while a skipped line lives",
    )


def ongoing_dispute_strikes(faces: Sequence[int]) -> bool:
    """The turn's 50% roll for a living skipped line: 6-10 on 1d10 costs 1 Stability or a revolt."""
    return faces[0] >= ONGOING_DISPUTE_FROM


def ongoing_dispute_outcome(faces: Sequence[int], which: Sequence[int] | None) -> str:
    """'a 50% chance that 1 stability level is lost or a new revolt is generated': "quiet" unless
    the 1d10 strikes (6-10); then a second 1d10 says which, with equal chances: 1-5 "stability",
    6-10 "revolt"."""
    if not ongoing_dispute_strikes(faces):
        return "quiet"
    if not which:
        raise ValueError("A strike needs the second die that says which: Stability or a revolt.")
    return "revolt" if which[0] >= ONGOING_DISPUTE_REVOLT_FROM else "stability"


def union_turn_loss(turns_charged: int, *, charged_this_turn: bool) -> int:
    """'The Queen's country loses stability of 1 level per Turn for the first two Turns that this
    condition exists': the loss due this turn, given the turns already charged since the union began
    (the turn it forms is the first)."""
    if charged_this_turn or turns_charged >= UNION_QUEEN_STABILITY_TURNS:
        return 0
    return UNION_QUEEN_STABILITY_PER_TURN


def may_reign(sex: str, *, turkish_princess_rule: bool) -> bool:
    """Turkey #1: a Turkish princess cannot ascend the throne (her husband inherits her rights)."""
    return not (turkish_princess_rule and sex == FEMALE)


def crisis_family(year: int) -> tuple[int, int, tuple[int, ...]]:
    """Dynastic Crisis: the birth years of the new King (40), his wife (35) and children (20, 15, 10)."""
    king, wife, children = CRISIS_AGES
    return year - king, year - wife, tuple(year - age for age in children)


def brothers_to_die(monarch_sex: str, *, turkish_fratricide: bool) -> bool:
    """Turkey #2: a new Turkish monarch puts his brothers to death (not sisters nor their children)."""
    return turkish_fratricide and monarch_sex == MALE


# --- the BloodLine ruleset proper (RULES.md B) -------------------------------------------------

LABEL = "Europa Universalis: BloodLine"
START_YEAR = 1492
TURN_LENGTH = 5  # the default step; the GM gives each next turn's year (characters age by the difference)
CHARACTERISTICS: tuple[str, str, str] = ("adm", "dip", "mil")
STAT_MIN, STAT_MAX = 3, 9
BIRTH_DICE: DiceSpec = TWO_D10
BIRTH_MORE_THAN = 10  # a child on 11 or more
MAX_BIRTH_ATTEMPTS = 3
MINOR_BIRTH_ATTEMPTS = 1
MAX_MOTHER_EFFECTIVE_AGE = 50
EXTRA_ATTEMPT_YEARS = 2  # each extra attempt ages the wife 2 effective years, for good
SEX_DICE: DiceSpec = D10  # 1-5 a boy, 6-10 a girl: "an equal chance"
CHARACTERISTIC_DICE: DiceSpec = D10
SURVIVAL_DICE: DiceSpec = TWO_D10
WEDDING_EFFECTIVE_AGE = 15
DOWRY_DUCATS = 100
# "If her husband dies first, the wife is returned to her original family": nobody retires, and
# every character keeps rolling for survival.
KINGS_WIDOWS_RETIRE = False
# A royal match's only money is its dowry ("either a $100 dowry or at least one province
# transferred"); there is no Treasury paying Crowns at a wedding or a succession.
TREASURY_PAYS_MATCHES = False
MINOR_NOBILITY_DICE: DiceSpec = D10  # 50%: 6-10 marries into its own nobility
SURVIVAL = "bloodline_survival"

SURVIVAL_COLUMNS: tuple[int, ...] = (10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75)


def _row(*cells: str) -> list[str]:
    return list(cells)


# rows 2 (or less) .. 20 (or more); "U" dies, "+X" ill health, "-X" good health, "." nothing
DEFAULT_SURVIVAL_TABLE: dict[str, list[str]] = {
    "2": _row("+2", "+5", "U", "U", "U", "U", "U", "U", "U", "U", "U", "U", "U", "U"),
    "3": _row(".", "+2", "+5", "U", "U", "U", "U", "U", "U", "U", "U", "U", "U", "U"),
    "4": _row(".", ".", "+2", "+5", "+5", "U", "U", "U", "U", "U", "U", "U", "U", "U"),
    "5": _row(".", ".", ".", "+2", "+2", "+5", "+5", "U", "U", "U", "U", "U", "U", "U"),
    "6": _row(".", ".", ".", ".", ".", "+2", "+2", "+5", "+5", "U", "U", "U", "U", "U"),
    "7": _row(".", ".", ".", ".", ".", ".", ".", "+2", "+2", "+5", "U", "U", "U", "U"),
    "8": _row(".", ".", ".", ".", ".", ".", ".", "+1", "+1", "+2", "+5", "U", "U", "U"),
    "9": _row(".", ".", ".", ".", ".", ".", ".", ".", ".", "+1", "+2", "+5", "U", "U"),
    "10": _row(".", ".", ".", ".", ".", ".", ".", ".", ".", ".", "+1", "+2", "+5", "U"),
    "11": _row(".", ".", ".", ".", ".", ".", ".", ".", ".", ".", ".", "+1", "+2", "+5"),
    "12": _row(".", ".", ".", ".", ".", ".", ".", ".", ".", ".", ".", ".", "+1", "+2"),
    "13": _row(".", ".", ".", ".", ".", ".", ".", ".", ".", ".", ".", ".", ".", "+1"),
    **{str(n): _row(*["."] * 14) for n in range(14, 19)},
    "19": _row(*["-2"] * 14),
    "20": _row(*["-5"] * 14),
}

DEFAULT_TABLES: dict[str, object] = {
    SURVIVAL: {"columns": list(SURVIVAL_COLUMNS), "rows": DEFAULT_SURVIVAL_TABLE},
}


def clean_options(options: Mapping[str, Any] | None) -> dict[str, bool]:
    return options_module.clean_options(OPTIONAL_RULES, "BloodLine", options)


def characteristic_names(sex: str) -> tuple[str, str, str]:
    return CHARACTERISTICS


def characteristics(sex: str) -> tuple[Characteristic, ...]:
    """ADM, DIP and MIL, each 3..9 (RULES.md B)."""
    low, high = STAT_MIN, STAT_MAX
    return tuple(
        Characteristic(key, key.upper(), low, high, "1d10 plus the Parents modifier, held to 3..9") for key in CHARACTERISTICS
    )


def validate_survival_table(data: object) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("columns"), list) or not isinstance(data.get("rows"), dict):
        raise InvalidTable("The BloodLine survival table needs 'columns' (ages) and 'rows' (2d10 totals).")
    columns = data["columns"]
    if not columns or any(isinstance(c, bool) or not isinstance(c, int) for c in columns) or columns != sorted(set(columns)):
        raise InvalidTable("The survival table's columns must be increasing whole ages.")
    rows = data["rows"]
    if sorted(rows, key=int) != [str(n) for n in range(2, 21)]:
        raise InvalidTable("The survival table needs one row for every 2d10 total from 2 to 20.")
    for total, cells in rows.items():
        if not isinstance(cells, list) or len(cells) != len(columns):
            raise InvalidTable(f"Survival table, row {total}: give one cell per column ({len(columns)}).")
        for cell in cells:
            if cell not in ("U", ".") and not _signed(cell):
                raise InvalidTable(f"Survival table, row {total}: {cell!r} is not U, '.', +X or -X.")
    return {"columns": list(columns), "rows": {k: list(v) for k, v in rows.items()}}


def _signed(cell: object) -> bool:
    return isinstance(cell, str) and len(cell) >= 2 and cell[0] in "+-" and cell[1:].isdigit()


def survival_column(columns: Sequence[int], effective_age: int) -> int:
    """The highest listed age not above the effective age ("10-" for the young, 75 for the old)."""
    chosen = columns[0]
    for age in columns:
        if age <= effective_age:
            chosen = age
    return chosen


@dataclass(frozen=True)
class SurvivalOutcome:
    column: int
    row: int
    cell: str

    @property
    def dies(self) -> bool:
        return self.cell == "U"

    @property
    def years(self) -> int:
        """Effective years added (ill health, positive) or taken away (good health, negative)."""
        return int(self.cell) if _signed(self.cell) else 0

    @property
    def label(self) -> str:
        if self.dies:
            return "died"
        if self.years > 0:
            return f"ill health (+{self.years} years)"
        if self.years < 0:
            return f"good health ({self.years} years)"
        return "survived"


def survival_outcome(table: Mapping[str, Any], effective_age: int, total: int) -> SurvivalOutcome:
    row = max(2, min(20, total))
    column = survival_column(table["columns"], effective_age)
    cell = table["rows"][str(row)][list(table["columns"]).index(column)]
    return SurvivalOutcome(column, row, cell)


def survival_chances(table: Mapping[str, Any], effective_age: int, modifier: int = 0) -> dict[str, Fraction]:
    """Exact chances of death, ill health, good health and nothing for one roll."""
    out = {"died": Fraction(0), "ill": Fraction(0), "good": Fraction(0), "none": Fraction(0)}
    for total, p in distribution(SURVIVAL_DICE).items():
        outcome = survival_outcome(table, effective_age, total + modifier)
        key = "died" if outcome.dies else "ill" if outcome.years > 0 else "good" if outcome.years < 0 else "none"
        out[key] += p
    return out


def survival_certain(table: Mapping[str, Any], effective_age: int, modifier: int = 0) -> bool:
    """Every total of the roll reads "nothing happens": the roll cannot change anything."""
    return survival_chances(table, effective_age, modifier)["none"] == 1


def birth_succeeds(faces: Sequence[int]) -> bool:
    return sum(faces) > BIRTH_MORE_THAN


def birth_chance() -> Fraction:
    return chance_at_least(BIRTH_DICE, BIRTH_MORE_THAN + 1)


def child_birth_year(turn_year: int, attempt: int) -> int:
    """'Children are born in the order rolled ... sequentially based on the Turn Year': attempt 1 in
    the turn year, attempt 3 two years later (1520 and 1522 in the rulebook's example)."""
    return turn_year + attempt - 1


def sex_from_faces(faces: Sequence[int]) -> str:
    return MALE if faces[0] <= 5 else FEMALE


def parents_modifier(father: int, mother: int) -> int:
    """The Parents table: floor((father + mother - 10) / 2), from -2 (3 and 3) to +4 (9 and 9)."""
    return (father + mother - 10) // 2


def child_value(face: int, modifier: int) -> int:
    return max(STAT_MIN, min(STAT_MAX, face + modifier))


def child_characteristics(
    father: Mapping[str, int] | None, mother: Mapping[str, int] | None, faces: Sequence[int], *, unmodified: bool
) -> dict[str, int]:
    """1d10 per characteristic plus the Parents modifier, held to 3..9 (minor-house parents: unmodified)."""
    out: dict[str, int] = {}
    for name, face in zip(CHARACTERISTICS, faces, strict=True):
        if unmodified or father is None or mother is None:
            modifier = 0
        else:
            modifier = parents_modifier(int(father.get(name, 6)), int(mother.get(name, 6)))
        out[name] = child_value(face, modifier)
    return out


def couple_problem(
    husband: Person, wife: Person, year: int, attempts_made: int, *, in_line: bool, minor_house: bool = False
) -> str | None:
    """BloodLine births: only couples including the monarch or a direct-line descendant; the wife's
    effective age 50 or less at the start; three attempts (a minor house: its monarch couple, one)."""
    if not husband.in_play or not wife.in_play:
        return "One of the couple is no longer in play."
    if not in_line:
        return "Only couples including the monarch or one of his direct-line descendants try for children (BloodLine, Birth)."
    if husband.prisoner or wife.prisoner:
        return "No birth roll while either partner is held prisoner."
    limit = MINOR_BIRTH_ATTEMPTS if minor_house else MAX_BIRTH_ATTEMPTS
    if attempts_made >= limit:
        return f"This couple has made all {limit} birth roll{'s' if limit > 1 else ''} allowed this turn (BloodLine, Birth)."
    if attempts_made == 0 and wife.effective_age(year) > MAX_MOTHER_EFFECTIVE_AGE:
        return f"The wife's effective age is {wife.effective_age(year)}: births stop after 50 (BloodLine, Birth)."
    return None


def birth_penalty(attempts_made: int) -> int:
    """-1 on the wife's survival roll this turn for each additional attempt."""
    return -max(0, attempts_made - 1)


MINOR_SETUP_RULE = "BloodLine, Minor Set-up"
MINOR_OFFERS_RULE = "BloodLine, Marriage action of minors"
MINOR_KING_AGE_DICE: DiceSpec = TWO_D10  # the King's age: 2d10 x 4 years
MINOR_KING_AGE_TIMES = 4
MINOR_YEARS_A_CHILD = 20  # one child of random sex for each 20 years of the King's life
MINOR_MAX_CHILDREN = MINOR_KING_AGE_DICE.count * MINOR_KING_AGE_DICE.sides * MINOR_KING_AGE_TIMES // MINOR_YEARS_A_CHILD


def minor_king_age(king_faces: Sequence[int]) -> int:
    """The minor King's age: 2d10 x 4 years (average 40)."""
    return sum(king_faces) * MINOR_KING_AGE_TIMES


def minor_children(king_age: int) -> int:
    """'1 child of random sex for each 20 years of the King's life, fractions lose'."""
    return king_age // MINOR_YEARS_A_CHILD


def minor_house_setup(king_faces: Sequence[int], year: int) -> tuple[int, int, tuple[int, ...]]:
    """Minor set-up: a King of 2d10 x 4 years, a wife 5 years younger, one child of random sex per
    20 years of his age (fractions lost), the first 20 years younger than him, then one a year."""
    king_age = minor_king_age(king_faces)
    king_born = year - king_age
    children = tuple(
        king_born + MINOR_YEARS_A_CHILD + n
        for n in range(minor_children(king_age))
        if king_born + MINOR_YEARS_A_CHILD + n <= year
    )
    return king_born, king_born + 5, children


def diplomacy_bonus(*, married_in: bool, married_to_child_or_parent_of_monarch: bool, spouse_of_monarch: bool) -> int:
    """A player's bonus on a minor from marriages into its royal house: the best one only."""
    if spouse_of_monarch:
        return 4
    if married_to_child_or_parent_of_monarch:
        return 2
    return 1 if married_in else 0


DOWRY_MULTIPLIERS: dict[str, int] = {
    "different_religion": 4,
    "minor_heir_apparent": 2,
    "minor_is_monarch": 4,
    "major_gives_up_claim": 4,
    "major_heir_apparent": 2,
}

OFFER_PRIORITY: tuple[tuple[bool, bool], ...] = (
    (True, True),  # a. stays in the minor dynasty, best dowry, plus a title
    (True, False),  # b. stays, best dowry
    (False, True),  # c. goes to the player dynasty, best dowry, plus a title
    (False, False),  # d. goes, best dowry
)


def minimum_dowry(base: int, factors: Sequence[str]) -> int:
    total = base
    for factor in factors:
        if factor not in DOWRY_MULTIPLIERS:
            raise IllegalOption(f"Unknown dowry factor {factor!r}; known: {', '.join(DOWRY_MULTIPLIERS)}.")
        total *= DOWRY_MULTIPLIERS[factor]
    return total


def title_income(land_values: Sequence[int]) -> int:
    """A title's income: the land values of its provinces plus again the largest of them."""
    return sum(land_values) + (max(land_values) if land_values else 0)


def controller_share(income: int) -> int:
    """At least half, rounded up, goes to the country that controls the province."""
    return -(-income // 2)


def title_income_split(provinces: Sequence[tuple[int, int]], holder_house: int, given: int | None = None) -> dict[int, int]:
    """Who gets a title's income this turn: ``provinces`` are (land value, controlling house) each;
    the income is their land values plus again the largest ("character with a title provinces generates
    income equal to the land values of those provinces, plus again the value of the largest"), each
    province's part going with it (the largest's twice). "Controller of a titled character determines who
    gets the income, but at least half (rounded up) must be given to the country who actually controls the
    province": each other controlling house gets at least half, rounded up, of its provinces' part and the
    holder's house the rest. ``given``: what the holder's player gives the one other controlling house
    (from that least to the whole income); None: the least. Returns house -> amount (0s left out)."""
    if not provinces:
        raise RuleError("A title without provinces has no income (BloodLine, Titles).", code="invalid")
    values = [v for v, _ in provinces]
    largest = values.index(max(values))
    parts: dict[int, int] = {}
    for n, (value, house) in enumerate(provinces):
        parts[house] = parts.get(house, 0) + value + (value if n == largest else 0)
    total = sum(parts.values())
    others = {house: controller_share(part) for house, part in parts.items() if house != holder_house}
    if given is not None:
        if len(others) != 1:
            raise RuleError(
                "What is given beyond the least is for the one other house controlling the title's provinces: "
                + ("here the holder's own house controls them all" if not others else "here several do")
                + "; pay more by a transfer (BloodLine, Titles).",
                code="invalid",
                fields={"given": "no_single_controller"},
            )
        ((house, least),) = others.items()
        if isinstance(given, bool) or not isinstance(given, int) or not least <= given <= total:
            raise RuleError(
                f"The provinces' controller gets at least half of their income, rounded up ({least}), and at most the "
                f"whole income ({total}), not {given} (BloodLine, Titles).",
                code="invalid",
                fields={"given": "out_of_range"},
            )
        others[house] = given
    out = {house: amount for house, amount in others.items() if amount}
    kept = total - sum(others.values())
    if kept:
        out[holder_house] = out.get(holder_house, 0) + kept
    return out


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
    """As in Blood Royale (a man and a woman of different royal families, free, in play), but the
    wedding needs an effective age of 15 (RULES.md B, Marriage/Betrothal)."""
    problems = families.marriage_problems(
        husband,
        wife,
        year,
        wedding=False,
        husband_taken=husband_taken,
        wife_taken=wife_taken,
        husband_never_marries=husband_never_marries,
        wife_never_marries=wife_never_marries,
    )
    if wedding:
        for role, person in (("husband", husband), ("wife", wife)):
            if person.effective_age(year) < WEDDING_EFFECTIVE_AGE:
                problems.append(
                    families.Problem(
                        f"The {role}'s effective age is {person.effective_age(year)}; a wedding needs 15 "
                        "(a betrothal may be arranged at any age; BloodLine, Marriage).",
                        role,
                    )
                )
            if person.prisoner:
                problems.append(families.Problem(f"The {role} is a prisoner and cannot be wed until released.", role))
    return problems


# --- minor houses run themselves (RULES.md B, "Minor houses") ----------------------------------

ROYAL_MARRIAGE_BOX_KEY = "royal_marriage_box"  # where a minor crown's rating lives in Crown.state
ROYAL_MARRIAGE_BOX_DEFAULT = 1  # shipped default while the GM has not entered the board's rating
MINOR_NOBILITY_FROM = 6  # 6-10 on 1d10: the child marries into its own nobility
MINOR_REPLACEMENT_YOUNGER = 5  # a monarch dying without issue: a new one, 5 years younger
MINOR_MARRIAGE_AGE = 15
OFFER_CLASS_LETTERS = "abcd"
DOWRY_FACTOR_LABELS: dict[str, str] = {
    "different_religion": "different religion",
    "minor_heir_apparent": "the minor character is heir apparent",
    "minor_is_monarch": "the minor character is the monarch",
    "major_gives_up_claim": "the player's character gives up his claim to the throne",
    "major_heir_apparent": "the player's character is heir apparent",
}


def offer_class(*, stays_in_minor: bool, with_title: bool) -> int:
    """0..3 for the minor's priorities a-d (a: stays plus a title ... d: goes, dowry only)."""
    return OFFER_PRIORITY.index((stays_in_minor, with_title))


def offer_sort_key(
    *, stays_in_minor: bool, with_title: bool, dowry: int, made_year: int, order: int
) -> tuple[int, int, int, int]:
    """Smallest is best: the priority class, then the best dowry, then the earliest offer."""
    return (offer_class(stays_in_minor=stays_in_minor, with_title=with_title), -dowry, made_year, order)


def clean_dowry_factors(factors: Sequence[str]) -> tuple[str, ...]:
    """Known factors, each once, in the rulebook's order."""
    unknown = [f for f in factors if f not in DOWRY_MULTIPLIERS]
    if unknown:
        raise IllegalOption(
            f"Unknown dowry factor{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(DOWRY_MULTIPLIERS)}."
        )
    if len(set(factors)) != len(factors):
        raise IllegalOption("A dowry factor is listed twice; each multiplies the base once.")
    return tuple(f for f in DOWRY_MULTIPLIERS if f in factors)


def dowry_explanation(base: int, factors: Sequence[str]) -> str:
    """'Royal Marriage box 2 x2 (the minor character is heir apparent) = 4 ducats'."""
    parts = [f"Royal Marriage box rating {base}"]
    parts += [f"x{DOWRY_MULTIPLIERS[f]} ({DOWRY_FACTOR_LABELS[f]})" for f in factors]
    return " ".join(parts) + f" = {minimum_dowry(base, factors)} ducats"


def minor_nobility_marries(faces: Sequence[int]) -> bool:
    """The 50% roll of a minor child with no acceptable offer: 6-10 on 1d10."""
    return faces[0] >= MINOR_NOBILITY_FROM


def minor_nobility_chance() -> Fraction:
    """The chance a minor child with no acceptable offer weds into its own nobility this turn (1/2)."""
    return chance_at_least(MINOR_NOBILITY_DICE, MINOR_NOBILITY_FROM)


def minor_replacement_birth_year(late_birth_year: int, year: int) -> int:
    """The new minor monarch is 5 years younger than the previous one (never born after ``year``)."""
    return min(year, late_birth_year + MINOR_REPLACEMENT_YOUNGER)


def resolution_order(children: Sequence[tuple[int, int, int]]) -> list[int]:
    """Ids of (id, birth_year, birth_order) eldest first: a younger child is never resolved before an elder."""
    return [pk for pk, _, _ in sorted(children, key=lambda c: (c[1], c[2], c[0]))]


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
        validators={SURVIVAL: validate_survival_table},
        table_titles={SURVIVAL: "BloodLine survival table (2d10 by effective age)"},
        kings_widows_retire=KINGS_WIDOWS_RETIRE,
        treasury_pays_matches=TREASURY_PAYS_MATCHES,
        clean_options=clean_options,
        characteristic_names=characteristic_names,
        characteristics=characteristics,
        birth_succeeds=birth_succeeds,
        sex_from_faces=sex_from_faces,
        marriage_problems=marriage_problems,
        europa_crowns=True,
        priced_pass_overs=True,
        effective_ages=True,
        stability_track=True,
        betrothals=True,
        married_away=True,
        unions=True,
        titles=True,
        minor_houses=True,
        royal_leaders=True,
        combat=BATTLE_ROLLS,
        dynastic_crisis=True,
        gm_sets_turn_year=True,
        whole_family_moves=True,
        majority_disputes=True,
        dowry=DOWRY_DUCATS,
    )
)
