"""The simulated table's diplomacy (the medieval parleys' consequences, issue 33): now and then a player
calls a claim parley for an area, contests a conquest or an inheritance; the loser of a contest
mostly complies, sometimes refuses (excommunicated) or lets the turn end (flouted at the advance);
two houses exchange claims, a house renounces one. Called once, from ``play_contracts``, where the
ruleset settles breaches by parley (not BloodLine's majority); every choice on the seeded source's dice."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

from campaign.models import Campaign
from campaign.permissions import Actor
from contracts import services
from contracts.models import Claim, Obligation, ObligationState, Parley, ParleyKind
from dynasties.models import Dynasty, DynastyKind
from rules.dice import DiceSource, DiceSpec
from rules.errors import RuleError

_T = TypeVar("_T")

AREAS = ("Savoy", "Provence", "Navarre", "Flanders", "Brittany", "Burgundy", "Lorraine", "Milan", "Sicily", "Gascony")
CHANCE_CLAIM_PARLEY = 3  # 1 in 3 turns a player calls a claim parley (20.42)
CHANCE_CONQUEST = 5  # 1 in 5 turns a diplomatic conquest is contested (20.41)
CHANCE_INHERITANCE = 8  # 1 in 8 a Dynastic Inheritance card is contested (20.43)
CHANCE_EXCHANGE = 4  # 1 in 4 turns two houses exchange claims (20.1), when one holds any
CHANCE_RENOUNCE = 12  # 1 in 12 turns a house renounces a claim
DIPLOMACY_PARTS = (
    "claims granted by parley",
    "claims exchanged",
    "parley decisions complied with",
    "parley decisions flouted (excommunicated)",
)
ANSWER = 6  # the loser of a contest: 1-4 complies, 5 refuses, 6 lets the turn end (flouted)


def _d(source: DiceSource, sides: int) -> int:
    return source.faces(DiceSpec(1, sides))[0]


def _pick(source: DiceSource, items: Sequence[_T]) -> _T:
    return items[_d(source, len(items)) - 1] if len(items) > 1 else items[0]


def _try(play: Callable[[], object]) -> object | None:
    try:
        return play()
    except RuleError:
        return None


def _votes(source: DiceSource, players: Sequence[Dynasty], caller: int, against: int | None) -> list[dict[str, object]]:
    choices = ("for", "against", "abstain")
    return [
        {
            "dynasty": d.pk,
            "stature": _d(source, 6),
            "church_cards": 0,
            "christian": True,
            "choice": "for" if d.pk == caller else ("against" if d.pk == against else _pick(source, choices)),
        }
        for d in players
    ]


def play_diplomacy(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """One turn's diplomacy, after the breaches' parleys."""
    players = list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "pk"))
    if len(players) < 2:
        return
    banned = set(services.excommunicated(campaign))
    free = [d for d in players if d.pk not in banned]  # 22.13: the excommunicated call only for readmission
    if free and _d(source, CHANCE_CLAIM_PARLEY) == 1:
        caller, area = _pick(source, free), _pick(source, AREAS)
        votes = _votes(source, players, caller.pk, None)
        _try(
            lambda: services.parley_run(campaign=campaign, kind=ParleyKind.CLAIM, caller=caller.pk, area=area, votes=votes, by=by)
        )
    for kind, chance in ((ParleyKind.CONQUEST, CHANCE_CONQUEST), (ParleyKind.INHERITANCE, CHANCE_INHERITANCE)):
        if not free or _d(source, chance) != 1:
            continue
        caller = _pick(source, free)
        opponent = _pick(source, [d for d in players if d.pk != caller.pk])
        area = _pick(source, AREAS)
        votes = _votes(source, players, caller.pk, opponent.pk)
        parley = _try(
            functools.partial(
                services.parley_run,
                campaign=campaign,
                kind=kind,
                caller=caller.pk,
                opponent=opponent.pk,
                area=area,
                votes=votes,
                by=by,
            )
        )
        due = Obligation.objects.filter(parley=parley).first() if isinstance(parley, Parley) else None
        if due is not None:
            answer = _d(source, ANSWER)
            if answer <= 5:
                _try(
                    functools.partial(
                        services.obligation_resolve, campaign=campaign, obligation=due.pk, complied=answer <= 4, by=by
                    )
                )
    held = list(Claim.objects.filter(campaign=campaign, ended_year__isnull=True).order_by("pk"))
    if held and _d(source, CHANCE_EXCHANGE) == 1:
        given = _pick(source, held)
        to = _pick(source, [d for d in players if d.pk != given.dynasty_id])
        back = [c for c in held if c.dynasty_id == to.pk]
        swap = [_pick(source, back).pk] if back and _d(source, 2) == 1 else []
        _try(
            lambda: services.area_claim_exchange(
                campaign=campaign, first=given.dynasty_id, second=to.pk, first_gives=[given.pk], second_gives=swap, by=by
            )
        )
    held = list(Claim.objects.filter(campaign=campaign, ended_year__isnull=True).order_by("pk"))
    if held and _d(source, CHANCE_RENOUNCE) == 1:
        _try(lambda: services.area_claim_renounce(campaign=campaign, claim=_pick(source, held).pk, by=by))


def diplomacy_played(campaign: Campaign) -> dict[str, int]:
    """How often each part was played (the law's summary, ``operations.simulation.LAW``)."""
    claims = Claim.objects.filter(campaign=campaign)
    dues = Obligation.objects.filter(campaign=campaign)
    return {
        "claims granted by parley": claims.filter(how="parley").count(),
        "claims exchanged": claims.filter(how="exchange").count(),
        "parley decisions complied with": dues.filter(state=ObligationState.COMPLIED).count(),
        "parley decisions flouted (excommunicated)": dues.filter(
            state__in=(ObligationState.REFUSED, ObligationState.FLOUTED)
        ).count(),
    }
