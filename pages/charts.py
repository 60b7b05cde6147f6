"""The balance-over-turns chart of an exchequer, as an inline SVG (pure: no models, no queries).

``year_end_balances`` turns the net movement of each year into the balance at the end of each
year; ``layout`` places the points and the axis ticks in the SVG's coordinates (what the tests
check); ``balance_svg`` draws it: a step line (a balance holds until the next year's postings),
the area between it and zero, a zero line, amounts on the left, years below, and an accessible
title and description. The SVG scales to its container through its viewBox, so it reads the
same on a phone and on a laptop."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH = 360
HEIGHT = 200
FONT = 12
CHAR = 0.6  # a digit's width, in ems, for the label sizes
PAD = 8  # between the axis and the first and last points
LABEL_GAP = 6  # the least room between two year labels
MINOR_GAP = 4  # the least room between two unlabelled turn ticks
DESC_POINTS = 12  # a longer series is summed up in the description rather than listed


@dataclass(frozen=True)
class Point:
    year: int
    balance: int
    x: float
    y: float


@dataclass(frozen=True)
class Tick:
    value: int
    pos: float  # x for a year, y for an amount
    label: str


@dataclass(frozen=True)
class Chart:
    points: tuple[Point, ...]
    x_ticks: tuple[Tick, ...]  # the labelled years
    x_minor: tuple[float, ...]  # the other turns (x), a tick without a label
    y_ticks: tuple[Tick, ...]
    zero: float  # the y of 0
    left: float
    right: float
    top: float
    bottom: float
    width: int
    height: int
    font: int


def year_end_balances(
    nets: Iterable[tuple[int, int]], *, start: int | None = None, end: int | None = None
) -> list[tuple[int, int]]:
    """The balance at the end of each year from each year's net movement (years in any order,
    a year given twice is added up). ``start``: the campaign's first year, where every
    exchequer held 0; ``end``: the current year, to which the last balance is carried."""
    by_year: dict[int, int] = {}
    for year, net in nets:
        by_year[year] = by_year.get(year, 0) + net
    out: list[tuple[int, int]] = []
    held = 0
    if start is not None and (not by_year or min(by_year) > start):
        out.append((start, 0))
    for year in sorted(by_year):
        held += by_year[year]
        out.append((year, held))
    if end is not None and (not out or out[-1][0] < end):
        out.append((end, held))
    return out


def amount(value: int) -> str:
    """An amount as the ledger writes it (1234, -5)."""
    return str(value)


def nice_step(raw: float) -> int:
    """The smallest of 1, 2, 5 x 10^k (at least 1) not below ``raw``."""
    if raw <= 1:
        return 1
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return int(factor * magnitude)
    return int(10 * magnitude)  # pragma: no cover - the loop always returns


def _amount_ticks(values: Sequence[int]) -> tuple[int, int, int]:
    """(lowest tick, highest tick, step): always spans 0 and every value, in about 4 steps."""
    lo, hi = min(0, *values), max(0, *values)
    if lo == hi:
        hi = lo + 1
    step = nice_step((hi - lo) / 4)
    low = math.floor(lo / step) * step
    high = math.ceil(hi / step) * step
    return low, high, step


def _turn_step(per_year: float, turn: int, room: float) -> int:
    """The years between two year labels: a turn when its labels fit (``room`` apart), else 2, 5,
    10, 20, 50 ... turns, the fewest that fit."""
    k = 1
    while k * turn * per_year < room and k < 10**6:  # (a chart with no width at all stops somewhere)
        k = nice_step(k + 1)
    return k * turn


def _year_ticks(
    first: int, last: int, x_of: Callable[[int], float], per_year: float, label_width: float, turn: int, origin: int
) -> tuple[list[Tick], list[float]]:
    """The labelled year ticks, evenly spaced on turn boundaries (years ``origin`` + n turns) so
    that no two labels overlap, and a small unlabelled tick on every turn between them (when the
    turns are not too close for one)."""
    if first == last:
        return [Tick(first, x_of(first), str(first))], []
    step = _turn_step(per_year, turn, label_width + LABEL_GAP)
    start = first + (origin - first) % turn  # the first turn boundary on or after ``first``
    labelled = [y for y in range(start, last + 1, turn) if (y - origin) % step == 0]
    if not labelled:  # a stretch shorter than a label's step: its ends
        labelled = [first, last] if (last - first) * per_year >= label_width + LABEL_GAP else [last]
    minor = []
    if turn * per_year >= MINOR_GAP:
        minor = [x_of(y) for y in range(start, last + 1, turn) if y not in labelled]
    return [Tick(y, x_of(y), str(y)) for y in labelled], minor


def layout(
    series: Sequence[tuple[int, int]],
    *,
    width: int = WIDTH,
    height: int = HEIGHT,
    font: int = FONT,
    turn: int | None = None,
    origin: int | None = None,
) -> Chart:
    """Where each (year, balance) goes in a ``width`` x ``height`` SVG. Years are placed to scale
    (a gap of ten years is twice one of five); a single point sits in the middle. The year labels
    stand on turn boundaries: ``turn`` years long (by default the greatest common divisor of the
    gaps between the years), counted from ``origin`` (the campaign's first year; by default the
    series' first)."""
    if not series:
        raise ValueError("A chart needs at least one (year, balance).")
    series = sorted(series)
    low, high, step = _amount_ticks([b for _, b in series])
    labels = [amount(v) for v in range(low, high + 1, step)]
    year_width = max(len(str(y)) for y, _ in series) * font * CHAR
    left = 6 + max(len(label) for label in labels) * font * CHAR + 6
    right = width - max(year_width / 2 - PAD, 0) - 4
    top = font / 2 + 4
    bottom = height - font - 12

    def y_of(value: float) -> float:
        return round(bottom - (value - low) / (high - low) * (bottom - top), 1)

    first, last = series[0][0], series[-1][0]

    def x_of(year: int) -> float:
        if first == last:
            return round((left + right) / 2, 1)
        return round(left + PAD + (year - first) / (last - first) * (right - left - 2 * PAD), 1)

    points = tuple(Point(year, bal, x_of(year), y_of(bal)) for year, bal in series)
    y_ticks = tuple(Tick(v, y_of(v), amount(v)) for v in range(low, high + 1, step))
    per_year = (right - left - 2 * PAD) / (last - first) if last > first else 0.0
    if turn is None:
        turn = math.gcd(*(b - a for (a, _), (b, _) in itertools.pairwise(series)))
    x_ticks, x_minor = _year_ticks(first, last, x_of, per_year, year_width, max(turn, 1), first if origin is None else origin)
    return Chart(
        points=points,
        x_ticks=tuple(x_ticks),
        x_minor=tuple(x_minor),
        y_ticks=y_ticks,
        zero=y_of(0),
        left=round(left, 1),
        right=round(right, 1),
        top=round(top, 1),
        bottom=round(bottom, 1),
        width=width,
        height=height,
        font=font,
    )


def describe(series: Sequence[tuple[int, int]], currency: str) -> str:
    """The chart in words (the SVG's <desc>, read by screen readers)."""
    series = sorted(series)
    (first, start), (last, end) = series[0], series[-1]
    if len(series) == 1:
        return f"Balance at the end of {first}: {amount(start)} {currency}."
    if len(series) <= DESC_POINTS:
        listed = "; ".join(f"{year}: {amount(bal)}" for year, bal in series)
        return f"Balance in {currency} at the end of each year from {first} to {last}: {listed}."
    low = min(series, key=lambda p: (p[1], p[0]))
    high = max(series, key=lambda p: (p[1], -p[0]))
    return (
        f"Balance in {currency} at the end of each year from {first} to {last}: {amount(start)} in {first}, "
        f"{amount(end)} in {last}; lowest {amount(low[1])} in {low[0]}, highest {amount(high[1])} in {high[0]}."
    )


def _path(chart: Chart) -> str:
    first, *rest = chart.points
    return f"M{first.x} {first.y}" + "".join(f" H{p.x} V{p.y}" for p in rest)


def _area(chart: Chart) -> str:
    return (
        f"M{chart.points[0].x} {chart.zero} V{chart.points[0].y}"
        + "".join(f" H{p.x} V{p.y}" for p in chart.points[1:])
        + f" V{chart.zero} Z"
    )


def balance_svg(
    series: Sequence[tuple[int, int]],
    *,
    title: str,
    currency: str,
    id_prefix: str = "balance-chart",
    width: int = WIDTH,
    height: int = HEIGHT,
    font: int = FONT,
    turn: int | None = None,
    origin: int | None = None,
) -> SafeString:
    """The chart as an inline <svg> (every text escaped), ready for a template."""
    chart = layout(series, width=width, height=height, font=font, turn=turn, origin=origin)
    pid = escape(id_prefix)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="balance-chart" viewBox="0 0 {width} {height}" '
        f'role="img" aria-labelledby="{pid}-title {pid}-desc" font-size="{font}" '
        f'font-family="system-ui, sans-serif" preserveAspectRatio="xMidYMid meet">',
        f'<title id="{pid}-title">{escape(title)}</title>',
        f'<desc id="{pid}-desc">{escape(describe(series, currency))}</desc>',
        '<g class="y-axis" aria-hidden="true">',
    ]
    for tick in chart.y_ticks:
        out.append(
            f'<line x1="{chart.left}" x2="{chart.right}" y1="{tick.pos}" y2="{tick.pos}" stroke="#e2dccf" stroke-width="1"/>'
            f'<text x="{round(chart.left - 6, 1)}" y="{tick.pos}" text-anchor="end" dominant-baseline="middle" '
            f'fill="#6b655c">{escape(tick.label)}</text>'
        )
    out.append("</g>")
    out.append('<g class="x-axis" aria-hidden="true">')
    baseline = round(chart.bottom + chart.font + 6, 1)
    for tick in chart.x_ticks:
        out.append(
            f'<line x1="{tick.pos}" x2="{tick.pos}" y1="{chart.bottom}" y2="{round(chart.bottom + 4, 1)}" stroke="#6b655c"/>'
            f'<text x="{tick.pos}" y="{baseline}" text-anchor="middle" fill="#6b655c">{escape(tick.label)}</text>'
        )
    for x in chart.x_minor:
        y2 = round(chart.bottom + 3, 1)
        out.append(f'<line class="minor" x1="{x}" x2="{x}" y1="{chart.bottom}" y2="{y2}" stroke="#b9b2a6"/>')
    out.append("</g>")
    out.append(
        f'<line class="zero" x1="{chart.left}" x2="{chart.right}" y1="{chart.zero}" y2="{chart.zero}" '
        'stroke="#1f1d1a" stroke-width="1.2"/>'
    )
    out.append(f'<path class="area" d="{_area(chart)}" fill="#7a1f2b" fill-opacity="0.12" stroke="none"/>')
    if len(chart.points) > 1:
        out.append(f'<path class="line" d="{_path(chart)}" fill="none" stroke="#7a1f2b" stroke-width="2.5"/>')
    out.append('<g class="points">')
    for p in chart.points:
        negative = p.balance < 0
        out.append(
            f'<circle class="point{" negative" if negative else ""}" cx="{p.x}" cy="{p.y}" r="4" '
            f'fill="{"#a4161a" if negative else "#7a1f2b"}" stroke="#ffffff" stroke-width="1.5">'
            f"<title>{p.year}: {escape(amount(p.balance))} {escape(currency)}</title></circle>"
        )
    out.append("</g></svg>")
    return mark_safe("".join(out))  # noqa: S308 - every text above is escaped
