"""The Movement's Event/Movement phases (Blood Royale 14-15: two a turn; optional rule H, Extra
Event/Movement Phase: a third). A board event of the Movement (a battle, a plague, a storm, a capture,
a trade item's interception) may say in which phase it happened: the chronicle keeps it
(``data["phase"]``) and the pages show the Movement grouped by phase."""

from __future__ import annotations

from typing import Any

from campaign.models import Campaign
from campaign.steps import Chronicle
from rules.errors import RuleError
from rules.interception import phase_problem


def phases(campaign: Campaign) -> int:
    """How many numbered Event/Movement phases a turn of this campaign has (0: its ruleset numbers none)."""
    rules = campaign.rules
    if not rules.movement_phases:
        return 0
    extra = bool(rules.extra_phase_option) and campaign.option(rules.extra_phase_option)
    return rules.movement_phases + (1 if extra else 0)


def check_phase(campaign: Campaign, phase: Any) -> int | None:
    """The phase given, checked: None (not said), or 1 to the turn's last phase. A third phase is
    refused with the rule unless rule H is in force."""
    if phase is None or phase == "":
        return None
    if not campaign.rules.movement_phases:
        raise RuleError(
            f"The {campaign.get_ruleset_display()} ruleset numbers no Event/Movement phases: leave the phase blank.",
            code="invalid",
            fields={"phase": "not_in_ruleset"},
        )
    extra = campaign.rules.extra_phase_option
    problem = phase_problem(phase, bool(extra) and campaign.option(extra))
    if problem:
        third = phase == campaign.rules.movement_phases + 1 and not isinstance(phase, bool)
        raise RuleError(
            problem, code="option_off" if third else "invalid", fields={"phase": "option_off" if third else "invalid"}
        )
    return int(phase)


def stamp(chronicle: Chronicle, phase: int | None) -> None:
    """Mark the event's chronicle lines with the phase it happened in (kept in ``data`` and said in the text)."""
    if phase is None:
        return
    for entry in chronicle.entries:
        entry.data = {**(entry.data or {}), "phase": phase}
        entry.text = f"Movement phase {phase}: {entry.text}"
