"""Step 1 of the Dynastic Sequence: Births (RULES.md A4).

Per couple: an attempt (2d6, 7+ a child), then the child's sex (1d6) and characteristics
(3 x 3d6), then the player decides on another attempt. ``births_attempt`` and ``births_sex`` are
the table's one-couple-at-a-time doors (each its own transaction); ``births_roll_all`` rolls every
couple on the server's dice in one transaction; ``births_finish`` closes the step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q

from campaign import audit
from campaign.dice import DiceBox
from campaign.models import Campaign, Roll, Step
from campaign.permissions import Actor, couple_houses, require
from campaign.steps import Chronicle, Seen, load_tables, lock_campaign, require_step, set_step
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage, Origin, Reign, Status
from dynasties.selectors import FROZEN_LINE, CoupleStatus, birth_couples, frozen_lines, is_aristocratic_parents
from dynasties.services import bloodline_sequence as bls
from dynasties.services.characteristics import format_characteristics, roll_characteristics
from dynasties.services.common import World
from dynasties.services.survival import survival_pass_certain
from rules import birth_years
from rules import blood_royale as br
from rules import bloodline as bl
from rules.dice import DiceSource, Entered
from rules.errors import IneligibleCouple, NotFound, RuleError
from rules.names import given_name as suggested_name


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


def _birth_roll(box: DiceBox, match: Marriage, attempt_no: int, faces: Sequence[int] | None) -> Roll:
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


def _sex_roll(box: DiceBox, faces: Sequence[int] | None) -> tuple[Roll, str]:
    roll = box.roll(br.SEX_DICE, purpose="sex", entered=faces)
    sex = br.sex_from_faces(roll.faces)
    roll.outcome = "boy" if sex == "M" else "girl"
    return roll, sex


def _announce_birth(chronicle: Chronicle, child: Character) -> None:
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


def _bloodline_attempt(
    campaign: Campaign,
    match: Marriage,
    earlier: list[BirthAttempt],
    faces: Sequence[int] | None,
    source: DiceSource | None,
    by: Actor,
) -> BirthAttempt:
    world = World(campaign)
    if {match.husband_id, match.wife_id} & frozen_lines(campaign):
        problem: str | None = FROZEN_LINE
    else:
        problem = bls.couple_problem(world, match, len(earlier))
    if problem:
        raise IneligibleCouple(f"{match.husband.display_name} and {match.wife.display_name}: {problem}")
    box = DiceBox(campaign, source=source, by=by)
    roll, success = bls.attempt(world, box, match, len(earlier), faces)
    box.flush()
    return BirthAttempt.objects.create(
        campaign=campaign,
        marriage=match,
        year=campaign.current_year,
        attempt=len(earlier) + 1,
        success=success,
        child_birth_year=bl.child_birth_year(campaign.current_year, len(earlier) + 1) if success else None,
        roll=roll,
    )


def _marriage(campaign: Campaign, marriage: Marriage | int) -> Marriage:
    pk = marriage.pk if isinstance(marriage, Marriage) else marriage
    try:
        return Marriage.objects.select_related("husband", "wife", "husband__controlled_by").get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no marriage #{pk} in {campaign.name}.") from None


@transaction.atomic
def births_attempt(
    *,
    campaign: Campaign | int,
    marriage: Marriage | int,
    faces: Entered | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> BirthAttempt:
    """One birth roll for a wed couple: 2d6, a child on 7 or more."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require_step(campaign, Step.BIRTHS)
    match = _marriage(campaign, marriage)
    require(by, campaign, "couple", houses=couple_houses(match))
    year = campaign.current_year
    couple = f"{match.husband.display_name} and {match.wife.display_name}"
    if match.ended_year is not None:
        raise IneligibleCouple(f"The marriage of {couple} ended in {match.ended_year}.")
    if match.wedding_year is None:
        raise IneligibleCouple(f"{couple} are betrothed, not wed: no birth roll before the wedding.")
    earlier = list(BirthAttempt.objects.filter(marriage=match, year=year).order_by("attempt"))
    if campaign.rules.effective_ages:
        return _bloodline_attempt(campaign, match, earlier, faces, source, by)
    problem = br.couple_problem(
        match.husband.as_person(), match.wife.as_person(), year, len(earlier), aristocratic_parents=is_aristocratic_parents(match)
    )
    if problem:
        raise IneligibleCouple(f"{couple}: {problem}")
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


@transaction.atomic
def births_sex(
    *,
    campaign: Campaign | int,
    attempt: BirthAttempt | int,
    faces: Entered | None = None,
    characteristic_faces: Sequence[Entered] | None = None,
    given_name: str | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> Character:
    """The sex roll (1d6: 1-3 a boy) after a successful attempt, then the child's characteristics."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require_step(campaign, Step.BIRTHS)
    pk = attempt.pk if isinstance(attempt, BirthAttempt) else attempt
    try:
        found = BirthAttempt.objects.select_related("marriage__husband", "marriage__wife").get(pk=pk, campaign=campaign)
    except BirthAttempt.DoesNotExist:
        raise NotFound(f"There is no birth attempt #{pk} in {campaign.name}.") from None
    require(by, campaign, "couple", houses=couple_houses(found.marriage))
    if not found.success:
        raise RuleError("That birth roll failed: there is no child whose sex to roll.", code="no_child")
    if found.child_id is not None:
        raise RuleError(f"The sex of this child was already rolled ({found.child}).", code="already_rolled")
    if found.year != campaign.current_year:
        raise RuleError("That birth belongs to an earlier turn.", code="stale")
    if characteristic_faces is not None and len(characteristic_faces) != 3:
        raise RuleError(
            "Typed characteristics need three 3d6 rolls: Strength/Guile, Constitution, Charisma.", code="invalid_dice"
        )
    match = found.marriage
    # a parent who died since the birth roll (an event during Births): the child is born within
    # the mother's life and at most a year after the father's death (docs/rulings.md, Births)
    born = birth_years.within_lives(
        found.child_birth_year or campaign.current_year,
        mother_death_year=match.wife.death_year,
        father_death_year=match.husband.death_year,
    )
    if born != found.child_birth_year:
        found.child_birth_year = born
        found.save(update_fields=["child_birth_year"])
    if campaign.rules.effective_ages:
        world = World(campaign)
        box = DiceBox(campaign, source=source, by=by)
        baby = bls.child(world, box, match, born, faces, characteristic_faces, given_name)
        box.flush()
        found.child = baby
        found.save(update_fields=["child"])
        chronicle = Chronicle(campaign)
        bls.announce_birth(chronicle, baby)
        chronicle.flush()
        return baby
    context = BirthContext(campaign, [match.husband_id, match.wife_id])
    box = DiceBox(campaign, source=source, by=by)
    sex_roll, sex = _sex_roll(box, faces)
    child = context.new_child(match, born, sex, given_name)
    child.save()
    box.add_subject(sex_roll, child)
    child.characteristics = roll_characteristics(box, child, context.tables["characteristic_bands"], entered=characteristic_faces)
    child.save(update_fields=["characteristics"])
    box.flush()
    found.child = child
    found.save(update_fields=["child"])
    chronicle = Chronicle(campaign)
    _announce_birth(chronicle, child)
    chronicle.flush()
    return child


@dataclass(frozen=True)
class CoupleTurn:
    """What an automatic policy sees when deciding on another attempt."""

    marriage: Marriage
    attempts_made: int
    children_this_turn: int
    wife_constitution_after_next: int


ExtraAttempt = Callable[[CoupleTurn], bool]


def _no_extra(_: CoupleTurn) -> bool:
    return False


@transaction.atomic
def births_roll_all(
    *,
    campaign: Campaign | int,
    extra: ExtraAttempt = _no_extra,
    source: DiceSource | None = None,
    by: Actor,
) -> list[BirthAttempt]:
    """Roll, on the server's dice, the births of every couple that has not rolled yet this turn:
    one attempt each, further ones while ``extra`` says so (at most three); every child gets its
    sex and characteristics at once. A fixed number of queries whatever the number of couples."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    require_step(campaign, Step.BIRTHS)
    if campaign.rules.effective_ages:
        chronicle = Chronicle(campaign)
        made = bls.roll_all(World(campaign), DiceBox(campaign, source=source, by=by), chronicle, extra)
        chronicle.flush()
        return made
    year = campaign.current_year
    couples: list[CoupleStatus] = [c for c in birth_couples(campaign) if c.may_attempt and c.attempts_made == 0]
    parents = [pk for c in couples for pk in (c.marriage.husband_id, c.marriage.wife_id)]
    context = BirthContext(campaign, parents)
    if not campaign.rules.keeps_families:
        return []  # rolled monarchs have no families: no births to roll
    bands: Any = context.tables["characteristic_bands"]
    box = DiceBox(campaign, source=source, by=by)
    attempts: list[BirthAttempt] = []
    children: list[Character] = []
    pending_traits: list[tuple[Character, list[Roll]]] = []
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
            attempt = BirthAttempt(
                campaign=campaign, marriage=match, year=year, attempt=made, success=roll.outcome == "child", roll=roll
            )
            if attempt.success:
                attempt.child_birth_year = br.child_birth_year(year, born)
                born += 1
                sex_roll, sex = _sex_roll(box, None)
                child = context.new_child(match, attempt.child_birth_year, sex, None)
                box.add_subject(sex_roll, child)
                trait_rolls = [
                    box.roll(br.CHARACTERISTIC_DICE, purpose="characteristic", characters=[child], detail=trait)
                    for trait in br.characteristic_names(sex)
                ]
                child.characteristics = br.characteristics_from_totals(bands, sex, [sum(r.faces) for r in trait_rolls])
                for r in trait_rolls:
                    r.outcome = f"{r.detail} {child.characteristics[r.detail]:+d}"
                attempt.child = child
                children.append(child)
                pending_traits.append((child, trait_rolls))
            attempts.append(attempt)
    audit.bulk_create(Character, children, by=by)
    box.flush()
    for attempt in attempts:
        attempt.roll_id = attempt.roll.pk if attempt.roll else None
        attempt.child_id = attempt.child.pk if attempt.child else None
    BirthAttempt.objects.bulk_create(attempts)
    chronicle = Chronicle(campaign)
    for child in children:
        _announce_birth(chronicle, child)
    chronicle.flush()
    return attempts


@transaction.atomic
def births_finish(*, campaign: Campaign | int, by: Actor) -> Campaign:
    """Close the Births step; every child born must have had its sex rolled."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    require_step(campaign, Step.BIRTHS)
    waiting = list(
        BirthAttempt.objects.filter(
            campaign=campaign, year=campaign.current_year, success=True, child__isnull=True
        ).select_related("marriage__husband", "marriage__wife")
    )
    if waiting:
        couples = ", ".join(f"{a.marriage.husband.display_name} and {a.marriage.wife.display_name}" for a in waiting)
        raise RuleError(f"Roll the sex of the child born to {couples} before closing Births.", code="births_pending")
    set_step(campaign, Step.SURVIVAL)
    survival_pass_certain(campaign)  # with the campaign's auto_pass_certain: rolls that cannot fail are passed
    return campaign
