"""Properties (hypothesis) of RULES.md A6 marriage legality and A7 succession order."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rules import blood_royale as br
from rules.people import FEMALE, MALE, Person
from rules.succession import heir_of, succession_order
from tests.profiles import examples

YEAR = 1320
NAMES = ("Plantagenet", "Anjou", "Visconti", "Habsburg")

# --- A6 Marriage legality --------------------------------------------------------------------------


def persons(pid: int, sex: str) -> st.SearchStrategy[Person]:
    return st.builds(
        Person,
        id=st.just(pid),
        sex=st.sampled_from([sex, MALE, FEMALE]),
        # ages around the wedding age of 15 are drawn often
        birth_year=st.integers(YEAR - 70, YEAR + 5) | st.sampled_from([YEAR - 16, YEAR - 15, YEAR - 14, YEAR - 13]),
        dynastic_name=st.sampled_from(NAMES),
        alive=st.booleans(),
        retired=st.booleans(),
        prisoner=st.booleans(),
    )


@dataclass(frozen=True)
class Flags:
    wedding: bool
    husband_taken: bool = False
    wife_taken: bool = False
    husband_never_marries: bool = False
    wife_never_marries: bool = False


flags_strategy = st.builds(Flags, st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())

FLAWS = ("sex", "name", "dead", "retired", "taken", "never_marries", "young", "prisoner")


@st.composite
def matches(draw: st.DrawFn) -> tuple[Person, Person, Flags]:
    """Half the time anything at all; half the time a legal match with at most one random flaw (so that
    legal matches, and each single reason to refuse, are drawn often)."""
    husband, wife, flags = draw(persons(1, MALE)), draw(persons(2, FEMALE)), draw(flags_strategy)
    if draw(st.booleans()):
        return husband, wife, flags
    husband.sex, wife.sex = MALE, FEMALE
    if wife.dynastic_name == husband.dynastic_name:
        wife.dynastic_name = next(n for n in NAMES if n != husband.dynastic_name)
    for person in (husband, wife):
        person.alive, person.retired = True, False
        if flags.wedding:
            person.birth_year, person.prisoner = min(person.birth_year, YEAR - 15), False
    flags = Flags(flags.wedding)
    flaw = draw(st.sampled_from((None, *FLAWS)))
    who = draw(st.sampled_from([husband, wife]))
    if flaw == "sex":
        who.sex = FEMALE if who is husband else MALE
    elif flaw == "name":
        wife.dynastic_name = husband.dynastic_name
    elif flaw in ("dead", "retired", "prisoner"):
        setattr(who, {"dead": "alive"}.get(flaw, flaw), flaw != "dead")
    elif flaw == "young":
        who.birth_year = YEAR - draw(st.sampled_from([14, 14, 13, 10, 0, -2]))
    elif flaw is not None:
        role = "husband" if who is husband else "wife"
        flags = Flags(flags.wedding, **{f"{role}_{flaw}": True})
    return husband, wife, flags


def expected_legal(husband: Person, wife: Person, flags: Flags) -> bool:
    """RULES.md A6, written out independently of the implementation."""
    free = not (flags.husband_taken or flags.wife_taken or flags.husband_never_marries or flags.wife_never_marries)
    basic = (
        husband.sex == MALE
        and wife.sex == FEMALE
        and husband.dynastic_name != wife.dynastic_name
        and husband.alive
        and not husband.retired
        and wife.alive
        and not wife.retired
        and free
    )
    if not flags.wedding:
        return basic
    return basic and YEAR - husband.birth_year >= 15 and YEAR - wife.birth_year >= 15 and not (husband.prisoner or wife.prisoner)


@settings(max_examples=examples(500))
@given(matches())
def test_a6_marriage_problems_empty_iff_the_match_is_legal(match: tuple[Person, Person, Flags]) -> None:
    """A6 Marriages: "Characters may wed at 15 or older"; "Two characters carrying the same dynastic name
    may not marry; nothing else forbids a match" (beyond being free, in play and, to wed, not a prisoner)."""
    husband, wife, flags = match
    problems = br.marriage_problems(
        husband,
        wife,
        YEAR,
        wedding=flags.wedding,
        husband_taken=flags.husband_taken,
        wife_taken=flags.wife_taken,
        husband_never_marries=flags.husband_never_marries,
        wife_never_marries=flags.wife_never_marries,
    )
    legal = expected_legal(husband, wife, flags)
    assert (problems == []) == legal
    assert all(isinstance(p, str) and p for p in problems)
    event(f"legal={legal}")


@given(persons(1, MALE), persons(2, FEMALE), st.sampled_from(NAMES), flags_strategy)
def test_a6_same_name_pairs_are_always_refused(husband: Person, wife: Person, name: str, flags: Flags) -> None:
    """A6 Marriages: "two characters carrying the same Dynastic name may not marry"."""
    husband.dynastic_name = wife.dynastic_name = name
    husband.sex, wife.sex = MALE, FEMALE
    problems = br.marriage_problems(husband, wife, YEAR, wedding=flags.wedding)
    assert any("same dynastic name" in p and name in p for p in problems)


@given(persons(1, MALE), persons(2, FEMALE))
def test_a6_a_betrothal_is_never_stricter_than_a_wedding(husband: Person, wife: Person) -> None:
    """A6: a match may be arranged earlier than the wedding: whatever allows the wedding allows the betrothal."""
    betrothal = br.marriage_problems(husband, wife, YEAR, wedding=False)
    wedding = br.marriage_problems(husband, wife, YEAR, wedding=True)
    assert set(betrothal) <= set(wedding)


# --- A7 Succession order ----------------------------------------------------------------------------


@dataclass
class Forest:
    people: dict[int, Person]
    monarch: int
    royal: frozenset[int]


@st.composite
def forests(draw: st.DrawFn) -> Forest:
    """Random family forests: each person may have a father and a mother drawn among earlier people (so
    no cycles), random sexes, years, birth orders and alive/retired flags; cousin marriages happen."""
    n = draw(st.integers(1, 30))
    people: dict[int, Person] = {}
    for pid in range(1, n + 1):
        males = [p.id for p in people.values() if p.sex == MALE]
        females = [p.id for p in people.values() if p.sex == FEMALE]
        father = draw(st.none() | st.sampled_from(males)) if males else None
        mother = draw(st.none() | st.sampled_from(females)) if females else None
        people[pid] = Person(
            id=pid,
            sex=draw(st.sampled_from([MALE, FEMALE])),
            birth_year=draw(st.integers(1200, 1260)),
            birth_order=draw(st.integers(1, 3)),
            father=father,
            mother=mother,
            alive=draw(st.booleans()),
            retired=draw(st.integers(0, 5)) == 0,
        )
    ids = sorted(people)
    # half the time an early person (more descendants to order), else anyone (more climbing up the tree)
    monarch = draw(st.sampled_from(ids[: max(1, n // 3)]) | st.sampled_from(ids))
    royal = set(draw(st.sets(st.sampled_from(ids), max_size=4)))  # past holders of the crown
    # often a past holder on the monarch's mother's side, so that the blood may run through her only
    mother = people[monarch].mother
    if mother is not None and draw(st.booleans()):
        royal.add(draw(st.sampled_from(sorted({mother} | ancestors(people, mother)))))
    return Forest(people, monarch, frozenset(royal))


def children_of(people: Mapping[int, Person], pid: int) -> list[Person]:
    return [p for p in people.values() if pid in (p.father, p.mother)]


def descendants(people: Mapping[int, Person], roots: Iterable[int]) -> set[int]:
    """The roots and everyone descended from them."""
    out: set[int] = set()
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid in out:
            continue
        out.add(pid)
        stack.extend(c.id for c in children_of(people, pid))
    return out


def ancestors(people: Mapping[int, Person], pid: int) -> set[int]:
    out: set[int] = set()
    stack = [pid]
    while stack:
        person = people.get(stack.pop())
        if person is None:
            continue
        for parent in (person.father, person.mother):
            if parent is not None and parent not in out:
                out.add(parent)
                stack.append(parent)
    return out


def seniority_children(people: Mapping[int, Person], pid: int) -> list[int]:
    """A7: sons by age (year, then birth order), then daughters by age."""
    kids = children_of(people, pid)
    key = lambda p: (p.birth_year, p.birth_order, p.id)  # noqa: E731
    sons = sorted((k for k in kids if k.sex == MALE), key=key)
    daughters = sorted((k for k in kids if k.sex == FEMALE), key=key)
    return [k.id for k in sons + daughters]


PROPERTY_SETTINGS = settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(forests(), st.booleans())
def test_a7_listed_heirs_are_alive_unique_and_never_the_monarch(forest: Forest, use_royal: bool) -> None:
    """A7 Succession: only characters in play inherit, each once; the late monarch never succeeds himself."""
    royal = forest.royal if use_royal else frozenset()
    order = succession_order(forest.people, forest.monarch, royal=royal)
    assert len(order) == len(set(order))
    assert forest.monarch not in order
    for pid in order:
        assert forest.people[pid].alive
        assert not forest.people[pid].retired
    assert heir_of(forest.people, forest.monarch, royal=royal) == (order[0] if order else None)


@PROPERTY_SETTINGS
@given(forests(), st.booleans())
def test_a7_only_blood_relatives_inherit(forest: Forest, use_royal: bool) -> None:
    """A7: "Spouses never inherit": everyone listed descends from the monarch or from one of his ancestors;
    a spouse with no blood link never appears."""
    royal = forest.royal if use_royal else frozenset()
    people, monarch = forest.people, forest.monarch
    blood = descendants(people, {monarch} | ancestors(people, monarch))
    order = succession_order(people, monarch, royal=royal)
    assert set(order) <= blood
    spouses = {
        other
        for child in people.values()
        if monarch in (child.father, child.mother) or child.id in blood
        for other in (child.father, child.mother)
        if other is not None and other not in blood
    }
    assert not spouses & set(order)


@PROPERTY_SETTINGS
@given(forests(), st.booleans())
def test_a7_the_monarchs_living_descendants_come_first(forest: Forest, use_royal: bool) -> None:
    """A7: the search goes wider only "when the monarch's own descendants are exhausted"."""
    royal = forest.royal if use_royal else frozenset()
    people, monarch = forest.people, forest.monarch
    order = succession_order(people, monarch, royal=royal)
    own = descendants(people, [monarch]) - {monarch}
    living_own = {pid for pid in own if people[pid].in_play}
    assert set(order[: len(living_own)]) == living_own
    assert not own & set(order[len(living_own) :])


@PROPERTY_SETTINGS
@given(forests())
def test_a7_elder_sons_lines_before_younger_and_sons_before_daughters(forest: Forest) -> None:
    """A7: "The eldest son then down through his family ...; The second son and down through his family
    ...; The eldest daughter and down through ... her family ...; The second daughter, and so on."
    A descendant through two of the monarch's children (cousins married) belongs to the earlier line."""
    people, monarch = forest.people, forest.monarch
    order = succession_order(people, monarch, royal=forest.royal)
    lines = [descendants(people, [child]) for child in seniority_children(people, monarch)]
    sexes = [people[child].sex for child in seniority_children(people, monarch)]

    def line_of(pid: int) -> int:
        return next(i for i, members in enumerate(lines) if pid in members)

    own = [pid for pid in order if any(pid in members for members in lines)]
    line_indices = [line_of(pid) for pid in own]
    assert line_indices == sorted(line_indices)
    # every member of a son's line precedes every member of a daughter's line
    last_son_member = max((order.index(pid) for pid in own if sexes[line_of(pid)] == MALE), default=-1)
    first_daughter_member = min((order.index(pid) for pid in own if sexes[line_of(pid)] == FEMALE), default=len(order))
    assert last_son_member < first_daughter_member
    # each line opens with its root (the monarch's child) when that child is in play (and is not
    # himself a descendant of an elder child, which only a marriage inside the family can cause)
    for i, root in enumerate(seniority_children(people, monarch)):
        if people[root].in_play and line_of(root) == i:
            assert next(pid for pid in own if line_of(pid) == i) == root


@PROPERTY_SETTINGS
@given(forests())
def test_a7_eldest_living_son_of_the_monarch_is_heir_if_any(forest: Forest) -> None:
    """A7: "In the majority of cases ... The King dies and his eldest son becomes King.\""""
    people, monarch = forest.people, forest.monarch
    kids = seniority_children(people, monarch)
    if kids and people[kids[0]].in_play:
        assert heir_of(people, monarch, royal=forest.royal) == kids[0]


def generations_up(people: Mapping[int, Person], pid: int) -> dict[int, int]:
    """Every ancestor of pid (and pid itself, at 0) with the fewest generations up to it."""
    out = {pid: 0}
    for ancestor in ancestors(people, pid):
        paths = [pid]
        depth = 0
        while ancestor not in paths:  # widen one generation at a time until the ancestor is met
            paths = [q for c in paths if c in people for q in (people[c].father, people[c].mother) if q is not None]
            depth += 1
        out[ancestor] = depth
    return out


def expected_blood_parent(people: Mapping[int, Person], pid: int, royal: frozenset[int]) -> int | None:
    """The parent the search climbs to (A7 ruling, issue 16 item 5: "the crown goes back up the way it
    came"): of the parents of the royal blood (a past holder or descended from one), the one who held
    the crown; else the one descended from the later-born holder, then the one fewer generations below
    that holder; the father when both stand equal or neither is of the blood."""
    person = people[pid]
    parents = [p for p in (person.father, person.mother) if p is not None and p in people]
    if not parents:
        return None
    ranked = []
    for order, parent in enumerate(parents):
        holders = {a: d for a, d in generations_up(people, parent).items() if a in royal}
        if not holders:
            continue
        last = max(holders, key=lambda h: people[h].seniority())
        ranked.append(((parent in royal, people[last].seniority(), -holders[last], -order), parent))
    return max(ranked)[1] if ranked else parents[0]


@PROPERTY_SETTINGS
@given(forests(), st.booleans())
def test_a7_when_own_descendants_are_exhausted_the_search_continues_from_the_blood_parent(
    forest: Forest, use_royal: bool
) -> None:
    """A7: "continue in the same order from the monarch's parent (his living parent first, then his
    brothers and their lines, then his sisters and theirs)": right after the monarch's own line come
    exactly the blood parent (if in play) and the rest of that parent's living descendants."""
    royal = forest.royal if use_royal else frozenset()
    people, monarch = forest.people, forest.monarch
    order = succession_order(people, monarch, royal=royal)
    own = descendants(people, [monarch])
    living_own = [pid for pid in own if pid != monarch and people[pid].in_play]
    parent = expected_blood_parent(people, monarch, royal)
    if parent is None:  # nowhere to climb: the monarch's own line is all there is
        assert sorted(order) == sorted(living_own)
        return
    family = descendants(people, [parent]) - own
    living_family = {pid for pid in family if people[pid].in_play}
    block = order[len(living_own) : len(living_own) + len(living_family)]
    assert set(block) == living_family
    if people[parent].in_play:
        assert block[0] == parent
    event(f"climbs to a parent with {len(living_family)} living heirs")
