"""Europa Universalis "BloodLine": where its succession differs from Blood Royale (RULES.md B).

The order is the same male-preference primogeniture (going back to the monarch's eldest sibling
and down when his own line is extinct: `succession.iter_succession`). What differs is the price of
a disputed succession — Stability and revolts instead of Strength — the Dynastic Union, the
Dynastic Crisis and the Turkish options. The rest of the ruleset (ADM/DIP/MIL, effective age,
births, survival table) arrives with the BloodLine ruleset itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dynasties.rules.dice import D10, DiceSpec
from dynasties.rules.errors import IllegalPassOver
from dynasties.rules.people import FEMALE, MALE

NAME = "eu-bloodline"
ADULT_AGE = 15
MINOR_STABILITY_PER_TURN = -1  # a monarch under 15 costs -1 Stability every turn
ONGOING_DISPUTE_DICE: DiceSpec = D10  # "a 50% chance ... each Turn": 6-10 on 1d10
ONGOING_DISPUTE_FROM = 6
UNION_QUEEN_STABILITY_TURNS = 2  # the Queen's country loses 1 Stability a turn for two turns
UNION_END_STABILITY = 1
CRISIS_AGES = (40, 35, (20, 15, 10))  # a new dynasty: King 40, wife 35, three children
OPTIONAL_RULES: dict[str, str] = {
    "turkish_princess_rights": "Turkey #1: a Turkish princess cannot reign; her husband inherits her rights",
    "turkish_fratricide": "Turkey #2: a new Turkish monarch puts his brothers to death",
}


@dataclass(frozen=True)
class DisputeCost:
    """What passing over heirs costs a BloodLine country."""

    kind: str  # "prisoner", "married_away" or "voluntary"
    stability: int  # levels lost at once (negative)
    revolts: int  # revolts rolled at once, in the country
    combat_malus: int  # on all combat rolls while the condition lasts
    ongoing_roll: bool  # each turn after survival, while a skipped line lives: 50% -1 Stability or a revolt
    interim: bool  # the next heir only runs the dynasty until the prisoner dies or is released
    explanation: str


def dispute_cost(*, sex: str, prisoner_of_another: bool, married_away: bool, skipped: int) -> DisputeCost:
    """The price of passing over ``skipped`` heirs, the first of whom is described (RULES.md B)."""
    if skipped < 1:
        raise IllegalPassOver("Name at least one heir to pass over.")
    if skipped == 1 and prisoner_of_another:
        return DisputeCost(
            "prisoner", 0, 1, 0, False, True,
            "the heir is a prisoner: one revolt at home; the next heir runs the dynasty until the heir dies or is "
            "released, and a released heir claims the throne at once",
        )
    if skipped == 1 and sex == FEMALE and married_away:
        return DisputeCost(
            "married_away", 0, 1, -1, False, False,
            "the heir is a woman controlled by another player through marriage: one revolt, and -1 on all combat "
            "rolls while she or her direct descendants live; her line stays with the other dynasty, makes no new "
            "marriages and has no more children",
        )
    return DisputeCost(
        "voluntary", -1 - skipped, skipped, -1, True, False,
        f"voluntary disputed succession: -1 Stability, plus -1 Stability and one revolt for each of the {skipped} "
        "heirs skipped; -1 on battle rolls and a 50% roll each turn (-1 Stability or a revolt) while a skipped line lives",
    )


def ongoing_dispute_strikes(faces: Sequence[int]) -> bool:
    """The turn's 50% roll for a living skipped line: 6-10 on 1d10 costs 1 Stability or a revolt."""
    return faces[0] >= ONGOING_DISPUTE_FROM


def may_reign(sex: str, *, turkish_princess_rule: bool) -> bool:
    """Turkey #1: a Turkish princess cannot ascend the throne (her husband inherits her rights)."""
    return not (turkish_princess_rule and sex == FEMALE)


def crisis_family(year: int) -> tuple[int, int, tuple[int, ...]]:
    """Dynastic Crisis: the birth years of the new King (40), his wife (35) and children (20, 15, 10)."""
    king, wife, children = CRISIS_AGES
    return year - king, year - wife, tuple(year - age for age in children)


def brothers_to_die(monarch_sex: str, *, turkish_fratricide: bool) -> bool:
    """Turkey #2: a new Turkish monarch puts his brothers to death (not sisters nor their children)."""
    return turkish_fratricide and monarch_sex == MALE
