"""Blood Royale's operations: its demo (slug ``demo``) and the automatic player's law, in the order it
plays it (the seeded campaigns replay byte for byte: the order is the golden exports')."""

from __future__ import annotations

import functools

from campaign.models import Campaign, ChronicleEntry
from campaign.permissions import Actor
from contracts.models import Excommunication, Parley
from dynasties.models import Title
from operations import services, simulation_corrections, simulation_options, simulation_provinces
from operations import simulation as sim
from operations.simulation import LawPart
from operations.simulation_diplomacy import DIPLOMACY_PARTS
from rules.blood_royale import EVENT_LABELS, NAME
from rules.dice import DiceSource

DEMO = services.Demo(slug=services.DEMO_SLUG, name=services.DEMO_NAME, prefix="")

STORM_DEATHS = LawPart("storm deaths", causes=(EVENT_LABELS["storm"],))
"""Royals lost at sea (a death recorded, no roll): BloodLine counts them with Blood Royale's words."""


def play_law(campaign: Campaign, source: DiceSource, wed: list[int], *, by: Actor) -> None:
    sim.play_contracts(campaign, source, wed, by=by)
    sim.play_releases(campaign, source, by=by)
    sim.play_events(campaign, source, by=by)
    sim.play_captures(campaign, source, by=by)
    simulation_options.play_optional_rules(campaign, source, by=by, board_events=(sim.play_events, sim.play_captures))  # D, H
    sim.play_pretenders(campaign, source, by=by)
    simulation_provinces.play_provinces(campaign, source, by=by)  # the province register (issue 33)
    sim.play_interphase(campaign, source, by=by)
    sim.play_crowns(campaign, source, by=by)


LAW = (
    *sim.SEQUENCE_PARTS,
    LawPart("survival dice corrected after Survival closed", count=simulation_corrections.late_corrections),
    LawPart("regencies", kinds=("regency",)),
    LawPart("disputed successions (rule C)", rolls=("charisma_loss",), kinds=("exile",)),
    LawPart("pass-overs", kinds=("pass_over",)),
    *sim.PRISONER_PARTS,
    LawPart("plague", rolls=("plague",)),
    LawPart("battle", rolls=("battle",)),
    STORM_DEATHS,
    *sim.CONTRACT_PARTS,
    LawPart("parleys", count=sim.count_of(Parley)),
    LawPart("excommunications", count=sim.count_of(Excommunication)),
    *(LawPart(name, count=functools.partial(sim.diplomacy_count, name)) for name in DIPLOMACY_PARTS),
    LawPart("Interphase taxes", postings=("tax",)),
    LawPart("armies raised", postings=("raising",)),
    LawPart("Interphase maintenance", postings=("maintenance",)),
    LawPart("rebellions", postings=("rebellion",)),
    LawPart("titles (rule G)", count=sim.count_of(Title)),
    LawPart("governed provinces' taxes (rule G)", count=lambda c: sim.postings_about(c, "tax", "Governed province")),
    LawPart("governed provinces' Crowns (rule G)", count=simulation_provinces.governed_crowns),
    LawPart("Famine markers (the province register)", count=lambda c: sim.lines_with(c, "province", "A Famine marker")),
    LawPart("Rebellion markers (the province register)", count=lambda c: sim.lines_with(c, "province", "A Rebellion marker")),
    LawPart("Pretenders", kinds=("pretender",)),
    LawPart("buy-backs", kinds=("pretender_return",)),
    LawPart("bastards", kinds=("bastard",)),
    LawPart("aristocratic auctions", kinds=("auction",), applies=sim.aristocratic),
    LawPart("regents chosen", count=lambda c: sim.lines_with(c, "regency", "replaces")),
    LawPart("crowns given back", count=lambda c: sim.lines_with(c, "union_ends", "given back")),
    LawPart("capitals lost", count=lambda c: sim.lines_with(c, "capital", "loses its capital")),
    LawPart("capitals retaken", count=lambda c: sim.lines_with(c, "capital", "retakes its capital")),
    LawPart("foreign military aid", kinds=("intervention",)),
    LawPart("trade interceptions (rule D)", rolls=("interception",)),
    LawPart(
        "third Event/Movement phase's events (rule H)",
        count=lambda c: ChronicleEntry.objects.filter(campaign=c, data__phase=3).count(),
    ),
)


def register() -> None:
    """Called once, by ``OperationsConfig.ready()``."""
    services.register_demo(NAME, DEMO)
    sim.register_law(NAME, player=play_law, parts=LAW)
