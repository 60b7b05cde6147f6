"""Blood Royale's optional rule D, Movement of Trade Items: the interception roll (pure).

Rulebook (D): "If an interception is possible, the owning player must throw one die, adding the
following modifiers: +1 for each intercepting Army counter; +2 for each intercepting Fleet counter
(count these only if they are in excess of the number of the owning player's Fleet counters in the
same Sea Area); -1 for each 15 Crowns the owning player pays to the Treasury before the die roll;
+1 for each 20 Crowns the intercepting player pays to the Treasury before the die roll. ... If the
modified result is 6 or more, possession of the Trade Item passes to the intercepting player."

And the Movement's phases: a turn has two Event/Movement phases, three under optional rule (H)
("With this Option, a third Event/Movement Phase is introduced")."""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import DiceSpec
from rules.errors import RuleError

RULE_D = "trade_item_movement"
RULE_H = "extra_movement_phase"

INTERCEPTION_DICE = DiceSpec(1, 6)
PER_ARMY = 1
PER_FLEET_IN_EXCESS = 2
OWNER_STEP = 15  # -1 for each 15 Crowns the owner pays
INTERCEPTOR_STEP = 20  # +1 for each 20 Crowns the interceptor pays
TAKEN_AT = 6  # "If the modified result is 6 or more"
MAX_COUNTERS = 50
MAX_CROWNS = 10_000

MOVEMENT_PHASES = 2
MOVEMENT_PHASES_RULE_H = 3


def movement_phases(rule_h: bool) -> int:
    """How many Event/Movement phases a turn has (14, 15; optional rule H adds a third)."""
    return MOVEMENT_PHASES_RULE_H if rule_h else MOVEMENT_PHASES


def phase_problem(phase: int | None, rule_h: bool) -> str:
    """Why ``phase`` is not a Movement phase of a turn ('' when it is, or when none is said)."""
    if phase is None:
        return ""
    if isinstance(phase, bool) or not isinstance(phase, int) or phase < 1:
        return f"The Movement phase is 1 or 2 (3 under optional rule H), not {phase!r}."
    last = movement_phases(rule_h)
    if phase > last:
        if phase == MOVEMENT_PHASES_RULE_H:
            return (
                "There is no third Event/Movement phase: Optional Rule H (Extra Event/Movement Phase) is not in force "
                "in this campaign (a turn has two)."
            )
        return f"A turn has {last} Event/Movement phases, not {phase}."
    return ""


@dataclass(frozen=True)
class Interception:
    """The modified roll of one interception attempt and what it decides."""

    face: int
    armies: int
    fleets_in_excess: int
    owner_modifier: int  # -1 for each 15 Crowns
    interceptor_modifier: int  # +1 for each 20 Crowns
    modifier: int
    total: int
    taken: bool


def fleets_in_excess(intercepting_fleets: int, owner_fleets: int) -> int:
    """Fleet counters count 'only if they are in excess of the number of the owning player's Fleet
    counters in the same Sea Area'."""
    return max(0, intercepting_fleets - owner_fleets)


def interception_problems(
    *, armies: int, intercepting_fleets: int, owner_fleets: int, owner_crowns: int, interceptor_crowns: int
) -> dict[str, str]:
    """Each field's problem (field -> message): counts are whole numbers from 0, the Crowns paid in
    whole steps (15 for the owner, 20 for the interceptor), and the item must be interceptable at all:
    an army of the interceptor in a province it passes, or more of his fleets than the owner's in a sea
    area (D (a), (b))."""
    problems: dict[str, str] = {}
    for name, value, high in (
        ("armies", armies, MAX_COUNTERS),
        ("intercepting_fleets", intercepting_fleets, MAX_COUNTERS),
        ("owner_fleets", owner_fleets, MAX_COUNTERS),
        ("owner_crowns", owner_crowns, MAX_CROWNS),
        ("interceptor_crowns", interceptor_crowns, MAX_CROWNS),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            problems[name] = f"{name.replace('_', ' ').capitalize()} must be a whole number from 0 to {high}, not {value!r}."
    if problems:
        return problems
    if owner_crowns % OWNER_STEP:
        problems["owner_crowns"] = (
            f"The owner pays in steps of {OWNER_STEP} Crowns (-1 on the roll for each {OWNER_STEP}); {owner_crowns} is not "
            "a multiple."
        )
    if interceptor_crowns % INTERCEPTOR_STEP:
        problems["interceptor_crowns"] = (
            f"The interceptor pays in steps of {INTERCEPTOR_STEP} Crowns (+1 on the roll for each {INTERCEPTOR_STEP}); "
            f"{interceptor_crowns} is not a multiple."
        )
    if armies == 0 and fleets_in_excess(intercepting_fleets, owner_fleets) == 0:
        problems["armies"] = (
            "No interception is possible: the route passes no province with the interceptor's Army counters and no sea "
            "area where his Fleet counters outnumber the owner's (Optional Rule D (a), (b))."
        )
    return problems


def interception(
    face: int, *, armies: int, intercepting_fleets: int, owner_fleets: int, owner_crowns: int, interceptor_crowns: int
) -> Interception:
    """The owner's die ``face`` modified as rule D says; 6 or more: the item passes to the interceptor."""
    problems = interception_problems(
        armies=armies,
        intercepting_fleets=intercepting_fleets,
        owner_fleets=owner_fleets,
        owner_crowns=owner_crowns,
        interceptor_crowns=interceptor_crowns,
    )
    if problems:
        raise RuleError(" ".join(problems.values()), code="invalid", fields=dict.fromkeys(problems, "invalid"))
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= INTERCEPTION_DICE.sides:
        raise RuleError(f"The owner's die is one d6: 1 to 6, not {face!r}.", code="invalid", fields={"die": "invalid"})
    excess = fleets_in_excess(intercepting_fleets, owner_fleets)
    owner_mod = -(owner_crowns // OWNER_STEP)
    interceptor_mod = interceptor_crowns // INTERCEPTOR_STEP
    modifier = PER_ARMY * armies + PER_FLEET_IN_EXCESS * excess + owner_mod + interceptor_mod
    total = face + modifier
    return Interception(
        face=face,
        armies=armies,
        fleets_in_excess=excess,
        owner_modifier=owner_mod,
        interceptor_modifier=interceptor_mod,
        modifier=modifier,
        total=total,
        taken=total >= TAKEN_AT,
    )
