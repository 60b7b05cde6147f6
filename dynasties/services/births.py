"""Step 1 of the Dynastic Sequence: Births (RULES.md A4).

Per couple: an attempt (2d6, 7+ a child), then the child's sex (1d6) and characteristics
(3 x 3d6), then the player decides on another attempt. Each attempt and each child is its own
transaction; ``births_finish`` closes the step.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q

from campaign.dice import DiceBox
from campaign.models import Campaign, Step
from dynasties.models import BirthAttempt, Character, Marriage, Origin, Status
from dynasties.rules import blood_royale as br
from dynasties.rules.dice import DiceSource
from dynasties.rules.errors import IneligibleCouple, NotFound, RuleError
from dynasties.rules.names import given_name as suggested_name
from dynasties.services.common import Chronicle, load_tables, lock_campaign, require_step, set_step
from dynasties.services.setup import format_characteristics, roll_characteristics


def _marriage(campaign: Campaign, marriage: Marriage | int) -> Marriage:
    pk = marriage.pk if isinstance(marriage, Marriage) else marriage
    try:
        return Marriage.objects.select_related("husband", "wife").get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no marriage #{pk} in {campaign.name}.") from None


@transaction.atomic
def births_attempt(
    *,
    campaign: Campaign | int,
    marriage: Marriage | int,
    faces: Sequence[int] | None = None,
    source: DiceSource | None = None,
    by: AbstractBaseUser | None = None,
) -> BirthAttempt:
    """One birth roll for a wed couple: 2d6, a child on 7 or more."""
    campaign = lock_campaign(campaign)
    require_step(campaign, Step.BIRTHS)
    match = _marriage(campaign, marriage)
    year = campaign.current_year
    couple = f"{match.husband.display_name} and {match.wife.display_name}"
    if match.ended_year is not None:
        raise IneligibleCouple(f"The marriage of {couple} ended in {match.ended_year}.")
    if match.wedding_year is None:
        raise IneligibleCouple(f"{couple} are betrothed, not wed: no birth roll before the wedding.")
    earlier = list(BirthAttempt.objects.filter(marriage=match, year=year).order_by("attempt"))
    problem = br.couple_problem(match.husband.as_person(), match.wife.as_person(), year, len(earlier))
    if problem:
        raise IneligibleCouple(f"{couple}: {problem}")
    box = DiceBox(campaign, source=source, by=by)
    roll = box.roll(
        br.BIRTH_DICE,
        purpose="birth",
        characters=[match.husband, match.wife],
        entered=faces,
        target=br.BIRTH_TARGET,
        detail=f"attempt {len(earlier) + 1}",
    )
    success = br.birth_succeeds(roll.faces)
    roll.outcome = "child" if success else "no child"
    [saved] = box.flush()
    children_before = sum(1 for a in earlier if a.success)
    return BirthAttempt.objects.create(
        campaign=campaign,
        marriage=match,
        year=year,
        attempt=len(earlier) + 1,
        success=success,
        child_birth_year=br.child_birth_year(year, children_before) if success else None,
        roll=saved,
    )


@transaction.atomic
def births_sex(
    *,
    campaign: Campaign | int,
    attempt: BirthAttempt | int,
    faces: Sequence[int] | None = None,
    characteristic_faces: Sequence[Sequence[int]] | None = None,
    given_name: str | None = None,
    source: DiceSource | None = None,
    by: AbstractBaseUser | None = None,
) -> Character:
    """The sex roll (1d6: 1-3 a boy) after a successful attempt, then the child's characteristics."""
    campaign = lock_campaign(campaign)
    require_step(campaign, Step.BIRTHS)
    pk = attempt.pk if isinstance(attempt, BirthAttempt) else attempt
    try:
        found = BirthAttempt.objects.select_related("marriage__husband", "marriage__wife").get(pk=pk, campaign=campaign)
    except BirthAttempt.DoesNotExist:
        raise NotFound(f"There is no birth attempt #{pk} in {campaign.name}.") from None
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
    father, mother = match.husband, match.wife
    tables = load_tables(campaign)
    box = DiceBox(campaign, source=source, by=by)
    sex_roll = box.roll(br.SEX_DICE, purpose="sex", entered=faces)
    sex = br.sex_from_faces(sex_roll.faces)
    sex_roll.outcome = "boy" if sex == "M" else "girl"

    mother_reigns = mother.reigns.filter(end_year__isnull=True).exists()
    dynastic_name = mother.dynastic_name if mother_reigns else father.dynastic_name
    raised_by = match.children_raised_by or (mother.controlled_by if mother_reigns else father.controlled_by)
    crown = raised_by.crown if raised_by else ""
    birth_year = found.child_birth_year or campaign.current_year
    same_year = Character.objects.filter(
        Q(father=father) | Q(mother=mother), campaign=campaign, birth_year=birth_year
    ).count()
    if given_name is None:
        siblings = set(
            Character.objects.filter(Q(father=father) | Q(mother=mother), sex=sex, status=Status.ALIVE)
            .values_list("given_name", flat=True)
        )
        index = 0
        while suggested_name(crown, sex, index) in siblings and index < 12:
            index += 1
        given_name = suggested_name(crown, sex, index)
    elif not given_name.strip():
        raise RuleError("The child's name cannot be blank.", code="invalid", fields={"given_name": "required"})
    child = Character.objects.create(
        campaign=campaign,
        given_name=given_name.strip(),
        sex=sex,
        birth_year=birth_year,
        birth_order=same_year + 1,
        father=father,
        mother=mother,
        dynastic_name=dynastic_name,
        birth_dynasty=raised_by,
        controlled_by=raised_by,
        characteristics={},
        origin=Origin.BORN,
    )
    box.add_subject(sex_roll, child)
    child.characteristics = roll_characteristics(box, child, tables["characteristic_bands"], entered=characteristic_faces)
    child.save(update_fields=["characteristics"])
    box.flush()
    found.child = child
    found.save(update_fields=["child"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "birth",
        f"{'A son' if sex == 'M' else 'A daughter'}, {child.display_name}, is born in {birth_year} to "
        f"{father.display_name} and {mother.display_name}: {format_characteristics(child.characteristics)}.",
        character=child.pk,
        dynasty=raised_by.pk if raised_by else None,
    )
    chronicle.flush()
    return child


@transaction.atomic
def births_finish(*, campaign: Campaign | int, by: AbstractBaseUser | None = None) -> Campaign:
    """Close the Births step; every child born must have had its sex rolled."""
    campaign = lock_campaign(campaign)
    require_step(campaign, Step.BIRTHS)
    waiting = list(
        BirthAttempt.objects.filter(campaign=campaign, year=campaign.current_year, success=True, child__isnull=True)
        .select_related("marriage__husband", "marriage__wife")
    )
    if waiting:
        couples = ", ".join(f"{a.marriage.husband.display_name} and {a.marriage.wife.display_name}" for a in waiting)
        raise RuleError(f"Roll the sex of the child born to {couples} before closing Births.", code="births_pending")
    set_step(campaign, Step.SURVIVAL)
    return campaign
