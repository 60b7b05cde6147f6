"""What BloodLine plays at each step (issue 35: a ruleset is a registered play package)."""

from __future__ import annotations

from dynasties.play.bloodline import (
    announcements,
    births,
    disputes,
    ending,
    events,
    marriages,
    minor_houses,
    succession,
    survival,
)
from dynasties.services.play_registry import Play, register_play
from rules.bloodline import NAME


def register() -> Play:
    """Called once, by ``DynastiesConfig.ready()``."""
    return register_play(
        NAME,
        Play(
            births=births,
            survival=survival,
            monarchs=None,
            minor_houses=minor_houses,
            interphase=None,
            succession=succession,
            ending=ending,
            disputes=disputes,
            marriages=marriages,
            events=events,
            announcements=announcements,
        ),
    )
