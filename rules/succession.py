"""Order of succession (RULES.md A7; BloodLine B for going up the tree).

1. the eldest son, then down through his family, boys then girls (recursively);
2. the second son and his family; the third son ...;
3. the eldest daughter and her family, sons then daughters; the second daughter ...

When the monarch's own descendants are exhausted the search continues in the same order from
the monarch's parent of the royal blood (his living parent first, then his brothers and their
lines, then his sisters and theirs) and further up the tree. The climb goes back up the way the
crown came (docs/rulings.md, A7): through the parent who held the crown, else the one nearer in
blood to the last holders (see ``FamilyIndex.blood_parent``). Spouses never inherit: only blood
relatives are ever visited. Bastards (event cards) are never in a line, nor anyone through them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field

from rules.people import MALE, Person

Eligible = Callable[[Person], bool]


def _default_eligible(person: Person) -> bool:
    return person.in_play


class FamilyIndex:
    """Children of every person, in succession order (sons by seniority, then daughters)."""

    def __init__(self, people: Mapping[int, Person]) -> None:
        self.people = people
        children: dict[int, list[Person]] = {}
        for person in people.values():
            for parent in (person.father, person.mother):
                if parent is not None and parent in people:
                    children.setdefault(parent, []).append(person)
        self._children: dict[int, list[int]] = {}
        for parent, kids in children.items():
            sons = sorted((k for k in kids if k.sex == MALE), key=Person.seniority)
            daughters = sorted((k for k in kids if k.sex != MALE), key=Person.seniority)
            self._children[parent] = [k.id for k in sons + daughters]

    def children(self, person_id: int) -> list[int]:
        return self._children.get(person_id, [])

    def is_of_blood(self, person_id: int, royal: Collection[int], _memo: dict[int, bool] | None = None) -> bool:
        """Is the person a royal (past holder) or descended from one?"""
        memo = {} if _memo is None else _memo
        stack = [person_id]
        seen: set[int] = set()
        while stack:
            pid = stack.pop()
            if pid in memo:
                if memo[pid]:
                    return True
                continue
            if pid in royal:
                return True
            if pid in seen:
                continue
            seen.add(pid)
            person = self.people.get(pid)
            if person is None:
                continue
            stack.extend(p for p in (person.father, person.mother) if p is not None)
        memo[person_id] = False
        return False

    def last_holder(self, person_id: int, royal: Collection[int]) -> tuple[tuple[int, int, int], int] | None:
        """The latest-born past holder the person is or descends from, as (that holder's seniority,
        minus the generations down to the person); None if the person is not of the royal blood.
        Holders reign down the generations, so the latest-born is taken as the last of them."""
        best: tuple[tuple[int, int, int], int] | None = None
        seen: set[int] = set()
        frontier = [person_id]
        generations = 0
        while frontier:  # breadth first: each ancestor is met first at its fewest generations
            nxt: list[int] = []
            for pid in frontier:
                if pid in seen:
                    continue
                seen.add(pid)
                person = self.people.get(pid)
                if pid in royal:
                    rank = person.seniority() if person is not None else (-(10**9), 0, pid)
                    if best is None or (rank, -generations) > best:
                        best = (rank, -generations)
                if person is not None:
                    nxt.extend(p for p in (person.father, person.mother) if p is not None)
            frontier = nxt
            generations += 1
        return best

    def blood_parent(self, person_id: int, royal: Collection[int]) -> int | None:
        """The parent the search climbs to: back up the way the crown came (A7 ruling). Of the
        parents of the royal blood (a past holder of the crown or descended from one): the one who
        held the crown; else the one nearer in blood to the last holders - descended from the
        later-born holder, then fewer generations below that holder -; the father when they are
        equal. With no parent of the blood (or no past holders given): the father, else the mother."""
        person = self.people.get(person_id)
        if person is None:
            return None
        parents = [p for p in (person.father, person.mother) if p is not None and p in self.people]
        if not parents:
            return None
        best: tuple[bool, tuple[int, int, int], int] | None = None
        chosen = parents[0]
        if royal:
            for parent in parents:  # the father first: on a tie he keeps his place
                last = self.last_holder(parent, royal)
                if last is None:
                    continue
                key = (parent in royal, *last)
                if best is None or key > best:
                    best, chosen = key, parent
        return chosen


def iter_succession(
    people: Mapping[int, Person],
    late_monarch: int,
    *,
    royal: Collection[int] = (),
    eligible: Eligible = _default_eligible,
    index: FamilyIndex | None = None,
    barred: Collection[int] = (),
) -> Iterator[int]:
    """Yield the heirs of ``late_monarch`` in order, lazily (the first one is the heir).

    ``barred`` people have renounced their claim: neither they nor anyone through them inherits."""
    family = index or FamilyIndex(people)
    visited: set[int] = {late_monarch}

    def line(root: int) -> Iterator[int]:
        # Iterative pre-order walk: each child, then that child's whole family, in order.
        stack: list[int] = list(reversed(family.children(root)))
        while stack:
            pid = stack.pop()
            if pid in visited:
                continue
            visited.add(pid)
            person = people[pid]
            if not person.legitimate or pid in barred:
                continue  # a bastard, or a claim renounced: not he, nor anyone through him
            if eligible(person):
                yield pid
            stack.extend(reversed(family.children(pid)))

    yield from line(late_monarch)
    current = late_monarch
    while True:
        parent = family.blood_parent(current, royal)
        if parent is None or parent in visited:
            return
        visited.add(parent)
        if parent in barred:
            return
        if eligible(people[parent]):
            yield parent
        yield from line(parent)
        current = parent


def succession_order(
    people: Mapping[int, Person],
    late_monarch: int,
    *,
    royal: Collection[int] = (),
    eligible: Eligible = _default_eligible,
    limit: int | None = None,
    barred: Collection[int] = (),
) -> list[int]:
    out: list[int] = []
    for pid in iter_succession(people, late_monarch, royal=royal, eligible=eligible, barred=barred):
        out.append(pid)
        if limit is not None and len(out) >= limit:
            break
    return out


def heir_of(
    people: Mapping[int, Person],
    late_monarch: int,
    *,
    royal: Collection[int] = (),
    eligible: Eligible = _default_eligible,
) -> int | None:
    return next(iter(iter_succession(people, late_monarch, royal=royal, eligible=eligible)), None)


def line_of(
    people: Mapping[int, Person], root: int, *, eligible: Eligible = _default_eligible, index: FamilyIndex | None = None
) -> Iterator[int]:
    """The root's own descendants in succession order (not climbing the tree)."""
    family = index or FamilyIndex(people)
    stack: list[int] = list(reversed(family.children(root)))
    seen: set[int] = {root}
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        person = people[pid]
        if not person.legitimate:
            continue
        if eligible(person):
            yield pid
        stack.extend(reversed(family.children(pid)))


def claim_head(people: Mapping[int, Person], claimant: int, *, index: FamilyIndex | None = None) -> int | None:
    """Who carries a passed-over heir's claim now: the claimant while in play, else the first of her
    line; None when the line is extinct (the claim then lapses)."""
    person = people.get(claimant)
    if person is not None and person.in_play:
        return claimant
    return next(iter(line_of(people, claimant, index=index)), None)


def spurned_line(
    people: Mapping[int, Person], claimant: int, *, born_before: int | None, index: FamilyIndex | None = None
) -> Iterator[int]:
    """BloodLine's spurned bloodline as it carries the ongoing roll (Voluntary Disputed Succession):
    the skipped claimant while in play, then those of his line in play who were born before
    ``born_before`` - the year of the turn after the skip; None while the skip's own turn lasts, when
    all of them were. "any children subsequently produced by these 'spurned' bloodlines do not
    perpetuate the ongoing instability roll"; the line is extinguished when none is left."""
    person = people.get(claimant)
    if person is not None and person.in_play:
        yield claimant
    yield from line_of(
        people,
        claimant,
        eligible=lambda p: p.in_play and (born_before is None or p.birth_year < born_before),
        index=index,
    )


def born_after_spurning(
    people: Mapping[int, Person], claimant: int, *, born_before: int | None, index: FamilyIndex | None = None
) -> set[int]:
    """Those born into a spurned line from ``born_before`` on (the turn after the skip), dead or
    alive: they are not "eligible for making claims to the throne" (BloodLine), nor is anyone through
    them (their own descendants were born later still)."""
    if born_before is None:
        return set()
    return set(line_of(people, claimant, eligible=lambda p: p.birth_year >= born_before, index=index))


# --- what a ruleset reads of an heir passed over, and of a relative created (A7) ----------------------


@dataclass(frozen=True)
class HeirStanding:
    """What the rules need to know about an heir someone wants to pass over."""

    sex: str
    prisoner_of_another: bool  # held by a player other than the crown's
    married_away: bool  # a woman controlled by another player as a result of a marriage
    foreign_pretender: bool  # a Pretender (or his heir) controlled by another player (event cards)
    lives_with_crown_player: bool  # controlled by the crown's own player
    prisoner_of_neutrals: bool = False  # held by the neutrals: "a prisoner in another country" too


@dataclass(frozen=True)
class PassOverCost:
    basic_allowed: bool
    reason: str
    usurper_strength: int = -1  # every male of the usurping dynasty, while the claim lives
    rival_strength: int = 1  # the dynasty holding the rightful heir, against the usurper
    charisma_roll: bool = False  # the new monarch rolls 1d6: 1-3 -1, 4-6 -2 Charisma
    exile_left: bool = False  # rule C: heir, spouse and children pass to the player on the left
    with_line: bool = True  # his line is passed over with him (not a prisoner's: his free children stay in line)


@dataclass(frozen=True)
class RelativePlan:
    relative_birth_year: int
    wife_birth_year: int
    marriage_year: int
    children_birth_years: tuple[int, ...] = field(default_factory=tuple)
