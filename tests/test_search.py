"""Search (issue 20): one box on every campaign page finds people, houses, crowns, contracts,
chronicle lines and notes by name, ignoring case and accents, through the policy: a player never finds what
he may not see."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaign.models import Audience, Campaign, ChronicleEntry, Membership, Role
from contracts.services import contract_draft
from dynasties import treasury
from dynasties.models import Crown, Dynasty, Reign
from dynasties.services.notes import note_write
from operations.search import PER_KIND, PER_PAGE, fold, pattern, search
from tests.factories import person

FRANCE_SPAIN = "Treaty of Quillembourg"  # France and Spain's draft: England may not find it
ENGLAND_SPAIN = "Pact of Quillanvale"  # England and Spain's draft: England finds it
GM_LINE = "The GM notes that Quillon plots in secret."
PUBLIC_LINE = "Quillaume the herald proclaims the tournament."
FRANCE_PURSE = "Quillet purse for France"  # a ledger reason: its line is France's


def _url(campaign: Campaign, q: str = "", **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"q": q, **params}.items())
    return reverse("pages:search", args=[campaign.slug]) + "?" + query


def _house(campaign: Campaign, crown_name: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown_name)


@pytest.fixture
def planted(campaign: Campaign, gm):
    """A public line, a GM-only line, France's purse (a private line), and two drafts."""
    england, france, spain = (_house(campaign, c) for c in ("England", "France", "Spain"))
    year = campaign.current_year
    ChronicleEntry.objects.create(
        campaign=campaign, year=year, step="births", kind="event", text=PUBLIC_LINE, audience=Audience.PUBLIC
    )
    ChronicleEntry.objects.create(campaign=campaign, year=year, step="births", kind="gm_note", text=GM_LINE, audience=Audience.GM)
    treasury.treasury_transfer(campaign=campaign, payer=None, payee=france, amount=11, reason=FRANCE_PURSE, kind="other", by=gm)
    contract_draft(campaign=campaign, kind="agreement", title=FRANCE_SPAIN, parties=[france, spain], by=gm)
    contract_draft(campaign=campaign, kind="agreement", title=ENGLAND_SPAIN, parties=[england, spain], by=gm)
    return campaign


def _found(campaign: Campaign, user, q: str, kind: str = "") -> dict[str, list[str]]:
    """What each kind found, as the texts a reader sees."""
    results = search(campaign, user, q, kind=kind)
    assert not results.problem, results.problem
    text = {
        "people": lambda r: r.display_name,
        "houses": lambda r: r.name,
        "crowns": lambda r: r.name,
        "contracts": lambda r: r.title,
        "chronicle": lambda r: r.text,
        "notes": lambda r: r.text,
    }
    return {g.kind: [text[g.kind](r) for r in g.rows] for g in results.groups}


# --- matching ---------------------------------------------------------------------------------------


def test_folding_drops_case_and_accents():
    assert fold("Łódź") == "lodz"
    assert fold("LÉONORE d'Aragón") == "leonore d'aragon"
    assert fold("Søren") == "soren"


@pytest.mark.parametrize(
    ("query", "text", "hit"),
    [
        ("leon", "León de Castilla", True),
        ("LÉON", "leonore", True),
        ("aragon", "ARAGÓN", True),
        ("lodz", "Łódź", True),
        ("edward  of", "Edward of York", True),
        ("a.b", "axb", False),  # a dot is a dot, not any letter
        ("(x", "(x) marks", True),
        ("leon", "Lion", False),
    ],
)
def test_the_pattern_ignores_case_and_accents_on_either_side(query, text, hit):
    assert bool(re.search(pattern(query), text, re.IGNORECASE)) is hit


# --- finding each kind ------------------------------------------------------------------------------


def test_the_gm_finds_every_kind(planted, gm):
    england = _house(planted, "England")
    person(planted, england, "Quillan", "M", planted.current_year - 20)
    found = _found(planted, gm, "quill")
    assert found["people"] == [f"Quillan {england.name}"]
    assert found["contracts"] == [ENGLAND_SPAIN, FRANCE_SPAIN]  # the same year: the later draft first
    assert found["houses"] == found["crowns"] == []
    assert PUBLIC_LINE in found["chronicle"] and GM_LINE in found["chronicle"]
    assert any(FRANCE_PURSE in line for line in found["chronicle"])  # the ledger's reason, told in its line
    assert england.name in _found(planted, gm, england.name.upper())["houses"]
    assert england.name in _found(planted, gm, "england")["houses"]  # a house by its crown too
    assert _found(planted, gm, "englan")["crowns"] == ["England"]


def test_people_are_found_whatever_the_accents(planted, gm):
    england = _house(planted, "England")
    person(planted, england, "Léonore", "F", planted.current_year - 10)
    person(planted, england, "Leonor", "F", planted.current_year - 12)
    assert sorted(_found(planted, gm, "LEONOR")["people"]) == sorted([f"Léonore {england.name}", f"Leonor {england.name}"])
    assert _found(planted, gm, "léonore")["people"] == [f"Léonore {england.name}"]
    assert _found(planted, gm, f"leonore {england.name}")["people"] == [f"Léonore {england.name}"]


def test_a_monarch_is_found_by_his_regnal_number(planted, gm):
    england = _house(planted, "England")
    king = person(planted, england, "Quentin", "M", planted.current_year - 40)
    other = person(planted, england, "Quentin", "M", planted.current_year - 30, order=2)
    Reign.objects.create(campaign=planted, crown="Quentinland", holder=king, start_year=planted.current_year, numeral=3)
    people = _found(planted, gm, "Quentin III")["people"]
    assert people == [f"Quentin III {england.name}"]
    assert len(_found(planted, gm, "quentin")["people"]) == 2
    assert other.pk not in [r.pk for r in search(planted, gm, "Quentin III").groups[0].rows]


def test_chronicle_lines_come_newest_first(planted, gm):
    for year in (1301, 1330, 1310):
        ChronicleEntry.objects.create(
            campaign=planted, year=year, step="births", kind="event", text=f"Quorra sails in {year}.", audience=Audience.PUBLIC
        )
    assert _found(planted, gm, "quorra")["chronicle"] == [
        "Quorra sails in 1330.",
        "Quorra sails in 1310.",
        "Quorra sails in 1301.",
    ]


# --- the policy -------------------------------------------------------------------------------------


def test_a_player_finds_only_what_he_may_see(planted, alice):
    found = _found(planted, alice, "quill")
    assert found["contracts"] == [ENGLAND_SPAIN]  # not France and Spain's draft
    assert PUBLIC_LINE in found["chronicle"]
    assert GM_LINE not in found["chronicle"]
    assert not any(FRANCE_PURSE in line for line in found["chronicle"])  # France's ledger reason
    assert _found(planted, alice, "Quillembourg") == {k: [] for k in found}


def test_france_finds_its_own_purse_and_treaty(planted, bob):
    found = _found(planted, bob, "quill")
    assert found["contracts"] == [FRANCE_SPAIN]
    assert any(FRANCE_PURSE in line for line in found["chronicle"])
    assert GM_LINE not in found["chronicle"]


def test_an_observer_finds_no_contract_and_no_private_line(planted, db):
    from django.contrib.auth import get_user_model

    watcher = get_user_model().objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=planted, user=watcher, role=Role.OBSERVER)
    found = _found(planted, watcher, "quill")
    assert found["contracts"] == []
    assert found["chronicle"] == [PUBLIC_LINE]


def test_the_page_shows_a_player_nothing_secret(client, planted, alice):
    client.force_login(alice)
    response = client.get(_url(planted, "quill"))
    assert response.status_code == 200
    html = response.content.decode()
    assert ENGLAND_SPAIN in html and PUBLIC_LINE in html
    for secret in (FRANCE_SPAIN, GM_LINE, FRANCE_PURSE):
        assert secret not in html


def test_an_outsider_gets_404_as_for_no_campaign(client, planted, outsider):
    client.force_login(outsider)
    assert client.get(_url(planted, "quill")).status_code == 404
    assert client.get(reverse("pages:search", args=["no-such-campaign"]) + "?q=quill").status_code == 404


def test_the_anonymous_visitor_is_sent_to_log_in(client, planted):
    response = client.get(_url(planted, "quill"))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_a_post_is_refused(client, planted, gm):
    client.force_login(gm)
    assert client.post(_url(planted, "quill")).status_code == 405


# --- the page ---------------------------------------------------------------------------------------


def test_the_results_link_to_each_record(client, planted, gm):
    england = _house(planted, "England")
    quillan = person(planted, england, "Quillan", "M", planted.current_year - 20)
    client.force_login(gm)
    html = client.get(_url(planted, "quill")).content.decode()
    assert reverse("pages:character", args=[planted.slug, quillan.pk]) in html
    line = ChronicleEntry.objects.get(campaign=planted, text=PUBLIC_LINE)
    assert f"?year={line.year}#line-{line.pk}" in html
    for heading in ("People", "Contracts", "Chronicle"):
        assert f"<h2>{heading} " in html
    assert '<span class="tag">private</span>' in html  # the GM's line and France's purse are marked
    html = client.get(_url(planted, "england")).content.decode()
    assert reverse("pages:dynasty", args=[planted.slug, england.pk]) in html
    crown_row = Crown.objects.get(campaign=planted, name="England")
    assert crown_row.name in html


def test_an_empty_or_short_query_says_what_to_type(client, planted, gm, django_assert_max_num_queries):
    client.force_login(gm)
    html = client.get(_url(planted)).content.decode()
    assert "Type a name to search for" in html
    html = client.get(_url(planted, "q")).content.decode()
    assert "Type at least 2 letters" in html
    html = client.get(_url(planted, "é ")).content.decode()
    assert "Type at least 2 letters" in html
    with django_assert_max_num_queries(0):
        assert search(planted, gm, " x ").problem


def test_control_characters_are_spaces(planted, gm):
    """A NUL byte (PostgreSQL refuses it in a text: the API fuzzer sent one) or a tab is no part of a name."""
    short = search(planted, gm, "Z\x00")
    assert short.query == "Z" and short.problem
    found = search(planted, gm, "Fran\x00\tçoise")
    assert found.query == "Fran çoise" and not found.problem


def test_a_query_that_finds_nothing_says_so(client, planted, gm):
    client.force_login(gm)
    html = client.get(_url(planted, "zzyzx")).content.decode()
    assert "Nothing matches “zzyzx”" in html


def test_every_campaign_page_has_the_search_box(client, planted, alice):
    client.force_login(alice)
    for name in ("pages:dashboard", "pages:contracts", "pages:turn"):
        html = client.get(reverse(name, args=[planted.slug])).content.decode()
        assert f'action="{reverse("pages:search", args=[planted.slug])}"' in html, name
        assert 'name="q"' in html
    html = client.get(_url(planted, "quill")).content.decode()
    assert html.count('name="q"') == 1 and 'value="quill"' in html  # the page's own box, keeping the query


# --- bounds -----------------------------------------------------------------------------------------


def _many_lines(campaign: Campaign, n: int) -> None:
    ChronicleEntry.objects.bulk_create(
        ChronicleEntry(
            campaign=campaign, year=1300 + i, step="births", kind="event", text=f"Quintus line {i}", audience=Audience.PUBLIC
        )
        for i in range(n)
    )


def test_each_kind_is_bounded_with_a_more_link(client, planted, gm):
    _many_lines(planted, PER_KIND + 5)
    client.force_login(gm)
    results = search(planted, gm, "quintus")
    chronicle = next(g for g in results.groups if g.kind == "chronicle")
    assert len(chronicle.rows) == PER_KIND and chronicle.more
    html = client.get(_url(planted, "quintus")).content.decode()
    assert "kind=chronicle" in html and "More chronicle matching" in html
    alone = search(planted, gm, "quintus", kind="chronicle")
    assert [g.kind for g in alone.groups] == ["chronicle"]
    assert len(alone.groups[0].rows) == PER_KIND + 5 and not alone.groups[0].more


def test_the_kind_alone_pages_on(client, planted, gm):
    _many_lines(planted, PER_PAGE + 3)
    client.force_login(gm)
    first = search(planted, gm, "quintus", kind="chronicle")
    assert len(first.groups[0].rows) == PER_PAGE and first.groups[0].more
    second = search(planted, gm, "quintus", kind="chronicle", page=2)
    assert len(second.groups[0].rows) == 3 and not second.groups[0].more
    assert {r.pk for r in first.groups[0].rows}.isdisjoint(r.pk for r in second.groups[0].rows)
    html = client.get(_url(planted, "quintus", kind="chronicle")).content.decode()
    assert "page=2" in html and "Every kind" in html


def test_the_queries_do_not_grow_with_the_results(planted, gm, alice, django_assert_max_num_queries):
    england, spain = _house(planted, "England"), _house(planted, "Spain")
    for i in range(30):
        person(planted, england, f"Quintus{i}", "M", 1280 + i)
    for i in range(3):
        contract_draft(campaign=planted, kind="agreement", title=f"Quintus pact {i}", parties=[england, spain], by=gm)
    _many_lines(planted, 30)
    for user in (gm, alice):
        # per kind: the viewer's seat and the search; the contracts' parties; the regnal labels (2)
        with django_assert_max_num_queries(6 * 2 + 1 + 2):
            results = search(planted, user, "quintus")
        found = {g.kind: len(g.rows) for g in results.groups}
        assert found["people"] == found["chronicle"] == PER_KIND and found["contracts"] == 3


def test_odd_pages_and_kinds_are_read_as_the_first(client, planted, gm):
    client.force_login(gm)
    for params in ({"page": "x"}, {"page": "99999999999999999999"}, {"kind": "nosuch"}):
        response = client.get(_url(planted, "quill", **params))
        assert response.status_code == 200, params


# --- notes ------------------------------------------------------------------------------------------

PUBLIC_NOTE = "Quiller the bard sings of every house."
GM_NOTE = "Quilp is the true heir (the GM's secret)."
FRANCE_NOTE = "Quillet: France's plan, for its player."


@pytest.fixture
def noted(campaign: Campaign, gm):
    france = _house(campaign, "France")
    heir = person(campaign, _house(campaign, "England"), "Quilp", "M", campaign.current_year - 20)
    note_write(campaign, audience="public", text=PUBLIC_NOTE, by=gm)
    note_write(campaign, audience="gm", text=GM_NOTE, character=heir, by=gm)
    note_write(campaign, audience="player", text=FRANCE_NOTE, dynasty=france, by=gm)
    return campaign


def test_notes_are_found_by_who_may_read_them(noted, gm, alice, bob):
    assert sorted(_found(noted, gm, "quil")["notes"]) == sorted([PUBLIC_NOTE, GM_NOTE, FRANCE_NOTE])
    assert _found(noted, alice, "quil")["notes"] == [PUBLIC_NOTE]  # not the GM's, not France's
    assert sorted(_found(noted, bob, "quil")["notes"]) == sorted([PUBLIC_NOTE, FRANCE_NOTE])


def test_a_note_links_to_its_subject(client, noted, gm, alice):
    client.force_login(gm)
    html = client.get(_url(noted, "quil")).content.decode()
    heir = noted.characters.get(given_name="Quilp")
    assert reverse("pages:character", args=[noted.slug, heir.pk]) + "#notes" in html
    assert reverse("pages:dynasty", args=[noted.slug, _house(noted, "France").pk]) + "#notes" in html
    assert reverse("pages:dashboard", args=[noted.slug]) + "#notes" in html
    client.force_login(alice)
    html = client.get(_url(noted, "quil")).content.decode()
    assert PUBLIC_NOTE in html and GM_NOTE not in html and FRANCE_NOTE not in html
