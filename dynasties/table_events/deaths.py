"""Deaths the table decides (RULES.md A5): a royal killed at the table."""

from __future__ import annotations

from typing import Any

from campaign.table_events import Field, Kind, TableEvent, register
from dynasties.models import Character, Status
from dynasties.services.events import EventResult, survival_event
from dynasties.table_events.common import gm_only, living


def _free(campaign: Any) -> list[Character]:
    """The living who are nobody's prisoner ("Captured characters may not be killed")."""
    return list(
        Character.objects.filter(campaign=campaign, status=Status.ALIVE, prisoner_of__isnull=True).select_related("controlled_by")
    )


def _killed(results: list[EventResult]) -> str:
    return "Recorded at the table: " + ", ".join(f"{r.character.display_name} killed" for r in results) + "."


KILLED = register(
    TableEvent(
        key="killed",
        label="Killed at the table",
        help="A death the board or a card decided (an assassination, a duel, a death in a battle fought out on "
        "the board): no roll. His marriages end, his pieces are freed, and a crown left vacant passes at once.",
        group="Deaths and captures",
        when="any",
        fields=(
            Field("characters", Kind.CHARACTERS, "Who dies", "Captured characters may not be killed.", choices=living(_free)),
            Field("note", Kind.TEXT, "How", "What happened, for the chronicle (e.g. 'in a duel').", required=False),
        ),
        run=lambda *, campaign, by, characters, note="": survival_event(
            campaign=campaign, reason="killed", characters=characters, note=note, by=by
        ),
        services=(survival_event,),
        offered=gm_only,
        done=_killed,
        desk="Killed at the table (this turn)",
    )
)
