"""BloodLine titles (RULES.md B): given by a dynasty to a character over provinces it controls,
direct children first in decreasing land value, eldest first; inherited by descendants; lost by a
new monarch for the lands in his own country; income computed for the holder and the controller."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import require
from dynasties.models import Character, Dynasty, Reign, Status, Title, TitleHolding
from dynasties.rules import bloodline as bl
from dynasties.rules.errors import NotFound, RuleError
from dynasties.services.common import Chronicle, World, lock_campaign


def _value(title: Title) -> int:
    return sum(int(p.get("value", 0)) for p in title.provinces or [])


def _clean_provinces(provinces: Sequence[Mapping[str, Any]], giver: Dynasty) -> list[dict[str, Any]]:
    if not provinces:
        raise RuleError("A title must include at least one province the giving player controls.", code="invalid",
                        fields={"provinces": "required"})
    out: list[dict[str, Any]] = []
    for n, p in enumerate(provinces):
        name = str(p.get("name", "")).strip()
        value = p.get("value")
        if not name:
            raise RuleError(f"Province {n + 1} has no name.", code="invalid", fields={"provinces": "name"})
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
            raise RuleError(f"{name}: the land value must be a whole number from 0 to 20.", code="invalid",
                            fields={"provinces": "value"})
        out.append({"name": name, "value": value, "controller": giver.pk})
    names = [p["name"] for p in out]
    if len(set(names)) != len(names):
        raise RuleError("A province is listed twice.", code="invalid", fields={"provinces": "duplicate"})
    return out


@transaction.atomic
def bloodline_title_grant(
    *,
    campaign: Campaign | int,
    giver: Dynasty | int,
    character: Character | int,
    name: str,
    provinces: Sequence[Mapping[str, Any]],
    by: AbstractBaseUser | None = None,
) -> Title:
    """Give a title. The giving player must title all of his monarch's direct children before anyone
    outside that line, eldest first, in order of decreasing land value (RULES.md B, Titles)."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    if campaign.ruleset != bl.NAME:
        raise RuleError("These titles are BloodLine's; Blood Royale grants governorships (optional rule G).", code="ruleset")
    world = World(campaign)
    house = world.dynasties.get(giver.pk if isinstance(giver, Dynasty) else giver)
    if house is None:
        raise NotFound(f"There is no dynasty #{giver} in {campaign.name}.")
    pk = character.pk if isinstance(character, Character) else character
    who = world.characters.get(pk)
    if who is None or who.status != Status.ALIVE:
        raise RuleError("The title must go to a living character of this campaign.", code="invalid")
    if not name.strip():
        raise RuleError("Name the title (e.g. 'Duke of Anjou').", code="invalid", fields={"name": "required"})
    cleaned = _clean_provinces(provinces, house)
    held = {p["name"] for t in Title.objects.filter(campaign=campaign, holder__isnull=False) for p in t.provinces or []}
    taken = [p["name"] for p in cleaned if p["name"] in held]
    if taken:
        raise RuleError(f"{', '.join(taken)} already belong to another title.", code="invalid")
    value = sum(p["value"] for p in cleaned)
    reign = next((r for r in world.open_reigns() if r.crown == house.crown), None)
    if reign is not None:
        monarch = reign.holder_id
        children = sorted(
            (c for c in world.characters.values()
             if c.status == Status.ALIVE and monarch in (c.father_id, c.mother_id) and c.legitimate),
            key=lambda c: (c.birth_year, c.birth_order, c.pk),
        )
        titled = {t.holder_id: t for t in Title.objects.filter(campaign=campaign, granted_by=house, holder__isnull=False)}
        untitled = [c for c in children if c.pk not in titled]
        if untitled and who.pk != untitled[0].pk:
            first = untitled[0]
            if who in untitled:
                raise RuleError(
                    f"{first.display_name} is older and still untitled: direct children are titled eldest first "
                    "(BloodLine, Titles).", code="title_order",
                )
            raise RuleError(
                f"All the monarch's direct children must be titled before anyone outside the line; "
                f"{first.display_name} has no title yet (BloodLine, Titles).", code="title_order",
            )
        elder_values = [_value(titled[c.pk]) for c in children if c.pk in titled]
        if who in children and elder_values and value > min(elder_values):
            raise RuleError(
                f"This title is worth {value}, more than the {min(elder_values)} an elder child's title is worth: "
                "titles go in decreasing land value, the eldest the richest (BloodLine, Titles).",
                code="title_order",
            )
    title = Title.objects.create(
        campaign=campaign, name=name.strip()[:120], province=cleaned[0]["name"], crown=house.crown or "",
        holder=who, granted_year=campaign.current_year, granted_to=who, granted_by=house, provinces=cleaned,
    )
    TitleHolding.objects.create(title=title, holder=who, start_year=campaign.current_year, how=f"granted by {house.name}")
    income = title_income(title)
    chronicle = Chronicle(campaign)
    chronicle.add(
        "title",
        f"The house of {house.name} makes {who.display_name} {title.name} ({', '.join(p['name'] for p in cleaned)}): "
        f"{income.total} a turn, at least {income.controller_share} of it to the provinces' controller.",
        character=who.pk,
        dynasty=house.pk,
    )
    chronicle.flush()
    return title


@dataclass(frozen=True)
class TitleIncome:
    total: int  # the land values plus again the largest
    controller_share: int  # at least half, rounded up, to the country that controls the provinces


def title_income(title: Title) -> TitleIncome:
    values = [int(p.get("value", 0)) for p in title.provinces or []]
    total = bl.title_income(values)
    return TitleIncome(total, bl.controller_share(total))


def accession_loses_titles(world: World, reign: Reign, chronicle: Chronicle) -> list[Title]:
    """'When a Monarch assumes the throne he loses all in-country titles he presently owns', keeping
    the lands outside his realm."""
    home = world.crown_dynasty(reign.crown)
    lost: list[Title] = []
    for title in Title.objects.filter(campaign=world.campaign, holder_id=reign.holder_id).exclude(provinces=[]):
        inside = [p for p in title.provinces if home is not None and p.get("controller") == home.pk]
        if not inside:
            continue
        outside = [p for p in title.provinces if p not in inside]
        holder = world.characters[reign.holder_id]
        if outside:
            title.provinces = outside
            title.province = outside[0]["name"]
            title.save(update_fields=["provinces", "province"])
            text = f"keeps only {', '.join(p['name'] for p in outside)} outside his realm"
        else:
            title.holder = None
            title.save(update_fields=["holder"])
            TitleHolding.objects.filter(title=title, end_year__isnull=True).update(end_year=world.year)
            text = "gives it up"
            lost.append(title)
        chronicle.add("title", f"{holder.display_name}, now monarch of {reign.crown}, loses {title.name}: {text}.",
                      character=holder.pk)
    return lost
