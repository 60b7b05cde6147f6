"""Dice: specifications, typed-in faces, sources and exact odds.

RULES.md A4 (2d6 birth rolls, 1d6 sex rolls), A5 (2d6 + Constitution survival rolls) and A2 (3d6
characteristic rolls) all rest on these helpers; no database is needed.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.dice import (
    D6,
    D10,
    THREE_D6,
    TWO_D6,
    TWO_D10,
    DiceSpec,
    FixedSource,
    RandomSource,
    chance_at_least,
    chance_in_range,
    distribution,
    validate_faces,
)
from rules.errors import InvalidDice, RuleError

# --- DiceSpec ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count", "sides"),
    [("2d6", 2, 6), ("1d6", 1, 6), ("3d6", 3, 6), ("1d10", 1, 10), ("20d100", 20, 100), ("  2d10 ", 2, 10)],
)
def test_dice_spec_parse(text: str, count: int, sides: int) -> None:
    spec = DiceSpec.parse(text)
    assert spec == DiceSpec(count, sides)
    assert (spec.count, spec.sides) == (count, sides)


@pytest.mark.parametrize("spec", [D6, TWO_D6, THREE_D6, D10, TWO_D10, DiceSpec(7, 12)])
def test_dice_spec_str_round_trips(spec: DiceSpec) -> None:
    assert DiceSpec.parse(str(spec)) == spec


def test_dice_spec_str_reads_like_the_rulebook() -> None:
    assert str(TWO_D6) == "2d6"
    assert str(THREE_D6) == "3d6"
    assert str(D6) == "1d6"
    assert str(TWO_D10) == "2d10"


@pytest.mark.parametrize("text", ["", "d6", "2d", "2x6", "two d6", "2d6+1", "-1d6", "2 d 6", "1.5d6"])
def test_dice_spec_parse_refuses_what_is_not_an_expression(text: str) -> None:
    with pytest.raises(InvalidDice) as info:
        DiceSpec.parse(text)
    assert "is not a dice expression such as '2d6'" in info.value.message
    assert repr(text) in info.value.message


@pytest.mark.parametrize("text", ["0d6", "21d6", "2d1", "2d0", "2d101"])
def test_dice_spec_parse_refuses_silly_sizes(text: str) -> None:
    with pytest.raises(InvalidDice) as info:
        DiceSpec.parse(text)
    assert "between 1 and 20 dice of 2 to 100 sides" in info.value.message
    assert info.value.code == "invalid_dice"


# --- validate_faces --------------------------------------------------------------------------------


def test_validate_faces_accepts_lists_and_tuples_and_returns_a_tuple() -> None:
    assert validate_faces(TWO_D6, [3, 4]) == (3, 4)
    assert validate_faces(TWO_D6, (6, 1)) == (6, 1)
    assert validate_faces(D6, [1]) == (1,)
    assert validate_faces(THREE_D6, [1, 6, 6]) == (1, 6, 6)
    assert isinstance(validate_faces(TWO_D6, [3, 4]), tuple)


@pytest.mark.parametrize(
    ("faces", "given"), [([3], "1 face was given"), ([3, 4, 5], "3 faces were given"), ([], "0 faces were given")]
)
def test_validate_faces_refuses_the_wrong_number_of_dice(faces: list[int], given: str) -> None:
    with pytest.raises(InvalidDice) as info:
        validate_faces(TWO_D6, faces)
    message = str(info.value)
    assert "needs 2 dice of 1-6 (2d6)" in message
    assert given in message


def test_validate_faces_says_die_for_one_die() -> None:
    with pytest.raises(InvalidDice) as info:
        validate_faces(D6, [2, 3], purpose="sex roll")
    assert str(info.value) == "The sex roll needs 1 die of 1-6 (1d6); 2 faces were given."


@pytest.mark.parametrize(("faces", "bad"), [([0, 4], "0"), ([7, 1], "7"), ([3, -2], "-2"), ([9, 8], "9, 8")])
def test_validate_faces_refuses_faces_a_d6_cannot_show(faces: list[int], bad: str) -> None:
    with pytest.raises(InvalidDice) as info:
        validate_faces(TWO_D6, faces)
    assert f"{bad} cannot be rolled on a d6" in info.value.message
    assert "needs 2 dice of 1-6 (2d6)" in info.value.message


def test_validate_faces_range_follows_the_dice() -> None:
    assert validate_faces(D10, [10]) == (10,)
    with pytest.raises(InvalidDice, match="11 cannot be rolled on a d10"):
        validate_faces(D10, [11])


@pytest.mark.parametrize("face", [2.5, 3.0, "3", None, True, False, [3]])
def test_validate_faces_refuses_non_integer_faces(face: object) -> None:
    with pytest.raises(InvalidDice) as info:
        validate_faces(TWO_D6, [4, face])
    message = info.value.message
    assert f"{face!r} is not a whole number" in message
    assert "needs 2 dice of 1-6 (2d6)" in message


@pytest.mark.parametrize("faces", ["34", "3, 4", b"34", 7, None, {3, 4}, {"a": 3}])
def test_validate_faces_refuses_strings_and_non_lists(faces: object) -> None:
    with pytest.raises(InvalidDice) as info:
        validate_faces(TWO_D6, faces, purpose="birth roll")
    message = info.value.message
    assert message.startswith("The birth roll needs 2 dice of 1-6 (2d6)")
    assert "give the faces as a list of numbers, e.g. [3, 4]" in message


def test_invalid_dice_is_a_rule_error_with_a_stable_code() -> None:
    with pytest.raises(RuleError) as info:
        validate_faces(TWO_D6, [1])
    assert info.value.code == "invalid_dice"
    assert info.value.status == 400


# --- sources ---------------------------------------------------------------------------------------


def test_random_source_with_a_seed_replays_identically() -> None:
    specs = [TWO_D6, D6, THREE_D6, TWO_D10] * 50
    first, second = RandomSource(1300), RandomSource(1300)
    rolls_a = [first.faces(spec) for spec in specs]
    rolls_b = [second.faces(spec) for spec in specs]
    assert rolls_a == rolls_b
    other = RandomSource(1305)
    assert [other.faces(spec) for spec in specs] != rolls_a


def test_random_source_gives_valid_faces_and_every_face_turns_up() -> None:
    source = RandomSource(42)
    seen: set[int] = set()
    for _ in range(300):
        faces = source.faces(TWO_D6)
        assert len(faces) == 2
        assert validate_faces(TWO_D6, list(faces)) == faces
        seen.update(faces)
    assert seen == {1, 2, 3, 4, 5, 6}


def test_fixed_source_hands_out_prepared_faces_in_order() -> None:
    source = FixedSource([[3, 4], (6,), [1, 1, 1]])
    assert source.remaining == 3
    assert source.faces(TWO_D6) == (3, 4)
    assert source.remaining == 2
    assert source.faces(D6) == (6,)
    assert source.faces(THREE_D6) == (1, 1, 1)
    assert source.remaining == 0


def test_fixed_source_refuses_to_run_dry_silently() -> None:
    source = FixedSource([[2, 2]])
    source.faces(TWO_D6)
    with pytest.raises(InvalidDice, match=r"No more prepared faces for a 2d6 roll\."):
        source.faces(TWO_D6)


def test_fixed_source_validates_what_it_hands_out() -> None:
    with pytest.raises(InvalidDice, match="7 cannot be rolled on a d6"):
        FixedSource([[7]]).faces(D6)
    with pytest.raises(InvalidDice, match="1 face was given"):
        FixedSource([[3]]).faces(TWO_D6)


# --- exact odds ------------------------------------------------------------------------------------


def test_birth_roll_odds_are_21_in_36() -> None:
    """A4 Births: 2d6, 7 or more is a child."""
    assert chance_at_least(TWO_D6, 7) == Fraction(21, 36)
    assert chance_at_least(TWO_D6, 7) == Fraction(7, 12)


def test_two_d6_distribution_is_the_triangle() -> None:
    dist = distribution(TWO_D6)
    assert sorted(dist) == list(range(2, 13))
    assert dist == {total: Fraction(6 - abs(total - 7), 36) for total in range(2, 13)}


@pytest.mark.parametrize("spec", [D6, TWO_D6, THREE_D6, D10, TWO_D10, DiceSpec(4, 6), DiceSpec(2, 3)])
def test_distribution_sums_to_one(spec: DiceSpec) -> None:
    dist = distribution(spec)
    assert sum(dist.values()) == 1
    assert min(dist) == spec.count
    assert max(dist) == spec.count * spec.sides
    assert all(p > 0 for p in dist.values())


def test_distribution_of_3d6_counts() -> None:
    dist = distribution(THREE_D6)
    assert dist[3] == Fraction(1, 216)
    assert dist[10] == Fraction(27, 216)
    assert dist[18] == Fraction(1, 216)
    assert dist[9] == dist[12] == Fraction(25, 216)


def test_changing_a_returned_distribution_does_not_change_later_odds() -> None:
    dist = distribution(TWO_D6)
    dist[7] = Fraction(0)
    dist[99] = Fraction(1)
    assert distribution(TWO_D6)[7] == Fraction(6, 36)
    assert 99 not in distribution(TWO_D6)
    assert chance_at_least(TWO_D6, 7) == Fraction(21, 36)


@pytest.mark.parametrize(
    ("target", "modifier", "expected"),
    [
        (2, 0, Fraction(1)),
        (13, 0, Fraction(0)),
        (12, 0, Fraction(1, 36)),
        (4, 0, Fraction(33, 36)),
        (4, -1, Fraction(30, 36)),  # A5: needs 4 with Constitution -1 = a natural 5 or more
        (4, 1, Fraction(35, 36)),
        (3, 2, Fraction(1)),
        (13, 1, Fraction(1, 36)),
        (14, 1, Fraction(0)),
    ],
)
def test_chance_at_least_with_modifiers(target: int, modifier: int, expected: Fraction) -> None:
    assert chance_at_least(TWO_D6, target, modifier) == expected


def test_chance_at_least_one_d6_sex_roll() -> None:
    """A4: 1d6, 1-3 a boy: a half."""
    assert chance_at_least(D6, 4) == Fraction(1, 2)
    assert chance_in_range(D6, 1, 3) == Fraction(1, 2)


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (3, 5, Fraction(10, 216)),
        (6, 8, Fraction(46, 216)),
        (9, 12, Fraction(104, 216)),
        (13, 15, Fraction(46, 216)),
        (16, 18, Fraction(10, 216)),
        (3, 18, Fraction(1)),
        (19, 30, Fraction(0)),
        (10, 9, Fraction(0)),
    ],
)
def test_chance_in_range_3d6_bands(low: int, high: int, expected: Fraction) -> None:
    """A2: the five default characteristic bands of 3d6."""
    assert chance_in_range(THREE_D6, low, high) == expected
