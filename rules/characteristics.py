"""What a character's characteristics may be, by ruleset: each one's key, label and range, and the
validator every hand edit goes through (the admin, the Edit pages, the services)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.errors import RuleError

if TYPE_CHECKING:
    from rules.registry import Ruleset


@dataclass(frozen=True)
class Characteristic:
    """One characteristic: its stored key, the label a GM reads, the values it may have."""

    key: str
    label: str
    low: int
    high: int
    note: str = ""  # why the range is what it is, when it is not obvious

    @property
    def range_text(self) -> str:
        return f"{self.low:+d} to {self.high:+d}" if self.low < 0 else f"{self.low} to {self.high}"


class InvalidCharacteristics(RuleError):
    code = "invalid_characteristics"


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


def validate_characteristics(ruleset: Ruleset, sex: str, values: Mapping[str, object]) -> dict[str, int]:
    """``values`` checked against the ruleset: every characteristic given, each a whole number in
    its range, no other key (a misspelt "strenght" is refused). Returns them in the sheet's order;
    raises :class:`InvalidCharacteristics` naming each field and its range."""
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
        if number is None or not spec.low <= number <= spec.high:
            problems[spec.key] = f"{spec.label} must be a whole number from {spec.range_text}, not {values[spec.key]!r}."
            continue
        out[spec.key] = number
    if problems:
        raise InvalidCharacteristics(" ".join(problems.values()), fields=problems)
    return out


def _names(specs: Sequence[Characteristic]) -> str:
    return ", ".join(f"{s.key!r} ({s.label})" for s in specs)
