"""Titles the table grants (RULES.md A9, B): rule G's Governors, BloodLine's titles and their income.

- ``title_grant`` (Blood Royale, optional rule G): "At any time during the Dynastic Phase ... a player
  may choose to bring a Province into the direct ownership of his or her Dynastic house by making a
  Prince the 'Governor' of the Province": the King's player (or the GM) names the Prince and the
  province, during the Dynastic Sequence.
- ``bloodline_title_grant`` (BloodLine): "Titles are given by a Player to any character he chooses, and
  must include at least one province under the player's control": the giving house's player (or the GM).
- ``title_income`` (BloodLine): a title's income of the turn, from the Treasury, at least half (rounded
  up) to the provinces' controller; the player controlling the holder (or the GM) records it."""

from __future__ import annotations

from typing import Any

from campaign.models import Campaign
from campaign.permissions import Seat, may_play, runs_the_turn
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import Character, Dynasty, DynastyKind, Reign, Status, Title
from dynasties.services.bloodline_titles import bloodline_title_grant, title_income, title_income_pay, titles_with_income_due
from dynasties.services.play_registry import play_of
from dynasties.services.titles import RULE_G, governor_choices, grantable_crowns, title_grant
from dynasties.table_events.common import acts_for, gm_or_players, person

PROVINCE_ROWS = 4
"""How many provinces a BloodLine title's form asks for (docs/rulings.md: a title of more provinces is rare
at the table; the service itself takes any number)."""
LAND_VALUE_MAX = 20


def _houses(seat: Seat) -> set[int] | None:
    """The houses the seat acts for: None for every house (the GM, the system), his own for a player."""
    if seat.system or runs_the_turn(seat.role):
        return None
    return {seat.dynasty} if may_play(seat.role) and seat.dynasty is not None else set()


# --- rule G: a Governor ----------------------------------------------------------------------------


def _rule_g(campaign: Campaign) -> bool:
    return play_of(campaign).succession.title_terms().governors and campaign.option(RULE_G)


def _kings_players(campaign: Campaign, seat: Seat) -> bool:
    """The GM, and the player whose house rules a crown (he makes his own Princes Governor)."""
    houses = _houses(seat)
    return houses is None or bool(houses and grantable_crowns(campaign, houses))


def _princes(campaign: Campaign, seat: Seat) -> list[Choice]:
    houses = _houses(seat)
    if houses is not None and not houses:
        return []
    return [
        person(g.prince, campaign.current_year, f"for {' or '.join(g.crowns)}: {g.bonus}")
        for g in governor_choices(campaign, houses)
    ]


def _crowns(campaign: Campaign, seat: Seat) -> list[Choice]:
    houses = _houses(seat)
    if houses is not None and not houses:
        return []
    return [Choice(name, name) for name in grantable_crowns(campaign, houses)]


def _own_crown(campaign: Campaign, seat: Seat) -> str | None:
    """A player who rules one crown grants its provinces: proposed; the GM chooses."""
    houses = _houses(seat)
    crowns = grantable_crowns(campaign, houses) if houses else []
    return crowns[0] if len(crowns) == 1 else None


def _governor(title: Title) -> str:
    holder = title.holder.display_name if title.holder is not None else "nobody"
    return f"{holder} is {title.name}, Governor of {title.province} in {title.crown}: the chronicle has it."


TITLE_GRANT = register(
    TableEvent(
        key="title_grant",
        label="A Governor made",
        help="Optional rule G: 'At any time during the Dynastic Phase' the King's player makes one of his Princes "
        "(15 or more, of the royal blood, not the King) Governor of a province he controls. The Prince takes +1 "
        "Strength once (it may pass +2); the province raises 2 Crowns more in taxes (kept by the Governor's house "
        "if it is not the King's); the title is inherited like the crown.",
        group="Titles",
        when="sequence",
        fields=(
            Field("character", Kind.CHARACTER, "The Prince", "A Prince the King's player controls.", choices=_princes),
            Field(
                "province",
                Kind.TEXT,
                "The province",
                "A province the King's player controls now (the map is the table's). One Governor a province.",
            ),
            Field(
                "crown",
                Kind.CROWN,
                "Whose country",
                "The crown whose King grants it. Blank: the Prince's house's.",
                required=False,
                choices=_crowns,
                initial=_own_crown,
            ),
            Field("name", Kind.TEXT, "The title", "Blank: 'Duke of <province>'.", required=False),
        ),
        run=lambda *, campaign, by, character, province, crown=None, name="": title_grant(
            campaign=campaign, character=character, province=province, crown=crown, name=name, by=by
        ),
        services=(title_grant,),
        offered=_kings_players,
        applies=_rule_g,
        done=_governor,
    )
)


# --- BloodLine: a title given ------------------------------------------------------------------------


def _player_houses(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The players' houses the seat gives titles for: every one for the GM, his own for a player."""
    return [
        Choice(d.pk, d.name)
        for d in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "pk")
        if acts_for(seat, d.pk)
    ]


def _givers(campaign: Campaign, seat: Seat) -> bool:
    return bool(_player_houses(campaign, seat)) and gm_or_players(campaign, seat)


def _anyone(campaign: Campaign, seat: Seat) -> list[Choice]:
    """Every living character ("to any character he chooses"), each monarch's untitled children marked:
    they are titled first, eldest first."""
    people = list(
        Character.objects.filter(campaign=campaign, status=Status.ALIVE)
        .select_related("controlled_by")
        .order_by("controlled_by_id", "birth_year", "pk")
    )
    titled = dict(Title.objects.filter(campaign=campaign, holder__isnull=False).values_list("holder_id", "name"))
    monarchs = dict(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("holder_id", "crown"))

    def note(c: Character) -> str:
        if c.pk in titled:
            return f"holds {titled[c.pk]}"
        crown = monarchs.get(c.father_id or 0) or monarchs.get(c.mother_id or 0)
        return f"untitled child of the monarch of {crown}: titled first, eldest first" if crown and c.legitimate else ""

    return [person(c, campaign.current_year, note(c)) for c in people]


def _provinces(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of the form as the service takes them: a name and its land value each (blank rows left out)."""
    out = []
    for n in range(1, PROVINCE_ROWS + 1):
        name, value = str(values.get(f"province_{n}") or "").strip(), values.get(f"value_{n}")
        if name or value is not None:
            out.append({"name": name, "value": value})
    return out


def _bloodline_grant(*, campaign: Any, by: Any, giver: int, character: int, name: str = "", **rows: Any) -> Title:
    return bloodline_title_grant(
        campaign=campaign, giver=giver, character=character, name=name, provinces=_provinces(rows), by=by
    )


def _province_fields() -> tuple[Field, ...]:
    fields: list[Field] = []
    for n in range(1, PROVINCE_ROWS + 1):
        first = n == 1
        fields.append(
            Field(
                f"province_{n}",
                Kind.TEXT,
                f"Province {n}",
                "A province the giving player controls." if first else "",
                required=first,
            )
        )
        fields.append(
            Field(
                f"value_{n}",
                Kind.NUMBER,
                f"Land value {n}",
                f"0 to {LAND_VALUE_MAX}." if first else "",
                required=first,
                low=0,
                high=LAND_VALUE_MAX,
            )
        )
    return tuple(fields)


def _given(title: Title) -> str:
    income = title_income(title)
    holder = title.holder.display_name if title.holder is not None else "nobody"
    return (
        f"{holder} is {title.name}: {income.total} a turn, at least {income.controller_share} of it to the provinces' "
        "controller. The chronicle has it."
    )


BLOODLINE_TITLE_GRANT = register(
    TableEvent(
        key="bloodline_title_grant",
        label="A title given",
        help="BloodLine: 'Titles are given by a Player to any character he chooses, and must include at least one "
        "province under the player's control.' The monarch's direct children are titled first, eldest first, in "
        "decreasing land value. The title gives +1 on battle rolls in its lands and an income: the land values plus "
        "again the largest, at least half (rounded up) to the provinces' controller. It passes to the holder's "
        "descendants.",
        group="Titles",
        when="any",
        fields=(
            Field("giver", Kind.DYNASTY, "The giving house", "A player's house: its provinces.", choices=_player_houses),
            Field("character", Kind.CHARACTER, "To", "Any living character.", choices=_anyone),
            Field("name", Kind.TEXT, "The title", "e.g. 'Duke of Anjou'."),
            *_province_fields(),
        ),
        run=_bloodline_grant,
        services=(bloodline_title_grant,),
        offered=_givers,
        applies=lambda campaign: play_of(campaign).succession.titles_descend(),
        done=_given,
    )
)


# --- BloodLine: a title's income ------------------------------------------------------------------------


def _due(campaign: Campaign, seat: Seat) -> list[Choice]:
    houses = _houses(seat)
    if houses is not None and not houses:
        return []
    out = []
    for t in titles_with_income_due(campaign, houses):
        income = title_income(t)
        holder = t.holder.display_name if t.holder is not None else "nobody"
        out.append(
            Choice(
                t.pk, f"{t.name} ({holder})", f"{income.total}: at least {income.controller_share} to the provinces' controller"
            )
        )
    return out


def _paid(postings: list[Any]) -> str:
    total = sum(p.amount for p in postings)
    return f"Paid from the Treasury: {total} ({', '.join(f'{p.amount} to {p.payee.name}' for p in postings)})."


TITLE_INCOME = register(
    TableEvent(
        key="title_income",
        label="A title's income",
        help="BloodLine: a titled character's provinces yield 'the land values of those provinces, plus again the "
        "value of the largest', once a turn. 'Controller of a titled character determines who gets the income, but "
        "at least half (rounded up) must be given to the country who actually controls the province.' Paid from the "
        "Treasury after the Dynastic Sequence.",
        group="Titles",
        when="between",
        fields=(
            Field("title", Kind.TITLE, "The title", "Its income of this turn, not yet paid.", choices=_due),
            Field(
                "given",
                Kind.MONEY,
                "To the provinces' controller",
                "From half the income, rounded up, to all of it. Blank: the half. The rest goes to the holder's house.",
                required=False,
            ),
        ),
        run=lambda *, campaign, by, title, given=None: title_income_pay(campaign=campaign, title=title, given=given, by=by),
        services=(title_income_pay,),
        offered=gm_or_players,
        applies=lambda campaign: play_of(campaign).succession.titles_descend(),
        done=_paid,
    )
)
