"""What a ruleset plays at the table's events (issue 35): the protocol ``dynasties.services.events``
asks (``play_of(campaign).events``: ``dynasties/play/<ruleset>/events.py``) and what it hands over.

The service checks who may act and who may be struck, records the deaths, captures and releases
and passes the crowns; the play says which events its ruleset rolls (Blood Royale's survival rolls
for plague and battle, A5), who is on the map to be captured, the neutrals' price, and whether a
minor monarch has a regent and an annexed crown may be given back (Blood Royale A7)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from campaign.dice import DiceBox
from campaign.models import Campaign
from dynasties.models import Character
from rules.captures import OnTheMap
from rules.dice import Entered
from rules.errors import RuleError
from rules.people import Person


@dataclass(frozen=True)
class EventTerms:
    """What an event of a reason is, in the ruleset."""

    rolls: bool  # a survival roll each (else everyone struck dies)
    label: str  # as the chronicle says it ("defeat in battle")
    modifier: int  # the survival roll's modifier (A5)
    rule_g: str  # optional rule G's words (a plague in a governed province)


@dataclass(frozen=True)
class EventDue:
    """One character's survival roll for an event, to make."""

    reason: str
    modifier: int  # beside his own
    entered: Entered | None  # the faces typed (None: the server rolls)
    why: str | None  # the roll's detail beside his age (None: nothing)


@dataclass(frozen=True)
class EventRoll:
    """One character's survival roll for an event, made."""

    faces: tuple[int, ...]
    modifier: int
    need: int
    survived: bool


@runtime_checkable
class EventsPlay(Protocol):
    """The events outside the Dynastic Sequence (A5, A7, A8)."""

    def terms(self, reason: str) -> EventTerms:
        """The event's terms; refused (``RuleError``) for a reason the ruleset does not play."""
        ...

    def roll(self, campaign: Campaign, box: DiceBox, tables: dict[str, Any], character: Character, due: EventDue) -> EventRoll:
        """The survival roll of one character struck, its outcome set."""
        ...

    def rolls_events(self) -> bool:
        """Whether a plague or a battle is a survival roll each (A5; else the death is recorded)."""
        ...

    def at_sea(self) -> bool:
        """Whether a storm takes anyone: royal pieces or leaders aboard a fleet."""
        ...

    def takes_prisoners(self) -> bool:
        """Whether a battle or a surrender takes anyone prisoner (someone of the houses is on the map)."""
        ...

    def interim_claims(self) -> bool:
        """Whether a released heir's claim to a crown held in the interim is answered at the table
        (BloodLine's Stability track)."""
        ...

    def on_the_map(self) -> OnTheMap:
        """Who the ruleset puts on the map, where a battle or a surrender can take him."""
        ...

    def king_age(self) -> int:
        """A reigning man of this age is a King on the map (his piece 'K')."""
        ...

    def combat(self) -> str:
        """The figure a leader brings to a battle (``rules.combat``): ``STRENGTH`` (Blood Royale's
        Strength), ``BATTLE_ROLLS`` (BloodLine's royal leaders), or "" where none is kept
        (``dynasties.figures``)."""
        ...

    def neutral_ransom(self) -> int:
        """The neutrals' fixed price a head for a royal they captured (0: any terms)."""
        ...

    def monarch_ransom(self, campaign: Campaign, money: str) -> str:
        """The ransoms the ruleset's tables fix, in words ("" where it fixes none)."""
        ...

    def regency_age(self) -> int:
        """A monarch younger than this rules through a regent; refused (``RuleError``) where the
        ruleset has no regents."""
        ...

    def needs_regent(self, person: Person, year: int) -> bool:
        """Whether a monarch set up now rules through a regent."""
        ...

    def may_give_back_crowns(self) -> None:
        """Refused (``RuleError``) where a player may not give an annexed crown back."""
        ...

    def strikes_pieces(self, reason: str) -> bool:
        """Whether the event takes only the royal pieces on the map (Blood Royale's battle, storm, plague)."""
        ...

    def struck_problem(self, reason: str, *, name: str, piece: str, captor: str | None) -> str | None:
        """Why this character cannot be struck by the event (the rule, cited), or None. ``piece``: the
        royal piece he holds ('' for none, '-' when pieces do not count); ``captor``: who holds him
        prisoner (None when free)."""
        ...

    def at_sea_rule(self) -> str:
        """The rule that says who a storm takes aboard a fleet, as a refusal cites it."""
        ...

    def household_children_up_to(self) -> int:
        """Optional rule G: a Governor's children up to this age are of the household a plague strikes."""
        ...

    def plague_modifier(self, governed: int, struck: int) -> int:
        """Optional rule G: the survival modifier of a Governor's household when a plague strikes
        ``struck`` of the ``governed`` provinces he holds."""
        ...

    def survival_odds(self, tables: Mapping[str, Any], person: Person, year: int, extra: int) -> str:
        """The odds this person survives an event's roll with this modifier beside his own, spelt out."""
        ...


def no_regents(label: str) -> RuleError:
    """``EventsPlay.regency_age``'s refusal where a ruleset has no regents."""
    return RuleError(f"{label} has no regents: a monarch under 15 costs his country Stability instead.", code="ruleset")


def no_crowns_given_back(label: str) -> RuleError:
    """``EventsPlay.may_give_back_crowns``'s refusal where a ruleset gives no crown back."""
    return RuleError(
        f"{label} gives no crown back: a country held by another house returns by its own rules.",
        code="ruleset",
    )


def refuse_rolled_event(reason: str) -> RuleError:
    """``EventsPlay.terms``' refusal of an event rolled in Blood Royale only."""
    return RuleError(
        f"Survival rolls for {reason} are Blood Royale's; in this ruleset record the death itself (reason 'killed').",
        code="ruleset",
    )


def refuse_storm() -> RuleError:
    """``EventsPlay.terms``' refusal of a storm where nobody is aboard a fleet."""
    return RuleError(
        "A storm takes the royal pieces or leaders aboard a fleet; this ruleset has neither: record the death "
        "itself (reason 'killed').",
        code="ruleset",
    )


def no_monarch_ransom(campaign: Campaign, money: str) -> str:
    """``EventsPlay.monarch_ransom`` of a ruleset whose tables fix no ransom."""
    return ""
