"""The EU monarch tables' Marriages: the tables roll each crown's monarchs, but a match entered by
hand is wed as Blood Royale weds (A6: the Marriages step, both 15, the Treasury's payments), with the
ruleset's own marriage checks, as before the play packages."""

from __future__ import annotations

from collections.abc import Collection

from campaign.models import Campaign
from dynasties.models import Character
from dynasties.play.blood_royale.marriages import alliance_problem as alliance_problem
from dynasties.play.blood_royale.marriages import dowry as dowry
from dynasties.play.blood_royale.marriages import dowry_money as dowry_money
from dynasties.play.blood_royale.marriages import frozen as frozen
from dynasties.play.blood_royale.marriages import has_terms as has_terms
from dynasties.play.blood_royale.marriages import terms_help as terms_help
from dynasties.play.blood_royale.marriages import terms_problems as terms_problems
from dynasties.play.blood_royale.marriages import treasury_payments as treasury_payments
from dynasties.play.blood_royale.marriages import wedding_age as wedding_age
from dynasties.play.blood_royale.marriages import wedding_step as wedding_step
from dynasties.services.play_marriages import ruleset_problems
from rules import eu_monarchs as eu


def adult_age() -> int:
    return eu.ADULT_AGE


def rule_problems(campaign: Campaign, groom: Character, bride: Character, busy: Collection[int], *, wedding: bool) -> list[str]:
    return ruleset_problems(eu.marriage_problems, campaign, groom, bride, busy, wedding=wedding)
