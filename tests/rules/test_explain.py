"""RULES.md A7: the line of succession with the reason for every place (rules.explain)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.explain import (
    ancestor_kin,
    collateral_kin,
    descendant_kin,
    explain_line,
    iter_explained,
    ordinal,
)
from rules.people import FEMALE, MALE, Person
from rules.succession import FamilyIndex, iter_succession
from tests.profiles import examples


def P(pid: int, sex: str, born: int, father: int | None = None, mother: int | None = None, **kw: Any) -> Person:
    return Person(id=pid, sex=sex, birth_year=born, father=father, mother=mother, **kw)


NAMES = {
    1: "Henry",
    2: "Blanche",
    3: "Edward",
    4: "Maud",
    5: "Richard",
    6: "Joan",
    7: "Thomas",
    8: "Edmund",
    9: "Alice",
    10: "Eleanor",
    11: "Walter",
    12: "Isabel",
    13: "Hugh",
    20: "Geoffrey",
    21: "Matilda",
    22: "Roger",
    23: "Agnes",
    24: "Ralph",
    25: "Cecily",
    26: "Simon",
}


def family(**changes: dict[str, Any]) -> dict[int, Person]:
    """The late King Henry (1) and his foreign Queen (2): sons Edward (3, dead) and Richard (5), daughters
    Maud (4, the eldest child) and Joan (6). Edward left Thomas (7) and Alice (9); Thomas left Edmund (8).
    Maud left Eleanor (10) and Isabel (12); Richard left Hugh (13). Above Henry: his father Geoffrey (20,
    dead, a past King) with Matilda (21); Henry's younger brother Roger (22) and his son Ralph (24), his
    sister Agnes (23); Geoffrey's father Simon (26, dead) had a second son, Walter (11), whose daughter is
    Cecily (25)."""
    people = {
        p.id: p
        for p in (
            P(26, MALE, 1180, alive=False),
            P(11, MALE, 1212, 26, alive=False),
            P(25, FEMALE, 1240, 11),
            P(20, MALE, 1210, 26, alive=False),
            P(21, FEMALE, 1215, alive=False),
            P(1, MALE, 1235, 20, 21, alive=False),
            P(22, MALE, 1238, 20, 21),
            P(24, MALE, 1262, 22),
            P(23, FEMALE, 1240, 20, 21),
            P(2, FEMALE, 1240),
            P(4, FEMALE, 1258, 1, 2),
            P(3, MALE, 1260, 1, 2, alive=False),
            P(5, MALE, 1263, 1, 2),
            P(6, FEMALE, 1265, 1, 2),
            P(7, MALE, 1280, 3, alive=False),
            P(9, FEMALE, 1282, 3),
            P(8, MALE, 1300, 7),
            P(10, FEMALE, 1278, mother=4),
            P(12, FEMALE, 1280, mother=4),
            P(13, MALE, 1290, 5),
        )
    }
    for pid, fields in changes.items():
        people[int(pid.lstrip("p"))] = replace(people[int(pid.lstrip("p"))], **fields)
    return people


ROYAL = {20, 1}


def reasons(people: dict[int, Person], monarch: int = 1, **kw: Any) -> list[tuple[str, str]]:
    line = explain_line(people, monarch, names=NAMES, royal=ROYAL, limit=None, **kw)
    return [(NAMES[e.person_id], e.reason) for e in line.entries]


def test_a7_reasons_down_the_late_kings_own_line() -> None:
    """A7: the eldest son's family (his dead son's son first), then the second son, then the daughters."""
    out = reasons(family())
    assert out[:8] == [
        (
            "Edmund",
            "great-grandson: eldest son of Thomas (deceased), eldest son of Edward (deceased), the late King's eldest son",
        ),
        ("Alice", "granddaughter: eldest daughter of Edward (deceased), the late King's eldest son"),
        ("Richard", "second son"),
        ("Hugh", "grandson: eldest son of Richard, the late King's second son"),
        ("Maud", "eldest daughter"),
        ("Eleanor", "granddaughter: eldest daughter of Maud, the late King's eldest daughter"),
        ("Isabel", "granddaughter: second daughter of Maud, the late King's eldest daughter"),
        ("Joan", "second daughter"),
    ]


def test_a7_reasons_climbing_to_brothers_uncles_and_cousins() -> None:
    """BloodLine B / the software's A7 ruling: then the late King's father's line (younger brother and
    his son, sister), then his grandfather's (the uncle is dead: his daughter, a first cousin)."""
    out = reasons(family())
    father = "second son of Geoffrey (deceased), the late King's father (after the late King's own line)"
    assert out[8:] == [
        ("Roger", f"younger brother: {father}"),
        ("Ralph", f"nephew: eldest son of Roger, {father}"),
        (
            "Agnes",
            "younger sister: eldest daughter of Geoffrey (deceased), the late King's father (after the late King's own line)",
        ),
        (
            "Cecily",
            "first cousin: eldest daughter of Walter (deceased), second son of Simon (deceased), "
            "the late King's grandfather (after the late King's own line and his father's)",
        ),
    ]


def test_a7_when_the_own_line_is_extinct_the_note_says_so() -> None:
    dead = {f"p{pid}": {"alive": False} for pid in (4, 5, 6, 8, 9, 10, 12, 13)}
    line = explain_line(family(**dead), 1, names=NAMES, royal=ROYAL)
    first = line.entries[0]
    assert (first.person_id, first.kin, first.level, first.path) == (22, "younger brother", 1, (20, 22))
    assert first.reason == (
        "younger brother: second son of Geoffrey (deceased), the late King's father (the late King's own line is extinct)"
    )
    dead.update({"p22": {"alive": False}, "p24": {"alive": False}, "p23": {"retired": True}})
    line = explain_line(family(**dead), 1, names=NAMES, royal=ROYAL)
    assert [(e.person_id, e.reason) for e in line.entries] == [
        (
            25,
            "first cousin: eldest daughter of Walter (deceased), second son of Simon (deceased), the late King's "
            "grandfather (the late King's own line and his father's are extinct)",
        ),
    ]


def test_a7_a_living_king_his_living_father_a_grand_nephew_and_a_half_brother() -> None:
    people = family(p1={"alive": True})
    people[30] = P(30, MALE, 1230, 20)  # Geoffrey's son by another wife, older than Henry
    names = {**NAMES, 30: "Bastien"}
    line = explain_line(people, 5, names=names, royal=ROYAL, limit=3)  # King Richard, alive
    assert [(e.person_id, e.kin, e.reason) for e in line.entries] == [
        (13, "son", "eldest son"),
        (1, "father", "father (after the King's own line)"),
        (
            8,
            "grand-nephew",
            "grand-nephew: eldest son of Thomas (deceased), eldest son of Edward (deceased), "
            "eldest son of Henry, the King's father (after the King's own line)",
        ),
    ]
    assert line.total == 13
    bastien = next(e for e in iter_explained(people, 1, names=names, royal=ROYAL) if e.person_id == 30)
    assert bastien.kin == "elder half-brother"
    assert bastien.reason == (
        "elder half-brother: eldest son of Geoffrey (deceased), the King's father (after the King's own line)"
    )


def test_a7_a_queen_regnant_and_a_title_holder() -> None:
    people = family(p4={"alive": True})
    line = explain_line(people, 4, names=NAMES, royal={4}, title="Duchess of Kent", limit=None)
    assert [e.reason for e in line.entries[:2]] == ["eldest daughter", "second daughter"]
    assert line.entries[4].reason == (
        "younger brother: second son of Henry (deceased), the Duchess of Kent's father (after the Duchess of Kent's own line)"
    )
    assert line.entries[7].reason == (
        "uncle: second son of Geoffrey (deceased), the Duchess of Kent's grandfather "
        "(after the Duchess of Kent's own line and her father's)"
    )


def test_a7_a_queen_regnants_son_the_line_goes_up_through_her_and_kin_is_the_nearest() -> None:
    """Issue 16, item 5: the search "wider" goes back up the way the crown came, through the late King's
    mother, the Queen regnant, to her father: her nephew is explained through them; the cousin on the
    father's side, reached only from the first King, is still called what he is, a first cousin."""
    from tests.rules.test_succession import QUEENS_SON_ROYAL, queens_son_family

    names = {343: "Pietro", 341: "Blanche", 330: "Charles", 353: "Louis", 351: "Philip", 300: "Hugh"}
    line = explain_line(queens_son_family(), 360, names=names, royal=QUEENS_SON_ROYAL, limit=None)
    nephew, cousin = line.entries
    assert (nephew.person_id, nephew.kin, nephew.path) == (343, "first cousin", (330, 341, 343))
    assert nephew.reason == (
        "first cousin: eldest son of Blanche (deceased), second daughter of Charles (deceased), the late King's "
        "grandfather (the late King's own line and his mother's are extinct)"
    )
    assert (cousin.person_id, cousin.kin, cousin.level) == (353, "first cousin", 5)
    assert cousin.reason.startswith("first cousin: eldest son of Philip (deceased), ")


def test_bastards_renunciations_limits_and_totals() -> None:
    people = family(p7={"legitimate": False})  # Thomas a bastard: neither he nor Edmund inherits
    line = explain_line(people, 1, names=NAMES, royal=ROYAL, barred={5}, limit=2)
    assert [e.person_id for e in line.entries] == [9, 4]  # Richard renounced: nor his son Hugh
    assert line.entries[0].reason == "granddaughter: eldest daughter of Edward (deceased), the late King's eldest son"
    assert line.total == 9
    assert line.heir == 9
    assert explain_line(people, 1, names=NAMES, royal=ROYAL, count_total=False).total is None
    nobody = explain_line(people, 1, names=NAMES, royal=ROYAL, limit=0)
    assert nobody.entries == () and nobody.total == 11 and nobody.heir is None
    assert explain_line({1: P(1, MALE, 1200)}, 1, names={}).entries == ()


def test_names_may_be_missing() -> None:
    people = {1: P(1, MALE, 1200, alive=False), 2: P(2, MALE, 1220, 1, alive=False), 3: P(3, FEMALE, 1240, 2)}
    [entry] = explain_line(people, 1, names={}).entries
    assert entry.reason == "granddaughter: eldest daughter of #2 (deceased), the late King's eldest son"


@pytest.mark.parametrize(
    ("height", "depth", "sex", "word"),
    [
        (1, 1, MALE, "brother"),
        (1, 1, FEMALE, "sister"),
        (1, 2, MALE, "nephew"),
        (1, 2, FEMALE, "niece"),
        (1, 3, MALE, "grand-nephew"),
        (1, 4, FEMALE, "great-grand-niece"),
        (2, 1, MALE, "uncle"),
        (3, 1, FEMALE, "great-aunt"),
        (4, 1, MALE, "great-great-uncle"),
        (2, 2, MALE, "first cousin"),
        (2, 3, FEMALE, "first cousin once removed"),
        (3, 2, MALE, "first cousin once removed"),
        (3, 3, MALE, "second cousin"),
        (3, 5, MALE, "second cousin twice removed"),
        (2, 6, MALE, "first cousin 4 times removed"),
        (4, 3, MALE, "second cousin once removed"),
    ],
)
def test_kinship_words(height: int, depth: int, sex: str, word: str) -> None:
    assert collateral_kin(height, depth, sex) == word


def test_words() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 12, 13, 21, 22)] == ["eldest", "second", "third", "twelfth", "13th", "21st", "22nd"]
    assert [descendant_kin(d, MALE) for d in (1, 2, 3, 5, 6)] == [
        "son",
        "grandson",
        "great-grandson",
        "great-great-great-grandson",
        "4x great-grandson",
    ]
    assert [ancestor_kin(h, FEMALE) for h in (1, 2, 3)] == ["mother", "grandmother", "great-grandmother"]


# --- the same order as iter_succession ---------------------------------------------------------


@dataclass
class Forest:
    people: dict[int, Person]
    monarch: int
    royal: frozenset[int]
    barred: frozenset[int]


@st.composite
def forests(draw: st.DrawFn) -> Forest:
    """Random family forests (parents drawn among earlier people: no cycles; cousin marriages happen),
    with the dead, the retired, bastards, renunciations and past holders."""
    n = draw(st.integers(1, 40))
    people: dict[int, Person] = {}
    for pid in range(1, n + 1):
        males = [p.id for p in people.values() if p.sex == MALE]
        females = [p.id for p in people.values() if p.sex == FEMALE]
        people[pid] = Person(
            id=pid,
            sex=draw(st.sampled_from([MALE, FEMALE])),
            birth_year=draw(st.integers(1200, 1230)),
            birth_order=draw(st.integers(1, 2)),
            father=draw(st.none() | st.sampled_from(males)) if males else None,
            mother=draw(st.none() | st.sampled_from(females)) if females else None,
            alive=draw(st.integers(0, 2)) > 0,
            retired=draw(st.integers(0, 6)) == 0,
            legitimate=draw(st.integers(0, 8)) > 0,
        )
    ids = sorted(people)
    monarch = draw(st.sampled_from(ids[: max(1, n // 3)]) | st.sampled_from(ids))
    royal = draw(st.sets(st.sampled_from(ids), max_size=4))
    barred = draw(st.sets(st.sampled_from(ids), max_size=2))
    return Forest(people, monarch, frozenset(royal), frozenset(barred))


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(forests(), st.integers(0, 12))
def test_property_explain_walks_in_iter_succession_order(forest: Forest, limit: int) -> None:
    kw = {"royal": forest.royal, "barred": forest.barred}
    expected = list(iter_succession(forest.people, forest.monarch, **kw))
    entries = list(iter_explained(forest.people, forest.monarch, names={}, **kw))
    assert [e.person_id for e in entries] == expected
    line = explain_line(forest.people, forest.monarch, names={}, limit=limit, **kw)
    assert [e.person_id for e in line.entries] == expected[:limit]
    assert line.total == len(expected)
    index = FamilyIndex(forest.people)
    for pos, entry in enumerate(entries, start=1):
        assert entry.position == pos and entry.reason and entry.kin
        assert entry.path[-1] == entry.person_id
        if entry.level == 0:
            assert entry.path[0] == forest.monarch
        for parent, child in zip(entry.path, entry.path[1:], strict=False):
            assert child in index.children(parent)


# --- speed ---------------------------------------------------------------------------------------


def big_tree(size: int = 2000, seed: int = 1) -> tuple[dict[int, Person], int, set[int]]:
    """A deep random dynasty: a founder, couples with 0-5 children each generation (every blood wife
    or husband marries in from outside), till ``size`` people; returns the people, the living
    monarch (the last founder-line heir) and the past holders."""
    rng = random.Random(seed)
    people: dict[int, Person] = {1: P(1, MALE, 1000, alive=False)}
    generation, next_id, year = [1], 2, 1000
    while len(people) < size and generation:
        year += 25
        new: list[int] = []
        for parent in generation:
            if len(people) >= size:
                break
            spouse = next_id
            parent_sex = people[parent].sex
            people[spouse] = P(spouse, FEMALE if parent_sex == MALE else MALE, year - 28, alive=False)
            next_id += 1
            father, mother = (parent, spouse) if parent_sex == MALE else (spouse, parent)
            for k in range(rng.choice((0, 1, 2, 2, 3, 3, 4, 5))):
                people[next_id] = P(next_id, rng.choice((MALE, FEMALE)), year + 2 * k, father, mother, alive=year < 1250)
                new.append(next_id)
                next_id += 1
                if len(people) >= size:
                    break
        generation = new
    last = max(p.birth_year for p in people.values())
    for person in people.values():
        person.alive = person.birth_year >= last - 50
    # the monarch: the eldest living man of the blood with children; the royal line runs up his blood
    fathers = {p.father for p in people.values()}
    monarch = min(
        (p for p in people.values() if p.alive and p.sex == MALE and p.id in fathers and p.father), key=Person.seniority
    ).id
    royal, pid = set(), monarch
    while pid is not None:
        royal.add(pid)
        person = people[pid]
        pid = person.father if person.father is not None and people[person.father].father is not None else person.mother
        if pid is not None and people[pid].father is None and people[pid].mother is None and pid != 1:
            break
    return people, monarch, royal


def test_a_2000_character_dynasty_answers_well_under_100_ms() -> None:
    people, monarch, royal = big_tree(2000)
    assert len(people) >= 2000
    names = {pid: f"Name{pid}" for pid in people}
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        line = explain_line(people, monarch, names=names, royal=royal)
        timings.append(time.perf_counter() - start)
    assert len(line.entries) == 10 and line.total is not None and line.total > 100
    assert line.total == sum(1 for _ in iter_succession(people, monarch, royal=royal))
    assert min(timings) < 0.1
