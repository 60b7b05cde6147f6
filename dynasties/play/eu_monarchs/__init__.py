"""What the EU monarch tables plays at each step (issue 35: a ruleset is a registered play package)."""

from __future__ import annotations

from dynasties.play.eu_monarchs import (
    announcements,
    births,
    disputes,
    ending,
    events,
    marriages,
    monarchs,
    succession,
    survival,
)
from dynasties.services.play_registry import Play, register_play
from rules.eu_monarchs import NAME


def register() -> Play:
    """Called once, by ``DynastiesConfig.ready()``."""
    return register_play(
        NAME,
        Play(
            births=births,
            survival=survival,
            monarchs=monarchs,
            minor_houses=None,
            interphase=None,
            succession=succession,
            ending=ending,
            disputes=disputes,
            marriages=marriages,
            events=events,
            announcements=announcements,
        ),
    )
