"""Blood Royale's events (RULES.md A5, A7, A8): survival rolls for plague and battle (a storm kills
outright), the royal pieces on the map, the neutrals' ransom of 100 a head, regents for a monarch
under 15, and an annexed crown given back to its house."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campaign.dice import DiceBox
from campaign.models import Campaign
from dynasties.models import Character
from dynasties.services.play_events import EventDue, EventRoll, EventTerms, no_monarch_ransom
from rules import blood_royale as br
from rules.captures import OnTheMap
from rules.people import Person

monarch_ransom = no_monarch_ransom  # the neutrals' price is the only fixed one


def terms(reason: str) -> EventTerms:
    rolls = br.event_rolls(reason)  # an unknown reason is refused
    return EventTerms(rolls, br.EVENT_LABELS[reason], br.EVENT_MODIFIERS[reason], br.RULE_G_PLAGUE)


def roll(campaign: Campaign, box: DiceBox, tables: dict[str, Any], character: Character, due: EventDue) -> EventRoll:
    check = br.survival_check(tables["survival"], character.as_person(), campaign.current_year, extra_modifier=due.modifier)
    made = box.roll(
        br.SURVIVAL_DICE,
        purpose=due.reason,
        characters=[character],
        entered=due.entered,
        modifier=check.modifier,
        target=check.need,
        detail=f"age {check.age}" + (f"; {due.why}" if due.why is not None else ""),
    )
    survived = br.survives(check, made.faces)
    made.outcome = "survived" if survived else "died"
    return EventRoll(tuple(made.faces), check.modifier, check.need, survived)


def rolls_events() -> bool:
    return True


def at_sea() -> bool:
    return True  # the royal pieces aboard a fleet


def takes_prisoners() -> bool:
    return True  # the royal pieces on the map


def interim_claims() -> bool:
    return False


def on_the_map() -> OnTheMap:
    return OnTheMap.PIECES


def king_age() -> int:
    return br.ADULT_AGE


def combat() -> str:
    return br.RULESET.combat  # Strength


def neutral_ransom() -> int:
    return br.NEUTRAL_RANSOM


def regency_age() -> int:
    return br.REGENT_MIN_AGE


def needs_regent(person: Person, year: int) -> bool:
    return br.needs_regent(person, year)


def may_give_back_crowns() -> None:
    """A player holding two countries may give one back to its house (A7)."""


def strikes_pieces(reason: str) -> bool:
    return reason in br.PIECE_EVENTS


def struck_problem(reason: str, *, name: str, piece: str, captor: str | None) -> str | None:
    return br.struck_problem(reason, name=name, piece=piece, captor=captor)


def at_sea_rule() -> str:
    return br.PIECE_EVENTS["storm"]


def household_children_up_to() -> int:
    return br.RULE_G_CHILDREN_UP_TO


def plague_modifier(governed: int, struck: int) -> int:
    return br.rule_g_plague_modifier(governed, struck)


def survival_odds(tables: Mapping[str, Any], person: Person, year: int, extra: int) -> str:
    return br.survival_odds(br.survival_check(tables["survival"], person, year, extra_modifier=extra))
