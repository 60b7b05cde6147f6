"""Each ruleset states its characteristics (key, label, range); a hand edit is validated against them."""

from __future__ import annotations

import pytest

from rules import get_ruleset, rulesets
from rules.characteristics import InvalidCharacteristics, validate_characteristics


def test_blood_royale_names_them_by_sex_with_the_a2_ranges():
    br = get_ruleset("blood-royale")
    assert [(c.key, c.label, c.low, c.high) for c in br.characteristics("M")] == [
        ("strength", "Strength", -2, 3),
        ("constitution", "Constitution", -2, 2),
        ("charisma", "Charisma", -2, 2),
    ]
    assert [c.label for c in br.characteristics("F")] == ["Guile", "Constitution", "Charisma"]


@pytest.mark.parametrize("name", ["eu-monarchs", "eu-bloodline"])
def test_the_eu_rulesets_use_adm_dip_mil_from_3_to_9(name):
    assert [(c.key, c.label, c.low, c.high) for c in get_ruleset(name).characteristics("F")] == [
        ("adm", "ADM", 3, 9),
        ("dip", "DIP", 3, 9),
        ("mil", "MIL", 3, 9),
    ]


def test_every_ruleset_keys_agree_with_its_characteristic_names():
    for ruleset in rulesets():
        for sex in ("M", "F"):
            assert tuple(c.key for c in ruleset.characteristics(sex)) == ruleset.characteristic_names(sex)


def test_good_values_come_back_whole_and_in_the_sheets_order():
    br = get_ruleset("blood-royale")
    assert validate_characteristics(br, "F", {"charisma": "2", "guile": -1, "constitution": "+0"}) == {
        "guile": -1,
        "constitution": 0,
        "charisma": 2,
    }


def test_a_misspelt_key_is_refused_naming_the_right_ones():
    br = get_ruleset("blood-royale")
    with pytest.raises(InvalidCharacteristics) as caught:
        validate_characteristics(br, "M", {"strenght": 1, "strength": 1, "constitution": 0, "charisma": 0})
    assert set(caught.value.fields) == {"strenght"}
    assert "no characteristic 'strenght'" in caught.value.message and "'strength' (Strength)" in caught.value.message


@pytest.mark.parametrize("value", [4, -3, "x", 1.5, True, None])
def test_a_value_out_of_range_or_not_whole_is_refused_with_the_range(value):
    br = get_ruleset("blood-royale")
    with pytest.raises(InvalidCharacteristics) as caught:
        validate_characteristics(br, "M", {"strength": 0, "constitution": value, "charisma": 0})
    assert list(caught.value.fields) == ["constitution"]
    assert "-2 to +2" in caught.value.fields["constitution"]


def test_a_missing_characteristic_is_asked_for():
    eu = get_ruleset("eu-monarchs")
    with pytest.raises(InvalidCharacteristics) as caught:
        validate_characteristics(eu, "M", {"adm": 5, "dip": 10})
    assert caught.value.fields == {"dip": "DIP must be a whole number from 3 to 9, not 10.", "mil": "Give MIL (3 to 9)."}
