"""Dice: specifications, validation of typed faces, sources of faces, exact odds."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Protocol

from rules.errors import InvalidDice

_SPEC = re.compile(r"^(\d+)d(\d+)$")


@dataclass(frozen=True)
class DiceSpec:
    count: int
    sides: int

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}"

    @classmethod
    def parse(cls, text: str) -> DiceSpec:
        match = _SPEC.match(text.strip())
        if not match:
            raise InvalidDice(f"{text!r} is not a dice expression such as '2d6'.")
        count, sides = int(match.group(1)), int(match.group(2))
        if not (1 <= count <= 20 and 2 <= sides <= 100):
            raise InvalidDice(f"{text!r}: between 1 and 20 dice of 2 to 100 sides, please.")
        return cls(count, sides)


D6 = DiceSpec(1, 6)
TWO_D6 = DiceSpec(2, 6)
THREE_D6 = DiceSpec(3, 6)
D10 = DiceSpec(1, 10)
TWO_D10 = DiceSpec(2, 10)


def validate_faces(spec: DiceSpec, faces: object, *, purpose: str = "roll") -> tuple[int, ...]:
    """Check faces typed in from physical dice; refuse with what was expected."""
    expected = f"{purpose} needs {spec.count} {'die' if spec.count == 1 else 'dice'} of 1-{spec.sides} ({spec})"
    if isinstance(faces, (str, bytes)) or not isinstance(faces, (list, tuple)):
        raise InvalidDice(f"The {expected}: give the faces as a list of numbers, e.g. {_example(spec)}.")
    values: list[int] = []
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int):
            raise InvalidDice(f"The {expected}; {face!r} is not a whole number.")
        values.append(face)
    if len(values) != spec.count:
        raise InvalidDice(f"The {expected}; {len(values)} {'face was' if len(values) == 1 else 'faces were'} given.")
    bad = [v for v in values if not 1 <= v <= spec.sides]
    if bad:
        raise InvalidDice(f"The {expected}; {', '.join(map(str, bad))} cannot be rolled on a d{spec.sides}.")
    return tuple(values)


@dataclass(frozen=True)
class TypedTotal:
    """A roll typed in from the table as its total (``7`` for 2d6) where only the sum counts; the
    roll log keeps the total as its one "face" and marks it as a typed total."""

    value: int


Entered = Sequence[int] | TypedTotal  # what the table types for one roll: its faces, or its total


def validate_total(spec: DiceSpec, total: object, *, purpose: str = "roll") -> int:
    """Check a typed total; refuse with the totals the dice can show."""
    low, high = spec.count, spec.count * spec.sides
    expected = f"The total of a {purpose} on {spec} is a whole number from {low} to {high}"
    if isinstance(total, bool) or not isinstance(total, int):
        raise InvalidDice(f"{expected}; {total!r} is not one.")
    if not low <= total <= high:
        raise InvalidDice(f"{expected}; {total} cannot be rolled.")
    return total


def _example(spec: DiceSpec) -> str:
    return "[" + ", ".join(str(min(i + 3, spec.sides)) for i in range(spec.count)) + "]"


class DiceSource(Protocol):
    """Where generated faces come from."""

    def faces(self, spec: DiceSpec) -> tuple[int, ...]: ...


class RandomSource:
    """The server's generator; seeded, it replays exactly."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def faces(self, spec: DiceSpec) -> tuple[int, ...]:
        return tuple(self._rng.randint(1, spec.sides) for _ in range(spec.count))


class FixedSource:
    """Hands out pre-set faces in order (tests, replays); refuses to run dry silently."""

    def __init__(self, faces: list[tuple[int, ...]] | list[list[int]]) -> None:
        self._queue = [tuple(f) for f in faces]

    def faces(self, spec: DiceSpec) -> tuple[int, ...]:
        if not self._queue:
            raise InvalidDice(f"No more prepared faces for a {spec} roll.")
        faces = self._queue.pop(0)
        return validate_faces(spec, list(faces))

    @property
    def remaining(self) -> int:
        return len(self._queue)


def distribution(spec: DiceSpec) -> dict[int, Fraction]:
    """Exact probability of each total of ``spec`` (a fresh dict: callers may change it freely)."""
    return dict(_distribution(spec))


@lru_cache(maxsize=64)
def _distribution(spec: DiceSpec) -> dict[int, Fraction]:
    dist: dict[int, Fraction] = {0: Fraction(1)}
    one = Fraction(1, spec.sides)
    for _ in range(spec.count):
        nxt: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in range(1, spec.sides + 1):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + p * one
        dist = nxt
    return dist


def chance_at_least(spec: DiceSpec, target: int, modifier: int = 0) -> Fraction:
    """Exact chance that total + modifier >= target."""
    return sum((p for total, p in _distribution(spec).items() if total + modifier >= target), Fraction(0))


def chance_in_range(spec: DiceSpec, low: int, high: int) -> Fraction:
    return sum((p for total, p in _distribution(spec).items() if low <= total <= high), Fraction(0))
