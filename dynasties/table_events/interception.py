"""Blood Royale's optional rule D (Movement of Trade Items): a trade item's interception, as the
table resolved it (``dynasties.services.interception``). One declaration: the turn page's form, the
API's endpoint and the desk's action come from it."""

from __future__ import annotations

from typing import Any

from campaign.models import Campaign
from campaign.permissions import Seat
from campaign.table_events import Choice, Field, Kind, TableEvent, register
from dynasties.models import Dynasty, DynastyKind
from dynasties.services.interception import InterceptionRecord, rule_d_in_force, trade_interception
from dynasties.table_events.common import PHASE, gm_only
from rules import interception as law


def player_houses(campaign: Campaign, seat: Seat) -> list[Choice]:
    """The players' houses (trade items are theirs)."""
    return [
        Choice(d.pk, str(d)) for d in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "pk")
    ]


def _counters(name: str, label: str, help: str) -> Field:
    return Field(name, Kind.NUMBER, label, help, required=False, low=0, high=law.MAX_COUNTERS)


def _run(*, campaign: Any, by: Any, **values: Any) -> InterceptionRecord:
    return trade_interception(campaign=campaign, by=by, **values)


def _done(record: InterceptionRecord) -> str:
    r = record.result
    outcome = f"it passes to the house of {record.interceptor.name}" if r.taken else "it gets through"
    return f"{record.item}: the owner's die {r.face}, {r.modifier:+d}, makes {r.total}: {outcome}. The chronicle has it."


INTERCEPTION = register(
    TableEvent(
        key="trade_interception",
        label="A trade item intercepted",
        help="Optional Rule D (Movement of Trade Items): 'the owning player must throw one die, adding the following "
        "modifiers: +1 for each intercepting Army counter; +2 for each intercepting Fleet counter (count these only if "
        "they are in excess of the number of the owning player's Fleet counters in the same Sea Area); -1 for each 15 "
        "Crowns the owning player pays to the Treasury before the die roll; +1 for each 20 Crowns the intercepting "
        "player pays to the Treasury before the die roll ... If the modified result is 6 or more, possession of the "
        "Trade Item passes to the intercepting player.' The Crowns are paid to the Treasury now.",
        group="Trade (optional rule D)",
        when="between",
        fields=(
            Field(
                "owner",
                Kind.DYNASTY,
                "The owner's house",
                "Whose trade item it is; its player throws the die.",
                choices=player_houses,
            ),
            Field("interceptor", Kind.DYNASTY, "The intercepting house", choices=player_houses),
            Field("item", Kind.TEXT, "The trade item and its route", "E.g. 'Cloth from Flanders to London'."),
            _counters("armies", "Intercepting Army counters", "In the provinces the route passes: +1 each."),
            _counters("intercepting_fleets", "Intercepting Fleet counters", "In the sea area the route crosses."),
            _counters(
                "owner_fleets", "The owner's Fleet counters there", "Only the interceptor's fleets in excess count, +2 each."
            ),
            Field(
                "owner_crowns",
                Kind.MONEY,
                "Crowns the owner pays",
                f"Stated first; -1 for each {law.OWNER_STEP}, paid to the Treasury.",
                required=False,
            ),
            Field(
                "interceptor_crowns",
                Kind.MONEY,
                "Crowns the interceptor pays",
                f"+1 for each {law.INTERCEPTOR_STEP}, paid to the Treasury.",
                required=False,
            ),
            Field(
                "die",
                Kind.DICE,
                "The owner's die",
                "As thrown at the table; blank: the server rolls it.",
                required=False,
                dice=str(law.INTERCEPTION_DICE),
            ),
            PHASE,
            Field("note", Kind.TEXT, "Where", "For the chronicle (e.g. 'in the Channel').", required=False),
        ),
        run=_run,
        services=(trade_interception,),
        offered=gm_only,
        applies=rule_d_in_force,
        done=_done,
    )
)
