"""Pretenders and bastards (Blood Royale's event cards; RULES.md A9) and the aristocratic auction of
the three-player game (RULES.md A8): what the cards and the table decide, one declaration each.

- A Pretender (cards 18-22) and a bastard (cards 38 and 39) come from a card: the GM records them.
- A Pretender's buy-back is his original house's choice: its player records it from the same pages
  (the form is offered to him while his house has a Pretender abroad), or the GM does.
- The auction's sealed bids are revealed at the table: the GM types each house's bid (a house left
  blank did not bid)."""

from __future__ import annotations

from typing import Any

from django.db.models import F, Q

from campaign.models import Campaign
from campaign.permissions import Seat, may_play
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import Character, Dynasty, DynastyKind, Marriage, Status
from dynasties.services.auction import DEPOSIT, auction_run
from dynasties.services.common import World
from dynasties.services.play_registry import play_of, registered_plays
from dynasties.services.play_succession import PretenderTerms
from dynasties.services.pretenders import (
    bastard_create,
    event_cards_in_force,
    pretender_buy_back,
    pretender_declare,
    pretender_problems,
)
from dynasties.table_events.common import acts_for, controller, gm_only

GROUP = "Pretenders and bastards"


def _cards(campaign: Campaign) -> bool:
    """Pretenders and bastards are Blood Royale's event cards: with optional rule E in force (the EU
    rulesets have none)."""
    return event_cards_in_force(campaign)


def _pretenders_terms() -> PretenderTerms:
    """The terms of the ruleset whose event cards bring Pretenders and bastards (Blood Royale's): the
    figures the forms quote. The plays are registered before the table events are declared
    (``DynastiesConfig.ready()``)."""
    return next(t for p in registered_plays().values() if (t := p.succession.pretender_terms()).pretenders)


TERMS = _pretenders_terms()


def _choice(world: World, c: Character, note: str = "") -> Choice:
    house = world.dynasties.get(c.controlled_by_id or 0)
    return Choice(c.pk, f"{c.display_name} ({c.age(world.year)}{', ' + house.name if house else ''})", note)


# --- A Pretender declared (cards 18-22) ------------------------------------------------------------


def _who_goes(world: World, c: Character) -> list[Character]:
    """His wife and his children under 15 his house controls (``pretender_declare`` moves the same)."""
    reigning = world.reigning()
    spouse = world.spouse_of(c.pk)
    going = [spouse] if spouse is not None and c.sex == "M" and spouse.controlled_by_id == c.controlled_by_id else []
    going += [
        k
        for k in world.in_play()
        if c.pk in (k.father_id, k.mother_id)
        and k.age(world.year) < TERMS.children_under
        and k.controlled_by_id == c.controlled_by_id
        and k.pk not in reigning
    ]
    return going


def may_pretend(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The characters the rule lets become Pretenders (15 or more, not reigning, not the monarch's
    only son, born to the player's house that controls him, not a bastard, not one already), each
    with the house on the left that takes him and who goes with him."""
    world = World(campaign, living_only=True)
    out = []
    for c in world.in_play():
        home = world.dynasties.get(c.controlled_by_id or 0)
        left = world.seat_left(home) if home is not None else None
        if left is None or pretender_problems(world, c, world.year):
            continue
        going = _who_goes(world, c)
        note = f"to the house of {left.name}, the player on the left" + (
            f", with {', '.join(k.display_name for k in going)}" if going else ""
        )
        out.append(_choice(world, c, note))
    return sorted(out, key=lambda ch: ch.label)


def _declared(pretender: Character) -> str:
    return f"{pretender.display_name} is a Pretender: the house of {controller(pretender).name} controls him from now on."


PRETENDER = register(
    TableEvent(
        key="pretender",
        label="A Pretender declared",
        help="Event cards 18-22: 'The character sheet should be passed to the player on the left ... Characters can "
        "only become Pretenders if they are at least 15 years old, and if they are not the only male child of the "
        "monarch. A Pretender's wife (though not a husband, who should be returned to his original Dynasty) and any "
        "children less than 15 years old should also be passed to the player on the left' (Pretenders and Bastards). "
        f"His house may buy him back for {TERMS.buy_back} Crowns.",
        group=GROUP,
        when="between",
        fields=(
            Field(
                "character",
                Kind.CHARACTER,
                "The Pretender",
                "Offered: those the rule allows, with the house that takes him and who goes with him.",
                choices=may_pretend,
                rows=True,
            ),
        ),
        run=lambda *, campaign, by, character: pretender_declare(campaign=campaign, character=character, by=by),
        services=(pretender_declare,),
        offered=gm_only,
        applies=_cards,
        done=_declared,
    )
)


# --- bought back -----------------------------------------------------------------------------------


def _abroad(campaign: Campaign) -> Any:
    """The living Pretenders held by a house other than the one that lost them."""
    return (
        Character.objects.filter(campaign=campaign, status=Status.ALIVE, pretender_of__isnull=False)
        .exclude(controlled_by=F("pretender_of"))
        .select_related("controlled_by", "pretender_of")
        .order_by("pk")
    )


def may_buy_back(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The Pretenders the seat's house may buy back (the GM: every house's)."""
    year = campaign.current_year
    out = []
    for c in _abroad(campaign):
        if not acts_for(seat, c.pretender_of_id):
            continue
        held = f", held by the house of {c.controlled_by.name}" if c.controlled_by_id is not None else ""
        note = f"{TERMS.buy_back} Crowns from the house of {c.pretender_of.name}"
        out.append(Choice(c.pk, f"{c.display_name} ({c.age(year)}{held})", note))
    return out


def buy_back_offered(campaign: Campaign, seat: Seat) -> bool:
    """The GM; a player while his house has a Pretender abroad (it decides whether to buy him back)."""
    if gm_only(campaign, seat):
        return True
    return may_play(seat.role) and seat.dynasty is not None and _abroad(campaign).filter(pretender_of=seat.dynasty).exists()


def _bought(pretender: Character) -> str:
    return f"{pretender.display_name} is bought back by the house of {controller(pretender).name}. All sins are forgiven."


BUY_BACK = register(
    TableEvent(
        key="buy_back",
        label="A Pretender bought back",
        help=f"'For a 'bribe' of {TERMS.buy_back} Crowns, the Pretender's original Dynasty may 'buy back' "
        "the character, his wife and any children. All sins are forgiven' (Pretenders and Bastards). The house that "
        "lost him decides; the bribe goes to the Treasury, and the house holding him is not asked.",
        group=GROUP,
        when="any",
        fields=(
            Field(
                "character",
                Kind.CHARACTER,
                "The Pretender",
                f"Your house pays {TERMS.buy_back} Crowns; his unmarried children and his spouse come home with him.",
                choices=may_buy_back,
                rows=True,
            ),
        ),
        run=lambda *, campaign, by, character: pretender_buy_back(campaign=campaign, character=character, by=by),
        services=(pretender_buy_back,),
        offered=buy_back_offered,
        applies=_cards,
        done=_bought,
    )
)


# --- a bastard (cards 38 and 39) -------------------------------------------------------------------


def may_father(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The reigning Kings who are not married, with the house on the right that takes the son."""
    world = World(campaign, living_only=True)
    wed = {pk for m in world.open_marriages if m.wedding_year is not None for pk in (m.husband_id, m.wife_id)}
    out = []
    for pk in world.reigning():
        king = world.characters.get(pk)
        if king is None or king.sex != "M" or pk in wed:
            continue
        house = world.dynasties.get(king.controlled_by_id or 0)
        right = world.seat_right(house) if house is not None else None
        if right is not None:
            out.append(_choice(world, king, f"the son goes to the house of {right.name}, the player on the right"))
    return sorted(out, key=lambda ch: ch.label)


def _bastard(
    *,
    campaign: Campaign,
    by: Any,
    father: int,
    given_name: str = "",
    birth_year: int | None = None,
    strength: list[int] | None = None,
    constitution: list[int] | None = None,
    charisma: list[int] | None = None,
) -> Character:
    typed = [strength, constitution, charisma]
    return bastard_create(
        campaign=campaign,
        father=father,
        given_name=given_name or None,
        birth_year=birth_year,
        entered=typed if any(t is not None for t in typed) else None,
        by=by,
    )


def _born(son: Character) -> str:
    return f"A bastard son, {son.display_name}, is born ({_traits(son)}): the house of {controller(son).name} controls him."


def _trait(name: str) -> Field:
    return Field(
        name,
        Kind.DICE,
        name.capitalize(),
        f"His {name}: the three dice of its 3d6 roll (A2), or blank for the server's dice.",
        required=False,
        dice=str(TERMS.characteristic_dice),
    )


BASTARD = register(
    TableEvent(
        key="bastard",
        label="A bastard son",
        help="Event cards 38 and 39: 'the creation of bastard sons of unmarried Kings. These characters are passed to "
        "the player on the right, who controls them from now on ... Bastards' claims can never be inherited' "
        "(Pretenders and Bastards). His characteristics are rolled as a child's (A2).",
        group=GROUP,
        when="between",
        fields=(
            Field("father", Kind.CHARACTER, "His father", "A reigning King who is not married.", choices=may_father, rows=True),
            Field("given_name", Kind.TEXT, "His name", "Blank: the country's next suggested name.", required=False),
            Field(
                "birth_year",
                Kind.NUMBER,
                "Born in",
                "A year of this turn (blank: this year).",
                required=False,
                low=1,
                high=9999,
            ),
            *(_trait(name) for name in TERMS.characteristic_names("M")),
        ),
        run=_bastard,
        services=(bastard_create,),
        offered=gm_only,
        applies=_cards,
        done=_born,
    )
)


# --- the aristocratic auction (the three-player game) -----------------------------------------------


def _three_player_game(campaign: Campaign) -> bool:
    """Blood Royale with three players: its aristocratic family exists (set up with the campaign; the
    basic rules', not the event cards')."""
    return (
        play_of(campaign).succession.pretender_terms().pretenders
        and Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.ARISTOCRATIC).exists()
    )


def may_be_auctioned(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The aristocratic family's living children old enough to wed and not yet matched (as
    ``auction_problems`` says, in one query), each with his characteristics."""
    year = campaign.current_year
    matched = Marriage.objects.filter(campaign=campaign, ended_year__isnull=True)
    family = (
        Character.objects.filter(
            campaign=campaign,
            status=Status.ALIVE,
            controlled_by__kind=DynastyKind.ARISTOCRATIC,
            birth_year__lte=year - TERMS.adult_age,
        )
        .exclude(Q(pk__in=matched.values("husband_id")) | Q(pk__in=matched.values("wife_id")))
        .select_related("controlled_by")
        .order_by("birth_year", "pk")
    )
    return [Choice(c.pk, f"{c.display_name} ({c.age(year)}, {_child(c)})", _traits(c)) for c in family]


def _child(c: Character) -> str:
    return "son" if c.sex == "M" else "daughter"


def _traits(c: Character) -> str:
    """His characteristics, in the rulebook's order (Strength or Guile, Constitution, Charisma)."""
    values = c.characteristics or {}
    return ", ".join(f"{k.capitalize()} {int(values[k]):+d}" for k in TERMS.characteristic_names(c.sex) if k in values)


def bidders(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The players' houses, each a bid."""
    houses = Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "pk")
    return [Choice(d.pk, str(d)) for d in houses]


def _auction(*, campaign: Campaign, by: Any, character: int, bids: dict[int, int] | None = None) -> Dynasty:
    return auction_run(campaign=campaign, character=character, bids=bids or {}, by=by)


AUCTION = register(
    TableEvent(
        key="auction",
        label="The aristocratic auction",
        help="The three-player game: 'Interested players announce their wish to secure the child as a marriage partner "
        f"for one of their characters, and pay the Treasury {DEPOSIT} Crowns as a sign of serious intent. They then "
        "write the amount of their bid on paper ... all players reveal their offers and the highest bid secures the "
        "match. That player pays the Treasury the amount bid, and takes the character ... into his or her own "
        "Dynasty' (Three Players, Dynastic Sequence). A tie is bid again.",
        group="The three-player game",
        when="any",
        fields=(
            Field(
                "character",
                Kind.CHARACTER,
                "The child auctioned",
                "Of the aristocratic family, 15 or older and not yet matched.",
                choices=may_be_auctioned,
                rows=True,
            ),
            Field(
                "bids",
                Kind.AMOUNTS,
                "The sealed bids, as revealed",
                f"Crowns, for each house that bid (it pays the {DEPOSIT}-Crown deposit, not returned); leave blank a "
                "house that did not bid.",
                required=False,
                choices=bidders,
            ),
        ),
        run=_auction,
        services=(auction_run,),
        offered=gm_only,
        applies=_three_player_game,
        done=lambda winner: f"The house of {winner.name} wins the auction: the chronicle has it.",
    )
)
