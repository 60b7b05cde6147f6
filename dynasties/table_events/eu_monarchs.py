"""What the board asks of the EU monarch tables between turns (issue 32; RULES.md C): a monarch's
military skill as a leader, and a captured monarch's ransom. The capture itself and a release for
nothing are the capture and release events (``captures``), which take the EU monarch as the one
character the tables keep on the map; Stability on its track is ``crown_stability_change``
(``crowns``). The GM records them (the board decided); the services ask the policy again."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from campaign.models import Campaign
from campaign.permissions import Seat
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Reign, Status
from dynasties.services.eu_crowns_view import eu_standings
from dynasties.services.eu_monarchs import (
    monarch_crown_configure,
    monarch_military_skill,
    monarch_place_named,
    monarch_ransom,
    monarch_succession_roll,
    tables_play,
)
from dynasties.services.eu_setup import HISTORICAL, TYPED, eu_monarch_crowned
from dynasties.services.play_registry import plays, step_of
from dynasties.table_events.common import gm_only
from dynasties.treasury import currency
from rules.errors import RuleError

GROUP = "Crowns"
EU_ONLY = lambda campaign: plays(campaign, "monarchs")  # noqa: E731  (the EU monarch tables' campaigns)


# --- a monarch's military skill ------------------------------------------------------------------------


def _leaders(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The crowns whose monarch may lead (alive, no child or baby), each with what the roll gives: his
    MIL as it counts this turn, the average's odds, the country's die bonus."""
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    out = []
    for name, s in eu_standings(campaign).items():
        if s.monarch is None or s.monarch.status != Status.ALIVE or not s.stage.can_lead or "mil" not in s.effective:
            continue
        crown_rules = s.status.rules  # the crown's settings as the tables read them
        note = play.military_note(tables, s.effective["mil"], crown_rules.leader_die_bonus)
        if s.leader:
            note += "; rolled already: " + ", ".join(f"{k} {v}" for k, v in s.leader.items()) + " (a new roll replaces it)"
        out.append(Choice(name, f"{name}: {s.monarch.display_name}", note))
    return out


def _military_run(*, campaign: Campaign, by: Any, crown: str, **dice: Any) -> dict[str, Any]:
    typed = {k: v for k, v in dice.items() if v}
    values = monarch_military_skill(campaign=campaign, crown=crown, faces=typed or None, by=by)
    return {"crown": crown, "values": values}


def _military_done(result: dict[str, Any]) -> str:
    shown = ", ".join(f"{k} {v}" for k, v in result["values"].items())
    return f"Recorded: {result['crown']}'s monarch as a leader: {shown}."


def _die(name: str, label: str, help: str) -> Field:
    return Field(name, Kind.DICE, label, help, required=False, dice=str(tables_play().military_dice()))


MILITARY_SKILL = register(
    TableEvent(
        key="monarch_military_skill",
        label="A monarch's military skill",
        help="The monarch as a leader (the aid's 'Monarchs' Military Skills', an optional table): 1d10 on his MIL row "
        "gives the average value as a leader (a * also gives a siege value of 1 + its modifier); then 1d10 for each of "
        "Manoeuvre, Fire and Shock reads its modifier (1: -2, 2-3: -1, 4-7: 0, 8-9: +1, 10: +2), the final value 0 to 6; "
        "Poland +1 to the Manoeuvre and Shock dice, Sweden +1 to Fire and Shock. His MIL is read as it counts this turn "
        "(a crisis's halving, a teenager's -1); a child or a baby cannot lead. Type the dice rolled at the table, or "
        "leave them all blank for the server's.",
        group=GROUP,
        when="any",
        fields=(
            Field("crown", Kind.CROWN, "Crown", "Its monarch, his MIL this turn and the odds of his average.", choices=_leaders),
            _die("average", "The average's die (1d10 on his MIL row)", "Blank: the server rolls every die."),
            _die("manoeuvre", "Manoeuvre's die", ""),
            _die("fire", "Fire's die", ""),
            _die("shock", "Shock's die", ""),
            _die("siege", "Siege's die", "Only when the average has a * (typed: the form says when it is due)."),
        ),
        run=_military_run,
        services=(monarch_military_skill,),
        offered=gm_only,
        applies=EU_ONLY,
        done=_military_done,
    )
)


# --- a captured monarch's ransom ------------------------------------------------------------------------


def _captives(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The crowns whose monarch is a prisoner, each with the ransom the tables ask (a player's house
    holds a major power; the GM may say otherwise)."""
    reigns = list(
        Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder__status=Status.ALIVE)
        .filter(Q(holder__prisoner_of__isnull=False) | Q(holder__held_by_neutrals=True))
        .select_related("holder", "holder__prisoner_of")
        .order_by("crown")
    )
    if not reigns:
        return []
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    money = currency(campaign)
    players = {d.pk: d.crown for d in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER)}
    held_by = dict(Crown.objects.filter(campaign=campaign).values_list("name", "controlled_by_id"))
    out = []
    for r in reigns:
        holder = r.holder
        held = f"the house of {holder.prisoner_of.name}" if holder.prisoner_of is not None else "the neutrals"
        # the service's default: a major power when a player's house holds the crown (its own, or in a union)
        major = held_by.get(r.crown) in players if held_by.get(r.crown) else r.crown in players.values()
        price = play.ransom_words(tables, major=major, currency=money)
        out.append(
            Choice(
                r.crown,
                f"{r.crown}: {holder.display_name}",
                f"prisoner of {held}; {'a major power' if major else 'a minor'}: {price}",
            )
        )
    return out


def _powers(campaign: Campaign, seat: Seat) -> list[Choice]:
    """A major power or a minor, each with the ransom the campaign's table asks."""
    play = step_of(campaign, "monarchs")
    tables, money = play.tables(campaign), currency(campaign)
    return [
        Choice("major", "A major power", play.ransom_words(tables, major=True, currency=money)),
        Choice("minor", "A minor country", play.ransom_words(tables, major=False, currency=money)),
    ]


def _ransom_run(*, campaign: Campaign, by: Any, crown: str, power: str = "") -> Character:
    major = {"major": True, "minor": False}.get(power)
    return monarch_ransom(campaign=campaign, crown=crown, major=major, by=by)


def _ransom_done(monarch: Character) -> str:
    return f"Recorded: {monarch.display_name} is ransomed and free; the chronicle has it (the ducats: the houses' books)."


RANSOM = register(
    TableEvent(
        key="monarch_ransom",
        label="A monarch ransomed",
        help="A captured monarch bought back at the tables' price: 'Major monarch ransom: 200 ducats and -2 Stability'; "
        "'Minor monarch ransom is 50 ducats' (the aid's peace terms). The ducats are owed by the monarch's house to his "
        "captor's (to nobody's books when the neutrals hold him), read by them and the GM only; the -2 goes on the "
        "crown's Stability track. A monarch freed for nothing (a peace's terms) is 'Released or ransomed' with no "
        "ransom.",
        group="Deaths and captures",
        when="any",
        fields=(
            Field(
                "crown",
                Kind.CROWN,
                "Crown",
                "Its monarch is a prisoner; beside it, the ransom the tables ask.",
                choices=_captives,
            ),
            Field(
                "power",
                Kind.CHOICE,
                "Major power or minor",
                "Blank: a major power if a player's house holds it, else a minor.",
                required=False,
                choices=_powers,
            ),
        ),
        run=_ransom_run,
        services=(monarch_ransom,),
        offered=gm_only,
        applies=EU_ONLY,
        done=_ransom_done,
    )
)


# --- a country's rules changed by the board ------------------------------------------------------------

CHANGES: dict[str, tuple[str, str, Any]] = {
    # key: (what the GM says, the setting, its value: None is the country's default again)
    "event": (
        "The country's event has happened: its column moves (France: III-11; Russia: Peter the Great)",
        "base_column_event_passed",
        True,
    ),
    "no_event": ("The country's event has not happened (its first column again)", "base_column_event_passed", None),
    "alliances": ("Spain: the Habsburgs' dynastic alliances are now the number below", "dynastic_alliances", 0),
    "doge": ("Its ruler is a Doge (Venice)", "doge", True),
    "no_doge": ("Its ruler is no Doge", "doge", None),
    "poland_era": ("Poland's era: -2 to the succession and the reign length rolls", "poland_era", True),
    "no_poland_era": ("Poland's era is over", "poland_era", None),
    "fragile": ("The monarch has Fragile Health (+1 to his survival roll)", "fragile_health", True),
    "not_fragile": ("The monarch has no Fragile Health", "fragile_health", None),
}


def _eu_crowns(campaign: Campaign, seat: Seat) -> list[Choice]:
    """Every crown of the campaign, each with its monarch or 'vacant'."""
    reigning = {
        r.crown: r.holder
        for r in Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder__status=Status.ALIVE).select_related(
            "holder"
        )
    }
    out = []
    for name in Crown.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True):
        holder = reigning.get(name)
        out.append(Choice(name, name, holder.display_name if holder is not None else "vacant: its successor is due"))
    return out


def _changes(campaign: Campaign, seat: Seat) -> list[Choice]:
    return [Choice(key, words_) for key, (words_, _, _) in CHANGES.items()]


def _configure_run(*, campaign: Campaign, by: Any, crown: str, change: str, number: int | None = None) -> Crown:
    _, setting, value = CHANGES[change]
    if change == "alliances":
        if number is None:
            raise RuleError("Give the number of dynastic alliances.", code="invalid", fields={"number": "required"})
        value = number
    return monarch_crown_configure(campaign=campaign, crown=crown, settings={setting: value}, by=by)


def _configure_done(record: Crown) -> str:
    return f"Recorded: {record.name}'s rules as the board now has them; the crown's page and the grid read them."


CROWN_RULES = register(
    TableEvent(
        key="monarch_crown_configure",
        label="A country's rules changed by the board",
        help="What an event card or the board changes in how a country's monarchs are rolled (the aid's country notes): "
        "France rolls its successors' values on column 5 until event III-11, then 6; Russia on 5 until Peter the Great; "
        "Spain's column moves with the Habsburgs' dynastic alliances (Habsburg endogamy, by period); Venice's rulers are "
        "Doges; Poland's era gives -2 to the succession and reign rolls. The next rolls read the new rules.",
        group=GROUP,
        when="any",
        fields=(
            Field("crown", Kind.CROWN, "Crown", "Beside it, its monarch.", choices=_eu_crowns),
            Field("change", Kind.CHOICE, "What changed", "As the card or the board says.", choices=_changes),
            Field(
                "number",
                Kind.NUMBER,
                "Dynastic alliances",
                "Only for Spain's alliances: how many there are now.",
                required=False,
                low=0,
                high=50,
            ),
        ),
        run=_configure_run,
        services=(monarch_crown_configure,),
        offered=gm_only,
        applies=EU_ONLY,
        done=_configure_done,
    )
)


# --- a historical (or typed) monarch on a vacant throne --------------------------------------------------


def _named_choices(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The aid's historical monarchs of the campaign's crowns, each with his condition and values."""
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    crowns = list(Crown.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True))
    out = []
    for crown in crowns:
        for row in play.named_monarchs(tables, crown):
            values = row.get("values")
            shown = "/".join(str(values[k]) for k in play.characteristics()) if values else "values rolled (or typed below)"
            out.append(Choice(row["name"], f"{crown}: {row['name']}", f"{row.get('condition', '')}; {shown}"))
    return out


def _ways(campaign: Campaign, seat: Seat) -> list[Choice]:
    return [
        Choice(HISTORICAL, "One of the aid's historical monarchs (chosen below)"),
        Choice(TYPED, "A monarch typed here (his name and values below)"),
    ]


def _value(name: str) -> Field:
    low, high = tables_play().value_range()
    return Field(
        name,
        Kind.NUMBER,
        name.upper(),
        "Typed, or a historical monarch the aid gives no values for (blank: rolled).",
        required=False,
        low=low,
        high=high,
    )


def _crowned_run(
    *,
    campaign: Campaign,
    by: Any,
    crown: str,
    how: str,
    named: str = "",
    given_name: str = "",
    adm: int | None = None,
    dip: int | None = None,
    mil: int | None = None,
    reign_turns: int | None = None,
) -> Reign:
    return eu_monarch_crowned(
        campaign=campaign,
        crown=crown,
        how=how,
        named=named or "",
        given_name=given_name or "",
        adm=adm,
        dip=dip,
        mil=mil,
        reign_turns=reign_turns,
        by=by,
    )


def _crowned_done(reign: Reign) -> str:
    return f"Recorded: {reign.holder.display_name} reigns in {reign.crown}; the chronicle and the crown's page have him."


CROWNED = register(
    TableEvent(
        key="eu_monarch_crowned",
        label="A historical monarch crowned",
        help="A vacant throne filled as the board or a card says, instead of the succession roll: one of the aid's "
        "historical monarchs whose condition the table has met ('successor of João II', 'during II-4', Peter the Great "
        "in period V with ADM 8 and a sum of 18), with his values from the aid (rolled under his name where it gives "
        "none, or typed), or any monarch the GM types. His period and needed values are checked; the throne must be "
        "vacant (its monarch dead or his reign run out).",
        group=GROUP,
        when="survival",
        fields=(
            Field("crown", Kind.CROWN, "Crown", "A vacant throne (beside each crown, its monarch).", choices=_eu_crowns),
            Field("how", Kind.CHOICE, "Who", "", choices=_ways),
            Field("named", Kind.CHOICE, "The historical monarch", "The aid's list.", required=False, choices=_named_choices),
            Field(
                "given_name", Kind.TEXT, "His name", "A typed monarch ('Henri III' counts the earlier Henris).", required=False
            ),
            _value("adm"),
            _value("dip"),
            _value("mil"),
            Field(
                "reign_turns",
                Kind.NUMBER,
                "Reign (turns)",
                "A typed monarch only; blank: his survival rolls decide.",
                required=False,
                low=1,
                high=40,
            ),
        ),
        run=_crowned_run,
        services=(eu_monarch_crowned, monarch_place_named, monarch_succession_roll),
        offered=gm_only,
        applies=EU_ONLY,
        done=_crowned_done,
    )
)


__all__ = ["CROWNED", "CROWN_RULES", "MILITARY_SKILL", "RANSOM"]
