"""Blood Royale's Births (RULES.md A4): 2d6, a child on 7 or more, at most three attempts (two for
the 3-player game's aristocratic family); the child's sex on 1d6 (1-3 a boy) and its three
characteristics on 3d6 read on the bands; the first child of the turn born in the turn year, the
next a year later each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db.models import Q, QuerySet

from campaign import audit
from campaign.dice import DiceBox
from campaign.models import Campaign, Roll
from campaign.permissions import Actor
from campaign.steps import Chronicle, load_tables
from dynasties.models import BirthAttempt, Character, Dynasty, DynastyKind, Marriage, Origin, Reign, Status
from dynasties.services.characteristics import format_characteristics, next_entered
from dynasties.services.common import World
from dynasties.services.play_registry import (
    BirthTerms,
    BoardReads,
    CoupleOnBoard,
    CoupleTurn,
    ExtraAttempt,
    TraitValue,
    WifeSurvival,
    families_kept,
)
from dynasties.services.survival import survival_due
from rules import blood_royale as br
from rules.dice import DiceSource, Entered, TypedTotal
from rules.errors import IneligibleCouple, RuleError
from rules.names import given_name as suggested_name
from rules.odds import Odds, at_least, dice_must_show
from rules.tables import characteristic_value


class BirthContext:
    """What naming and placing newborns needs, read once per transaction for the given parents."""

    def __init__(self, campaign: Campaign, parents: Sequence[int]) -> None:
        self.campaign = campaign
        year = campaign.current_year
        self.tables = load_tables(campaign)
        self.reigning = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("holder_id", flat=True))
        self.dynasties = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
        ids = list(parents)
        # the parents are the campaign's, so are their children: no campaign term (without statistics
        # SQLite read every character the campaign ever had through its index, not the parents')
        kin = (
            Character.objects.filter(Q(father_id__in=ids) | Q(mother_id__in=ids))
            .order_by()
            .values_list("father_id", "mother_id", "birth_year", "sex", "given_name", "status")
        )
        self.same_year: dict[tuple[int, int], int] = {}
        self.names: dict[tuple[int, str], set[str]] = {}
        for father, mother, born, sex, name, status in kin:
            for parent in (father, mother):
                if parent is None:
                    continue
                if born >= year:
                    self.same_year[(parent, born)] = self.same_year.get((parent, born), 0) + 1
                if status == Status.ALIVE:
                    self.names.setdefault((parent, sex), set()).add(name)

    def new_child(self, match: Marriage, birth_year: int, sex: str, given_name: str | None) -> Character:
        """An unsaved child of the couple (A4: the father's dynastic name, unless the mother reigns
        in her own right; raised by the husband's house unless the contract says otherwise)."""
        father, mother = match.husband, match.wife
        mother_reigns = mother.pk in self.reigning
        dynastic_name = mother.dynastic_name if mother_reigns else father.dynastic_name
        if mother_reigns and father.pk in self.reigning:
            # A Dynastic Union: the children belong to the King's player whatever the contract says
            raised_by_id = father.controlled_by_id
        else:
            raised_by_id = match.children_raised_by_id or (mother.controlled_by_id if mother_reigns else father.controlled_by_id)
        raised_by = self.dynasties.get(raised_by_id) if raised_by_id else None
        order = max(self.same_year.get((father.pk, birth_year), 0), self.same_year.get((mother.pk, birth_year), 0)) + 1
        for parent in (father.pk, mother.pk):
            self.same_year[(parent, birth_year)] = order
        if given_name is None:
            used = self.names.get((father.pk, sex), set()) | self.names.get((mother.pk, sex), set())
            crown = raised_by.crown if raised_by else ""
            index = 0
            while suggested_name(crown, sex, index) in used and index < 12:
                index += 1
            given_name = suggested_name(crown, sex, index)
        elif not given_name.strip():
            raise RuleError("The child's name cannot be blank.", code="invalid", fields={"given_name": "required"})
        for parent in (father.pk, mother.pk):
            self.names.setdefault((parent, sex), set()).add(given_name.strip())
        return Character(
            campaign=self.campaign,
            given_name=given_name.strip(),
            sex=sex,
            birth_year=birth_year,
            birth_order=order,
            father=father,
            mother=mother,
            dynastic_name=dynastic_name,
            birth_dynasty=raised_by,
            controlled_by=raised_by,
            characteristics={},
            origin=Origin.BORN,
        )


@dataclass(frozen=True)
class CoupleStatus:
    marriage: Marriage
    attempts_made: int
    children_this_turn: int
    pending_sex: list[BirthAttempt]
    problem: str | None
    chance: Fraction

    @property
    def may_attempt(self) -> bool:
        return self.problem is None


def is_aristocratic_parents(match: Marriage) -> bool:
    """The starting couple of the 3-player aristocratic family (A9)."""
    house = match.husband.controlled_by
    return bool(house and house.kind == DynastyKind.ARISTOCRATIC and match.husband.origin == Origin.SETUP)


def birth_couples(
    campaign: Campaign, *, attempts: Mapping[int, Sequence[BirthAttempt]] | None = None, world: World | None = None
) -> list[CoupleStatus]:
    """Every wed couple with what it may do in this turn's Births step (a fixed number of queries).
    No line is frozen here: that is BloodLine's rule (a passed-over heir married away).
    ``attempts`` (this turn's, by marriage) and ``world`` (the living, read lazily): the Births
    board's, read once for it (a spouse the world has not, read for her)."""
    year = campaign.current_year
    if world is None:
        marriages = list(
            Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=False)
            .select_related("husband", "wife", "husband__controlled_by")
            .order_by("pk")
        )
    else:
        marriages = [m for m in world.open_marriages if m.wedding_year is not None]
        people = world.characters
        missing = {pk for m in marriages for pk in (m.husband_id, m.wife_id) if pk not in people}
        if missing:  # a spouse out of play in a marriage still open
            people = {**people, **Character.objects.in_bulk(missing)}
        for m in marriages:
            m.husband, m.wife = people[m.husband_id], people[m.wife_id]
            m.husband.controlled_by = world.dynasties.get(m.husband.controlled_by_id or 0)
    if attempts is None:
        found: dict[int, list[BirthAttempt]] = {}
        for a in BirthAttempt.objects.filter(campaign=campaign, year=year).order_by("attempt"):
            found.setdefault(a.marriage_id, []).append(a)
        attempts = found
    out = []
    for m in marriages:
        made = attempts.get(m.pk, [])
        problem = br.couple_problem(
            m.husband.as_person(), m.wife.as_person(), year, len(made), aristocratic_parents=is_aristocratic_parents(m)
        )
        out.append(
            CoupleStatus(
                marriage=m,
                attempts_made=len(made),
                children_this_turn=sum(1 for a in made if a.success),
                pending_sex=[a for a in made if a.success and a.child_id is None],
                problem=problem,
                chance=br.birth_chance(),
            )
        )
    return out


def _birth_roll(box: DiceBox, match: Marriage, attempt_no: int, faces: Entered | None) -> Roll:
    roll = box.roll(
        br.BIRTH_DICE,
        purpose="birth",
        characters=[match.husband, match.wife],
        entered=faces,
        target=br.BIRTH_TARGET,
        detail=f"attempt {attempt_no}",
    )
    roll.outcome = "child" if br.birth_succeeds(roll.faces) else "no child"
    return roll


def _sex_roll(box: DiceBox, faces: Entered | None) -> tuple[Roll, str]:
    roll = box.roll(br.SEX_DICE, purpose="sex", entered=faces)
    sex = br.sex_from_faces(roll.faces)
    roll.outcome = "boy" if sex == "M" else "girl"
    return roll, sex


def announce(chronicle: Chronicle, child: Character) -> None:
    father, mother = child.father, child.mother
    assert father is not None
    assert mother is not None
    chronicle.add(
        "birth",
        f"{'A son' if child.sex == 'M' else 'A daughter'}, {child.display_name}, is born in {child.birth_year} to "
        f"{father.display_name} and {mother.display_name}: {format_characteristics(child.characteristics)}.",
        character=child.pk,
        dynasty=child.controlled_by_id,
    )


def attempt(
    campaign: Campaign,
    match: Marriage,
    earlier: Sequence[BirthAttempt],
    *,
    faces: Entered | None,
    source: DiceSource | None,
    by: Actor,
) -> BirthAttempt:
    year = campaign.current_year
    problem = br.couple_problem(
        match.husband.as_person(), match.wife.as_person(), year, len(earlier), aristocratic_parents=is_aristocratic_parents(match)
    )
    if problem:
        raise IneligibleCouple(f"{match.husband.display_name} and {match.wife.display_name}: {problem}")
    box = DiceBox(campaign, source=source, by=by)
    roll = _birth_roll(box, match, len(earlier) + 1, faces)
    box.flush()
    success = roll.outcome == "child"
    children_before = sum(1 for a in earlier if a.success)
    return BirthAttempt.objects.create(
        campaign=campaign,
        marriage=match,
        year=year,
        attempt=len(earlier) + 1,
        success=success,
        child_birth_year=br.child_birth_year(year, children_before) if success else None,
        roll=roll,
    )


def child(
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
    context = BirthContext(campaign, [match.husband_id, match.wife_id])
    box = DiceBox(campaign, source=source, by=by)
    sex_roll, sex = _sex_roll(box, faces)
    baby = context.new_child(match, born, sex, given_name)
    box.add_subject(sex_roll, baby)  # the rolls name the child by its key once it is written (flush)
    baby.characteristics = roll_characteristics(box, baby, context.tables["characteristic_bands"], entered=characteristic_faces)
    baby.save()  # complete in one insert: one history row, one change logged
    box.flush()
    return baby


def roll_all(campaign: Campaign, *, extra: ExtraAttempt, source: DiceSource | None, by: Actor) -> list[BirthAttempt]:
    year = campaign.current_year
    couples: list[CoupleStatus] = [c for c in birth_couples(campaign) if c.may_attempt and c.attempts_made == 0]
    parents = [pk for c in couples for pk in (c.marriage.husband_id, c.marriage.wife_id)]
    context = BirthContext(campaign, parents)
    bands: Any = context.tables["characteristic_bands"]
    box = DiceBox(campaign, source=source, by=by)
    attempts: list[BirthAttempt] = []
    children: list[Character] = []
    for status in couples:
        match = status.marriage
        made, born = 0, 0
        wife_con = int(match.wife.characteristics.get("constitution", 0))
        limit = br.ARISTOCRATIC_BIRTH_ROLLS if is_aristocratic_parents(match) else br.MAX_BIRTH_ATTEMPTS
        while made < limit:
            if made and not extra(CoupleTurn(match, made, born, wife_con + br.birth_penalty(made + 1))):
                break
            made += 1
            roll = _birth_roll(box, match, made, None)
            made_now = BirthAttempt(
                campaign=campaign, marriage=match, year=year, attempt=made, success=roll.outcome == "child", roll=roll
            )
            if made_now.success:
                made_now.child_birth_year = br.child_birth_year(year, born)
                born += 1
                sex_roll, sex = _sex_roll(box, None)
                baby = context.new_child(match, made_now.child_birth_year, sex, None)
                box.add_subject(sex_roll, baby)
                trait_rolls = [
                    box.roll(br.CHARACTERISTIC_DICE, purpose="characteristic", characters=[baby], detail=trait)
                    for trait in br.characteristic_names(sex)
                ]
                baby.characteristics = br.characteristics_from_totals(bands, sex, [sum(r.faces) for r in trait_rolls])
                for r in trait_rolls:
                    r.outcome = f"{r.detail} {baby.characteristics[r.detail]:+d}"
                made_now.child = baby
                children.append(baby)
            attempts.append(made_now)
    audit.bulk_create(Character, children, by=by)
    box.flush()
    for a in attempts:
        a.roll_id = a.roll.pk if a.roll else None
        a.child_id = a.child.pk if a.child else None
    BirthAttempt.objects.bulk_create(attempts)
    chronicle = Chronicle(campaign)
    for baby in children:
        announce(chronicle, baby)
    chronicle.flush()
    return attempts


# the ruleset's own answers, under the protocol's names
birth_penalty = br.birth_penalty
succeeds = br.birth_succeeds
sex_of = br.sex_from_faces


def child_birth_year(year: int, *, attempt: int, children_before: int) -> int:
    return br.child_birth_year(year, children_before)


def name_kin(kin: QuerySet[Character], child: Character) -> QuerySet[Character]:
    return kin.filter(status=Status.ALIVE)  # the parents' living children


def renamed_characteristic(was: str, now: str) -> tuple[str, str] | None:
    """A son's Strength is a daughter's Guile."""
    return br.characteristic_names(was)[0], br.characteristic_names(now)[0]


def trait_value(campaign: Campaign, trait: str, roll: Roll, was: Any) -> TraitValue:
    value = characteristic_value(load_tables(campaign)["characteristic_bands"], sum(roll.faces))
    return TraitValue(
        value=value,
        outcome=f"{trait} {value:+d}",
        shown=f"{trait.capitalize()} {value:+d}",
        was_shown=f"{was:+d}" if isinstance(was, int) else str(was),
    )


# --- the Births page ------------------------------------------------------------------------------


keeps_families = families_kept


def terms() -> BirthTerms:
    return BirthTerms(
        birth_dice=br.BIRTH_DICE,
        sex_dice=br.SEX_DICE,
        characteristic_dice=br.CHARACTERISTIC_DICE,
        characteristic_labels=("Strength or Guile", "Constitution", "Charisma"),
        child_on=dice_must_show(br.BIRTH_DICE, br.BIRTH_TARGET),
        sex_rule="1-3 a boy, 4-6 a girl",
    )


def board(
    campaign: Campaign, attempts: Mapping[int, Sequence[BirthAttempt]], reads: BoardReads
) -> tuple[Odds, list[CoupleOnBoard]]:
    """Each further attempt costs the wife 1 Constitution on this turn's survival roll (2d6 +
    Constitution must reach the number for her age)."""
    tables = reads.tables()
    world = reads.world(living_only=True)
    wives = {d.character.pk: d for d in survival_due(campaign, world, tables)}
    couples = []
    for status in birth_couples(campaign, attempts=attempts, world=world):
        m, n = status.marriage, len(attempts.get(status.marriage.pk, ()))
        wife = m.wife
        extra = br.birth_penalty(n + 1) - br.birth_penalty(n)
        con = int((wife.characteristics or {}).get("constitution", 0))
        now = con + br.birth_penalty(n)
        cost = (
            f"costs {wife.display_name} {-extra} Constitution on this turn's survival roll "
            f"(Constitution for the roll {now:+d} → {now + extra:+d})"
        )
        due = wives.get(wife.pk)
        survival = None
        if due is not None:
            dice = br.SURVIVAL_DICE
            survival = WifeSurvival(
                now=at_least(dice, due.need, due.modifier),
                after=at_least(dice, due.need, due.modifier + extra),
                must_show_now=dice_must_show(dice, due.need, due.modifier),
                must_show_after=dice_must_show(dice, due.need, due.modifier + extra),
            )
        couples.append(CoupleOnBoard(marriage=m, problem=status.problem, next_cost=cost, wife_survival=survival))
    return Odds(br.birth_chance(), br.BIRTH_DICE), couples


def roll_characteristics(
    box: DiceBox,
    character: Character,
    bands: Any,
    queue: list[list[int]] | None = None,
    entered: Sequence[Entered | None] | None = None,
) -> dict[str, int]:
    """Three 3d6 rolls read on the bands (A2), each logged against the character (typed: the
    faces of each, or its total; one typed as None is rolled)."""
    rolls = []
    for n, trait in enumerate(br.characteristic_names(character.sex)):
        typed = entered[n] if entered is not None else None
        faces: Entered | None = next_entered(queue) if typed is None else typed if isinstance(typed, TypedTotal) else list(typed)
        rolls.append(
            box.roll(br.CHARACTERISTIC_DICE, purpose="characteristic", characters=[character], entered=faces, detail=trait)
        )
    values = br.characteristics_from_totals(bands, character.sex, [sum(r.faces) for r in rolls])
    for roll in rolls:
        roll.outcome = f"{roll.detail} {values[roll.detail]:+d}"
    return values
