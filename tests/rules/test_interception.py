"""Blood Royale's optional rule D, the interception roll, and rule H's phases, from the rulebook's words."""

from __future__ import annotations

import pytest

from rules import interception as law
from rules.errors import RuleError


def roll(face: int, **kw: int) -> law.Interception:
    args = {"armies": 0, "intercepting_fleets": 0, "owner_fleets": 0, "owner_crowns": 0, "interceptor_crowns": 0}
    return law.interception(face, **{**args, **kw})


def test_each_intercepting_army_adds_one_and_six_takes_the_item() -> None:
    """(D): "+1 for each intercepting Army counter ... If the modified result is 6 or more, possession of
    the Trade Item passes to the intercepting player." """
    assert roll(4, armies=2).total == 6 and roll(4, armies=2).taken
    assert roll(4, armies=1).total == 5 and not roll(4, armies=1).taken


def test_only_the_fleets_in_excess_count_two_each() -> None:
    """(D): "+2 for each intercepting Fleet counter (count these only if they are in excess of the number
    of the owning player's Fleet counters in the same Sea Area)"."""
    r = roll(1, intercepting_fleets=3, owner_fleets=1)
    assert (r.fleets_in_excess, r.modifier, r.total, r.taken) == (2, 4, 5, False)
    assert roll(2, intercepting_fleets=3, owner_fleets=1).taken


def test_the_crowns_paid_move_the_roll_in_steps() -> None:
    """(D): "-1 for each 15 Crowns the owning player pays to the Treasury before the die roll; +1 for each
    20 Crowns the intercepting player pays"."""
    r = roll(6, armies=1, owner_crowns=45, interceptor_crowns=20)
    assert (r.owner_modifier, r.interceptor_modifier, r.modifier, r.total, r.taken) == (-3, 1, -1, 5, False)
    with pytest.raises(RuleError) as info:
        roll(3, armies=1, owner_crowns=20, interceptor_crowns=15)
    assert set(info.value.fields) == {"owner_crowns", "interceptor_crowns"}


def test_no_interception_without_an_army_or_fleets_in_excess() -> None:
    """(D): an item can be intercepted if it "(a) Passes through a province which contains Army counters
    of another country; (b) Passes through a sea area in which there are more Fleet counters of the
    intercepting country than of the owning country"."""
    with pytest.raises(RuleError, match="No interception is possible") as info:
        roll(6, intercepting_fleets=2, owner_fleets=2)
    assert info.value.fields == {"armies": "invalid"}


def test_the_die_is_one_d6() -> None:
    with pytest.raises(RuleError, match="1 to 6"):
        roll(7, armies=1)


def test_a_third_phase_only_under_rule_h() -> None:
    """(H): "With this Option, a third Event/Movement Phase is introduced"."""
    assert law.movement_phases(False) == 2 and law.movement_phases(True) == 3
    assert law.phase_problem(2, False) == "" and law.phase_problem(None, False) == ""
    assert "Optional Rule H" in law.phase_problem(3, False)
    assert law.phase_problem(3, True) == ""
    assert law.phase_problem(4, True) and law.phase_problem(0, True) and law.phase_problem(True, True)
