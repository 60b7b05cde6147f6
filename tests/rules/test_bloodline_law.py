"""BloodLine's pure rules for pass-over prices, spurned lines and the union's Stability (issue 15)."""

from __future__ import annotations

import pytest

from rules import bloodline as bl
from rules.people import MALE


def test_a_voluntary_dispute_charges_every_heir_of_the_skipped_lines():
    """'the country suffers a -1 Stability, and then suffers an additional Stability level loss and a
    revolt for each legitimate heir passed over': one heir named, two of his line skipped with him."""
    cost = bl.dispute_cost(sex=MALE, prisoner_of_another=False, married_away=False, skipped=1, line_heirs=2)
    assert (cost.kind, cost.stability, cost.revolts) == ("voluntary", -4, 3)
    alone = bl.dispute_cost(sex=MALE, prisoner_of_another=False, married_away=False, skipped=2)
    assert (alone.stability, alone.revolts) == (-3, 2)  # the rulebook's example: first and second, 3 and 2


def test_a_prisoners_line_costs_nothing_more():
    """A. 'roll for one revolt in the country' - the prisoner's case, whoever of his line runs the
    dynasty in the interim."""
    cost = bl.dispute_cost(sex=MALE, prisoner_of_another=True, married_away=False, skipped=1, line_heirs=3)
    assert (cost.kind, cost.stability, cost.revolts) == ("prisoner", 0, 1)


@pytest.mark.parametrize(
    ("strike", "which", "outcome"),
    [
        ((5,), None, "quiet"),
        ((1,), None, "quiet"),
        ((6,), (5,), "stability"),
        ((10,), (1,), "stability"),
        ((6,), (6,), "revolt"),
        ((7,), (10,), "revolt"),
    ],
)
def test_the_spurned_line_roll_has_both_outcomes(strike, which, outcome):
    """'there is a 50% chance that 1 stability level is lost or a new revolt is generated each Turn'."""
    assert bl.ongoing_dispute_outcome(strike, which) == outcome


def test_the_union_costs_one_level_in_each_of_its_first_two_turns():
    """'The Queen's country loses stability of 1 level per Turn for the first two Turns that this
    condition exists.'"""
    assert bl.union_turn_loss(0, charged_this_turn=False) == -1  # the turn it forms
    assert bl.union_turn_loss(1, charged_this_turn=True) == 0  # once a turn
    assert bl.union_turn_loss(1, charged_this_turn=False) == -1
    assert bl.union_turn_loss(2, charged_this_turn=False) == 0
