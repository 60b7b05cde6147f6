"""Regnal numbers (issue 19): the nth monarch of a crown bearing a name is "<name> <n>", counted from
the GM's pre-campaign numerals, written on the reign at the crowning; living namesakes told apart."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Step
from campaign.undo import new_action_key, step_action, undo_step
from dynasties.models import Crown, Reign
from rules.regnal import Crowned, Named, labels, numeral, regnal_name, roman
from tests.factories import at_step, crown, empty_house, person
from tests.test_bloodline_succession import kill


# the pure rules -----------------------------------------------------------------------------
def test_roman_numerals():
    assert [roman(n) for n in (1, 2, 3, 4, 9, 14, 40, 1999)] == ["I", "II", "III", "IV", "IX", "XIV", "XL", "MCMXCIX"]
    with pytest.raises(ValueError, match="1 or more"):
        roman(0)


def test_the_count_starts_from_the_last_pre_campaign_monarch_of_the_name():
    assert numeral("Edward", "M", 10, [], {"Edward": 2}) == 3
    assert numeral("Henry", "M", 10, [], {"Edward": 2}) == 1
    earlier = [Crowned(1, "Edward", "M", 3), Crowned(2, "Henry", "M", 1), Crowned(3, "Edward", "M", 4)]
    assert numeral("Edward", "M", 10, earlier, {"Edward": 2}) == 5
    # an earlier reign without a numeral (made before numerals were kept) counts as the next of its name
    assert numeral("Edward", "M", 10, [Crowned(1, "Edward", "M"), Crowned(3, "Edward", "M")]) == 3


def test_a_queen_counts_among_her_names_queens_and_a_returning_monarch_keeps_his_numeral():
    earlier = [Crowned(1, "Jean", "M", 1), Crowned(2, "Jean", "M", 2)]
    assert numeral("Jean", "F", 10, earlier) == 1  # Jeanne-like names: the kings do not count for a queen
    earlier.append(Crowned(3, "Henry", "M", 6))
    assert numeral("Henry", "M", 3, earlier) == 6  # Henry VI restored is Henry VI again
    assert numeral("Henry", "M", 4, earlier) == 7


def test_regnal_names_show_each_crowns_numeral_once():
    assert regnal_name("Edward", [3], "Plantagenet") == "Edward III Plantagenet"
    assert regnal_name("James", [6, 1], "Stuart") == "James VI and I Stuart"
    assert regnal_name("John", [1, 1], "Valois") == "John I Valois"
    assert regnal_name("Jean", [], "Valois") == "Jean Valois"


def test_living_namesakes_are_told_apart_by_numeral_or_birth_year():
    shown = labels(
        [
            Named(1, "Jean", "Valois", 1280, numerals=(2,)),
            Named(2, "Jean", "Valois", 1301),
            Named(3, "Jean", "Valois", 1305),
            Named(4, "Jean", "Valois", 1250, living=False),
            Named(5, "Louis", "Valois", 1301),
            Named(6, "Jean", "Capet", 1301),
        ]
    )
    assert shown == {
        1: "Jean II Valois",
        2: "Jean Valois (b. 1301)",
        3: "Jean Valois (b. 1305)",
        4: "Jean Valois",  # the dead are not namesakes
        5: "Louis Valois",
        6: "Jean Capet",  # another house's Jean
    }
    twins = labels([Named(1, "Jean", "Valois", 1301, 1), Named(2, "Jean", "Valois", 1301, 2)])
    assert twins == {1: "Jean Valois (b. 1301, 1st born)", 2: "Jean Valois (b. 1301, 2nd born)"}


# crowned in play ----------------------------------------------------------------------------
def anjou(campaign, numerals=None):
    house = empty_house(campaign, "Testhouse", "Testland")
    Crown.objects.create(campaign=campaign, name="Testland", home_dynasty=house, controlled_by=house, numerals=numerals or {})
    return house


def open_reign(campaign, name="Testland") -> Reign:
    return Reign.objects.get(campaign=campaign, crown=name, end_year__isnull=True)


@pytest.mark.django_db
def test_the_first_campaign_edward_after_two_pre_campaign_edwards_is_edward_iii(campaign):
    house = anjou(campaign, {"Edward": 2})
    old = person(campaign, house, "Henry", "M", 1240)
    edward = person(campaign, house, "Edward", "M", 1262, father=old)
    grandson = person(campaign, house, "Edward", "M", 1285, father=edward)
    reign = crown(campaign, old, "Testland", 1270)
    Reign.objects.filter(pk=reign.pk).update(numeral=3)  # Henry III
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, old.pk)
    assert (open_reign(campaign).holder, open_reign(campaign).numeral) == (edward, 3)
    line = ChronicleEntry.objects.get(campaign=campaign, kind="succession", data__crown="Testland").text
    assert line.startswith("Edward III Testhouse succeeds Henry III Testhouse as King of Testland")
    at_step(campaign, Step.SURVIVAL, year=campaign.current_year + 5)
    kill(campaign, edward.pk)
    assert (open_reign(campaign).holder, open_reign(campaign).numeral) == (grandson, 4)
    # the numerals written at the crownings do not change when later kings come
    assert list(Reign.objects.filter(crown="Testland").order_by("start_year", "pk").values_list("numeral", flat=True)) == [
        3,
        3,
        4,
    ]


@pytest.mark.django_db
def test_a_queen_regnant_counts_among_the_queens_of_her_name(campaign):
    house = anjou(campaign, {"Mary": 1})
    old = person(campaign, house, "Edward", "M", 1240)
    mary = person(campaign, house, "Mary", "F", 1275, father=old)
    crown(campaign, old, "Testland", 1270)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, old.pk)
    reign = open_reign(campaign)
    assert (reign.holder, reign.numeral) == (mary, 2)
    line = ChronicleEntry.objects.get(campaign=campaign, kind="succession", data__crown="Testland").text
    assert line.startswith("Mary II Testhouse succeeds Edward Testhouse as Queen of Testland")


@pytest.mark.django_db
def test_a_regent_is_not_numbered(campaign):
    house = anjou(campaign)
    old = person(campaign, house, "Lonely", "M", 1250)
    boy = person(campaign, house, "Boy", "M", 1289, father=old)
    crown(campaign, old, "Testland", 1280)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, old.pk)
    reign = open_reign(campaign)
    assert (reign.holder, reign.numeral) == (boy, 1) and reign.regent is not None
    assert not Reign.objects.filter(campaign=campaign, holder=reign.regent).exists()


@pytest.mark.django_db
def test_a_monarch_of_two_crowns_has_each_crowns_numeral(campaign):
    from tests.test_two_crowns import uncle_of_testland

    _france, _testhouse, king, _grandfather, uncle = uncle_of_testland(campaign)
    Crown.objects.create(campaign=campaign, name="Testland", numerals={king.given_name: 4})
    crown(campaign, uncle, "Testland", 1260)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, uncle.pk)
    assert open_reign(campaign, "France").holder == open_reign(campaign, "Testland").holder == king
    assert open_reign(campaign, "France").numeral == 1  # crowned at the set-up, the first of his name
    assert open_reign(campaign, "Testland").numeral == 5
    from dynasties.selectors import regnal_labels

    assert regnal_labels(campaign, [king])[king.pk] == f"{king.given_name} I and V {king.dynastic_name}"


@pytest.mark.django_db
def test_undoing_a_succession_takes_the_numeral_back(campaign, gm):
    house = anjou(campaign, {"Edward": 2})
    old = person(campaign, house, "Henry", "M", 1240)
    edward = person(campaign, house, "Edward", "M", 1262, father=old)
    crown(campaign, old, "Testland", 1270)
    at_step(campaign, Step.SURVIVAL)

    def succession(c):
        kill(c, old.pk)

    step_action(campaign=campaign, key=new_action_key(), label="Survival", action=succession, by=gm)
    assert open_reign(campaign).numeral == 3
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert open_reign(campaign).holder == old
    assert not Reign.objects.filter(campaign=campaign, holder=edward).exists()
    # the GM says there was a third Edward before the campaign: the next crowning counts from him
    Crown.objects.filter(campaign=campaign, name="Testland").update(numerals={"Edward": 3})
    step_action(campaign=campaign, key=new_action_key(), label="Survival", action=succession, by=gm)
    assert open_reign(campaign).numeral == 4


# the export ---------------------------------------------------------------------------------
@pytest.mark.django_db
def test_the_export_carries_the_numerals_and_the_import_reads_them_back(campaign):
    from operations.exchange.export import campaign_export
    from operations.exchange.write import campaign_import

    house = anjou(campaign, {"Edward": 2})
    old = person(campaign, house, "Henry", "M", 1240)
    person(campaign, house, "Edward", "M", 1262, father=old)
    crown(campaign, old, "Testland", 1270)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, old.pk)
    data = campaign_export(campaign)
    [testland] = [c for c in data["crowns"] if c["name"] == "Testland"]
    assert testland["numerals"] == {"Edward": 2}
    assert [r["numeral"] for r in data["reigns"] if r["crown"] == "Testland"] == [None, 3]
    copy = campaign_import(data, slug="copy")
    assert Crown.objects.get(campaign=copy, name="Testland").numerals == {"Edward": 2}
    reign = Reign.objects.get(campaign=copy, crown="Testland", end_year__isnull=True)
    assert (reign.holder.given_name, reign.numeral) == ("Edward", 3)
    # a document older than numerals: its reigns get the numerals they would have had
    for c in data["crowns"]:
        del c["numerals"]
    for r in data["reigns"]:
        del r["numeral"]
    older = campaign_import(data, slug="older")
    testland = Reign.objects.filter(campaign=older, crown="Testland").order_by("start_year", "pk")
    assert [(r.holder.given_name, r.numeral) for r in testland] == [("Henry", 1), ("Edward", 1)]


# on the pages -------------------------------------------------------------------------------
def _edward_iii(campaign):
    """Testland: Henry III dies; Edward III reigns, his living son and a cousin are both Edward."""
    house = anjou(campaign, {"Edward": 2})
    old = person(campaign, house, "Henry", "M", 1240)
    edward = person(campaign, house, "Edward", "M", 1262, father=old)
    son = person(campaign, house, "Edward", "M", 1285, father=edward)
    cousin = person(campaign, house, "Edward", "M", 1287, father=old)
    reign = crown(campaign, old, "Testland", 1270)
    Reign.objects.filter(pk=reign.pk).update(numeral=3)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, old.pk)
    return house, edward, son, cousin


@pytest.mark.django_db
def test_pages_show_the_numeral_and_tell_the_namesakes_apart(client, campaign, gm):
    from django.urls import reverse

    house, edward, _son, _cousin = _edward_iii(campaign)
    client.force_login(gm)
    page = client.get(reverse("pages:character", args=[campaign.slug, edward.pk])).content.decode()
    assert "<h1>Edward III Testhouse</h1>" in page
    assert "Reigned: Edward III Testhouse, King of Testland" in page
    assert "Edward Testhouse (b. 1285)" in page  # his son, in his children
    assert "Henry III Testhouse" in page  # his father
    page = client.get(reverse("pages:dynasty", args=[campaign.slug, house.pk])).content.decode()
    for name in ("Edward III Testhouse", "Edward Testhouse (b. 1285)", "Edward Testhouse (b. 1287)", "Henry III Testhouse"):
        assert name in page, name
    page = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    assert "Edward III Testhouse" in page and "Edward Testhouse (b. 1285)" in page  # the King and his heir


@pytest.mark.django_db
def test_the_tree_names_the_king_with_his_numeral_and_the_namesakes_with_their_births(campaign):
    from dynasties.trees.data import build_tree, load_rows

    house, edward, son, cousin = _edward_iii(campaign)
    tree = build_tree(load_rows(campaign), kind="dynasty", dynasty=house.pk)
    names = {pk: p.name for pk, p in tree.people.items()}
    assert names[edward.pk] == "Edward III Testhouse"
    assert names[son.pk] == "Edward Testhouse (b. 1285)"
    assert names[cousin.pk] == "Edward Testhouse (b. 1287)"


@pytest.mark.django_db
def test_the_sheet_names_the_king_with_his_numeral(campaign):
    from dynasties.printing import sheet_context, sheets_html

    _house, edward, son, _cousin = _edward_iii(campaign)
    assert sheet_context(edward)["name"] == "Edward III"
    assert sheet_context(son)["name"] == "Edward"  # the name box holds the Christian name
    html = sheets_html([edward, son])
    assert "<h1>Edward III Testhouse</h1>" in html and "<h1>Edward Testhouse</h1>" in html


@pytest.mark.django_db
def test_the_announcements_tell_the_succession_with_the_numerals(campaign):
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.services import announcements_make, marriages_finish

    _edward_iii(campaign)
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcement = announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    lines = announcement.data["sections"]["Successions and regencies"]
    assert any(line.startswith("Edward III Testhouse succeeds Henry III Testhouse as King of Testland") for line in lines)


@pytest.mark.django_db
def test_the_gm_sets_the_pre_campaign_numerals_in_the_admin_and_the_crown_is_counted_again(admin_client, campaign):
    from django.urls import reverse

    house, *_ = _edward_iii(campaign)
    record = Crown.objects.get(campaign=campaign, name="Testland")
    url = reverse("admin:dynasties_crown_change", args=[record.pk])
    form = {
        "campaign": campaign.pk,
        "name": "Testland",
        "home_dynasty": house.pk,
        "events-TOTAL_FORMS": 0,
        "events-INITIAL_FORMS": 0,
    }
    refused = admin_client.post(url, {**form, "numerals": "Edward two"})
    assert refused.status_code == 200 and "is not a name and a numeral" in refused.content.decode()
    done = admin_client.post(url, {**form, "numerals": "Edward 5, Henry 0"}, follow=True)
    assert "2 reigns renumbered" in done.content.decode()
    numbers = dict(Reign.objects.filter(campaign=campaign, crown="Testland").values_list("holder__given_name", "numeral"))
    assert numbers == {"Henry": 1, "Edward": 6}
    assert Crown.objects.get(pk=record.pk).numerals == {"Edward": 5, "Henry": 0}


def test_the_set_up_line_names_the_starting_king_with_his_numeral(campaign):
    reign = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    king = reign.holder
    line = ChronicleEntry.objects.filter(campaign=campaign, kind="setup", text__contains=f", born {king.birth_year} (King)")
    texts = [e.text for e in line]
    assert any(
        f"{king.given_name} {roman(reign.numeral)} {king.dynastic_name}, born {king.birth_year} (King)" in t for t in texts
    )
