"""What a ruleset plays at a succession (issue 35): the ``SuccessionPlay`` protocol, asked by the
succession services (``succession``, ``succession_view``) through ``play_of(campaign).succession``.

The services walk the line of succession, enthrone the heir, bring him home and name a regent the
same way for every ruleset; a play answers what differs: what the deaths do to the Dynastic Unions,
what passing an heir over costs, who reigns when nobody of the blood is left, whether a minor needs
a regent, what a union does to the crowns. The hand-over types (``HeirStanding``, ``PassOverCost``,
``RelativePlan``) are the rules' own (``rules.succession``), re-exported here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn, Protocol, runtime_checkable

from campaign.dice import DiceBox
from campaign.steps import Chronicle
from dynasties.models import Character, Crown, Dynasty, Reign
from dynasties.services.common import World
from rules.characteristics import Characteristic
from rules.dice import DiceSpec
from rules.errors import RuleError
from rules.people import Person
from rules.registry import Ruleset
from rules.succession import HeirStanding as HeirStanding
from rules.succession import PassOverCost as PassOverCost
from rules.succession import RelativePlan as RelativePlan

__all__ = [
    "CrownTerms",
    "HeirStanding",
    "PassOverCost",
    "PassOverView",
    "PretenderTerms",
    "RelativePlan",
    "SuccessionPlay",
    "TitleTerms",
]


@dataclass(frozen=True)
class PassOverView:
    """May this heir be passed over now, and what it would cost (A7 Disputed Succession, rule C)."""

    allowed: bool
    text: str  # why it is allowed ("a prisoner of another player", "under optional rule C") or the rule that forbids it
    costs: tuple[str, ...] = ()  # one sentence per penalty
    cost: PassOverCost | None = None
    usurper: Dynasty | None = None  # -1 Strength for its men while the claim lives
    rival: Dynasty | None = None  # +1 Strength against the usurper
    exile_to: Dynasty | None = None  # rule C: the player on the left

    @property
    def summary(self) -> str:
        if not self.allowed:
            return f"No: {self.text}"
        return f"Yes ({self.text}): " + "; ".join(self.costs)


@dataclass(frozen=True)
class CrownTerms:
    """What a crown carries beyond its monarch (the crown's page, the API, the table events)."""

    stability: bool  # a Stability track and revolts (the Europa Universalis crowns)
    monarch_table: bool  # its monarchs live, reign and are succeeded by the EU 1d10 monarch table
    prince_pieces: bool  # its leaders on the board are the King and Prince pieces (Blood Royale A2)
    royal_leaders: bool  # its leaders are the heirs of age of the present dynasty (BloodLine)
    leaders_age: int  # ... of this age or more

    @classmethod
    def of(cls, ruleset: Ruleset) -> CrownTerms:
        """As the ruleset registers them (``rules.<ruleset>.RULESET``)."""
        return cls(
            stability=ruleset.europa_crowns,
            monarch_table=ruleset.monarch_table,
            prince_pieces=ruleset.prince_pieces,
            royal_leaders=ruleset.royal_leaders,
            leaders_age=ruleset.adult_age,
        )


@dataclass(frozen=True)
class TitleTerms:
    """Titles and Governors (Blood Royale's optional rule G; a title's inheritance in every ruleset)."""

    governors: bool  # Princes may be created Governors (with the optional rule on)
    rule_label: str  # the optional rule's name, as a refusal names it
    governor_bonus: int  # the Governor's bonus to his Strength or Guile, taken once
    regency_until: int  # a minor heir of a title has the monarch as 'Regent' until this age
    governed_tax_extra: int  # what a governed province raises above its tax (0: not shown)
    governor_characteristic: Callable[[str], str]  # the characteristic the bonus raises, by sex
    with_governor_bonus: Callable[[Mapping[str, int], str], dict[str, int]]
    governor_problems: Callable[..., list[str]]  # everything that stops a Prince being created Governor
    default_title_name: Callable[[str], str]  # a province's title when the grant names none
    dispute_consequence: Callable[..., str]  # what the King's dispute of an inheritance brings
    # a title's income (BloodLine, Titles): its total from its provinces' land values, the least share of
    # the provinces' controller, and who gets what (refused where titles pay none)
    income: Callable[[Sequence[int]], int] = field(default=lambda values: _no_title_income())
    controller_share: Callable[[int], int] = field(default=lambda income: _no_title_income())
    income_split: Callable[[Sequence[tuple[int, int]], int, int | None], dict[int, int]] = field(
        default=lambda provinces, house, given: _no_title_income()
    )


def _no_title_income() -> NoReturn:
    raise RuleError("A title's income is BloodLine's; Blood Royale's governed provinces pay in the Interphase.", code="ruleset")


@dataclass(frozen=True)
class PretenderTerms:
    """Pretenders and bastards (Blood Royale's event cards, A9) and the aristocratic family's auction."""

    pretenders: bool  # the ruleset has Pretenders and bastards (and the three-player aristocratic family)
    option: str  # the optional rule that brings them (Blood Royale: rule E, the event cards); "": none needed
    option_label: str  # that rule's name, as a refusal names it
    children_under: int  # a Pretender's children under this age go with him
    buy_back: int  # the bribe that buys a Pretender back
    adult_age: int  # the aristocratic family's children old enough to be auctioned
    characteristic_dice: DiceSpec  # a bastard's characteristic rolls
    characteristic_names: Callable[[str], tuple[str, str, str]]
    pretender_problems: Callable[..., list[str]]  # everything that stops a character becoming a Pretender
    bastard_problems: Callable[..., list[str]]  # everything that stops a King having a bastard son

    def registered_by(self, ruleset: Ruleset) -> PretenderTerms:
        """These terms with whether the ruleset has Pretenders, and the optional rule that brings
        them, as it registers them."""
        option = ruleset.pretenders_option
        return replace(
            self, pretenders=ruleset.pretenders, option=option, option_label=ruleset.optional_rules.get(option, option)
        )


@runtime_checkable
class SuccessionPlay(Protocol):
    """Succession (A7; BloodLine B): what the succession services ask of a ruleset."""

    # --- the deaths and the line ---

    def unions_end(self, world: World, chronicle: Chronicle) -> dict[str, set[int]]:
        """End the Dynastic Unions the deaths end; for each crown, the heirs its succession bars
        because of a union (BloodLine: a dead Queen's children of the union)."""
        ...

    def successions_kill(self) -> bool:
        """Whether a succession may kill a monarch (BloodLine, Turkey #2): the crowns are walked again."""
        ...

    def union_barred(self, world: World, crown: str) -> set[int] | None:
        """The heirs a union bars from ``crown`` (read before the deaths end the unions)."""
        ...

    def barred(self, world: World, crown: str, people: Mapping[int, Person]) -> set[int]:
        """Who else may not inherit ``crown`` (BloodLine: born into a spurned line after its skip)."""
        ...

    def leaves_no_issue(self, world: World, crown: str, monarch: int, people: Mapping[int, Person]) -> bool:
        """Whether the monarch's death leaves the crown to no one of his blood at all (BloodLine: a
        minor house's monarch with no issue, whose successor is rolled)."""
        ...

    def pass_over_cost(
        self, world: World, candidate: Character, player: Dynasty | None, *, crown: str, rule_c: bool
    ) -> PassOverCost | None:
        """What passing this heir over costs (refused with a RuleError when not allowed); None: the
        ruleset prices it at the succession itself (``passed_over``)."""
        ...

    def heir_of(self, world: World, crown: str, candidate: Character) -> Character | None:
        """Who reigns when ``candidate`` is next in line (BloodLine's Turkish heir); None: skip him."""
        ...

    # --- the new reign ---

    def no_heir(
        self,
        world: World,
        late: Character,
        player: Dynasty | None,
        crown: str,
        box: DiceBox,
        chronicle: Chronicle,
        tables: dict[str, Any],
        entered: list[list[int]] | None,
    ) -> tuple[Character, str]:
        """The monarch when nobody of the blood is left, and how he came (the chronicle's words)."""
        ...

    def passed_over(
        self,
        world: World,
        reign: Reign,
        heir: Character,
        player: Dynasty | None,
        skipped: Sequence[tuple[Character, PassOverCost | None]],
        lines: Mapping[int, list[Character]],
        box: DiceBox,
        chronicle: Chronicle,
        entered: list[list[int]] | None,
    ) -> None:
        """Record the heirs passed over for the new reign and what it costs."""
        ...

    def crowned(self, world: World, crown: str, heir: Character, chronicle: Chronicle) -> None:
        """What follows the enthronement (BloodLine: the Turkish fratricide)."""
        ...

    def needs_regent(self, heir: Person, year: int) -> bool:
        """Whether the new monarch rules through a regent."""
        ...

    def minor(self, heir: Person, year: int) -> bool:
        """Whether an heir is a minor (the line of succession shows it)."""
        ...

    def regent_min_age(self) -> int:
        """A regent's least age."""
        ...

    def widows_retire(self) -> bool:
        """Whether a King's widow retires (and so cannot stay on as regent)."""
        ...

    def baron_birth_year(self, late: Person | None, year: int) -> int:
        """The birth year of a baron created to act as regent (``late``: the late monarch, if known)."""
        ...

    def charisma_loss_dice(self) -> DiceSpec:
        """The dice of the Charisma a monarch may lose for a pass-over (Blood Royale A7)."""
        ...

    def baron_characteristics(self) -> tuple[Characteristic, ...]:
        """The characteristics a created baron rolls (a regent chosen at the table types their dice)."""
        ...

    def relative_plan(self, late: Person, year: int) -> RelativePlan:
        """The relative (with wife and children) created when nobody of the blood is left."""
        ...

    def create_relative(
        self,
        world: World,
        late: Character,
        dynasty: Dynasty | None,
        box: DiceBox,
        chronicle: Chronicle,
        tables: dict[str, Any],
        entered: list[list[int]] | None,
    ) -> Character:
        """Create that relative and his family, saved; returns him."""
        ...

    def accession(self, world: World, reign: Reign, chronicle: Chronicle) -> None:
        """What a new monarch's accession does after the titles passed on (BloodLine: he loses his
        in-country titles)."""
        ...

    def match_crowns(self) -> int:
        """What the Treasury pays a new monarch's spouse's house (0: nothing)."""
        ...

    def whole_family_moves(self) -> bool:
        """Whether an heir fetched from another house brings all his children, married or not."""
        ...

    def join(
        self,
        world: World,
        *,
        queen_crown: Crown,
        king_crown: Crown,
        queen: Character,
        king: Character,
        king_player: Dynasty | None,
        chronicle: Chronicle,
    ) -> None:
        """The Dynastic Union of a Queen regnant's crown with her King's."""
        ...

    def regents(self) -> bool:
        """Whether a minor monarch rules through a regent his player chooses (Blood Royale A7)."""
        ...

    def gives_back_crowns(self) -> bool:
        """Whether a player holding two countries may give one back to its house (Blood Royale A7)."""
        ...

    def capitals(self) -> bool:
        """Whether a lost capital and a foreign intervention cost the ruler Charisma (Blood Royale 18, 20)."""
        ...

    def minor_note(self, monarch: Character, regent: Character | None, year: int) -> tuple[str | None, int | None]:
        """What the crown's page says of a minor monarch (None: not a minor), and the year his
        regency ends (None: no regency)."""
        ...

    def crown_terms(self) -> CrownTerms:
        """What a crown carries beyond its monarch in this ruleset."""
        ...

    def title_terms(self) -> TitleTerms:
        """What titles and Governors are in this ruleset."""
        ...

    def pretender_terms(self) -> PretenderTerms:
        """What Pretenders and bastards are in this ruleset."""
        ...

    # --- the line of succession's page ---

    def priced_pass_overs(self) -> bool:
        """Whether the line shows what passing each heir over would cost."""
        ...

    def pass_over_view(
        self, world: World, character: Character, crown: str, player: Dynasty | None, rule_c: bool
    ) -> PassOverView:
        """The answer the succession would give if this heir were passed over now, and its price."""
        ...

    def titles_descend(self) -> bool:
        """Whether a title passes to the holder's descendants only (BloodLine), not like the crown."""
        ...


def no_one_barred(world: World, crown: str, people: Mapping[int, Person]) -> set[int]:
    """``SuccessionPlay.barred`` of a ruleset that bars no line of its own."""
    return set()


def always_issue(world: World, crown: str, monarch: int, people: Mapping[int, Person]) -> bool:
    """``SuccessionPlay.leaves_no_issue`` of a ruleset whose crowns go up the tree."""
    return False


def unbarred_by_unions(world: World, crown: str) -> set[int] | None:
    """``SuccessionPlay.union_barred`` of a ruleset whose unions bar no heir."""
    return None
