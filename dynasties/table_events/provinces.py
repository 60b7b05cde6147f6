"""The province register at the table (Blood Royale 15, 17, 18; optional rules F and I): a province
added or corrected, a province changing hands, a Famine or a Rebellion marker placed by the turn's
Events, a rebellion put down, a new capital nominated. The GM records what the board decided; a
crown's player nominates his own new capital. The services are ``dynasties.services.provinces``."""

from __future__ import annotations

from collections.abc import Callable

from campaign.models import Campaign
from campaign.permissions import Seat
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import Crown, Province
from dynasties.services.play_registry import plays_interphase
from dynasties.services.provinces import (
    capital_nominate,
    countries_of,
    province_marker,
    province_record,
    province_transfer,
    rebellion_put_down,
)
from dynasties.table_events.common import acts_for, crowns, gm_only, gm_or_players, houses
from rules import provinces as rules

GROUP = "Provinces"


def _applies(campaign: Campaign) -> bool:
    return plays_interphase(campaign)


def _provinces(where: Callable[[Province], bool] | None = None) -> Callable[[Campaign, Seat], list[Choice]]:
    def offered(campaign: Campaign, seat: Seat) -> list[Choice]:
        rows = Province.objects.filter(campaign=campaign).select_related("controlled_by").order_by("name")
        out = []
        for p in rows:
            if where is not None and not where(p):
                continue
            whose = "neutral" if p.neutral else (p.controlled_by.name if p.controlled_by else "no player")
            out.append(Choice(p.name, p.name, f"{p.country or 'no country'}, {whose}"))
        return out

    return offered


def _resources(campaign: Campaign, seat: Seat) -> list[Choice]:
    return [Choice(k, label) for k, label in rules.RESOURCE_LABELS.items()]


def _markers(campaign: Campaign, seat: Seat) -> list[Choice]:
    return [Choice("famine", "Famine"), Choice("rebellion", "Rebellion")]


def _nominable(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The Home Provinces a crown's house controls, for the crowns the seat acts for."""
    out: list[Choice] = []
    for crown in Crown.objects.filter(campaign=campaign, controlled_by__isnull=False).select_related("controlled_by"):
        house = crown.controlled_by
        assert house is not None
        if not acts_for(seat, house.pk):
            continue
        mine = countries_of(campaign, house)
        for p in Province.objects.filter(campaign=campaign, controlled_by=house).order_by("name"):
            if rules.is_home(p.country, mine) and not p.original_capital:
                out.append(Choice(p.name, p.name, f"a Home Province of {house.name}"))
    return out


def _own_crowns(campaign: Campaign, seat: Seat) -> list[Choice]:
    owners = dict(Crown.objects.filter(campaign=campaign).values_list("name", "controlled_by_id"))
    return [c for c in crowns(campaign, seat) if acts_for(seat, owners.get(str(c.value)))]


def _done(p: Province) -> str:
    whose = "neutral" if p.neutral else (f"the house of {p.controlled_by.name}" if p.controlled_by else "no player")
    marks = [m for m, y in (("Famine", p.famine_year), ("Rebellion", p.rebellion_year)) if y is not None]
    return f"Recorded: {p.name}, {whose}" + (f"; markers: {', '.join(marks)}" if marks else "") + "."


RECORD = register(
    TableEvent(
        key="province_record",
        label="A province added or corrected",
        help="The province register: its name, its country in the Basic Game, its Resource Area and whether it is its "
        "country's capital. A new province is its country's house's, or another house's, or Neutral (rule F). Once "
        "placed, a Resource Area or a capital moves only under optional rule I, at set-up, within its limits (i)-(v) "
        "and 'the Capital may not be placed in a Province in which there is a Resource Area'.",
        group=GROUP,
        when="any",
        fields=(
            Field("name", Kind.TEXT, "Province", "Its name on the map (an existing one is corrected)."),
            Field("country", Kind.CROWN, "Country", "The crown it belongs to in the Basic Game.", required=False, choices=crowns),
            Field(
                "controlled_by",
                Kind.DYNASTY,
                "Controlled by",
                "A new province only; blank: its country's house.",
                required=False,
                choices=houses,
            ),
            Field("neutral", Kind.FLAG, "Neutral (rule F)", "Controlled by no player.", required=False),
            Field("resource", Kind.CHOICE, "Resource Area", "Blank: none.", required=False, choices=_resources),
            Field("capital", Kind.FLAG, "Its country's capital", "A castle.", required=False),
        ),
        run=lambda *, campaign, by, name, country="", controlled_by=None, neutral=False, resource="", capital=False: (
            province_record(
                campaign=campaign,
                name=name,
                country=country or "",
                controlled_by=controlled_by,
                neutral=bool(neutral),
                resource=resource or "",
                capital=bool(capital),
                by=by,
            )
        ),
        services=(province_record,),
        offered=gm_only,
        applies=_applies,
        done=_done,
    )
)

TRANSFER = register(
    TableEvent(
        key="province_taken",
        label="A province changes hands",
        help="A conquest or a treaty (Blood Royale 17). A Neutral Province conquered by the player whose country it "
        "would have been in the Basic Game 'becomes a Home Province after conquest' (rule F). A capital taken costs "
        "its ruler Charisma -1 'until the capital is retaken' (18), and its castle is destroyed for good; retaken, "
        "the Charisma comes back.",
        group=GROUP,
        when="between",
        fields=(
            Field("province", Kind.CHOICE, "Province", choices=_provinces()),
            Field(
                "to",
                Kind.DYNASTY,
                "To",
                "The house that controls it now; blank: Neutral (rule F).",
                required=False,
                choices=houses,
            ),
            Field("note", Kind.TEXT, "What happened", "For the chronicle.", required=False),
        ),
        run=lambda *, campaign, by, province, to=None, note="": province_transfer(
            campaign=campaign, province=province, to=to, note=note or "", by=by
        ),
        services=(province_transfer,),
        offered=gm_only,
        applies=_applies,
        done=_done,
    )
)

MARKER = register(
    TableEvent(
        key="province_marker",
        label="A Famine or Rebellion marker",
        help="Placed by the turn's Events (Blood Royale 15): a province in Famine 'produces no Taxes or Resource Items "
        "during the next Interphase' (the marker is removed after taxes); one in Rebellion pays no tax until its "
        "marker is bought off (15 Crowns in the Interphase) or the rebellion is put down.",
        group=GROUP,
        when="between",
        fields=(
            Field("province", Kind.CHOICE, "Province", choices=_provinces()),
            Field("marker", Kind.CHOICE, "Marker", choices=_markers),
        ),
        run=lambda *, campaign, by, province, marker: province_marker(campaign=campaign, province=province, marker=marker, by=by),
        services=(province_marker,),
        offered=gm_only,
        applies=_applies,
        done=_done,
    )
)

PUT_DOWN = register(
    TableEvent(
        key="rebellion_put_down",
        label="A rebellion put down",
        help="'A rebellion is automatically put down, and the marker removed, if 4 Army counters are moved into the "
        "Province and remain there at the end of a Movement turn' (Blood Royale 15).",
        group=GROUP,
        when="between",
        fields=(
            Field(
                "province",
                Kind.CHOICE,
                "Province",
                "A province with a Rebellion marker.",
                choices=_provinces(lambda p: p.rebellion_year is not None),
            ),
            Field("note", Kind.TEXT, "What happened", "For the chronicle.", required=False),
        ),
        run=lambda *, campaign, by, province, note="": rebellion_put_down(
            campaign=campaign, province=province, note=note or "", by=by
        ),
        services=(rebellion_put_down,),
        offered=gm_only,
        applies=_applies,
        done=_done,
    )
)

NOMINATE = register(
    TableEvent(
        key="capital_nominated",
        label="A new capital nominated",
        help="'If the capital is taken, the defeated player may nominate any other controlled Home Province to be his "
        "or her capital ... This new Capital would not be considered to be a castle' (Blood Royale 18). The crown's "
        "player decides, or the GM.",
        group=GROUP,
        when="between",
        fields=(
            Field("crown", Kind.CROWN, "Crown", choices=_own_crowns),
            Field("province", Kind.CHOICE, "Province", "A controlled Home Province.", choices=_nominable),
        ),
        run=lambda *, campaign, by, crown, province: capital_nominate(campaign=campaign, crown=crown, province=province, by=by),
        services=(capital_nominate,),
        offered=gm_or_players,
        applies=_applies,
        done=_done,
    )
)

__all__ = ["MARKER", "NOMINATE", "PUT_DOWN", "RECORD", "TRANSFER"]
