"""Blood Royale's Dynastic Sequence as pure functions (RULES.md section A)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rules import blood_royale as br
from rules import get_ruleset
from rules import tables as T
from rules.dice import TWO_D6, chance_at_least
from rules.errors import IllegalMarriage, IllegalOption, IneligibleCouple, RuleError
from rules.people import FEMALE, MALE, Person

SURVIVAL = T.DEFAULT_SURVIVAL
BANDS = T.DEFAULT_CHARACTERISTIC_BANDS


def man(pid: int = 1, born: int = 1290, name: str = "Plantagenet", **kw: Any) -> Person:
    return Person(id=pid, sex=MALE, birth_year=born, dynastic_name=name, **kw)


def woman(pid: int = 2, born: int = 1295, name: str = "Anjou", **kw: Any) -> Person:
    return Person(id=pid, sex=FEMALE, birth_year=born, dynastic_name=name, **kw)


# --- rulesets --------------------------------------------------------------------------------------


def test_each_ruleset_module_registers_its_ruleset() -> None:
    assert get_ruleset("blood-royale") is br.RULESET
    assert br.RULESET.name == br.NAME == "blood-royale"
    assert br.RULESET.currency == "Crowns" and br.RULESET.interphase and not br.RULESET.unions
    assert get_ruleset("eu-bloodline").unions and not get_ruleset("eu-bloodline").interphase
    assert not get_ruleset("eu-monarchs").keeps_families


def test_unknown_rulesets_are_refused_with_a_reason() -> None:
    assert get_ruleset("eu-bloodline").NAME == "eu-bloodline"
    with pytest.raises(RuleError) as info:
        get_ruleset("chess")
    assert info.value.code == "unknown_ruleset"
    assert "'chess'" in info.value.message


# --- A1 time -----------------------------------------------------------------------------------------


def test_a1_campaign_starts_in_1300_with_five_year_turns() -> None:
    assert br.START_YEAR == 1300
    assert br.TURN_LENGTH == 5


# --- A2 characteristics --------------------------------------------------------------------------------


def test_a2_characteristic_names_by_sex() -> None:
    assert br.characteristic_names(MALE) == ("strength", "constitution", "charisma")
    assert br.characteristic_names(FEMALE) == ("guile", "constitution", "charisma")
    assert br.normal_characteristics(MALE) == {"strength": 0, "constitution": 0, "charisma": 0}
    assert br.normal_characteristics(FEMALE) == {"guile": 0, "constitution": 0, "charisma": 0}


def test_a2_characteristics_from_three_3d6_totals() -> None:
    assert br.characteristics_from_totals(BANDS, MALE, [3, 10, 18]) == {"strength": -2, "constitution": 0, "charisma": 2}
    assert br.characteristics_from_totals(BANDS, FEMALE, [13, 8, 16]) == {"guile": 1, "constitution": -1, "charisma": 2}
    with pytest.raises(ValueError, match="need 3 characteristic rolls, got 2"):
        br.characteristics_from_totals(BANDS, MALE, [10, 10])


def test_a2_combat_strength_rulebook_example_mathilde_and_francisco() -> None:
    """A2: "Mathilde (-2 Guile) marries Francisco (-1 Strength). Francisco is now effectively -2 in combat.\""""
    assert br.combat_strength({"strength": -1}, {"guile": -2}) == -2


@pytest.mark.parametrize(
    ("strength", "guile", "expected"),
    [(0, 2, 2), (2, 2, 2), (1, 1, 2), (1, -1, 0), (-2, -2, -2), (-1, 0, -1), (2, -1, 1), (0, 0, 0)],
)
def test_a2_wifes_guile_is_added_and_clamped(strength: int, guile: int, expected: int) -> None:
    """A2/A6: "A bride with a +2 Guile score who married a character with a 0 (normal) Strength rating,
    would make him effectively +2 ... a bride can never modify a husband's score above +2 or below -2.\""""
    assert br.combat_strength({"strength": strength}, {"guile": guile}) == expected


def test_a2_combat_strength_unmarried_or_unrecorded() -> None:
    assert br.combat_strength({"strength": 1}, None) == 1
    assert br.combat_strength({}, None) == 0
    assert br.combat_strength({"strength": -1}, {}) == -1


# --- A3 set-up ------------------------------------------------------------------------------------------


def test_a3_basic_setup_king_25_queen_20_child_5() -> None:
    """A3: "a King aged 25 (born 1275), a Queen aged 20 (born 1280) and one child aged 5 (born 1295)"."""
    plan = br.setup_plan(br.default_options())
    assert plan == [
        br.SetupCharacter("king", 1275, MALE, False),
        br.SetupCharacter("queen", 1280, FEMALE, False),
        br.SetupCharacter("child", 1295, None, True),
    ]


def test_a3_rule_a_four_character_start() -> None:
    """A3, optional rule A: King 30 (1270), Queen 25 (1275), children 10 (1290) and 5 (1295)."""
    plan = br.setup_plan({"four_character_start": True})
    assert [(c.role, c.birth_year, c.sex) for c in plan] == [
        ("king", 1270, MALE),
        ("queen", 1275, FEMALE),
        ("child", 1290, None),
        ("child", 1295, None),
    ]
    assert [c.rolled_characteristics for c in plan] == [False, False, True, True]


def test_a3_rule_b_rolls_the_king_and_queen() -> None:
    plan = br.setup_plan({"rolled_king_queen": True})
    assert [(c.role, c.rolled_characteristics) for c in plan] == [("king", True), ("queen", True), ("child", True)]
    both = br.setup_plan({"rolled_king_queen": True, "four_character_start": True})
    assert all(c.rolled_characteristics for c in both)
    assert len(both) == 4


def test_a3_setup_for_a_new_dynasty_later_in_the_game() -> None:
    """A5: a dynasty that dies out starts again "as in setting up": ages count from that year."""
    plan = br.setup_plan({}, start_year=1350)
    assert [c.birth_year for c in plan] == [1325, 1330, 1345]


# --- optional rules --------------------------------------------------------------------------------------


def test_a9_clean_options_defaults_and_accepts_known_booleans() -> None:
    assert br.clean_options(None) == dict.fromkeys(br.OPTIONAL_RULES, False)
    cleaned = br.clean_options({"four_character_start": True, "beginner_king_survival": False})
    assert cleaned["four_character_start"] is True
    assert cleaned["beginner_king_survival"] is False
    assert set(cleaned) == set(br.OPTIONAL_RULES)


def test_a9_clean_options_refuses_unknown_options() -> None:
    with pytest.raises(IllegalOption) as info:
        br.clean_options({"optional_rule_z": True})
    assert info.value.message.startswith("Blood Royale has no optional rule 'optional_rule_z'; known: four_character_start")
    assert info.value.code == "invalid_option"


@pytest.mark.parametrize("value", [1, 0, "yes", "true", None, [True]])
def test_a9_clean_options_refuses_non_booleans(value: object) -> None:
    with pytest.raises(IllegalOption) as info:
        br.clean_options({"rolled_king_queen": value})
    assert info.value.message == f"Optional rule 'rolled_king_queen' must be true or false, got {value!r}."


# --- A4 births -------------------------------------------------------------------------------------------


def test_a4_wife_of_50_may_roll_but_not_51() -> None:
    """A4: "so long as the female partner is 50 years old or younger"."""
    husband, wife = man(born=1270), woman(born=1270)
    assert br.couple_problem(husband, wife, 1320, 0) is None
    problem = br.couple_problem(husband, wife, 1321, 0)
    assert problem == "The wife is 51; birth rolls stop after 50 (Births, A4)."


@pytest.mark.parametrize("who", ["husband", "wife"])
def test_a4_no_birth_roll_if_either_is_a_prisoner(who: str) -> None:
    """A4: "Birth rolls should not be made if either partner is being held prisoner"."""
    husband = man(prisoner=who == "husband")
    wife = woman(prisoner=who == "wife")
    assert br.couple_problem(husband, wife, 1320, 0) == "No birth roll while either partner is held prisoner (Births, A4)."
    with pytest.raises(IneligibleCouple, match="prisoner"):
        br.check_couple(husband, wife, 1320, 0)


def test_a4_at_most_three_attempts() -> None:
    """A4: "up to two more additional die rolls for each married couple"."""
    husband, wife = man(), woman()
    for made in (0, 1, 2):
        assert br.couple_problem(husband, wife, 1320, made) is None
        br.check_couple(husband, wife, 1320, made)
    assert br.couple_problem(husband, wife, 1320, 3) == ("This couple has made all 3 birth rolls allowed this turn (Births, A4).")
    with pytest.raises(IneligibleCouple) as info:
        br.check_couple(husband, wife, 1320, 3)
    assert info.value.code == "ineligible_couple"


def test_a4_dead_or_retired_partner_cannot_roll() -> None:
    assert br.couple_problem(man(alive=False), woman(), 1320, 0) == "Character #1 is no longer in play."
    assert br.couple_problem(man(), woman(retired=True), 1320, 0) == "Character #2 is no longer in play."


@pytest.mark.parametrize(
    ("faces", "child"),
    [((1, 6), True), ((3, 4), True), ((6, 6), True), ((4, 4), True), ((1, 5), False), ((3, 3), False), ((1, 1), False)],
)
def test_a4_birth_on_2d6_seven_or_more(faces: tuple[int, int], child: bool) -> None:
    """A4: "On a result of 7 or higher, a child is born"."""
    assert br.birth_succeeds(faces) is child


def test_a4_birth_chance_is_exact() -> None:
    assert br.birth_chance() == Fraction(21, 36) == chance_at_least(TWO_D6, 7)


@pytest.mark.parametrize(("face", "sex"), [(1, MALE), (2, MALE), (3, MALE), (4, FEMALE), (5, FEMALE), (6, FEMALE)])
def test_a4_sex_roll_1_to_3_boy_4_to_6_girl(face: int, sex: str) -> None:
    """A4: "On a result of 1-3, the new character is male, and on a 4-6 result, the character is female"."""
    assert br.sex_from_faces([face]) == sex


def test_a4_births_in_1320_1321_1322() -> None:
    """A4: "for the second child born to a married couple in the year 1320, the player would write 1321
    in the Year of Birth space"; the third is two years later."""
    assert [br.child_birth_year(1320, n) for n in (0, 1, 2)] == [1320, 1321, 1322]
    assert br.child_birth_year(1300, 1) == 1301
    assert br.child_birth_year(1305, 1) == 1306


def test_a4_birth_penalty_each_extra_attempt_costs_one() -> None:
    """A4: "Each of these additional rolls takes one point away from the wife's Constitution ... for
    that 5-year turn only"."""
    assert br.birth_penalty(0) == 0
    assert br.birth_penalty(1) == 0
    assert br.birth_penalty(2) == -1
    assert br.birth_penalty(3) == -2


# --- A5 survival -----------------------------------------------------------------------------------------


def test_a5_rulebook_worked_example_mother_aged_30() -> None:
    """A5: "A mother aged 30 needs 4 or more to survive. She started with a Constitution of +1, but has
    made two additional attempts to produce children, reducing her Constitution for that turn to -1. The
    player rolls 7, which is modified to 6. She has rolled higher than the required 4, and so survives.\""""
    mother = woman(born=1290, characteristics={"guile": 0, "constitution": 1, "charisma": 0})
    check = br.survival_check(SURVIVAL, mother, 1320, extra_modifier=br.birth_penalty(3))
    assert check == br.SurvivalCheck(age=30, need=4, modifier=-1)
    assert br.survives(check, (3, 4))
    assert sum((3, 4)) + check.modifier == 6


def test_a5_rulebook_born_1310_is_25_in_1335_and_needs_4() -> None:
    """A5: "a character born in 1310 would be 25 in 1335, and would have to make a Survival Roll of 4 or more"."""
    check = br.survival_check(SURVIVAL, man(born=1310), 1335)
    assert (check.age, check.need, check.modifier) == (25, 4, 0)
    assert br.survives(check, (2, 2))
    assert not br.survives(check, (1, 2))


def test_a5_survival_boundary_and_modifiers() -> None:
    check = br.SurvivalCheck(age=30, need=4, modifier=-1)
    assert br.survives(check, (2, 3))  # 5 - 1 = 4: "at least" the number
    assert not br.survives(check, (1, 3))
    old = br.survival_check(SURVIVAL, man(born=1250, characteristics={"constitution": 2}), 1340)
    assert old == br.SurvivalCheck(age=90, need=13, modifier=2)
    assert br.survives(old, (5, 6))
    assert not br.survives(old, (5, 5))


def test_a5_survival_chance_is_exact() -> None:
    assert br.SurvivalCheck(30, 4, -1).chance() == Fraction(30, 36)
    assert br.SurvivalCheck(80, 13, 0).chance() == Fraction(0)
    assert br.SurvivalCheck(80, 13, 1).chance() == Fraction(1, 36)
    assert br.SurvivalCheck(20, 3, 0).chance() == Fraction(35, 36)


def test_a5_constitution_is_read_from_the_characteristics() -> None:
    check = br.survival_check(SURVIVAL, woman(born=1280, characteristics={"constitution": -2}), 1320, extra_modifier=-1)
    assert check == br.SurvivalCheck(age=40, need=5, modifier=-3)


ROLL = {"is_reigning_king": False, "is_starting_royal": False, "first_turn": False}


def test_a5_no_survival_roll_before_15() -> None:
    """A4/A5: "no Survival Rolls have to be made for a character until he or she has reached the age of 15"."""
    assert not br.must_roll_survival(man(born=1306), 1320, {}, **ROLL)
    assert br.must_roll_survival(man(born=1305), 1320, {}, **ROLL)
    assert not br.must_roll_survival(man(born=1320), 1320, {}, **ROLL)


def test_a5_only_characters_in_play_roll() -> None:
    assert not br.must_roll_survival(man(alive=False), 1320, {}, **ROLL)
    assert not br.must_roll_survival(man(retired=True), 1320, {}, **ROLL)
    assert not br.must_roll_survival(man(), 1320, {}, **ROLL, exempt_kind=True)
    assert br.must_roll_survival(man(prisoner=True), 1320, {}, **ROLL)


def test_a3_beginner_option_exempts_a_reigning_king_before_1310() -> None:
    """A3: "it is advised that you do not make Survival Rolls for your King until the 1310 turn at the earliest"."""
    king = man(born=1275)
    opts = {"beginner_king_survival": True}
    kw = {"is_starting_royal": True, "first_turn": False}
    assert not br.must_roll_survival(king, 1300, opts, is_reigning_king=True, **kw)
    assert not br.must_roll_survival(king, 1305, opts, is_reigning_king=True, **kw)
    assert br.must_roll_survival(king, 1310, opts, is_reigning_king=True, **kw)
    assert br.must_roll_survival(king, 1305, opts, is_reigning_king=False, **kw)  # the Queen still rolls
    assert br.must_roll_survival(king, 1300, {}, is_reigning_king=True, **kw)  # option off


def test_a3_rule_b_no_first_turn_survival_for_starting_royals() -> None:
    """A3 optional rule B: "then usually no survival roll for them in the first turn"."""
    queen = woman(born=1280)
    opts = {"no_first_turn_royal_survival": True}
    assert not br.must_roll_survival(queen, 1300, opts, is_reigning_king=False, is_starting_royal=True, first_turn=True)
    assert br.must_roll_survival(queen, 1305, opts, is_reigning_king=False, is_starting_royal=True, first_turn=False)
    assert br.must_roll_survival(queen, 1300, opts, is_reigning_king=False, is_starting_royal=False, first_turn=True)
    assert br.must_roll_survival(queen, 1300, {}, is_reigning_king=False, is_starting_royal=True, first_turn=True)


# --- A6 marriages ----------------------------------------------------------------------------------------


def test_a6_a_legal_match() -> None:
    assert br.marriage_problems(man(born=1300), woman(born=1303), 1320, wedding=True) == []
    br.check_marriage(man(born=1300), woman(born=1303), 1320, wedding=True)


def test_a6_same_dynastic_name_may_not_marry() -> None:
    """A6: "two characters carrying the same Dynastic name may not marry"."""
    husband, wife = man(name="Visconti"), woman(name="Visconti")
    for wedding in (False, True):
        problems = br.marriage_problems(husband, wife, 1320, wedding=wedding)
        assert problems == [
            "Both carry the dynastic name Visconti; characters of the same dynastic name may not marry (Marriage, A6)."
        ]
    with pytest.raises(IllegalMarriage) as info:
        br.check_marriage(husband, wife, 1320, wedding=False)
    assert "A6" in info.value.message
    assert info.value.code == "illegal_marriage"


def test_a6_uncle_and_niece_of_different_names_may_marry() -> None:
    """A6: "a man could marry his niece or even his grandchild, but we have to turn a blind eye to this"."""
    uncle = man(pid=10, born=1290, name="Sforza")
    niece = woman(pid=11, born=1302, name="Medici", mother=12)
    assert br.marriage_problems(uncle, niece, 1320, wedding=True) == []


@pytest.mark.parametrize("who", ["husband", "wife"])
def test_a6_wedding_needs_both_15(who: str) -> None:
    """A6: "Characters cannot actually marry until they are 15 years old"."""
    husband = man(born=1306 if who == "husband" else 1300)
    wife = woman(born=1306 if who == "wife" else 1300)
    problems = br.marriage_problems(husband, wife, 1320, wedding=True)
    assert len(problems) == 1
    assert problems[0].startswith(f"The {who} is 14; a wedding needs both to be 15 or older")
    assert "A6" in problems[0]
    assert br.marriage_problems(man(born=1305), woman(born=1305), 1320, wedding=True) == []


def test_a6_betrothal_allowed_under_15_even_before_birth() -> None:
    """A6: "marriages can be arranged for them at any time - even before they are born!\""""
    assert br.marriage_problems(man(born=1318), woman(born=1319), 1320, wedding=False) == []
    assert br.marriage_problems(man(born=1300), woman(born=1322), 1320, wedding=False) == []


@pytest.mark.parametrize("who", ["husband", "wife"])
def test_a6_prisoner_cannot_wed_but_may_be_betrothed(who: str) -> None:
    husband, wife = man(prisoner=who == "husband"), woman(prisoner=who == "wife")
    assert br.marriage_problems(husband, wife, 1320, wedding=False) == []
    problems = br.marriage_problems(husband, wife, 1320, wedding=True)
    assert problems == [f"The {who} is a prisoner and cannot be wed until released (Marriage, A6)."]


def test_a6_dead_retired_and_taken_are_refused_with_the_rule_named() -> None:
    dead = br.marriage_problems(man(alive=False), woman(), 1320, wedding=False)
    assert dead == ["The husband is dead and cannot marry (Survival, A5)."]
    retired = br.marriage_problems(man(), woman(retired=True), 1320, wedding=False)
    assert len(retired) == 1
    assert retired[0].startswith("The wife is retired from the game and may not marry")
    assert "widow never remarries" in retired[0]
    assert "A5" in retired[0]
    taken = br.marriage_problems(man(), woman(), 1320, wedding=False, wife_taken=True)
    assert taken == ["The wife is already married or betrothed (Marriage, A6)."]
    never = br.marriage_problems(man(), woman(), 1320, wedding=True, husband_never_marries=True)
    assert never == ["The husband was created only to act as regent and never marries (Succession, A7)."]


def test_a6_wrong_sexes_and_self_are_refused() -> None:
    two_men = br.marriage_problems(man(pid=1), man(pid=2, name="Tudor"), 1320, wedding=False)
    assert two_men == ["The wife must be a woman."]
    swapped = br.marriage_problems(woman(pid=1), man(pid=2), 1320, wedding=False)
    assert swapped == ["The husband must be a man.", "The wife must be a woman."]
    same = Person(id=5, sex=MALE, birth_year=1290, dynastic_name="York")
    assert "A character cannot marry himself." in br.marriage_problems(same, same, 1320, wedding=False)


def test_a6_check_marriage_reports_every_problem() -> None:
    husband = man(born=1310, prisoner=True, name="Savoy")
    wife = woman(born=1300, name="Savoy")
    with pytest.raises(IllegalMarriage) as info:
        br.check_marriage(husband, wife, 1320, wedding=True, wife_taken=True)
    message = info.value.message
    assert "same dynastic name" in message
    assert "The husband is 10" in message
    assert "The husband is a prisoner" in message
    assert "The wife is already married or betrothed" in message


@pytest.mark.parametrize(("charisma", "amount"), [(1, 30), (2, 60), (-1, -30), (-2, -60)])
def test_a6_wedding_payment_charisma_times_30(charisma: int, amount: int) -> None:
    """A6: "a bride with a +1 score confers a 30 Crown benefit ... the player of the male character must
    pay 30 Crowns to the Treasury for a -1 Charisma bride, and 60 Crowns for a -2 Charisma bride"."""
    payments = br.wedding_payments(bride_charisma=charisma, groom_is_monarch=False, bride_is_monarch=False)
    assert [(p.to, p.amount) for p in payments] == [("groom", amount)]
    assert "30" in payments[0].reason


def test_a6_no_payment_for_a_normal_bride_marrying_a_prince() -> None:
    assert br.wedding_payments(bride_charisma=0, groom_is_monarch=False, bride_is_monarch=False) == []


def test_a6_100_crowns_to_the_brides_dynasty_for_a_reigning_king() -> None:
    """A6: "If a bride marries a King ... the player from whose Dynasty she came receives 100 Crowns"."""
    payments = br.wedding_payments(bride_charisma=-1, groom_is_monarch=True, bride_is_monarch=False)
    assert [(p.to, p.amount) for p in payments] == [("groom", -30), ("bride", 100)]


def test_a6_100_crowns_to_the_husbands_dynasty_for_a_queen_regnant() -> None:
    """A6: "The same applies to a male child who marries a Queen ... in her own right"."""
    payments = br.wedding_payments(bride_charisma=0, groom_is_monarch=False, bride_is_monarch=True)
    assert [(p.to, p.amount) for p in payments] == [("groom", 100)]
    both = br.wedding_payments(bride_charisma=2, groom_is_monarch=True, bride_is_monarch=True)
    assert [(p.to, p.amount) for p in both] == [("groom", 60), ("bride", 100), ("groom", 100)]


# --- A7 regents, barons and created relatives --------------------------------------------------------------


def test_a7_minor_heir_needs_a_regent_until_15() -> None:
    assert br.needs_regent(man(born=1306), 1320)
    assert not br.needs_regent(man(born=1305), 1320)


def test_a7_baron_five_years_younger_than_the_late_king() -> None:
    """A7: "a baron/cousin is created: 5 years younger than the late King or 30, whichever is older"."""
    late_king = man(born=1290)  # 50 in 1340
    assert br.baron_birth_year(late_king, 1340) == 1295  # aged 45


def test_a7_baron_at_least_30() -> None:
    late_king = man(born=1308)  # 32 in 1340: 27 would be younger than 30
    assert br.baron_birth_year(late_king, 1340) == 1310  # aged 30
    assert br.baron_birth_year(man(born=1305), 1340) == 1310  # 35 - 5 = 30 exactly


def test_a7_created_relative_of_a_king_aged_40() -> None:
    """A7: "This relative is 5 years younger than the deceased King (or 20 years old - whichever is the
    older), is married to a wife 5 years younger than himself, and has a child for every five years of
    their marriage, starting from when the male character was 20"."""
    plan = br.relative_plan(man(born=1300), 1340)  # the late King is 40
    assert plan.relative_birth_year == 1305  # 35
    assert plan.wife_birth_year == 1310  # 30
    assert plan.marriage_year == 1325  # he was 20
    assert plan.children_birth_years == (1330, 1335, 1340)  # at 25, 30 and 35 of his age


def test_a7_created_relative_of_a_young_king_is_20_without_children() -> None:
    plan = br.relative_plan(man(born=1318), 1340)  # the late King is 22
    assert plan == br.RelativePlan(relative_birth_year=1320, wife_birth_year=1325, marriage_year=1340, children_birth_years=())


@pytest.mark.parametrize(("king_age", "children"), [(24, 0), (29, 0), (30, 1), (34, 1), (35, 2), (39, 2), (60, 7)])
def test_a7_one_child_per_five_years_of_marriage(king_age: int, children: int) -> None:
    plan = br.relative_plan(man(born=1400 - king_age), 1400)
    relative_age = max(king_age - 5, 20)
    assert plan.relative_birth_year == 1400 - relative_age
    assert len(plan.children_birth_years) == children
    assert all(plan.marriage_year < born <= 1400 for born in plan.children_birth_years)
    assert [b - plan.relative_birth_year for b in plan.children_birth_years] == [25 + 5 * i for i in range(children)]


# --- A7 prince pieces ----------------------------------------------------------------------------------------


def test_a7_king_piece_for_a_reigning_king_of_15() -> None:
    king = man(pid=1, born=1290)
    assert br.assign_prince_pieces({}, [king], king, 1320) == {1: "K"}
    minor = man(pid=1, born=1310)
    assert br.assign_prince_pieces({}, [minor], minor, 1320) == {1: ""}
    queen = woman(pid=3, born=1290)
    assert br.assign_prince_pieces({}, [queen], queen, 1320) == {3: ""}


def test_a7_numbered_pieces_for_royal_males_of_20_oldest_first() -> None:
    """A2: "It should not be filled in when the child is first born, but only when a male child reaches
    the age of 20"; "If there are already five Prince playing pieces ... the 'new' Prince cannot be placed"."""
    king = man(pid=1, born=1270)
    sons = [man(pid=10 + i, born=1290 + i) for i in range(7)]  # aged 30 ... 24 in 1320
    boy = man(pid=30, born=1301)  # 19
    girl = woman(pid=31, born=1290)
    out = br.assign_prince_pieces({}, [king, *sons, boy, girl], king, 1320)
    assert out[1] == "K"
    assert [out[s.id] for s in sons] == ["1", "2", "3", "4", "5", "", ""]
    assert out[30] == ""
    assert out[31] == ""


def test_a7_pieces_held_are_kept() -> None:
    elder, younger = man(pid=10, born=1280), man(pid=11, born=1290)
    out = br.assign_prince_pieces({11: "3"}, [elder, younger], None, 1320)
    assert out == {10: "1", 11: "3"}


def test_a7_freed_piece_goes_to_the_oldest_prince_without_one() -> None:
    """A2: "If a King or Prince dies and a playing piece is freed, the oldest Prince not represented by a
    piece should now use the one that has been freed"."""
    holders = [man(pid=10 + i, born=1280 + i) for i in range(5)]
    holders[2].alive = False  # piece 3 is freed
    waiting_young, waiting_old = man(pid=20, born=1299), man(pid=21, born=1296)
    current = {10: "1", 11: "2", 12: "3", 13: "4", 14: "5"}
    out = br.assign_prince_pieces(current, [*holders, waiting_young, waiting_old], None, 1320)
    assert out[21] == "3"
    assert out[20] == ""
    assert out[12] == ""
    assert [out[i] for i in (10, 11, 13, 14)] == ["1", "2", "4", "5"]


def test_a7_a_prince_who_becomes_king_swaps_to_k_and_frees_his_number() -> None:
    """A7: "When a Prince ascends the throne ... exchange the King piece for the Prince's piece"."""
    new_king, brother = man(pid=10, born=1290), man(pid=11, born=1298)
    out = br.assign_prince_pieces({10: "1", 11: ""}, [new_king, brother], new_king, 1320)
    assert out == {10: "K", 11: "1"}


def test_a7_twins_order_by_birth_order_for_a_freed_piece() -> None:
    first = man(pid=21, born=1295, birth_order=1)
    second = man(pid=20, born=1295, birth_order=2)
    out = br.assign_prince_pieces({}, [second, first], None, 1320)
    assert out == {21: "1", 20: "2"}


def test_a7_corrupt_or_clashing_held_pieces_are_reassigned() -> None:
    elder, younger, third = man(pid=10, born=1280), man(pid=11, born=1285), man(pid=12, born=1290)
    out = br.assign_prince_pieces({10: "2", 11: "2", 12: "7"}, [elder, younger, third], None, 1320)
    assert out == {10: "2", 11: "1", 12: "3"}
    out = br.assign_prince_pieces({10: "0", 11: "K"}, [elder, younger], None, 1320)
    assert out == {10: "1", 11: "2"}
