"""The end of the game, pure (rules.ending): Blood Royale sections 3 and 22."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import ending as law


def test_the_player_with_the_most_money_is_the_winner() -> None:
    """(22) "The player with the most money is the winner." Equal money shares the rank."""
    table = law.standings({1: 300, 2: 500, 3: 300, 4: 120})
    assert [(s.house, s.money, s.rank, s.winner) for s in table] == [
        (2, 500, 1, True),
        (1, 300, 2, False),
        (3, 300, 2, False),
        (4, 120, 4, False),
    ]


def test_equal_richest_houses_share_the_victory() -> None:
    """Ruling: the rulebook names no tie-break, so equal richest houses win together."""
    table = law.standings({1: 800, 2: 800, 3: 10})
    assert [s.house for s in table if s.winner] == [1, 2]
    assert [s.rank for s in table] == [1, 1, 3]


def test_a_game_not_won_on_money_names_no_winner() -> None:
    assert not any(s.winner for s in law.standings({1: 5, 2: 9}, winners=False))


def test_the_target_is_reached_with_this_sum_or_more() -> None:
    """(22) "A player with this sum or more after the 'Cashing-In' Phase of a turn is declared the
    winner. If more than one player has more than 800 Crowns, the player with the most wins." """
    assert law.target_reached({1: 799, 2: 500}, 800) == []
    assert law.target_reached({1: 800, 2: 500}, 800) == [1]
    assert law.target_reached({1: 820, 2: 950, 3: 10}, 800) == [2, 1]
    assert law.target_reached({1: 10_000}, None) == []


def test_the_end_is_due_at_the_agreed_last_turn_or_the_target() -> None:
    assert law.end_due(year=1445, end_year=1450, money={1: 100}, target=800) is None
    assert law.end_due(year=1450, end_year=1450, money={1: 100}, target=800) == law.AGREED
    assert law.end_due(year=1400, end_year=1450, money={1: 800}, target=800) == law.TARGET
    assert law.end_due(year=1400, end_year=None, money={1: 900}, target=None) is None


def test_a_series_is_won_by_the_greatest_percentage() -> None:
    """(3) "the winner of each session will then be the player who has increased his or her wealth
    by the greatest percentage": 400 -> 600 is +50%, 100 -> 200 is +100%: the poorer house wins the
    session, the richer the game."""
    table = law.standings({1: 600, 2: 200}, starts={1: 400, 2: 100})
    by_house = {s.house: s for s in table}
    assert by_house[1].winner and not by_house[1].series_winner
    assert by_house[2].series_winner and by_house[2].series_rank == 1 and by_house[1].series_rank == 2
    assert by_house[1].increase is not None and by_house[1].increase.percent == Fraction(50)
    assert law.percent_text(by_house[2].increase) == "+100%"
    assert law.percent_text(law.increase(300, 200)) == "-33.3%"


def test_a_house_that_started_with_nothing_and_gained_ranks_above_every_percentage() -> None:
    """Ruling: from 0 (or a debt) no percentage measures a gain; it ranks above every percentage,
    the larger gain first; one that gained nothing from nothing ranks last."""
    table = law.standings({1: 1000, 2: 50, 3: 80, 4: 0}, starts={1: 100, 2: 0, 3: -20, 4: 0})
    order = sorted(table, key=lambda s: s.series_rank or 0)
    assert [s.house for s in order] == [3, 2, 1, 4]
    three = next(s for s in table if s.house == 3)
    assert three.increase is not None and three.increase.unbounded and three.increase.percent is None
    assert law.percent_text(three.increase) == "from -20, +100"


def test_settings_are_checked_with_what_to_fix() -> None:
    kw = {"current_year": 1320, "start_year": 1300, "money_wins": True, "currency": "Crowns"}
    law.check_settings(end_year=1450, money_target=800, **kw)  # type: ignore[arg-type]
    law.check_settings(end_year=None, money_target=None, **kw)  # type: ignore[arg-type]
    with pytest.raises(law.GameEndError, match="before the turn in play") as bad:
        law.check_settings(end_year=1315, money_target=None, **kw)  # type: ignore[arg-type]
    assert bad.value.fields == {"end_year": "invalid"}
    with pytest.raises(law.GameEndError, match="above 0") as bad:
        law.check_settings(end_year=None, money_target=0, **kw)  # type: ignore[arg-type]
    assert bad.value.fields == {"money_target": "invalid"}
    with pytest.raises(law.GameEndError, match="not won on money"):
        law.check_settings(end_year=None, money_target=800, **{**kw, "money_wins": False})  # type: ignore[arg-type]
    with pytest.raises(law.GameEndError, match="whole number"):
        law.check_starts({1: "lots"}, [1, 2], "Crowns")  # type: ignore[dict-item]
    with pytest.raises(law.GameEndError, match="no player house"):
        law.check_starts({9: 10}, [1, 2], "Crowns")
