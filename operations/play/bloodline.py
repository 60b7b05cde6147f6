"""BloodLine's operations: its demo (logins ``bl-...``) and the automatic player's law, in the order
it plays it (the seeded campaigns replay byte for byte: the order is the golden exports')."""

from __future__ import annotations

from campaign.models import Campaign
from campaign.permissions import Actor
from contracts.models import Dispute
from dynasties.models import MarriageOffer, Title
from operations import services
from operations import simulation as sim
from operations.play.blood_royale import STORM_DEATHS
from operations.simulation import LawPart
from rules.bloodline import NAME
from rules.dice import DiceSource

DEMO = services.Demo(slug="demo-bloodline", name="Demo BloodLine Campaign", prefix="bl-")


def play_law(campaign: Campaign, source: DiceSource, wed: list[int], *, by: Actor) -> None:
    sim.play_contracts(campaign, source, wed, by=by)
    sim.play_releases(campaign, source, by=by)
    sim.play_events(campaign, source, by=by)
    sim.play_captures(campaign, source, by=by)
    sim.play_bloodline_titles(campaign, source, by=by)
    sim.play_title_income(campaign, by=by)
    sim.play_stability(campaign, source, by=by)


LAW = (
    *sim.SEQUENCE_PARTS,
    LawPart("betrothals", kinds=("betrothal",)),
    LawPart("pass-overs", kinds=("pass_over",)),
    LawPart("disputed lines' rolls", rolls=("disputed_line", "disputed_line_which", "spurned_heir")),
    *sim.PRISONER_PARTS,
    LawPart("interim claims", count=sim.interim_claims_decided),
    STORM_DEATHS,
    *sim.CONTRACT_PARTS,
    LawPart("disputes (majority votes)", count=sim.count_of(Dispute)),
    LawPart("minor houses entering play", count=lambda c: sim.lines_data(c, "created", "minor_house")),
    LawPart("Royal Marriage box ratings", count=lambda c: sim.lines_data(c, "minor_offer", "rating")),
    LawPart("minor houses' offers", count=sim.count_of(MarriageOffer)),
    LawPart("offers withdrawn", count=lambda c: sim.lines_data(c, "minor_offer", "withdrawn")),
    LawPart("minor houses' answers", kinds=("minor_offers_resolved",)),
    LawPart("titles", count=sim.count_of(Title)),
    LawPart("title income", postings=("title_income",)),
    LawPart("royal leaders", kinds=("leaders", "leader")),
    LawPart("Stability", kinds=("stability",)),
    LawPart("Stability changed by the board", count=lambda c: sim.board_stability(c)),
    LawPart("revolts", kinds=("revolt",)),
)


def register() -> None:
    """Called once, by ``OperationsConfig.ready()``."""
    services.register_demo(NAME, DEMO)
    sim.register_law(NAME, player=play_law, parts=LAW)
