"""The simulated prehistory stops at the game's end when one is set (operations.simulation_end),
and plays on as before when none is."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from campaign.models import Campaign, ChronicleEntry
from campaign.permissions import SYSTEM_ACTOR
from dynasties.services import campaign_create
from operations.simulation import simulate
from rules.dice import RandomSource


def test_the_simulation_stops_at_the_agreed_end(db) -> None:
    campaign = campaign_create(name="Ends", players=5, source=RandomSource(5), end_year=1310)
    done = simulate(campaign, turns=8, source=RandomSource(5), law=True, by=SYSTEM_ACTOR)
    assert (done.current_year, done.ended_year, done.ended_reason) == (1310, 1310, "agreed")
    rows = done.ended_standings["rows"]
    assert rows[0]["winner"] and rows[0]["money"] == max(r["money"] for r in rows)
    assert ChronicleEntry.objects.filter(campaign=done, kind="game_end").count() == 1
    again = simulate(done, turns=2, source=RandomSource(5), law=True, by=SYSTEM_ACTOR)  # nothing more to play
    assert again.current_year == 1310


def test_with_no_end_set_the_simulation_plays_every_turn(db) -> None:
    campaign = campaign_create(name="Goes on", players=5, source=RandomSource(5))
    done = simulate(campaign, turns=3, source=RandomSource(5), law=True, by=SYSTEM_ACTOR)
    assert done.current_year == 1315 and done.ended_year is None


def test_the_command_takes_the_end(db) -> None:
    out = StringIO()
    call_command("simulate", "--turns", "5", "--seed", "2", "--end-year", "1305", "--name", "Cmd end", stdout=out)
    campaign = Campaign.objects.get(name="Cmd end")
    assert campaign.ended_year == 1305 and "The end: the game ended in 1305 (agreed)" in out.getvalue()
