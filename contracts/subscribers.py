"""What contracts do when something happens to the dynasties (campaign.events): a death or the end
of a match ends contracts, a wedding brings a marriage contract into force, a new turn expires,
starts and pays them. Subscribed in ``ContractsConfig.ready()``; each handler writes into the
chronicle the publishing service hands it."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from campaign import events
from campaign.models import Campaign
from campaign.steps import Chronicle
from contracts.models import Contract, EndKind, Excommunication
from contracts.services import contracts_on_deaths, contracts_on_marriage_end, contracts_on_weddings, contracts_turn_advance
from dynasties.models import Character, Reign
from dynasties.services import corrections


def on_deaths(event: events.Deaths, *, campaign: Campaign, chronicle: Chronicle | None = None, **_: Any) -> None:
    contracts_on_deaths(campaign, list(event.characters), chronicle)


def on_weddings(event: events.Weddings, *, campaign: Campaign, chronicle: Chronicle, **_: Any) -> None:
    contracts_on_weddings(campaign, list(event.marriages), chronicle)


def on_marriage_end(event: events.MarriageEnded, *, campaign: Campaign, chronicle: Chronicle, **_: Any) -> None:
    contracts_on_marriage_end(campaign, event.marriage, chronicle)


def on_turn_advance(event: events.TurnAdvanced, *, campaign: Campaign, chronicle: Chronicle, **_: Any) -> None:
    contracts_turn_advance(campaign, chronicle)


def death_dependents(campaign: Campaign, character: Character) -> list[str]:
    """What the death of ``character`` this year ended among the contracts: a corrected survival
    die may not reverse it (``dynasties.services.corrections``), undo the step instead."""
    year = campaign.current_year
    ended = Contract.objects.filter(campaign=campaign, ended_year=year, end_kind__in=[EndKind.DEATH, EndKind.BETROTHAL_VOID])
    found = [
        f"it ended the contract '{c.title}'" for c in ended.filter(Q(marriage__husband=character) | Q(marriage__wife=character))
    ]
    if character.controlled_by_id is not None and Reign.objects.filter(holder=character, end_year__isnull=True).exists():
        heirless = Contract.objects.filter(
            campaign=campaign, ended_year=year, end_kind=EndKind.HEIRLESS, parties=character.controlled_by_id
        )
        found += [f"it ended the contract '{c.title}'" for c in heirless]
        if Excommunication.objects.filter(campaign=campaign, ended_year=year, dynasty=character.controlled_by_id).exists():
            found.append("it ended his house's excommunication")
    return found


def subscribe() -> None:
    corrections.on_death_reversal(death_dependents)
    events.subscribe(events.Deaths, on_deaths)
    events.subscribe(events.Weddings, on_weddings)
    events.subscribe(events.MarriageEnded, on_marriage_end)
    events.subscribe(events.TurnAdvanced, on_turn_advance)
