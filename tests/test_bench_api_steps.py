"""Issue 18: the API step bench's arithmetic (bench/api_steps.py); its figures are in bench/README.md."""

from __future__ import annotations

import pytest

from bench.api_steps import parse_args, summary, table, verdict


def test_summary_is_count_p50_and_p95_by_nearest_rank():
    times = [float(t) for t in range(100, 0, -1)]  # 100..1 ms, unsorted
    assert summary(times) == (100, 50.0, 95.0)
    assert summary([42.0]) == (1, 42.0, 42.0)
    assert summary([]) == (0, 0.0, 0.0)


def test_table_has_a_row_per_action_a_column_per_size_and_the_growth():
    results = {
        200: {"undo": [300.0, 500.0], "turn/advance": [60.0, 60.0, 90.0]},
        20: {"undo": [100.0, 200.0], "turn/advance": [50.0, 50.0, 70.0]},
    }
    head, *rows = table(results)
    assert head.index("20 turns") < head.index("200 turns")  # sizes in order
    assert "200/20" in head
    assert [r.split()[0] for r in rows] == ["turn/advance", "undo"]  # the order of a turn
    advance, undo = rows
    assert "50 / 70 (n=3)" in advance and "60 / 90 (n=3)" in advance and advance.endswith("1.20x")
    assert "100 / 200 (n=2)" in undo and "300 / 500 (n=2)" in undo and undo.endswith("3.00x")


def test_table_marks_an_action_a_size_did_not_play():
    _, row = table({20: {"births/roll-all": [80.0]}, 50: {}})
    assert row.split()[0] == "births/roll-all"
    assert row.split()[-2:] == ["-", "-"]  # no figure at 50 turns, so no growth either


def test_verdict_names_a_slow_p50_and_a_growth_over_the_target():
    assert verdict({20: {"undo": [90.0, 95.0]}, 200: {"undo": [100.0, 110.0]}}) == []  # 100 <= 1.3 x 90
    misses = verdict({20: {"undo": [60.0]}, 200: {"undo": [101.0]}})
    assert misses == [
        "undo at 200 turns: p50 101 ms > 100 ms",
        "undo: p50 101 ms at 200 turns > 1.3x 60 ms at 20",
    ]


def test_sizes_can_be_chosen_for_a_short_run():
    assert parse_args([]).sizes == [20, 50, 100, 200]
    assert parse_args(["--sizes", "5", "--turns", "1"]).sizes == [5]
    with pytest.raises(SystemExit):
        parse_args(["--sizes", "0"])
