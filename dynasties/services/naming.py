"""Naming a child born this turn (RULES.md A4): the sex roll gives it the usual name of its house
and sex; its parents' player (or the GM) may then choose another while the turn lasts."""

from __future__ import annotations

from django.db import transaction

from campaign.models import Campaign, ChronicleEntry
from campaign.permissions import Actor, couple_houses, require
from campaign.steps import Seen, lock_campaign
from dynasties.models import BirthAttempt, Character
from rules.errors import NotFound, RuleError

NAME_MAX = 60  # Character.given_name


@transaction.atomic
def character_rename(
    *,
    campaign: Campaign | int,
    character: Character | int,
    given_name: str,
    by: Actor,
) -> Character:
    """Give a child born this turn another Christian name; its birth line in the chronicle says
    the new name. The parents' houses (or the GM) choose it; a name given before is refused."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    pk = character.pk if isinstance(character, Character) else character
    born = (
        BirthAttempt.objects.select_related("marriage__husband", "marriage__wife", "child")
        .filter(campaign=campaign, child_id=pk)
        .first()
    )
    if born is None or born.child is None:
        if not Character.objects.filter(campaign=campaign, pk=pk).exists():
            raise NotFound(f"There is no character #{pk} in {campaign.name}.")
        raise RuleError("Only a child born this turn can be named here.", code="not_newborn")
    require(by, campaign, "couple", houses=couple_houses(born.marriage))
    child = born.child
    if born.year != campaign.current_year:
        raise RuleError(f"{child.display_name} was born in an earlier turn: the name is kept.", code="not_newborn")
    name = " ".join(given_name.split())
    if not name:
        raise RuleError("The child's name cannot be blank.", code="invalid", fields={"given_name": "required"})
    if len(name) > NAME_MAX:
        raise RuleError(f"A name has at most {NAME_MAX} letters.", code="invalid", fields={"given_name": "too_long"})
    if name == child.given_name:
        return child
    before = child.display_name
    child.given_name = name
    child.save(update_fields=["given_name"])
    for line in ChronicleEntry.objects.filter(campaign=campaign, year=campaign.current_year, kind="birth", data__character=pk):
        line.text = line.text.replace(before, child.display_name, 1)
        line.save(update_fields=["text"])
    return child
