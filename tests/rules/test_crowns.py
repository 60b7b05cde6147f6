"""The crowns' rules at the table (rules/crowns.py), pure: the regent's conditions, a lost capital's and
foreign aid's Charisma, the board's Stability causes."""

from __future__ import annotations

import pytest

from rules import crowns
from rules.crowns import RegentCandidate, baron_refusal, board_change, capital_loss, capital_restored, regent_refusal
from rules.errors import RuleError


def candidate(**changes: object) -> RegentCandidate:
    base = {
        "name": "Edmund",
        "age": 30,
        "alive": True,
        "prisoner": False,
        "of_the_house": True,
        "monarch": False,
        "regent": False,
    }
    return RegentCandidate(**{**base, **changes})  # type: ignore[arg-type]


def test_any_other_character_of_the_house_of_age_and_free_may_be_regent() -> None:
    assert regent_refusal(candidate(), crown="England") is None
    assert regent_refusal(candidate(age=15), crown="England") is None
    for change, words in (
        ({"age": 14}, "is 14: a regent must be of age, 15"),
        ({"prisoner": True}, "is a prisoner"),
        ({"of_the_house": False}, "not a character of the house that plays England"),
        ({"monarch": True}, "is the minor monarch"),
        ({"regent": True}, "already the regent"),
        ({"alive": False}, "not in play"),
    ):
        refusal = regent_refusal(candidate(**change), crown="England")
        assert refusal is not None and words in refusal, change
    assert "Blood Royale A7" in (regent_refusal(candidate(age=9), crown="England") or "")


def test_a_baron_only_when_none_are_available() -> None:
    assert baron_refusal(0, crown="England") is None
    refusal = baron_refusal(2, crown="England")
    assert refusal is not None and "2 characters of the house can act" in refusal and "if none are available" in refusal


@pytest.mark.parametrize(("charisma", "lost"), [(2, -1), (0, -1), (-1, -1), (-2, 0), (-3, 0)])
def test_a_lost_capital_costs_one_charisma_never_below_minus_two(charisma: int, lost: int) -> None:
    assert capital_loss(charisma) == lost


@pytest.mark.parametrize(("charisma", "lost", "back"), [(-1, -1, 1), (1, -1, 1), (2, -1, 0), (-2, 0, 0), (-3, -1, 1)])
def test_the_retaking_gives_back_what_was_lost_held_to_plus_two(charisma: int, lost: int, back: int) -> None:
    assert capital_restored(charisma, lost) == back


def test_foreign_aid_costs_one_charisma_with_no_floor() -> None:
    assert crowns.INTERVENTION_CHARISMA == -1
    assert "below -2" in crowns.INTERVENTION_RULE


def test_the_boards_causes_fix_their_change_or_take_one_within_their_range() -> None:
    assert board_change("peace", None) == 1
    assert board_change("peace", 1) == 1
    assert board_change("levies", None) == -1
    assert board_change("bankruptcy", -2) == -2
    assert board_change("enhance_stability", 3) == 3
    assert board_change("war_lost", -5) == -5
    assert board_change("table", 4, "a comet") == 4
    for args, field, words in (
        (("peace", 2), "delta", r"A full peace is \+1 Stability"),
        (("bankruptcy", None), "delta", "type the change"),
        (("bankruptcy", 1), "delta", r"-2 to \+0"),
        (("war_lost", 1), "delta", r"not \+1"),
        (("enhance_stability", 0), "delta", "0 changes nothing"),
        (("table", 1), "reason", "Say why"),
        (("flood", 1), "cause", "not a cause"),
    ):
        with pytest.raises(RuleError, match=words) as refused:
            board_change(*args)  # type: ignore[arg-type]
        assert field in refused.value.fields


def test_every_cause_cites_its_rule_and_the_fixed_ones_lie_in_their_range() -> None:
    keys = [c.key for c in crowns.BOARD_CAUSES]
    assert len(keys) == len(set(keys)) and "table" in keys
    for cause in crowns.BOARD_CAUSES:
        assert cause.rule and cause.label
        assert cause.low <= cause.high
        if cause.fixed:
            assert cause.span() == f"{cause.delta:+d}"
