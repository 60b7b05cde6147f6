"""The simulated prehistory's Blood Royale optional rules D and H (``operations.simulation`` calls
``play_optional_rules`` once a turn, after the Movement's events).

- Rule D (Movement of Trade Items): now and then a house intercepts another's trade item: the route
  meets one or two of its armies, or its fleets in a sea area; the owner pays 15 Crowns against it when
  he holds plenty; the owner's die is the server's (``trade_interception``).
- Rule H (Extra Event/Movement Phase): the third phase plays the board's events (plague, battle,
  storm, captures) once more, recorded as the third phase's."""

from __future__ import annotations

from collections.abc import Callable

from campaign.models import Campaign
from campaign.permissions import Actor
from dynasties import treasury
from dynasties.models import Dynasty, DynastyKind
from dynasties.services import phases
from dynasties.services.interception import rule_d_in_force, trade_interception
from rules import interception as law
from rules.dice import DiceSource, DiceSpec
from rules.errors import RuleError

CHANCE_INTERCEPTION = 3  # 1 in 3 turns a trade item's route can be intercepted and someone tries
OWNER_PAYS_ABOVE = 100  # the owner pays 15 Crowns against it when he holds more than this
INTERCEPTOR_PAYS_ABOVE = 150  # the interceptor pays 20 Crowns for it when he holds more than this

BoardEvents = Callable[..., None]


def _d(source: DiceSource, sides: int) -> int:
    return source.faces(DiceSpec(1, sides))[0]


def play_optional_rules(
    campaign: Campaign, source: DiceSource, *, by: Actor, board_events: tuple[BoardEvents, BoardEvents]
) -> None:
    """Rule D's interceptions and rule H's third Event/Movement phase, where they are in force."""
    if rule_d_in_force(campaign):
        play_interception(campaign, source, by=by)
    last = phases.phases(campaign)
    if last > campaign.rules.movement_phases:  # rule H: the board's events of the third phase
        play_events, play_captures = board_events
        play_events(campaign, source, by=by, phase=last)
        play_captures(campaign, source, by=by, phase=last)


def play_interception(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """1 in 3 turns: two players' houses, an interception attempt by one on the other's trade item."""
    if _d(source, CHANCE_INTERCEPTION) != 1:
        return
    houses = list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "pk"))
    if len(houses) < 2:
        return
    owner = houses[_d(source, len(houses)) - 1]
    others = [h for h in houses if h.pk != owner.pk]
    interceptor = others[_d(source, len(others)) - 1]
    by_sea = _d(source, 2) == 1
    armies = 0 if by_sea else _d(source, 2)
    fleets = _d(source, 2) if by_sea else 0
    owner_crowns = law.OWNER_STEP if treasury.balance(campaign, owner.pk) > OWNER_PAYS_ABOVE else 0
    interceptor_crowns = law.INTERCEPTOR_STEP if treasury.balance(campaign, interceptor.pk) > INTERCEPTOR_PAYS_ABOVE else 0
    try:
        trade_interception(
            campaign=campaign,
            owner=owner.pk,
            interceptor=interceptor.pk,
            item=f"a trade item of {owner.crown or owner.name} bound for its capital",
            armies=armies,
            intercepting_fleets=fleets,
            owner_crowns=owner_crowns,
            interceptor_crowns=interceptor_crowns,
            phase=_d(source, phases.phases(campaign)),
            source=source,
            by=by,
        )
    except RuleError:
        return  # refused (e.g. a house that cannot pay): nothing written
