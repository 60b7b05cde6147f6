"""Fixed-seed statistics: the server's dice and the rules' readings agree with the exact odds.

Each frequency over N rolls must lie within 4 standard deviations (binomial, sqrt(N p (1 - p))) of the
exact probability computed with the rules core's own exact odds; with a fixed seed the test is
deterministic, and a stub (always a child, always a boy, a wrong band...) lands hundreds of sd away.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest

from rules import blood_royale as br
from rules import tables as T
from rules.dice import D6, THREE_D6, TWO_D6, RandomSource, chance_at_least, chance_in_range
from rules.people import FEMALE, MALE, Person

N = 20_000
SEED = 1300


def within_4_sd(successes: int, n: int, p: Fraction) -> bool:
    expected = n * float(p)
    sd = math.sqrt(n * float(p) * (1 - float(p)))
    return abs(successes - expected) <= 4 * sd


def test_within_4_sd_helper_is_tight_enough_to_catch_a_stub() -> None:
    p = Fraction(21, 36)
    assert within_4_sd(round(N * 21 / 36), N, p)
    assert not within_4_sd(N, N, p)  # "always a child"
    assert not within_4_sd(round(N * 0.55), N, p)  # 3.3 percentage points off is far outside


def test_a4_birth_frequency_matches_21_in_36() -> None:
    """A4 Births: "roll 2d6; 7 or more = a child"."""
    p = chance_at_least(TWO_D6, br.BIRTH_TARGET)
    assert p == Fraction(21, 36)
    source = RandomSource(SEED)
    births = sum(br.birth_succeeds(source.faces(br.BIRTH_DICE)) for _ in range(N))
    assert within_4_sd(births, N, p), f"{births} births in {N} rolls, expected about {N * float(p):.0f}"
    # the exact value is off by one from its neighbours by far more than the tolerance
    assert not within_4_sd(births, N, chance_at_least(TWO_D6, 8))
    assert not within_4_sd(births, N, chance_at_least(TWO_D6, 6))


def test_a4_sex_frequency_is_one_half() -> None:
    """A4: "1d6: 1-3 boy, 4-6 girl"."""
    source = RandomSource(SEED + 1)
    boys = sum(br.sex_from_faces(source.faces(br.SEX_DICE)) == MALE for _ in range(N))
    p = chance_in_range(D6, 1, 3)
    assert p == Fraction(1, 2)
    assert within_4_sd(boys, N, p), f"{boys} boys in {N}"


@pytest.mark.parametrize(
    ("need", "modifier"),
    [(4, -1), (4, 0), (7, 0), (9, 2), (13, 0), (13, 1), (10, -2)],
)
def test_a5_survival_frequency_matches_the_exact_chance(need: int, modifier: int) -> None:
    """A5 Survival: "2d6 + Constitution ... survives on a result at least the survival number"."""
    check = br.SurvivalCheck(age=30, need=need, modifier=modifier)
    p = check.chance()
    assert p == chance_at_least(TWO_D6, need - modifier)
    source = RandomSource(SEED + need * 10 + modifier)
    survived = sum(br.survives(check, source.faces(br.SURVIVAL_DICE)) for _ in range(N))
    if p in (0, 1):
        assert survived == N * p
    else:
        assert within_4_sd(survived, N, p), f"{survived} survived in {N}, chance {p}"


def test_a5_worked_example_mother_survives_five_times_in_six() -> None:
    """A5: "A mother aged 30 needs 4 or more ... reducing her Constitution for that turn to -1": she
    survives on a natural 5 or more, 30 times in 36."""
    mother = Person(id=1, sex=FEMALE, birth_year=1290, characteristics={"constitution": 1})
    check = br.survival_check(T.DEFAULT_SURVIVAL, mother, 1320, extra_modifier=br.birth_penalty(3))
    assert check.chance() == Fraction(30, 36)
    source = RandomSource(SEED + 2)
    survived = sum(br.survives(check, source.faces(TWO_D6)) for _ in range(N))
    assert within_4_sd(survived, N, check.chance())


def test_a2_characteristic_values_match_the_band_probabilities() -> None:
    """A2: "roll 3d6 three times ... and read the table" (3-5 -2, 6-8 -1, 9-12 0, 13-15 +1, 16-18 +2)."""
    bands = T.DEFAULT_CHARACTERISTIC_BANDS
    source = RandomSource(SEED + 3)
    values = Counter(
        value
        for _ in range(N // 3 + 1)
        for value in br.characteristics_from_totals(
            bands, MALE, [sum(source.faces(br.CHARACTERISTIC_DICE)) for _ in range(3)]
        ).values()
    )
    n = sum(values.values())
    assert set(values) <= {-2, -1, 0, 1, 2}
    expected = {-2: Fraction(10, 216), -1: Fraction(46, 216), 0: Fraction(104, 216), 1: Fraction(46, 216), 2: Fraction(10, 216)}
    for band in bands:
        p = chance_in_range(THREE_D6, band["low"], band["high"])
        assert p == expected[band["value"]]
        assert within_4_sd(values[band["value"]], n, p), f"value {band['value']}: {values[band['value']]} of {n}"
