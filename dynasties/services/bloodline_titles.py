"""BloodLine titles (RULES.md B): given by a dynasty to a character over provinces it controls,
direct children first in decreasing land value, eldest first; inherited by descendants; lost by a
new monarch for the lands in his own country; income computed for the holder and the controller."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from campaign.models import Campaign, ChronicleEntry, Step
from campaign.permissions import Actor, require
from campaign.steps import STEP_LABELS, Chronicle, Seen, lock_campaign
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Posting, PostingKind, Reign, Status, Title, TitleHolding
from dynasties.services.bloodline import stability
from dynasties.services.common import World
from dynasties.services.play_registry import play_of, registered_plays
from dynasties.services.play_succession import TitleTerms
from dynasties.treasury import currency, post
from rules.errors import NotFound, RuleError, StepOrderError
from rules.succession import FamilyIndex, line_of

INCOME_STEP = Step.INTERPHASE
"""BloodLine pays a title's income with the turn's income, after the Dynastic Sequence (ruling)."""


def _bloodline_titles(campaign: Campaign) -> bool:
    """BloodLine's titles are played here: given by the player, paying their income, passing down the
    holder's own line (the succession play's ``titles_descend``)."""
    return play_of(campaign).succession.titles_descend()


def _value(title: Title) -> int:
    return sum(int(p.get("value", 0)) for p in title.provinces or [])


def _clean_provinces(provinces: Sequence[Mapping[str, Any]], giver: Dynasty) -> list[dict[str, Any]]:
    if not provinces:
        raise RuleError(
            "A title must include at least one province the giving player controls.",
            code="invalid",
            fields={"provinces": "required"},
        )
    out: list[dict[str, Any]] = []
    for n, p in enumerate(provinces):
        name = str(p.get("name", "")).strip()
        value = p.get("value")
        if not name:
            raise RuleError(f"Province {n + 1} has no name.", code="invalid", fields={"provinces": "name"})
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
            raise RuleError(
                f"{name}: the land value must be a whole number from 0 to 20.", code="invalid", fields={"provinces": "value"}
            )
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
    by: Actor,
) -> Title:
    """Give a title. The giving player must title all of his monarch's direct children before anyone
    outside that line, eldest first, in order of decreasing land value (RULES.md B, Titles)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer gives nothing; whose title, below
    if not _bloodline_titles(campaign):
        raise RuleError("These titles are BloodLine's; Blood Royale grants governorships (optional rule G).", code="ruleset")
    world = World(campaign)
    house = world.dynasties.get(giver.pk if isinstance(giver, Dynasty) else giver)
    if house is None:
        raise NotFound(f"There is no dynasty #{giver} in {campaign.name}.")
    require(by, campaign, "house", dynasty=house.pk, what="a player gives titles over his own provinces (BloodLine, Titles)")
    if house.kind != DynastyKind.PLAYER:
        raise RuleError(
            f"The house of {house.name} is not a player's: 'Titles are given by a Player to any character he chooses' "
            "(BloodLine, Titles).",
            code="not_a_player",
            fields={"giver": "not_a_player"},
        )
    pk = character.pk if isinstance(character, Character) else character
    who = world.characters.get(pk)
    if who is None or who.status != Status.ALIVE:
        raise RuleError(
            "The title must go to a living character of this campaign.", code="invalid", fields={"character": "not_alive"}
        )
    if not name.strip():
        raise RuleError("Name the title (e.g. 'Duke of Anjou').", code="invalid", fields={"name": "required"})
    cleaned = _clean_provinces(provinces, house)
    held = {p["name"] for t in Title.objects.filter(campaign=campaign, holder__isnull=False) for p in t.provinces or []}
    taken = [p["name"] for p in cleaned if p["name"] in held]
    if taken:
        raise RuleError(
            f"{', '.join(taken)} already belong to another title: a province is in one title (BloodLine, Titles).",
            code="invalid",
            fields={"provinces": "taken"},
        )
    value = sum(p["value"] for p in cleaned)
    reign = next((r for r in world.open_reigns() if r.crown == house.crown), None)
    if reign is not None:
        monarch = reign.holder_id
        children = sorted(
            (
                c
                for c in world.characters.values()
                if c.status == Status.ALIVE and monarch in (c.father_id, c.mother_id) and c.legitimate
            ),
            key=lambda c: (c.birth_year, c.birth_order, c.pk),
        )
        titled = {t.holder_id: t for t in Title.objects.filter(campaign=campaign, granted_by=house, holder__isnull=False)}
        untitled = [c for c in children if c.pk not in titled]
        if untitled and who.pk != untitled[0].pk:
            first = untitled[0]
            if who in untitled:
                raise RuleError(
                    f"{first.display_name} is older and still untitled: direct children are titled eldest first "
                    "(BloodLine, Titles).",
                    code="title_order",
                    fields={"character": "title_order"},
                )
            raise RuleError(
                f"All the monarch's direct children must be titled before anyone outside the line; "
                f"{first.display_name} has no title yet (BloodLine, Titles).",
                code="title_order",
                fields={"character": "title_order"},
            )
        elder_values = [_value(titled[c.pk]) for c in children if c.pk in titled]
        if who in children and elder_values and value > min(elder_values):
            raise RuleError(
                f"This title is worth {value}, more than the {min(elder_values)} an elder child's title is worth: "
                "titles go in decreasing land value, the eldest the richest (BloodLine, Titles).",
                code="title_order",
                fields={"provinces": "title_order"},
            )
    fields = {
        "name": name.strip()[:120],
        "crown": house.crown or "",
        "holder": who,
        "granted_year": campaign.current_year,
        "granted_to": who,
        "granted_by": house,
        "provinces": cleaned,
    }
    lapsed = Title.objects.filter(campaign=campaign, province=cleaned[0]["name"], holder__isnull=True).first()
    if lapsed is not None:  # a title taken back or given up: its record (and its holders' history) is given anew
        for field, value in fields.items():
            setattr(lapsed, field, value)
        lapsed.save(update_fields=list(fields))
        title = lapsed
    else:
        title = Title.objects.create(campaign=campaign, province=cleaned[0]["name"], **fields)
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


def _income_terms() -> TitleTerms:
    """The title terms of the play whose titles pass down the holder's line and pay an income
    (BloodLine's): what ``title_income`` reads of a title however its campaign is held."""
    return next(p.succession.title_terms() for p in registered_plays().values() if p.succession.titles_descend())


def title_income(title: Title) -> TitleIncome:
    values = [int(p.get("value", 0)) for p in title.provinces or []]
    terms = _income_terms()
    total = terms.income(values)
    return TitleIncome(total, terms.controller_share(total))


INCOME_KIND = "title_income"
"""The chronicle line of a title's income paid (its readers: the houses paid), one per title and turn."""


def _income_paid(campaign: Campaign, title: Title) -> bool:
    return ChronicleEntry.objects.filter(
        campaign=campaign, kind=INCOME_KIND, year=campaign.current_year, data__title=title.pk
    ).exists()


def titles_with_income_due(campaign: Campaign, houses: Collection[int] | None = None) -> list[Title]:
    """BloodLine: the titles whose income this turn is still to be paid, held by a living character that
    one of ``houses`` controls (None: any); oldest first. Empty outside the step income is paid in."""
    if not _bloodline_titles(campaign) or campaign.step != INCOME_STEP:
        return []
    held = (
        Title.objects.filter(campaign=campaign, holder__status=Status.ALIVE, holder__controlled_by__isnull=False)
        .exclude(provinces=[])
        .select_related("holder", "holder__controlled_by")
        .order_by("granted_year", "pk")
    )
    if houses is not None:
        held = held.filter(holder__controlled_by__in=list(houses))
    paid = set(
        ChronicleEntry.objects.filter(campaign=campaign, kind=INCOME_KIND, year=campaign.current_year).values_list(
            "data__title", flat=True
        )
    )
    return [t for t in held if t.pk not in paid]


@transaction.atomic
def title_income_pay(*, campaign: Campaign | int, title: Title | int, given: int | None = None, by: Actor) -> list[Posting]:
    """BloodLine: a title's income this turn, paid by the Treasury: "character with a title provinces generates
    income equal to the land values of those provinces, plus again the value of the largest-valued province ...
    Controller of a titled character determines who gets the income, but at least half (rounded up) must be given
    to the country who actually controls the province." Once a turn, after the Dynastic Sequence (the step of the
    turn's income); recorded by the player controlling the holder, or the GM. ``given``: what goes to the one other
    house controlling the provinces (default: the least, half rounded up). Returns the postings."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer pays nothing; whose title, below
    if not _bloodline_titles(campaign):
        raise RuleError(
            "A title's income is BloodLine's; Blood Royale's governed provinces pay in the Interphase.", code="ruleset"
        )
    found = _title_of(campaign, title)
    holder = Character.objects.select_related("controlled_by").filter(pk=found.holder_id or 0).first()
    if holder is None or holder.status != Status.ALIVE or holder.controlled_by is None:
        raise RuleError(f"{found.name} has no living holder: nobody draws its income (BloodLine, Titles).", code="no_holder")
    house = holder.controlled_by
    require(
        by,
        campaign,
        "house",
        dynasty=house.pk,
        what="the player controlling a titled character determines who gets its income (BloodLine, Titles)",
    )
    if campaign.step != INCOME_STEP:
        raise StepOrderError(
            f"A title's income is paid with the turn's income, after the Dynastic Sequence; {campaign.current_year} is "
            f"at {STEP_LABELS[campaign.step]} (BloodLine, Titles).",
            code="not_income_step",
        )
    if _income_paid(campaign, found):
        raise RuleError(f"{found.name} has already drawn its income of {campaign.current_year}.", code="already_paid")
    provinces = [(int(p.get("value", 0)), int(p.get("controller") or found.granted_by_id or house.pk)) for p in found.provinces]
    split = play_of(campaign).succession.title_terms().income_split(provinces, house.pk, given)
    houses = Dynasty.objects.in_bulk(list(split))
    money = currency(campaign)
    postings: list[Posting] = []
    for pk, amount in split.items():
        why = "its holder's house" if pk == house.pk else "the provinces' controller"
        posting = post(
            campaign,
            payer=None,
            payee=houses[pk],
            amount=amount,
            kind=PostingKind.TITLE_INCOME,
            reason=f"Income of {found.name}, {campaign.current_year} ({why})",
            by=by,
            character=holder,
        )
        if posting is not None:
            postings.append(posting)
    chronicle = Chronicle(campaign)
    parts = "; ".join(f"{amount} {money} to {houses[pk].name}" for pk, amount in split.items()) or "nothing"
    chronicle.add(
        INCOME_KIND,
        f"The income of {found.name} ({holder.display_name}), {campaign.current_year}: {sum(split.values())} {money} "
        f"from the Treasury: {parts} (at least half, rounded up, to the provinces' controller; BloodLine, Titles).",
        readers=list(split),
        title=found.pk,
        character=holder.pk,
        dynasty=house.pk,
        postings=[p.pk for p in postings],
    )
    chronicle.flush()
    return postings


def accession_loses_titles(world: World, reign: Reign, chronicle: Chronicle) -> list[Title]:
    """'When a Monarch assumes the throne he loses all in-country titles he presently owns', keeping
    the lands outside his realm. His realm is his country's: the provinces its own house controls
    (the crown's home house; a King from another house does not make that house's lands his realm)."""
    record = world.crowns.get(reign.crown)
    home = world.dynasties.get(record.home_dynasty_id) if record is not None and record.home_dynasty_id else None
    home = home or world.crown_dynasty(reign.crown)
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
        chronicle.add(
            "title", f"{holder.display_name}, now monarch of {reign.crown}, loses {title.name}: {text}.", character=holder.pk
        )
    return lost


# --- a holder's death: the title taken back or bequeathed (BloodLine, Titles) ----------------------


def _title_of(campaign: Campaign, title: Title | int, *, checked: bool = True) -> Title:
    """The campaign's title; ``checked``: refused unless it is a BloodLine title."""
    pk = title.pk if isinstance(title, Title) else title
    found = Title.objects.select_for_update().filter(campaign=campaign, pk=pk).first()
    if found is None:
        raise NotFound(f"There is no title #{pk} in {campaign.name}.")
    if checked:
        _bloodline_title(campaign, found)
    return found


def _bloodline_title(campaign: Campaign, found: Title) -> None:
    if not _bloodline_titles(campaign) or not found.provinces:
        raise RuleError(f"{found.name} is not a BloodLine title (RULES.md B, Titles).", code="ruleset")


def _death_this_turn(world: World, title: Title) -> tuple[Character, TitleHolding | None]:
    """The holder who died this turn and the holding that passed to the first descendant (None if the
    title lapsed). Refused when the title did not change hands at a death this turn."""
    ended = (
        TitleHolding.objects.filter(title=title, end_year=world.year)
        .exclude(holder_id=title.holder_id or 0)
        .order_by("-start_year", "-pk")
        .first()
    )
    late = world.characters.get(ended.holder_id) if ended is not None else None
    if late is None or late.status != Status.DEAD or late.death_year != world.year:
        raise RuleError(
            f"The holder of {title.name} did not die this turn: 'Once a title is given it cannot be taken away, "
            "except by the death of the titled character' (BloodLine, Titles).",
            code="no_death",
        )
    current = TitleHolding.objects.filter(title=title, end_year__isnull=True).first()
    if current is not None and current.start_year != world.year:
        raise RuleError(f"{title.name} has not changed hands this turn.", code="no_death")
    return late, current


@transaction.atomic
def title_reclaim(*, campaign: Campaign | int, title: Title | int, by: Actor) -> Title:
    """The giving house takes the title back at its holder's death: 'Once a title is given it cannot be
    taken away, except by the death of the titled character and only if the Player controls that
    character at the time of its death.' Only in the turn of the death; the heir it passed to loses it."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    found = _title_of(campaign, title, checked=False)
    require(by, campaign, "house", dynasty=found.granted_by_id, what="the house that gave the title takes it back")
    _bloodline_title(campaign, found)
    world = World(campaign)
    late, current = _death_this_turn(world, found)
    if current is None:
        raise RuleError(f"{found.name} has no holder to take it from: it has lapsed.", code="invalid")
    if late.controlled_by_id != found.granted_by_id:
        raise RuleError(
            f"{late.display_name} was not controlled by the house that gave {found.name} when he died: the title "
            "is taken away 'only if the Player controls that character at the time of its death' (BloodLine, Titles).",
            code="not_controlled",
        )
    heir = world.characters[current.holder_id]
    current.end_year = world.year
    current.how = f"{current.how}; taken back the same turn"[:200]
    current.save(update_fields=["end_year", "how"])
    found.holder = None
    found.save(update_fields=["holder"])
    giver = world.dynasties.get(found.granted_by_id or 0)
    chronicle = Chronicle(campaign)
    chronicle.add(
        "title",
        f"On the death of {late.display_name} the house of {giver.name if giver else '?'} takes back {found.name}: "
        f"{heir.display_name} does not inherit it, and its lands ({', '.join(p['name'] for p in found.provinces)}) "
        "are again the giving house's to give.",
        title=found.pk,
        late=late.pk,
        character=heir.pk,
        dynasty=found.granted_by_id,
    )
    chronicle.flush()
    return found


@transaction.atomic
def title_bequeath(*, campaign: Campaign | int, title: Title | int, heir: Character | int, by: Actor) -> TitleHolding:
    """The player who controlled the late holder chooses which descendant inherits: 'Titles are passed
    down to descendants if the title is not taken away, at the whim of the player controlling the
    titled character.' Without a choice the first descendant in order of succession has it."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer only looks: refused before the title's state is read
    found = _title_of(campaign, title)
    world = World(campaign)
    late, current = _death_this_turn(world, found)
    require(by, campaign, "house", dynasty=late.controlled_by_id, what="the late holder's player chooses the heir")
    if current is None:
        raise RuleError(f"{found.name} has lapsed or was taken back: there is nothing to bequeath.", code="invalid")
    pk = heir.pk if isinstance(heir, Character) else heir
    descendants = list(line_of(world.people, late.pk, index=FamilyIndex(world.people)))
    if pk not in descendants:
        raise RuleError(
            f"Titles pass to descendants: #{pk} is not a living descendant of {late.display_name} (BloodLine, Titles).",
            code="not_descendant",
            fields={"heir": "not_descendant"},
        )
    chosen = world.characters[pk]
    current.holder = chosen
    current.how = f"bequeathed by {late.display_name}'s player"[:200]
    current.save(update_fields=["holder", "how"])
    found.holder = chosen
    found.save(update_fields=["holder"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "title",
        f"{found.name} passes to {chosen.display_name}, chosen among the descendants of {late.display_name} by "
        "the player who controlled him.",
        title=found.pk,
        late=late.pk,
        character=chosen.pk,
    )
    chronicle.flush()
    return current


# --- a Dynastic Crisis: the bankruptcy and the claims of the dead line's titles ----------------------

CRISIS_STATE = "dynastic_crisis"
"""Crown.state key: {"year", "king": the new monarch's name, "casus_belli": [{"against", "title", "until"}]} -
names, not ids, so an export keeps them (a settled title is nullified: it has no holder)."""


def crisis_opens(world: World, crown: str, king: Character, chronicle: Chronicle) -> list[Title]:
    """Called by the succession when a Dynastic Crisis founds a new dynasty: the country's immediate
    'bankruptcy' is recorded (its effects are the table's; the treasury is untouched) and the titles
    the dead line gave may be claimed, waived or left in force this turn. Returns those titles."""
    record = world.crown(crown)
    record.state = {**(record.state or {}), CRISIS_STATE: {"year": world.year, "king": king.display_name, "casus_belli": []}}
    record.save(update_fields=["state"])
    chronicle.add(
        "dynastic_crisis",
        f"{crown} suffers an immediate bankruptcy (Dynastic Crisis): the effects of a financial bankruptcy, the "
        "Victory Point penalty included, apply at the table; the treasury is untouched.",
        crown=crown,
        bankruptcy=True,
    )
    titles = _crisis_titles(world, record)
    if titles:
        chronicle.add(
            "dynastic_crisis",
            f"The holders of the titles of {crown}'s dead line may claim their lands this turn: "
            + ", ".join(f"{t.name} ({world.characters[t.holder_id].display_name})" for t in titles if t.holder_id)
            + ".",
            crown=crown,
            titles=[t.pk for t in titles],
        )
    return titles


def _crisis_titles(world: World, record: Crown) -> list[Title]:
    house = world.dynasties.get(record.home_dynasty_id or 0) or world.crown_dynasty(record.name)
    if house is None:
        return []
    return [
        t
        for t in Title.objects.filter(campaign=world.campaign, granted_by=house, holder__isnull=False).order_by("pk")
        if t.provinces
        and t.holder_id in world.characters
        and world.characters[t.holder_id].status == Status.ALIVE
        and world.characters[t.holder_id].controlled_by_id not in (None, house.pk)
    ]


def _open_crisis(world: World, found: Title) -> tuple[Crown, dict[str, Any], Dynasty]:
    """The crown in crisis this turn whose dead line gave ``found``, its crisis record and the claimant's house."""
    record = next(
        (
            c
            for c in world.crowns.values()
            if (c.state or {}).get(CRISIS_STATE, {}).get("year") == world.year
            and found.pk in [t.pk for t in _crisis_titles(world, c)]
        ),
        None,
    )
    if record is None:
        raise RuleError(
            f"{found.name} is not a title of a dynastic line that died out this turn: claims are made 'at this "
            "time' (BloodLine, Dynastic Crisis).",
            code="no_crisis",
        )
    state = dict(record.state[CRISIS_STATE])
    holder = world.characters[found.holder_id or 0]
    claimant = world.dynasties[holder.controlled_by_id or 0]
    return record, state, claimant


def _nullify(world: World, title: Title) -> None:
    TitleHolding.objects.filter(title=title, end_year__isnull=True).update(end_year=world.year)
    title.holder = None
    title.save(update_fields=["holder", "provinces"])


def _crown_of(world: World, house: Dynasty) -> Crown:
    if not house.crown or house.crown not in world.crowns:
        raise RuleError(f"The house of {house.name} has no country to gain or lose Stability.", code="invalid")
    return world.crowns[house.crown]


@transaction.atomic
def crisis_claim(
    *,
    campaign: Campaign | int,
    title: Title | int,
    provinces: Sequence[str],
    terms: str = "",
    by: Actor,
) -> Title:
    """The title-holder's player exercises the claim on the dead line's lands: 'taking immediate possession
    of any number of provinces that are part of the title. For each province after the first that they take
    they lose one level of stability. The Player suffering the dynastic crisis gains one level of stability for
    any province lost in this way as well as a free CB against the title holder valid thru the end of the new
    Monarch's life.' A negotiated deal (``terms``) may give other things; only the title's provinces count.
    'Once any such deal or non-voluntary claim is exercised, all such titles are nullified': every title of the
    dead line held by the claimant's house's characters."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer only looks: refused before the title's state is read
    found = _title_of(campaign, title)
    world = World(campaign)
    record, state, claimant = _open_crisis(world, found)
    require(by, campaign, "house", dynasty=claimant.pk, what="the title-holder's player claims its lands")
    names = [str(p).strip() for p in provinces]
    own = [p["name"] for p in found.provinces]
    unknown = [n for n in names if n not in own]
    if unknown or len(set(names)) != len(names):
        raise RuleError(
            f"{', '.join(unknown) or 'A province listed twice'}: only the provinces of {found.name} "
            f"({', '.join(own)}) may be claimed.",
            code="invalid",
            fields={"provinces": "not_in_title"},
        )
    if not names and not terms.strip():
        raise RuleError(
            "Name the provinces taken, or the terms of the deal made instead.", code="invalid", fields={"provinces": "required"}
        )
    chronicle = Chronicle(campaign)
    holder = world.characters[found.holder_id or 0]
    taken = ", ".join(names)
    chronicle.add(
        "dynastic_crisis",
        f"{holder.display_name}'s house ({claimant.name}) claims {found.name} in {record.name}'s Dynastic Crisis"
        + (f": takes {taken}" if names else "")
        + (f"; the deal: {terms.strip()}" if terms.strip() else "")
        + ".",
        crown=record.name,
        title=found.pk,
        dynasty=claimant.pk,
        provinces=names,
    )
    if len(names) > 1:
        stability(
            world,
            _crown_of(world, claimant),
            -(len(names) - 1),
            f"{len(names)} provinces of {found.name} claimed in {record.name}'s Dynastic Crisis",
            chronicle,
            cause="title_claim",
        )
    if names:
        stability(
            world,
            record,
            len(names),
            f"{len(names)} province{'s' if len(names) > 1 else ''} lost to the claim of {found.name}",
            chronicle,
            cause="title_claim",
        )
        until = f"the death of {state.get('king') or 'the new monarch'}"
        state["casus_belli"] = [*state.get("casus_belli", []), {"against": claimant.name, "title": found.name, "until": until}]
        chronicle.add(
            "dynastic_crisis",
            f"{record.name} has a free CB against {claimant.name} until {until}.",
            crown=record.name,
            against=claimant.pk,
        )
    nullified = [t for t in _crisis_titles(world, record) if world.characters[t.holder_id or 0].controlled_by_id == claimant.pk]
    for t in nullified:
        if t.pk == found.pk:
            t.provinces = [{**p, "controller": claimant.pk} if p["name"] in names else p for p in t.provinces]
        _nullify(world, t)
    record.state = {**record.state, CRISIS_STATE: state}
    record.save(update_fields=["state"])
    chronicle.add(
        "title",
        f"{', '.join(t.name for t in nullified)}: nullified by the claim (BloodLine, Dynastic Crisis).",
        crown=record.name,
        titles=[t.pk for t in nullified],
    )
    chronicle.flush()
    found.refresh_from_db()
    return found


@transaction.atomic
def crisis_claim_waive(*, campaign: Campaign | int, title: Title | int, by: Actor) -> Title:
    """'Players may also freely give up all claim to a title at this time, and both sides gain a level of
    stability in doing so.' The title is given up; a player who neither claims nor waives leaves the title
    in force ('neither side suffers any penalty or loss')."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer only looks: refused before the title's state is read
    found = _title_of(campaign, title)
    world = World(campaign)
    record, _state, claimant = _open_crisis(world, found)
    require(by, campaign, "house", dynasty=claimant.pk, what="the title-holder's player gives up the claim")
    chronicle = Chronicle(campaign)
    chronicle.add(
        "dynastic_crisis",
        f"{claimant.name} gives up all claim to {found.name} in {record.name}'s Dynastic Crisis; the title is no more.",
        crown=record.name,
        title=found.pk,
        dynasty=claimant.pk,
    )
    stability(world, _crown_of(world, claimant), 1, f"gave up the claim to {found.name}", chronicle, cause="claim_given_up")
    stability(world, record, 1, f"{claimant.name} gave up the claim to {found.name}", chronicle, cause="claim_given_up")
    _nullify(world, found)
    chronicle.flush()
    return found


# --- what is open to decide (the pages) ------------------------------------------------------------


@dataclass(frozen=True)
class TitleDecision:
    """A title with a choice open this turn: ``kind`` "death" (bequeath, or reclaim if ``reclaimable``)
    or "crisis" (claim its provinces or waive); ``house`` is the dynasty whose player decides (the
    giving house for a reclaim)."""

    title: Title
    kind: str
    crown: str
    house: int | None
    late: Character | None = None
    heirs: tuple[Character, ...] = ()
    reclaimable: bool = False


def title_decisions(campaign: Campaign) -> list[TitleDecision]:
    """The BloodLine titles whose holder died this turn, and those a Dynastic Crisis this turn opened to claims."""
    if not _bloodline_titles(campaign):
        return []
    world = World(campaign)
    out: list[TitleDecision] = []
    index = FamilyIndex(world.people)
    for t in Title.objects.filter(campaign=campaign).exclude(provinces=[]).order_by("name", "pk"):
        try:
            late, current = _death_this_turn(world, t)
        except RuleError:
            continue
        if current is None:
            continue
        heirs = tuple(world.characters[pk] for pk in line_of(world.people, late.pk, index=index))
        out.append(
            TitleDecision(t, "death", t.crown, late.controlled_by_id, late, heirs, late.controlled_by_id == t.granted_by_id)
        )
    for record in world.crowns.values():
        if (record.state or {}).get(CRISIS_STATE, {}).get("year") == world.year:
            for t in _crisis_titles(world, record):
                out.append(TitleDecision(t, "crisis", record.name, world.characters[t.holder_id or 0].controlled_by_id))
    return out
