"""Odds for the table, spelt out: an exact chance as a count of equally likely throws of the dice,
as a reduced fraction and as a percent ("21 in 36 (7/12, 58.3%)"), and what the dice must show.

Pure: the pages show what these return; the chances themselves come from the rules
(:func:`rules.dice.chance_at_least` and the rulesets' own tables)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rules.dice import DiceSpec, chance_at_least


def percent(chance: Fraction) -> str:
    """58.3%; 100% and 0% only when certain or impossible (<0.1% and >99.9% otherwise)."""
    if chance <= 0:
        return "0%"
    if chance >= 1:
        return "100%"
    text = f"{float(chance * 100):.1f}"
    if text == "0.0":
        return "<0.1%"
    if text == "100.0":
        return ">99.9%"
    return f"{text.removesuffix('.0')}%"


@dataclass(frozen=True)
class Odds:
    """An exact chance on a throw of ``spec``: ``favourable`` of its ``throws`` equally likely
    outcomes (36 for 2d6, 100 for 2d10)."""

    chance: Fraction
    spec: DiceSpec

    def __post_init__(self) -> None:
        if not 0 <= self.chance <= 1:
            raise ValueError(f"A chance lies between 0 and 1, not {self.chance}.")
        if (self.chance * self.throws).denominator != 1:
            raise ValueError(f"{self.chance} is not a whole number of the {self.throws} throws of {self.spec}.")

    @property
    def throws(self) -> int:
        return int(self.spec.sides**self.spec.count)

    @property
    def favourable(self) -> int:
        return int(self.chance * self.throws)

    @property
    def fraction(self) -> str:
        if self.chance == 1:
            return "certain"
        if self.chance == 0:
            return "impossible"
        return f"{self.chance.numerator}/{self.chance.denominator}"

    @property
    def percent(self) -> str:
        return percent(self.chance)

    @property
    def text(self) -> str:
        """'21 in 36 (7/12, 58.3%)'; '36 in 36 (certain)'; '0 in 36 (impossible)'."""
        head = f"{self.favourable} in {self.throws}"
        if self.chance in (0, 1):
            return f"{head} ({self.fraction})"
        return f"{head} ({self.fraction}, {self.percent})"

    def __str__(self) -> str:
        return self.text

    def complement(self) -> Odds:
        return Odds(1 - self.chance, self.spec)


def at_least(spec: DiceSpec, target: int, modifier: int = 0) -> Odds:
    """The odds that a throw of ``spec`` plus ``modifier`` reaches ``target``."""
    return Odds(chance_at_least(spec, target, modifier), spec)


def dice_must_show(spec: DiceSpec, target: int, modifier: int = 0) -> str:
    """What the dice themselves must show to reach ``target`` with ``modifier``: '6 or more on 2d6',
    'any throw of 2d6', 'no throw of 2d6 (it would need 13)'."""
    need = target - modifier
    if need <= spec.count:
        return f"any throw of {spec}"
    if need > spec.count * spec.sides:
        return f"no throw of {spec} (it would need {need})"
    if need == spec.count * spec.sides:
        return f"{need} on {spec}"
    return f"{need} or more on {spec}"
