"""What a character's characteristics may be, by ruleset: each one's key, label and range, and the
validator every hand edit goes through (the admin, the Edit pages, the services).

The range is what births and rolls give (Blood Royale's -2..+2). Later changes go as the rules say:
a monarch's Charisma may fall below it (``Characteristic.monarch_below``: a passed-over heir's
penalty, a foreign intervention), and a value the record holds already is never refused for being
there (an edit of Strength keeps a King's Charisma of -3). Only the impossible is refused."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from rules.errors import RuleError


@dataclass(frozen=True)
class Characteristic:
    """One characteristic: its stored key, the label a GM reads, the values it may have."""

    key: str
    label: str
    low: int
    high: int
    note: str = ""  # why the range is what it is, when it is not obvious
    monarch_below: str = ""  # the rule that lets a monarch's value fall below ``low`` (no floor), if any

    @property
    def range_text(self) -> str:
        return f"{self.low:+d} to {self.high:+d}" if self.low < 0 else f"{self.low} to {self.high}"


class InvalidCharacteristics(RuleError):
    code = "invalid_characteristics"


class Ruleset(Protocol):
    """What these checks ask of a ruleset (``rules.registry.Ruleset`` has it; the registry imports
    this module, so this one names only the part it needs)."""

    @property
    def label(self) -> str: ...

    @property
    def characteristics(self) -> Callable[[str], tuple[Characteristic, ...]]: ...


def characteristics_of(ruleset: Ruleset, sex: str) -> tuple[Characteristic, ...]:
    """The characteristics a character of this sex has in this ruleset, in the sheet's order."""
    return ruleset.characteristics(sex)


def _whole(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("+-").isdigit():
            return int(text)
    return None


def allows(spec: Characteristic, number: int, *, monarch: bool = False, current: object = None) -> bool:
    """Whether the rules allow ``number`` for this characteristic of this character: within the
    range; below it for a monarch when the rules say so (``monarch_below``); or the value he has
    already (``current``: what the rules' own changes left there)."""
    if spec.low <= number <= spec.high or number == current:
        return True
    return number < spec.low and monarch and bool(spec.monarch_below)


def validate_characteristics(
    ruleset: Ruleset,
    sex: str,
    values: Mapping[str, object],
    *,
    monarch: bool = False,
    current: Mapping[str, object] | None = None,
) -> dict[str, int]:
    """``values`` checked against the ruleset: every characteristic given, each a whole number the
    rules allow this character (:func:`allows`: ``monarch`` whether he reigns or reigned, ``current``
    the values he has now), no other key (a misspelt "strenght" is refused). Returns them in the
    sheet's order; raises :class:`InvalidCharacteristics` naming each field and its range."""
    specs = characteristics_of(ruleset, sex)
    known = {spec.key: spec for spec in specs}
    problems: dict[str, str] = {}
    for key in values:
        if key not in known:
            problems[str(key)] = f"{ruleset.label} has no characteristic {key!r}; the characteristics are {_names(specs)}."
    out: dict[str, int] = {}
    for spec in specs:
        if spec.key not in values or values[spec.key] in (None, ""):
            problems[spec.key] = f"Give {spec.label} ({spec.range_text})."
            continue
        number = _whole(values[spec.key])
        if number is None or not allows(spec, number, monarch=monarch, current=(current or {}).get(spec.key)):
            problems[spec.key] = f"{spec.label} must be a whole number from {spec.range_text}, not {values[spec.key]!r}."
            if number is not None and number < spec.low and spec.monarch_below:
                problems[spec.key] += f" Only a monarch's may fall lower ({spec.monarch_below})."
            continue
        out[spec.key] = number
    if problems:
        raise InvalidCharacteristics(" ".join(problems.values()), fields=problems)
    return out


def _names(specs: Sequence[Characteristic]) -> str:
    return ", ".join(f"{s.key!r} ({s.label})" for s in specs)
