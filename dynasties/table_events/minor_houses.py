"""BloodLine's minor houses at the table (RULES.md B, "Minor houses"): a minor house brought into
play by the minor set-up, a player's offer for a minor house's child (made and withdrawn from his
own page), the minor houses' answers in the Marriages step, and the Royal Marriage box rating the
minimum dowry is based on. The services (``dynasties.services.minor_houses``) decide and refuse."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campaign.models import Campaign
from campaign.permissions import Seat
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import Character, Crown, Dynasty, DynastyKind, MarriageOffer, OfferStatus
from dynasties.selectors import frozen_lines
from dynasties.services import minor_houses as mh
from dynasties.services.common import World
from dynasties.services.play_minor_houses import MinorHouseTerms
from dynasties.services.play_registry import plays, registered_plays
from dynasties.table_events.common import acts_for, gm_only, gm_or_players, person

GROUP = "Minor houses (BloodLine)"
SHORT = {"minor_heir_apparent": "heir apparent", "minor_is_monarch": "monarch"}
"""The minor's own dowry factors, as a choice's note names them."""
RATING_MAX = 10_000
"""No Royal Marriage box comes near this (a typed rating beyond it is a slip of the keyboard)."""


def _minor_houses(campaign: Campaign) -> bool:
    return plays(campaign, "minor_houses")


def _keepers_terms() -> MinorHouseTerms:
    """The terms of the ruleset whose minor houses run themselves (BloodLine's): what the forms quote.
    The plays are registered before the table events are declared (``DynastiesConfig.ready()``)."""
    return next(m for p in registered_plays().values() if (m := p.minor_houses) is not None).terms()


TERMS = _keepers_terms()


def _nobility_odds() -> str:
    return f"weds into the nobility on {TERMS.nobility_from}-10 on 1d10: {TERMS.nobility}"


# --- what the fields offer ------------------------------------------------------------------------


def _matched(world: World) -> set[int]:
    return {pk for m in world.open_marriages for pk in (m.husband_id, m.wife_id)}


def suitors(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The unmarried living characters of the players' houses the seat acts for (a player: his own),
    each noted with the dowry factor he brings (heir apparent: x2)."""
    world = World(campaign, living_only=True)
    matched, frozen = _matched(world), frozen_lines(campaign)
    houses = {pk for pk, d in world.dynasties.items() if d.kind == DynastyKind.PLAYER and acts_for(seat, pk)}
    heirs = {mh.heir_apparent(world, d.crown) for pk, d in world.dynasties.items() if pk in houses and d.crown}
    people = [
        c
        for c in world.in_play()
        if c.controlled_by_id in houses and c.pk not in matched and c.pk not in frozen and c.prisoner_of_id is None
    ]
    people.sort(key=lambda c: (c.controlled_by_id or 0, c.birth_year, c.pk))
    _houses(people, world)
    return [person(c, world.year, "heir apparent: the minimum dowry x2" if c.pk in heirs else "") for c in people]


def _houses(people: Sequence[Character], world: World) -> None:
    """Their houses from the world's (``person`` names a character's house without a query)."""
    for c in people:
        if c.controlled_by_id is not None:
            c.controlled_by = world.dynasties[c.controlled_by_id]


def minors(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The minor houses' unmarried children of their own blood, eldest house first, each noted with
    the minimum dowry the records tell (the Royal Marriage box rating and the factors of the minor's
    side), whether he reigns, whether an offer waits for his 15th year, and the offers open."""
    world = World(campaign, living_only=True)
    matched = _matched(world)
    minor_houses = {pk: d for pk, d in world.dynasties.items() if d.kind == DynastyKind.MINOR}
    people = [
        c
        for c in world.in_play()
        if c.controlled_by_id in minor_houses and c.birth_dynasty_id == c.controlled_by_id and c.pk not in matched
    ]
    people.sort(key=lambda c: (c.controlled_by_id or 0, c.birth_year, c.birth_order, c.pk))
    _houses(people, world)
    open_offers: dict[int, int] = {}
    for pk in MarriageOffer.objects.filter(campaign=campaign, status=OfferStatus.OPEN).values_list(
        "minor_character_id", flat=True
    ):
        open_offers[pk] = open_offers.get(pk, 0) + 1
    out = []
    for c in people:
        house = minor_houses[c.controlled_by_id or 0]
        factors: list[str] = []
        if house.crown and mh.monarch_id_of(world, house.crown) == c.pk:
            factors.append("minor_is_monarch")
        elif house.crown and mh.heir_apparent(world, house.crown) == c.pk:
            factors.append("minor_heir_apparent")
        base = mh.royal_marriage_box(world, house)
        times = "".join(f" x{TERMS.dowry_multipliers[f]} {SHORT[f]}" for f in factors)
        notes = [f"min. {TERMS.minimum_dowry(base, factors)} ducats (box {base}{times})"]
        if "minor_is_monarch" in factors:
            notes.append("reigns: must stay")
        if c.effective_age(world.year) < TERMS.marriage_age:
            notes.append("under 15: waits")
        if open_offers.get(c.pk):
            notes.append(f"{open_offers[c.pk]} open offer{'s' if open_offers[c.pk] > 1 else ''}")
        out.append(person(c, world.year, "; ".join(notes)))
    return out


def _offer_text(offer: MarriageOffer) -> str:
    letter = TERMS.offer_letter(offer.stays_in_minor, offer.with_title)
    where = "stays" if offer.stays_in_minor else "goes"
    title = ", a title" if offer.with_title else ""
    return (
        f"{offer.suitor.display_name} for {offer.minor_character.display_name}: {offer.dowry} ducats, {where}{title} "
        f"(priority {letter}, {offer.year})"
    )


def own_offers(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The open offers whose suitor's house the seat acts for (a player: his own house's)."""
    offers = (
        MarriageOffer.objects.filter(campaign=campaign, status=OfferStatus.OPEN)
        .select_related("suitor", "minor_character")
        .order_by("year", "pk")
    )
    return [Choice(o.pk, _offer_text(o)) for o in offers if acts_for(seat, o.suitor.controlled_by_id)]


def answered(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The children the minor houses answer now, eldest first, each noted with his open offers (the
    best is taken if it stands) and, failing them, the odds of the roll to wed into his nobility."""
    children = mh.answered_now(campaign)
    offers: dict[int, list[MarriageOffer]] = {}
    for o in (
        MarriageOffer.objects.filter(campaign=campaign, status=OfferStatus.OPEN, minor_character__in=children)
        .select_related("suitor")
        .order_by("year", "pk")
    ):
        offers.setdefault(o.minor_character_id, []).append(o)
    houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
    out = []
    for c in children:
        c.controlled_by = houses.get(c.controlled_by_id or 0)
        mine = offers.get(c.pk, [])
        if mine:
            names = ", ".join(o.suitor.display_name for o in mine)
            note = (
                f"{len(mine)} open offer{'s' if len(mine) > 1 else ''} ({names}): the best that stands is accepted; "
                f"if none, {_nobility_odds()}"
            )
        else:
            note = f"no offer: {_nobility_odds()}"
        out.append(person(c, campaign.current_year, note))
    return out


def minor_crowns(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The minor houses' crowns, each noted with its rating now."""
    states = dict(Crown.objects.filter(campaign=campaign).values_list("name", "state"))
    out = []
    for house in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.MINOR).exclude(crown="").order_by("crown"):
        rating = (states.get(house.crown) or {}).get(TERMS.box_key, TERMS.box_default)
        out.append(Choice(house.crown, f"{house.crown} ({house.name})", f"now {rating}"))
    return out


# --- the calls ------------------------------------------------------------------------------------


def _create(
    *,
    campaign: Campaign,
    by: Any,
    name: str,
    crown: str,
    rating: int | None = None,
    king_age: list[int] | None = None,
    king: list[int] | None = None,
    wife: list[int] | None = None,
    **children: list[int] | None,
) -> Dynasty:
    typed = [children.get(f"child_{n + 1}") for n in range(TERMS.max_children)]
    while typed and typed[-1] is None:
        typed.pop()
    return mh.minor_house_create(
        campaign=campaign, name=name, crown=crown, rating=rating, king_age=king_age, king=king, wife=wife, children=typed, by=by
    )


def _created(house: Dynasty) -> str:
    return f"The house of {house.name} rules {house.crown}: its family is in the chronicle and on its page."


def _offer(
    *,
    campaign: Campaign,
    by: Any,
    suitor: int,
    minor_character: int,
    dowry: int,
    stays_in_minor: bool = False,
    with_title: bool = False,
    different_religion: bool = False,
    gives_up_claim: bool = False,
) -> MarriageOffer:
    factors = [name for name, on in (("different_religion", different_religion), ("major_gives_up_claim", gives_up_claim)) if on]
    return mh.offer_make(
        campaign=campaign,
        minor_character=minor_character,
        suitor=suitor,
        dowry=dowry,
        with_title=with_title,
        stays_in_minor=stays_in_minor,
        factors=factors,
        by=by,
    )


def _offered(offer: MarriageOffer) -> str:
    return f"Offered: {_offer_text(offer)}. The minor house answers in the Marriages step."


def _resolve(
    *,
    campaign: Campaign,
    by: Any,
    children: list[int] | None = None,
    faces: dict[int, list[int]] | None = None,
    spouses: dict[int, list[int]] | None = None,
) -> list[mh.MinorResolution]:
    return mh.offers_resolve(campaign=campaign, faces=faces or None, spouses=spouses or None, by=by)


def _resolved(results: list[mh.MinorResolution]) -> str:
    if not results:
        return "The minor houses had no child to answer for this turn."
    words = {"betrothed": "accepts an offer", "nobility": "weds into the nobility", "unmarried": "does not marry"}
    return "The minor houses answer: " + "; ".join(f"{r.character.display_name} {words[r.outcome]}" for r in results) + "."


# --- the declarations -----------------------------------------------------------------------------

MINOR_HOUSE_CREATE = register(
    TableEvent(
        key="minor_house_create",
        label="A minor house enters play",
        help=f"A minor country's royal house, set up as the rulebook says ({TERMS.setup_rule}): a King of 2d10 x 4 "
        "years, a wife 5 years younger, one child of random sex for each 20 years of the King's life (fractions "
        "lost), the eldest 20 years younger than the King. Type the table's dice, or leave them blank for the "
        "server's.",
        group=GROUP,
        when="any",
        fields=(
            Field("name", Kind.TEXT, "Dynastic name", "The royal house's name, e.g. Savoia."),
            Field("crown", Kind.TEXT, "Country", "The minor country it rules, e.g. Savoy."),
            Field(
                "rating",
                Kind.NUMBER,
                "Royal Marriage box rating",
                "The base of the minimum dowry, from the board (blank: 1 until the GM sets it).",
                required=False,
                low=1,
                high=RATING_MAX,
            ),
            Field("king_age", Kind.DICE, "The King's age (2d10 x 4 years)", required=False, dice="2d10"),
            Field("king", Kind.DICE, "The King's ADM, DIP and MIL (1d10 each)", required=False, dice="3d10"),
            Field("wife", Kind.DICE, "The wife's ADM, DIP and MIL (1d10 each)", required=False, dice="3d10"),
            *(
                Field(
                    f"child_{n + 1}",
                    Kind.DICE,
                    f"Child {n + 1}{' (the eldest)' if n == 0 else ''}: sex (1-5 a boy), ADM, DIP, MIL",
                    "Only for the children the King's age gives (one for each 20 years).",
                    required=False,
                    dice="4d10",
                )
                for n in range(TERMS.max_children)
            ),
        ),
        run=_create,
        services=(mh.minor_house_create,),
        offered=gm_only,
        applies=_minor_houses,
        done=_created,
    )
)

OFFER_MAKE = register(
    TableEvent(
        key="offer_make",
        label="An offer for a minor house's child",
        help=f"A player offers one of his house's characters for a minor house's unmarried child ({TERMS.offers_rule}). "
        "The minor answers in the Marriages step, preferring: a. the child stays in the minor house, best dowry, "
        "plus a title; b. stays, best dowry; c. goes to the player's house, best dowry plus a title; d. goes, best "
        "dowry. The dowry must reach the minimum: the Royal Marriage box rating, x4 different religion, x2 the "
        "minor child heir apparent, x4 the minor child the monarch, x4 the suitor gives up his claim, x2 the "
        "suitor heir apparent.",
        group=GROUP,
        when="any",
        fields=(
            Field("suitor", Kind.CHARACTER, "Your suitor", "An unmarried character of your house.", choices=suitors),
            Field(
                "minor_character",
                Kind.CHARACTER,
                "For the minor house's child",
                "A minor house's unmarried child; offers for a child under 15 wait for his 15th year.",
                choices=minors,
            ),
            Field(
                "dowry",
                Kind.MONEY,
                "Dowry (ducats)",
                "At least the minimum shown beside the child (x2 for an heir apparent suitor).",
            ),
            Field(
                "stays_in_minor",
                Kind.FLAG,
                "The child stays in the minor house",
                "Your suitor joins the minor house, which raises the children (the minor's first wish).",
            ),
            Field("with_title", Kind.FLAG, "Plus a title for the minor child"),
            Field("different_religion", Kind.FLAG, "Different religion (x4 on the minimum)"),
            Field("gives_up_claim", Kind.FLAG, "Your suitor gives up his claim to the throne (x4 on the minimum)"),
        ),
        run=_offer,
        services=(mh.offer_make,),
        offered=gm_or_players,
        applies=_minor_houses,
        done=_offered,
    )
)

OFFER_WITHDRAW = register(
    TableEvent(
        key="offer_withdraw",
        label="An offer withdrawn",
        help="A player takes back his house's open offer for a minor house's child before the minor answers.",
        group=GROUP,
        when="any",
        fields=(
            Field("offer", Kind.OFFER, "The offer", "Your house's open offers.", choices=own_offers),
            Field("reason", Kind.TEXT, "Why", "For the chronicle (optional).", required=False),
        ),
        run=lambda *, campaign, by, offer, reason="": mh.offer_withdraw(campaign=campaign, offer=offer, reason=reason, by=by),
        services=(mh.offer_withdraw,),
        offered=gm_or_players,
        applies=_minor_houses,
        done=lambda offer: f"Withdrawn: {_offer_text(offer)}.",
    )
)

OFFERS_RESOLVE = register(
    TableEvent(
        key="offers_resolve",
        label="The minor houses answer the offers",
        help=f"Once a turn, in the Marriages step ({TERMS.offers_rule}): every unmarried child of a minor house of "
        "15 or more is answered, eldest first: the best offer that stands becomes a betrothal (a suitor chosen for "
        "an elder child is spoken for); a child with no acceptable offer weds into its own nobility on 6-10 "
        "(1d10, 50%), to a noble of ADM, DIP and MIL of 1d10 each.",
        group=GROUP,
        when="marriages",
        fields=(
            Field(
                "children",
                Kind.CHARACTERS,
                "Answered now, eldest first",
                "Every one of them is answered. Tick a child to type the table's dice for the child: the 1d10 to wed "
                "and, for a wedding, the noble spouse's ADM, DIP and MIL; the server rolls the others'.",
                required=False,
                choices=answered,
            ),
            Field("faces", Kind.FACES, "To wed (6-10)", of="children", dice="1d10", required=False),
            Field("spouses", Kind.FACES, "Spouse's ADM, DIP, MIL", of="children", dice="3d10", required=False),
        ),
        run=_resolve,
        services=(mh.offers_resolve,),
        offered=gm_only,
        applies=_minor_houses,
        done=_resolved,
    )
)

ROYAL_MARRIAGE_BOX_SET = register(
    TableEvent(
        key="royal_marriage_box_set",
        label="A Royal Marriage box rating",
        help=f"The minor country's Royal Marriage box rating on the board: the minimum dowry of an offer for its "
        f"children is this rating times its factors ({TERMS.offers_rule}). Offers are checked against it "
        "again when the minor houses answer.",
        group=GROUP,
        when="any",
        fields=(
            Field("crown", Kind.CROWN, "Minor country", choices=minor_crowns),
            Field("rating", Kind.NUMBER, "Rating", "A whole number of 1 or more.", low=1, high=RATING_MAX),
        ),
        run=lambda *, campaign, by, crown, rating: mh.royal_marriage_box_set(
            campaign=campaign, crown=crown, rating=rating, by=by
        ),
        services=(mh.royal_marriage_box_set,),
        offered=gm_only,
        applies=_minor_houses,
        done=lambda record: f"{record.name}: Royal Marriage box rating {record.state.get(TERMS.box_key)}.",
    )
)
