"""RULES.md A7 Succession: the order of heirs, on hand-built family trees.

The rulebook's order (section 9, Succession):
    "The eldest son then down through his family, boys and then girls;
     The second son and down through his family - first the boys then the girls;
     The third son, and so on;
     The eldest daughter and down through the sons in her family, then the girls;
     The second daughter, and so on."
"""

from __future__ import annotations

from typing import Any

from rules.people import FEMALE, MALE, Person
from rules.succession import FamilyIndex, heir_of, iter_succession, succession_order


def P(pid: int, sex: str, born: int, father: int | None = None, mother: int | None = None, name: str = "", **kw: Any) -> Person:
    return Person(id=pid, sex=sex, birth_year=born, father=father, mother=mother, dynastic_name=name, **kw)


def people(*persons: Person) -> dict[int, Person]:
    return {p.id: p for p in persons}


def royal_family() -> dict[int, Person]:
    """King Edward (1) and his foreign Queen (2); two sons, two daughters (the elder daughter older than
    both sons); grandchildren through every child; every in-law is a foreigner."""
    return people(
        P(1, MALE, 1270, name="Plantagenet", alive=False),  # the late King
        P(2, FEMALE, 1275, name="Anjou"),  # his Queen
        P(5, FEMALE, 1292, 1, 2, "Plantagenet"),  # Mary, eldest child, a daughter
        P(3, MALE, 1295, 1, 2, "Plantagenet"),  # Edmund, eldest son
        P(6, FEMALE, 1297, 1, 2, "Plantagenet"),  # Anne
        P(4, MALE, 1300, 1, 2, "Plantagenet"),  # John, second son
        P(10, FEMALE, 1298, name="Visconti"),  # Edmund's wife
        P(7, FEMALE, 1315, 3, 10, "Plantagenet"),  # Edmund's daughter, his eldest child
        P(8, MALE, 1317, 3, 10, "Plantagenet"),  # Edmund's elder son
        P(9, MALE, 1319, 3, 10, "Plantagenet"),  # Edmund's younger son
        P(15, FEMALE, 1318, name="Savoy"),  # 8's wife
        P(17, FEMALE, 1334, 8, 15, "Plantagenet"),  # 8's daughter
        P(16, MALE, 1336, 8, 15, "Plantagenet"),  # 8's son
        P(20, FEMALE, 1305, name="Savoy"),  # John's wife
        P(19, FEMALE, 1325, 4, 20, "Plantagenet"),  # John's daughter
        P(11, MALE, 1290, name="Sforza"),  # Mary's husband
        P(13, FEMALE, 1310, 11, 5, "Sforza"),  # Mary's daughter (elder)
        P(12, MALE, 1312, 11, 5, "Sforza"),  # Mary's son
        P(18, MALE, 1295, name="Tudor"),  # Anne's husband
        P(14, MALE, 1320, 18, 6, "Tudor"),  # Anne's son
    )


FULL_ORDER = [3, 8, 16, 17, 9, 7, 4, 19, 5, 12, 13, 6, 14]
SPOUSES = {2, 10, 15, 20, 11, 18}


def test_a7_full_order_of_the_royal_family() -> None:
    """A7: sons' lines by seniority (each son's family boys then girls, recursively), then daughters' lines."""
    assert succession_order(royal_family(), 1) == FULL_ORDER


def test_a7_eldest_son_is_the_heir_before_the_second_son() -> None:
    """A7: "In the majority of cases ... The King dies and his eldest son becomes King.\""""
    fam = royal_family()
    assert heir_of(fam, 1) == 3
    order = succession_order(fam, 1)
    assert order.index(3) < order.index(4)


def test_a7_sons_lines_before_daughters_lines_even_an_elder_daughter() -> None:
    """A7: Mary (born 1292) is older than both sons but comes after every son's line."""
    order = succession_order(royal_family(), 1)
    for son_line in (3, 8, 16, 17, 9, 7, 4, 19):
        assert order.index(son_line) < order.index(5)


def test_a7_succession_through_a_dead_eldest_sons_children_before_the_second_son() -> None:
    """A7: "The eldest son then down through his family, boys and then girls; The second son ..."."""
    fam = royal_family()
    fam[3].alive = False
    assert heir_of(fam, 1) == 8
    assert succession_order(fam, 1) == [8, 16, 17, 9, 7, 4, 19, 5, 12, 13, 6, 14]


def test_a7_the_second_son_inherits_when_the_eldest_sons_line_is_extinct() -> None:
    fam = royal_family()
    for pid in (3, 7, 8, 9, 16, 17):
        fam[pid].alive = False
    assert heir_of(fam, 1) == 4
    assert succession_order(fam, 1) == [4, 19, 5, 12, 13, 6, 14]


def test_a7_daughters_lines_sons_then_daughters() -> None:
    """A7: "The eldest daughter and down through the sons in her family, then the girls": Mary's son (born
    1312) before her elder daughter (born 1310); then Anne and her son."""
    fam = royal_family()
    for pid in (3, 4, 7, 8, 9, 16, 17, 19):
        fam[pid].alive = False
    assert succession_order(fam, 1) == [5, 12, 13, 6, 14]
    fam[5].alive = False
    assert heir_of(fam, 1) == 12


def test_a7_within_a_grandsons_family_boys_then_girls_recursively() -> None:
    order = succession_order(royal_family(), 1)
    assert order[:5] == [3, 8, 16, 17, 9]  # 8's son 16 before 8's elder daughter 17, both before 8's brother 9
    assert order.index(9) < order.index(7)  # Edmund's younger son before his elder daughter


def test_a7_dead_and_retired_are_skipped_but_their_descendants_reached() -> None:
    fam = royal_family()
    fam[8].alive = False
    fam[5].retired = True
    order = succession_order(fam, 1)
    assert 8 not in order
    assert 5 not in order
    assert order == [3, 16, 17, 9, 7, 4, 19, 12, 13, 6, 14]


def test_a7_spouses_never_inherit() -> None:
    """A7: "Spouses never inherit": with every blood relative dead only in-laws are left, and nobody inherits."""
    fam = royal_family()
    assert not SPOUSES & set(succession_order(fam, 1))
    for person in fam.values():
        if person.id not in SPOUSES:
            person.alive = False
    assert succession_order(fam, 1) == []
    assert heir_of(fam, 1) is None


def test_a7_heir_of_is_none_when_nobody_is_alive() -> None:
    fam = royal_family()
    for person in fam.values():
        person.alive = False
    assert heir_of(fam, 1) is None
    assert succession_order(fam, 1) == []
    assert heir_of(people(P(1, MALE, 1270, alive=False)), 1) is None
    assert heir_of({}, 1) is None


def test_a7_the_late_monarch_is_never_listed_even_if_still_marked_alive() -> None:
    fam = royal_family()
    fam[1].alive = True
    assert 1 not in succession_order(fam, 1)
    assert succession_order(fam, 1) == FULL_ORDER


def test_a7_limit_and_laziness() -> None:
    fam = royal_family()
    assert succession_order(fam, 1, limit=3) == [3, 8, 16]
    assert succession_order(fam, 1, limit=1) == [heir_of(fam, 1)]
    lazy = iter_succession(fam, 1)
    assert next(lazy) == 3
    assert next(lazy) == 8


def test_a7_same_year_children_follow_birth_order() -> None:
    """A4: "the second child ... one year later ... This is important when it comes to determining
    Succession"; with a same-year record the birth order decides."""
    fam = people(
        P(1, MALE, 1270, alive=False),
        P(30, MALE, 1300, 1, birth_order=2),
        P(31, MALE, 1300, 1, birth_order=1),
        P(32, MALE, 1299, 1, birth_order=3),
    )
    assert succession_order(fam, 1) == [32, 31, 30]


def test_a7_family_index_children_are_sons_by_seniority_then_daughters() -> None:
    index = FamilyIndex(royal_family())
    assert index.children(1) == [3, 4, 5, 6]
    assert index.children(3) == [8, 9, 7]
    assert index.children(5) == [12, 13]
    assert index.children(2) == [3, 4, 5, 6]  # the Queen is their mother too
    assert index.children(14) == []


def test_a7_a_custom_eligibility_passes_over_a_prisoner() -> None:
    """A7 Disputed succession: "the heir is a prisoner in another country" may be passed over."""
    fam = royal_family()
    fam[3].prisoner = True
    assert heir_of(fam, 1) == 3  # by default a prisoner still inherits
    assert heir_of(fam, 1, eligible=lambda p: p.in_play and not p.prisoner) == 8


def test_a7_cousin_marriage_a_person_reachable_twice_is_listed_once() -> None:
    """A6 lets cousins of different names marry; their child descends from two of the King's children
    and is listed once, in the elder line."""
    fam = royal_family()
    fam[21] = P(21, MALE, 1340, 8, 13, "Plantagenet")  # son of 8 (Edmund's line) and 13 (Mary's line)
    fam[15].alive = False
    order = succession_order(fam, 1)
    assert order.count(21) == 1
    assert order == [3, 8, 16, 21, 17, 9, 7, 4, 19, 5, 12, 13, 6, 14]


# --- going up the tree ------------------------------------------------------------------------------


def uncles_family() -> dict[int, Person]:
    """Old King 100 -> King 104 -> the late King 110 (childless). 110 had a dead elder brother, a dead
    younger brother with children and a sister with a son; 104 had a brother and a sister with families."""
    return people(
        P(100, MALE, 1220, name="Anjou", alive=False),
        P(101, FEMALE, 1225, name="Savoy", alive=False),
        P(106, FEMALE, 1243, 100, 101, "Anjou"),  # aunt, elder than 104
        P(104, MALE, 1245, 100, 101, "Anjou", alive=False),  # the late King's father
        P(105, MALE, 1250, 100, 101, "Anjou"),  # uncle
        P(107, MALE, 1275, 105, None, "Anjou"),  # uncle's son
        P(109, MALE, 1240, name="Guise"),  # aunt's husband
        P(108, FEMALE, 1272, 109, 106, "Guise"),  # aunt's daughter
        P(111, FEMALE, 1250, name="Medici"),  # the Queen mother, alive
        P(112, MALE, 1270, 104, 111, "Anjou", alive=False),  # elder brother, childless
        P(110, MALE, 1275, 104, 111, "Anjou", alive=False),  # the late King
        P(114, FEMALE, 1285, name="Sforza"),  # his widow
        P(118, FEMALE, 1278, 104, 111, "Anjou"),  # sister
        P(115, MALE, 1280, 104, 111, "Anjou", alive=False),  # younger brother
        P(121, FEMALE, 1282, name="Tudor"),  # his widow
        P(117, FEMALE, 1303, 115, 121, "Anjou"),
        P(116, MALE, 1305, 115, 121, "Anjou"),
        P(120, MALE, 1275, name="Percy"),  # sister's husband
        P(119, MALE, 1300, 120, 118, "Percy"),
    )


def test_a7_continue_from_the_parent_brothers_lines_then_sisters_then_further_up() -> None:
    """A7 (the software's ruling): "continue in the same order from the monarch's parent (his younger
    brothers and their lines, then his sisters and theirs), and further up the tree"."""
    fam = uncles_family()
    expected = [116, 117, 118, 119, 105, 107, 106, 108]
    assert succession_order(fam, 110) == expected
    assert succession_order(fam, 110, royal={100, 104, 110}) == expected
    assert heir_of(fam, 110) == 116


def test_a7_going_up_spouses_and_in_laws_never_inherit() -> None:
    order = succession_order(uncles_family(), 110)
    for in_law in (101, 109, 111, 114, 120, 121):
        assert in_law not in order


def test_a7_the_monarchs_own_descendants_come_before_his_brothers() -> None:
    fam = uncles_family()
    fam[130] = P(130, FEMALE, 1310, 110, 114, "Anjou")
    fam[131] = P(131, MALE, 1330, name="Visconti")
    fam[132] = P(132, MALE, 1350, 131, 130, "Visconti")
    assert succession_order(fam, 110)[:3] == [130, 132, 116]


def test_a7_uncles_line_only_when_brothers_lines_are_extinct() -> None:
    fam = uncles_family()
    for pid in (116, 117, 118, 119):
        fam[pid].alive = False
    assert heir_of(fam, 110) == 105
    fam[105].alive = False
    assert heir_of(fam, 110) == 107


def mothers_family(*, mother_alive: bool = False) -> dict[int, Person]:
    """The late King 210 inherited through his mother 201, daughter of King 200; his father 202 and the
    father's relatives are foreigners."""
    return people(
        P(200, MALE, 1230, name="Capet", alive=False),  # the old King
        P(201, FEMALE, 1255, 200, None, "Capet", alive=mother_alive),  # the princess
        P(205, FEMALE, 1260, 200, None, "Capet"),  # her younger sister
        P(207, MALE, 1255, name="Orsini"),
        P(206, MALE, 1285, 207, 205, "Orsini"),  # the sister's son
        P(203, MALE, 1220, name="Habsburg", alive=False),  # the foreign grandfather
        P(202, MALE, 1250, 203, None, "Habsburg"),  # the foreign father, alive
        P(204, MALE, 1255, 203, None, "Habsburg"),  # the foreign uncle
        P(210, MALE, 1275, 202, 201, "Habsburg", alive=False),  # the late King
        P(211, MALE, 1280, 202, 201, "Habsburg", alive=False),  # his younger brother, dead
    )


def test_a7_a_king_who_inherited_through_his_mother_climbs_through_her() -> None:
    """A7: the search goes up through "the monarch's parent of the royal blood": given the past holders
    (200 and 210), the blood runs through the mother, not the foreign father."""
    fam = mothers_family()
    royal = {200, 210}
    assert FamilyIndex(fam).blood_parent(210, royal) == 201
    assert succession_order(fam, 210, royal=royal) == [205, 206]
    assert heir_of(fam, 210, royal=royal) == 205


def test_a7_without_the_past_holders_the_father_is_taken() -> None:
    """Without knowing who reigned the father is the parent climbed through: this is why ``royal``
    must be given (the foreign father and uncle would otherwise be called heirs)."""
    fam = mothers_family()
    assert FamilyIndex(fam).blood_parent(210, ()) == 202
    assert succession_order(fam, 210) == [202, 204]


def test_a7_a_living_blood_parent_comes_before_the_monarchs_siblings() -> None:
    fam = mothers_family(mother_alive=True)
    fam[211].alive = True
    assert succession_order(fam, 210, royal={200, 210}) == [201, 211, 205, 206]


def test_a7_blood_parent_prefers_the_father_when_both_are_of_the_blood() -> None:
    fam = people(
        P(1, MALE, 1220, name="A", alive=False),  # the old King
        P(2, MALE, 1245, 1, None, "A"),
        P(3, FEMALE, 1250, 1, None, "A"),
        P(4, MALE, 1248, name="B"),
        P(5, MALE, 1270, 4, 3, "B"),  # cousin of 6
        P(6, FEMALE, 1272, 2, None, "A"),
        P(7, MALE, 1295, 5, 6, "B"),
    )
    index = FamilyIndex(fam)
    assert index.blood_parent(7, {1}) == 5
    assert index.blood_parent(5, {1}) == 3  # his father 4 is no royal: the mother is of the blood
    assert index.blood_parent(2, {1}) == 1
    assert index.blood_parent(1, {1}) is None
    assert index.is_of_blood(5, {1})
    assert not index.is_of_blood(4, {1})


def test_a7_further_up_the_tree_for_a_grandson_through_a_queen() -> None:
    """Going up twice: King 7's blood runs through his father 5, then 5's mother 3, then the old King 1."""
    fam = people(
        P(1, MALE, 1220, name="A", alive=False),
        P(2, MALE, 1245, 1, None, "A"),  # old King's son, alive
        P(3, FEMALE, 1250, 1, None, "A", alive=False),
        P(4, MALE, 1248, name="B"),  # foreign husband of 3
        P(8, MALE, 1240, name="B"),  # 4's brother (never of the blood)
        P(5, MALE, 1270, 4, 3, "B", alive=False),
        P(9, FEMALE, 1275, 4, 3, "B"),  # 5's sister
        P(7, MALE, 1295, 5, None, "B", alive=False),  # the late King
    )
    fam[4].father = 40
    fam[8].father = 40
    fam[40] = P(40, MALE, 1210, name="B", alive=False)
    assert succession_order(fam, 7, royal={1, 3, 7}) == [9, 2]
    assert 8 not in succession_order(fam, 7, royal={1, 3, 7})


# --- back up the way the crown came (issue 16, item 5) ----------------------------------------------


def queens_son_family() -> dict[int, Person]:
    """The simulated campaign's case. The first King 300 (born 1300); his eldest son's line held the
    crown down to King 330 (born 1370), whose elder daughter 340 reigned after him as Queen regnant and
    was succeeded by her son, the late King 360 (born 1415), who died childless. The Queen's husband 350
    descends, four generations back, from the first King through the King's daughter 305; his brother's
    son 353 (born 1420) is a cousin on the father's side. The Queen's sister's son 343 (born 1425) is the
    late Queen's nephew, grandson of King 330."""
    return people(
        P(300, MALE, 1300, name="Capet", alive=False),  # the first King
        P(310, MALE, 1320, 300, None, "Capet", alive=False),  # King, his eldest son
        P(305, FEMALE, 1325, 300, None, "Capet", alive=False),  # the first King's daughter
        P(320, MALE, 1345, 310, None, "Capet", alive=False),  # King
        P(330, MALE, 1370, 320, None, "Capet", alive=False),  # King, the King before the Queen
        P(340, FEMALE, 1395, 330, None, "Capet", alive=False),  # the Queen regnant
        P(341, FEMALE, 1398, 330, None, "Capet", alive=False),  # her younger sister
        P(342, MALE, 1396, name="Orsini", alive=False),  # the sister's husband
        P(343, MALE, 1425, 342, 341, "Orsini"),  # the late Queen's nephew
        P(306, MALE, 1322, name="Valois", alive=False),  # 305's husband
        P(307, MALE, 1350, 306, 305, "Valois", alive=False),
        P(308, MALE, 1372, 307, None, "Valois", alive=False),
        P(350, MALE, 1393, 308, None, "Valois", alive=False),  # the Queen's consort, the late King's father
        P(351, MALE, 1395, 308, None, "Valois", alive=False),  # his younger brother
        P(353, MALE, 1420, 351, None, "Valois"),  # the cousin on the father's side
        P(360, MALE, 1415, 350, 340, "Valois", alive=False),  # the late King, childless
    )


QUEENS_SON_ROYAL = {300, 310, 320, 330, 340, 360}


def test_a7_a_queen_regnants_son_climbs_through_her_not_his_royal_blooded_father() -> None:
    """Issue 16, item 5. The rulebook: "on the occasions where there is no obvious candidate for the
    throne, it is necessary to search wider for the successor (making use of the parents' names and Year
    of Birth information on the Character Sheets)"; BloodLine: "line is followed backward to the eldest
    sibling of the monarch, and then downward from that relation". Both parents of the late King are of
    the royal blood; the search goes back up the way the crown came, through his mother who held it, to
    her father King 330 and his line: the late Queen's nephew (1425) inherits, not the cousin on the
    father's side (1420), who comes only once the search has climbed to the first King."""
    fam = queens_son_family()
    index = FamilyIndex(fam)
    assert index.blood_parent(360, QUEENS_SON_ROYAL) == 340  # the father 350 is of the blood too
    assert index.blood_parent(340, QUEENS_SON_ROYAL) == 330
    assert heir_of(fam, 360, royal=QUEENS_SON_ROYAL) == 343
    assert succession_order(fam, 360, royal=QUEENS_SON_ROYAL) == [343, 353]


def test_a7_the_climb_goes_to_the_parent_nearer_in_blood_to_the_last_holders() -> None:
    """Issue 16, item 5: when neither parent held the crown, the search climbs through the one nearer in
    blood to the last holders: a mother who is the daughter of the last King before the late one, rather
    than a father descended four generations back from the first King."""
    fam = queens_son_family()
    fam[370] = P(370, MALE, 1440, 350, 341, "Valois", alive=False)  # a late King, son of 350 and 341
    royal = {300, 310, 320, 330, 370}
    index = FamilyIndex(fam)
    assert index.blood_parent(370, royal) == 341
    assert heir_of(fam, 370, royal=royal) == 343  # his half-brother through the mother, not the cousin 353


def test_a7_descended_from_the_same_last_holder_the_climb_takes_the_nearer_parent_then_the_father() -> None:
    """Issue 16, item 5: both parents descend from the same (last) King: the climb goes through the one
    fewer generations below him, and through the father when they stand at the same distance (as in
    ``test_a7_blood_parent_prefers_the_father_when_both_are_of_the_blood``)."""
    fam = people(
        P(1, MALE, 1300, name="A", alive=False),  # the only King
        P(2, MALE, 1325, 1, None, "A", alive=False),
        P(3, FEMALE, 1327, 1, None, "A", alive=False),
        P(4, MALE, 1350, 2, None, "A", alive=False),
        P(5, MALE, 1322, name="B", alive=False),
        P(6, FEMALE, 1352, 5, 3, "B", alive=False),  # granddaughter of the King
        P(8, MALE, 1375, 4, None, "A", alive=False),  # great-grandson of the King
        P(9, MALE, 1395, 8, 6, "A", alive=False),  # the late King
        P(10, FEMALE, 1355, 5, 3, "B"),  # 6's sister
        P(11, MALE, 1378, 4, None, "A"),  # 8's brother
    )
    index = FamilyIndex(fam)
    assert index.blood_parent(9, {1, 9}) == 6  # two generations below the King against three
    assert heir_of(fam, 9, royal={1, 9}) == 10  # 6's sister, before 8's brother 11
    fam[8].father, fam[11].father = 2, 2  # 8 a grandson of the King too: the same distance, the father
    assert FamilyIndex(fam).blood_parent(9, {1, 9}) == 8
    assert heir_of(fam, 9, royal={1, 9}) == 11
