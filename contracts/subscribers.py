"""What contracts do when something happens to the dynasties (campaign.events): a death or the end
of a match ends contracts, a wedding brings a marriage contract into force, a new turn expires,
starts and pays them. Subscribed in ``ContractsConfig.ready()``; each handler writes into the
chronicle the publishing service hands it."""

from __future__ import annotations

from typing import Any

from campaign import events
from campaign.models import Campaign
from campaign.steps import Chronicle
from contracts.services import contracts_on_deaths, contracts_on_marriage_end, contracts_on_weddings, contracts_turn_advance


def on_deaths(event: events.Deaths, *, campaign: Campaign, chronicle: Chronicle | None = None, **_: Any) -> None:
    contracts_on_deaths(campaign, list(event.characters), chronicle)


def on_weddings(event: events.Weddings, *, campaign: Campaign, chronicle: Chronicle, **_: Any) -> None:
    contracts_on_weddings(campaign, list(event.marriages), chronicle)


def on_marriage_end(event: events.MarriageEnded, *, campaign: Campaign, chronicle: Chronicle, **_: Any) -> None:
    contracts_on_marriage_end(campaign, event.marriage, chronicle)


def on_turn_advance(event: events.TurnAdvanced, *, campaign: Campaign, chronicle: Chronicle, **_: Any) -> None:
    contracts_turn_advance(campaign, chronicle)


def subscribe() -> None:
    events.subscribe(events.Deaths, on_deaths)
    events.subscribe(events.Weddings, on_weddings)
    events.subscribe(events.MarriageEnded, on_marriage_end)
    events.subscribe(events.TurnAdvanced, on_turn_advance)
