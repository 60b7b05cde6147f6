"""What Blood Royale plays at each step (issue 35: a ruleset is a registered play package)."""

from __future__ import annotations

from dynasties.play.blood_royale import (
    announcements,
    births,
    disputes,
    ending,
    events,
    interphase,
    marriages,
    succession,
    survival,
)
from dynasties.services.play_registry import Play, register_play
from rules.blood_royale import NAME


def register() -> Play:
    """Called once, by ``DynastiesConfig.ready()``."""
    return register_play(
        NAME,
        Play(
            births=births,
            survival=survival,
            monarchs=None,
            minor_houses=None,
            interphase=interphase,
            succession=succession,
            ending=ending,
            disputes=disputes,
            marriages=marriages,
            events=events,
            announcements=announcements,
        ),
    )
