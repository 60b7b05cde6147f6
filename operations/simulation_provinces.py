"""The automatic player keeps Blood Royale's province register (issue 33), as a table would: the GM
enters each house's provinces once (the seeded ones of rule F's list, and the rest named after the
country, as our copy of the rulebook has no map), adds the province a rule G title names when the map
lacks it, and places the Famine and Rebellion markers the turn's Events bring; each house's
Interphase then starts from the register (``interphase_entry``): its provinces, markers and Home
Provinces, the governed provinces from the titles held (so rule G's governors bring their 2 Crowns),
a Rebellion bought off by name. The capitals stay the board events' (``play_crowns``): the register
keeps no capital here, so a capital lost and retaken is recorded as before (one source either way).

``play_provinces`` is called from one place (``operations.play.blood_royale.play_law``),
before the Interphase."""

from __future__ import annotations

from typing import Any

from django.db.models import Sum

from campaign.models import Campaign
from campaign.permissions import Actor
from dynasties.models import Dynasty, DynastyKind, Posting, Province, Status, Title
from dynasties.services import provinces as register
from dynasties.services.play_registry import plays_interphase
from rules.dice import DiceSource, DiceSpec
from rules.errors import RuleError

PROVINCES = 6  # a house's provinces (as the simulated Interphase taxed before the register)
CHANCE_FAMINE = 8  # 1 in 8 turns a house's province is struck by Famine (Blood Royale 15)
CHANCE_REBELLION = 6  # 1 in 6 turns one rises in Rebellion


def _d(source: DiceSource, sides: int) -> int:
    return source.faces(DiceSpec(1, sides))[0]


def _try(play: Any) -> bool:
    try:
        play()
    except RuleError:
        return False
    return True


def _houses(campaign: Campaign) -> list[Dynasty]:
    return list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).exclude(crown="").order_by("seat", "pk"))


def play_provinces(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """The register's part of the turn: the map entered once, the titles' provinces added, and the
    Events' markers (none in the first turn: "no famine or rebellion markers yet", section 5)."""
    if not plays_interphase(campaign):
        return
    houses = _houses(campaign)
    for house in houses:
        held = Province.objects.filter(campaign=campaign, controlled_by=house).count()
        n = 0
        while held < PROVINCES:
            n += 1
            name = f"{house.crown} {n}"
            if Province.objects.filter(campaign=campaign, name=name).exists():
                continue
            register.province_record(campaign=campaign, name=name, country=house.crown, controlled_by=house.pk, by=by)
            held += 1
    if campaign.option("governing_provinces"):
        known = set(Province.objects.filter(campaign=campaign).values_list("name", flat=True))
        crowns = {h.crown: h for h in houses}
        for title in Title.objects.filter(campaign=campaign, holder__status=Status.ALIVE, provinces=[]).order_by("pk"):
            holder = crowns.get(title.crown)
            if title.province not in known and holder is not None:
                register.province_record(
                    campaign=campaign, name=title.province, country=title.crown, controlled_by=holder.pk, by=by
                )
                known.add(title.province)
    if campaign.current_year == campaign.start_year:
        return
    for house in houses:
        mine = list(Province.objects.filter(campaign=campaign, controlled_by=house).order_by("name"))
        if not mine:
            continue
        if _d(source, CHANCE_FAMINE) == 1:
            p = mine[_d(source, len(mine)) - 1]
            _try(lambda p=p: register.province_marker(campaign=campaign, province=p.name, marker="famine", by=by))
        if _d(source, CHANCE_REBELLION) == 1:
            p = mine[_d(source, len(mine)) - 1]
            _try(lambda p=p: register.province_marker(campaign=campaign, province=p.name, marker="rebellion", by=by))


def interphase_entry(campaign: Campaign, house: Dynasty, *, buy_off: bool) -> dict[str, Any]:
    """The house's Interphase entry from the register: its provinces, markers, Home Provinces and
    capital left to the register (``provinces`` None), the first Rebellion marker bought off when the
    house can afford it (``buy_off``)."""
    rebels = list(
        Province.objects.filter(campaign=campaign, controlled_by=house, rebellion_year__isnull=False)
        .order_by("name")
        .values_list("name", flat=True)
    )
    return {"provinces": None, "rebellions_bought_off": rebels[:1] if buy_off else 0}


def in_rebellion(campaign: Campaign, house: Dynasty) -> bool:
    return Province.objects.filter(campaign=campaign, controlled_by=house, rebellion_year__isnull=False).exists()


def governed_crowns(campaign: Campaign) -> int:
    """The Crowns rule G's governed provinces brought (the 2 extra, and a present governor's Charisma),
    for the bench's table."""
    total = Posting.objects.filter(campaign=campaign, kind="tax", reason__startswith="Governed province").aggregate(
        s=Sum("amount")
    )["s"]
    return int(total or 0)
