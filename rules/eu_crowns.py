"""What the EU monarch tables give between turns and how a crown's reigns are drawn (RULES.md C), as
pure functions: the odds of a monarch's military skill before it is rolled, a ransom in words, and
the timeline of a crown's reigns along the years. Nothing here rolls or stores anything."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules import eu_monarchs as eu


def military_average_odds(military: Mapping[str, Any], mil: int) -> list[tuple[str, Fraction]]:
    """The average leader values a monarch of this MIL may roll on 1d10, each with its chance
    (``"4*"``: a siege value too), lowest first."""
    odds: dict[str, Fraction] = {}
    for face in range(1, 11):
        average, star = eu.military_average(military, mil, [face])
        key = f"{average}{'*' if star else ''}"
        odds[key] = odds.get(key, Fraction(0)) + Fraction(1, 10)
    return sorted(odds.items(), key=lambda kv: (int(kv[0].rstrip("*")), kv[0]))


def percent(p: Fraction) -> str:
    return f"{round(float(p) * 100)}%"


def military_note(military: Mapping[str, Any], mil: int, bonus: Mapping[str, int]) -> str:
    """What a military skill roll gives, in a line: the average's odds on the MIL row, the
    modifier of each value's die, the country's die bonus, the bounds."""
    shown = ", ".join(f"{k} {percent(p)}" for k, p in military_average_odds(military, mil))
    extra = "".join(f"; {v:+d} to the {k} die" for k, v in sorted(bonus.items()) if v)
    low, high = military["min_value"], military["max_value"]
    return f"MIL {mil}: average {shown}{extra}; each value {low}..{high}"


def ransom_words(table: Mapping[str, Any], *, major: bool, currency: str = "ducats") -> str:
    ducats, change = eu.ransom(table, major=major)
    words = f"{ducats} {currency}"
    return words + (f" and {change:+d} Stability" if change else "")


def fixed_ransom_words(table: Mapping[str, Any], currency: str = "ducats") -> str:
    """Both of the tables' ransoms, for a refusal: 'a major power 200 ducats and -2 Stability, a minor 50 ducats'."""
    major, minor = (ransom_words(table, major=m, currency=currency) for m in (True, False))
    return f"a major power {major}, a minor {minor}"


@dataclass(frozen=True)
class Bar:
    """One reign on the timeline: where it starts and how wide it is (in the picture's units), and
    the part still to come of a reign going on (up to its planned end)."""

    start: int
    end: int | None
    planned_end: int | None
    x: float
    width: float
    planned_width: float


def timeline(
    reigns: Sequence[tuple[int, int | None, int | None]], *, first: int, now: int, width: float
) -> tuple[int, int, list[Bar]]:
    """Lay ``reigns`` (start, end or None while it goes on, planned end or None) along the years:
    returns the years the picture spans (``first`` to the latest of now and every planned end) and a
    bar per reign, a reign going on drawn to now and its planned rest beyond."""
    last = max([now, *(p for _, e, p in reigns if e is None and p is not None)], default=now)
    last = max(last, first + 1)
    scale = width / (last - first)
    bars = []
    for start, end, planned in reigns:
        until = end if end is not None else now
        x = (max(start, first) - first) * scale
        w = max((until - max(start, first)) * scale, 2.0)
        rest = (planned - until) * scale if end is None and planned is not None and planned > until else 0.0
        bars.append(Bar(start, end, planned, round(x, 1), round(w, 1), round(rest, 1)))
    return first, last, bars
