"""A royal leader's figure in battle, term by term (issue 31, "Effective figures where players look").

Blood Royale (RULES.md A2, A7, A9 rule G; the rulebook's Birth (6), Marriage (8), Succession (9),
Combat (19)): a King or Prince on the board fights with his **Strength**. His wife's Guile is added,
but "a bride can never modify a husband's score above +2 or below -2"; a Governor's +1 "may take
the characteristic above +2"; the usurping house's -1 "can reduce a character's Strength below -2";
the rightful heir's house fights the usurper at +1, and, the rulebook granting it no such exception,
within the -2..+2 that "no single Royal Piece can accumulate more than" (Combat (19)).

BloodLine (RULES.md B): the royal leaders are variant leader counters, whose ratings are the board
game's; what the family adds is a **modifier on battle rolls**: -1 for the country while a disputed
succession's condition lasts, +1 for a titled character "anywhere within his title lands".

Pure: plain values in, a ``Figure`` out (its terms add up to its total); nothing here reads the
database. ``dynasties.selectors.combat_figures`` gathers the values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CAP = 2  # "characters can never be rated higher than +2 or lower than -2" (A2)

STRENGTH = "strength"  # Blood Royale: the leader's Strength
BATTLE_ROLLS = "battle_rolls"  # BloodLine: a modifier on the country's battle rolls
MEASURES = {STRENGTH: "Strength", BATTLE_ROLLS: "battle rolls"}

# The rulebooks' words, cited by each term (the page, the sheet and the API show them).
OWN_RULE = 'Blood Royale, Birth (6): "Strength/Guile affects the Outcome of Battles"'
GOVERNOR_RULE = (
    'Blood Royale, rule G: "give the character a +1 bonus to his or her Strength/Guile characteristic. '
    'This may take the characteristic above +2. This bonus may only be taken once"'
)
WIFE_RULE = (
    "Blood Royale, Birth (6): \"His wife's rating is added to (or subtracted from) his ... if a wife's score "
    "would modify the husband's score outside of this range, the excess is ignored\""
)
USURPER_RULE = (
    "Blood Royale, Succession (9): \"all male characters in the player's Dynasty fight with a -1 penalty to "
    "their Strength score (which can reduce a character's Strength below -2) ... for as long as the legitimate "
    'heir to the throne, or her heirs, is still alive"'
)
RIVAL_RULE = (
    'Blood Royale, Succession (9): "the Dynasty controlling the rightful heir has a +1 bonus to Strength for all '
    "its characters whenever they are fighting the 'usurper' Dynasty\"; Combat (19): \"no single Royal Piece can "
    'accumulate more than +2 or -2 on his Strength score"'
)
MALUS_RULE = (
    'BloodLine, Disputed Succession: "all combat rolls of any kind for the country are done with a -1 malus for '
    'as long as the legitimate heir and any direct descendants remain alive" (voluntary: "all battle rolls of any '
    'sort are done at -1 malus")'
)
TITLE_RULE = (
    'BloodLine, Titles: "The character gains a +1 to all battle rolls of any sort anywhere within his title '
    'lands"; "Titled characters always retain any bonus/malus that their title gives them"'
)


@dataclass(frozen=True)
class Lasting:
    """One lasting modifier as the rules see it: its value, why it stands (for the reader) and, for
    a modifier that holds only somewhere or against someone, where or against whom."""

    value: int
    why: str
    where: str = ""


@dataclass(frozen=True)
class Term:
    """One part of a figure. ``value`` is what it adds to the total; ``given`` what the rule gives
    before the -2..+2 holds it back (a wife's Guile +2 of which +1 counts), else the same."""

    key: str
    label: str
    value: int
    rule: str
    given: int
    why: str = ""

    @property
    def held(self) -> bool:
        return self.given != self.value

    @property
    def shown(self) -> str:
        return signed(self.value)

    @property
    def given_shown(self) -> str:
        return signed(self.given)

    @property
    def source(self) -> str:
        """Where the rule is written, without its words ("Blood Royale, Birth (6)")."""
        return self.rule.split(": ", 1)[0]


@dataclass(frozen=True)
class Case:
    """The figure in one situation (against a house, in a title's lands): the general total plus
    ``terms``."""

    when: str
    total: int
    terms: tuple[Term, ...]

    @property
    def shown(self) -> str:
        return signed(self.total)


@dataclass(frozen=True)
class Figure:
    measure: str  # STRENGTH or BATTLE_ROLLS
    total: int
    terms: tuple[Term, ...]
    cases: tuple[Case, ...] = ()

    @property
    def shown(self) -> str:
        return signed(self.total)

    @property
    def label(self) -> str:
        return MEASURES[self.measure]


def held(score: int, change: int) -> int:
    """What ``change`` adds to ``score`` when it may not take the score outside -2..+2: the excess is
    ignored. A score already outside (a Governor's +3) is not pulled back by a change that would
    push it further out, nor pushed further."""
    low, high = min(-CAP, score), max(CAP, score)
    return max(low, min(high, score + change)) - score


def blood_royale_strength(
    *,
    strength: int,
    governor: int = 0,
    wife: str = "",
    wife_guile: int | None = None,
    usurper: Sequence[Lasting] = (),
    rival: Sequence[Lasting] = (),
    governor_why: str = "",
) -> Figure:
    """A King's or Prince's Strength in battle.

    ``strength``: his Strength as the sheet has it (a Governor's +1 included, as rule G writes it
    there); ``governor``: that +1 (0 if none), shown as its own term. ``wife_guile``: his wife's
    Guile while the marriage lasts (None: no wife). ``usurper``: his house's -1 for each claim its
    crown passed over; ``rival``: his house's +1 for each claim it holds, ``where`` naming the
    usurping house it counts against.

    The order is the rulebook's: his Strength; the wife's Guile, held to -2..+2 (the excess
    ignored); the usurper's penalties, which may go below -2; then, against the usurper only, the
    rival's bonus, held to -2..+2 again."""
    terms: list[Term] = [Term("strength", "his own Strength", strength - governor, OWN_RULE, strength - governor)]
    if governor:
        terms.append(Term("governor", "a Governor's bonus", governor, GOVERNOR_RULE, governor, governor_why))
    score = strength
    if wife_guile is not None:
        counted = held(score, wife_guile)
        label = f"his wife {wife}'s Guile" if wife else "his wife's Guile"
        terms.append(Term("wife", label, counted, WIFE_RULE, wife_guile))
        score += counted
    for claim in usurper:
        terms.append(Term("usurper", "his house usurps a crown", claim.value, USURPER_RULE, claim.value, claim.why))
        score += claim.value
    cases: list[Case] = []
    against: dict[str, list[Lasting]] = {}
    for claim in rival:
        against.setdefault(claim.where, []).append(claim)
    for house, claims in against.items():
        extra: list[Term] = []
        total = score
        for claim in claims:
            counted = held(total, claim.value)
            extra.append(Term("rival", "his house holds the rightful heir", counted, RIVAL_RULE, claim.value, claim.why))
            total += counted
        cases.append(Case(f"against {house}", total, tuple(extra)))
    return Figure(STRENGTH, score, tuple(terms), tuple(cases))


def bloodline_battle_rolls(*, maluses: Sequence[Lasting] = (), titles: Sequence[Lasting] = ()) -> Figure:
    """A BloodLine royal leader's modifier on battle rolls: the country's -1 for each disputed
    succession's condition that lasts (each heir named: docs/rulings.md), and +1 within the lands
    of each title he holds (``where``: the title and its provinces), which he keeps under a malus."""
    terms = tuple(Term("malus", "his country's malus", m.value, MALUS_RULE, m.value, m.why) for m in maluses)
    total = sum(t.value for t in terms)
    cases = tuple(
        Case(f"within {t.where}", total + t.value, (Term("title", "his title lands", t.value, TITLE_RULE, t.value, t.why),))
        for t in titles
    )
    return Figure(BATTLE_ROLLS, total, terms, cases)


def signed(value: int) -> str:
    return f"{value:+d}" if value else "0"
