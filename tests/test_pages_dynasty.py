"""Issue 7: the dynasty page's tree (clickable SVG, open to members) and "what if X dies", the
observer's view of the pages, and the dashboard's shared heir lookup."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from campaign.models import ChronicleEntry, Membership, Role
from campaign.permissions import SYSTEM_ACTOR
from contracts.models import Contract
from dynasties.models import Character, Dynasty, Posting, Reign, Status
from dynasties.selectors import label, regnal_labels
from dynasties.services import campaign_create
from dynasties.services.succession_view import heirs_now, succession_line, succession_what_if
from operations.simulation import simulate
from rules.dice import RandomSource
from tests.factories import crown, empty_house, person, shows_number, wed


@pytest.fixture
def olga(campaign):
    """An observer of the campaign."""
    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def secrets(campaign):
    """England's hoard of 4321 and a treaty of England and Spain."""
    england = _house(campaign, "England")
    Posting.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        payer=None,
        payee=england,
        amount=4321,
        kind="other",
        reason="Hidden hoard",
    )
    treaty = Contract.objects.create(
        campaign=campaign,
        kind="treaty",
        title="Secret Treaty of Windsor",
        start_year=campaign.current_year,
        state="in_force",
        signed_year=campaign.current_year,
        in_force_year=campaign.current_year,
    )
    treaty.parties.set([england, _house(campaign, "Spain")])
    return treaty


def _house(campaign, crown_name):
    return Dynasty.objects.get(campaign=campaign, crown=crown_name)


def _dynasty_url(campaign, house):
    return reverse("pages:dynasty", args=[campaign.slug, house.pk])


def _tree_url(campaign, kind="dynasty", **query):
    base = reverse("trees:tree", args=[campaign.slug, kind])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def _what_if_section(html):
    return html.split('id="what-if"', 1)[1]


# --- the tree: who may see it, and its links -----------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status"),
    [("gm", 200), ("alice", 200), ("bob", 200), ("olga", 200), ("outsider", 404), (None, 302)],
)
def test_trees_are_open_to_members_only(client, campaign, olga, who, status, request):
    if who:
        client.force_login(request.getfixturevalue(who))
    england = _house(campaign, "England")
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    urls = [
        _tree_url(campaign, dynasty=england.pk, links="pages"),
        _tree_url(campaign, "campaign"),
        _tree_url(campaign, "succession", crown="England"),
        _tree_url(campaign, "descendants", focus=king.pk, links="pages"),
        _tree_url(campaign, dynasty=england.pk, format="png"),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == status, (who, url)
        if status == 302:
            assert "/login/" in response.url
    assert client.get(_tree_url(campaign, dynasty=england.pk, format="pdf")).status_code == status


def test_the_tree_links_every_person_to_his_character_page(client, campaign, bob):
    client.force_login(bob)
    england = _house(campaign, "England")
    svg = client.get(_tree_url(campaign, dynasty=england.pk, links="pages")).content.decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    members = list(Character.objects.filter(campaign=campaign, controlled_by=england))
    assert len(members) >= 3
    label(campaign, members)  # as the tree names them: the King's numeral
    for c in members:
        link = reverse("pages:character", args=[campaign.slug, c.pk])
        assert f'xlink:href="{link}"' in svg, c
        assert escape(c.display_name) in svg
    assert 'target="_top"' in svg  # clicked inside the dynasty page's <object>, the whole page follows
    assert "/admin/" not in svg


def test_link_patterns_for_gm_and_players(client, campaign, gm, alice):
    england = _house(campaign, "England")
    client.force_login(alice)  # a player never gets admin links, even when he asks
    assert "/admin/" not in client.get(_tree_url(campaign, dynasty=england.pk, links="admin")).content.decode()
    assert "/admin/" not in client.get(_tree_url(campaign, dynasty=england.pk)).content.decode()
    client.force_login(gm)  # the GM: the admin by default (the admin's own tree links), pages on request
    assert "/admin/dynasties/character/" in client.get(_tree_url(campaign, dynasty=england.pk)).content.decode()
    pages = client.get(_tree_url(campaign, dynasty=england.pk, links="pages")).content.decode()
    assert "/admin/" not in pages and f"/c/{campaign.slug}/character/" in pages
    assert client.get(_tree_url(campaign, dynasty=england.pk, links="nowhere")).status_code == 400
    assert client.get(_tree_url(campaign, dynasty=england.pk, format="pdf", paper="A5")).status_code == 400
    assert client.get(_tree_url(campaign, dynasty="x")).status_code == 400
    assert client.post(_tree_url(campaign, dynasty=england.pk)).status_code == 405


def test_the_tree_shows_nothing_secret(client, campaign, bob, secrets):
    client.force_login(bob)
    for url in (_tree_url(campaign, "campaign", links="pages"), _tree_url(campaign, dynasty=_house(campaign, "England").pk)):
        svg = client.get(url).content.decode()
        assert not shows_number(svg, 4321) and "Hidden hoard" not in svg and "Secret Treaty" not in svg


# --- the dynasty page: the tree embedded ----------------------------------------------------------


def test_the_dynasty_page_embeds_the_clickable_tree(client, campaign, alice):
    client.force_login(alice)
    france = _house(campaign, "France")
    html = client.get(_dynasty_url(campaign, france)).content.decode()
    svg = _tree_url(campaign, dynasty=france.pk, links="pages").replace("&", "&amp;")
    assert f'<object class="tree" data="{svg}" type="image/svg+xml"' in html
    assert 'class="tree-frame"' in html  # a box that scrolls on a phone
    assert f'href="{svg}" target="_blank"' in html  # full size
    assert f'href="{svg}&amp;format=png"' in html and f'href="{svg}&amp;format=pdf"' in html
    assert "regnal-campaigns.css" in html
    # the embedded URL answers with an SVG the page may frame (same origin)
    response = client.get(_tree_url(campaign, dynasty=france.pk, links="pages"))
    assert response["Content-Type"] == "image/svg+xml" and response["X-Frame-Options"] == "SAMEORIGIN"


def test_the_character_page_links_its_trees(client, campaign, bob):
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    client.force_login(bob)
    html = client.get(reverse("pages:character", args=[campaign.slug, king.pk])).content.decode()
    assert _tree_url(campaign, "ancestors", focus=king.pk, links="pages").replace("&", "&amp;") in html
    assert _tree_url(campaign, "descendants", focus=king.pk, links="pages").replace("&", "&amp;") in html


# --- what if X dies -------------------------------------------------------------------------------


@pytest.fixture
def house(campaign):
    """Testland: King Henry (50), Queen Maud; sons Edward (25, with a son Little, 3) and John (20);
    Henry's brother Walter (45)."""
    house = empty_house(campaign)
    grandfather = person(campaign, house, "Old", "M", 1220)
    Character.objects.filter(pk=grandfather.pk).update(status=Status.DEAD, death_year=1290)
    henry = person(campaign, house, "Henry", "M", 1250, father=grandfather, order=1)
    walter = person(campaign, house, "Walter", "M", 1255, father=grandfather, order=2)
    maud = person(campaign, house, "Maud", "F", 1255, dynastic_name="Other")
    wed(campaign, henry, maud, 1274)
    edward = person(campaign, house, "Edward", "M", 1275, father=henry, mother=maud, order=1)
    john = person(campaign, house, "John", "M", 1280, father=henry, mother=maud, order=2)
    bess = person(campaign, None, "Bess", "F", 1276, dynastic_name="Other")
    wed(campaign, edward, bess, 1295)
    little = person(campaign, house, "Little", "M", 1297, father=edward, mother=bess)
    crown(campaign, henry, "Testland", 1290)
    return {
        "house": house,
        "henry": henry,
        "walter": walter,
        "edward": edward,
        "john": john,
        "little": little,
        "old": grandfather,
    }


def test_what_if_the_king_dies_matches_the_service(client, campaign, house, olga):
    henry = house["henry"]
    client.force_login(olga)  # read-only: an observer may ask too
    url = _dynasty_url(campaign, house["house"])
    page = client.get(url).content.decode()
    assert f'href="?dies={henry.pk}#what-if"' in page  # "what if the King dies?"
    assert f'href="?dies={house["edward"].pk}#what-if"' in page  # and each heir
    response = client.get(url, {"dies": henry.pk})
    assert response.status_code == 200
    expected = succession_what_if(campaign=campaign, crown="Testland", dies=[henry.pk], limit=10)
    assert response.context["what_if"] == expected
    assert expected.monarch_dies and expected.successor.character == house["edward"]
    html = _what_if_section(response.content.decode())
    assert "If Henry Testhouse died in 1300" in html
    for note in expected.notes:
        assert escape(note) in html
    names = [e.character.display_name for e in expected.entries]
    assert [n for n in re.findall(r'character/\d+/">([^<]+)</a>', html)] == names
    for e in expected.entries:
        assert escape(e.reason) in html
        assert not e.pass_over.allowed  # without rule C the rightful heirs may not be passed over: why
        assert escape(f"May not be passed over: {e.pass_over.text}") in html
    assert Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True).holder == henry  # nothing written
    assert Character.objects.get(pk=henry.pk).status == Status.ALIVE


def test_what_if_under_rule_c_shows_the_cost_of_passing_over(client, campaign, house, bob):
    campaign.optional_rules = {**campaign.optional_rules, "disputed_succession": True}
    campaign.save()
    client.force_login(bob)
    response = client.get(_dynasty_url(campaign, house["house"]), {"dies": house["henry"].pk})
    expected = succession_what_if(campaign=campaign, crown="Testland", dies=[house["henry"].pk], limit=10)
    assert response.context["what_if"] == expected
    html = _what_if_section(response.content.decode())
    for e in expected.entries:
        assert e.pass_over.allowed and e.pass_over.costs
        assert escape(f"May be passed over ({e.pass_over.text}), at this cost:") in html
        for cost in e.pass_over.costs:
            assert f"<li>{escape(cost)}</li>" in html


def test_what_if_several_die_the_line_closes_up(client, campaign, house, alice):
    client.force_login(alice)
    url = _dynasty_url(campaign, house["house"])
    dies = [house["edward"].pk, house["little"].pk]
    response = client.get(url + f"?dies={dies[0]}&dies={dies[1]}")
    expected = succession_what_if(campaign=campaign, crown="Testland", dies=dies, limit=10)
    assert response.context["what_if"] == expected
    assert expected.heir.character == house["john"] and not expected.monarch_dies
    html = _what_if_section(response.content.decode())
    assert "If Edward Testhouse and Little Testhouse died in 1300" in html
    assert f'href="?dies={dies[0]}&amp;dies={dies[1]}&amp;dies={house["john"].pk}#what-if"' in html  # "and if John too?"
    # the form carries the chosen dead and offers the others
    assert f'<input type="hidden" name="dies" value="{dies[0]}">' in html
    options = re.findall(r'<option value="(\d+)"', html)
    assert str(house["john"].pk) in options and str(dies[0]) not in options
    assert str(house["old"].pk) not in options  # the dead are not offered


@pytest.mark.parametrize(
    ("dies", "message"),
    [("abc", "Choose a character from the list."), ("dead", "is already dead"), ("999999", "There is no character #999999")],
)
def test_what_if_refuses_bad_choices_next_to_the_form(client, campaign, house, gm, dies, message):
    client.force_login(gm)
    value = house["old"].pk if dies == "dead" else dies
    response = client.get(_dynasty_url(campaign, house["house"]), {"dies": value})
    assert response.status_code == 400
    html = _what_if_section(response.content.decode())
    assert 'id="what-if-error"' in html and escape(message) in html
    assert response.context["what_if"] is None


def test_a_house_without_a_crown_has_no_line_and_no_what_if(client, gm):
    c = campaign_create(name="Three", players=3, source=RandomSource(4), by=gm)
    aristo = Dynasty.objects.get(campaign=c, kind="aristocratic")
    client.force_login(gm)
    response = client.get(_dynasty_url(c, aristo), {"dies": "1"})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="what-if"' not in html and "Line of succession" not in html and 'class="tree"' in html


# --- observers -------------------------------------------------------------------------------------


def test_an_observer_sees_the_public_pages_and_nothing_secret(client, campaign, olga, secrets):
    ChronicleEntry.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step="announcements",
        kind="announcements",
        text="All is well.",
        audience="public",
    )
    england = _house(campaign, "England")
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    client.force_login(olga)
    pages = [
        reverse("pages:dashboard", args=[campaign.slug]),
        reverse("pages:dynasty", args=[campaign.slug, england.pk]),
        reverse("pages:character", args=[campaign.slug, king.pk]),
        reverse("pages:rolls", args=[campaign.slug]),
        reverse("pages:dynasty", args=[campaign.slug, england.pk]) + f"?dies={king.pk}",
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert not shows_number(html, 4321) and "Hidden hoard" not in html and "Secret Treaty" not in html, url
        assert "Exchequer:" not in html
        # no action anywhere: the only POST form is the header's log-out
        assert re.findall(r'<form[^>]*method="post"', html) == ['<form method="post"'], url
        assert "action_key" not in html and "Printable sheets" not in html, url
    dashboard = client.get(pages[0]).content.decode()
    assert regnal_labels(campaign, [king])[king.pk] in dashboard and "secret" in dashboard  # "Edward I Plantagenet"
    assert reverse("print:announcements", args=[campaign.slug, campaign.current_year]) in dashboard
    assert client.get(reverse("print:announcements", args=[campaign.slug, campaign.current_year])).status_code == 200
    assert client.get(_tree_url(campaign, dynasty=england.pk, links="pages")).status_code == 200
    assert client.get(reverse("print:dynasty_sheets", args=[england.pk])).status_code in (403, 404)


def test_the_dashboard_names_the_players(client, campaign, olga):
    client.force_login(olga)
    html = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    assert '<span class="muted played-by">(alice)</span>' in html and '<span class="muted played-by">(bob)</span>' in html
    assert "olga" not in html.split("<main", 1)[1]  # observers are not players


def test_a_players_own_house_comes_first_on_the_dashboard(client, campaign, gm, bob):
    client.force_login(bob)  # France
    html = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    assert _cell(html, "Crown") == "France"
    client.force_login(gm)  # round the table
    html = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    assert _cell(html, "Crown") == "England" and _cell(html, "Crown", 1) == "France"


def _cell(html: str, label: str, row: int = 0) -> str:
    """The text of the dashboard cell of this column in the given row (tags stripped)."""
    cells = re.findall(rf'<td data-label="{label}">(.*?)</td>', html, re.S)
    return re.sub(r"<[^>]+>", "", cells[row]).strip()


def test_the_dashboard_tells_the_monarch_from_his_namesake_heir(client, campaign, alice):
    """Edward Plantagenet and his son Edward Plantagenet differ by the monarch's regnal number
    and the heir's birth year (issue 19), and by the monarch's age and the heir's relation to him."""
    king = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    heir = Character.objects.get(pk=heirs_now(campaign=campaign)["England"].character.pk)
    Character.objects.filter(pk=heir.pk).update(given_name=king.given_name)
    heir.refresh_from_db()
    assert heir.display_name == king.display_name and heir.father_id == king.pk
    client.force_login(alice)
    html = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    row = [d.crown for d in Dynasty.objects.filter(campaign=campaign).order_by("seat", "name")].index("England")
    assert _cell(html, "Monarch", row) == f"{king.given_name} I {king.dynastic_name} ({1300 - king.birth_year})"
    kin = "son" if heir.sex == "M" else "daughter"
    assert _cell(html, "Heir", row) == f"{heir.display_name} (b. {heir.birth_year}) ({kin}, {1300 - heir.birth_year})"


def test_players_still_see_their_own_exchequer_and_contracts(client, campaign, alice, bob, secrets):
    england = _house(campaign, "England")
    for user, sees in ((alice, True), (bob, False)):
        client.force_login(user)
        for url in (reverse("pages:dashboard", args=[campaign.slug]), _dynasty_url(campaign, england)):
            html = client.get(url).content.decode()
            assert ("4321" in html) is sees and ("Secret Treaty of Windsor" in html) is sees, (user, url)


# --- the dashboard's heirs: one lookup for every crown ----------------------------------------------


def test_heirs_now_matches_the_line_of_each_crown(campaign):
    simulate(campaign, turns=8, source=RandomSource(21), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    heirs = heirs_now(campaign=campaign)
    crowns = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("crown", flat=True))
    assert set(heirs) == crowns and len(crowns) == 5
    for name, heir in heirs.items():
        line = succession_line(campaign=campaign, crown=name, limit=1)
        if line.heir is None:
            assert heir is None
            continue
        assert heir.character == line.heir.character
        assert (heir.position, heir.age, heir.minor, heir.kin, heir.reason) == (
            line.heir.position,
            line.heir.age,
            line.heir.minor,
            line.heir.kin,
            line.heir.reason,
        )
        assert heir.pass_over is None


def test_heirs_now_with_no_heir_and_no_reign(campaign, house):
    Character.objects.filter(pk__in=[house[k].pk for k in ("edward", "john", "little", "walter")]).update(
        status=Status.DEAD, death_year=1299
    )
    assert heirs_now(campaign=campaign)["Testland"] is None
    monarchs = campaign_create(name="Thrones", ruleset="eu-monarchs", players=3)
    assert heirs_now(campaign=monarchs) == {}  # every throne starts vacant


def _dashboard_queries(client, campaign):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(reverse("pages:dashboard", args=[campaign.slug]))
    assert response.status_code == 200
    return len(ctx.captured_queries), response


@pytest.mark.parametrize(("ruleset", "few", "many"), [("eu-bloodline", 5, 7), ("blood-royale", 3, 5)])
def test_dashboard_queries_do_not_grow_with_the_crowns(client, gm, ruleset, few, many):
    client.force_login(gm)
    small = campaign_create(name="Few", ruleset=ruleset, players=few, source=RandomSource(1), by=gm)
    large = campaign_create(name="Many", ruleset=ruleset, players=many, source=RandomSource(1), by=gm)
    n_small, _ = _dashboard_queries(client, small)
    n_large, response = _dashboard_queries(client, large)
    assert n_small == n_large, (n_small, n_large)
    for row in response.context["rows"]:  # and the heirs are right
        if row["reign"]:
            expected = succession_line(campaign=large, crown=row["dynasty"].crown, limit=1).heir
            assert (row["heir"].character if row["heir"] else None) == (expected.character if expected else None)


@pytest.mark.parametrize("who", ["gm", "alice", "olga"])
def test_dynasty_page_and_what_if_queries_do_not_grow(client, campaign, olga, who, request):
    client.force_login(request.getfixturevalue(who))
    england = _house(campaign, "England")

    def counts():
        king = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
        out = []
        for query in ("", f"?dies={king.pk}"):
            with CaptureQueriesContext(connection) as ctx:
                assert client.get(_dynasty_url(campaign, england) + query).status_code == 200
            out.append(len(ctx.captured_queries))
        out.append(_dashboard_queries(client, campaign)[0])
        return out

    small = counts()
    simulate(campaign, turns=6, source=RandomSource(9), by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    grown = counts()
    assert Character.objects.filter(campaign=campaign).count() > 30
    assert grown == small, (small, grown)
