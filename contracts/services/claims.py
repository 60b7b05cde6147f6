"""Diplomacy's consequences (the medieval game 20-22): the claims register (a claim granted by a claim
parley, exchanged between houses, recorded by the GM from the board; kept in exile), and what a
contested conquest's or inheritance's decision makes due: the loser returns or relinquishes the area,
or is excommunicated, by refusing or by letting the turn end (22.1)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from contracts.models import Claim, ClaimEnd, ClaimHow, Excommunication, Obligation, ObligationState, Parley
from contracts.services.common import _dynasty, _House, _house, _pk, excommunicated, leader_of
from dynasties.models import Dynasty, Reign
from rules import contracts as rules
from rules.errors import NotFound, RuleError

# the register --------------------------------------------------------------------------------------


def _claim(campaign: Campaign, value: Claim | int, field: str = "claim") -> Claim:
    pk = _pk(value, "claim")
    found = Claim.objects.select_for_update().select_related("dynasty").filter(pk=pk, campaign=campaign).first()
    if found is None:
        raise NotFound(f"There is no claim #{pk} in {campaign.name}.")
    if found.ended_year is not None:
        raise RuleError(
            f"{found.dynasty.name}'s claim to {found.area} ended in {found.ended_year} ({found.get_end_display().lower()}).",
            code="ended",
            fields={field: "ended"},
        )
    return found


def _refuse_held(campaign: Campaign, house: Dynasty, key: str, name: str) -> None:
    held = Claim.objects.filter(campaign=campaign, dynasty=house, area_key=key, ended_year__isnull=True).first()
    if held is not None:
        raise RuleError(
            f"{_House(house)} already holds a claim to {held.area} (since {held.since_year}).",
            code="already_claimed",
            fields={"area": "already claimed"},
        )


def grant_claim(
    campaign: Campaign,
    house: Dynasty,
    area: str,
    how: str,
    chronicle: Chronicle,
    *,
    parley: Parley | None = None,
    came_from: Claim | None = None,
    note: str = "",
) -> Claim:
    """Write a claim in the register (inside the caller's transaction) with its chronicle line."""
    name, key = rules.area_name(area)
    _refuse_held(campaign, house, key, name)
    claim = Claim.objects.create(
        campaign=campaign,
        dynasty=house,
        area=name,
        area_key=key,
        since_year=campaign.current_year,
        how=how,
        parley=parley,
        came_from=came_from,
        note=note[:200],
    )
    why = {
        ClaimHow.PARLEY: "granted by a parley (20.42)",
        ClaimHow.EXCHANGE: f"from {_house(came_from.dynasty)} (20.1)" if came_from else "by exchange (20.1)",
        ClaimHow.RECORDED: "recorded from the board",
    }[ClaimHow(how)]
    chronicle.add("area_claim", f"{_House(house)} holds a claim to {name}: {why}.", claim=claim.pk, dynasty=house.pk)
    return claim


def _end_claim(claim: Claim, year: int, end: ClaimEnd, note: str) -> None:
    claim.ended_year = year
    claim.end = end
    if note:
        claim.note = note[:200]
    claim.save(update_fields=["ended_year", "end", "note"])


@transaction.atomic
def area_claim_record(*, campaign: Campaign | int, dynasty: Dynasty | int, area: str, note: str = "", by: Actor) -> Claim:
    """The GM records a claim the board shows (one made before the companion kept the register, or
    by a diplomacy endeavour)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM keeps the register (campaign.permissions)
    house = _dynasty(campaign, dynasty, "claimant")
    chronicle = Chronicle(campaign)
    claim = grant_claim(campaign, house, area, ClaimHow.RECORDED, chronicle, note=note)
    chronicle.flush()
    return claim


@transaction.atomic
def area_claim_renounce(*, campaign: Campaign | int, claim: Claim | int, note: str = "", by: Actor) -> Claim:
    """A house renounces a claim (its player, or the GM for it)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    found = _claim(campaign, claim)
    require(by, campaign, "house", dynasty=found.dynasty_id, what="its claims")
    _end_claim(found, campaign.current_year, ClaimEnd.RENOUNCED, note)
    chronicle = Chronicle(campaign)
    chronicle.add(
        "area_claim_end",
        f"{_House(found.dynasty)} renounces its claim to {found.area}.",
        claim=found.pk,
        dynasty=found.dynasty_id,
    )
    chronicle.flush()
    return found


def _given(campaign: Campaign, pks: Iterable[Claim | int], giver: Dynasty, field: str) -> list[Claim]:
    out: list[Claim] = []
    for value in pks:
        found = _claim(campaign, value, field)
        if found.dynasty_id != giver.pk:
            raise RuleError(
                f"The claim to {found.area} is {found.dynasty.name}'s, not {giver.name}'s to give.",
                code="not_theirs",
                fields={field: "not theirs"},
            )
        if any(c.pk == found.pk for c in out):
            raise RuleError(f"The claim to {found.area} is listed twice.", code="invalid", fields={field: "twice"})
        out.append(found)
    return out


@transaction.atomic
def area_claim_exchange(
    *,
    campaign: Campaign | int,
    first: Dynasty | int,
    second: Dynasty | int,
    first_gives: Sequence[Claim | int] = (),
    second_gives: Sequence[Claim | int] = (),
    note: str = "",
    by: Actor,
) -> list[Claim]:
    """Two houses exchange claims as they agreed ("players may freely exchange existing claims to
    areas", 20.1): each claim one gives passes to the other (one side may give nothing: a gift).
    The GM records the agreement both made at the table (as a contract signed for every party).
    Returns the claims each house now holds by it."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # an agreement of two houses: the GM records it (campaign.permissions)
    one, other = _dynasty(campaign, first, "first house"), _dynasty(campaign, second, "second house")
    if one.pk == other.pk:
        raise RuleError("An exchange is between two houses.", code="invalid", fields={"second": "the same house"})
    gives_one = _given(campaign, first_gives, one, "first_gives")
    gives_other = _given(campaign, second_gives, other, "second_gives")
    if not gives_one and not gives_other:
        raise RuleError("Say which claims change hands.", code="invalid", fields={"first_gives": "required"})
    year = campaign.current_year
    chronicle = Chronicle(campaign)
    moved: list[tuple[Claim, Dynasty]] = [(c, other) for c in gives_one] + [(c, one) for c in gives_other]
    for old, to in moved:  # end them all first: a swap of claims to one area is allowed
        _end_claim(old, year, ClaimEnd.GIVEN, f"given to {to.name}" + (f": {note}" if note else ""))
    made = [grant_claim(campaign, to, old.area, ClaimHow.EXCHANGE, chronicle, came_from=old, note=note) for old, to in moved]
    chronicle.flush()
    return made


# what a parley's decision makes due -----------------------------------------------------------------


def excommunicate(
    campaign: Campaign, house: Dynasty, reason: str, chronicle: Chronicle, *, parley: Parley | None = None
) -> Excommunication:
    """Excommunicate a house (22.1), or return the excommunication it is already under."""
    already = excommunicated(campaign).get(house.pk)
    if already is not None:
        return already
    reigns = Reign.objects.filter(campaign=campaign, end_year__isnull=True)
    found = Excommunication.objects.create(
        campaign=campaign,
        dynasty=house,
        leader_id=leader_of(house, reigns, campaign.current_year),
        parley=parley,
        start_year=campaign.current_year,
        reason=reason[:200],
    )
    links: dict[str, Any] = {"dynasty": house.pk, "excommunication": found.pk}  # the line's data
    if parley is not None:
        links["parley"] = parley.pk
    chronicle.add("excommunication", f"{_House(house)} is excommunicated: it {reason} (22.1).", **links)
    return found


def oblige(campaign: Campaign, parley: Parley, loser: Dynasty, winner: Dynasty, action: str, chronicle: Chronicle) -> Obligation:
    """The decision's due (inside the parley's transaction): complied with by the end of the turn."""
    obligation = Obligation.objects.create(
        campaign=campaign,
        parley=parley,
        obliged=loser,
        owed_to=winner,
        area=parley.area,
        action=action,
        due_year=campaign.current_year,
    )
    chronicle.add(
        "obligation",
        f"By the parley's decision {_house(loser)} must {action} {parley.area} to {_house(winner)} by the end of the "
        f"turn, or be excommunicated (22.1).",
        parley=parley.pk,
        obligation=obligation.pk,
        dynasty=loser.pk,
    )
    return obligation


def _flout(campaign: Campaign, obligation: Obligation, state: str, chronicle: Chronicle) -> None:
    why = "refused" if state == ObligationState.REFUSED else "did not by the end of the turn"
    reason = f"flouted the parley's decision to {obligation.action} {obligation.area} to {obligation.owed_to.name} ({why})"
    obligation.excommunication = excommunicate(campaign, obligation.obliged, reason, chronicle, parley=obligation.parley)
    obligation.state = state
    obligation.resolved_year = campaign.current_year
    obligation.save(update_fields=["excommunication", "state", "resolved_year"])


@transaction.atomic
def obligation_resolve(*, campaign: Campaign | int, obligation: Obligation | int, complied: bool, by: Actor) -> Obligation:
    """The obliged house complies with a parley's decision (the area returned or relinquished:
    recorded) or refuses it, and is excommunicated (20.41, 20.43, 22.1). Its player or the GM."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    pk = _pk(obligation, "obligation")
    found = (
        Obligation.objects.select_for_update()
        .select_related("obliged", "owed_to", "parley")
        .filter(pk=pk, campaign=campaign)
        .first()
    )
    if found is None:
        raise NotFound(f"There is no parley decision #{pk} due in {campaign.name}.")
    require(by, campaign, "house", dynasty=found.obliged_id, what="its parley decisions")
    if not isinstance(complied, bool):
        raise RuleError("Say whether the decision was complied with (true) or refused (false).", code="invalid")
    if found.state != ObligationState.OPEN:
        raise RuleError(
            f"This decision was settled in {found.resolved_year}: {found.get_state_display().lower()}.",
            code="settled",
        )
    chronicle = Chronicle(campaign)
    if complied:
        found.state = ObligationState.COMPLIED
        found.resolved_year = campaign.current_year
        found.save(update_fields=["state", "resolved_year"])
        done = "returns" if found.action == "return" else "relinquishes"
        chronicle.add(
            "obligation",
            f"{_House(found.obliged)} {done} {found.area} to {_house(found.owed_to)}, as the parley decided.",
            parley=found.parley_id,
            obligation=found.pk,
            dynasty=found.obliged_id,
        )
    else:
        _flout(campaign, found, ObligationState.REFUSED, chronicle)
    chronicle.flush()
    return found


def obligations_turn_advance(campaign: Campaign, chronicle: Chronicle) -> list[Obligation]:
    """At the turn advance (``campaign.current_year`` is the new turn): a parley's decision not
    complied with by the end of its turn is flouted, and the house excommunicated (22.1; ruling)."""
    year = campaign.current_year
    overdue = [
        o
        for o in Obligation.objects.filter(campaign=campaign, state=ObligationState.OPEN)
        .select_related("obliged", "owed_to", "parley")
        .order_by("pk")
        if rules.obligation_overdue(o.due_year, year)
    ]
    for obligation in overdue:
        _flout(campaign, obligation, ObligationState.FLOUTED, chronicle)
    return overdue
