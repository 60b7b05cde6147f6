"""A child's Year of Birth within its parents' lives (rules/birth_years.py; issue 15,
defect 7; docs/rulings.md, Births): never after the mother's death, never more than a year after the
father's; a moved child keeps its place behind its elder brothers and sisters."""

from __future__ import annotations

from rules.birth_years import Birth, latest_birth_year, moved_births, within_lives


def test_the_latest_year_is_the_mothers_death_or_a_year_after_the_fathers() -> None:
    """'the second child ... one year later than the current turn ... a third child's Year of Birth
    should be two years later' - but never after the mother's death."""
    assert latest_birth_year(mother_death_year=None, father_death_year=None) is None
    assert latest_birth_year(mother_death_year=1320, father_death_year=None) == 1320
    assert latest_birth_year(mother_death_year=None, father_death_year=1320) == 1321
    assert latest_birth_year(mother_death_year=1325, father_death_year=1320) == 1321
    assert [within_lives(y, mother_death_year=1320, father_death_year=None) for y in (1318, 1320, 1321, 1322)] == [
        1318,
        1320,
        1320,
        1320,
    ]
    assert [within_lives(y, mother_death_year=None, father_death_year=1320) for y in (1320, 1321, 1322)] == [
        1320,
        1321,
        1321,
    ]


def test_a_turns_children_move_to_the_mothers_death_year_in_their_order() -> None:
    """1320, 1321, 1322 (the rulebook's example) and the mother dies in 1320's Survival: all three
    are of 1320, first, second and third, so 'Birth order matters for succession' still holds."""
    father, mother = 1, 2
    children = [
        Birth(10, 1315, 1, father, mother),  # an elder child of an earlier turn stays
        Birth(11, 1320, 1, father, mother),
        Birth(12, 1321, 1, father, mother),
        Birth(13, 1322, 1, father, mother),
    ]
    assert moved_births(children, {mother: 1320}) == {12: (1320, 2), 13: (1320, 3)}


def test_a_fathers_posthumous_children_are_born_within_a_year() -> None:
    father, mother = 1, 2
    children = [Birth(11, 1320, 1, father, mother), Birth(12, 1321, 1, father, mother), Birth(13, 1322, 1, father, mother)]
    assert moved_births(children, {father: 1320}) == {13: (1321, 2)}
    assert moved_births(children, {father: 1320, mother: 1320}) == {12: (1320, 2), 13: (1320, 3)}


def test_a_half_sibling_of_the_new_year_keeps_his_place() -> None:
    """The father's child by another wife born in the target year is elder: the moved one follows."""
    father, mother, other = 1, 2, 3
    children = [Birth(20, 1320, 1, father, other), Birth(21, 1320, 2, father, other), Birth(22, 1322, 1, father, mother)]
    assert moved_births(children, {mother: 1320}) == {22: (1320, 3)}


def test_nothing_moves_while_the_parents_live_or_the_years_fit() -> None:
    children = [Birth(11, 1320, 1, 1, 2), Birth(12, 1321, 1, 1, 2)]
    assert moved_births(children, {}) == {}
    assert moved_births(children, {2: 1325, 1: 1320}) == {}
