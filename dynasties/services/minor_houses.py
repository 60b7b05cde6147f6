"""BloodLine: minor houses run themselves (RULES.md B, "Minor houses").

The GM brings a minor house into play by the minor set-up (``minor_house_create``) and records its
Royal Marriage box rating (``royal_marriage_box_set``); a player makes and withdraws his house's
offers for a minor house's children (``offer_make``, ``offer_withdraw``; the GM may for any house);
in the Marriages step ``offers_resolve`` lets every minor house answer them, eldest child first, by
the rulebook's priorities, and rolls the 50% marriage into its own nobility for a child left without
an acceptable offer. The succession's door for a minor monarch who leaves no heir is
``minor_crowns.minor_monarch_replaced``. The table's doors are ``dynasties.table_events.minor_houses``.

Rulings (where the rulebook is silent):

- "Stays in the minor dynasty" means the player's character joins the minor house (the husband
  joins his wife's house when he is the one who moves) and the children are raised by the minor
  house; "goes" means the minor character joins the player's house, which raises the children.
- A reigning minor monarch keeps his throne: offers for him must have him stay.
- The minimum dowry's base is the minor crown's Royal Marriage box rating, kept in
  ``Crown.state["royal_marriage_box"]`` (``royal_marriage_box_set``); 1 until the GM enters it.
  "Heir apparent" is the first in the crown's line of succession. The factors the records can
  tell (monarch, heir apparent) are added by themselves and may not be claimed falsely; the
  others (religion, a claim given up) are the GM's word. The minimum is checked again, with the
  factors that apply then, when the offers are resolved.
- Offers wait (stay open) while the child is under 15 (effective age) or a prisoner; offers for a
  child who died, married or left the minor house are rejected at the next resolution.
- Every unmarried member of the blood of 15 or more is resolved, the monarch included, in one
  order across all minor houses, eldest first. An elder child left unmarried does not block the
  younger ones: he has been "determined" first, as the rulebook asks.
- A suitor chosen for an elder child is spoken for: his other offers fail this turn.
- A marriage into the nobility is wed at once (no Diplomacy phase for it): the spouse, of the
  opposite sex, is born the same year as the child (but is at least 15), has ADM/DIP/MIL of 1d10
  each, unmodified (held to 3..9), and belongs to the minor house, which raises the children.
- The replacement monarch is a man (the set-up's King), born 5 years after the late monarch (never
  after this year), with ADM/DIP/MIL of 1d10 each, unmodified; he has no family. He is rolled only
  when nobody is left in the line (where a player house would suffer a Dynastic Crisis).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction

from campaign.dice import DiceBox
from campaign.models import Campaign, ChronicleEntry, Roll, Step
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign, require_step
from dynasties.models import (
    Character,
    Crown,
    Dynasty,
    DynastyKind,
    Marriage,
    MarriageOffer,
    OfferStatus,
    Origin,
    Status,
)
from dynasties.selectors import frozen_lines
from dynasties.services.common import World
from dynasties.services.marriages import Match, marriage_arrange_many, marriage_check
from dynasties.services.minor_crowns import is_minor_crown, roll_unmodified, stats_text
from dynasties.services.play_minor_houses import MinorHouseTerms, SetupDice
from dynasties.services.play_registry import plays, step_of
from dynasties.services.setup import PALETTE
from rules.dice import DiceSource
from rules.errors import IllegalMarriage, IllegalOption, NotFound, RuleError
from rules.names import given_name, spouse_dynastic_name
from rules.succession import iter_succession

# The marriage services are imported at the top: this module builds on them (whether a betrothal was
# settled by an offer is a question of dynasties.selectors, which marriages.py asks).

DERIVED_FACTORS = ("minor_is_monarch", "minor_heir_apparent", "major_heir_apparent")
RESOLVED = "minor_offers_resolved"  # the chronicle kind that marks a year's resolution


# --- reading the records ------------------------------------------------------------------------


def _bloodline(campaign: Campaign) -> MinorHouseTerms:
    """The terms of the campaign's minor houses (refused where they run no rules of their own)."""
    if not plays(campaign, "minor_houses"):
        raise RuleError("Minor houses' marriages belong to the BloodLine ruleset.", code="wrong_ruleset")
    return _terms(campaign)


def _terms(campaign: Campaign) -> MinorHouseTerms:
    return step_of(campaign, "minor_houses").terms()


def _pk(value: object, what: str) -> int:
    pk = getattr(value, "pk", value)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not {what} id.", code="invalid")
    return pk


def royal_marriage_box(world: World, house: Dynasty) -> int:
    """The minor's Royal Marriage box rating: the base of the minimum dowry."""
    terms = _terms(world.campaign)
    record = world.crowns.get(house.crown) if house.crown else None
    value = (record.state or {}).get(terms.box_key) if record is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else terms.box_default


def monarch_id_of(world: World, crown: str) -> int | None:
    """The id of the crown's reigning monarch (None: no crown, or none reigns); ``titles.monarch_of``
    is the monarch himself."""
    return next((r.holder_id for r in world.open_reigns() if crown and r.crown == crown), None)


def heir_apparent(world: World, crown: str) -> int | None:
    """The first in the line of succession of the crown's monarch."""
    holder = monarch_id_of(world, crown)
    if holder is None:
        return None
    barred = world.renounced.get(crown, set())
    return next(iter(iter_succession(world.people, holder, royal=world.past_holders(crown), barred=barred)), None)


def derived_factors(world: World, minor: Character, suitor: Character) -> set[str]:
    """The dowry factors the records tell by themselves."""
    minor_house = world.dynasties.get(minor.controlled_by_id or 0)
    suitor_house = world.dynasties.get(suitor.controlled_by_id or 0)
    out: set[str] = set()
    if minor_house is not None and minor_house.crown:
        if monarch_id_of(world, minor_house.crown) == minor.pk:
            out.add("minor_is_monarch")
        elif heir_apparent(world, minor_house.crown) == minor.pk:
            out.add("minor_heir_apparent")
    if suitor_house is not None and suitor_house.crown and heir_apparent(world, suitor_house.crown) == suitor.pk:
        out.add("major_heir_apparent")
    return out


def _factors(world: World, minor: Character, suitor: Character, claimed: Sequence[str]) -> tuple[str, ...]:
    """The GM's factors, checked, plus the ones the records tell."""
    terms = _terms(world.campaign)
    given = terms.clean_factors(list(claimed))
    derived = derived_factors(world, minor, suitor)
    false = [f for f in given if f in DERIVED_FACTORS and f not in derived]
    if false:
        raise IllegalOption(
            "Not so: "
            + "; ".join(terms.factor_labels[f] for f in false)
            + " is not true of this match (the records show who reigns and who is first in line)."
        )
    return terms.clean_factors(sorted(set(given) | derived))


def _recheck_factors(world: World, offer: MarriageOffer, minor: Character, suitor: Character) -> tuple[str, ...]:
    """At resolution: the GM's own factors as entered, the derived ones as they stand now."""
    terms = _terms(world.campaign)
    kept = [f for f in offer.factors if f in terms.dowry_multipliers and f not in DERIVED_FACTORS]
    return terms.clean_factors(sorted(set(kept) | derived_factors(world, minor, suitor)))


def _couple(minor: Character, suitor: Character) -> tuple[Character, Character]:
    return (minor, suitor) if minor.sex == "M" else (suitor, minor)


def _offer_label(terms: MinorHouseTerms, offer: MarriageOffer) -> str:
    letter = terms.offer_letter(offer.stays_in_minor, offer.with_title)
    where = "stays in the minor house" if offer.stays_in_minor else "goes to the player's house"
    return f"{letter}: {where}, {offer.dowry} ducats" + (", plus a title" if offer.with_title else "")


# --- a minor house enters play ---------------------------------------------------------------


def _typed(faces: Sequence[int] | None, count: int, what: str, field: str, rule: str) -> Sequence[int] | None:
    """Faces typed for ``what`` (None: the server rolls): exactly ``count`` d10s."""
    if faces is None:
        return None
    if isinstance(faces, (str, bytes)) or not isinstance(faces, (list, tuple)) or len(faces) != count:
        raise RuleError(
            f"{what} takes {count} d10{'s' if count > 1 else ''} ({rule}); type all of them or none (the server rolls).",
            code="invalid_dice",
            fields={field: "invalid"},
        )
    return list(faces)


@transaction.atomic
def minor_house_create(
    *,
    campaign: Campaign | int,
    name: str,
    crown: str,
    rating: int | None = None,
    king_age: Sequence[int] | None = None,
    king: Sequence[int] | None = None,
    wife: Sequence[int] | None = None,
    children: Sequence[Sequence[int] | None] = (),
    source: DiceSource | None = None,
    by: Actor,
) -> Dynasty:
    """A minor house enters play (BloodLine, Minor Set-up): its royal house, its crown (with its Royal
    Marriage box rating, if given) and its family rolled as the set-up says - a King of 2d10 x 4
    years, a wife 5 years younger, one child of random sex for each 20 years of the King's life - the
    King reigning from this year. The table's dice may be typed: the King's age (2d10), the King's
    and the wife's ADM, DIP and MIL, and each child's sex die (1-5 a boy) then ADM, DIP and MIL,
    eldest first; whatever is not typed the server rolls. The GM records it."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM sets up the board's minors (campaign.permissions)
    terms = _bloodline(campaign)
    name, crown = (name or "").strip(), (crown or "").strip()
    if not name or len(name) > 80:
        raise RuleError("A minor house needs its dynastic name (up to 80 letters).", code="invalid", fields={"name": "required"})
    if not crown or len(crown) > 80:
        raise RuleError(
            "A minor house needs the country it rules (up to 80 letters).", code="invalid", fields={"crown": "required"}
        )
    if Dynasty.objects.filter(campaign=campaign, name__iexact=name).exists():
        raise RuleError(
            f"{campaign.name} has a house called {name} already; a minor house needs its own name.",
            code="name_taken",
            fields={"name": "taken"},
        )
    held = (
        Dynasty.objects.filter(campaign=campaign, crown__iexact=crown).values_list("crown", flat=True).first()
        or Crown.objects.filter(campaign=campaign, name__iexact=crown).values_list("name", flat=True).first()
    )
    if held:
        raise RuleError(
            f"{held} has its royal house in {campaign.name} already: each country has one.",
            code="crown_taken",
            fields={"crown": "taken"},
        )
    if rating is not None and (isinstance(rating, bool) or not isinstance(rating, int) or rating < 1):
        raise RuleError(
            "The Royal Marriage box rating is a whole number of 1 or more.", code="invalid", fields={"rating": "invalid"}
        )
    if isinstance(children, (str, bytes)) or len(children) > terms.max_children:
        raise RuleError(
            f"A minor King has at most {terms.max_children} children at the set-up ({terms.setup_rule}: one for "
            "each 20 years of an age of 2d10 x 4).",
            code="invalid_dice",
            fields={"children": "invalid"},
        )
    rule, values = terms.setup_rule, len(terms.characteristics)
    typed = SetupDice(
        king_age=_typed(king_age, terms.king_age_dice.count, "The King's age", "king_age", rule),
        king=_typed(king, values, "The King's ADM, DIP and MIL", "king", rule),
        wife=_typed(wife, values, "The wife's ADM, DIP and MIL", "wife", rule),
        children=[
            _typed(faces, 1 + values, f"Child {n + 1}'s sex, ADM, DIP and MIL", f"child_{n + 1}", rule)
            for n, faces in enumerate(children)
        ],
    )
    houses = Dynasty.objects.filter(campaign=campaign)
    count = houses.count()
    seat = max(houses.values_list("seat", flat=True), default=-1) + 1
    dynasty = Dynasty.objects.create(
        campaign=campaign, name=name, crown=crown, kind=DynastyKind.MINOR, color=PALETTE[count % len(PALETTE)], seat=seat
    )
    Crown.objects.create(
        campaign=campaign,
        name=crown,
        home_dynasty=dynasty,
        controlled_by=dynasty,
        state={terms.box_key: rating} if rating is not None else {},
    )
    box = DiceBox(campaign, source=source, by=by)
    chronicle = Chronicle(campaign)
    king_of = step_of(campaign, "minor_houses").starting_family(
        campaign, dynasty, box, chronicle, year=campaign.current_year, typed=typed
    )
    box.flush()
    chronicle.add(
        "created",
        f"A minor house enters play: the house of {name} rules {crown} under {king_of.display_name} "
        f"({king_of.age(campaign.current_year)}), set up by the minor set-up ({terms.setup_rule}); "
        f"Royal Marriage box rating {rating if rating is not None else terms.box_default}"
        + ("" if rating is not None else " until the GM sets it")
        + ".",
        dynasty=dynasty.pk,
        crown=crown,
        minor_house=True,
    )
    chronicle.flush()
    return dynasty


# --- the GM's doors ---------------------------------------------------------------------------


@transaction.atomic
def royal_marriage_box_set(*, campaign: Campaign | int, crown: str, rating: int, by: Actor) -> Crown:
    """Record a minor crown's Royal Marriage box rating (the base of its minimum dowry)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    terms = _bloodline(campaign)
    if isinstance(rating, bool) or not isinstance(rating, int) or rating < 1:
        raise RuleError(
            "The Royal Marriage box rating is a whole number of 1 or more.", code="invalid", fields={"rating": "invalid"}
        )
    world = World(campaign, living_only=True)
    if not is_minor_crown(world, crown):
        raise NotFound(f"There is no minor house's crown called {crown!r} in {campaign.name}.")
    record = world.crown(crown)
    record.state = {**(record.state or {}), terms.box_key: rating}
    record.save(update_fields=["state"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "minor_offer", f"{crown}: Royal Marriage box rating {rating} (the minimum dowry's base).", crown=crown, rating=rating
    )
    chronicle.flush()
    return record


@transaction.atomic
def offer_make(
    *,
    campaign: Campaign | int,
    minor_character: Character | int,
    suitor: Character | int,
    dowry: int,
    with_title: bool = False,
    stays_in_minor: bool = False,
    factors: Sequence[str] = (),
    by: Actor,
) -> MarriageOffer:
    """A player's offer of one of his house's characters for a minor house's unmarried child: made
    by the suitor's player (or the GM), "act for a house" (campaign.permissions). Refused below the
    minimum dowry (the Royal Marriage box rating times each factor), saying what the minimum is."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # the GM, or the suitor's player: his house is asked below
    terms = _bloodline(campaign)
    if isinstance(dowry, bool) or not isinstance(dowry, int) or dowry < 0:
        raise RuleError("The dowry is a whole number of ducats.", code="invalid", fields={"dowry": "invalid"})
    if isinstance(factors, str):
        raise IllegalOption("Give the dowry factors as a list of names.")
    world = World(campaign)
    minor_pk, suitor_pk = _pk(minor_character, "a character"), _pk(suitor, "a character")
    for pk, role in ((minor_pk, "minor character"), (suitor_pk, "suitor")):
        if pk not in world.characters:
            raise NotFound(f"There is no character #{pk} in {campaign.name} to be the {role}.")
    minor, man = world.characters[minor_pk], world.characters[suitor_pk]
    require(by, campaign, "house", dynasty=man.controlled_by_id, what=f"an offer of {man.display_name} is his house's to make")
    minor_house = world.dynasties.get(minor.controlled_by_id or 0)
    suitor_house = world.dynasties.get(man.controlled_by_id or 0)
    if minor_house is None or minor_house.kind != DynastyKind.MINOR:
        raise IllegalMarriage(
            f"{terms.offers_rule}: offers are for minor houses' children; {minor.display_name} does not belong to a minor house.",
            fields={"minor_character": "not a minor's"},
        )
    if minor.birth_dynasty_id != minor_house.pk:
        raise IllegalMarriage(
            f"{terms.offers_rule}: the minor house answers offers for its own children only; "
            f"{minor.display_name} married into the house of {minor_house.name} and is not of its blood.",
            fields={"minor_character": "not of its blood"},
        )
    if suitor_house is None or suitor_house.kind != DynastyKind.PLAYER:
        raise IllegalMarriage(
            f"{terms.offers_rule}: offers come from Player countries; {man.display_name} does not belong to a player's dynasty.",
            fields={"suitor": "not a player's"},
        )
    if minor_house.crown and monarch_id_of(world, minor_house.crown) == minor.pk and not stays_in_minor:
        raise IllegalMarriage(
            f"{minor.display_name} reigns over {minor_house.crown} and keeps the throne: the offer must have "
            f"{'him' if minor.sex == 'M' else 'her'} stay in the minor house (docs/rulings.md, BloodLine minor houses).",
            fields={"stays_in_minor": "required"},
        )
    husband, wife = _couple(minor, man)
    problems = marriage_check(campaign, husband, wife, wedding=False)
    if problems:
        raise IllegalMarriage(f"{man.display_name} and {minor.display_name}: {' '.join(problems)}", fields={"suitor": "no match"})
    if MarriageOffer.objects.filter(campaign=campaign, minor_character=minor, suitor=man, status=OfferStatus.OPEN).exists():
        raise IllegalMarriage(
            f"{man.display_name} already has an open offer for {minor.display_name}; withdraw it before making another.",
            fields={"suitor": "has an open offer"},
        )
    applied = _factors(world, minor, man, factors)
    base = royal_marriage_box(world, minor_house)
    least = terms.minimum_dowry(base, applied)
    if dowry < least:
        raise IllegalMarriage(
            f"{dowry} ducats is below the minimum dowry for {minor.display_name}: {least} ducats "
            f"({terms.dowry_explanation(base, applied)}; {terms.offers_rule}: 'Minimum dowry is equal to Royal "
            "Marriage Box rating', times each factor).",
            code="dowry_too_low",
            fields={"dowry": f"at least {least}"},
        )
    offer = MarriageOffer.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        minor_character=minor,
        suitor=man,
        dowry=dowry,
        with_title=with_title,
        stays_in_minor=stays_in_minor,
        factors=list(applied),
    )
    chronicle = Chronicle(campaign)
    chronicle.add(
        "minor_offer",
        f"The house of {suitor_house.name} offers {man.display_name} for {minor.display_name} of {minor_house.name} "
        f"({_offer_label(terms, offer)}; minimum {least}).",
        offer=offer.pk,
        dynasty=suitor_house.pk,
    )
    chronicle.flush()
    return offer


@transaction.atomic
def offer_withdraw(*, campaign: Campaign | int, offer: MarriageOffer | int, reason: str = "", by: Actor) -> MarriageOffer:
    """A player takes back an open offer: the suitor's player (or the GM), "act for a house"."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # the GM, or the suitor's player: his house is asked below
    _bloodline(campaign)
    pk = _pk(offer, "an offer")
    try:
        found = MarriageOffer.objects.select_related("suitor", "minor_character").get(pk=pk, campaign=campaign)
    except MarriageOffer.DoesNotExist:
        raise NotFound(f"There is no offer #{pk} in {campaign.name}.") from None
    require(
        by,
        campaign,
        "house",
        dynasty=found.suitor.controlled_by_id,
        what=f"the offer of {found.suitor.display_name} is his house's to withdraw",
    )
    if found.status != OfferStatus.OPEN:
        raise RuleError(f"This offer was already {found.status} ({found.note or 'no note'}).", code="offer_closed")
    found.status = OfferStatus.REJECTED
    found.note = f"withdrawn{': ' + reason.strip() if reason.strip() else ''}"[:200]
    found.save(update_fields=["status", "note"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "minor_offer",
        f"The offer of {found.suitor.display_name} for {found.minor_character.display_name} is withdrawn"
        + (f" ({reason.strip()[:120]})." if reason.strip() else "."),
        offer=found.pk,
        dynasty=found.suitor.controlled_by_id,
        withdrawn=True,
    )
    chronicle.flush()
    return found


# --- the minors answer -----------------------------------------------------------------------


@dataclass
class MinorResolution:
    """What became of one minor child this turn (in the order they were resolved)."""

    character: Character
    house: Dynasty
    outcome: str  # "betrothed", "nobility" or "unmarried"
    offer: MarriageOffer | None = None
    marriage: Marriage | None = None
    spouse: Character | None = None
    roll: Roll | None = None
    rejected: tuple[MarriageOffer, ...] = ()


def _candidates(world: World, frozen: Collection[int]) -> list[Character]:
    """Unmarried members of a minor house's blood, 15 or more (effective age), free, eldest first."""
    terms = _terms(world.campaign)
    houses = {pk for pk, d in world.dynasties.items() if d.kind == DynastyKind.MINOR}
    matched = {pk for m in world.open_marriages for pk in (m.husband_id, m.wife_id)}
    chosen = [
        c
        for c in world.in_play()
        if c.controlled_by_id in houses
        and c.birth_dynasty_id == c.controlled_by_id
        and c.pk not in matched
        and c.pk not in frozen
        and not c.is_prisoner
        and c.effective_age(world.year) >= terms.marriage_age
    ]
    order = terms.resolution_order([(c.pk, c.birth_year, c.birth_order) for c in chosen])
    return [world.characters[pk] for pk in order]


def _stale(world: World, offer: MarriageOffer) -> str | None:
    """Why an open offer can no longer be answered at all (None: it waits or is answered now)."""
    minor = world.characters.get(offer.minor_character_id)
    if minor is None or minor.status != Status.ALIVE:
        return "the minor character is no longer in play"
    house = world.dynasties.get(minor.controlled_by_id or 0)
    if house is None or house.kind != DynastyKind.MINOR:
        return f"{minor.display_name} no longer belongs to a minor house"
    if any(minor.pk in (m.husband_id, m.wife_id) for m in world.open_marriages):
        return f"{minor.display_name} is already married or betrothed"
    return None


def _refusal(
    world: World, campaign: Campaign, offer: MarriageOffer, minor: Character, taken: set[int], house: Dynasty
) -> str | None:
    """Why this offer cannot be accepted now (None: acceptable)."""
    suitor = world.characters.get(offer.suitor_id)
    if suitor is None or suitor.status != Status.ALIVE:
        return "the suitor is no longer in play"
    suitor_house = world.dynasties.get(suitor.controlled_by_id or 0)
    if suitor_house is None or suitor_house.kind != DynastyKind.PLAYER:
        return f"{suitor.display_name} no longer belongs to a player's dynasty"
    if suitor.pk in taken:
        return f"{suitor.display_name} is already spoken for this turn"
    husband, wife = _couple(minor, suitor)
    problems = marriage_check(campaign, husband, wife, wedding=False)
    if problems:
        return " ".join(problems)
    factors = _recheck_factors(world, offer, minor, suitor)
    base = royal_marriage_box(world, house)
    terms = _terms(world.campaign)
    least = terms.minimum_dowry(base, factors)
    if offer.dowry < least:
        return f"{offer.dowry} ducats is now below the minimum dowry ({terms.dowry_explanation(base, factors)})"
    return None


def _noble_spouse(
    world: World, box: DiceBox, minor: Character, house: Dynasty, entered: Sequence[Sequence[int]] | None
) -> Character:
    sex = "F" if minor.sex == "M" else "M"
    crown = house.crown
    spouse = Character.objects.create(
        campaign=world.campaign,
        given_name=given_name(crown, sex, minor.pk % 7 + 1),
        sex=sex,
        birth_year=min(minor.birth_year, world.year - _terms(world.campaign).marriage_age),
        dynastic_name=spouse_dynastic_name(crown, house.name),
        birth_dynasty=None,
        controlled_by=house,
        characteristics={},
        origin=Origin.CREATED,
    )
    spouse.characteristics = roll_unmodified(box, spouse, entered)
    spouse.save(update_fields=["characteristics"])
    world.refresh_person(spouse)
    return spouse


def answered_now(campaign: Campaign) -> list[Character]:
    """The minor houses' children the next resolution answers, in its order (eldest first)."""
    return _candidates(World(campaign), frozen_lines(campaign))


def _typed_for(
    typed: Mapping[int, Sequence[int]] | None, due: Collection[int], count: int, what: str, field: str, rule: str
) -> dict[int, list[int]]:
    """Typed dice by child: only for children answered now, ``count`` d10s each."""
    out: dict[int, list[int]] = {}
    for key, faces in (typed or {}).items():
        pk = _pk(key, "a character")
        if pk not in due:
            raise RuleError(
                f"Dice were typed for #{pk}, who is not answered now ({rule}: the minor houses' "
                "unmarried children of 15 or more, free, of their house's blood).",
                code="not_due",
                fields={field: "not due"},
            )
        if isinstance(faces, (str, bytes)) or not isinstance(faces, (list, tuple)) or len(faces) != count:
            raise RuleError(
                f"{what} takes {count} d10{'s' if count > 1 else ''}.", code="invalid_dice", fields={field: "invalid"}
            )
        out[pk] = list(faces)
    return out


def _choose(
    world: World, minor: Character, house: Dynasty, offers: Sequence[MarriageOffer], taken: set[int], chronicle: Chronicle
) -> MarriageOffer | None:
    """The first acceptable offer (``offers`` best first) is accepted; every other is rejected, each
    refusal chronicled with its reason."""
    chosen: MarriageOffer | None = None
    for offer in offers:
        why = None if chosen is None else f"{minor.display_name} accepted a better offer"
        if why is None:
            why = _refusal(world, world.campaign, offer, minor, taken, house)
        if why is None:
            chosen = offer
            offer.status, offer.note = OfferStatus.ACCEPTED, f"accepted ({_offer_label(_terms(world.campaign), offer)})"[:200]
        else:
            offer.status, offer.note = OfferStatus.REJECTED, why[:200]
            chronicle.add(
                "minor_offer",
                f"{house.name} of {house.crown or 'no crown'} declines {_suitor(world, offer)}'s offer "
                f"for {minor.display_name}: {why}.",
                offer=offer.pk,
                dynasty=house.pk,
            )
    return chosen


def _betroth(
    world: World, minor: Character, house: Dynasty, chosen: MarriageOffer, taken: set[int], chronicle: Chronicle
) -> Match:
    """The accepted offer as a match to arrange (the suitor taken for this turn), chronicled."""
    suitor = world.characters[chosen.suitor_id]
    taken.add(suitor.pk)
    husband, wife = _couple(minor, suitor)
    mover = suitor if chosen.stays_in_minor else minor
    raiser = house.pk if chosen.stays_in_minor else suitor.controlled_by_id
    chronicle.add(
        "minor_offer",
        f"{house.name} of {house.crown or 'no crown'} accepts {suitor.display_name}'s offer for {minor.display_name} "
        f"({_offer_label(_terms(world.campaign), chosen)}): {mover.display_name} is to join the house of "
        f"{(house if chosen.stays_in_minor else world.dynasties[suitor.controlled_by_id or 0]).name}.",
        offer=chosen.pk,
        dynasty=house.pk,
        character=minor.pk,
    )
    return Match(
        husband.pk,
        wife.pk,
        husband_joins_wife=mover.pk == husband.pk,
        children_raised_by=raiser,
        dowry=f"{chosen.dowry} ducats",
        alliance_title=f"a title for {minor.display_name}" if chosen.with_title else "",
    )


def _nobility(
    world: World,
    box: DiceBox,
    minor: Character,
    house: Dynasty,
    typed: tuple[Sequence[int] | None, Sequence[int] | None],
    used: set[tuple[str, int]],
    chronicle: Chronicle,
    rejected: tuple[MarriageOffer, ...],
) -> MinorResolution:
    """A child with no acceptable offer: 1d10 (typed: ``typed[0]``), 6-10 weds a noble of his
    house's country made now (his ADM, DIP and MIL typed: ``typed[1]``); else he stays unmarried."""
    roll_faces, spouse_faces = typed
    terms = _terms(world.campaign)
    roll = box.roll(
        terms.nobility.spec,
        purpose="minor_nobility",
        characters=[minor],
        entered=roll_faces,
        target=terms.nobility_from,
        detail=minor.display_name[:60],
    )
    used.add(("faces", minor.pk))
    if not terms.nobility_marries(roll.faces):
        roll.outcome = "does not marry"
        chronicle.add(
            "minor_offer",
            f"{minor.display_name} of {house.name}, with no acceptable offer, does not marry this turn "
            f"(1d10: {roll.faces[0]}; 6-10 marries into the nobility).",
            dynasty=house.pk,
            character=minor.pk,
        )
        return MinorResolution(minor, house, "unmarried", roll=roll, rejected=rejected)
    roll.outcome = "marries into the nobility"
    used.add(("spouses", minor.pk))
    spouse = _noble_spouse(world, box, minor, house, [[f] for f in spouse_faces] if spouse_faces else None)
    husband, wife = _couple(minor, spouse)
    marriage = Marriage.objects.create(
        campaign=world.campaign,
        husband=husband,
        wife=wife,
        arranged_year=world.year,
        wedding_year=world.year,
        husband_joins_wife=minor.sex == "F",
        children_raised_by=house,
    )
    world.open_marriages.append(marriage)
    chronicle.add(
        "wedding",
        f"{minor.display_name} ({minor.age(world.year)}), with no acceptable offer, marries into the nobility of "
        f"{house.crown or house.name}: {spouse.display_name} ({spouse.age(world.year)}), {stats_text(world.campaign, spouse)} "
        f"(1d10: {roll.faces[0]}).",
        marriage=marriage.pk,
        dynasty=house.pk,
        character=minor.pk,
    )
    return MinorResolution(minor, house, "nobility", marriage=marriage, spouse=spouse, roll=roll, rejected=rejected)


@transaction.atomic
def offers_resolve(
    *,
    campaign: Campaign | int,
    faces: Mapping[int, Sequence[int]] | None = None,
    spouses: Mapping[int, Sequence[int]] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> list[MinorResolution]:
    """Every minor house answers the offers for its unmarried children of 15 or more, eldest first
    (across the houses), in the Marriages step: the best offer by the priorities a-d (then the best
    dowry, then the earliest offer) becomes a betrothal and the others are rejected; a child with no
    acceptable offer marries into its own nobility on 6-10 (1d10, logged). Once a year.

    The table's dice may be typed, by child: ``faces`` his 1d10, ``spouses`` the ADM, DIP and MIL of
    the noble he weds; the others the server rolls. Dice typed for a child who rolls nothing (an
    offer accepted; no wedding) are refused, naming him: nothing is recorded."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)

    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    terms = _bloodline(campaign)
    require_step(campaign, Step.MARRIAGES)
    if ChronicleEntry.objects.filter(campaign=campaign, year=campaign.current_year, kind=RESOLVED).exists():
        raise RuleError(
            f"The minor houses have already answered this turn's offers ({campaign.current_year}); new offers wait "
            "for the next turn.",
            code="already_resolved",
        )
    world = World(campaign)
    answered = _candidates(world, frozen_lines(campaign))
    due = {c.pk for c in answered}
    rule = terms.offers_rule
    typed_roll = _typed_for(faces, due, terms.nobility.spec.count, "The roll to wed into the nobility", "faces", rule)
    typed_spouse = _typed_for(spouses, due, len(terms.characteristics), "The noble spouse's ADM, DIP and MIL", "spouses", rule)
    used: set[tuple[str, int]] = set()
    box = DiceBox(campaign, source=source, by=by)
    chronicle = Chronicle(campaign)
    open_offers = list(MarriageOffer.objects.filter(campaign=campaign, status=OfferStatus.OPEN).order_by("year", "pk"))
    closed: list[MarriageOffer] = []
    for offer in open_offers:
        why = _stale(world, offer)
        if why is not None:
            offer.status, offer.note = OfferStatus.REJECTED, why[:200]
            closed.append(offer)
    by_child: dict[int, list[MarriageOffer]] = {}
    for offer in open_offers:
        if offer.status == OfferStatus.OPEN:
            by_child.setdefault(offer.minor_character_id, []).append(offer)
    taken: set[int] = set()
    results: list[MinorResolution] = []
    matches: list[Match] = []
    for minor in answered:
        house = world.dynasties[minor.controlled_by_id or 0]
        offers = sorted(
            by_child.get(minor.pk, []),
            key=lambda o: terms.offer_key(o.stays_in_minor, o.with_title, o.dowry, o.year, o.pk),
        )
        chosen = _choose(world, minor, house, offers, taken, chronicle)
        closed.extend(offers)
        rejected = tuple(o for o in offers if o is not chosen)
        if chosen is not None:
            matches.append(_betroth(world, minor, house, chosen, taken, chronicle))
            results.append(MinorResolution(minor, house, "betrothed", offer=chosen, rejected=rejected))
            continue
        typed = (typed_roll.get(minor.pk), typed_spouse.get(minor.pk))
        results.append(_nobility(world, box, minor, house, typed, used, chronicle, rejected))
    _refuse_unused(world, results, typed_roll, typed_spouse, used)
    if closed:
        MarriageOffer.objects.bulk_update(closed, ["status", "note"])
    box.flush()
    counts = {k: sum(1 for r in results if r.outcome == k) for k in ("betrothed", "nobility", "unmarried")}
    chronicle.add(
        RESOLVED,
        f"The minor houses answer the offers of {world.year}: {counts['betrothed']} betrothed to players' characters, "
        f"{counts['nobility']} wed into their own nobility, {counts['unmarried']} unmarried.",
        betrothed=counts["betrothed"],
        nobility=counts["nobility"],
        unmarried=counts["unmarried"],
    )
    chronicle.flush()
    if matches:
        created = marriage_arrange_many(campaign=campaign, matches=matches, by=by)
        by_pair = {(m.husband_id, m.wife_id): m for m in created}
        for result in results:
            if result.offer is not None:
                husband, wife = _couple(result.character, world.characters[result.offer.suitor_id])
                result.marriage = by_pair[(husband.pk, wife.pk)]
    return results


def _refuse_unused(
    world: World,
    results: Sequence[MinorResolution],
    typed_roll: Mapping[int, Sequence[int]],
    typed_spouse: Mapping[int, Sequence[int]],
    used: set[tuple[str, int]],
) -> None:
    """Dice typed for a roll that was not made: refused, saying why he rolled nothing (the table
    rolls only for a child left without an acceptable offer, and a spouse only for a wedding)."""
    outcome = {r.character.pk: r for r in results}
    for field, typed, what in (("faces", typed_roll, "the 1d10 to wed"), ("spouses", typed_spouse, "a noble spouse's dice")):
        for pk in typed:
            if (field, pk) in used:
                continue
            who = world.characters[pk].display_name
            result = outcome.get(pk)
            if result is not None and result.outcome == "betrothed":
                why = f"{who} accepts an offer and rolls nothing"
            elif result is not None and result.roll is not None:
                why = f"{who} does not wed this turn (1d10: {result.roll.faces[0]}; 6-10 weds into the nobility)"
            else:
                why = f"{who} rolls nothing this turn"
            raise RuleError(
                f"{why} ({_terms(world.campaign).offers_rule}): clear {what} typed for {who}; nothing was recorded.",
                code="not_due",
                fields={field: "not due"},
            )


def _suitor(world: World, offer: MarriageOffer) -> str:
    suitor = world.characters.get(offer.suitor_id)
    return suitor.display_name if suitor is not None else f"#{offer.suitor_id}"


# --- succession's door ------------------------------------------------------------------------
