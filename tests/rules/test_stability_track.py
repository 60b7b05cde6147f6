"""The Stability track (rules/stability.py; issue 15, defect 5): a country's Stability is
a marker on the EU board game's track, -3 to +3 (the aid: "Mandatory peace if two consecutive turns
at -3 Stability"); a change beyond the track's end moves the marker to the end and no further
(docs/rulings.md, "The Stability track")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rules import stability as track


@given(current=st.integers(-3, 3), deltas=st.lists(st.integers(-6, 6), max_size=30))
def test_no_sequence_of_changes_leaves_the_track(current: int, deltas: list[int]) -> None:
    """'Mandatory peace if two consecutive turns at -3 Stability': -3 is the bottom of the track
    (and +3 its top); whatever the costs and gains, the marker stays on it."""
    level = current
    for delta in deltas:
        moved = track.change(level, delta)
        assert moved.before == level
        assert track.STABILITY_MIN <= moved.after <= track.STABILITY_MAX
        assert moved.applied + (-moved.beyond if delta < 0 else moved.beyond) == delta
        level = moved.after


@given(current=st.integers(-3, 3), delta=st.integers(-6, 6))
def test_a_change_within_the_track_applies_in_full(current: int, delta: int) -> None:
    """The Dynastic Crisis' "-2 Stability", the union's "-1 level per Turn": in full while it fits."""
    moved = track.change(current, delta)
    if -3 <= current + delta <= 3:
        assert (moved.after, moved.applied, moved.beyond, moved.note()) == (current + delta, delta, 0, "")
    else:
        assert moved.cut_short and moved.after in (-3, 3)


def test_a_cost_beyond_minus_three_is_cut_short_and_says_so() -> None:
    """'DC Dynastic crisis, stats/2 at turn 1, -2 Stability' at -2 takes the marker to -3, not -4."""
    moved = track.change(-2, -2)
    assert (moved.before, moved.asked, moved.after, moved.applied, moved.beyond) == (-2, -2, -3, -1, 1)
    assert moved.note() == "only -1: the track ends at -3 (1 level beyond it, no effect)"
    at_bottom = track.change(-3, -2)
    assert (at_bottom.after, at_bottom.applied, at_bottom.beyond) == (-3, 0, 2)
    assert at_bottom.note() == "already at -3, the end of the track: no effect (2 levels beyond it)"


def test_a_gain_beyond_plus_three_is_cut_short_too() -> None:
    """'One level of stability is gained' when a union ends: not above +3."""
    moved = track.change(3, 1)
    assert (moved.after, moved.applied, moved.beyond) == (3, 0, 1)
    assert moved.note() == "already at +3, the end of the track: no effect (1 level beyond it)"
    assert track.change(2, 3).note() == "only +1: the track ends at +3 (2 levels beyond it, no effect)"


def test_a_level_recorded_off_the_track_is_brought_back_onto_it() -> None:
    """A crown left at -6 by the unbounded Stability of old: the next change starts from -3."""
    assert track.on_track(-6) == -3 and track.on_track(7) == 3 and track.on_track(1) == 1
    moved = track.change(-6, 1)
    assert (moved.before, moved.after, moved.applied) == (-3, -2, 1)
