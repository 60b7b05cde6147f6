"""Step 1 of the Dynastic Sequence: Births (RULES.md A4; BloodLine B).

Per couple: an attempt, then the child's sex and characteristics, then the player decides on
another attempt. ``births_attempt`` and ``births_sex`` are the table's one-couple-at-a-time doors
(each its own transaction); ``births_roll_all`` rolls every couple on the server's dice in one
transaction; ``births_finish`` closes the step. These services lock, check the step, ask the
policy and check what is the same for every ruleset; the dice and the rules are the ruleset's play
(``play_of(campaign).births``: ``dynasties/play/<ruleset>/births.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from campaign.models import Campaign, Step
from campaign.permissions import Actor, couple_houses, require
from campaign.steps import Chronicle, Seen, lock_campaign, require_step, service_atomic, set_step
from dynasties.models import BirthAttempt, Character, Marriage
from dynasties.services.play_registry import CoupleTurn as CoupleTurn
from dynasties.services.play_registry import ExtraAttempt as ExtraAttempt
from dynasties.services.play_registry import play_of
from dynasties.services.survival import survival_pass_certain
from rules import birth_years
from rules.dice import DiceSource, Entered
from rules.errors import IneligibleCouple, NotFound, RuleError


def _marriage(campaign: Campaign, marriage: Marriage | int) -> Marriage:
    pk = marriage.pk if isinstance(marriage, Marriage) else marriage
    try:
        return Marriage.objects.select_related("husband", "wife", "husband__controlled_by").get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no marriage #{pk} in {campaign.name}.") from None


@service_atomic
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
    return play_of(campaign).births.attempt(campaign, match, earlier, faces=faces, source=source, by=by)


@service_atomic
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
        # with its roll: the links are checked in memory on save (campaign.integrity)
        with_roll = BirthAttempt.objects.select_related("marriage__husband", "marriage__wife", "roll")
        found = with_roll.get(pk=pk, campaign=campaign)
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
    play = play_of(campaign).births
    child = play.child(
        campaign,
        match,
        born,
        faces=faces,
        characteristic_faces=characteristic_faces,
        given_name=given_name,
        source=source,
        by=by,
    )
    found.child = child
    found.save(update_fields=["child"])
    chronicle = Chronicle(campaign)
    play.announce(chronicle, child)
    chronicle.flush()
    return child


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
    return play_of(campaign).births.roll_all(campaign, extra=extra, source=source, by=by)


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
