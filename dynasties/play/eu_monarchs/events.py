"""The EU monarch tables' events: no survival rolls for an event and no storm (nobody aboard a
fleet: a death is recorded as it fell), the monarchs on the map, the ransoms the tables fix, no
regents and no crown given back."""

from __future__ import annotations

from campaign.models import Campaign
from dynasties.play.blood_royale.events import household_children_up_to as household_children_up_to  # no rule G
from dynasties.play.blood_royale.events import interim_claims as interim_claims  # no Stability track
from dynasties.play.blood_royale.events import king_age as king_age
from dynasties.play.blood_royale.events import plague_modifier as plague_modifier  # no rule G
from dynasties.play.blood_royale.events import roll as roll  # never asked: no event is rolled
from dynasties.play.blood_royale.events import strikes_pieces as strikes_pieces  # never asked: no pieces
from dynasties.play.blood_royale.events import struck_problem as struck_problem  # the captives spared
from dynasties.play.blood_royale.events import survival_odds as survival_odds  # never asked: no event is rolled
from dynasties.play.blood_royale.events import takes_prisoners as takes_prisoners  # the monarchs
from dynasties.play.blood_royale.events import terms as blood_royale_terms
from dynasties.play.bloodline.events import at_sea_rule as at_sea_rule  # never asked: nobody at sea
from dynasties.play.bloodline.events import needs_regent as needs_regent
from dynasties.play.bloodline.events import neutral_ransom as neutral_ransom
from dynasties.play.bloodline.events import rolls_events as rolls_events
from dynasties.services.eu_monarchs import load_eu_tables
from dynasties.services.play_events import EventTerms, no_crowns_given_back, no_regents, refuse_rolled_event, refuse_storm
from rules import eu_crowns
from rules import eu_monarchs as eu
from rules.captures import OnTheMap


def terms(reason: str) -> EventTerms:
    found = blood_royale_terms(reason)  # the reasons and their words are Blood Royale's
    if found.rolls:
        raise refuse_rolled_event(reason)
    if reason == "storm":
        raise refuse_storm()
    return found


def at_sea() -> bool:
    return False  # nobody aboard a fleet


def on_the_map() -> OnTheMap:
    return OnTheMap.MONARCHS


def monarch_ransom(campaign: Campaign, money: str) -> str:
    return eu_crowns.fixed_ransom_words(load_eu_tables(campaign)[eu.RANSOM], money)


def regency_age() -> int:
    raise no_regents(eu.LABEL)


def may_give_back_crowns() -> None:
    raise no_crowns_given_back(eu.LABEL)


def combat() -> str:
    return eu.RULESET.combat  # none kept
