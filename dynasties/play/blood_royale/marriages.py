"""Blood Royale's Marriages (RULES.md A6): weddings in the Marriages step, both 15; no alliance
terms; the Treasury pays the bride's Charisma to the groom's house and 100 Crowns for a match with a
monarch to the spouse's house of birth."""

from __future__ import annotations

from collections.abc import Collection

from campaign.models import Campaign, Step
from dynasties.models import Character, Dynasty, PostingKind
from dynasties.services.play_marriages import (
    TreasuryPayment,
    no_alliance_problem,
    no_dowry,
    no_dowry_money,
    no_frozen_lines,
    no_terms_problems,
    ruleset_problems,
)
from rules import blood_royale as br

alliance_problem = no_alliance_problem  # a match has no terms
terms_problems = no_terms_problems
dowry = no_dowry  # the Treasury's payments are the money of a match
dowry_money = no_dowry_money
frozen = no_frozen_lines


def wedding_step() -> Step:
    return Step.MARRIAGES


def has_terms() -> bool:
    return False


def terms_help() -> str | None:
    return None


def adult_age() -> int:
    return br.ADULT_AGE


def wedding_age(campaign: Campaign, character: Character) -> int:
    return character.age(campaign.current_year)


def rule_problems(campaign: Campaign, groom: Character, bride: Character, busy: Collection[int], *, wedding: bool) -> list[str]:
    return ruleset_problems(br.marriage_problems, campaign, groom, bride, busy, wedding=wedding)


def treasury_payments(
    campaign: Campaign, groom: Character, bride: Character, groom_house: Dynasty | None, reigning: Collection[int]
) -> list[TreasuryPayment]:
    """The wedding's payments by or into the Treasury (A6): the bride's Charisma to the house
    controlling the groom, the 100 Crowns of a match with a monarch to the spouse's house of birth
    (the nobility is owed nothing)."""
    out: list[TreasuryPayment] = []
    payments = br.wedding_payments(
        bride_charisma=int((bride.characteristics or {}).get("charisma", 0)),
        groom_is_monarch=groom.pk in reigning,
        bride_is_monarch=bride.pk in reigning,
    )
    for payment in payments:
        if payment.charisma:
            house = groom_house
        elif payment.to == "bride":
            house = bride.birth_dynasty
        else:
            house = groom.birth_dynasty
        if house is not None:
            kind = PostingKind.WEDDING if payment.charisma else PostingKind.MONARCH_MATCH
            out.append((house, payment.amount, kind, payment.reason))
    return out
