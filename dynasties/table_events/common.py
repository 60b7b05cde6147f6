"""What the dynasties' table events share: who is offered a form, and the rows a field offers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from campaign.models import Campaign
from campaign.permissions import Seat, may_act_for, may_play, runs_the_turn
from campaign.table_events import Choice, Field, Kind
from dynasties.models import Character, Crown, Dynasty, Status


def gm_only(campaign: Campaign, seat: Seat) -> bool:
    """The GM records what the board decided ("run the turn")."""
    return seat.system or runs_the_turn(seat.role)


def gm_or_players(campaign: Campaign, seat: Seat) -> bool:
    """The GM and the players (what a player records is his own house's: the fields offer him that)."""
    return seat.system or may_play(seat.role)


def acts_for(seat: Seat, house: int | None) -> bool:
    """Whether the seat acts for this house (the policy: the GM for every house, a player for his own)."""
    return seat.system or may_act_for(seat.role, seat.dynasty, house)


def controller(c: Character) -> Dynasty:
    """The house controlling a character the service has just given to one (what a message names)."""
    house = c.controlled_by
    if house is None:
        raise ValueError(f"{c.display_name} is controlled by no house")
    return house


def person(c: Character, year: int, note: str = "") -> Choice:
    """A character as a form offers him: his name, age and house."""
    house = f", {c.controlled_by.name}" if c.controlled_by is not None else ""
    return Choice(c.pk, f"{c.display_name} ({c.age(year)}{house})", note)


def living(
    where: Callable[[Campaign], Sequence[Character]] | None = None, note: Callable[[Character], str] | None = None
) -> Callable[[Campaign, Seat], list[Choice]]:
    """The living characters a field offers (``where``: fewer), oldest house first, each with its note."""

    def offered(campaign: Campaign, seat: Seat) -> list[Choice]:
        people = (
            where(campaign)
            if where is not None
            else Character.objects.filter(campaign=campaign, status=Status.ALIVE).select_related("controlled_by")
        )
        people = sorted(people, key=lambda c: (c.controlled_by_id or 0, c.birth_year, c.pk))
        return [person(c, campaign.current_year, note(c) if note is not None else "") for c in people]

    return offered


def houses(campaign: Campaign, seat: Seat) -> list[Choice]:
    """Every house of the campaign (royal and minor)."""
    return [Choice(d.pk, d.name) for d in Dynasty.objects.filter(campaign=campaign).order_by("pk")]


def own_houses(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The houses the seat acts for: every house for the GM, his own for a player."""
    return [c for c in houses(campaign, seat) if acts_for(seat, int(c.value))]


def crowns(campaign: Campaign, seat: Seat) -> list[Choice]:
    """Every crown of the campaign, by name."""
    return [Choice(c.name, c.name) for c in Crown.objects.filter(campaign=campaign).order_by("name")]


# The Event/Movement phase a board event happened in (dynasties.services.phases).
PHASE = Field(
    "phase",
    Kind.NUMBER,
    "In Event/Movement phase",
    "Blood Royale: 1 or 2 (a turn has two); 3 only under Optional Rule H (Extra Event/Movement Phase). Blank: not said.",
    required=False,
    low=1,
    high=3,
)
