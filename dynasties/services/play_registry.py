"""The play registry (issue 35): what each ruleset plays at a step, asked by the step's service.

A ruleset's play is a package of ``dynasties/play/<ruleset>/`` with a module per step, each module
implementing that step's protocol below (a module is a protocol's implementation: mypy checks its
functions against the protocol where the package registers it). ``DynastiesConfig.ready()``
registers every play package listed there; a public service (``births_*``, ``survival_*``) does
what is the same for every ruleset and asks ``play_of(campaign)`` for the rest. Only the play
packages import the rulesets' modules (``.importlinter``, "play packages").

The registry lives here, below the services that ask it and the play packages that register, so
that neither imports the other's package back: the services never import ``dynasties.play``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, overload, runtime_checkable

from django.db.models import QuerySet

from campaign.dice import DiceBox
from campaign.models import Campaign, Roll
from campaign.permissions import Actor
from campaign.steps import Chronicle, load_tables
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage
from dynasties.services.common import World
from dynasties.services.play_announcements import AnnouncementsPlay
from dynasties.services.play_disputes import DisputesPlay
from dynasties.services.play_ending import EndingPlay
from dynasties.services.play_events import EventsPlay
from dynasties.services.play_interphase import InterphasePlay
from dynasties.services.play_marriages import MarriagesPlay
from dynasties.services.play_minor_houses import MinorHousesPlay
from dynasties.services.play_monarchs import MonarchsPlay
from dynasties.services.play_succession import SuccessionPlay
from rules.dice import DiceSource, DiceSpec, Entered
from rules.errors import RuleError
from rules.odds import Odds

# --- what the steps hand over and get back ---------------------------------------------------------


@dataclass(frozen=True)
class CoupleTurn:
    """What an automatic policy sees when deciding on another birth attempt."""

    marriage: Marriage
    attempts_made: int
    children_this_turn: int
    wife_constitution_after_next: int  # the survival malus the next attempt would bring


ExtraAttempt = Callable[[CoupleTurn], bool]


@dataclass(frozen=True)
class TraitValue:
    """A newborn's characteristic read again from a corrected roll."""

    value: int
    outcome: str  # the roll's outcome ("strength +1", "adm 7")
    shown: str  # as a correction reports it ("Strength +1", "ADM 7")
    was_shown: str  # the value it had, as reported


@dataclass(frozen=True)
class SurvivalDue:
    character: Character
    age: int
    need: int
    modifier: int
    birth_penalty: int


@dataclass(frozen=True)
class SurvivalResult:
    character: Character
    faces: tuple[int, ...]
    modifier: int
    need: int
    survived: bool


@dataclass(frozen=True)
class SurvivalReading:
    """What a survival roll decided, read again from its total (a correction)."""

    dies: bool
    outcome: str  # the roll's outcome ("died", "survived", BloodLine's health line)
    years: int = 0  # BloodLine: the years of effective age the roll adds (or takes)


@dataclass(frozen=True)
class BirthTerms:
    """The dice of the Births step and what they mean, for the forms and the page's text."""

    birth_dice: DiceSpec
    sex_dice: DiceSpec
    characteristic_dice: DiceSpec
    characteristic_labels: tuple[str, str, str]
    child_on: str  # '7 or more on 2d6'
    sex_rule: str  # '1-3 a boy, 4-6 a girl'


@dataclass(frozen=True)
class WifeSurvival:
    """The wife's survival roll this turn, as it stands and after one more birth attempt."""

    now: Odds
    after: Odds
    must_show_now: str
    must_show_after: str


@dataclass(frozen=True)
class CoupleOnBoard:
    """A wed couple on the Births page, as the ruleset reads it (``sequence_view.births_board``)."""

    marriage: Marriage  # husband and wife loaded
    problem: str | None  # why the couple may make no (further) birth roll now
    next_cost: str  # what one more attempt costs the wife
    wife_survival: WifeSurvival | None  # her survival odds now and after one more attempt


class BoardReads:
    """What a Births board reads besides this turn's attempts (the rule tables, a ``World`` read
    lazily), each once. ``kept``: the reads of the board this request drew before its own Births
    action, which wrote births and characters only: the tables and the world's houses, reigns,
    crowns and marriages are taken from it, the characters read again (``World.again``)."""

    def __init__(self, campaign: Campaign, *, kept: BoardReads | None = None) -> None:
        self.campaign = campaign
        self._tables: Mapping[str, object] | None = kept._tables if kept is not None else None
        self._kept = dict(kept._worlds) if kept is not None else {}
        self._worlds: dict[bool, World] = {}

    def tables(self) -> Mapping[str, object]:
        if self._tables is None:
            self._tables = load_tables(self.campaign)
        return self._tables

    def world(self, *, living_only: bool) -> World:
        """The campaign's world (the living only, or everyone), its crowns, renunciations and
        marriages read when first asked for."""
        if living_only not in self._worlds:
            before = self._kept.get(living_only)
            self._worlds[living_only] = (
                before.again() if before is not None else World(self.campaign, living_only=living_only, eager=False)
            )
        return self._worlds[living_only]

    def houses(self) -> dict[int, Dynasty] | None:
        """The campaign's dynasties by id, if a world read them (None: none read)."""
        world = self.any_world()
        return world.dynasties if world is not None else None

    def any_world(self) -> World | None:
        """A world these reads read (None: none)."""
        return next(iter(self._worlds.values()), None)


# --- the protocols, one per step -------------------------------------------------------------------


@runtime_checkable
class BirthsPlay(Protocol):
    """Births (A4; BloodLine B): the rolls after the service checked the step, the policy and the
    marriage (wed, not ended)."""

    def attempt(
        self,
        campaign: Campaign,
        match: Marriage,
        earlier: Sequence[BirthAttempt],
        *,
        faces: Entered | None,
        source: DiceSource | None,
        by: Actor,
    ) -> BirthAttempt:
        """One birth roll of the couple (refused with ``IneligibleCouple`` when the couple may not
        try), saved."""
        ...

    def child(
        self,
        campaign: Campaign,
        match: Marriage,
        born: int,
        *,
        faces: Entered | None,
        characteristic_faces: Sequence[Entered] | None,
        given_name: str | None,
        source: DiceSource | None,
        by: Actor,
    ) -> Character:
        """The child of a successful attempt, born in ``born``: its sex roll and characteristics,
        saved with its rolls (the service links it to the attempt and announces it)."""
        ...

    def roll_all(self, campaign: Campaign, *, extra: ExtraAttempt, source: DiceSource | None, by: Actor) -> list[BirthAttempt]:
        """Every couple that has not rolled this turn, on the server's dice, children included."""
        ...

    def announce(self, chronicle: Chronicle, child: Character) -> None:
        """The chronicle's birth line of the child."""
        ...

    def roll_characteristics(
        self,
        box: DiceBox,
        character: Character,
        bands: Any,
        queue: list[list[int]] | None = None,
        entered: Sequence[Entered | None] | None = None,
    ) -> dict[str, int]:
        """A character's characteristics rolled, each roll logged against him (a newborn, a set-up's
        family, a baron, a bastard; typed: the faces of each, or its total, one typed as None
        rolled; ``queue``: a set-up's typed rolls, taken in order)."""
        ...

    def birth_penalty(self, attempts_made: int) -> int:
        """The wife's survival modifier this turn after this many attempts."""
        ...

    def child_birth_year(self, year: int, *, attempt: int, children_before: int) -> int:
        """The year a child of this attempt (numbered from 1) is born."""
        ...

    def succeeds(self, faces: Sequence[int]) -> bool:
        """Whether a birth roll showing these faces gives a child."""
        ...

    def sex_of(self, faces: Sequence[int]) -> str:
        """The child's sex ("M" or "F") from its sex roll."""
        ...

    def name_kin(self, kin: QuerySet[Character], child: Character) -> QuerySet[Character]:
        """The siblings whose names the house's suggestion for a child avoids, among the parents'
        children of its sex."""
        ...

    def renamed_characteristic(self, was: str, now: str) -> tuple[str, str] | None:
        """The characteristic a child's changed sex renames (before, after); None: none."""
        ...

    def trait_value(self, campaign: Campaign, trait: str, roll: Roll, was: Any) -> TraitValue:
        """A newborn's characteristic from its (corrected) roll."""
        ...

    def keeps_families(self) -> bool:
        """Whether the houses keep families whose births and survival the sequence shows (the EU
        monarch tables roll their monarchs instead)."""
        ...

    def terms(self) -> BirthTerms:
        """The Births step's dice and what they mean."""
        ...

    def board(
        self, campaign: Campaign, attempts: Mapping[int, Sequence[BirthAttempt]], reads: BoardReads
    ) -> tuple[Odds, list[CoupleOnBoard]]:
        """The odds of a child on an attempt, and every wed couple the Births page lists (given this
        turn's attempts by marriage, and what else it reads through ``reads``): whether it may roll
        and what one more attempt would cost."""
        ...


@runtime_checkable
class SurvivalPlay(Protocol):
    """Survival (A5; BloodLine B): who rolls, the rolls, and what Finish Survival adds."""

    def due(self, campaign: Campaign, world: World, tables: Mapping[str, object]) -> list[SurvivalDue]:
        """Everyone who must roll this turn, with the number needed and the modifier."""
        ...

    def adult_age(self) -> int:
        """No survival roll before this age (what a refusal to roll a child says)."""
        ...

    def effective_ages(self) -> bool:
        """Survival moves an effective age beside the real one (BloodLine's health track): the
        sheets, the desk and the Survival page show both."""
        ...

    def roll(
        self,
        campaign: Campaign,
        world: World,
        box: DiceBox,
        chronicle: Chronicle,
        *,
        chosen: Sequence[int],
        due: Mapping[int, SurvivalDue],
        typed: Mapping[int, Entered],
        tables: Mapping[str, object],
    ) -> tuple[list[SurvivalResult], list[int]]:
        """The rolls of the chosen characters (all due), their chronicle lines; the results and
        who died (the service records the deaths)."""
        ...

    def pass_certain(self, campaign: Campaign) -> list[SurvivalResult]:
        """Everyone due whose roll cannot change anything passes, logged as certain."""
        ...

    def before_close(self, campaign: Campaign) -> None:
        """Refuse to close Survival while something of the ruleset's own is still to roll."""
        ...

    def after_successions(self, campaign: Campaign, box: DiceBox, chronicle: Chronicle) -> None:
        """What Finish Survival does after the heirs are crowned (BloodLine: the turn's Stability)."""
        ...

    def reading(self, campaign: Campaign, character: Character, roll: Roll) -> SurvivalReading:
        """What a survival roll (as it stands, or corrected) decided."""
        ...

    def death_line(self, character: Character, year: int, old: Roll, new: Roll) -> str:
        """The chronicle's line for a death a corrected roll now causes."""
        ...

    def survival_dice(self) -> DiceSpec:
        """The dice of a survival roll (the Survival page's)."""
        ...

    def odds(self, campaign: Campaign, due: SurvivalDue, tables: Mapping[str, object]) -> tuple[Odds, str]:
        """The odds of surviving a roll still to make, and what the dice must show (spelt out)."""
        ...

    def rolled_odds(self, roll: Roll) -> tuple[Odds | None, str]:
        """The same for a roll made by someone gone since, read from the roll (None: not known)."""
        ...


def families_kept() -> bool:
    """``BirthsPlay.keeps_families`` of a ruleset whose houses keep families."""
    return True


def nothing_before_close(campaign: Campaign) -> None:
    """``SurvivalPlay.before_close`` of a ruleset whose survival rolls are all Survival has."""


def nothing_after_successions(campaign: Campaign, box: DiceBox, chronicle: Chronicle) -> None:
    """``SurvivalPlay.after_successions`` of a ruleset that adds nothing to Finish Survival."""


@dataclass(frozen=True, kw_only=True)
class Play:
    """A ruleset's play: one implementation per step."""

    births: BirthsPlay
    survival: SurvivalPlay
    monarchs: MonarchsPlay | None  # None: the ruleset rolls no monarchs (its houses keep families)
    minor_houses: MinorHousesPlay | None  # None: its minor houses run no rules of their own
    interphase: InterphasePlay | None  # None: the ruleset plays no Interphase
    succession: SuccessionPlay
    ending: EndingPlay
    disputes: DisputesPlay
    marriages: MarriagesPlay
    events: EventsPlay
    announcements: AnnouncementsPlay


STEPS: tuple[str, ...] = (
    "births",
    "survival",
    "monarchs",
    "minor_houses",
    "interphase",
    "succession",
    "ending",
    "disputes",
    "marriages",
    "events",
    "announcements",
)
"""The steps a play package implements (the fields of ``Play``)."""

_PLAYS: dict[str, Play] = {}


def register_play(ruleset: str, play: Play) -> Play:
    """Called once per ruleset by its play package (from ``DynastiesConfig.ready()``)."""
    if ruleset in _PLAYS:
        raise RuleError(f"The ruleset {ruleset!r} has its play registered twice.", code="duplicate_play")
    _PLAYS[ruleset] = play
    return play


def play_of(campaign: Campaign) -> Play:
    """The play of the campaign's ruleset."""
    return play_named(campaign.ruleset)


def play_named(ruleset: str) -> Play:
    """The play of a ruleset by its name (a campaign still to create: its set-up's houses)."""
    try:
        return _PLAYS[ruleset]
    except KeyError:
        raise RuleError(
            f"The ruleset {ruleset!r} has no play package registered (dynasties/play/, listed in "
            f"DynastiesConfig.ready()); registered: {', '.join(_PLAYS) or 'none'}.",
            code="unknown_ruleset",
        ) from None


OptionalStep = Literal["monarchs", "minor_houses", "interphase"]
"""The steps a ruleset may not play at all: its play registers None for them."""


def _owner(step: OptionalStep) -> str:
    """The name of the (first) ruleset that plays the step."""
    return next((name for name, play in _PLAYS.items() if getattr(play, step) is not None), "none")


_REFUSALS: dict[str, Callable[[Campaign], str]] = {
    "monarchs": lambda campaign: (
        f"{campaign.name} plays {campaign.get_ruleset_display()}; the EU monarch tables belong to campaigns of the "
        f"{_owner('monarchs')} ruleset."
    ),
    "minor_houses": lambda campaign: "Minor houses' rolled monarchs and spouses belong to the BloodLine ruleset.",
    "interphase": lambda campaign: (
        f"The Interphase helper keeps Blood Royale's taxes and forces; {campaign.name} plays another ruleset."
    ),
}
"""What a door of a step says to a campaign whose ruleset does not play it (``wrong_ruleset``)."""


def plays(campaign: Campaign, step: OptionalStep) -> bool:
    """The campaign's ruleset plays the step (its play registers one, not None)."""
    return getattr(play_of(campaign), step) is not None


@overload
def step_of(campaign: Campaign, step: Literal["monarchs"]) -> MonarchsPlay: ...
@overload
def step_of(campaign: Campaign, step: Literal["minor_houses"]) -> MinorHousesPlay: ...
@overload
def step_of(campaign: Campaign, step: Literal["interphase"]) -> InterphasePlay: ...
def step_of(campaign: Campaign, step: OptionalStep) -> MonarchsPlay | MinorHousesPlay | InterphasePlay:
    """The campaign's play of a step its ruleset may not play, refused (``wrong_ruleset``, the step's
    message) where it plays none."""
    found: MonarchsPlay | MinorHousesPlay | InterphasePlay | None = getattr(play_of(campaign), step)
    if found is None:
        raise RuleError(_REFUSALS[step](campaign), code="wrong_ruleset")
    return found


def plays_interphase(campaign: Campaign) -> bool:
    """The campaign's ruleset plays an Interphase (Blood Royale's taxes, forces and province register)."""
    return plays(campaign, "interphase")


def registered_plays() -> dict[str, Play]:
    """Every registered play, by ruleset name."""
    return dict(_PLAYS)
