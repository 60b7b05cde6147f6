"""Crowns at the table (pure): who may act as a minor monarch's regent, what a lost capital and a
foreign intervention do to the ruler's Charisma, and the Stability changes the board decides.

Each refusal cites the rule it keeps, in the rulebook's words where it has them. Nothing here reads
or writes a record: the services (``dynasties.services.crowns``, ``dynasties.services.events``) ask.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules import blood_royale as br
from rules.errors import RuleError

# --- the regent (Blood Royale A7, Procedure in the Case of a Minor Ascending the Throne) ------------

REGENT_RULE = (
    "Blood Royale A7: 'The player can bring in any other character to act as Regent (if he or she is of "
    "age). If none are available, a baron or cousin of the late King is created.'"
)


@dataclass(frozen=True)
class RegentCandidate:
    """A character as the regency rule looks at him."""

    name: str
    age: int
    alive: bool
    prisoner: bool
    of_the_house: bool  # controlled by the player of the crown ("the player can bring in")
    monarch: bool  # the minor monarch himself
    regent: bool  # already the regent


def regent_refusal(c: RegentCandidate, *, crown: str) -> str | None:
    """Why ``c`` may not act as regent of ``crown`` (None: he may), citing the rule."""
    if c.monarch:
        return f"{c.name} is the minor monarch: the regent is 'any other character' ({REGENT_RULE})."
    if c.regent:
        return f"{c.name} is already the regent of {crown}."
    if not c.alive:
        return f"{c.name} is not in play and cannot be regent ({REGENT_RULE})."
    if c.age < br.REGENT_MIN_AGE:
        return f"{c.name} is {c.age}: a regent must be of age, {br.REGENT_MIN_AGE} ({REGENT_RULE})."
    if c.prisoner:
        return f"{c.name} is a prisoner and cannot rule {crown} for the monarch ({REGENT_RULE})."
    if not c.of_the_house:
        return (
            f"{c.name} is not a character of the house that plays {crown}: the player brings in one of his own "
            f"characters ({REGENT_RULE})."
        )
    return None


def baron_refusal(available: int, *, crown: str) -> str | None:
    """A baron is created only when no character can act (None: he may be)."""
    if available:
        return (
            f"{available} character{'s' if available != 1 else ''} of the house can act as regent of {crown}: a baron "
            f"is created only 'if none are available' ({REGENT_RULE}). Choose one of them."
        )
    return None


# --- a capital lost and retaken (Blood Royale 18, Capitals) ------------------------------------------

CAPITAL_RULE = (
    "Blood Royale 18: 'The ruler of a country which loses or has lost its capital should have his or her "
    "Charisma score reduced by 1 until the capital is retaken. This adjustment may not take the "
    "minimum/maximum Charisma score outside of the normal +2 - -2 range.'"
)
CAPITAL_CHARISMA = -1


def capital_loss(charisma: int) -> int:
    """The Charisma a ruler loses with his capital: -1, or nothing when that would take him below -2
    (or he is there already)."""
    return CAPITAL_CHARISMA if charisma + CAPITAL_CHARISMA >= br.CHARACTERISTIC_MIN else 0


def capital_restored(charisma: int, lost: int) -> int:
    """What the retaking gives back to a ruler who lost ``lost`` (negative or 0) and stands at
    ``charisma`` now: the same, held to +2."""
    return max(0, min(-lost, br.CHARACTERISTIC_MAX - charisma))


# --- a foreign intervention (Blood Royale 20, Negotiations: Foreign Intervention) --------------------

INTERVENTION_RULE = (
    "Blood Royale 20: 'A Monarch can enlist foreign aid under any terms agreed. If this involves military "
    "assistance (to put down rebellions, for example), the monarch's Charisma score is reduced by 1. This can "
    "have the effect of reducing a monarch's Charisma below -2.'"
)
INTERVENTION_CHARISMA = -1


# --- Stability changed by the board (the Europa Universalis aid; BloodLine plays on its board) --------


@dataclass(frozen=True)
class BoardCause:
    """A cause of a Stability change the board decides, as the rulebook names it: its change where
    the rule fixes it (``delta``), else the range of what the table's roll or terms may give."""

    key: str
    label: str
    rule: str
    delta: int | None = None
    low: int = -6
    high: int = 6

    @property
    def fixed(self) -> bool:
        return self.delta is not None

    def span(self) -> str:
        if self.delta is not None:
            return f"{self.delta:+d}"
        return f"{self.low:+d} to {self.high:+d}"


BOARD_CAUSES: tuple[BoardCause, ...] = (
    BoardCause(
        "war_lost",
        "A war lost",
        "the peace the board made: the levels the terms cost",
        low=-6,
        high=-1,
    ),
    BoardCause(
        "bankruptcy",
        "A bankruptcy",
        "EU aid, Bankruptcy Roll (1d10 + modifiers): -2, -1 or 0 Stability",
        low=-2,
        high=0,
    ),
    BoardCause(
        "peace",
        "A full peace",
        "EU aid, Peace: 'Stability +1 Full peace after war against MAJ or attacking MIN'",
        delta=1,
    ),
    BoardCause(
        "enhance_stability",
        "Enhance Stability",
        "EU aid, Enhance Stability (1d10 + modifiers): -1 (5 or less) to +3 (18 or more)",
        low=-1,
        high=3,
    ),
    BoardCause(
        "levies",
        "Exceptional levies",
        "EU aid, Domestic actions: 'Exceptional levies: Stability -1 (unless enemy forces on National Territory)'",
        delta=-1,
    ),
    BoardCause("table", "Another cause", "what the board decided: say which", low=-6, high=6),
)
CAUSES = {c.key: c for c in BOARD_CAUSES}


def board_change(cause: str, typed: int | None, reason: str = "") -> int:
    """The Stability change of a cause the board decided: the rule's own where it fixes one (a
    typed change must then agree), else the typed one, within the cause's range and not 0;
    ``reason``: what happened (required for another cause)."""
    found = CAUSES.get(cause)
    if found is None:
        known = ", ".join(CAUSES)
        raise RuleError(f"{cause!r} is not a cause of a Stability change; choose one of {known}.", fields={"cause": "unknown"})
    if found.key == "table" and not reason.strip():
        raise RuleError("Say why the Stability changes (another cause: which).", fields={"reason": "required"})
    if found.delta is not None:
        if typed is not None and typed != found.delta:
            raise RuleError(
                f"{found.label} is {found.delta:+d} Stability ({found.rule}): leave the change blank or type {found.delta:+d}.",
                fields={"delta": "fixed"},
            )
        return found.delta
    if typed is None:
        raise RuleError(
            f"{found.label}: type the change the board gave ({found.span()}; {found.rule}).", fields={"delta": "required"}
        )
    if not found.low <= typed <= found.high:
        raise RuleError(
            f"{found.label} changes Stability by {found.span()} ({found.rule}), not {typed:+d}.", fields={"delta": "range"}
        )
    if typed == 0:
        raise RuleError(
            f"{found.label}: a Stability change of 0 changes nothing; there is nothing to record.", fields={"delta": "zero"}
        )
    return typed
