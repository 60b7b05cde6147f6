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
from campaign.treasury import currency
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Reign, Status
from dynasties.services.eu_crowns_view import eu_standings
from dynasties.services.eu_monarchs import load_eu_tables, monarch_military_skill, monarch_ransom
from dynasties.table_events.common import gm_only
from rules import eu_crowns as words
from rules import eu_monarchs as eu

GROUP = "Crowns"
EU_ONLY = lambda campaign: campaign.rules.monarch_table  # noqa: E731  (the EU monarch tables' campaigns)


# --- a monarch's military skill ------------------------------------------------------------------------


def _leaders(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The crowns whose monarch may lead (alive, no child or baby), each with what the roll gives: his
    MIL as it counts this turn, the average's odds, the country's die bonus."""
    tables = load_eu_tables(campaign)
    out = []
    for name, s in eu_standings(campaign).items():
        if s.monarch is None or s.monarch.status != Status.ALIVE or not s.stage.can_lead or "mil" not in s.effective:
            continue
        note = words.military_note(tables[eu.MILITARY], s.effective["mil"], s.rules.leader_die_bonus)
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
    return Field(name, Kind.DICE, label, help, required=False, dice=str(eu.MILITARY_DICE))


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
    table = load_eu_tables(campaign)[eu.RANSOM]
    money = currency(campaign)
    players = {d.pk: d.crown for d in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER)}
    held_by = dict(Crown.objects.filter(campaign=campaign).values_list("name", "controlled_by_id"))
    out = []
    for r in reigns:
        holder = r.holder
        held = f"the house of {holder.prisoner_of.name}" if holder.prisoner_of is not None else "the neutrals"
        # the service's default: a major power when a player's house holds the crown (its own, or in a union)
        major = held_by.get(r.crown) in players if held_by.get(r.crown) else r.crown in players.values()
        price = words.ransom_words(table, major=major, currency=money)
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
    table, money = load_eu_tables(campaign)[eu.RANSOM], currency(campaign)
    return [
        Choice("major", "A major power", words.ransom_words(table, major=True, currency=money)),
        Choice("minor", "A minor country", words.ransom_words(table, major=False, currency=money)),
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


__all__ = ["MILITARY_SKILL", "RANSOM"]
