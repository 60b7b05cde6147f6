"""Blood Royale's family rules shared by every ruleset (rules.families): a refusal says whom it is about."""

from __future__ import annotations

import copy

from rules import bloodline as bl
from rules import families
from rules.families import HUSBAND, TERMS, WIFE, Problem, problem_about
from rules.people import FEMALE, MALE, Person


def test_each_refusal_names_the_spouse_it_is_about() -> None:
    girl = Person(id=1, sex=FEMALE, birth_year=1295, dynastic_name="Valois")
    boy = Person(id=2, sex=MALE, birth_year=1296, dynastic_name="Valois")
    problems = families.marriage_problems(girl, boy, 1300, wedding=True, wife_taken=True)  # the wrong way round
    about = {p: problem_about(p) for p in problems}
    assert about["The husband must be a man."] == HUSBAND
    assert about["The wife must be a woman."] == WIFE
    assert about["The wife is already married or betrothed (Marriage, A6)."] == WIFE
    assert [a for p, a in about.items() if "dynastic name" in p] == [""]  # the pair's own problem
    assert {problem_about(p) for p in problems if p.startswith("The husband is 5")} == {HUSBAND}  # too young


def test_bloodline_adds_the_effective_age_about_each_spouse() -> None:
    husband = Person(id=1, sex=MALE, birth_year=1480, dynastic_name="Tudor")
    wife = Person(id=2, sex=FEMALE, birth_year=1485, dynastic_name="Trastamara")
    problems = bl.marriage_problems(husband, wife, 1492, wedding=True)
    assert [problem_about(p) for p in problems] == [HUSBAND, WIFE]


def test_a_problem_is_still_its_text_and_survives_a_copy() -> None:
    problem = Problem("A dowry is missing.", TERMS)
    assert problem == "A dowry is missing." and " ".join([problem, "x"]) == "A dowry is missing. x"
    copied = copy.deepcopy(problem)
    assert (copied, problem_about(copied)) == (problem, TERMS)
    assert problem_about("plain text") == ""
