"""A child's Year of Birth within its parents' lives (RULES.md A4 and B; docs/rulings.md, Births).

The rulebooks spread a turn's children over the turn year and the next two ("the second child
... one year later than the current turn ... a third child's Year of Birth should be two years
later"; BloodLine: "a year of birth sequentially based on the Turn Year"), but the children are
born at the Births step ("On a result of 7 or higher, a child is born in that Year Turn"), before
anyone's survival roll. A parent who dies later in the turn dies in the turn year, so the spread
may date a child after its mother's death. The ruling: the birth stands and its year moves earlier,
to the mother's death year at the latest and at most a year after the father's; the child stays
behind the elder children of that year (its birth order), so the order of succession is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

POSTHUMOUS_YEARS = 1  # a father's child may be born up to a year after his death, never later


def latest_birth_year(*, mother_death_year: int | None, father_death_year: int | None) -> int | None:
    """The last year a child of these parents can be born in (None: both alive)."""
    limits = [
        y
        for y in (mother_death_year, None if father_death_year is None else father_death_year + POSTHUMOUS_YEARS)
        if y is not None
    ]
    return min(limits) if limits else None


def within_lives(birth_year: int, *, mother_death_year: int | None, father_death_year: int | None) -> int:
    """``birth_year`` moved earlier if it falls after what the parents' deaths allow."""
    latest = latest_birth_year(mother_death_year=mother_death_year, father_death_year=father_death_year)
    return birth_year if latest is None else min(birth_year, latest)


@dataclass(frozen=True)
class Birth:
    """What the ruling needs of a child's record."""

    id: int
    birth_year: int
    birth_order: int
    father: int | None
    mother: int | None


def moved_births(children: Sequence[Birth], death_years: Mapping[int, int]) -> dict[int, tuple[int, int]]:
    """Child id -> (year, birth order) for every child dated after what its parents' deaths allow.

    ``children`` holds the children of the parents concerned (every child of each parent of a moved
    child, so the orders of the target year are known); ``death_years`` the parents' death years.
    A moved child comes after every child of either parent already in its new year, elder moved
    children first, so the children keep their order of seniority."""

    def new_year(child: Birth) -> int:
        return within_lives(
            child.birth_year,
            mother_death_year=death_years.get(child.mother) if child.mother is not None else None,
            father_death_year=death_years.get(child.father) if child.father is not None else None,
        )

    moving = [c for c in children if new_year(c) < c.birth_year]
    if not moving:
        return {}
    ids = {c.id for c in moving}
    taken: dict[tuple[int, int], int] = {}
    for c in children:
        if c.id in ids:
            continue
        for parent in (c.father, c.mother):
            if parent is not None:
                taken[(parent, c.birth_year)] = max(taken.get((parent, c.birth_year), 0), c.birth_order)
    out: dict[int, tuple[int, int]] = {}
    for c in sorted(moving, key=lambda c: (c.birth_year, c.birth_order, c.id)):
        year = new_year(c)
        parents = [p for p in (c.father, c.mother) if p is not None]
        order = max((taken.get((p, year), 0) for p in parents), default=0) + 1
        for p in parents:
            taken[(p, year)] = order
        out[c.id] = (year, order)
    return out
