"""Parleys and excommunication: the medieval parley over a breach (a tie excommunicates the breaker of a binding
agreement) and the readmission parley."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from contracts.models import Breach, ClaimHow, ContractKind, Excommunication, Parley, ParleyKind, ParleyVote
from contracts.services.breaches import _breach, _unsettled
from contracts.services.claims import _refuse_held, grant_claim, oblige
from contracts.services.common import (
    _data,
    _dynasty,
    _House,
    _house,
    _party_ids,
    _pk,
    died_heirless,
    excommunicated,
    leader_of,
)
from dynasties.models import Dynasty, Reign
from dynasties.services.common import World
from dynasties.services.play_registry import play_of
from rules import contracts as rules
from rules.errors import NotFound, RuleError

# parleys and excommunication ------------------------------------------------------------------


def _votes_in(
    campaign: Campaign, votes: Sequence[Mapping[str, Any]], banned: Mapping[int, Excommunication]
) -> tuple[list[rules.VoteIn], dict[int, Dynasty]]:
    houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
    out: list[rules.VoteIn] = []
    for entry in votes:
        unknown = sorted(set(entry) - {"dynasty", "stature", "church_cards", "christian", "choice"})
        if unknown:
            raise RuleError(f"Unknown part(s) of a parley vote: {', '.join(unknown)}.", code="invalid")
        if "dynasty" not in entry or "stature" not in entry:
            raise RuleError("Each parley vote names the dynasty and its leader's diplomatic stature.", code="invalid")
        pk = _pk(entry["dynasty"], "dynasty")
        if pk not in houses:
            raise NotFound(f"There is no dynasty #{pk} in {campaign.name} to vote.")
        christian = entry.get("christian", True)
        if not isinstance(christian, bool):
            raise RuleError("Say whether the leader is Christian (true or false).", code="invalid")
        out.append(
            rules.VoteIn(
                dynasty=pk,
                stature=entry["stature"],
                church_cards=entry.get("church_cards", 0),
                christian=christian,
                choice=rules.parse_choice(entry.get("choice")),
                excommunicated=pk in banned,
                seat=houses[pk].seat,
            )
        )
    return out, houses


def _parley(
    campaign: Campaign,
    *,
    kind: str,
    subject: str,
    caller: Dynasty,
    votes: Sequence[Mapping[str, Any]],
    banned: Mapping[int, Excommunication],
    breach: Breach | None = None,
    excommunication: Excommunication | None = None,
    opponent: Dynasty | None = None,
    area: str = "",
) -> tuple[Parley, rules.ParleyResult, dict[int, Dynasty]]:
    entries, houses = _votes_in(campaign, votes, banned)
    mine = next((v for v in entries if v.dynasty == caller.pk), None)
    if mine is None:
        raise RuleError(f"List the votes of {_house(caller)}, who calls the parley, with the others' (20.4).", code="invalid")
    if not mine.christian:
        raise RuleError(
            f"A parley may be called only by a player whose leader is Christian (20.4); {_house(caller)}'s is not.",
            code="not_christian",
        )
    if caller.pk in banned and kind != ParleyKind.READMISSION:
        raise RuleError(
            f"{_House(caller)} is excommunicated: it may call a parley only on its own readmission (22.13).",
            code="excommunicated",
        )
    result = rules.parley_tally(entries, readmission_of=caller.pk if kind == ParleyKind.READMISSION else None)
    parley = Parley.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        kind=kind,
        subject=subject[:200],
        caller=caller,
        breach=breach,
        excommunication=excommunication,
        opponent=opponent,
        area=area,
        votes_for=result.votes_for,
        votes_against=result.votes_against,
        carried=result.carried,
        outcome="",
    )
    weights = {v.dynasty: v for v in entries}
    ParleyVote.objects.bulk_create(
        [
            ParleyVote(
                parley=parley,
                dynasty_id=c.dynasty,
                stature=weights[c.dynasty].stature,
                church_cards=weights[c.dynasty].church_cards,
                christian=weights[c.dynasty].christian,
                votes=c.votes,
                choice=c.choice,
                position=c.position,
                excluded=c.excluded,
            )
            for c in result.order
        ]
    )
    return parley, result, houses


def _order_text(result: rules.ParleyResult, houses: Mapping[int, Dynasty]) -> str:
    cast = [f"{houses[c.dynasty].name} {c.votes} {c.choice}" for c in result.order if c.position is not None]
    barred = [f"{houses[c.dynasty].name} ({c.excluded})" for c in result.order if c.position is None]
    text = "votes cast " + (", ".join(cast) if cast else "by nobody")
    if barred:
        text += "; not voting: " + ", ".join(barred)
    return text


@transaction.atomic
def parley_run(
    *,
    campaign: Campaign | int,
    votes: Sequence[Mapping[str, Any]],
    breach: Breach | int | None = None,
    caller: Dynasty | int | None = None,
    kind: str | None = None,
    subject: str = "",
    area: str = "",
    opponent: Dynasty | int | None = None,
    by: Actor,
) -> Parley:
    """The medieval parley (20.4): ``votes = [{dynasty, stature, church_cards, christian, choice}]``,
    ``choice`` "for" the caller's motion, "against" or "abstain". On a broken binding agreement the
    injured party calls it and the motion is to excommunicate the breaker: a tie excommunicates
    (20.44). Other parleys record the vote, a tie favouring the caller, and their decision follows:
    a claim parley that carries grants the caller the claim to ``area`` (20.42); a parley contesting
    a diplomatic conquest or a dynastic inheritance by ``opponent`` makes the loser return or
    relinquish the area to the winner, or be excommunicated (20.41, 20.43: ``Obligation``). ``area``
    defaults to the subject."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    banned = excommunicated(campaign)
    if breach is not None:
        found = _breach(campaign, breach)
        if kind not in (None, ParleyKind.BREACH):
            raise RuleError("A parley on a breach decides whether to excommunicate the breaker (20.44).", code="invalid")
        contract = found.contract
        if contract.kind != ContractKind.AGREEMENT:
            raise RuleError(
                f"'{contract.title}' is a {contract.get_kind_display().lower()}, not a binding agreement: only breaking a "
                "binding agreement is put to a parley (20.3, 20.44)"
                + ("; in BloodLine the other players rule by majority" if play_of(campaign).disputes.by_majority() else "")
                + ".",
                code="not_binding",
            )
        if Parley.objects.filter(breach=found).exists():
            raise RuleError(
                "A parley on this breach was already held: it is called at the moment the agreement is broken (20.44).",
                code="settled",
            )
        _unsettled(found)
        who = found.raised_by if caller is None else _dynasty(campaign, caller, "caller")
        if who.pk == found.by_dynasty_id or who.pk not in _party_ids(contract):
            raise RuleError(f"The injured party to '{contract.title}' calls the parley (20.44).", code="not_a_party")
        if found.by_dynasty_id in banned:
            raise RuleError(
                f"{_House(found.by_dynasty)} is already excommunicated (since {banned[found.by_dynasty_id].start_year}).",
                code="excommunicated",
            )
        parley, result, houses = _parley(
            campaign,
            kind=ParleyKind.BREACH,
            subject=f"excommunicate {_house(found.by_dynasty)} for breaking '{contract.title}'",
            caller=who,
            votes=votes,
            banned=banned,
            breach=found,
        )
        tally = f"{result.votes_for} to {result.votes_against}" + (", a tie" if result.tie else "")
        chronicle = Chronicle(campaign)
        parties = _party_ids(contract)
        if result.carried:
            reigns = Reign.objects.filter(campaign=campaign, end_year__isnull=True)
            leader = leader_of(found.by_dynasty, reigns, campaign.current_year)
            excommunication = Excommunication.objects.create(
                campaign=campaign,
                dynasty=found.by_dynasty,
                leader_id=leader,
                breach=found,
                parley=parley,
                start_year=campaign.current_year,
                reason=f"broke the binding agreement '{contract.title}'"[:200],
            )
            parley.outcome = f"excommunicated ({tally})"
            chronicle.add(
                "excommunication",
                f"The parley called by {_house(who)} excommunicates {_house(found.by_dynasty)} for breaking '{contract.title}' "
                f"({tally}; {_order_text(result, houses)}).",
                **_data(contract, parties, parley=parley.pk, excommunication=excommunication.pk, dynasty=found.by_dynasty_id),
            )
        else:
            parley.outcome = f"not excommunicated ({tally})"
            chronicle.add(
                "parley",
                f"The parley called by {_house(who)} does not excommunicate {_house(found.by_dynasty)} for breaking "
                f"'{contract.title}' ({tally}; {_order_text(result, houses)}).",
                **_data(contract, parties, parley=parley.pk),
            )
        parley.save(update_fields=["outcome"])
        found.resolution = f"parley: {parley.outcome}"
        found.resolved_year = campaign.current_year
        found.save(update_fields=["resolution", "resolved_year"])
        chronicle.flush()
        return parley
    if kind in (None, ParleyKind.BREACH):
        raise RuleError("A parley on a broken agreement names the breach; other parleys say their kind.", code="invalid")
    if kind == ParleyKind.READMISSION:
        raise RuleError("A readmission parley is called with readmission_parley.", code="invalid")
    if kind not in ParleyKind.values:
        raise RuleError(f"Unknown kind of parley {kind!r}; one of: {', '.join(ParleyKind.values)}.", code="invalid")
    if caller is None:
        raise RuleError("Say which player calls the parley.", code="invalid", fields={"caller": "required"})
    if not subject.strip() and kind in (ParleyKind.CLAIM, *rules.CONTESTS) and area.strip():
        subject = {"claim": "a claim to", "conquest": "the conquest of", "inheritance": "the inheritance of"}[kind] + " " + area
    if not subject.strip():
        raise RuleError("Say what the parley decides (the area, the claim, the inheritance ...).", code="invalid")
    who = _dynasty(campaign, caller, "caller")
    name = ""
    against: Dynasty | None = None
    if kind in (ParleyKind.CLAIM, *rules.CONTESTS):
        name, key = rules.area_name(area or subject)
    if kind == ParleyKind.CLAIM:
        calls = Parley.objects.filter(campaign=campaign, kind=kind, caller=who, year=campaign.current_year).count()
        if not rules.may_call_claim_parley(calls):
            raise RuleError(
                f"{_House(who)} already called a parley for a claim this round: once per round (20.42).",
                code="once_per_round",
            )
        _refuse_held(campaign, who, key, name)
    elif kind in rules.CONTESTS:
        if opponent is None:
            what = "conquered the area" if kind == ParleyKind.CONQUEST else "played the Dynastic Inheritance card"
            raise RuleError(
                f"Name the opponent: the player who {what} ({'20.41' if kind == ParleyKind.CONQUEST else '20.43'}).",
                code="invalid",
                fields={"opponent": "required"},
            )
        against = _dynasty(campaign, opponent, "opponent")
        if against.pk == who.pk:
            raise RuleError(
                "A house does not contest its own conquest or inheritance.", code="invalid", fields={"opponent": "caller"}
            )
        if kind == ParleyKind.INHERITANCE:
            _refuse_heirless(campaign, who)
    parley, result, houses = _parley(
        campaign, kind=kind, subject=subject.strip(), caller=who, votes=votes, banned=banned, opponent=against, area=name
    )
    tally = f"{result.votes_for} to {result.votes_against}" + (", a tie: the caller prevails" if result.tie else "")
    parley.outcome = ("the caller prevails" if result.carried else "the caller loses") + f" ({tally})"
    chronicle = Chronicle(campaign)
    chronicle.add(
        "parley",
        f"Parley called by {_house(who)} on {subject.strip()} ({parley.get_kind_display()}): {parley.outcome}; "
        f"{_order_text(result, houses)}.",
        parley=parley.pk,
        dynasty=who.pk,
    )
    if kind == ParleyKind.CLAIM and rules.claim_obtained(result.carried):
        grant_claim(campaign, who, name, ClaimHow.PARLEY, chronicle, parley=parley)
        parley.outcome += f"; {who.name} obtains the claim to {name}"
    due = rules.contest_obligation(kind, result.carried)
    if due is not None and against is not None:
        loser, winner = (against, who) if due.loser == "opponent" else (who, against)
        oblige(campaign, parley, loser, winner, due.action, chronicle)
        parley.outcome += f"; {loser.name} must {due.action} {name} to {winner.name}"
    elif against is not None:
        holder = who if result.carried else against
        parley.outcome += f"; {holder.name} keeps {name}"
    parley.outcome = parley.outcome[:300]
    parley.save(update_fields=["outcome"])
    chronicle.flush()
    return parley


def _refuse_heirless(campaign: Campaign, house: Dynasty) -> None:
    """20.43 NB: "a player whose leader has just died heirless may not contest a Dynastic
    Inheritance card" (just: this turn; the records must keep the families to tell)."""
    if not house.crown or not play_of(campaign).births.keeps_families():
        return
    year = campaign.current_year
    ended = list(
        Reign.objects.filter(campaign=campaign, crown=house.crown, holder__death_year=year).filter(
            Q(end_year__isnull=True) | Q(end_year=year)
        )
    )
    if not ended:
        return
    world = World(campaign)
    for reign in ended:
        if died_heirless(world, reign.holder_id, house.crown):
            raise RuleError(
                f"The leader of {_house(house)}, {world.characters[reign.holder_id].display_name}, has just died heirless: "
                "his house may not contest a Dynastic Inheritance card (20.43).",
                code="heirless",
            )


@transaction.atomic
def readmission_parley(
    *, campaign: Campaign | int, dynasty: Dynasty | int, votes: Sequence[Mapping[str, Any]], by: Actor
) -> Parley:
    """An excommunicated player calls, once per round, a parley on his readmission; he votes in it
    (other excommunicated players do not) and a tie readmits him (20.45, 22.12, 22.14)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    house = _dynasty(campaign, dynasty, "excommunicated player")
    banned = excommunicated(campaign)
    excommunication = banned.get(house.pk)
    if excommunication is None:
        raise RuleError(f"{_House(house)} is not excommunicated: there is nothing to readmit.", code="not_excommunicated")
    if Parley.objects.filter(campaign=campaign, kind=ParleyKind.READMISSION, caller=house, year=campaign.current_year).exists():
        raise RuleError(
            f"{_House(house)} already called a readmission parley this round: once per round (20.45); call again next turn.",
            code="once_per_round",
        )
    parley, result, houses = _parley(
        campaign,
        kind=ParleyKind.READMISSION,
        subject=f"readmit {_house(house)} to the Church",
        caller=house,
        votes=votes,
        banned=banned,
        excommunication=excommunication,
    )
    tally = f"{result.votes_for} to {result.votes_against}" + (", a tie" if result.tie else "")
    chronicle = Chronicle(campaign)
    if result.carried:
        excommunication.ended_year = campaign.current_year
        excommunication.end_reason = f"readmitted by parley ({tally})"[:200]
        excommunication.save(update_fields=["ended_year", "end_reason"])
        parley.outcome = f"readmitted ({tally})"
        chronicle.add(
            "readmission",
            f"A parley readmits {_house(house)} to the Church ({tally}; {_order_text(result, houses)}).",
            parley=parley.pk,
            dynasty=house.pk,
            excommunication=excommunication.pk,
        )
    else:
        parley.outcome = f"not readmitted ({tally})"
        chronicle.add(
            "parley",
            f"A parley refuses to readmit {_house(house)} to the Church ({tally}; {_order_text(result, houses)}).",
            parley=parley.pk,
            dynasty=house.pk,
            excommunication=excommunication.pk,
        )
    parley.save(update_fields=["outcome"])
    chronicle.flush()
    return parley


def parley_hold(
    *,
    campaign: Campaign | int,
    votes: Sequence[Mapping[str, Any]],
    breach: Breach | int | None = None,
    kind: str | None = None,
    caller: Dynasty | int | None = None,
    subject: str = "",
    area: str = "",
    opponent: Dynasty | int | None = None,
    by: Actor,
) -> Parley:
    """A parley as the doors ask for one: on a breach (:func:`parley_run`), a readmission (``kind``
    readmission, ``caller`` the excommunicated house: :func:`readmission_parley`), or any other kind
    called by ``caller`` on ``subject`` (:func:`parley_run`)."""
    if breach is None and kind == ParleyKind.READMISSION:
        if caller is None:
            raise RuleError(
                "Name the excommunicated house asking to be readmitted.", code="invalid", fields={"caller": "required"}
            )
        return readmission_parley(campaign=campaign, dynasty=caller, votes=votes, by=by)
    return parley_run(
        campaign=campaign,
        votes=votes,
        breach=breach,
        kind=kind,
        caller=caller,
        subject=subject,
        area=area,
        opponent=opponent,
        by=by,
    )
