"""Step 3 of the Dynastic Sequence: Marriages (RULES.md A6).

A match may be arranged (a betrothal) at any time, even for a child; the wedding happens in the
Marriages step once both are 15. At the wedding the bride passes to the groom's player (or he to
hers, if the contract says he joins her dynasty) and the money the rules fix is recorded as owed.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from campaign.models import Campaign, Step
from dynasties.models import Character, Dynasty, Marriage, Origin, Reign
from dynasties.rules import blood_royale as br
from dynasties.rules.errors import IllegalMarriage, NotFound, RuleError
from dynasties.services.common import Chronicle, lock_campaign, open_match_q, require_step, set_step


def _character(campaign: Campaign, value: Character | int, role: str) -> Character:
    pk = value.pk if isinstance(value, Character) else value
    try:
        return Character.objects.select_for_update().get(pk=pk, campaign=campaign)
    except Character.DoesNotExist:
        raise NotFound(f"There is no character #{pk} in {campaign.name} to be the {role}.") from None


def marriage_check(
    campaign: Campaign, husband: Character, wife: Character, *, wedding: bool, exclude: Marriage | None = None
) -> list[str]:
    """Everything that forbids the match now; empty when legal."""
    def taken(c: Character) -> bool:
        qs = Marriage.objects.filter(open_match_q(c), campaign=campaign)
        if exclude is not None:
            qs = qs.exclude(pk=exclude.pk)
        return qs.exists()

    return br.marriage_problems(
        husband.as_person(),
        wife.as_person(),
        campaign.current_year,
        wedding=wedding,
        husband_taken=taken(husband),
        wife_taken=taken(wife),
        husband_never_marries=husband.origin == Origin.BARON,
        wife_never_marries=wife.origin == Origin.BARON,
    )


@transaction.atomic
def marriage_arrange(
    *,
    campaign: Campaign | int,
    husband: Character | int,
    wife: Character | int,
    husband_joins_wife: bool = False,
    children_raised_by: Dynasty | int | None = None,
    wed: bool = False,
    by: AbstractBaseUser | None = None,
) -> Marriage:
    """Arrange a match (a betrothal); with ``wed=True`` the wedding follows at once (Marriages step)."""
    campaign = lock_campaign(campaign)
    groom = _character(campaign, husband, "husband")
    bride = _character(campaign, wife, "wife")
    problems = marriage_check(campaign, groom, bride, wedding=False)
    if problems:
        raise IllegalMarriage(" ".join(problems))
    raiser = _dynasty(campaign, children_raised_by)
    match = Marriage(
        campaign=campaign,
        husband=groom,
        wife=bride,
        arranged_year=campaign.current_year,
        husband_joins_wife=husband_joins_wife,
        children_raised_by=raiser,
    )
    match.full_clean()
    match.save()
    chronicle = Chronicle(campaign)
    chronicle.add(
        "betrothal",
        f"{groom.display_name} and {bride.display_name} are betrothed"
        + (f"; he joins the house of {bride.controlled_by.name}" if husband_joins_wife and bride.controlled_by else "")
        + ".",
        marriage=match.pk,
    )
    chronicle.flush()
    if wed:
        return _wed(campaign, match)
    return match


def _dynasty(campaign: Campaign, value: Dynasty | int | None) -> Dynasty | None:
    if value is None:
        return None
    pk = value.pk if isinstance(value, Dynasty) else value
    try:
        return Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no dynasty #{pk} in {campaign.name}.") from None


@transaction.atomic
def marriage_wed(*, campaign: Campaign | int, marriage: Marriage | int, by: AbstractBaseUser | None = None) -> Marriage:
    """The wedding of a betrothed couple, in the Marriages step, both 15 or older."""
    campaign = lock_campaign(campaign)
    pk = marriage.pk if isinstance(marriage, Marriage) else marriage
    try:
        match = Marriage.objects.select_related("husband", "wife").get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no betrothal #{pk} in {campaign.name}.") from None
    return _wed(campaign, match)


def _wed(campaign: Campaign, match: Marriage) -> Marriage:
    require_step(campaign, Step.MARRIAGES)
    if match.ended_year is not None:
        raise IllegalMarriage(f"This match ended in {match.ended_year} ({match.end_cause}).")
    if match.wedding_year is not None:
        raise IllegalMarriage(f"{match} were already wed in {match.wedding_year}.")
    groom = Character.objects.select_related("controlled_by", "birth_dynasty").get(pk=match.husband_id)
    bride = Character.objects.select_related("controlled_by", "birth_dynasty").get(pk=match.wife_id)
    problems = marriage_check(campaign, groom, bride, wedding=True, exclude=match)
    if problems:
        raise IllegalMarriage(" ".join(problems))
    year = campaign.current_year
    groom_house, bride_house = groom.controlled_by, bride.controlled_by
    reigning = {r.holder_id: r for r in Reign.objects.filter(campaign=campaign, end_year__isnull=True)}
    match.wedding_year = year
    match.save(update_fields=["wedding_year"])
    if match.husband_joins_wife:
        groom.controlled_by = bride_house
        groom.prince_piece = ""
        groom.save(update_fields=["controlled_by", "prince_piece"])
    else:
        bride.controlled_by = groom_house
        bride.save(update_fields=["controlled_by"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "wedding",
        f"{groom.display_name} ({groom.age(year)}) weds {bride.display_name} ({bride.age(year)})"
        + (f"; he joins the house of {bride_house.name}" if match.husband_joins_wife and bride_house else "")
        + ".",
        marriage=match.pk,
    )
    payments = br.wedding_payments(
        bride_charisma=int(bride.characteristics.get("charisma", 0)),
        groom_is_monarch=groom.pk in reigning,
        bride_is_monarch=bride.pk in reigning,
    )
    for payment in payments:
        if payment.reason.startswith("bride's Charisma"):
            house = groom_house
        elif payment.to == "bride":
            house = bride.birth_dynasty or bride_house
        else:
            house = groom.birth_dynasty or groom_house
        if house is None:
            continue
        direction = "from the Treasury to" if payment.amount > 0 else "to the Treasury from"
        chronicle.add(
            "payment_owed",
            f"{abs(payment.amount)} Crowns {direction} the house of {house.name}: {payment.reason}.",
            dynasty=house.pk,
            amount=payment.amount,
            marriage=match.pk,
        )
    chronicle.flush()
    return match


@transaction.atomic
def marriage_cancel(
    *, campaign: Campaign | int, marriage: Marriage | int, reason: str, by: AbstractBaseUser | None = None
) -> Marriage:
    """Break off a betrothal (a wedded marriage ends only by death)."""
    campaign = lock_campaign(campaign)
    pk = marriage.pk if isinstance(marriage, Marriage) else marriage
    try:
        match = Marriage.objects.get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no betrothal #{pk} in {campaign.name}.") from None
    if match.wedding_year is not None:
        raise IllegalMarriage("A wedded marriage cannot be broken off; it lasts while both spouses live.")
    if match.ended_year is not None:
        raise IllegalMarriage(f"This betrothal already ended in {match.ended_year}.")
    if not reason.strip():
        raise RuleError("Say why the betrothal is broken off.", code="invalid", fields={"reason": "required"})
    match.ended_year = campaign.current_year
    match.end_cause = f"betrothal broken off: {reason.strip()}"[:120]
    match.save(update_fields=["ended_year", "end_cause"])
    chron = Chronicle(campaign)
    chron.add("betrothal_end", f"The betrothal of {match} is broken off: {reason.strip()}.", marriage=match.pk)
    chron.flush()
    return match


@transaction.atomic
def marriages_finish(*, campaign: Campaign | int, by: AbstractBaseUser | None = None) -> Campaign:
    campaign = lock_campaign(campaign)
    require_step(campaign, Step.MARRIAGES)
    set_step(campaign, Step.ANNOUNCEMENTS)
    return campaign
