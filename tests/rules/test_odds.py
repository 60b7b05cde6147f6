"""Odds spelt out for the pages: throws, the reduced fraction, the percent, what the dice must show."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import blood_royale as br
from rules import bloodline as bl
from rules.dice import D6, TWO_D6, TWO_D10
from rules.odds import Odds, at_least, dice_must_show, percent


def test_birth_odds_of_both_family_rulesets():
    assert Odds(br.birth_chance(), TWO_D6).text == "21 in 36 (7/12, 58.3%)"
    assert Odds(bl.birth_chance(), TWO_D10).text == "55 in 100 (11/20, 55%)"


@pytest.mark.parametrize(
    ("target", "modifier", "text", "must"),
    [
        (4, 0, "33 in 36 (11/12, 91.7%)", "4 or more on 2d6"),
        (4, -1, "30 in 36 (5/6, 83.3%)", "5 or more on 2d6"),
        (3, 1, "36 in 36 (certain)", "any throw of 2d6"),
        (13, 0, "0 in 36 (impossible)", "no throw of 2d6 (it would need 13)"),
        (12, 0, "1 in 36 (1/36, 2.8%)", "12 on 2d6"),
        (9, -5, "0 in 36 (impossible)", "no throw of 2d6 (it would need 14)"),
    ],
)
def test_survival_odds_and_what_the_dice_must_show(target, modifier, text, must):
    assert at_least(TWO_D6, target, modifier).text == text
    assert dice_must_show(TWO_D6, target, modifier) == must


def test_every_total_sums_to_certainty():
    total = sum((at_least(TWO_D6, t).chance - at_least(TWO_D6, t + 1).chance for t in range(2, 13)), Fraction(0))
    assert total == 1
    odds = at_least(TWO_D6, 7)
    assert odds.favourable + odds.complement().favourable == 36
    assert odds.complement().fraction == "5/12"


def test_percent_never_rounds_to_certain_or_impossible():
    assert percent(Fraction(1, 10_000)) == "<0.1%"
    assert percent(Fraction(9_999, 10_000)) == ">99.9%"
    assert percent(Fraction(1, 2)) == "50%"
    assert percent(Fraction(0)) == "0%" and percent(Fraction(1)) == "100%"


def test_odds_refuse_chances_the_dice_cannot_give():
    with pytest.raises(ValueError, match="between 0 and 1"):
        Odds(Fraction(3, 2), D6)
    with pytest.raises(ValueError, match="whole number"):
        Odds(Fraction(1, 7), D6)
    assert str(Odds(Fraction(1, 2), D6)) == "3 in 6 (1/2, 50%)"
