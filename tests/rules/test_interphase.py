"""Blood Royale's Interphase money as a pure function (RULES.md A8; rulebook sections 4, 11, 13, 15, 21, 22, E)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import interphase as ip
from rules.errors import RuleError
from rules.interphase import IN, OUT, InterphaseEntry, InterphaseError, cash_in_lines, interphase_lines


def run(cash: int = 0, first_turn: bool = False, **entry: Any) -> ip.InterphaseResult:
    entry.setdefault("provinces", 0)
    return interphase_lines(InterphaseEntry(**entry), cash=cash, first_turn=first_turn)


def refused(**entry: Any) -> InterphaseError:
    with pytest.raises(InterphaseError) as info:
        run(**entry)
    assert isinstance(info.value, RuleError) and info.value.code == "invalid_interphase"
    return info.value


def amounts(result: ip.InterphaseResult | ip.CashInResult) -> list[tuple[str, str, int]]:
    return [(line.kind, line.direction, line.amount) for line in result.lines]


# --- taxation (section 11) ---------------------------------------------------------------------------


def test_taxes_are_five_crowns_per_province_by_default() -> None:
    result = run(provinces=9)
    assert amounts(result) == [("tax", IN, 45)]
    assert result.lines[0].reason == "Taxation: 9 provinces at 5 Crowns"
    assert result.rebellion_modifier == 0 and result.notes == ()
    assert result.cash_after == 45 and result.income == 45 and result.costs == 0


def test_the_high_rate_is_seven_and_costs_two_on_rebellion_rolls() -> None:
    result = run(provinces=9, tax_rate=7)
    assert amounts(result) == [("tax", IN, 63)]
    assert result.rebellion_modifier == -2
    assert "-2 on Rebellion rolls this turn" in result.lines[0].reason
    assert any("apply -2 to every Rebellion roll" in note for note in result.notes)


@pytest.mark.parametrize("rate", [0, 4, 6, 8, 10, True, 5.0, "5"])
def test_only_one_rate_of_five_or_seven(rate: object) -> None:
    error = refused(provinces=3, tax_rate=rate)
    assert "The tax rate is 5 or 7 Crowns per province, one rate for the whole country" in error.message
    assert error.fields == {"tax_rate": "invalid"}


def test_famine_and_rebellion_provinces_pay_nothing() -> None:
    result = run(provinces=10, famine=2, rebellion=1)
    assert amounts(result) == [("tax", IN, 35)]
    assert result.taxed_provinces == 7
    assert result.lines[0].reason == "Taxation: 7 provinces at 5 Crowns; 3 in famine or rebellion pay nothing"


def test_a_country_all_in_famine_posts_no_tax_line() -> None:
    assert run(provinces=2, famine=2).lines == ()


def test_names_a_province_in_famine_and_rebellion_once() -> None:
    result = run(provinces=["Kent", "Wessex", "Mercia"], famine=["Kent"], rebellion=["kent", "Mercia"])
    assert result.taxed_provinces == 1 and amounts(result) == [("tax", IN, 5)]


def test_more_famine_and_rebellion_than_provinces_is_refused() -> None:
    error = refused(provinces=3, famine=2, rebellion=2)
    assert error.message == "4 provinces in famine or rebellion, but the country controls only 3."
    assert error.fields == {"famine": "too_many"}


def test_famine_names_must_be_controlled_provinces() -> None:
    error = refused(provinces=["Kent", "Wessex"], famine=["Normandy"], rebellion=["Anjou", "Maine"])
    assert "Provinces in famine: Normandy is not among the provinces controlled." in error.message
    assert "Provinces in rebellion: Anjou and Maine are not among the provinces controlled." in error.message


def test_a_province_listed_twice_is_refused() -> None:
    error = refused(provinces=["Kent", " kent "])
    assert error.message == "Provinces controlled: kent is listed twice."


def test_a_bare_string_is_not_a_list_of_provinces() -> None:
    error = refused(provinces="Kent")
    assert error.message == "Provinces controlled must be a whole number (got 'Kent')."


# --- counts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "label"),
    [
        ("provinces", "Provinces controlled"),
        ("famine", "Provinces in famine"),
        ("rebellion", "Provinces in rebellion"),
        ("armies_kept", "Armies kept"),
        ("fleets_kept", "Fleets kept"),
        ("armies_raised", "Armies raised"),
        ("fleets_raised", "Fleets raised"),
        ("rebellions_bought_off", "Rebellions bought off"),
        ("home_provinces", "Home provinces controlled"),
        ("home_in_rebellion", "Home provinces still in rebellion"),
    ],
)
def test_counts_are_never_negative(field: str, label: str) -> None:
    entry: dict[str, Any] = {"provinces": 5, "home_provinces": 5, field: -1}
    error = refused(**entry)
    assert f"{label} cannot be negative (got -1)." in error.message
    assert error.fields[field] == "negative"


@pytest.mark.parametrize("value", [1.5, True, None, "3"])
def test_counts_are_whole_numbers(value: object) -> None:
    error = refused(provinces=5, armies_kept=value)
    assert error.message == f"Armies kept must be a whole number (got {value!r})."


def test_every_fault_is_named_at_once() -> None:
    error = refused(provinces=2, tax_rate=6, armies_kept=-1, fleets_raised=5)
    assert set(error.fields) == {"tax_rate", "armies_kept", "fleets_raised"}
    assert "tax rate" in error.message and "Armies kept" in error.message and "At most 4 fleets" in error.message


# --- maintenance and raising (section 13) -------------------------------------------------------------


def test_maintenance_is_two_and_raising_five_each() -> None:
    forces = {"armies_kept": 10, "fleets_kept": 2, "armies_raised": 3, "fleets_raised": 1}
    result = run(cash=100, provinces=8, famine=8, home_provinces=8, **forces)
    assert amounts(result) == [
        ("maintenance", OUT, 20),
        ("maintenance", OUT, 4),
        ("raising", OUT, 15),
        ("raising", OUT, 5),
    ]
    assert [line.reason for line in result.lines] == [
        "Maintenance of 10 armies at 2 Crowns",
        "Maintenance of 2 fleets at 2 Crowns",
        # section 13: "New armies are placed in the Capital and Fleets in any coastal Home Province"
        "Raising 3 armies at 5 Crowns, placed in the capital",
        "Raising 1 fleet at 5 Crowns, placed in coastal home provinces",
    ]
    assert result.costs == 44 and result.cash_after == 56


def test_at_most_twenty_armies_kept_and_raised() -> None:
    assert run(cash=200, provinces=10, famine=10, armies_kept=15, armies_raised=5, home_provinces=10).cash_after == 145
    error = refused(cash=200, provinces=11, armies_kept=15, armies_raised=6, home_provinces=11)
    assert error.message == "At most 20 armies on the map: 15 kept + 6 raised = 21."
    assert error.fields == {"armies_raised": "over_limit"}
    assert refused(armies_kept=21).message == "At most 20 armies on the map: 21 kept + 0 raised = 21."


def test_at_most_four_fleets() -> None:
    assert run(cash=50, fleets_kept=2, fleets_raised=2).costs == 14
    error = refused(cash=50, fleets_kept=3, fleets_raised=2)
    assert error.message == "At most 4 fleets: 3 kept + 2 raised = 5."
    assert error.fields == {"fleets_raised": "over_limit"}


def test_a_player_with_two_kingdoms_has_two_countries_worth_of_counters() -> None:
    result = run(cash=500, provinces=16, countries=2, armies_kept=30, fleets_kept=8, armies_raised=2, home_provinces=16)
    assert result.costs == 60 + 16 + 10
    assert "At most 40 armies" in refused(countries=2, armies_kept=41).message
    assert refused(countries=0).message == "A player controls at least 1 country."


def test_raising_is_capped_at_twice_the_home_provinces_not_in_rebellion() -> None:
    assert run(cash=50, provinces=6, home_provinces=4, armies_kept=5, armies_raised=3).raising_cap == 8
    error = refused(cash=50, provinces=6, home_provinces=4, armies_kept=5, armies_raised=4)
    assert error.message == (
        "Raising 4 armies would put 9 on the map, above 2 x 4 home provinces not in rebellion "
        "(4 controlled, 0 still in rebellion after the buy-offs) = 8: raise at most 3."
    )
    assert error.fields == {"armies_raised": "over_cap"}


def test_the_cap_counts_home_provinces_still_in_rebellion_after_the_buy_offs() -> None:
    # 5 home provinces, 2 of them in rebellion, 1 bought off: 4 quiet, cap 8
    entry: dict[str, Any] = {"cash": 100, "provinces": 7, "rebellion": 2, "rebellions_bought_off": 1, "home_provinces": 5}
    assert run(**entry, home_in_rebellion=1, armies_raised=8).raising_cap == 8
    error = refused(**entry, home_in_rebellion=1, armies_raised=9)
    assert "above 2 x 4 home provinces not in rebellion (5 controlled, 1 still in rebellion after the buy-offs) = 8" in (
        error.message
    )
    # the rebellion left is in a conquered province: all 5 home provinces count
    assert run(**entry, home_in_rebellion=0, armies_raised=10).raising_cap == 10


def test_without_the_split_the_markers_left_are_taken_to_be_at_home() -> None:
    result = run(cash=100, provinces=7, rebellion=2, home_provinces=5, armies_raised=6)
    assert result.raising_cap == 6
    assert result.notes == (
        "Raising cap: the 2 rebellion markers left after the buy-offs are taken to be in home provinces; give the "
        "home provinces still in rebellion to say otherwise.",
    )
    error = refused(cash=100, provinces=7, rebellion=2, home_provinces=5, armies_raised=7)
    assert "(the 2 rebellion markers left after the buy-offs are taken to be in home provinces" in error.message


def test_with_names_the_cap_is_worked_out() -> None:
    entry: dict[str, Any] = {
        "cash": 100,
        "provinces": ["Kent", "Wessex", "Mercia", "Normandy"],
        "home_provinces": ["Kent", "Wessex", "Mercia"],
        "rebellion": ["Kent", "Mercia", "Normandy"],
        "rebellions_bought_off": ["Mercia"],
    }
    assert run(**entry, armies_raised=4).raising_cap == 4  # Kent still in rebellion: 2 quiet
    assert run(**entry, home_in_rebellion=1, armies_raised=4).raising_cap == 4
    error = refused(**entry, home_in_rebellion=0, armies_raised=4)
    assert error.message == "Home provinces still in rebellion: 0 given, but the lists of names give 1."


def test_home_in_rebellion_cannot_exceed_the_markers_left() -> None:
    error = refused(provinces=5, rebellion=2, rebellions_bought_off=1, home_provinces=5, home_in_rebellion=2)
    assert error.message == (
        "2 home provinces still in rebellion, but the country has 5 home provinces and 1 rebellion marker left "
        "after the buy-offs."
    )


def test_raising_armies_needs_the_home_provinces() -> None:
    error = refused(cash=50, provinces=5, armies_raised=1)
    assert error.fields == {"home_provinces": "required"}
    assert "Say how many home provinces the country controls" in error.message


def test_a_country_above_the_cap_keeps_its_armies_but_raises_none() -> None:
    assert run(cash=50, provinces=3, home_provinces=2, armies_kept=10).costs == 20
    assert run(cash=50, provinces=3, home_provinces=2, armies_kept=10, fleets_raised=1).costs == 25  # fleets: no cap
    error = refused(cash=50, provinces=3, home_provinces=2, armies_kept=10, armies_raised=1)
    assert "raise at most 0." in error.message


def test_home_provinces_are_among_those_controlled() -> None:
    assert refused(provinces=3, home_provinces=4).message == "4 home provinces, but the country controls only 3 provinces."


# --- rebellions (section 15, optional rule E) ---------------------------------------------------------


def test_a_rebellion_marker_is_bought_off_for_fifteen() -> None:
    result = run(cash=10, provinces=6, rebellion=3, rebellions_bought_off=2)
    assert amounts(result) == [("tax", IN, 15), ("rebellion", OUT, 30)]
    assert result.lines[1].reason == "2 rebellion markers bought off at 15 Crowns"
    assert "Provinces whose rebellion is bought off paid no tax" in result.notes[0]


def test_more_buy_offs_than_rebellions_is_refused() -> None:
    error = refused(cash=100, provinces=6, rebellion=1, rebellions_bought_off=2)
    assert error.message == "2 rebellion markers bought off, but only 1 of the country's provinces is in rebellion."
    assert error.fields == {"rebellions_bought_off": "too_many"}
    named = refused(provinces=["Kent", "Mercia"], rebellion=["Kent"], rebellions_bought_off=["Mercia"])
    assert "Rebellions bought off: Mercia is not among the provinces in rebellion." in named.message


def test_a_rebellion_in_the_capital_returns_half_the_cash_in_hand() -> None:
    result = run(cash=100, capital_rebellion=True)
    assert amounts(result) == [("rebellion", OUT, 50)]
    assert result.cash_after == 50
    assert result.lines[0].reason == "Rebellion in the capital: half of the 100 Crowns in hand, 50, returned to the Treasury"


def test_the_capital_takes_half_of_what_is_in_hand_after_every_other_line_rounded_down() -> None:
    # 70 + 45 taxes - 20 maintenance = 95 in hand; 47 go back, 48 stay (no set: the sets are cashed in
    # at the end of the turn, "D) CASHING IN RESOURCES", after the Movement and its rebellion)
    result = run(cash=70, provinces=9, armies_kept=10, capital_rebellion=True)
    assert amounts(result) == [("tax", IN, 45), ("maintenance", OUT, 20), ("rebellion", OUT, 47)]
    assert result.cash_after == 48
    assert "half of the 95 Crowns in hand, 47 (rounded down)" in result.lines[-1].reason
    assert result.costs == 20  # the capital's loss is not a cost the exchequer must cover


@pytest.mark.parametrize("cash", [0, 1, -30])
def test_nothing_is_returned_from_an_empty_or_overdrawn_exchequer(cash: int) -> None:
    result = run(cash=cash, capital_rebellion=True)
    assert result.lines == ()
    assert result.cash_after == cash
    assert result.notes[-1].startswith("Rebellion in the capital: no cash in hand") or cash == 1


# --- cashing in (section 21): the turn's last phase, not Interphase income ---------------------------


def cashed(cash: int = 0, **sets: int) -> ip.CashInResult:
    return cash_in_lines(cash=cash, **sets)


def test_sets_are_cashed_in_at_fifty_eighty_and_one_hundred_twenty() -> None:
    result = cashed(basic_sets=2, semi_luxury_sets=1, luxury_sets=1, cash=7)
    assert amounts(result) == [("cash_in", IN, 100), ("cash_in", IN, 80), ("cash_in", IN, 120)]
    assert [line.reason for line in result.lines] == [
        "Cashing-in at the end of the turn: 2 sets of metals, cloth and food at 50 Crowns",
        "Cashing-in at the end of the turn: 1 set of metals, cloth, food and a semi-luxury at 80 Crowns",
        "Cashing-in at the end of the turn: 1 set of metals, cloth, food, a semi-luxury and a luxury at 120 Crowns",
    ]
    assert result.income == 300 and result.cash_before == 7 and result.cash_after == 307
    assert cashed().lines == ()


def test_no_more_sets_than_the_counters_in_the_box() -> None:
    def refused_sets(**sets: int) -> InterphaseError:
        with pytest.raises(InterphaseError) as info:
            cashed(**sets)
        return info.value

    assert (
        "16 sets need that many metals, cloth and food, but the game has only 15 of each."
        in refused_sets(basic_sets=10, semi_luxury_sets=5, luxury_sets=1).message
    )
    assert refused_sets(semi_luxury_sets=8, luxury_sets=3).message == (
        "11 sets need that many semi-luxury items, but the game has only 10."
    )
    assert refused_sets(luxury_sets=6).fields == {"luxury_sets": "over_limit"}
    assert refused_sets(basic_sets=-1).fields == {"basic_sets": "negative"}


def test_sets_are_not_interphase_income() -> None:
    """ "D) CASHING IN RESOURCES" comes after "B) INTERPHASE" and "C) MOVEMENT" in the sequence of
    play, and "The Full Game Turn ends with Cashing In Resources": a set pays no upkeep or raising.
    France with 0 Crowns, 10 provinces and 10 armies kept may raise 6 armies (50 - 20 = 30), not 10,
    whatever sets wait at its capital."""
    assert "basic_sets" not in InterphaseEntry.__dataclass_fields__
    assert run(cash=0, provinces=10, home_provinces=10, armies_kept=10, armies_raised=6).cash_after == 0
    assert run(cash=0, provinces=10, home_provinces=10, armies_kept=10, armies_raised=7).shortfall == 5
    assert run(cash=0, provinces=10, home_provinces=10, armies_kept=10, armies_raised=10).shortfall == 20


def test_a_rebellion_in_the_capital_does_not_halve_the_sets_cashed_in_after_it() -> None:
    """The capital's rebellion is an Event of the Movement ("half of that country's current cash in
    hand should be returned to the Treasury"); the sets are cashed in after it, at the turn's end:
    0 Crowns and a basic set leave 50, not 25."""
    interphase = run(cash=0, provinces=0, capital_rebellion=True)
    assert interphase.lines == () and interphase.cash_after == 0
    assert cashed(cash=interphase.cash_after, basic_sets=1).cash_after == 50


# --- order, funds, first turn ---------------------------------------------------------------------------


def test_income_comes_first_then_costs_in_the_rulebook_order() -> None:
    # No cash_in line: "The Full Game Turn ends with Cashing In Resources" (cash_in_lines), after these.
    result = run(
        cash=50,
        provinces=10,
        rebellion=1,
        tax_rate=7,
        rebellions_bought_off=1,
        armies_kept=4,
        fleets_kept=1,
        armies_raised=2,
        fleets_raised=1,
        home_provinces=8,
        home_in_rebellion=0,
    )
    assert [line.kind for line in result.lines] == [
        "tax",
        "rebellion",
        "maintenance",
        "maintenance",
        "raising",
        "raising",
    ]
    assert result.income == 63 and result.costs == 15 + 8 + 2 + 10 + 5
    assert result.shortfall == 0 and result.cash_after == 50 + 63 - 40


def test_the_shortfall_is_what_the_costs_exceed_cash_and_income_by() -> None:
    result = run(cash=10, provinces=5, armies_kept=20, home_provinces=5)
    assert result.shortfall == 40 - 35 and result.cash_after == -5
    assert run(cash=-10, provinces=4).shortfall == 0  # no costs: nothing is spent
    assert run(cash=-10, provinces=1, fleets_kept=1).shortfall == 7


def test_in_the_first_turn_only_taxation_and_raising_apply() -> None:
    assert run(first_turn=True, provinces=8, home_provinces=8, armies_raised=7).cash_after == 40 - 35
    error = refused(first_turn=True, provinces=8, armies_kept=2, rebellion=1)
    assert set(error.fields) == {"armies_kept", "rebellion"}
    assert "Armies kept: none in the first turn, when only Taxation, Placing Resources and Raising apply" in error.message


def test_the_kinds_are_the_ledgers() -> None:
    assert ip.KINDS == ("tax", "cash_in", "rebellion", "maintenance", "raising")


@given(
    cash=st.integers(-200, 500),
    provinces=st.integers(0, 30),
    famine=st.integers(0, 5),
    rebellion=st.integers(0, 5),
    tax_rate=st.sampled_from(ip.TAX_RATES),
    armies_kept=st.integers(0, 12),
    fleets_kept=st.integers(0, 2),
    fleets_raised=st.integers(0, 2),
    capital=st.booleans(),
)
def test_the_lines_add_up(
    cash: int,
    provinces: int,
    famine: int,
    rebellion: int,
    tax_rate: int,
    armies_kept: int,
    fleets_kept: int,
    fleets_raised: int,
    capital: bool,
) -> None:
    provinces = max(provinces, famine + rebellion)
    result = run(
        cash=cash,
        provinces=provinces,
        famine=famine,
        rebellion=rebellion,
        tax_rate=tax_rate,
        armies_kept=armies_kept,
        fleets_kept=fleets_kept,
        fleets_raised=fleets_raised,
        capital_rebellion=capital,
    )
    assert all(line.amount > 0 for line in result.lines)
    assert result.cash_after == cash + sum(line.signed for line in result.lines)
    directions = [line.direction for line in result.lines if not line.reason.startswith("Rebellion in the capital")]
    assert directions == sorted(directions, key=lambda d: d != IN)  # income first
    assert result.income - result.costs + cash >= 0 or result.shortfall > 0 or result.costs == 0


# --- optional rule G: governed provinces in the Interphase --------------------------------------------


def test_a_governed_province_raises_two_crowns_extra_for_the_kings_own_governor() -> None:
    """Rule G: "any Province governed by a character raises 2 Crowns extra (ie, either 7 or 9
    Crowns)"; a Governor of the King's own dynasty keeps nothing from his own player."""
    own = ip.Governed(province="Kent", governor="Edmund")
    result = run(provinces=["Kent", "Wessex"], tax_rate=7, governed=(own,))
    assert amounts(result) == [("tax", IN, 14), ("tax", IN, 2)]
    assert result.lines[1].reason == "Governed provinces (rule G): Kent at 2 Crowns extra"
    assert result.income == 16 and all(line.house is None for line in result.lines)
    error = refused(provinces=2, governed=(ip.Governed(province="Kent", governor="Edmund", withheld=3),))
    assert error.fields == {"governed": "own_governor"}


def test_a_foreign_governor_keeps_the_extra_and_may_withhold_the_royal_tax() -> None:
    """Rule G: "A Provincial Governor from a foreign Dynasty would keep those 2 Crowns for his or her
    own Dynasty. The Governor may also refuse to pay all or some of the 5 or 7 Crowns Royal Taxes for
    that Province to the Crown, in which case the governing player should take the money from the
    Treasury"."""
    foreign = ip.Governed(province="Kent", governor="Louis", house=9, house_name="Capet", withheld=3)
    result = run(cash=0, provinces=["Kent", "Wessex", "Mercia"], governed=(foreign,))
    assert [(line.kind, line.direction, line.amount, line.house) for line in result.lines] == [
        ("tax", IN, 12, None),  # 3 x 5, less the 3 withheld
        ("tax", IN, 2, 9),
        ("tax", IN, 3, 9),
    ]
    assert "3 withheld by governors" in result.lines[0].reason
    assert result.income == 12 and result.cash_after == 12  # the governor's lines are not the country's
    too_much = ip.Governed(province="Kent", governor="Louis", house=9, withheld=6)
    assert refused(provinces=["Kent"], governed=(too_much,)).fields == {"governed": "too_much"}


def test_a_present_governors_charisma_is_the_governing_players_profit_or_loss() -> None:
    """Rule G: "whenever the Provincial Lord is actually present in that Province, the taxes raised
    from there should be modified by his or her Charisma. This additional profit/loss being taken by
    the governing player."""
    result = run(
        cash=10,
        provinces=["Kent", "Wessex"],
        governed=(
            ip.Governed(province="Kent", governor="Edmund", charisma=-2),
            ip.Governed(province="Wessex", governor="Louis", house=9, charisma=1),
        ),
    )
    assert [(line.direction, line.amount, line.house) for line in result.lines] == [
        (IN, 10, None),
        (IN, 2, None),
        (OUT, 2, None),
        (IN, 2, 9),
        (IN, 1, 9),
    ]
    assert result.cash_after == 10 + 10 + 2 - 2


def test_a_governed_province_in_famine_or_rebellion_raises_nothing() -> None:
    governed = (ip.Governed(province="Kent", governor="Louis", house=9),)
    result = run(provinces=["Kent", "Wessex"], famine=["Kent"], governed=governed)
    assert amounts(result) == [("tax", IN, 5)]
    assert refused(provinces=["Wessex"], governed=governed).fields == {"governed": "not_controlled"}
    assert refused(provinces=1, famine=1, governed=governed).fields == {"governed": "too_many"}


# --- the Year Track: the pool limits what can be raised (section 13, Game Equipment) ----------------


def test_armies_on_the_year_track_cannot_be_raised() -> None:
    """Section 13: "Players may not raise troops from the Army counters on the Year Track ... This
    off-map 'pool' of Army counters represents the full potential of the country to raise troops."
    20 counters, 8 kept and 8 lost last turn on the track: the pool holds 4."""
    entry = {"provinces": 10, "home_provinces": 10, "armies_kept": 8, "armies_on_track": 8}
    assert run(cash=100, armies_raised=4, **entry).costs == 16 + 20
    error = refused(cash=100, armies_raised=5, **entry)
    assert error.fields == {"armies_raised": "over_pool"}
    assert "the pool beside the board holds 4 (20 counters, 8 on the map, 8 on the Year Track)" in error.message
    assert refused(provinces=1, armies_kept=15, armies_on_track=6).fields == {"armies_on_track": "over_limit"}
    assert refused(first_turn=True, provinces=1, armies_on_track=1).fields == {"armies_on_track": "first_turn"}


# --- where new forces are placed (section 13) -----------------------------------------------------------


def test_new_armies_go_to_the_capital_and_fleets_to_coastal_home_provinces() -> None:
    """Section 13: "New armies are placed in the Capital and Fleets in any coastal Home Province (ie,
    a province of his original country that he still controls, ignoring any provinces gained at the
    expense of other countries)"."""
    home = ["Ile de France", "Normandy", "Brittany"]
    result = run(
        cash=100,
        provinces=[*home, "Kent"],
        home_provinces=home,
        armies_raised=2,
        fleets_raised=2,
        capital="Ile de France",
        fleet_ports=("Normandy", "Brittany"),
    )
    assert [line.reason for line in result.lines[-2:]] == [
        "Raising 2 armies at 5 Crowns, placed in Ile de France (the capital)",
        "Raising 2 fleets at 5 Crowns, placed in Normandy and Brittany",
    ]
    error = refused(
        cash=100, provinces=[*home, "Kent"], home_provinces=home, fleets_raised=2, capital="Kent", fleet_ports=("Kent",)
    )
    assert error.fields == {"capital": "not_home", "fleet_ports": "not_home"}
    assert "Fleet ports: 1 given for 2 fleets raised" in error.message
    first = run(first_turn=True, provinces=home, home_provinces=home, armies_raised=1)
    assert first.lines[-1].reason == "Raising 1 army at 5 Crowns, placed in the home provinces"


# --- the Movement's payments: neutrals' ransoms, trade interceptions (D), event cards (E) -------------


def test_a_royal_captured_by_neutrals_is_ransomed_for_one_hundred() -> None:
    """Fighting Neutrals: "If they capture a Royal character, Neutrals ransom him for 100 Crowns"
    (paid to the Treasury: the neutrals are no player)."""
    result = run(cash=120, provinces=2, neutral_ransoms=("Prince Edward",))
    assert amounts(result) == [("tax", IN, 10), ("ransom", OUT, 100)]
    assert result.lines[-1].reason == "Ransom of Prince Edward from the neutrals who captured him: 100 Crowns to the Treasury"
    assert result.costs == 100 and result.cash_after == 30
    assert run(cash=0, provinces=2, neutral_ransoms=("Prince Edward",)).shortfall == 90


def test_crowns_spent_on_trade_interceptions_and_event_cards() -> None:
    """Optional rule D: "-1 for each 15 Crowns the owning player pays to the Treasury before the die
    roll; +1 for each 20 Crowns the intercepting player pays to the Treasury". Event Cards: the
    winning bidder "should pay the sum in Crowns he or she bid to the Treasury"; investors "all ...
    pay the amount of the investment in Crowns to the Treasury"."""
    result = run(
        cash=200,
        provinces=0,
        trade_defence_crowns=30,
        trade_interception_crowns=40,
        event_payments=(("31 Denmark", 25),),
        capital_rebellion=True,
    )
    assert amounts(result) == [("other", OUT, 30), ("other", OUT, 40), ("other", OUT, 25), ("rebellion", OUT, 52)]
    assert result.lines[0].reason == "Trade (rule D): 30 Crowns paid to protect trade items, -2 on the interception roll"
    assert result.lines[1].reason == "Trade (rule D): 40 Crowns paid to intercept trade items, +2 on the interception roll"
    assert result.lines[2].reason == "Event card 31 Denmark: 25 Crowns bid or invested, paid to the Treasury"
    error = refused(cash=200, trade_defence_crowns=20, trade_interception_crowns=30, event_payments=(("x", 0),))
    assert set(error.fields) == {"trade_defence_crowns", "trade_interception_crowns", "event_payments"}


# --- the entry: the one carrier from the form or the request to the rules ------------------------------


def test_an_entry_without_provinces_is_refused_by_the_rules_and_keeps_no_callers_list() -> None:
    """``provinces`` None is the service's "read the province register"; the rules, which read no
    register, say what to give. A list entered is kept as a tuple: the frozen entry shares nothing."""
    with pytest.raises(InterphaseError) as info:
        interphase_lines(InterphaseEntry(), cash=0)
    assert info.value.fields == {"provinces": "required"}
    assert "Provinces controlled: give them" in info.value.message
    names = ["Kent", "Wessex"]
    entry = InterphaseEntry(provinces=names, fleet_ports=["Kent"], fleets_raised=1, governed=[ip.Governed(province="Kent")])
    names.append("Mercia")
    assert entry.provinces == ("Kent", "Wessex") and entry.fleet_ports == ("Kent",)
    assert entry.governed == (ip.Governed(province="Kent"),)
    assert interphase_lines(entry, cash=0).taxed_provinces == 2
