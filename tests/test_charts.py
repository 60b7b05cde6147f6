"""The balance-over-turns chart (pages.charts): the balances, where the points go, the ticks, the
words for screen readers, and escaping."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

from pages.charts import CHAR, LABEL_GAP, PAD, balance_svg, describe, layout, nice_step, year_end_balances

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # noqa: S314 - our own output


def test_year_end_balances_add_up_each_year_in_order():
    nets = [(1310, -30), (1300, 100), (1305, 20), (1305, -5)]
    assert year_end_balances(nets) == [(1300, 100), (1305, 115), (1310, 85)]


def test_year_end_balances_start_at_zero_and_run_to_the_current_year():
    assert year_end_balances([(1305, 50)], start=1300, end=1315) == [(1300, 0), (1305, 50), (1315, 50)]
    assert year_end_balances([(1300, 50)], start=1300, end=1300) == [(1300, 50)]  # no doubled years
    assert year_end_balances([], start=1300, end=1310) == [(1300, 0), (1310, 0)]
    assert year_end_balances([], start=1300, end=1300) == [(1300, 0)]
    assert year_end_balances([]) == []


@pytest.mark.parametrize(("raw", "step"), [(0.3, 1), (1, 1), (1.5, 2), (3, 5), (7, 10), (12, 20), (40, 50), (230, 500)])
def test_nice_steps(raw, step):
    assert nice_step(raw) == step


def test_points_are_placed_to_scale():
    chart = layout([(1300, 0), (1305, 50), (1315, 100)], width=400, height=220, font=10)
    first, middle, last = chart.points
    assert first.x == pytest.approx(chart.left + PAD, abs=0.1)
    assert last.x == pytest.approx(chart.right - PAD, abs=0.1)
    # 1305 is a third of the way from 1300 to 1315
    assert middle.x == pytest.approx(first.x + (last.x - first.x) / 3, abs=0.1)
    # 0 is the bottom of the axis, 100 the top, 50 halfway
    assert first.y == chart.zero == pytest.approx(chart.bottom, abs=0.1)
    assert last.y == pytest.approx(chart.top, abs=0.1)
    assert middle.y == pytest.approx((chart.top + chart.bottom) / 2, abs=0.1)
    assert [t.value for t in chart.y_ticks] == [0, 50, 100]
    assert [t.label for t in chart.x_ticks] == ["1300", "1305", "1310", "1315"]  # every turn, 1310 too
    assert 0 < chart.left < chart.right <= 400 and 0 < chart.top < chart.bottom < 220


def test_negative_balances_go_below_the_zero_line():
    chart = layout([(1300, -50), (1305, 50)])
    low, high = chart.points
    assert low.y == pytest.approx(chart.bottom, abs=0.1) and high.y == pytest.approx(chart.top, abs=0.1)
    assert chart.zero == pytest.approx((chart.top + chart.bottom) / 2, abs=0.1)
    assert low.y > chart.zero > high.y  # SVG's y grows downwards
    assert [t.label for t in chart.y_ticks] == ["-50", "0", "50"]


def test_an_all_negative_series_still_shows_zero_at_the_top():
    chart = layout([(1300, -120), (1305, -40)])
    assert [t.value for t in chart.y_ticks][-1] == 0
    assert chart.zero == pytest.approx(chart.top, abs=0.1)
    assert all(p.y > chart.zero for p in chart.points)


def test_a_single_point_sits_in_the_middle():
    chart = layout([(1300, 60)])
    (point,) = chart.points
    assert point.x == pytest.approx((chart.left + chart.right) / 2, abs=0.1)
    assert point.y < chart.zero
    assert [t.label for t in chart.x_ticks] == ["1300"]
    flat = layout([(1300, 0)])
    assert flat.points[0].y == flat.zero  # an empty exchequer sits on the zero line
    assert [t.value for t in flat.y_ticks] == [0, 1]


def test_a_long_campaign_gets_readable_year_labels():
    series = [(1300 + 5 * i, i * 10 - 200) for i in range(60)]  # 1300 ... 1595
    chart = layout(series)
    labels = [t.value for t in chart.x_ticks]
    assert 2 <= len(labels) <= 8
    assert all(b - a == labels[1] - labels[0] for a, b in itertools.pairwise(labels))  # an even step
    assert labels[0] >= 1300 and labels[-1] <= 1595
    positions = [t.pos for t in chart.x_ticks]
    assert all(b - a > 30 for a, b in itertools.pairwise(positions))  # no two labels overlap
    assert len(chart.points) == 60 and len(chart.y_ticks) <= 7


def test_crowded_years_get_an_even_step_that_fits():
    chart = layout([(1300, 0), (1301, 10), (1302, 20), (1400, 30)])  # a year a turn: the gaps' divisor
    labels = [t.value for t in chart.x_ticks]
    assert labels == [1300, 1320, 1340, 1360, 1380, 1400]
    assert chart.x_minor == ()  # a tick a year would be a smudge


def label_room(chart) -> float:
    """The least distance between two year labels' centres, less a label's width (in SVG units)."""
    width = len(chart.x_ticks[0].label) * chart.font * CHAR
    return min(b.pos - a.pos for a, b in itertools.pairwise(chart.x_ticks)) - width


def test_year_labels_stand_on_turn_boundaries_evenly_spaced():
    # the books of the README's England: postings in 1310, 1315, 1320, 1340, 1350; now 1360
    series = [(1300, 0), (1310, -30), (1315, 0), (1320, -30), (1340, 70), (1350, 100), (1360, 100)]
    chart = layout(series, turn=5, origin=1300)
    assert [t.value for t in chart.x_ticks] == [1300, 1310, 1320, 1330, 1340, 1350, 1360]  # 1330 too
    gaps = {round(b.pos - a.pos, 1) for a, b in itertools.pairwise(chart.x_ticks)}
    assert max(gaps) - min(gaps) <= 0.2  # evenly spaced (to the rounding)
    assert label_room(chart) >= LABEL_GAP  # no two labels touch
    points = {p.year: p.x for p in chart.points}
    assert all(t.pos == points[t.value] for t in chart.x_ticks if t.value in points)  # a label under its point
    # the turns between the labels (1305, 1315, ...) get a small tick of their own
    assert len(chart.x_minor) == 6 and points[1315] in chart.x_minor


@pytest.mark.parametrize(
    ("years", "turn", "step"),
    [(20, 5, 5), (60, 5, 10), (150, 5, 25), (300, 5, 50), (600, 5, 100), (8, 1, 1), (12, 1, 2), (40, 1, 5), (30, 3, 6)],
)
def test_the_label_step_is_the_fewest_turns_that_fit(years, turn, step):
    series = [(1300, 0), (1300 + years, 10)]
    chart = layout(series, turn=turn, origin=1300)
    labels = [t.value for t in chart.x_ticks]
    assert labels[0] == 1300 and {b - a for a, b in itertools.pairwise(labels)} == {step}
    assert label_room(chart) >= LABEL_GAP
    if step > turn:  # one turn fewer between labels would make them overlap
        tighter = [v for v in (1, 2, 5, 10, 20, 50) if v * turn < step][-1] * turn
        per_year = (chart.points[1].x - chart.points[0].x) / years
        assert tighter * per_year < len("1300") * chart.font * CHAR + LABEL_GAP


def test_labels_count_turns_from_the_campaigns_first_year():
    # a series that starts late (a house that came into play in 1307, in a campaign of 1302)
    chart = layout([(1307, 0), (1312, 5), (1352, 10)], turn=5, origin=1302)
    labels = [t.value for t in chart.x_ticks]
    assert labels == [1312, 1322, 1332, 1342, 1352]
    assert all((v - 1302) % 10 == 0 for v in labels)


def test_the_svg_draws_a_small_tick_for_the_unlabelled_turns():
    root = parse(balance_svg([(1300, 0), (1360, 10)], title="t", currency="Crowns", turn=5))
    axis = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "x-axis")
    assert [t.text for t in axis.iter(f"{SVG}text")] == ["1300", "1310", "1320", "1330", "1340", "1350", "1360"]
    assert len([line for line in axis.iter(f"{SVG}line") if line.get("class") == "minor"]) == 6


def test_the_svg_is_well_formed_and_accessible():
    svg = balance_svg([(1300, 0), (1305, 120), (1310, -30)], title="Balance of Plantagenet", currency="Crowns", id_prefix="b7")
    root = parse(svg)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img" and root.get("aria-labelledby") == "b7-title b7-desc"
    assert root.get("viewBox") == "0 0 360 200"
    assert root.find(f"{SVG}title").text == "Balance of Plantagenet"
    assert root.find(f"{SVG}desc").text == (
        "Balance in Crowns at the end of each year from 1300 to 1310: 1300: 0; 1305: 120; 1310: -30."
    )
    circles = root.iter(f"{SVG}circle")
    tips = [(c.get("class"), c.find(f"{SVG}title").text) for c in circles]
    assert tips == [("point", "1300: 0 Crowns"), ("point", "1305: 120 Crowns"), ("point negative", "1310: -30 Crowns")]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"1300", "1305", "1310", "0", "-50", "100"} <= set(texts)
    line = next(p for p in root.iter(f"{SVG}path") if p.get("class") == "line")
    assert line.get("d").count("H") == 2 and line.get("d").count("V") == 2  # a step for each change


def test_a_single_point_draws_no_line():
    root = parse(balance_svg([(1300, 5)], title="t", currency="ducats"))
    assert [p.get("class") for p in root.iter(f"{SVG}path")] == ["area"]
    assert len(list(root.iter(f"{SVG}circle"))) == 1
    assert root.find(f"{SVG}desc").text == "Balance at the end of 1300: 5 ducats."


def test_every_text_is_escaped():
    svg = balance_svg(
        [(1300, 1), (1305, 2)], title='<script>alert("x")</script> & Sons', currency="<b>Crowns</b>", id_prefix='x"><y'
    )
    assert "<script>" not in svg and "<b>" not in svg and 'x"><y' not in svg
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Sons" in svg
    root = parse(svg)  # still well-formed
    assert root.find(f"{SVG}title").text == '<script>alert("x")</script> & Sons'
    assert "<b>Crowns</b>" in root.find(f"{SVG}desc").text


def test_a_long_series_is_summed_up_in_words():
    series = [(1300 + 5 * i, v) for i, v in enumerate([0, 40, -25, 90, 10, 10, 5, 300, 200, 150, 100, 50, 20])]
    text = describe(series, "Crowns")
    assert text == (
        "Balance in Crowns at the end of each year from 1300 to 1360: 0 in 1300, 20 in 1360; "
        "lowest -25 in 1310, highest 300 in 1335."
    )


def test_an_empty_series_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        layout([])
