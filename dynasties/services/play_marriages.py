"""What a ruleset plays at Marriages (issue 35): the protocol ``dynasties.services.marriages`` asks
(``play_of(campaign).marriages``: ``dynasties/play/<ruleset>/marriages.py``) and what it hands over.

The service checks who may act, the step, who is taken, the King's widows, and records the
weddings (control passes, the money is posted as owed); the play says when weddings are held, what
the ruleset forbids in a match, its alliance terms (BloodLine's dowry and title) and the money a
wedding moves (Blood Royale's Treasury payments, BloodLine's dowry)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from campaign.models import Campaign, Step
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty, Marriage, Origin, Posting
from rules.registry import MarriageProblems


@dataclass(frozen=True)
class Match:
    husband: int
    wife: int
    husband_joins_wife: bool = False
    children_raised_by: int | None = None
    dowry: str = ""  # BloodLine: "100 ducats" or "province: <name>"
    alliance_title: str = ""  # BloodLine: the title given to the giving dynasty


@dataclass(frozen=True)
class WeddingMoney:
    """One payment a wedding posts: ``payer`` or ``payee`` None is the Treasury; ``amount`` > 0."""

    payer: Dynasty | None
    payee: Dynasty | None
    amount: int
    kind: str
    reason: str


@dataclass(frozen=True)
class Wedding:
    """A couple being wed, with the houses that controlled them before the wedding moved anyone."""

    match: Marriage
    groom: Character
    bride: Character
    groom_house: Dynasty | None
    bride_house: Dynasty | None


TreasuryPayment = tuple[Dynasty, int, str, str]
"""(house, Crowns into its exchequer (negative: out of it), posting kind, reason)."""


@runtime_checkable
class MarriagesPlay(Protocol):
    """Marriages (A6; BloodLine's betrothals and Interphase weddings)."""

    def wedding_step(self) -> Step:
        """The step in which weddings are held."""
        ...

    def has_terms(self) -> bool:
        """Whether a match is betrothed with terms (a dowry, a title) and wed in the Interphase
        (what the page offers and says)."""
        ...

    def terms_help(self) -> str | None:
        """What the dowry field asks for (None: the ruleset's matches have no terms)."""
        ...

    def adult_age(self) -> int:
        """Both spouses must be this old to be wed."""
        ...

    def wedding_age(self, campaign: Campaign, character: Character) -> int:
        """The age a wedding counts (BloodLine: the effective age)."""
        ...

    def rule_problems(
        self, campaign: Campaign, groom: Character, bride: Character, busy: Collection[int], *, wedding: bool
    ) -> list[str]:
        """What the ruleset forbids in the match (ages, kin, bans, who is taken)."""
        ...

    def frozen(self, campaign: Campaign) -> Collection[int]:
        """Who may make no new marriage (BloodLine's frozen lines); empty elsewhere."""
        ...

    def alliance_problem(self, campaign: Campaign, match: Marriage | Match, needs_terms: bool) -> str | None:
        """What the match's terms lack (``needs_terms``: a monarch or a monarch's child weds)."""
        ...

    def terms_problems(
        self, campaign: Campaign, matches: Sequence[Marriage], couples: Sequence[tuple[Character, Character]], *, wedding: bool
    ) -> list[str | None]:
        """``alliance_problem`` of many matches (their couples given), in a fixed number of queries."""
        ...

    def dowry(self, campaign: Campaign, wedding: Wedding, chronicle: Chronicle) -> list[Posting]:
        """The dowry the wedding moves between the houses (unsaved postings, chronicled)."""
        ...

    def dowry_money(
        self, campaign: Campaign, matches: Sequence[Marriage], couples: Sequence[tuple[Character, Character]]
    ) -> list[WeddingMoney | None]:
        """The dowry each match's wedding would post now (None: none), in a fixed number of queries."""
        ...

    def treasury_payments(
        self, campaign: Campaign, groom: Character, bride: Character, groom_house: Dynasty | None, reigning: Collection[int]
    ) -> list[TreasuryPayment]:
        """The wedding's payments by or into the Treasury."""
        ...


def ruleset_problems(
    problems: MarriageProblems, campaign: Campaign, groom: Character, bride: Character, busy: Collection[int], *, wedding: bool
) -> list[str]:
    """``MarriagesPlay.rule_problems`` by a ruleset's ``marriage_problems``."""
    return problems(
        groom.as_person(),
        bride.as_person(),
        campaign.current_year,
        wedding=wedding,
        husband_taken=groom.pk in busy,
        wife_taken=bride.pk in busy,
        husband_never_marries=groom.origin == Origin.BARON,
        wife_never_marries=bride.origin == Origin.BARON,
    )


def no_frozen_lines(campaign: Campaign) -> Collection[int]:
    """``MarriagesPlay.frozen`` of a ruleset without frozen lines."""
    return set()


def no_alliance_problem(campaign: Campaign, match: Marriage | Match, needs_terms: bool) -> str | None:
    """``MarriagesPlay.alliance_problem`` of a ruleset whose matches have no terms."""
    return None


def no_terms_problems(
    campaign: Campaign, matches: Sequence[Marriage], couples: Sequence[tuple[Character, Character]], *, wedding: bool
) -> list[str | None]:
    """``MarriagesPlay.terms_problems`` of a ruleset whose matches have no terms."""
    return [None] * len(matches)


def no_dowry(campaign: Campaign, wedding: Wedding, chronicle: Chronicle) -> list[Posting]:
    """``MarriagesPlay.dowry`` of a ruleset without dowries."""
    return []


def no_dowry_money(
    campaign: Campaign, matches: Sequence[Marriage], couples: Sequence[tuple[Character, Character]]
) -> list[WeddingMoney | None]:
    """``MarriagesPlay.dowry_money`` of a ruleset without dowries."""
    return [None] * len(matches)
