"""The ruleset registry: one ``Ruleset`` object per ruleset, registered by its own module.

What varies by ruleset is a question to this object (``ruleset.unions``, ``ruleset.currency`` ...),
never a comparison with its name. This module imports no ruleset; ``rules/__init__`` imports them so
that each registers itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rules import tables as T
from rules.characteristics import Characteristic
from rules.dice import DiceSpec
from rules.errors import RuleError
from rules.people import Person


class MarriageProblems(Protocol):
    """The signature every ruleset's ``marriage_problems`` has (checked by mypy at registration)."""

    def __call__(
        self,
        husband: Person,
        wife: Person,
        year: int,
        *,
        wedding: bool,
        husband_taken: bool = False,
        wife_taken: bool = False,
        husband_never_marries: bool = False,
        wife_never_marries: bool = False,
    ) -> list[str]: ...


@dataclass(frozen=True, kw_only=True)
class Ruleset:
    name: str
    label: str
    start_year: int
    turn_length: int
    adult_age: int
    currency: str
    birth_dice: DiceSpec
    sex_dice: DiceSpec
    characteristic_dice: DiceSpec
    survival_dice: DiceSpec
    optional_rules: Mapping[str, str]
    tables: Mapping[str, Any]  # the shipped defaults, by table key
    validators: Mapping[str, Callable[[Any], Any]]
    table_titles: Mapping[str, str]
    # the cells of a table whose values come from a closed list, by (table key, column): value -> label
    table_choices: Mapping[tuple[str, str], Mapping[str, str]] = field(default_factory=dict)
    kings_widows_retire: bool  # a King's widow retires instead of going home (Blood Royale, A5)
    treasury_pays_matches: bool  # the Treasury pays Crowns at weddings and for a new monarch's spouse (A6)
    clean_options: Callable[[Mapping[str, Any] | None], dict[str, bool]]
    characteristic_names: Callable[[str], tuple[str, str, str]]
    characteristics: Callable[[str], tuple[Characteristic, ...]]  # keys, labels and ranges (rules.characteristics)
    birth_succeeds: Callable[[Sequence[int]], bool]
    sex_from_faces: Callable[[Sequence[int]], str]
    marriage_problems: MarriageProblems
    # --- what the ruleset plays (capabilities) ---
    keeps_families: bool = True  # the houses' families are kept (the EU monarch tables roll monarchs instead)
    monarch_table: bool = False  # monarchs live, reign and are succeeded by the EU 1d10 monarch table
    europa_crowns: bool = False  # the players' houses are the Europa Universalis crowns
    interphase: bool = False  # Blood Royale's Interphase (taxes, forces, the Treasury's payments) is played here
    event_rolls: bool = False  # plague and battle rolls strike characters (A5)
    pretenders: bool = False  # Pretenders and bastards from the event cards
    # the optional rule (a key of optional_rules) that brings the event cards and so the Pretenders and
    # bastards (Blood Royale: rule E); empty: the ruleset's Pretenders need no option
    pretenders_option: str = ""
    # the Event/Movement phases of a turn, numbered where the table records in which one a board event
    # happened (Blood Royale 14-15: two), and the optional rule that adds one (Blood Royale: rule H)
    movement_phases: int = 0
    extra_phase_option: str = ""
    governing_provinces: bool = False  # optional rule G: Princes govern provinces and inherit titles
    prince_pieces: bool = False  # the Announcements hand out Prince pieces (A8)
    priced_pass_overs: bool = False  # passing an heir over has a price the succession view shows
    # BloodLine's family law: effective ages (survival every turn on the 2d10 table, extra birth
    # attempts age the wife, children's values from their parents', set-up families in adm/dip/mil)
    effective_ages: bool = False
    stability_track: bool = False  # pass-overs, minors and unions cost a country Stability and revolts
    betrothals: bool = False  # matches are betrothed with terms (dowry, title) and wed in the Interphase
    married_away: bool = False  # a woman married away and passed over freezes her line
    unions: bool = False  # one monarch may hold two crowns in a union
    titles: bool = False  # titles of provinces pass down the holder's line (not only with rule G)
    minor_houses: bool = False  # minor houses run themselves and make marriage offers
    royal_leaders: bool = False  # the Announcements name each crown's royal leaders
    combat: str = ""  # a leader's figure in battle (rules.combat): "strength", "battle_rolls", or none kept
    neutral_ransom: int = 0  # the neutrals' fixed price for a royal they captured (Blood Royale: 100); 0: any terms
    dynastic_crisis: bool = False  # a house holding a throne does not die out: a Dynastic Crisis comes at a succession
    gm_sets_turn_year: bool = False  # the GM gives each next turn's year (otherwise a fixed turn length)
    whole_family_moves: bool = False  # an heir fetched from another house brings all his children, married or not
    majority_disputes: bool = False  # a breach of contract is ruled by the other players' majority (no parley)
    regents: bool = False  # a minor monarch rules through a regent his player chooses (Blood Royale A7)
    gives_back_crowns: bool = False  # a player holding two countries may give one back to its house (Blood Royale A7)
    capitals: bool = False  # a lost capital and a foreign intervention cost the ruler Charisma (Blood Royale 18, 20)
    money_wins: bool = False  # the most money wins the game, and a money target may end it (Blood Royale 3, 22)
    money_target_example: int = 0  # the money target the rulebook gives as its example (Blood Royale: 800 Crowns)
    # --- figures the doors show ---
    regent_min_age: int = 0  # a regent's least age, and a minor monarch's age of ruling alone (Blood Royale A7: 15)
    governed_tax_extra: int = 0  # what a governed province raises above its tax (Blood Royale, rule G: 2 Crowns)
    dowry: int = 0  # the dowry a betrothal's terms name in money (BloodLine: 100 ducats)

    # The upper-case names are the ruleset modules' own, kept for the callers that read them.
    @property
    def NAME(self) -> str:
        return self.name

    @property
    def LABEL(self) -> str:
        return self.label

    @property
    def START_YEAR(self) -> int:
        return self.start_year

    @property
    def TURN_LENGTH(self) -> int:
        return self.turn_length

    @property
    def ADULT_AGE(self) -> int:
        return self.adult_age

    @property
    def SURVIVAL_DICE(self) -> DiceSpec:
        return self.survival_dice

    @property
    def OPTIONAL_RULES(self) -> Mapping[str, str]:
        return self.optional_rules

    @property
    def DEFAULT_TABLES(self) -> Mapping[str, Any]:
        return self.tables

    @property
    def KINGS_WIDOWS_RETIRE(self) -> bool:
        return self.kings_widows_retire

    @property
    def TREASURY_PAYS_MATCHES(self) -> bool:
        return self.treasury_pays_matches


_REGISTRY: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Called once by each ruleset module; its tables join the table registry (``rules.tables``)."""
    if ruleset.name in _REGISTRY:
        raise RuleError(f"The ruleset {ruleset.name!r} is registered twice.", code="duplicate_ruleset")
    if set(ruleset.tables) != set(ruleset.validators) or set(ruleset.validators) != set(ruleset.table_titles):
        raise RuleError(f"The ruleset {ruleset.name!r} must give a validator and a title for each table.")
    _REGISTRY[ruleset.name] = ruleset
    T.register_tables(ruleset.validators, ruleset.table_titles)
    return ruleset


def get_ruleset(name: str) -> Ruleset:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise RuleError(f"Unknown ruleset {name!r}; choose one of {', '.join(_REGISTRY)}.", code="unknown_ruleset") from None


def rulesets() -> list[Ruleset]:
    """Every registered ruleset, in the order they registered (Blood Royale first)."""
    return list(_REGISTRY.values())


def default_ruleset() -> Ruleset:
    """The ruleset a new campaign plays unless told otherwise: the first registered (Blood Royale)."""
    return next(iter(_REGISTRY.values()))


def labels() -> dict[str, str]:
    return {r.name: r.label for r in _REGISTRY.values()}
