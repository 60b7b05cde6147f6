"""The monarchs' phase (issue 35): what a ruleset plays for its crowns' monarchs, asked by
``dynasties.services.eu_monarchs`` (the public doors) through ``step_of(campaign, "monarchs")``.

The EU monarch tables roll their crowns' monarchs (RULES.md C: survival, succession, named monarchs,
ransoms, the military skill); the rulesets whose houses keep families have no monarch tables: their
plays register None, and ``step_of`` refuses (``wrong_ruleset``) every question (``plays(campaign,
"monarchs")`` asks whether there are any). The service locks the campaign and checks the actor; the
play does the rest, in the service's transaction.

What the play hands back is read by the pages, the API and the simulator through the protocols of
the tables' readings below (the EU ruleset's own dataclasses fit them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from campaign.models import Campaign, Roll
from campaign.permissions import Actor
from dynasties.models import Character, Crown, Reign
from rules.dice import DiceSource, DiceSpec
from rules.odds import Odds

SUCCESSION_FACES = ("succession", "age", "adm", "dip", "mil", "reign")
"""The rolls of a succession, by the name their typed faces go under."""

# --- the tables' readings, as the doors read them ---------------------------------------------------


class CrownRules(Protocol):
    """What the tables and a crown's settings make of that country."""

    @property
    def country(self) -> str: ...
    @property
    def base_column(self) -> int: ...
    @property
    def doge(self) -> bool: ...
    @property
    def turkey(self) -> bool: ...
    @property
    def poland_era(self) -> bool: ...
    @property
    def fragile_health(self) -> bool: ...
    @property
    def leader_die_bonus(self) -> dict[str, int]: ...
    @property
    def column_note(self) -> str: ...


class Period(Protocol):
    """The period of an EU turn."""

    @property
    def name(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def first_turn(self) -> int: ...
    @property
    def last_turn(self) -> int | None: ...


class Stage(Protocol):
    """A monarch's minority stage ("" for an adult)."""

    @property
    def name(self) -> str: ...
    @property
    def penalty(self) -> int: ...
    @property
    def can_lead(self) -> bool: ...


class SurvivalResult(Protocol):
    """A monarch's survival roll, read on the table."""

    @property
    def die(self) -> int: ...
    @property
    def modifier(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def outcome(self) -> str: ...
    @property
    def turkish(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def dies(self) -> bool: ...
    @property
    def extra_turn(self) -> bool: ...
    @property
    def revolts(self) -> int: ...
    @property
    def crisis(self) -> bool: ...


class SuccessionReading(Protocol):
    """A succession roll, read on the table."""

    @property
    def die(self) -> int: ...
    @property
    def modifier(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def outcome(self) -> str: ...
    @property
    def minority(self) -> str: ...
    @property
    def crisis(self) -> bool: ...
    @property
    def fragile(self) -> bool: ...
    @property
    def reroll_for_age(self) -> bool: ...


# --- what the phase hands back --------------------------------------------------------------------


@dataclass(frozen=True)
class MonarchStatus:
    crown: str
    monarch: Character | None
    rules: CrownRules
    period: Period
    values: dict[str, int]  # as rolled (or named)
    effective: dict[str, int]  # this turn: halved in a crisis's first turn, minus the minority penalty
    stage: Stage
    halved: bool
    survival_modifiers: list[tuple[int, str]]
    planned_end_year: int | None
    survival_rolled: bool


@dataclass(frozen=True)
class MonarchSurvival:
    crown: str
    monarch: Character
    result: SurvivalResult
    reasons: list[tuple[int, str]]
    died: bool
    reign_spent: bool  # died because the rolled reign length ran out
    planned_end_year: int | None
    roll: Roll


@dataclass(frozen=True)
class MonarchSuccession:
    crown: str
    monarch: Character
    reign: Reign
    reading: SuccessionReading
    crisis: bool
    fragile_health: bool
    stage: str  # "" adult, else the minority stage at accession
    values: dict[str, int]
    columns: dict[str, int]
    reign_turns: int
    outcome: str  # the succession roll's reading, as the table prints it ("normal", "Dynastic Crisis" ...)
    rolls: list[Roll] = field(default_factory=list)


@dataclass(frozen=True)
class Chance:
    """One outcome of a roll and its exact odds ("dies: 1 in 10 (1/10, 10%)")."""

    label: str
    odds: Odds

    @property
    def text(self) -> str:
        """'2 in 10 (20%)': one die's odds, short (the fraction adds nothing on a d10)."""
        return f"{self.odds.favourable} in {self.odds.throws} ({self.odds.percent})"


@dataclass(frozen=True)
class SurvivalTerms:
    """The survival roll before it is made: its modifiers (each with why), the odds of each result,
    Turkey's column, and whether the rolled reign is spent (he then dies unless the roll gives +1 turn)."""

    modifiers: list[tuple[int, str]]
    modifier: int
    chances: list[Chance]
    turkish: list[Chance]
    spent: bool
    ends: Odds  # the reign ends at this roll (a death, or the rolled length spent)
    end_faces: tuple[int, ...]  # the die faces that end it: a succession follows


@dataclass(frozen=True)
class SuccessionTerms:
    """The succession roll before it is made, for a vacant throne (or the one a death would leave):
    the succession roll's modifiers and odds, the minority's odds (the roll again for age included),
    the columns each value is read in, and the reign length's modifiers and odds."""

    former: Character | None
    former_values: dict[str, int]
    modifiers: list[tuple[int, str]]
    modifier: int
    forced_crisis: bool  # Turkey's 11+ at an earlier survival roll
    doge: bool
    chances: list[Chance]
    minority: list[Chance]
    age_faces: tuple[int, ...]  # succession die faces that call for the roll again for age
    base_column: int
    column_note: str
    columns: dict[str, int]
    die_bonus: int
    minimum: int | None
    reign_modifiers: list[tuple[int, str]]
    reign_modifier: int
    reign: list[Chance]
    crisis_stability: int

    @property
    def reign_range(self) -> str:
        low, high = self.reign[0].label.split()[0], self.reign[-1].label.split()[0]
        return f"{low} turns" if low == high else f"{low} to {high} turns"


# --- the set-up's first monarchs ------------------------------------------------------------------

ROLL, HISTORICAL, TYPED = "roll", "historical", "typed"
FIRST_WAYS: dict[str, str] = {
    ROLL: "Rolled on the tables",
    HISTORICAL: "A historical monarch",
    TYPED: "Typed by the GM",
}


@dataclass(frozen=True)
class EuCountry:
    """One country of the campaign and how its first monarch is found."""

    country: str
    first: str = ROLL
    named: str = ""  # HISTORICAL: the name in the named monarchs' table
    given_name: str = ""  # TYPED: his name (ROLL: optional; empty, a name of the country's)
    adm: int | None = None  # TYPED, or a historical monarch the aid gives no values for
    dip: int | None = None
    mil: int | None = None
    reign_turns: int | None = None  # TYPED: a planned reign (none: the survival rolls decide)
    settings: Mapping[str, Any] = field(default_factory=dict)  # crown settings (the tables' settings)

    def values(self) -> dict[str, int] | None:
        given = {"adm": self.adm, "dip": self.dip, "mil": self.mil}
        if all(v is None for v in given.values()):
            return None
        return {k: v for k, v in given.items() if v is not None}


def setup_field(country: str, what: str) -> str:
    """The name of a set-up's error field: ``"<country>:<what>"``."""
    return f"{country}:{what}"


LOOK_UP: Any = object()
"""``MonarchsPlay.status_of``'s reign when the caller has not read it."""

# --- the protocol ---------------------------------------------------------------------------------


@runtime_checkable
class MonarchsPlay(Protocol):
    """The monarchs' phase (EU: RULES.md C), registered by a ruleset that rolls its crowns' monarchs
    on tables (the others register None). Each roll or entry is called with the campaign locked
    and the actor checked (the GM), inside the service's transaction."""

    def tables(self, campaign: Campaign) -> dict[str, Any]:
        """The campaign's monarch tables: its own copies where it has them, else the defaults."""
        ...

    def status(self, campaign: Campaign, crown: Crown | str) -> MonarchStatus:
        """A crown's monarch now: values as rolled and in play, minority, crisis, survival modifiers."""
        ...

    def status_of(
        self, campaign: Campaign, tables: Mapping[str, Any], record: Crown, reign: Reign | None = LOOK_UP
    ) -> MonarchStatus:
        """The same for a crown's record, on tables read already (``reign``: the crown's reign going
        on, when the caller has read it: a page of crowns reads them at once)."""
        ...

    def values(self, character: Character) -> dict[str, int]:
        """A monarch's values (as rolled or named), in the order they are rolled."""
        ...

    def period(self, campaign: Campaign) -> Period:
        """The period of the campaign's current turn."""
        ...

    def succession_dice(self) -> Mapping[str, DiceSpec]:
        """The dice of each succession roll, by the name its typed faces go under (``SUCCESSION_FACES``)."""
        ...

    def configure(self, campaign: Campaign, crown: str, settings: Mapping[str, Any]) -> Crown:
        """Set a crown's settings (created if the campaign has none)."""
        ...

    def survival_roll(
        self, campaign: Campaign, crown: Crown | str, *, faces: Sequence[int] | None, source: DiceSource | None, by: Actor
    ) -> MonarchSurvival:
        """The monarch's survival roll of the turn."""
        ...

    def succession_roll(
        self,
        campaign: Campaign,
        crown: Crown | str,
        *,
        faces: Mapping[str, Sequence[int]] | None,
        given_name: str | None,
        dynastic_name: str | None,
        sex: str,
        numbered: bool,
        source: DiceSource | None,
        by: Actor,
    ) -> MonarchSuccession:
        """A new monarch for a vacant throne."""
        ...

    def place_named(
        self,
        campaign: Campaign,
        crown: Crown | str,
        *,
        given_name: str,
        adm: int,
        dip: int,
        mil: int,
        no_survival_turns: int,
        reign_turns: int | None,
        dynastic_name: str | None,
        replace: bool,
        sex: str,
        numbered: bool,
    ) -> Reign:
        """A named monarch with fixed values instead of a roll."""
        ...

    def ransom(self, campaign: Campaign, crown: Crown | str, *, major: bool | None) -> Character:
        """A captured monarch ransomed."""
        ...

    def survival_terms(self, tables: Mapping[str, Any], status: MonarchStatus, year: int) -> SurvivalTerms:
        """A survival roll before it is made (the Survival page's)."""
        ...

    def succession_terms(
        self, tables: Mapping[str, Any], status: MonarchStatus, state: Mapping[str, Any], former: Character | None
    ) -> SuccessionTerms:
        """A succession roll before it is made, for a vacant throne (or the one a death would leave)."""
        ...

    def board_line(self, tables: Mapping[str, Any], status: MonarchStatus, roll: Roll) -> str:
        """What the board must do after this turn's survival roll (Turkey's column), "" for nothing."""
        ...

    def turkish_line(self, turkish: str) -> str:
        """The same for a survival result's Turkish reading."""
        ...

    def dice(self) -> DiceSpec:
        """The monarch tables' die: every roll of the tables is one die of these sides."""
        ...

    def characteristics(self) -> tuple[str, ...]:
        """A monarch's values, in the order they are rolled."""
        ...

    def leader_order(self) -> tuple[str, ...]:
        """A monarch's values as a leader, in the aid's order."""
        ...

    def after_crisis(self, tables: Mapping[str, Any]) -> Sequence[int]:
        """The survival roll's modifier in each turn after a Dynastic Crisis (the first turn after it first)."""
        ...

    def doge(self, tables: Mapping[str, Any], crown: str, state: Mapping[str, Any]) -> bool:
        """Whether a crown with these settings elects Doges."""
        ...

    def minority_at(self, tables: Mapping[str, Any], age: int) -> str:
        """The minority stage of a monarch of this age ("" an adult)."""
        ...

    def default_tables(self) -> dict[str, Any]:
        """The shipped tables (a campaign not yet made reads these)."""
        ...

    def is_major(self, tables: Mapping[str, Any], country: str) -> bool:
        """Whether a country is a major power (a player's house; else a minor house)."""
        ...

    def known_country(self, tables: Mapping[str, Any], country: str) -> bool | None:
        """Whether the countries table has the country (None: no country's name at all)."""
        ...

    def period_at(self, tables: Mapping[str, Any], turn: int) -> Period:
        """The period of a turn of the tables' own count."""
        ...

    def turn_of(self, tables: Mapping[str, Any], campaign_turn: int) -> int:
        """The tables' turn of a campaign's turn."""
        ...

    def start_year_of_turn(self, turn: int) -> int:
        """The year a turn of the tables' own count begins (a campaign set up from that turn)."""
        ...

    def start_at(self, campaign: Campaign, tables: Mapping[str, Any], first_turn: int) -> dict[str, Any]:
        """Make the campaign start at this turn of the tables' count (saved); the tables as they now stand."""
        ...

    def check_first_monarch(
        self, c: EuCountry, tables: Mapping[str, Any], period: Period | None, turn: int, problems: dict[str, str]
    ) -> None:
        """The problems of a throne's first monarch as the set-up (or the board) gives him, by field."""
        ...

    def named_row(self, tables: Mapping[str, Any], c: EuCountry) -> Mapping[str, Any] | None:
        """The historical monarch a country's set-up names, from the aid's list (None: not there)."""
        ...

    def split_numeral(self, name: str) -> tuple[str, int | None]:
        """A monarch's name and its numeral ("Friedrich II": "Friedrich", 2; None: no numeral)."""
        ...

    def value_range(self) -> tuple[int, int]:
        """The lowest and highest value a monarch may have (typed or named)."""
        ...

    def military_dice(self) -> DiceSpec:
        """The dice of each roll of a monarch's military skill."""
        ...

    def military_note(self, tables: Mapping[str, Any], mil: int, bonus: Mapping[str, int]) -> str:
        """What a military skill roll gives a monarch of this MIL (the odds of his average, the die bonus)."""
        ...

    def ransom_words(self, tables: Mapping[str, Any], *, major: bool, currency: str) -> str:
        """The ransom the tables ask of a major power or a minor, in words."""
        ...

    def named_monarchs(self, tables: Mapping[str, Any], country: str) -> list[Mapping[str, Any]]:
        """The aid's historical monarchs of a country (its own and the ones for every country)."""
        ...

    def setup_countries(self, tables: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
        """The countries a campaign may be set up with: the majors, then the minors."""
        ...

    def period_rows(self, tables: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """The periods, each with its name and first turn."""
        ...

    def military_skill(
        self,
        campaign: Campaign,
        crown: Crown | str,
        *,
        faces: Mapping[str, Sequence[int]] | None,
        source: DiceSource | None,
        by: Actor,
    ) -> dict[str, int]:
        """The monarch as a leader (the optional table)."""
        ...
