"""Small builders for hand-made families in tests (written straight to the database)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from campaign.models import Campaign, Membership, Step
from dynasties.models import Character, Dynasty, Marriage, Origin, Reign, Seat


def person(
    campaign: Campaign,
    dynasty: Dynasty | None,
    name: str,
    sex: str,
    born: int,
    *,
    father: Character | None = None,
    mother: Character | None = None,
    dynastic_name: str | None = None,
    order: int = 1,
    piece: str = "",
    **traits: int,
) -> Character:
    base = {"strength" if sex == "M" else "guile": 0, "constitution": 0, "charisma": 0}
    base.update(traits)
    return Character.objects.create(
        campaign=campaign,
        given_name=name,
        sex=sex,
        birth_year=born,
        birth_order=order,
        father=father,
        mother=mother,
        dynastic_name=dynastic_name or (dynasty.name if dynasty else "Nobody"),
        birth_dynasty=dynasty,
        controlled_by=dynasty,
        characteristics=base,
        origin=Origin.CREATED,
        prince_piece=piece,
    )


def wed(campaign: Campaign, husband: Character, wife: Character, year: int) -> Marriage:
    return Marriage.objects.create(campaign=campaign, husband=husband, wife=wife, arranged_year=year, wedding_year=year)


def crown(campaign: Campaign, holder: Character, name: str, start: int) -> Reign:
    Reign.objects.filter(campaign=campaign, crown=name, end_year__isnull=True).update(end_year=start)
    return Reign.objects.create(campaign=campaign, crown=name, holder=holder, start_year=start)


def at_step(campaign: Campaign, step: Step, year: int | None = None) -> Campaign:
    campaign.step = step
    if year is not None:
        campaign.current_year = year
    campaign.save()
    return campaign


def empty_house(campaign: Campaign, name: str = "Testhouse", crown_name: str = "Testland") -> Dynasty:
    return Dynasty.objects.create(campaign=campaign, name=name, crown=crown_name)


def shows_number(text: str, number: int) -> bool:
    """The number stands alone in the text (not inside a random hex token: a form key, a CSRF token
    or a CSP nonce, which may contain any run of digits; nor the page's live version, a count of the
    campaign's writes that any number may equal)."""
    import re

    text = re.sub(r'data-version="\d+"', "", text)
    return re.search(rf"(?<![0-9a-fA-F]){number}(?![0-9a-fA-F])", text) is not None


def seat_member(
    *, campaign: Campaign, user: Any, role: str, dynasty: Dynasty | None = None, dynasty_id: int | None = None
) -> Membership:
    """A member written straight to the database, with his house's seat (``dynasties.Seat``) when he
    has one: what a test's table needs, without the services' checks."""
    with transaction.atomic():  # a seat refused leaves no member behind
        membership = Membership.objects.create(campaign=campaign, user=user, role=role)
        house = dynasty.pk if dynasty is not None else dynasty_id
        if house is not None:
            Seat.objects.create(membership=membership, campaign_id=membership.campaign_id, house_id=house)
    return membership


def member_house(membership: Membership) -> Dynasty | None:
    """A member's house as the database has it now (his seat's), or None."""
    found = Seat.objects.filter(membership_id=membership.pk).select_related("house").first()
    return None if found is None else found.house


def member_house_id(membership: Membership) -> int | None:
    """The id of a member's house as the database has it now, or None."""
    return Seat.objects.filter(membership_id=membership.pk).values_list("house_id", flat=True).first()
