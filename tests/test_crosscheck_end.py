"""The cross-checks of the game's end (tests/crosscheck/game_end.py, written from the rulebook's
section 22 and the export format only) over simulated campaigns: one that ends at the money target
(the rulebook's example, 800 Crowns) and one at its agreed last turn; and the checks are not blind:
they report a wrong winner, an end that came too late or too early."""

from __future__ import annotations

import copy

import pytest

from tests.crosscheck.common import rule_of
from tests.crosscheck.game_end import check_game_end
from tests.crosscheck.run import simulated_export

pytestmark = pytest.mark.long_simulation  # SQLite only (tests/conftest.py)


def game_end_line(doc):
    return next(e for y in doc["chronicle"] for e in y["entries"] if e["kind"] == "game_end")


@pytest.mark.django_db
def test_the_game_ends_at_the_money_target_the_richest_wins_and_the_checks_see_it() -> None:
    """(22) "A player with this sum or more after the 'Cashing-In' Phase of a turn is declared the
    winner. If more than one player has more than 800 Crowns, the player with the most wins." """
    target_export = simulated_export("blood-royale", 1, 25, law=True, money_target=800)
    campaign = target_export["campaign"]
    assert campaign["ended_reason"] == "target" and campaign["ended_year"] < 1300 + 24 * 5
    assert check_game_end(target_export) == []

    wrong = copy.deepcopy(target_export)
    line = game_end_line(wrong)
    others = [d["id"] for d in wrong["dynasties"] if d["kind"] == "player" and d["id"] not in line["data"]["winners"]]
    line["data"]["winners"] = others[:1]
    assert {rule_of(v) for v in check_game_end(wrong)} == {"BR-end-winner"}

    late = copy.deepcopy(target_export)
    late["campaign"]["ended_year"] += 5
    late["campaign"]["current_year"] += 5
    assert "BR-end-due" in {rule_of(v) for v in check_game_end(late)}

    went_on = copy.deepcopy(target_export)
    went_on["campaign"].update(ended_year=None, ended_reason="", current_year=went_on["campaign"]["current_year"] + 10)
    assert "BR-end-due" in {rule_of(v) for v in check_game_end(went_on)}


@pytest.mark.django_db
def test_the_agreed_end() -> None:
    """(22) "At the end of the agreed time, the game is terminated ... The player with the most money
    is the winner." """
    doc = simulated_export("blood-royale", 2, 6, law=True)
    assert (doc["campaign"]["ended_year"], doc["campaign"]["ended_reason"]) == (1325, "agreed")
    assert check_game_end(doc) == []
