"""A leader's figure in battle, term by term (rules.combat; issue 31). Each test quotes the rulebook."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import blood_royale as br
from rules import combat as cb
from rules.combat import Lasting
from tests.profiles import examples


def terms(figure: cb.Figure) -> list[tuple[str, int, int]]:
    return [(t.key, t.value, t.given) for t in figure.terms]


# --- Blood Royale: his Strength and his wife's Guile (Birth (6), Marriage (8)) -------------------


def test_example_3_mathilde_and_francisco() -> None:
    """Example 3: "Mathilde (-2 Guile) marries Francisco (-1 Strength). Francisco is now effectively -2 in
    combat." The wife's -2 counts -1: the excess is ignored."""
    f = cb.blood_royale_strength(strength=-1, wife="Mathilde", wife_guile=-2)
    assert f.measure == cb.STRENGTH and f.total == -2
    assert terms(f) == [("strength", -1, -1), ("wife", -1, -2)]
    assert f.terms[1].held and f.terms[1].label == "his wife Mathilde's Guile"
    assert "the excess is ignored" in f.terms[1].rule


def test_a_plus_2_bride_makes_a_normal_husband_plus_2() -> None:
    """Marriage (8): "A bride with a +2 Guile score who married a character with a 0 (normal) Strength rating,
    would make him effectively +2 as long as the Marriage lasted"."""
    f = cb.blood_royale_strength(strength=0, wife_guile=2)
    assert f.total == 2 and not f.terms[1].held


@pytest.mark.parametrize(
    ("strength", "guile", "total", "counted"),
    [(0, 4, 2, 2), (1, 2, 2, 1), (2, 2, 2, 0), (-2, -2, -2, 0), (2, -1, 1, -1), (-1, 1, 0, 1), (0, -4, -2, -2)],
)
def test_a_bride_never_takes_him_beyond_plus_or_minus_2(strength: int, guile: int, total: int, counted: int) -> None:
    """Marriage (8): "a bride can never modify a husband's score above +2 or below -2" - a King whose wife
    has Guile +4 (however it came about) is +2, the +4 held to +2."""
    f = cb.blood_royale_strength(strength=strength, wife_guile=guile)
    assert f.total == total
    wife = f.terms[-1]
    assert (wife.value, wife.given) == (counted, guile)
    assert wife.held == (counted != guile)


def test_no_wife_no_term() -> None:
    f = cb.blood_royale_strength(strength=1)
    assert f.total == 1 and terms(f) == [("strength", 1, 1)] and f.cases == ()


# --- the Governor's +1 (rule G) -----------------------------------------------------------------


def test_a_governor_may_go_above_plus_2() -> None:
    """Rule G: "give the character a +1 bonus to his or her Strength/Guile characteristic. This may take the
    characteristic above +2." The sheet holds +3 (his +2 and the Governor's +1): two terms, total +3."""
    f = cb.blood_royale_strength(strength=3, governor=1, governor_why="Duke of Liguria")
    assert f.total == 3
    assert terms(f) == [("strength", 2, 2), ("governor", 1, 1)]
    assert f.terms[1].why == "Duke of Liguria" and "above +2" in f.terms[1].rule


def test_a_wife_cannot_push_a_governor_further_but_can_pull_him_down() -> None:
    """The excess a wife's Guile would add is ignored, but his own +3 is not cut back by it."""
    assert cb.blood_royale_strength(strength=3, governor=1, wife_guile=1).total == 3
    assert cb.blood_royale_strength(strength=3, governor=1, wife_guile=-2).total == 1
    # his Strength +1 with the Governor's +1 is +2: a +1 bride adds nothing more
    assert cb.blood_royale_strength(strength=2, governor=1, wife_guile=1).total == 2


# --- the usurper and the rival (Succession (9), Example 8) --------------------------------------


def test_example_8_the_usurper_at_minus_1_and_the_rival_at_plus_1_against_him() -> None:
    """Example 8: "the French player now has a -1 modifier on all male characters' Strength for as long as
    Isabelle or any of her heirs are still alive ... The Spanish player will have a +1 bonus for his male
    character's Strength for the same period, whenever he is in combat with the French."""
    why = "Isabelle passed over for the crown of France"
    french = cb.blood_royale_strength(strength=1, usurper=[Lasting(-1, why)])
    assert french.total == 0 and terms(french)[-1] == ("usurper", -1, -1) and french.terms[-1].why == why
    spanish = cb.blood_royale_strength(strength=1, rival=[Lasting(1, why, "the house of Valois")])
    assert spanish.total == 1  # only against the French
    (case,) = spanish.cases
    assert case.when == "against the house of Valois" and case.total == 2
    assert [(t.key, t.value) for t in case.terms] == [("rival", 1)]


def test_the_usurpers_penalty_may_go_below_minus_2() -> None:
    """Succession (9): "a -1 penalty to their Strength score (which can reduce a character's Strength below -2)".
    It comes after the wife's Guile: a +2 bride does not absorb it."""
    f = cb.blood_royale_strength(strength=-2, wife_guile=-1, usurper=[Lasting(-1, "claim")])
    assert f.total == -3
    f = cb.blood_royale_strength(strength=2, wife_guile=2, usurper=[Lasting(-1, "claim")])
    assert f.total == 1


def test_two_claims_two_penalties() -> None:
    """Each passed-over claim lasts and ends on its own (docs/rulings.md): their penalties add up."""
    f = cb.blood_royale_strength(strength=0, usurper=[Lasting(-1, "a"), Lasting(-1, "b")])
    assert f.total == -2 and [t.key for t in f.terms] == ["strength", "usurper", "usurper"]


def test_the_rivals_bonus_is_held_to_plus_2() -> None:
    """Combat (19): "no single Royal Piece can accumulate more than +2 or -2 on his Strength score" - the rival's
    +1 is not one of the bonuses the rulebook lets go beyond it (the Governor's is)."""
    f = cb.blood_royale_strength(strength=2, rival=[Lasting(1, "claim", "the house of Valois")])
    (case,) = f.cases
    assert case.total == 2 and case.terms[0].given == 1 and case.terms[0].value == 0 and case.terms[0].held
    f = cb.blood_royale_strength(strength=3, governor=1, rival=[Lasting(1, "claim", "the house of Valois")])
    assert f.cases[0].total == 3


def test_rivals_against_two_houses_are_two_cases() -> None:
    f = cb.blood_royale_strength(
        strength=0, rival=[Lasting(1, "a", "the house of Valois"), Lasting(1, "b", "the house of Habsburg")]
    )
    assert [(c.when, c.total) for c in f.cases] == [("against the house of Valois", 1), ("against the house of Habsburg", 1)]


def test_the_old_combat_strength_agrees() -> None:
    assert br.combat_strength({"strength": 3}, {"guile": 1}) == 3  # a Governor's +3 is not cut to +2
    assert br.combat_strength({"strength": -1}, {"guile": -2}) == -2


# --- BloodLine -----------------------------------------------------------------------------------


def test_bloodline_malus_and_title_bonus() -> None:
    """BloodLine: "all combat rolls of any kind for the country are done with a -1 malus"; "The character gains a
    +1 to all battle rolls of any sort anywhere within his title lands"; "Titled characters always retain any
    bonus/malus that their title gives them"."""
    f = cb.bloodline_battle_rolls(
        maluses=[Lasting(-1, "Maria passed over for Castile (married away)")],
        titles=[Lasting(1, "Duke of Burgundy", "the lands of the Duke of Burgundy (Dijon, Beaune)")],
    )
    assert f.measure == cb.BATTLE_ROLLS and f.total == -1
    assert terms(f) == [("malus", -1, -1)]
    (case,) = f.cases
    assert case.when == "within the lands of the Duke of Burgundy (Dijon, Beaune)" and case.total == 0
    assert "within his title" in case.terms[0].rule


def test_bloodline_nothing_is_zero() -> None:
    f = cb.bloodline_battle_rolls()
    assert f.total == 0 and f.terms == () and f.cases == ()


# --- properties ----------------------------------------------------------------------------------

ints = st.integers(-4, 4)


@settings(max_examples=examples(200))
@given(
    strength=ints,
    governor=st.sampled_from([0, 1]),
    guile=st.none() | ints,
    usurper=st.lists(st.just(-1), max_size=3),
    rival=st.lists(st.sampled_from(["A", "B"]), max_size=3),
)
def test_terms_add_up_and_the_wife_never_takes_him_out_of_range(
    strength: int, governor: int, guile: int | None, usurper: list[int], rival: list[str]
) -> None:
    f = cb.blood_royale_strength(
        strength=strength,
        governor=governor,
        wife_guile=guile,
        usurper=[Lasting(v, "u") for v in usurper],
        rival=[Lasting(1, "r", h) for h in rival],
    )
    assert sum(t.value for t in f.terms) == f.total
    before_usurper = f.total - sum(usurper)
    assert min(-2, strength) <= before_usurper <= max(2, strength)
    for case in f.cases:
        assert case.total == f.total + sum(t.value for t in case.terms)
        assert case.total >= f.total
