"""The province register (Blood Royale): each province's original country, who controls it now, its
capital and Resource Area, and the Famine and Rebellion markers on it, kept between turns so that
the Interphase starts from it (``register_entry``) instead of the GM retyping the lists.

Every write is one service here (the GM's, but a capital nominated, which is the crown player's
decision); the law is ``rules.provinces``. The register is public to every member: the map is on
the table (``campaign.permissions.SEES``).

- Set-up (``register_seed``): a Blood Royale campaign gets at its creation the provinces the
  rulebook names, the ten of optional rule F (neutral with rule F, else of their country's house);
  the GM adds the rest of the map (``province_record``): our copy of the rulebook lacks the map and
  the Random Provinces table (docs/rulings.md).
- A province changing hands (``province_transfer``): a neutral province of his own basic country
  becomes a Home Province (rule F, derived); the original capital taken costs its ruler Charisma -1
  until it is retaken (the ``capital_lost`` modifier of ``dynasties.services.crowns``: one source);
  a new capital is nominated among the controlled Home Provinces (``capital_nominate``); with none
  left, the house's other provinces return to their original owners (section 18), recorded.
- Markers (``province_marker``, ``rebellion_put_down``): placed by the turn's Events; the Interphase
  removes the Famine markers after taxes and the Rebellions bought off (``interphase_markers``).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Crown, Dynasty, Province, ResourceKind
from dynasties.services.crowns import capital_lost, lose_capital, retake_capital
from dynasties.services.play_registry import plays_interphase
from rules import provinces as rules
from rules.errors import NotFound, RuleError

FAMINE, REBELLION = "famine", "rebellion"
MARKERS = (FAMINE, REBELLION)
RULE_F = "neutral_provinces"
RULE_I = "changing_capitals"


def _check_ruleset(campaign: Campaign) -> None:
    if not plays_interphase(campaign):
        raise RuleError(
            f"The province register is Blood Royale's map; {campaign.name} plays {campaign.get_ruleset_display()}.",
            code="wrong_ruleset",
        )


def _province(campaign: Campaign, name: str, field: str = "province") -> Province:
    found = Province.objects.filter(campaign=campaign, name__iexact=name.strip()).first()
    if found is None:
        raise NotFound(
            f"There is no province called {name.strip()!r} in the register of {campaign.name}: add it first (the "
            "Provinces page).",
            fields={field: "unknown"},
        )
    return found


def countries_of(campaign: Campaign, house: Dynasty | int | None) -> set[str]:
    """The countries whose provinces are a house's Home Provinces: its own and those it controls."""
    if house is None:
        return set()
    pk = house.pk if isinstance(house, Dynasty) else house
    own = house.crown if isinstance(house, Dynasty) else Dynasty.objects.filter(pk=pk).values_list("crown", flat=True).first()
    named = set(Crown.objects.filter(campaign=campaign, controlled_by_id=pk).values_list("name", flat=True))
    return named | ({own} if own else set())


def _country_house(campaign: Campaign, country: str) -> int | None:
    """The house whose player controls the country now (None: no player)."""
    if not country:
        return None
    crown = Crown.objects.filter(campaign=campaign, name=country).values_list("controlled_by_id", flat=True).first()
    if crown is not None:
        return crown
    return Dynasty.objects.filter(campaign=campaign, crown=country).values_list("pk", flat=True).first()


def _name(house: Dynasty | None) -> str:
    return f"the house of {house.name}" if house is not None else "no player"


# --- set-up ---------------------------------------------------------------------------------------


def register_seed(campaign: Campaign) -> list[Province]:
    """The provinces the rulebook names, at the campaign's creation (not a transaction: the creation's).
    With rule F the ten Neutral Provinces are neutral; without it each is its country's."""
    if not plays_interphase(campaign):
        return []
    neutral = campaign.option(RULE_F)
    rows = []
    for country, names in rules.NEUTRAL_PROVINCES.items():
        house = None if neutral else _country_house(campaign, country)
        for name in names:
            rows.append(Province(campaign=campaign, name=name, country=country, controlled_by_id=house, neutral=neutral))
    return Province.objects.bulk_create(rows)


def _placement(campaign: Campaign, changed: Province) -> None:
    """Rule I's limits on the whole map with ``changed`` as it would be."""
    placed = [
        rules.Placed(p.name, p.country, p.resource, p.original_capital)
        for p in Province.objects.filter(campaign=campaign).exclude(pk=changed.pk)
    ]
    placed.append(rules.Placed(changed.name, changed.country, changed.resource, changed.original_capital))
    problems = rules.placement_problems(placed)
    if problems:
        raise RuleError(
            f"{rules.RULE_I}: " + " ".join(problems), code="placement", fields={"resource": "placement", "capital": "placement"}
        )


def _check_record(
    campaign: Campaign, name: str, country: str, resource: str, *, neutral: bool, controlled: bool, capital: bool
) -> None:
    """A register entry's own faults: its name, an unknown country or Resource Area, a neutral
    province without rule F or with a controller, a capital of no country."""
    if not name or len(name) > 80:
        raise RuleError("Give the province's name (1 to 80 characters).", code="invalid", fields={"name": "invalid"})
    if country and country not in rules.NEUTRAL_PROVINCES and not Crown.objects.filter(campaign=campaign, name=country).exists():
        raise RuleError(f"{country} is not a country of {campaign.name}.", code="invalid", fields={"country": "unknown"})
    if resource not in ("", *rules.RESOURCES):
        raise RuleError(
            f"{resource!r} is not a Resource Area: one of {', '.join(rules.RESOURCES)}, or none.",
            code="invalid",
            fields={"resource": "invalid"},
        )
    if neutral and not campaign.option(RULE_F):
        raise RuleError(
            "Neutral Provinces are optional rule F, which this campaign does not use.",
            code="option_off",
            fields={"neutral": "option_off"},
        )
    if neutral and controlled:
        raise RuleError("A Neutral Province is controlled by no player.", code="invalid", fields={"neutral": "controlled"})
    if capital and not country:
        raise RuleError("A capital is a country's: give its country.", code="invalid", fields={"capital": "no_country"})


def _moves(
    campaign: Campaign, province: Province, *, new: bool, country: str, resource: str, capital: bool
) -> tuple[list[str], Province | None]:
    """What the entry would move of a placement already made (a Resource Area, a capital; one more
    area than the box holds), and the province that is its country's capital now."""
    moving: list[str] = []
    if not new and province.resource and resource != province.resource:
        moving.append(f"the {rules.RESOURCE_LABELS[province.resource].lower()} Resource Area of {province.name}")
    if resource and province.resource != resource:
        same = Province.objects.filter(campaign=campaign, resource=resource).exclude(pk=province.pk or 0).count()
        kind = "basic" if resource in rules.BASIC else resource
        placed = (
            Province.objects.filter(campaign=campaign, resource__in=rules.BASIC).exclude(pk=province.pk or 0).count()
            if kind == "basic"
            else same
        )
        if placed >= rules.MAX_AREAS[kind]:
            moving.append(f"a {rules.RESOURCE_LABELS[resource].lower()} Resource Area (all {rules.MAX_AREAS[kind]} are placed)")
    elsewhere = None
    if capital and country:
        elsewhere = (
            Province.objects.filter(campaign=campaign, country=country, original_capital=True)
            .exclude(pk=province.pk or 0)
            .first()
        )
        if elsewhere is not None:
            moving.append(f"the capital of {country} (now {elsewhere.name})")
    if not new and province.original_capital and not capital:
        moving.append(f"the capital of {province.country} away from {province.name}")
    return moving, elsewhere


def _refuse_moving(campaign: Campaign, moving: list[str], *, rule_i: bool) -> None:
    """Rule I moves a placement at set-up only; without it the original placement stands."""
    set_up = campaign.current_year == campaign.start_year
    if moving and not (rule_i and set_up):
        why = (
            f"{rules.RULE_I} moves them at set-up only: {campaign.name} is past its first turn"
            if rule_i
            else f"without {rules.RULE_I} the original placement stands"
        )
        raise RuleError(
            f"Moving {' and '.join(moving)} is refused: {why}.",
            code="placement_stands",
            fields={"resource" if "Resource" in moving[0] else "capital": "placement_stands"},
        )


@transaction.atomic
def province_record(
    *,
    campaign: Campaign | int,
    name: str,
    country: str = "",
    controlled_by: int | None = None,
    neutral: bool = False,
    resource: str = "",
    capital: bool = False,
    by: Actor,
) -> Province:
    """Add a province to the register, or correct one (found by its name): its country, its Resource
    Area and whether it is its country's original capital. A new province is its country's house's
    unless ``controlled_by`` says otherwise, or ``neutral`` (rule F); an existing one changes hands
    only by ``province_transfer``. Once placed, a Resource Area or a capital moves only under rule I
    in the first turn, its limits checked; without rule I the original placement stands."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    _check_ruleset(campaign)
    name, country = " ".join(name.split()), country.strip()
    _check_record(campaign, name, country, resource, neutral=neutral, controlled=controlled_by is not None, capital=capital)
    province = Province.objects.filter(campaign=campaign, name__iexact=name).first()
    new = province is None
    house: Dynasty | None = None
    if controlled_by is not None:
        house = Dynasty.objects.filter(campaign=campaign, pk=controlled_by).first()
        if house is None:
            raise NotFound(f"There is no house #{controlled_by} in {campaign.name}.", fields={"controlled_by": "unknown"})
    if province is None:
        owner = house.pk if house is not None else (None if neutral else _country_house(campaign, country))
        province = Province(campaign=campaign, name=name, controlled_by_id=owner, neutral=neutral)
    elif (house is not None and house.pk != province.controlled_by_id) or neutral != province.neutral:
        raise RuleError(
            f"{province.name} is in the register: it changes hands by 'A province changes hands' (a conquest, a "
            "treaty), not by correcting it.",
            code="use_transfer",
            fields={"controlled_by": "use_transfer"},
        )
    rule_i = campaign.option(RULE_I)
    moving, elsewhere = _moves(campaign, province, new=new, country=country, resource=resource, capital=capital)
    _refuse_moving(campaign, moving, rule_i=rule_i)
    province.country = country
    province.resource = resource or ResourceKind.NONE
    province.original_capital = capital
    if capital and province.capital_of != country:
        province.capital_of = country if province.controlled_by_id == _country_house(campaign, country) else ""
        province.castle = bool(province.capital_of)
    if not capital and province.capital_of == province.country and not new:
        province.capital_of, province.castle = "", False
    if rule_i and (moving or resource or capital):
        _placement(campaign, province)
    if elsewhere is not None:
        elsewhere.original_capital, elsewhere.castle = False, False
        if elsewhere.capital_of == country:
            elsewhere.capital_of = ""
        elsewhere.save()
    province.save()
    chronicle = Chronicle(campaign)
    said = [f"of {country}" if country else "of no country", _name(province.controlled_by)]
    if province.neutral:
        said[1] = "neutral (rule F)"
    if resource:
        said.append(f"a {rules.RESOURCE_LABELS[resource].lower()} Resource Area")
    if capital:
        said.append("its country's capital")
    chronicle.add(
        "province",
        f"The register {'adds' if new else 'corrects'} {province.name}: {', '.join(said)}.",
        province=province.name,
    )
    chronicle.flush()
    return province


# --- changing hands, capitals -------------------------------------------------------------------------


def _return_all(campaign: Campaign, house: Dynasty, chronicle: Chronicle) -> list[str]:
    """Section 18: a house with no controlled Home Province left returns all its other provinces to
    their original owners (a neutral one back to neutral under rule F)."""
    back: list[str] = []
    for p in Province.objects.filter(campaign=campaign, controlled_by=house).order_by("name"):
        owner = _country_house(campaign, p.country)
        p.controlled_by_id = owner if owner != house.pk else None
        p.neutral = p.controlled_by_id is None and campaign.option(RULE_F)
        p.save(update_fields=["controlled_by", "neutral"])
        back.append(p.name)
    chronicle.add(
        "province",
        f"The house of {house.name} has no controlled Home Province left in which to locate a capital: "
        + (f"{', '.join(back)} return to their original owners, and " if back else "")
        + f"it must continue as a Baronial Dynasty ({rules.RULE_18_NONE_LEFT}).",
        dynasty=house.pk,
    )
    return back


@transaction.atomic
def province_transfer(*, campaign: Campaign | int, province: str, to: int | None = None, note: str = "", by: Actor) -> Province:
    """A province changes hands on the board (a conquest, a treaty, a Neutral conquest): ``to`` the
    house that now controls it, or None for a Neutral Province (rule F). The original capital taken
    costs its ruler Charisma -1 until it is retaken, and its castle is destroyed for good; retaken,
    the Charisma comes back and the Capital Marker returns to it. A nominated capital taken must be
    nominated again; with no controlled Home Province left, section 18's consequence is recorded."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the board decided it
    _check_ruleset(campaign)
    row = _province(campaign, province)
    house = None
    if to is not None:
        house = Dynasty.objects.filter(campaign=campaign, pk=to).first()
        if house is None:
            raise NotFound(f"There is no house #{to} in {campaign.name}.", fields={"to": "unknown"})
    elif not campaign.option(RULE_F):
        raise RuleError(
            "A province passes to a house: only under optional rule F does a province become Neutral.",
            code="option_off",
            fields={"to": "required"},
        )
    if to == row.controlled_by_id and (to is not None or row.neutral):
        raise RuleError(
            f"{row.name} is already {_name(house) if house else 'neutral'}'s.", code="unchanged", fields={"to": "same"}
        )
    before = row.controlled_by
    was_neutral = row.neutral
    row.controlled_by, row.neutral = house, house is None and campaign.option(RULE_F)
    chronicle = Chronicle(campaign)
    note = note.strip()
    old_words = "the neutrals" if was_neutral else _name(before)
    words = f"{row.name} passes from {old_words} to {_name(house) if house else 'the neutrals'}"
    if note:
        words += f" ({note})"
    home = house is not None and rules.is_home(row.country, countries_of(campaign, house))
    if was_neutral and home:
        words += f": a Home Province of {row.country} again ({rules.RULE_F})"
    chronicle.add("province", words + ".", province=row.name)
    lost_to_nobody: Dynasty | None = None
    country_house = _country_house(campaign, row.country)
    if row.original_capital and row.country and before is not None and before.pk == country_house and to != country_house:
        # the original capital taken: Charisma -1 (one source: the crown's capital_lost modifier)
        row.castle = False
        row.capital_of = ""
        if capital_lost(campaign, row.country) is None:
            try:
                lose_capital(campaign, row.country, note or f"{row.name} taken", chronicle)
            except RuleError as exc:
                if exc.code != "no_reign":
                    raise
                chronicle.add("capital", f"{row.country} loses its capital, {row.name}: nobody reigns to lose Charisma.")
        lost_to_nobody = before
    elif row.capital_of and before is not None and to != before.pk:
        # a nominated capital taken: the Marker must be placed again (the Charisma is already lost)
        crown = row.capital_of
        row.capital_of = ""
        chronicle.add(
            "capital", f"The new capital of {crown}, {row.name}, is taken: the Capital Marker must be placed again.", crown=crown
        )
        lost_to_nobody = before
    elif row.original_capital and row.country and to is not None and to == country_house:
        # the original capital retaken: the Marker removed from the new capital, the Charisma back
        Province.objects.filter(campaign=campaign, capital_of=row.country).exclude(pk=row.pk).update(capital_of="")
        row.capital_of = row.country
        if capital_lost(campaign, row.country) is not None:
            retake_capital(campaign, row.country, note or f"{row.name} retaken", chronicle)
    row.save()
    if lost_to_nobody is not None:
        left = rules.nominable(
            {
                p.name: (p.country, p.controlled_by_id)
                for p in Province.objects.filter(campaign=campaign, controlled_by=lost_to_nobody)
            },
            lost_to_nobody.pk,
            countries_of(campaign, lost_to_nobody),
        )
        if not left:
            _return_all(campaign, lost_to_nobody, chronicle)
    chronicle.flush()
    return row


@transaction.atomic
def capital_nominate(*, campaign: Campaign | int, crown: str, province: str, by: Actor) -> Province:
    """A crown whose capital is taken places its Capital Marker in another controlled Home Province
    (section 18); the new capital is no castle. The crown's player decides (or the GM)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    record = Crown.objects.filter(campaign=campaign, name=crown).first()
    if record is None:
        raise NotFound(f"There is no crown called {crown!r} in {campaign.name}.", fields={"crown": "unknown"})
    require(by, campaign, "crown", player=record.controlled_by_id, crown=crown)
    _check_ruleset(campaign)
    row = _province(campaign, province)
    original = Province.objects.filter(campaign=campaign, country=crown, original_capital=True).first()
    if original is not None and original.capital_of == crown:
        raise RuleError(
            f"The capital of {crown}, {original.name}, stands: a new capital is nominated only when it is taken "
            f"({rules.RULE_18_NOMINATE}).",
            code="capital_held",
            fields={"crown": "held"},
        )
    house = record.controlled_by
    if house is None or row.controlled_by_id != house.pk or not rules.is_home(row.country, countries_of(campaign, house)):
        raise RuleError(
            f"{row.name} is not a Home Province the house controlling {crown} holds: {rules.RULE_18_NOMINATE}.",
            code="not_home",
            fields={"province": "not_home"},
        )
    if row.original_capital and row.country == crown:
        raise RuleError(
            f"{row.name} is the original capital: it is retaken, not nominated.", code="invalid", fields={"province": "original"}
        )
    Province.objects.filter(campaign=campaign, capital_of=crown).exclude(pk=row.pk).update(capital_of="")
    row.capital_of = crown
    row.castle = False  # "This new Capital would not be considered to be a castle."
    row.save(update_fields=["capital_of", "castle"])
    chronicle = Chronicle(campaign)
    chronicle.add("capital", f"{crown} places its Capital Marker in {row.name} (no castle).", crown=crown, province=row.name)
    chronicle.flush()
    return row


# --- markers -----------------------------------------------------------------------------------------


@transaction.atomic
def province_marker(*, campaign: Campaign | int, province: str, marker: str, by: Actor) -> Province:
    """A Famine or Rebellion marker placed on a province by the turn's Events (section 15). A
    province holds one marker of each kind."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    _check_ruleset(campaign)
    if marker not in MARKERS:
        raise RuleError(f"{marker!r} is not a marker: famine or rebellion.", code="invalid", fields={"marker": "invalid"})
    row = _province(campaign, province)
    field = f"{marker}_year"
    if getattr(row, field) is not None:
        raise RuleError(
            f"{row.name} already has a {marker.capitalize()} marker (placed {getattr(row, field)}).",
            code="marked",
            fields={"province": "marked"},
        )
    setattr(row, field, campaign.current_year)
    row.save(update_fields=[field])
    chronicle = Chronicle(campaign)
    effect = (
        "it pays no tax and raises no Resource Item in the next Interphase; the marker is removed after taxes"
        if marker == FAMINE
        else "it pays no tax until the marker is removed (bought off for 15 Crowns in the Interphase, or put down)"
    )
    chronicle.add("province", f"A {marker.capitalize()} marker on {row.name}: {effect} (Blood Royale 15).", province=row.name)
    chronicle.flush()
    return row


@transaction.atomic
def rebellion_put_down(*, campaign: Campaign | int, province: str, note: str = "", by: Actor) -> Province:
    """'A rebellion is automatically put down, and the marker removed, if 4 Army counters are moved into
    the Province and remain there at the end of a Movement turn' (section 15): the GM removes it."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    _check_ruleset(campaign)
    row = _province(campaign, province)
    if row.rebellion_year is None:
        raise RuleError(f"{row.name} has no Rebellion marker.", code="unmarked", fields={"province": "unmarked"})
    row.rebellion_year = None
    row.save(update_fields=["rebellion_year"])
    chronicle = Chronicle(campaign)
    note = note.strip()
    chronicle.add("province", f"The rebellion in {row.name} is put down{f' ({note})' if note else ''}.", province=row.name)
    chronicle.flush()
    return row


# --- the Interphase ------------------------------------------------------------------------------------


def register_entry(campaign: Campaign, house: Dynasty) -> dict[str, Any] | None:
    """What the house's Interphase starts from (None: the register holds none of its provinces):
    the provinces it controls, those with Famine or Rebellion markers, its Home Provinces and its
    capital, by name. A house whose own country is held by another player (a Dynastic Union: "the
    player controlling the 'annexed' country has complete control over it (and can therefore tax
    ...)") counts none of its provinces, its lord counts them: the register keeps the house that
    holds each province, the union decides who taxes it, and its end gives them back. Three queries."""
    lords = dict(Crown.objects.filter(campaign=campaign, controlled_by__isnull=False).values_list("name", "controlled_by_id"))
    own = dict(Dynasty.objects.filter(campaign=campaign).exclude(crown="").values_list("pk", "crown"))

    def taxed_by(pk: int) -> int:
        lord = lords.get(own.get(pk, ""))
        return pk if lord is None else lord

    rows = [
        p
        for p in Province.objects.filter(campaign=campaign, controlled_by__isnull=False).order_by("name")
        if p.controlled_by_id is not None and taxed_by(p.controlled_by_id) == house.pk
    ]
    if not rows:
        return None
    mine = {name for name, lord in lords.items() if lord == house.pk} | ({house.crown} if house.crown else set())
    capital = next((p.name for p in rows if p.capital_of and p.capital_of in mine), None)
    return {
        "provinces": [p.name for p in rows],
        "famine": [p.name for p in rows if p.famine_year is not None],
        "rebellion": [p.name for p in rows if p.rebellion_year is not None],
        "home_provinces": [p.name for p in rows if rules.is_home(p.country, mine)],
        "capital": capital,
        "crowns": sorted(mine),  # the countries it taxes (rule G's governed provinces are theirs)
    }


def interphase_markers(
    campaign: Campaign, house: Dynasty, *, famine: object, bought_off: object, chronicle: Chronicle
) -> list[str]:
    """After a house's Interphase run (inside its transaction): 'Famine markers are removed after Taxes
    have been raised and Resource Items placed'; the Rebellion markers bought off are removed. Only
    names the register holds for the house's provinces are touched (a number entered touches none)."""

    def names(value: object) -> set[str]:
        return {str(n).strip().casefold() for n in value} if isinstance(value, list | tuple) else set()

    starved, paid = names(famine), names(bought_off)
    if not starved and not paid:
        return []
    removed: list[str] = []
    for p in Province.objects.filter(campaign=campaign, controlled_by=house):
        fields = []
        if p.famine_year is not None and p.name.casefold() in starved:
            p.famine_year = None
            fields.append("famine_year")
            removed.append(f"the Famine marker of {p.name}")
        if p.rebellion_year is not None and p.name.casefold() in paid:
            p.rebellion_year = None
            fields.append("rebellion_year")
            removed.append(f"the Rebellion marker of {p.name} (bought off)")
        if fields:
            p.save(update_fields=fields)
    if removed:
        chronicle.add(
            "province", f"The Interphase of the house of {house.name} removes {', '.join(sorted(removed))}.", dynasty=house.pk
        )
    return removed
