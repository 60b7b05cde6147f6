"""Regnal numbers written on a reign when its monarch is crowned (rules.regnal counts them)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from campaign.models import Campaign
from campaign.steps import report
from dynasties.models import Character, Crown, Reign
from dynasties.selectors import named
from rules.regnal import Crowned, labels, numeral, regnal_name

if TYPE_CHECKING:
    from dynasties.services.common import World


def crowned_name(character: Character, reign: Reign) -> str:
    """The monarch's name with his numeral in that reign's crown ("Edward III Plantagenet")."""
    numerals = [reign.numeral] if reign.numeral else []
    return regnal_name(character.given_name, numerals, character.dynastic_name)


def crowning_numeral(campaign: Campaign, crown: str, holder: Character, *, world: World | None = None) -> int:
    """``holder``'s numeral in ``crown`` crowned now, after the crown's reigns so far. With a ``world``
    whose characters include the past monarchs it asks the database nothing."""
    if world is not None:
        reigns = [r for r in world.reigns if r.crown == crown]
        known = world.characters
        if all(r.holder_id in known for r in reigns):
            record = world.crowns.get(crown)
            earlier = [Crowned(r.holder_id, known[r.holder_id].given_name, known[r.holder_id].sex, r.numeral) for r in reigns]
            return numeral(holder.given_name, holder.sex, holder.pk, earlier, record.numerals if record else None)
    rows = (
        Reign.objects.filter(campaign=campaign, crown=crown)
        .order_by("start_year", "pk")
        .values_list("holder_id", "holder__given_name", "holder__sex", "numeral")
    )
    starting = Crown.objects.filter(campaign=campaign, name=crown).values_list("numerals", flat=True).first()
    return numeral(holder.given_name, holder.sex, holder.pk, [Crowned(*row) for row in rows], starting)


def enthrone(
    campaign: Campaign,
    crown: str,
    holder: Character,
    start_year: int,
    *,
    world: World | None = None,
    numbered: bool = True,
    **fields: object,
) -> Reign:
    """A new reign of ``holder`` over ``crown`` from ``start_year``, with its numeral (none for an
    elected Doge: ``numbered=False``). The action's outcome learns of it (``"reigns"``: the API answers with them)."""
    number = crowning_numeral(campaign, crown, holder, world=world) if numbered else None
    reign = Reign.objects.create(campaign=campaign, crown=crown, holder=holder, start_year=start_year, numeral=number, **fields)
    report("reigns", reign)
    return reign


def renumber(campaign: Campaign, crown: str) -> int:
    """Counts the crown's numerals again from its pre-campaign numerals (the GM changed them):
    every reign in the order they began. Returns the number of reigns whose numeral changed."""
    starting = Crown.objects.filter(campaign=campaign, name=crown).values_list("numerals", flat=True).first()
    earlier: list[Crowned] = []
    changed = []
    for reign in Reign.objects.filter(campaign=campaign, crown=crown).select_related("holder").order_by("start_year", "pk"):
        holder = reign.holder
        number = numeral(holder.given_name, holder.sex, holder.pk, earlier, starting)
        earlier.append(Crowned(holder.pk, holder.given_name, holder.sex, number))
        if reign.numeral != number:
            reign.numeral = number
            changed.append(reign)
    Reign.objects.bulk_update(changed, ["numeral"])
    return len(changed)


def number_unnumbered(campaign: Campaign) -> int:
    """Gives the reigns without a numeral (read from a document older than numerals) the numeral
    they would have had, counted in each crown after the reigns before them. Returns how many."""
    starting = dict(Crown.objects.filter(campaign=campaign).values_list("name", "numerals"))
    earlier: dict[str, list[Crowned]] = {}
    changed = []
    for reign in Reign.objects.filter(campaign=campaign).select_related("holder").order_by("crown", "start_year", "pk"):
        holder, past = reign.holder, earlier.setdefault(reign.crown, [])
        if reign.numeral is None:
            reign.numeral = numeral(holder.given_name, holder.sex, holder.pk, past, starting.get(reign.crown))
            changed.append(reign)
        past.append(Crowned(holder.pk, holder.given_name, holder.sex, reign.numeral))
    Reign.objects.bulk_update(changed, ["numeral"])
    return len(changed)


def labels_of(characters: Iterable[Any], reigns: Iterable[Reign]) -> dict[int, str]:
    """Every character's list label (rules.regnal.labels) from characters and reigns already loaded
    (a World's): no query."""
    numerals: dict[int, list[int]] = {}
    for reign in sorted(reigns, key=lambda r: (r.start_year, r.pk)):
        if reign.numeral:
            numerals.setdefault(reign.holder_id, []).append(reign.numeral)
    return labels(named(characters, numerals))
