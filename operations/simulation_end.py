"""The simulated prehistory and the end of the game (Blood Royale sections 3 and 22): a campaign
with an agreed last turn or a money target ends as a table's would (``turn_advance`` ends it once
the turn is over, its cashing-in included), and the automatic player stops there. A campaign with
no end set plays on as before. Called from one place, ``operations.simulation.simulate``."""

from __future__ import annotations

from campaign.models import Campaign


def game_over(campaign: Campaign) -> bool:
    """Whether the campaign's game has ended: the automatic player plays no more turns (``play_turn``
    leaves the campaign read afresh)."""
    return campaign.ended_year is not None


def end_summary(campaign: Campaign) -> str:
    """One line on how the game ended (the bench and the ``simulate`` command print it)."""
    campaign.refresh_from_db(fields=["ended_year", "ended_reason", "ended_standings", "current_year"])
    if campaign.ended_year is None:
        return f"the game goes on in {campaign.current_year} (no end reached)"
    table = campaign.ended_standings or {}
    rows = table.get("rows", [])
    money = table.get("currency", "")
    winners = [f"{r['name']} ({r['money']} {money})" for r in rows if r.get("winner")]
    richest = ", ".join(winners) if winners else "no winner on money"
    return f"the game ended in {campaign.ended_year} ({campaign.ended_reason}): {richest}"
