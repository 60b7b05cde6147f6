"""Blood Royale (1987): the Dynastic Sequence as pure functions (RULES.md section A).

Every function takes the faces already rolled (by the server or typed in from the table) and
returns what they mean; nothing here rolls or stores anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules import options as options_module
from rules import tables as T
from rules.characteristics import Characteristic
from rules.combat import STRENGTH, held
from rules.dice import D6, THREE_D6, TWO_D6, DiceSpec, chance_at_least
from rules.errors import IllegalMarriage, IllegalOption, IllegalPassOver, IneligibleCouple
from rules.families import BIRTH_TARGET as BIRTH_TARGET
from rules.families import birth_succeeds as birth_succeeds
from rules.families import marriage_problems as marriage_problems
from rules.families import sex_from_faces as sex_from_faces
from rules.names import BLOOD_ROYALE_CROWNS
from rules.odds import at_least
from rules.people import FEMALE, MALE, Person
from rules.registry import Ruleset, register
from rules.succession import HeirStanding as HeirStanding
from rules.succession import PassOverCost as PassOverCost
from rules.succession import RelativePlan as RelativePlan

NAME = "blood-royale"
LABEL = "Blood Royale"

START_YEAR = 1300
TURN_LENGTH = 5
ADULT_AGE = 15  # survival rolls and weddings from 15 (A4, A5, A6)
MAX_MOTHER_AGE = 50  # A4
BIRTH_DICE: DiceSpec = TWO_D6
MAX_BIRTH_ATTEMPTS = 3  # one roll plus up to two additional rolls
ARISTOCRATIC_BIRTH_ROLLS = 2  # the 3-player game's aristocratic family (A9)
SEX_DICE: DiceSpec = D6
CHARACTERISTIC_DICE: DiceSpec = THREE_D6
SURVIVAL_DICE: DiceSpec = TWO_D6
PRINCE_AGE = 20
PRINCE_PIECES = 5
CHARACTERISTIC_MIN, CHARACTERISTIC_MAX = -2, 2
WEDDING_CHARISMA_CROWNS = 30
MONARCH_MATCH_CROWNS = 100
# "A surviving spouse ... is returned ... except the widow of a King, who is retired" (A5)
KINGS_WIDOWS_RETIRE = True
# the bride's Charisma x 30 and the 100 Crowns of a match with a monarch, from the Treasury (A6)
TREASURY_PAYS_MATCHES = True
REGENT_MIN_AGE = 15
BARON_MIN_AGE = 30
RELATIVE_MIN_AGE = 20
BEGINNER_KING_SURVIVAL_FROM = 1310

# Optional rules, named as in the rulebook's checklist (and campaign settings for groups that differ).
OPTIONAL_RULES: dict[str, str] = {
    "four_character_start": "Optional Rule A: Four Character Start (King 30, Queen 25, children 10 and 5)",
    "rolled_king_queen": "Optional Rule B: Characteristic Rolls for the King and Queen",
    "disputed_succession": "Optional Rule C: Disputed Succession (any heir may be passed over)",
    "trade_item_movement": "Optional Rule D: Movement of Trade Items (interceptions)",
    "event_cards": "Optional Rule E: Event Cards (Pretenders and bastards)",
    "neutral_provinces": "Optional Rule F: Neutral Provinces",
    "governing_provinces": "Optional Rule G: Governing Provinces",
    "extra_movement_phase": "Optional Rule H: Extra Event/Movement Phase",
    "changing_capitals": "Optional Rule I: Changing Capitals/Resource Areas",
    "no_first_turn_royal_survival": "No survival rolls for the starting King and Queen in the first turn (advised with rule B)",
    "beginner_king_survival": "Beginners: no survival roll for the King before the 1310 turn",
}

RULE_H = "extra_movement_phase"  # "a third Event/Movement Phase is introduced" (H)
RULE_E = "event_cards"  # the event cards bring the Pretenders and bastards (Pretenders and Bastards, E)

DEFAULT_TABLES = T.BLOOD_ROYALE_DEFAULTS


def default_options() -> dict[str, bool]:
    return {key: False for key in OPTIONAL_RULES}


def clean_options(options: Mapping[str, Any] | None) -> dict[str, bool]:
    return options_module.clean_options(OPTIONAL_RULES, "Blood Royale", options)


# --- characteristics (A2) -------------------------------------------------------------------


def characteristic_names(sex: str) -> tuple[str, str, str]:
    return ("strength" if sex == MALE else "guile", "constitution", "charisma")


CHARISMA_BELOW_MIN = (
    "Blood Royale 9 and 20: a passed-over heir's penalty 'can reduce the monarch's Charisma below -2', and "
    "so can a foreign intervention"
)


def characteristics(sex: str) -> tuple[Characteristic, ...]:
    """Each -2..+2 (A2); Strength or Guile may reach +3 with a Governor's +1 (optional rule G); a
    monarch's Charisma may fall below -2 (a passed-over heir's penalty, a foreign intervention)."""
    first = "Strength" if sex == MALE else "Guile"
    return (
        Characteristic(
            first.lower(), first, CHARACTERISTIC_MIN, CHARACTERISTIC_MAX + GOVERNOR_BONUS, "+3 only with a Governor's +1"
        ),
        Characteristic("constitution", "Constitution", CHARACTERISTIC_MIN, CHARACTERISTIC_MAX),
        Characteristic(
            "charisma",
            "Charisma",
            CHARACTERISTIC_MIN,
            CHARACTERISTIC_MAX,
            "a monarch's may fall lower",
            monarch_below=CHARISMA_BELOW_MIN,
        ),
    )


def normal_characteristics(sex: str) -> dict[str, int]:
    return {name: 0 for name in characteristic_names(sex)}


def characteristics_from_totals(bands: Sequence[Mapping[str, int]], sex: str, totals: Sequence[int]) -> dict[str, int]:
    names = characteristic_names(sex)
    if len(totals) != len(names):
        raise ValueError(f"need {len(names)} characteristic rolls, got {len(totals)}")
    return {name: T.characteristic_value(bands, total) for name, total in zip(names, totals, strict=True)}


def combat_strength(husband: Mapping[str, int], wife: Mapping[str, int] | None) -> int:
    """A wife's Guile is added to her husband's Strength, held to -2..+2: the excess is ignored (A2).
    A Governor's +3 stays +3 (rule G); the whole figure in battle is ``rules.combat``'s."""
    strength = husband.get("strength", 0)
    return strength + held(strength, wife.get("guile", 0) if wife else 0)


# --- set-up (A3) ----------------------------------------------------------------------------

# The countries played (23, Special Rules For Less Than Five Players): five players play the five;
# "If there are four players ... England becomes a non-player country" ("Experienced players might
# choose to alter this rule so that the 'odd-country-out' is selected at the beginning of the game");
# three players: "Allow a free selection from all five countries (do not exclude England)".
FOUR_PLAYERS_OUT = "England"
FOUR_PLAYERS_RULE = "Blood Royale 23: 'If there are four players ... England becomes a non-player country'"
THREE_PLAYERS_RULE = "Blood Royale 23: three players 'Allow a free selection from all five countries (do not exclude England)'"
MIN_PLAYERS = 3


def player_countries(players: int, chosen: Sequence[str] | None = None) -> tuple[str, ...]:
    """The countries the players play, in the board's order: those ``chosen`` by the table (as many as
    there are players, each one of the five once), or the rulebook's default: all five; four without
    England; three, the first three of the five (the table chooses freely: its default is only a
    start). Raises :class:`IllegalOption` saying what to fix."""
    crowns = BLOOD_ROYALE_CROWNS
    if not MIN_PLAYERS <= players <= len(crowns):
        raise IllegalOption(f"Blood Royale is for {MIN_PLAYERS} to {len(crowns)} players; {players} were asked for.")
    if chosen is None or not list(chosen):
        if players == len(crowns) - 1:
            return tuple(c for c in crowns if c != FOUR_PLAYERS_OUT)
        return crowns[:players]
    picked = list(chosen)
    unknown = [c for c in picked if c not in crowns]
    if unknown:
        raise IllegalOption(f"{unknown[0]} is not a country of Blood Royale; choose among {', '.join(crowns)}.")
    if len(set(picked)) != len(picked):
        twice = next(c for c in picked if picked.count(c) > 1)
        raise IllegalOption(f"{twice} is chosen twice: each player plays one country.")
    if len(picked) != players:
        raise IllegalOption(
            f"{players} players play {players} countries; {len(picked)} {'was' if len(picked) == 1 else 'were'} chosen "
            f"({', '.join(picked)}): choose {players}, or none for the rulebook's default."
        )
    return tuple(c for c in crowns if c in picked)


@dataclass(frozen=True)
class SetupCharacter:
    role: str  # "king", "queen" or "child"
    birth_year: int
    sex: str | None  # None: roll 1d6
    rolled_characteristics: bool


def setup_plan(options: Mapping[str, bool], start_year: int = START_YEAR) -> list[SetupCharacter]:
    """The starting family of a dynasty: King 25, Queen 20, a child of 5 (rule A: 30, 25, 10, 5)."""
    rolled = bool(options.get("rolled_king_queen"))
    ages = (30, 25, (10, 5)) if options.get("four_character_start") else (25, 20, (5,))
    king_age, queen_age, child_ages = ages
    plan = [
        SetupCharacter("king", start_year - king_age, MALE, rolled),
        SetupCharacter("queen", start_year - queen_age, FEMALE, rolled),
    ]
    plan += [SetupCharacter("child", start_year - age, None, True) for age in child_ages]
    return plan


# --- births (A4) ----------------------------------------------------------------------------


def couple_problem(
    husband: Person, wife: Person, year: int, attempts_made: int, *, aristocratic_parents: bool = False
) -> str | None:
    """Why this couple may not make a birth roll now, or None if it may.

    The 3-player aristocratic family's parents "do not feature in the game": they make two birth
    rolls every turn, whatever their age (A9)."""
    if not husband.in_play or not wife.in_play:
        who = husband if not husband.in_play else wife
        return f"{_label(who)} is no longer in play."
    if aristocratic_parents:
        if attempts_made >= ARISTOCRATIC_BIRTH_ROLLS:
            return f"The aristocratic family makes {ARISTOCRATIC_BIRTH_ROLLS} birth rolls a turn (A9)."
        return None
    if wife.age(year) > MAX_MOTHER_AGE:
        return f"The wife is {wife.age(year)}; birth rolls stop after {MAX_MOTHER_AGE} (Births, A4)."
    if husband.prisoner or wife.prisoner:
        return "No birth roll while either partner is held prisoner (Births, A4)."
    if attempts_made >= MAX_BIRTH_ATTEMPTS:
        return f"This couple has made all {MAX_BIRTH_ATTEMPTS} birth rolls allowed this turn (Births, A4)."
    return None


def check_couple(husband: Person, wife: Person, year: int, attempts_made: int) -> None:
    problem = couple_problem(husband, wife, year, attempts_made)
    if problem:
        raise IneligibleCouple(problem)


def _label(person: Person) -> str:
    return f"Character #{person.id}"


def birth_chance() -> Fraction:
    return chance_at_least(BIRTH_DICE, BIRTH_TARGET)


def child_birth_year(turn_year: int, children_before_this_turn: int) -> int:
    """First child of the turn in the turn year, the second a year later, the third two (A4)."""
    return turn_year + children_before_this_turn


def birth_penalty(attempts_made: int) -> int:
    """Each attempt after the first costs the wife 1 Constitution this turn only."""
    return -max(0, attempts_made - 1)


# --- survival (A5) --------------------------------------------------------------------------


@dataclass(frozen=True)
class SurvivalCheck:
    age: int
    need: int
    modifier: int

    def chance(self) -> Fraction:
        return chance_at_least(SURVIVAL_DICE, self.need, self.modifier)

    def certain(self) -> bool:
        """The roll cannot fail (the lowest total with the modifier reaches the number)."""
        return SURVIVAL_DICE.count + self.modifier >= self.need


def survival_check(table: Sequence[Mapping[str, int]], person: Person, year: int, *, extra_modifier: int = 0) -> SurvivalCheck:
    age = person.age(year)
    modifier = person.characteristics.get("constitution", 0) + extra_modifier
    return SurvivalCheck(age=age, need=T.survival_need(table, age), modifier=modifier)


def survives(check: SurvivalCheck, faces: Sequence[int]) -> bool:
    return sum(faces) + check.modifier >= check.need


def must_roll_survival(
    person: Person,
    year: int,
    options: Mapping[str, bool],
    *,
    is_reigning_king: bool,
    is_starting_royal: bool,
    first_turn: bool,
    exempt_kind: bool = False,
) -> bool:
    """Every character in play aged 15 or older rolls, save the exemptions the group chose."""
    if not person.in_play or person.age(year) < ADULT_AGE or exempt_kind:
        return False
    if is_reigning_king and options.get("beginner_king_survival") and year < BEGINNER_KING_SURVIVAL_FROM:
        return False
    return not (is_starting_royal and first_turn and options.get("no_first_turn_royal_survival"))


# --- marriages (A6) -------------------------------------------------------------------------


def check_marriage(husband: Person, wife: Person, year: int, *, wedding: bool, **flags: bool) -> None:
    problems = marriage_problems(husband, wife, year, wedding=wedding, **flags)
    if problems:
        raise IllegalMarriage(" ".join(problems))


@dataclass(frozen=True)
class Payment:
    """Crowns paid by (negative) or into (positive) the Treasury to a side of a match."""

    to: str  # "groom" or "bride": that side's original dynasty (for charisma: the groom's player)
    amount: int
    reason: str
    charisma: bool = False  # the bride's Charisma x 30 (otherwise the 100 Crowns of a match with a monarch)


def wedding_payments(*, bride_charisma: int, groom_is_monarch: bool, bride_is_monarch: bool) -> list[Payment]:
    payments: list[Payment] = []
    if bride_charisma:
        payments.append(
            Payment(
                "groom", bride_charisma * WEDDING_CHARISMA_CROWNS, f"bride's Charisma {bride_charisma:+d} x 30", charisma=True
            )
        )
    if groom_is_monarch:
        payments.append(Payment("bride", MONARCH_MATCH_CROWNS, "a bride for a reigning King"))
    if bride_is_monarch:
        payments.append(Payment("groom", MONARCH_MATCH_CROWNS, "a husband for a Queen regnant"))
    return payments


# --- succession helpers (A7) ----------------------------------------------------------------


def needs_regent(heir: Person, year: int) -> bool:
    return heir.age(year) < ADULT_AGE


def baron_birth_year(late_monarch: Person, year: int) -> int:
    """A created baron or cousin is 5 years younger than the late King, or 30, whichever is older."""
    age = max(late_monarch.age(year) - 5, BARON_MIN_AGE)
    return year - age


def relative_plan(late_monarch: Person, year: int) -> RelativePlan:
    """No heir of the blood: a relative 5 years younger than the late King (or 20), a wife 5 years
    younger than him, and a child for every five years of marriage counted from when he was 20."""
    age = max(late_monarch.age(year) - 5, RELATIVE_MIN_AGE)
    born = year - age
    married = born + RELATIVE_MIN_AGE
    children = tuple(married + 5 * (i + 1) for i in range((age - RELATIVE_MIN_AGE) // 5))
    return RelativePlan(born, born + 5, married, children)


# --- prince pieces (A2 "Using the Prince pieces") -------------------------------------------


def assign_prince_pieces(
    current: Mapping[int, str],
    candidates: Sequence[Person],
    king: Person | None,
    year: int,
) -> dict[int, str]:
    """Pieces for one dynasty: 'K' for a reigning King of 15+, numbered pieces 1-5 for royal males
    of 20+ (those who hold one keep it; a freed piece goes to the oldest prince without one).

    ``current`` maps character id to the piece held now; the result maps every candidate and the
    King to their piece ('' for none)."""
    out: dict[int, str] = {}
    if king is not None and king.sex == MALE and king.in_play and king.age(year) >= ADULT_AGE:
        out[king.id] = "K"
    eligible = sorted(
        (p for p in candidates if p.sex == MALE and p.in_play and p.age(year) >= PRINCE_AGE and p.id not in out),
        key=Person.seniority,
    )
    numbered = [str(n) for n in range(1, PRINCE_PIECES + 1)]
    used: set[str] = set()
    waiting: list[Person] = []
    for prince in eligible:
        piece = current.get(prince.id, "")
        if piece in numbered and piece not in used:
            out[prince.id] = piece
            used.add(piece)
        else:
            waiting.append(prince)
    free = [n for n in numbered if n not in used]
    for prince in waiting:
        out[prince.id] = free.pop(0) if free else ""
    for person in (*candidates, *([king] if king is not None else [])):
        out.setdefault(person.id, "")
    return out


# --- disputed succession (A7, optional rule C) ------------------------------------------------

CHARISMA_LOSS_DICE: DiceSpec = D6


def basic_pass_over_reason(standing: HeirStanding) -> str | None:
    if standing.prisoner_of_another:
        return "a prisoner of another player"
    if standing.prisoner_of_neutrals:
        return "a prisoner of the neutrals, in another country"
    if standing.sex == FEMALE and standing.married_away:
        return "a woman controlled by another player through marriage"
    if standing.foreign_pretender:
        return "a Pretender controlled by another player"
    return None


def pass_over_cost(standing: HeirStanding, *, rule_c: bool) -> PassOverCost:
    """May this heir be passed over, and at what cost (A7 Disputed Succession; optional rule C).

    Raises ``IllegalPassOver`` naming the rule when the basic rules forbid it and rule C is off."""
    basic = basic_pass_over_reason(standing)
    if basic is None and not rule_c:
        raise IllegalPassOver(
            "The rightful heir may be passed over only if a prisoner in another country or a woman controlled "
            "by another player through marriage (Disputed Succession, A7); optional rule C is not in force."
        )
    imprisoned_male = standing.prisoner_of_another and standing.sex == MALE
    return PassOverCost(
        basic_allowed=basic is not None,
        reason=basic or "passed over under optional rule C",
        charisma_roll=imprisoned_male or basic is None,
        # "In all cases, the player controlling the 'deposed' character must pass the character ... to the
        # player on his or her left ... If the 'deposed' character already lives with another Dynasty (as a
        # married woman), this rule does not apply": under rule C, a prisoner passed over goes too
        exile_left=rule_c and standing.lives_with_crown_player,
        # a prisoner is passed over for his captivity, which his free children do not share: they keep
        # their place (docs/rulings.md); a woman married away is passed over with her line
        with_line=not (standing.prisoner_of_another or standing.prisoner_of_neutrals),
    )


def charisma_loss(faces: Sequence[int]) -> int:
    """1-3: -1, 4-6: -2 (may take Charisma below -2; not inherited)."""
    return -1 if faces[0] <= 3 else -2


# --- survival rolls outside the Dynastic Sequence (A5) ----------------------------------------

EVENT_MODIFIERS: dict[str, int] = {
    "plague": -1,  # a King or Prince in a plague province; characters in their capital are immune
    "battle": -1,  # the royal's army wiped out; survivors are captured
    "storm": 0,  # royals aboard a fleet lost at sea simply die: no roll
    "killed": 0,  # a death the table has decided (killed in battle, executed ...): no roll
    "other": 0,  # anything else the GM rules (e.g. rule G plague in a governed province, +1 per other governed province not hit)
}
EVENT_LABELS: dict[str, str] = {
    "plague": "plague",
    "battle": "defeat in battle",
    "storm": "lost at sea in a storm",
    "killed": "killed",
    "other": "a survival roll ordered by the GM",
}
NEUTRAL_RANSOM = 100


def event_rolls(reason: str) -> bool:
    if reason not in EVENT_MODIFIERS:
        raise IllegalOption(f"Unknown survival event {reason!r}; choose one of {', '.join(EVENT_MODIFIERS)}.")
    return reason not in ("storm", "killed")


# Who an event strikes, in the rulebook's words: a battle and a storm take only the royal pieces on
# the map ('K' for a reigning King, 1-5 for Princes: "Using the Prince pieces"); a plague the King or
# Prince in a plague province (and, under optional rule G, a Governor's family through his province).
# Nobody held prisoner: "Captured characters may not be killed".
PIECE_EVENTS: dict[str, str] = {
    "battle": "Blood Royale A5 (Combat): a battle takes a royal who leads or travels with a piece on the map "
    "(the King, or a Prince with his piece); a Queen at court or a child is not on the field",
    "storm": "Blood Royale A5 (Storms): a Fleet carries Army counters and King or Prince pieces only, so only "
    "the King and the Princes with pieces can be aboard when it is lost",
    "plague": "Blood Royale A5 (Plague): 'a King or Prince in a Province affected by Plague' rolls (a piece on "
    "the map; under optional rule G a Governor's family rolls through his struck province)",
}
CAPTIVES_SPARED = "Blood Royale A5 (Combat): 'Captured characters may not be killed'"
RULE_G_PLAGUE = (
    "Optional rule G (Events in a Governed Province): 'the Governor, his or her wife or husband, and any "
    "children aged 15 or younger, must make Survival Rolls', +1 for each other Province he governs not struck"
)
RULE_G_CHILDREN_UP_TO = ADULT_AGE  # "any children aged 15 or younger"


def struck_problem(reason: str, *, name: str, piece: str, captor: str | None) -> str | None:
    """Why this character cannot be struck by the event (the rule, cited), or None.

    ``piece``: the royal piece he holds on the map ('' for none); ``captor``: who holds him prisoner
    (None when free). Any event: no prisoner. A battle, a storm, a plague: only a piece's holder."""
    if captor is not None:
        return f"{CAPTIVES_SPARED}: {name} is a prisoner of {captor}."
    rule = PIECE_EVENTS.get(reason)
    if rule is not None and not piece:
        return f"{rule}. {name} has no piece on the map."
    return None


def rule_g_plague_modifier(governed: int, struck: int) -> int:
    """The survival modifier of a Governor's family when plague strikes ``struck`` of the ``governed``
    provinces he holds (optional rule G): the plague's -1 ("characters away from the capital make
    Survival Rolls at -1"), +1 for each of his other provinces the plague spared."""
    if not 0 < struck <= governed:
        raise ValueError(f"{struck} struck of {governed} governed provinces")
    return EVENT_MODIFIERS["plague"] + (governed - struck)


def survival_odds(check: SurvivalCheck) -> str:
    """The odds of surviving a roll, as a form shows them beside the one who rolls:
    'survives on 7+ with -1: 21 in 36 (58.3%)' (what the dice must show, the modifier, the chance)."""
    odds = at_least(SURVIVAL_DICE, check.need, check.modifier)
    chance = f"{odds.favourable} in {odds.throws} ({odds.percent})"
    show = check.need - check.modifier
    if show <= SURVIVAL_DICE.count:
        return f"survives whatever the dice show (needs {check.need}, {check.modifier:+d}): {chance}"
    if show > SURVIVAL_DICE.count * SURVIVAL_DICE.sides:
        return f"cannot survive (the dice would have to show {show}): {chance}"
    return f"survives on {show}+ with {check.modifier:+d}: {chance}"


# --- optional rule G, Governing Provinces; Pretenders and bastards (A9) ----------------------

GOVERNOR_MIN_AGE = ADULT_AGE  # "Only a Prince (aged at least 15) can be created Governor"
GOVERNOR_BONUS = 1  # +1 Strength/Guile, taken once however many provinces; may exceed +2
GOVERNED_TAX_EXTRA = 2  # a governed province raises 7 or 9 Crowns instead of 5 or 7
TITLE_REGENCY_UNTIL = ADULT_AGE  # "If a minor inherits a title, the 'Regent' will be monarch"
PRETENDER_MIN_AGE = ADULT_AGE
PRETENDER_CHILDREN_UNDER = ADULT_AGE  # a Pretender's children under 15 go with him
PRETENDER_BUY_BACK_CROWNS = 50


def default_title_name(province: str) -> str:
    return f"Duke of {province}"


def governor_characteristic(sex: str) -> str:
    """Where a Governor's +1 goes: Strength for a man, Guile for a woman."""
    return characteristic_names(sex)[0]


def with_governor_bonus(characteristics: Mapping[str, int], sex: str) -> dict[str, int]:
    """The characteristics after the Governor's +1 (it may take the characteristic above +2)."""
    key = governor_characteristic(sex)
    out = dict(characteristics)
    out[key] = int(out.get(key, 0)) + GOVERNOR_BONUS
    return out


def governor_problems(
    person: Person,
    year: int,
    *,
    name: str,
    crown: str,
    reigning: bool,
    of_the_blood: bool,
    controlled_by_crown_player: bool,
) -> list[str]:
    """Everything that stops this character being created Governor of a province of ``crown``
    (optional rule G); empty when he may be."""
    if not person.in_play:
        return [f"{name} is no longer in play and can govern nothing."]
    problems: list[str] = []
    if person.sex != MALE:
        problems.append(
            f"{name} is a woman: only a Prince can be created Governor; women may inherit a title later "
            "(Governing Provinces, rule G)."
        )
    if person.age(year) < GOVERNOR_MIN_AGE:
        problems.append(
            f"{name} is {person.age(year)}: only a Prince aged at least {GOVERNOR_MIN_AGE} can be created Governor "
            "(children may inherit a title later; rule G)."
        )
    if reigning:
        problems.append(
            f"{name} reigns: the provinces nobody governs are under the monarch's direct control already; "
            "only a Prince can be created Governor (rule G)."
        )
    if not person.legitimate:
        problems.append(f"{name} is a bastard, not a Prince of the royal blood (Pretenders and Bastards).")
    elif not of_the_blood:
        problems.append(
            f"{name} is not of the royal blood of {crown}: only a Prince of the house can be created Governor (rule G)."
        )
    if not controlled_by_crown_player:
        problems.append(
            f"{name} is not controlled by the player who rules {crown}: the player makes one of his own Princes "
            "Governor of a province he controls (rule G)."
        )
    return problems


def title_dispute_consequence(province: str, crown: str, *, other_dynasty: bool) -> str:
    """What the King's dispute of a title's inheritance costs (rule G); in both cases the King's wishes
    are followed (he names the holder)."""
    if other_dynasty:
        return (
            f"a Rebellion marker is placed in {province}, and Rebellion rolls are made, with normal modifiers, "
            f"for the whole Kingdom of {crown}; the King's wishes are followed"
        )
    return f"a Rebellion marker is placed in {province}, but otherwise the King's wishes are followed"


def pretender_problems(
    person: Person,
    year: int,
    *,
    name: str,
    reigning: bool,
    already_pretender: bool,
    only_son_of: str | None,
    born_to_house: str | None = None,
) -> list[str]:
    """Everything that stops this character becoming a Pretender (event cards 18-22); empty when
    he may. ``only_son_of`` names the monarch whose only male child he is; ``born_to_house`` names
    the house that controls him when he was not born to it (he has no Dynasty of his birth to leave)."""
    if not person.in_play:
        return [f"{name} is no longer in play (Pretenders and Bastards)."]
    problems: list[str] = []
    if already_pretender:
        problems.append(f"{name} is already a Pretender; his house may buy him back (Pretenders and Bastards).")
    if born_to_house is not None:
        problems.append(
            f"{name} was not born to the house of {born_to_house} that controls him: the cards make a Pretender of a "
            "character who leaves the Dynasty of his birth (Pretenders and Bastards)."
        )
    if reigning:
        problems.append(f"{name} reigns: monarchs may not abdicate nor be deposed (Succession, A7).")
    if person.age(year) < PRETENDER_MIN_AGE:
        problems.append(
            f"{name} is {person.age(year)}: characters can only become Pretenders if they are at least "
            f"{PRETENDER_MIN_AGE} years old (Pretenders and Bastards)."
        )
    if only_son_of is not None:
        problems.append(
            f"{name} is the only male child of {only_son_of}: the monarch's only son cannot become a Pretender "
            "(Pretenders and Bastards)."
        )
    if not person.legitimate:
        problems.append(f"{name} is a bastard: a bastard's claim is nothing to pretend to (Pretenders and Bastards).")
    return problems


def bastard_problems(
    father: Person,
    year: int,
    birth_year: int,
    *,
    name: str,
    reigning: bool,
    married: bool,
    turn_length: int = TURN_LENGTH,
) -> list[str]:
    """Everything that stops ``father`` having a bastard son born in ``birth_year`` (event cards
    38 and 39: bastard sons of unmarried Kings); empty when he may."""
    if not father.in_play:
        return [f"{name} is no longer in play (Pretenders and Bastards)."]
    problems: list[str] = []
    if father.sex != MALE or not reigning:
        problems.append(
            f"{name} is not a reigning King: the cards give bastard sons to unmarried Kings only "
            "(cards 38 and 39, Pretenders and Bastards)."
        )
    if married:
        problems.append(
            f"{name} is married: the cards give bastard sons to unmarried Kings only (cards 38 and 39, Pretenders and Bastards)."
        )
    if birth_year >= year + turn_length:
        problems.append(f"{birth_year} is after this turn ({year}-{year + turn_length - 1}).")
    elif birth_year - father.birth_year < ADULT_AGE:
        problems.append(f"{name} was {birth_year - father.birth_year} in {birth_year}, too young to father a son.")
    return problems


RULESET = register(
    Ruleset(
        name=NAME,
        label=LABEL,
        start_year=START_YEAR,
        turn_length=TURN_LENGTH,
        adult_age=ADULT_AGE,
        currency="Crowns",
        birth_dice=BIRTH_DICE,
        sex_dice=SEX_DICE,
        characteristic_dice=CHARACTERISTIC_DICE,
        survival_dice=SURVIVAL_DICE,
        optional_rules=OPTIONAL_RULES,
        tables=DEFAULT_TABLES,
        validators=T.BLOOD_ROYALE_VALIDATORS,
        table_titles=T.BLOOD_ROYALE_TITLES,
        kings_widows_retire=KINGS_WIDOWS_RETIRE,
        treasury_pays_matches=TREASURY_PAYS_MATCHES,
        clean_options=clean_options,
        characteristic_names=characteristic_names,
        characteristics=characteristics,
        birth_succeeds=birth_succeeds,
        sex_from_faces=sex_from_faces,
        marriage_problems=marriage_problems,
        interphase=True,
        event_rolls=True,
        pretenders=True,
        pretenders_option=RULE_E,
        movement_phases=2,
        extra_phase_option=RULE_H,
        governing_provinces=True,
        prince_pieces=True,
        priced_pass_overs=True,
        combat=STRENGTH,
        neutral_ransom=NEUTRAL_RANSOM,
        regents=True,
        gives_back_crowns=True,
        capitals=True,
        money_wins=True,
        money_target_example=800,
        regent_min_age=REGENT_MIN_AGE,
        governed_tax_extra=GOVERNED_TAX_EXTRA,
    )
)
