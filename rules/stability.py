"""The Stability track (RULES.md B and C): a country's Stability is a marker on the EU board game's
track, from -3 to +3 (the aid's "Mandatory peace if two consecutive turns at -3 Stability": -3 is
the bottom). Every Stability change of the BloodLine and EU monarchs rulesets goes through
``change``.

Ruling (docs/rulings.md, "The Stability track"): a cost that would take the marker below -3 (or a
gain above +3) moves it to the end of the track and no further; the levels beyond are recorded (the
chronicle line and the crown's history say how many) but change nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

STABILITY_MIN = -3
STABILITY_MAX = 3


def on_track(level: int) -> int:
    """``level`` held to the track, -3..+3."""
    return max(STABILITY_MIN, min(STABILITY_MAX, level))


@dataclass(frozen=True)
class StabilityChange:
    """A change of Stability as the rule gives it (``asked``) and as the track takes it."""

    before: int  # on the track
    asked: int  # the rule's cost (negative) or gain (positive)
    after: int  # on the track

    @property
    def applied(self) -> int:
        """The levels the marker actually moves."""
        return self.after - self.before

    @property
    def beyond(self) -> int:
        """The levels the track's end cut off (0 when the whole change applies)."""
        return abs(self.asked - self.applied)

    @property
    def cut_short(self) -> bool:
        return self.beyond > 0

    def note(self) -> str:
        """What the track did to the change, for the chronicle ("" when it applied in full)."""
        if not self.cut_short:
            return ""
        end = STABILITY_MIN if self.asked < 0 else STABILITY_MAX
        levels = f"{self.beyond} level{'s' if self.beyond != 1 else ''}"
        if self.applied == 0:
            return f"already at {end:+d}, the end of the track: no effect ({levels} beyond it)"
        return f"only {self.applied:+d}: the track ends at {end:+d} ({levels} beyond it, no effect)"


def change(current: int, delta: int) -> StabilityChange:
    """Move the Stability marker from ``current`` by ``delta``, held to the track. A level already off
    the track (a record made before the track was kept) is first brought back onto it."""
    before = on_track(current)
    return StabilityChange(before, delta, on_track(before + delta))
