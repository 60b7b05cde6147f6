"""Blood Royale's family rules that BloodLine and the EU monarch tables reuse: the birth roll, the
child's sex and who may marry whom (RULES.md A4, A6). Pure; no ruleset module is imported here."""

from __future__ import annotations

from collections.abc import Sequence

from rules.people import FEMALE, MALE, Person

ADULT_AGE = 15  # a wedding needs both to be 15 (A6)
BIRTH_TARGET = 7  # 2d6 of 7 or more is a child (A4)
HUSBAND, WIFE, TERMS = "husband", "wife", "terms"


class Problem(str):
    """Why a match is refused, saying whom it is about (``HUSBAND``, ``WIFE``, ``TERMS``, or "" for
    the pair), so that a form puts it by its field without reading the text."""

    about: str

    def __new__(cls, text: str, about: str = "") -> Problem:
        problem = super().__new__(cls, text)
        problem.about = about
        return problem


def problem_about(problem: str) -> str:
    return problem.about if isinstance(problem, Problem) else ""


def birth_succeeds(faces: Sequence[int]) -> bool:
    return sum(faces) >= BIRTH_TARGET


def sex_from_faces(faces: Sequence[int]) -> str:
    return MALE if faces[0] <= 3 else FEMALE


def marriage_problems(
    husband: Person,
    wife: Person,
    year: int,
    *,
    wedding: bool,
    husband_taken: bool = False,
    wife_taken: bool = False,
    husband_never_marries: bool = False,
    wife_never_marries: bool = False,
) -> list[str]:
    """Everything that forbids this match; empty when it is legal.

    Arranging (a betrothal) needs the couple to be a man and a woman of different dynastic
    names, in play and free; the wedding further needs both to be 15 and neither a prisoner.
    """
    problems: list[str] = []
    if husband.sex != MALE:
        problems.append(Problem("The husband must be a man.", HUSBAND))
    if wife.sex != FEMALE:
        problems.append(Problem("The wife must be a woman.", WIFE))
    if husband.id == wife.id:
        problems.append("A character cannot marry himself.")
    if husband.dynastic_name and husband.dynastic_name == wife.dynastic_name:
        problems.append(
            f"Both carry the dynastic name {husband.dynastic_name}; characters of the same dynastic name "
            "may not marry (Marriage, A6)."
        )
    for role, person, taken, never in (
        ("husband", husband, husband_taken, husband_never_marries),
        ("wife", wife, wife_taken, wife_never_marries),
    ):
        if not person.alive:
            problems.append(Problem(f"The {role} is dead and cannot marry (Survival, A5).", role))
        elif person.retired:
            problems.append(
                Problem(
                    f"The {role} is retired from the game and may not marry (a King's widow never remarries; Survival, A5).", role
                )
            )
        if never:
            problems.append(Problem(f"The {role} was created only to act as regent and never marries (Succession, A7).", role))
        if taken:
            problems.append(Problem(f"The {role} is already married or betrothed (Marriage, A6).", role))
        if wedding:
            if person.age(year) < ADULT_AGE:
                problems.append(
                    Problem(
                        f"The {role} is {person.age(year)}; a wedding needs both to be {ADULT_AGE} or older "
                        "(a betrothal may be arranged earlier; Marriage, A6).",
                        role,
                    )
                )
            if person.prisoner:
                problems.append(Problem(f"The {role} is a prisoner and cannot be wed until released (Marriage, A6).", role))
    return problems
