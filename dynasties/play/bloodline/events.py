"""BloodLine's events: no survival rolls for an event (a death is recorded as it fell), the royal
leaders on the map (a storm takes those aboard a fleet), no fixed ransom, no regents (a minor
monarch costs his country Stability) and no crown given back."""

from __future__ import annotations

from dynasties.play.blood_royale.events import household_children_up_to as household_children_up_to  # no rule G
from dynasties.play.blood_royale.events import king_age as king_age
from dynasties.play.blood_royale.events import plague_modifier as plague_modifier  # no rule G
from dynasties.play.blood_royale.events import roll as roll  # never asked: no event is rolled
from dynasties.play.blood_royale.events import strikes_pieces as strikes_pieces  # never asked: no pieces
from dynasties.play.blood_royale.events import struck_problem as struck_problem  # the captives spared
from dynasties.play.blood_royale.events import survival_odds as survival_odds  # never asked: no event is rolled
from dynasties.play.blood_royale.events import takes_prisoners as takes_prisoners  # the royal leaders
from dynasties.play.blood_royale.events import terms as blood_royale_terms
from dynasties.services.play_events import EventTerms, no_crowns_given_back, no_monarch_ransom, no_regents, refuse_rolled_event
from rules import bloodline as bl
from rules.captures import OnTheMap
from rules.people import Person

monarch_ransom = no_monarch_ransom


def terms(reason: str) -> EventTerms:
    found = blood_royale_terms(reason)  # the reasons and their words are Blood Royale's
    if found.rolls:
        raise refuse_rolled_event(reason)
    return found  # a storm takes the royal leaders aboard


def rolls_events() -> bool:
    return False


def at_sea() -> bool:
    return True  # the royal leaders aboard a fleet


def interim_claims() -> bool:
    return True  # the Stability track


def on_the_map() -> OnTheMap:
    return OnTheMap.LEADERS


def neutral_ransom() -> int:
    return 0  # any terms


def regency_age() -> int:
    raise no_regents(bl.LABEL)


def needs_regent(person: Person, year: int) -> bool:
    return False  # no regents


def may_give_back_crowns() -> None:
    raise no_crowns_given_back(bl.LABEL)


def at_sea_rule() -> str:
    return bl.LEADERS_AT_SEA


def combat() -> str:
    return bl.RULESET.combat  # the royal leaders' battle rolls
