"""The characters list reads the family links of a page in two written-out SELECTs
(``api.views.families.family_of``): by the page's id range when the ids are close (a page of the
list), by the ids themselves when they are spread (a filtered list). Both give exactly the
children and matches the ORM gives, in birth and arranged order."""

from __future__ import annotations

from collections import defaultdict

import pytest

from api.views.families import family_of
from dynasties.models import Character, Dynasty, Marriage
from tests.api.conftest import url
from tests.factories import person, wed


def expected(ids):
    children, matches = defaultdict(list), defaultdict(list)
    for kid in Character.objects.order_by("birth_year", "birth_order", "pk"):
        for parent in {kid.father_id, kid.mother_id} & set(ids):
            children[parent].append(kid.pk)
    for m in Marriage.objects.order_by("arranged_year", "pk"):
        if m.husband_id in ids:
            matches[m.husband_id].append((m.pk, m.wife_id, m.arranged_year, m.wedding_year, m.ended_year))
        if m.wife_id in ids:
            matches[m.wife_id].append((m.pk, m.husband_id, m.arranged_year, m.wedding_year, m.ended_year))
    return dict(children), dict(matches)


@pytest.fixture
def generations(campaign):
    house = Dynasty.objects.get(campaign=campaign, crown="England")
    couples = []
    for n in range(6):
        father = person(campaign, house, f"Father{n}", "M", 1260 + n)
        mother = person(campaign, house, f"Mother{n}", "F", 1262 + n)
        wed(campaign, father, mother, 1280 + n)
        couples.append((father, mother))
    for n, (father, mother) in enumerate(couples):
        for k in range(3):  # born out of order, to check the birth order
            person(campaign, house, f"Child{n}{k}", "MF"[k % 2], 1300 - k, father=father, mother=mother)
    first = person(campaign, house, "First", "F", 1258)  # Father0's first, ended match
    Marriage.objects.create(
        campaign=campaign,
        husband=couples[0][0],
        wife=first,
        arranged_year=1276,
        wedding_year=1276,
        ended_year=1279,
        end_cause="she died",
    )
    return campaign


@pytest.mark.django_db
def test_close_and_spread_ids_give_the_orms_family(generations):
    everyone = list(Character.objects.order_by("pk").values_list("pk", flat=True))
    for ids in (everyone, everyone[::5], everyone[-40:], [everyone[0], everyone[-1]]):
        family = family_of(ids)
        children, matches = expected(set(ids))
        assert {k: v for k, v in family.children.items() if v} == children
        assert {k: v for k, v in family.matches.items() if v} == matches
    assert family_of([]).children == {}


@pytest.mark.django_db
def test_a_filtered_page_links_the_same_families(generations, gm, client_for):
    client = client_for(gm)
    whole = {row["id"]: row for row in client.get(url(generations, "characters"), {"page_size": 100}).json()["results"]}
    fathers = client.get(url(generations, "characters"), {"name": "Father", "page_size": 100}).json()["results"]
    assert len(fathers) == 6
    for row in fathers:
        assert row == whole[row["id"]]
        assert len(row["children"]) == 3 and row["spouses"]
