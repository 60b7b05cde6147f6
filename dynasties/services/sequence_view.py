"""What the Dynastic Sequence pages show, read only (RULES.md A4, A5, A7; BloodLine B).

    births_board(campaign)      # each couple: this turn's attempts, the odds, the cost of trying again
    survival_board(campaign)    # each character who rolls: the number needed, the exact odds, the result
    successions_due(campaign)   # the crowns whose monarch died this turn: the line and who may be passed over
    succession_decisions(campaign, role, dynasty)  # the same, with who decides and what he chose

What differs between rulesets (the dice, the odds, who may try, what another attempt costs) is
asked of the campaign's play (``play_of(campaign)``: ``births.terms``/``board``,
``survival.due``/``odds``/``rolled_odds``), whose eligibility is the services' own, so a page
never offers a roll the service would refuse. Nothing here writes; each board runs a fixed number of queries whatever the size of
the campaign (the successions: a fixed number per crown waiting for one)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from campaign.models import STEP_ORDER, Campaign, Roll, Step
from campaign.permissions import may_decide_succession
from campaign.steps import load_tables
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage, Reign, Status
from dynasties.services.common import World
from dynasties.services.play_registry import BirthTerms, BoardReads, WifeSurvival, play_of
from dynasties.services.succession_choices import pass_over_choices
from dynasties.services.succession_view import SuccessionLine, succession_line
from rules.dice import DiceSpec
from rules.odds import Odds

SUCCESSION_LINE_LIMIT = 8
"""How many heirs the succession decision shows (and may pass over)."""


def has_families(campaign: Campaign) -> bool:
    """EU monarch tables roll their monarchs: the sequence has no families to show."""
    return play_of(campaign).births.keeps_families()


# --- Births ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoupleRow:
    marriage: Marriage
    attempts: tuple[BirthAttempt, ...]  # this turn's, in order, with their roll and child
    problem: str | None  # why the couple may make no (further) birth roll now
    odds: Odds  # of a child on the next attempt
    next_cost: str  # what one more attempt costs the wife ("" before the first attempt)
    wife_survival: WifeSurvival | None  # None when she makes no survival roll this turn
    dynasties: frozenset[int]  # the houses controlling husband or wife: their players may roll

    @property
    def husband(self) -> Character:
        return self.marriage.husband

    @property
    def wife(self) -> Character:
        return self.marriage.wife

    @property
    def pending(self) -> BirthAttempt | None:
        """A child born whose sex (and characteristics) are still to roll."""
        return next((a for a in self.attempts if a.success and a.child_id is None), None)

    @property
    def children(self) -> list[Character]:
        return [a.child for a in self.attempts if a.child is not None]

    @property
    def may_attempt(self) -> bool:
        return self.problem is None and self.pending is None

    @property
    def trying_again(self) -> bool:
        return bool(self.attempts)


def birth_terms(campaign: Campaign) -> BirthTerms:
    return play_of(campaign).births.terms()


@dataclass(frozen=True)
class BirthsBoard:
    year: int
    families: bool
    couples: tuple[CoupleRow, ...]  # those that may roll, or have rolled, this turn
    ineligible: tuple[CoupleRow, ...]  # wed couples who may not roll at all this turn, with why
    terms: BirthTerms
    reads: BoardReads | None = field(default=None, compare=False, repr=False)  # what it read (``births_board(kept=)``)

    @property
    def houses(self) -> dict[int, Dynasty] | None:
        """The campaign's dynasties by id, as the board read them (None: it read none)."""
        return self.reads.houses() if self.reads is not None else None

    @property
    def known(self) -> tuple[list[Character], list[Reign]] | None:
        """The characters and the reigns the board read (``selectors.label(known=)``; None: none)."""
        world = self.reads.any_world() if self.reads is not None else None
        return (list(world.characters.values()), world.reigns) if world is not None else None

    @property
    def birth_dice(self) -> DiceSpec:
        return self.terms.birth_dice

    @property
    def sex_dice(self) -> DiceSpec:
        return self.terms.sex_dice

    @property
    def characteristic_dice(self) -> DiceSpec:
        return self.terms.characteristic_dice

    @property
    def characteristic_labels(self) -> tuple[str, str, str]:
        return self.terms.characteristic_labels

    @property
    def child_on(self) -> str:
        return self.terms.child_on

    @property
    def sex_rule(self) -> str:
        return self.terms.sex_rule

    @property
    def waiting(self) -> list[CoupleRow]:
        """Couples that have not rolled yet this turn (what 'roll all remaining' rolls)."""
        return [c for c in self.couples if c.may_attempt and not c.attempts]

    @property
    def pending_sex(self) -> list[CoupleRow]:
        return [c for c in self.couples if c.pending is not None]

    @property
    def born(self) -> int:
        return sum(1 for c in self.couples for a in c.attempts if a.success)


def _attempts(campaign: Campaign) -> dict[int, list[BirthAttempt]]:
    out: dict[int, list[BirthAttempt]] = {}
    rows = BirthAttempt.objects.filter(campaign=campaign, year=campaign.current_year).select_related("roll", "child")
    for a in rows.order_by("attempt", "pk"):
        out.setdefault(a.marriage_id, []).append(a)
    return out


def births_board(campaign: Campaign, *, kept: BirthsBoard | None = None) -> BirthsBoard:
    """Every wed couple's Births this turn: what it has rolled, whether it may roll (again), the
    odds of a child and, before another attempt, what that attempt would cost the wife.

    ``kept``: the board this request drew before its own Births action wrote (births and
    characters only) and nothing else was written since (the caller checks the live version):
    this turn's attempts and the characters are read again, the rest is taken from it."""
    play = play_of(campaign).births
    year, families, terms = campaign.current_year, play.keeps_families(), play.terms()
    if not families:
        return BirthsBoard(year=year, families=families, terms=terms, couples=(), ineligible=())
    attempts = _attempts(campaign)
    reads = BoardReads(campaign, kept=kept.reads if kept is not None else None)
    chance, on_board = play.board(campaign, attempts, reads)
    couples: list[CoupleRow] = []
    ineligible: list[CoupleRow] = []
    for c in on_board:
        m = c.marriage
        made = attempts.get(m.pk, [])
        row = CoupleRow(
            marriage=m,
            attempts=tuple(made),
            problem=c.problem,
            odds=chance,
            next_cost=c.next_cost if made else "",
            wife_survival=c.wife_survival if made else None,
            dynasties=frozenset(d for d in (m.husband.controlled_by_id, m.wife.controlled_by_id) if d is not None),
        )
        (ineligible if row.problem and not made else couples).append(row)
    return BirthsBoard(
        year=year, families=families, terms=terms, couples=tuple(couples), ineligible=tuple(ineligible), reads=reads
    )


# --- Survival -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SurvivalRow:
    character: Character
    age: int
    need: int | None  # Blood Royale: the number 2d6 + modifier must reach; BloodLine: the age column
    modifier: int  # Constitution (Blood Royale) and this turn's birth penalty
    birth_penalty: int
    odds: Odds | None  # of surviving the roll (None for a roll already made whose terms are not known)
    must_show: str  # what the dice must show (Blood Royale), or the BloodLine age and its chances
    roll: Roll | None  # this turn's survival roll, once made
    died: bool
    house: Dynasty | None = None  # the dynasty controlling the character

    @property
    def rolled(self) -> bool:
        return self.roll is not None


@dataclass(frozen=True)
class SurvivalBoard:
    year: int
    families: bool
    rows: tuple[SurvivalRow, ...]
    dice: DiceSpec

    @property
    def to_roll(self) -> list[SurvivalRow]:
        return [r for r in self.rows if not r.rolled]

    @property
    def dead(self) -> list[SurvivalRow]:
        return [r for r in self.rows if r.died]


def _survival_rolls(campaign: Campaign) -> dict[int, Roll]:
    rolls = Roll.objects.filter(
        campaign=campaign, year=campaign.current_year, purpose="survival", step=Step.SURVIVAL
    ).prefetch_related("subjects")
    out: dict[int, Roll] = {}
    for roll in rolls.order_by("pk"):
        for subject in roll.subjects.all():
            out[subject.character_id] = roll
    return out


def survival_board(campaign: Campaign) -> SurvivalBoard:
    """Everyone who rolls for survival this turn (still to roll, or rolled - the dead included),
    with the number needed, the exact odds of surviving and the result once rolled."""
    play = play_of(campaign)
    dice = play.survival.survival_dice()
    if not play.births.keeps_families():
        return SurvivalBoard(year=campaign.current_year, families=False, rows=(), dice=dice)
    world = World(campaign, living_only=True)
    tables = load_tables(campaign)
    rolls = _survival_rolls(campaign)
    rows: list[SurvivalRow] = []
    year = campaign.current_year
    for d in play.survival.due(campaign, world, tables):
        roll = rolls.pop(d.character.pk, None)
        odds, text = play.survival.odds(campaign, d, tables)
        rows.append(SurvivalRow(d.character, d.age, d.need, d.modifier, d.birth_penalty, odds, text, roll, False))
    # Those who rolled and are gone now (dead, or out of play since): their terms are on the roll.
    gone = Character.objects.filter(campaign=campaign, pk__in=list(rolls))
    for character in gone:
        roll = rolls[character.pk]
        rolled_odds, text = play.survival.rolled_odds(roll)
        rows.append(
            SurvivalRow(
                character,
                character.age(year),
                roll.target,
                roll.modifier,
                0,
                rolled_odds,
                text,
                roll,
                character.status == Status.DEAD,
            )
        )
    rows = [replace(r, house=world.dynasties.get(r.character.controlled_by_id or 0)) for r in rows]
    if STEP_ORDER.index(Step(campaign.step)) > STEP_ORDER.index(Step.SURVIVAL):
        rows = [r for r in rows if r.rolled]  # closed: those who rolled (not the people made since)
    seats = {pk: (d.seat, d.name) for pk, d in world.dynasties.items()}
    rows.sort(
        key=lambda r: (
            seats.get(r.character.controlled_by_id or 0, (999, "")),
            r.character.birth_year,
            r.character.birth_order,
            r.character.pk,
        )
    )
    return SurvivalBoard(year=year, families=True, rows=tuple(rows), dice=dice)


# --- Succession decisions -------------------------------------------------------------------


@dataclass(frozen=True)
class SuccessionDue:
    crown: str
    line: SuccessionLine | None  # None when the line cannot be read (the services will say why)
    error: str = ""

    @property
    def passable(self) -> list[Any]:
        """The entries of the line the crown's player may pass over, with the price."""
        if self.line is None:
            return []
        return [e for e in self.line.entries if e.pass_over is not None and e.pass_over.allowed]


def crowns_awaiting_succession(campaign: Campaign) -> list[str]:
    """The crowns whose reigning monarch has died this turn, by name: Survival's finish passes them on."""
    return list(
        Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder__status=Status.DEAD)
        .order_by("crown")
        .values_list("crown", flat=True)
    )


def successions_due(campaign: Campaign) -> list[SuccessionDue]:
    """Each crown whose reigning monarch has died this step, with the line at his death (the first
    entry succeeds unless passed over) and who may be passed over at what cost."""
    from rules.errors import RuleError

    if not has_families(campaign):
        return []
    out = []
    for crown in crowns_awaiting_succession(campaign):
        try:
            out.append(SuccessionDue(crown, succession_line(campaign=campaign, crown=crown, limit=SUCCESSION_LINE_LIMIT)))
        except RuleError as exc:
            out.append(SuccessionDue(crown, None, exc.message))
    return out


@dataclass(frozen=True)
class SuccessionDecision:
    """A succession due as one viewer sees it: who decides it, what he chose, whether this viewer may choose."""

    due: SuccessionDue
    player: Dynasty | None  # the dynasty whose player decides (the crown's, another in a Dynastic Union)
    chosen: list[int] | None  # the heirs recorded as passed over this year; None: no choice yet
    may_choose: bool


def succession_decisions(campaign: Campaign, role: str, dynasty: int | None) -> list[SuccessionDecision]:
    """Each succession due (:func:`successions_due`), with who decides it and the choice recorded (both
    doors show the Survival step's successions through this)."""
    choices = pass_over_choices(campaign)
    out = []
    for due in successions_due(campaign):
        player = due.line.player if due.line is not None else None
        out.append(
            SuccessionDecision(
                due,
                player,
                choices.get(due.crown),
                may_decide_succession(role, dynasty, player.pk if player is not None else None),
            )
        )
    return out


def dead_regents(campaign: Campaign) -> list[Reign]:
    """Regencies whose regent died: the Survival finish names a new regent."""
    return list(
        Reign.objects.filter(
            campaign=campaign,
            end_year__isnull=True,
            regent__isnull=False,
            regency_end_year__isnull=True,
            regent__status=Status.DEAD,
        ).select_related("holder", "regent")
    )
