"""Issue 7: the contracts pages. The list, a contract's page and its PDF, drafting with structured
clauses, signing, ending, breaches, BloodLine disputes and parleys with their votes, unpaid
payments settled; who may see and do what (GM / party player / other player / observer /
outsider); refusals shown next to the field with nothing written; a second submit done once; a
fixed number of queries whatever the number of contracts."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import ActionKey, ChronicleEntry, Membership, Role
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key
from contracts.models import (
    Breach,
    Contract,
    ContractPayment,
    ContractSignature,
    ContractState,
    Dispute,
    EndKind,
    Excommunication,
    Parley,
    PaymentStatus,
)
from contracts.services import (
    breach_record,
    contract_draft,
    contract_sign,
    contract_sign_party,
    dispute_majority,
    parley_run,
)
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, Posting, PostingKind, Renunciation

pytestmark = pytest.mark.django_db

TITLES = ("The Peace of Dover", "The Pact of Amiens", "The Treaty of the Rhine")


# helpers ---------------------------------------------------------------------------------------


def house(campaign, crown):
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def url(name, campaign, *args):
    return reverse(f"pages:{name}", args=[campaign.slug, *args])


def post(client, address, data=None, key=None):
    """A form as the page sends it: with its one-time action key."""
    return client.post(address, {"action_key": key or new_action_key(), **(data or {})})


def fund(campaign, dynasty, amount):
    treasury.post(campaign, payer=None, payee=dynasty, amount=amount, kind=PostingKind.OTHER, reason="test funds")


def draft(campaign, a, b, title, clauses=(), kind="agreement", **kw):
    return contract_draft(
        campaign=campaign,
        kind=kind,
        title=title,
        parties=[house(campaign, a).pk, house(campaign, b).pk],
        clauses=list(clauses),
        **{"by": SYSTEM_ACTOR, **kw},
    )


def pay(campaign, payer, payee, amount):
    return {
        "kind": "payment",
        "params": {"payer": house(campaign, payer).pk, "payee": house(campaign, payee).pk, "amount": amount},
    }


def bloodline(campaign):
    campaign.ruleset = "eu-bloodline"
    campaign.save()
    return campaign


def field_errors(html, name):
    """The error messages shown next to the field ``name``."""
    found = re.search(rf'<ul class="errorlist" id="id_{re.escape(name)}_error">(.*?)</ul>', html, re.S)
    return re.sub(r"<[^>]+>", " ", found.group(1)) if found else ""


def top_errors(html):
    return " ".join(re.findall(r'<ul class="errorlist nonfield">(.*?)</ul>', html, re.S))


def count_tab(html, label):
    return int(re.search(rf">{label} <span class=\"count\">(\d+)</span>", html).group(1))


@pytest.fixture
def olga(campaign):
    """An observer of the campaign."""
    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def deals(campaign):
    """Dover: England-Spain, a draft (Alice's, not Bob's). Amiens: England-France, in force (both).
    The Rhine: France-Germany, a draft (Bob's, not Alice's)."""
    dover = draft(
        campaign,
        "England",
        "Spain",
        TITLES[0],
        [pay(campaign, "England", "Spain", 10), {"kind": "escape", "params": {"condition": "Spain is attacked"}}],
    )
    amiens = draft(campaign, "England", "France", TITLES[1], [{"kind": "non_aggression"}])
    contract_sign(campaign=campaign, contract=amiens, by=SYSTEM_ACTOR)
    rhine = draft(campaign, "France", "Germany", TITLES[2], [{"kind": "safe_passage"}], kind="treaty")
    return {"dover": dover, "amiens": amiens, "rhine": rhine}


@pytest.fixture
def calais(campaign):
    """England-Spain in force, with England's payment unpaid and a breach by Spain."""
    pact = draft(campaign, "England", "Spain", "The Pact of Calais", [pay(campaign, "England", "Spain", 10)])
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    breach = breach_record(
        campaign=campaign, contract=pact, by_dynasty=house(campaign, "Spain"), text="raided Calais", by=SYSTEM_ACTOR
    )
    return pact, breach


# secrecy ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "sees", "drafts", "in_force"),
    [
        ("gm", {TITLES[0], TITLES[1], TITLES[2]}, 2, 1),
        ("alice", {TITLES[0], TITLES[1]}, 1, 1),
        ("bob", {TITLES[1], TITLES[2]}, 1, 1),
        ("olga", set(), 0, 0),
    ],
)
def test_the_list_shows_only_what_the_viewer_may_see_names_and_counts(
    client, campaign, deals, who, sees, drafts, in_force, request
):
    client.force_login(request.getfixturevalue(who))
    html = client.get(url("contracts", campaign)).content.decode()
    for title in TITLES:
        assert (title in html) is (title in sees), (who, title)
    assert count_tab(html, "All") == len(sees)
    assert count_tab(html, "Drafts") == drafts
    assert count_tab(html, "In force") == in_force
    drafts_only = client.get(url("contracts", campaign) + "?state=draft").content.decode()
    assert TITLES[1] not in drafts_only
    for title in (TITLES[0], TITLES[2]):
        assert (title in drafts_only) is (title in sees)


def test_outsiders_and_anonymous_get_no_contract_page(client, campaign, deals, outsider):
    dover = deals["dover"]
    pages = [
        url("contracts", campaign),
        url("contract", campaign, dover.pk),
        url("contract_pdf", campaign, dover.pk),
        url("contract_new", campaign),
        url("parley", campaign),
    ]
    for page in pages:
        assert client.get(page).status_code == 302  # to the login page
    client.force_login(outsider)
    for page in pages:
        assert client.get(page).status_code == 404, page


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("alice", 200), ("bob", 404), ("olga", 404), ("outsider", 404)])
def test_a_contract_and_its_pdf_are_seen_by_the_gm_and_its_parties_only(client, campaign, deals, olga, who, status, request):
    client.force_login(request.getfixturevalue(who))
    dover = deals["dover"]
    page = client.get(url("contract", campaign, dover.pk))
    assert page.status_code == status
    pdf = client.get(url("contract_pdf", campaign, dover.pk))
    assert pdf.status_code == status
    if status == 200:
        assert TITLES[0] in page.content.decode()
        assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
        assert url("contract_pdf", campaign, dover.pk) in page.content.decode()
    else:
        assert TITLES[0] not in page.content.decode()
    assert client.get(url("contract", campaign, 999999)).status_code == 404


def _posts(campaign, pact, breach):
    payment = pact.payments.get()
    return [
        (url("contract_sign", campaign, pact.pk), {"signed": "on"}),
        (url("contract_sign_party", campaign, pact.pk, house(campaign, "Spain").pk), {}),
        (url("contract_end", campaign, pact.pk), {"how": "consent", "consent": "on"}),
        (url("contract_end", campaign, pact.pk), {"how": "escape", "by_dynasty": house(campaign, "Spain").pk, "reason": "x"}),
        (url("breach_new", campaign, pact.pk), {"by_dynasty": house(campaign, "Spain").pk, "text": "again"}),
        (url("payment_settle", campaign, pact.pk, payment.pk), {}),
        (url("dispute", campaign, pact.pk, breach.pk), {}),
        (url("parley", campaign) + f"?breach={breach.pk}", {"breach": breach.pk}),
    ]


@pytest.mark.parametrize("who", ["bob", "olga", "outsider"])
def test_no_one_else_reaches_a_contracts_forms(client, campaign, calais, olga, who, request):
    pact, breach = calais
    client.force_login(request.getfixturevalue(who))
    for address, data in _posts(campaign, pact, breach):
        assert client.get(address).status_code in (404, 405), address
        assert post(client, address, data).status_code == 404, address
    assert not ActionKey.objects.exists()
    assert Breach.objects.count() == 1 and Contract.objects.get(pk=pact.pk).state == ContractState.IN_FORCE


def test_the_votes_are_the_gms_to_record(client, campaign, calais, alice):
    pact, breach = calais
    client.force_login(alice)
    for address in (
        url("dispute", campaign, pact.pk, breach.pk),
        url("parley", campaign) + f"?breach={breach.pk}",
        url("parley", campaign),
    ):
        assert client.get(address).status_code == 403
        assert post(client, address, {"breach": breach.pk}).status_code == 403
    assert not Parley.objects.exists() and not Dispute.objects.exists() and not ActionKey.objects.exists()


def test_observers_draft_nothing(client, campaign, olga):
    client.force_login(olga)
    assert client.get(url("contract_new", campaign)).status_code == 403
    assert post(client, url("contract_new", campaign), {"title": "x"}).status_code == 403
    assert "Draft a contract" not in client.get(url("contracts", campaign)).content.decode()


def test_a_player_settles_only_what_his_house_owes(client, campaign, bob, gm):
    pact = draft(campaign, "England", "France", "Tribute", [pay(campaign, "France", "England", 10)])
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    payment = pact.payments.get()
    client.force_login(bob)
    assert "Pay it now" in client.get(url("contract", campaign, pact.pk)).content.decode()
    response = post(client, url("payment_settle", campaign, pact.pk, payment.pk))
    assert response.status_code == 400
    assert "holds 0 Crowns and cannot pay 10" in response.content.decode()
    assert not ActionKey.objects.exists()
    fund(campaign, house(campaign, "France"), 15)
    assert post(client, url("payment_settle", campaign, pact.pk, payment.pk)).status_code == 302
    payment.refresh_from_db()
    assert payment.status == PaymentStatus.PAID and payment.posting.amount == 10
    other = draft(campaign, "England", "France", "Gift", [pay(campaign, "England", "France", 5)])
    contract_sign(campaign=campaign, contract=other, by=SYSTEM_ACTOR)
    owed = other.payments.get()
    assert post(client, url("payment_settle", campaign, other.pk, owed.pk)).status_code == 403  # England owes it


# query counts ----------------------------------------------------------------------------------


def _count(client, address):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(address).status_code == 200
    return len(queries)


def _busy(campaign, n, tag):
    """A treaty with ``n`` unpaid payments and ``n`` breaches, half ruled by dispute, half by parley."""
    pact = draft(
        campaign, "England", "France", f"Busy {tag}", [pay(campaign, "France", "England", 1) for _ in range(n)], kind="agreement"
    )
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    england, france = house(campaign, "England"), house(campaign, "France")
    clauses = list(pact.clauses.all())
    for i in range(n):
        breach = breach_record(
            campaign=campaign, contract=pact, by_dynasty=france, clause=clauses[i], text=f"breach {i}", by=SYSTEM_ACTOR
        )
        if i % 2:
            dispute_majority(
                campaign=campaign, breach=breach, votes={house(campaign, "Germany").pk: {clauses[i].pk: True}}, by=SYSTEM_ACTOR
            )
        else:
            parley_run(
                campaign=campaign,
                breach=breach,
                votes=[
                    {"dynasty": england.pk, "stature": 1, "choice": "against"},
                    {"dynasty": france.pk, "stature": 3, "choice": "against"},
                ],
                by=SYSTEM_ACTOR,
            )
    return pact


@pytest.mark.parametrize("who", ["gm", "alice"])
def test_pages_run_a_fixed_number_of_queries(client, campaign, who, request):
    bloodline(campaign)
    small = _busy(campaign, 2, "small")
    open_small = breach_record(
        campaign=campaign, contract=small, by_dynasty=house(campaign, "France"), text="open", by=SYSTEM_ACTOR
    )
    user = request.getfixturevalue(who)
    client.force_login(user)
    gm_pages = who == "gm"
    list_small = _count(client, url("contracts", campaign))
    detail_small = _count(client, url("contract", campaign, small.pk))
    new_small = _count(client, url("contract_new", campaign))
    if gm_pages:
        dispute_small = _count(client, url("dispute", campaign, small.pk, open_small.pk))
        parley_small = _count(client, url("parley", campaign) + f"?breach={open_small.pk}")
    large = _busy(campaign, 12, "large")
    open_large = breach_record(
        campaign=campaign, contract=large, by_dynasty=house(campaign, "France"), text="open", by=SYSTEM_ACTOR
    )
    for i in range(20):
        draft(campaign, "England", "France", f"Filler {i}", [{"kind": "non_aggression"}, pay(campaign, "England", "France", 2)])
    assert _count(client, url("contracts", campaign)) == list_small
    assert _count(client, url("contract", campaign, large.pk)) == detail_small
    assert _count(client, url("contract_new", campaign)) == new_small
    if gm_pages:
        assert _count(client, url("dispute", campaign, large.pk, open_large.pk)) == dispute_small
        assert _count(client, url("parley", campaign) + f"?breach={open_large.pk}") == parley_small
    html = client.get(url("contract", campaign, large.pk)).content.decode()
    assert html.count("Unpaid") == 12 and html.count("breach ") >= 12


@pytest.mark.parametrize("who", ["gm", "alice"])
def test_a_drafts_page_and_the_list_run_a_fixed_number_of_queries_whatever_the_signatures(client, campaign, who, request):
    client.force_login(request.getfixturevalue(who))
    small = draft(campaign, "England", "France", "Small draft")
    list_small = _count(client, url("contracts", campaign))
    detail_small = _count(client, url("contract", campaign, small.pk))
    crowns = ["England", "France", "Germany", "Italy", "Spain"]
    large = contract_draft(
        campaign=campaign, kind="treaty", title="Large draft", parties=[house(campaign, c).pk for c in crowns], by=SYSTEM_ACTOR
    )
    for crown in crowns[1:]:
        gm = request.getfixturevalue("gm")  # the GM records the other parties' signatures
        contract_sign_party(campaign=campaign, contract=large, dynasty=house(campaign, crown), by=gm)
    for i in range(6):
        other = draft(campaign, "England", "France", f"Signed {i}")
        contract_sign_party(campaign=campaign, contract=other, dynasty=house(campaign, "France"), by=SYSTEM_ACTOR)
    assert _count(client, url("contract", campaign, large.pk)) == detail_small
    assert _count(client, url("contracts", campaign)) == list_small
    html = client.get(url("contract", campaign, large.pk)).content.decode()
    assert html.count("✓ Signed in 1300") == 4 and "Sign for Plantagenet" in html


# drafting --------------------------------------------------------------------------------------


def _draft_form(campaign, parties, rows=(), **head):
    data = {
        "kind": "agreement",
        "title": "The Peace of Dover",
        "parties": [house(campaign, p).pk for p in parties],
        "start_year": campaign.current_year,
        "term_years": "",
        "text": "",
        "marriage": "",
        "rows": len(rows),
        "op": "draft",
    }
    data.update(head)
    for i, (kind, params) in enumerate(rows):
        data[f"c{i}-kind"] = kind
        for key, value in params.items():
            data[f"c{i}-{key}"] = value
    return data


def test_a_player_drafts_a_contract_with_its_clauses(client, campaign, alice):
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    client.force_login(alice)
    page = client.get(url("contract_new", campaign)).content.decode()
    assert re.search(rf'<input[^>]*value="{england.pk}"[^>]*checked', page)  # his own house is ticked for him
    data = _draft_form(
        campaign,
        ["England", "Spain"],
        [
            ("payment", {"payer": england.pk, "payee": spain.pk, "amount": 25, "text": "On signing."}),
            ("recurring_payment", {"payer": spain.pk, "payee": england.pk, "amount": 5, "from_year": 1302, "turns": ""}),
            ("military_support", {"by": england.pk, "exclusions": "not against France\n\nnot at sea"}),
        ],
        text="Sealed at Dover.",
    )
    response = post(client, url("contract_new", campaign), data)
    contract = Contract.objects.get(title="The Peace of Dover")
    assert response.status_code == 302 and response["Location"] == url("contract", campaign, contract.pk)
    assert contract.state == ContractState.DRAFT and contract.text == "Sealed at Dover."
    assert sorted(contract.parties.values_list("pk", flat=True)) == sorted([england.pk, spain.pk])
    clauses = [(c.position, c.kind, c.params, c.text) for c in contract.clauses.order_by("position")]
    assert clauses == [
        (1, "payment", {"payer": england.pk, "payee": spain.pk, "amount": 25}, "On signing."),
        (2, "recurring_payment", {"payer": spain.pk, "payee": england.pk, "amount": 5, "from_year": 1302, "turns": None}, ""),
        (3, "military_support", {"by": england.pk, "exclusions": ["not against France", "not at sea"]}, ""),
    ]
    html = client.get(response["Location"]).content.decode()
    assert "is drafted" in html and "The house of Plantagenet pays the house of de Silva 25 Crowns." in html
    assert "in war, except: not against France and not at sea." in html


def test_a_bad_term_is_shown_next_to_its_field_and_nothing_is_written(client, campaign, alice):
    england, spain, france = house(campaign, "England"), house(campaign, "Spain"), house(campaign, "France")
    client.force_login(alice)
    data = _draft_form(
        campaign,
        ["England", "Spain"],
        [
            ("payment", {"payer": england.pk, "payee": spain.pk, "amount": 0}),
            ("cession", {"province": "Calais", "from": france.pk, "to": england.pk}),
            ("recurring_payment", {"payer": england.pk, "payee": spain.pk, "amount": 3, "from_year": 1300, "turns": "x"}),
        ],
    )
    response = post(client, url("contract_new", campaign), data)
    html = response.content.decode()
    assert response.status_code == 400
    assert "Nothing was drafted" in html
    assert "The amount is a whole number of Crowns, at least 1." in field_errors(html, "c0-amount")
    assert "Anjou is not a party" in field_errors(html, "c1-from")
    assert "A whole number of turns" in field_errors(html, "c2-turns")
    assert 'value="Calais"' in html  # what was typed is kept
    assert not Contract.objects.exists() and not ActionKey.objects.exists()


def test_a_player_drafts_only_contracts_his_house_is_party_to(client, campaign, alice, gm):
    client.force_login(alice)
    response = post(client, url("contract_new", campaign), _draft_form(campaign, ["France", "Spain"]))
    assert response.status_code == 400
    assert "You draft only contracts your house is party to" in field_errors(response.content.decode(), "parties")
    assert not Contract.objects.exists()
    client.force_login(gm)
    assert post(client, url("contract_new", campaign), _draft_form(campaign, ["France", "Spain"])).status_code == 302
    assert Contract.objects.get().title == "The Peace of Dover"


def test_the_services_refusals_land_next_to_the_field_the_clause_or_on_top(client, campaign, gm):
    client.force_login(gm)
    john = Character.objects.get(campaign=campaign, given_name="John", dynastic_name="Plantagenet")
    mary = Character.objects.get(campaign=campaign, given_name="Mary", dynastic_name="Hapsburg")
    match = Marriage.objects.create(campaign=campaign, husband=john, wife=mary, arranged_year=1300)
    # the service names the field: a marriage contract has no fixed term
    response = post(
        client,
        url("contract_new", campaign),
        _draft_form(campaign, ["England", "Germany"], kind="marriage", marriage=match.pk, term_years=5),
    )
    assert response.status_code == 400
    assert "A marriage contract lasts while the marriage lasts" in field_errors(response.content.decode(), "term_years")
    # the service numbers the clause: John has already renounced France
    Renunciation.objects.create(campaign=campaign, character=john, crown="France", year=1300)
    response = post(
        client,
        url("contract_new", campaign),
        _draft_form(
            campaign, ["England", "France"], [("non_aggression", {}), ("renunciation", {"character": john.pk, "crown": "France"})]
        ),
    )
    html = response.content.decode()
    assert response.status_code == 400
    clause_two = html[html.index('id="clause-2"') :]
    assert "John Plantagenet has already renounced the crown of France" in top_errors(clause_two)
    # neither: a dowry belongs in a marriage contract
    response = post(
        client,
        url("contract_new", campaign),
        _draft_form(
            campaign,
            ["England", "France"],
            [("dowry", {"payer": house(campaign, "England").pk, "payee": house(campaign, "France").pk, "amount": 100})],
        ),
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "belongs in a marriage contract" in html[: html.index('<h2 id="clauses-title">Clauses</h2>')]
    assert not Contract.objects.exists() and not ActionKey.objects.exists()


def test_clauses_are_added_and_removed_without_drafting(client, campaign, alice):
    client.force_login(alice)
    data = _draft_form(campaign, ["England", "Spain"], [("non_aggression", {})], title="Half typed", op="add", add_kind="escape")
    response = post(client, url("contract_new", campaign), data)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Clause 1: Non-aggression" in html and "Clause 2: Escape clause" in html
    assert 'value="Half typed"' in html and "errorlist" not in html  # nothing checked yet
    assert 'name="rows" value="2"' in html
    data = _draft_form(campaign, ["England", "Spain"], [("non_aggression", {}), ("escape", {"condition": "war"})], op="remove-0")
    html = post(client, url("contract_new", campaign), data).content.decode()
    assert "Clause 1: Escape clause" in html and "Non-aggression</legend>" not in html and 'value="war"' in html
    assert not Contract.objects.exists() and not ActionKey.objects.exists()


def test_the_marriages_page_link_drafts_the_terms_of_a_match(client, campaign, alice):
    john = Character.objects.get(campaign=campaign, given_name="John", dynastic_name="Plantagenet")
    mary = Character.objects.get(campaign=campaign, given_name="Mary", dynastic_name="Hapsburg")
    match = Marriage.objects.create(campaign=campaign, husband=john, wife=mary, arranged_year=1300)
    client.force_login(alice)
    html = client.get(url("contract_new", campaign) + f"?marriage={match.pk}").content.decode()
    assert re.search(rf'<option value="{match.pk}" selected>John Plantagenet &amp; Mary Hapsburg \(betrothed 1300\)', html)
    assert '<option value="marriage" selected>' in html
    for crown in ("England", "Germany"):
        assert re.search(rf'<input[^>]*value="{house(campaign, crown).pk}"[^>]*checked', html), crown
    data = _draft_form(
        campaign,
        ["England", "Germany"],
        [("children_raised_by", {"dynasty": house(campaign, "Germany").pk})],
        kind="marriage",
        marriage=match.pk,
        title="The Plantagenet-Hapsburg match",
    )
    assert post(client, url("contract_new", campaign), data).status_code == 302
    assert Contract.objects.get().marriage == match


def test_a_second_submit_of_the_draft_drafts_once(client, campaign, alice):
    client.force_login(alice)
    data = _draft_form(campaign, ["England", "Spain"], [("non_aggression", {})])
    key = new_action_key()
    first = post(client, url("contract_new", campaign), data, key=key)
    second = post(client, url("contract_new", campaign), data, key=key)
    assert first.status_code == second.status_code == 302
    assert Contract.objects.count() == 1
    assert "already done" in client.get(second["Location"]).content.decode()


# signing and ending ----------------------------------------------------------------------------


def sign_for(campaign, contract, crown):
    return url("contract_sign_party", campaign, contract.pk, house(campaign, crown).pk)


def test_a_player_signs_for_his_own_house_only(client, campaign, deals, alice):
    dover = deals["dover"]
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    client.force_login(alice)
    page = client.get(url("contract", campaign, dover.pk)).content.decode()
    assert "Each party signs for its own house" in page and "comes into force at once" in page
    assert "Sign for Plantagenet" in page and sign_for(campaign, dover, "England") in page
    assert "Sign for de Silva" not in page and sign_for(campaign, dover, "Spain") not in page
    assert "Every party signed at the table" not in page  # the GM's shortcut
    # not for Spain, and not every party at once: 403, nothing written
    assert post(client, sign_for(campaign, dover, "Spain")).status_code == 403
    assert post(client, url("contract_sign", campaign, dover.pk), {"signed": "on"}).status_code == 403
    assert not dover.signatures.exists() and not ActionKey.objects.exists()
    # his own side, twice with the same form: signed once
    key = new_action_key()
    first = post(client, sign_for(campaign, dover, "England"), key=key)
    assert first.status_code == 302 and first["Location"] == url("contract", campaign, dover.pk)
    assert post(client, sign_for(campaign, dover, "England"), key=key).status_code == 302
    [signature] = dover.signatures.all()
    assert (signature.contract_id, signature.dynasty, signature.year, signature.signed_by) == (dover.pk, england, 1300, alice)
    dover.refresh_from_db()
    assert dover.state == ContractState.DRAFT and not dover.payments.exists()
    page = client.get(url("contract", campaign, dover.pk)).content.decode()
    assert "Plantagenet has signed &#x27;The Peace of Dover&#x27;; waiting for de Silva." in page
    assert "✓ Signed in 1300" in page and "Not signed yet" in page and "Sign for Plantagenet" not in page
    # a fresh form for a house that has signed: the service's refusal on top of the signatures
    again = post(client, sign_for(campaign, dover, "England"))
    assert again.status_code == 400
    assert "The house of Plantagenet has already signed" in top_errors(again.content.decode())
    assert dover.signatures.count() == 1
    listing = client.get(url("contracts", campaign)).content.decode()
    assert "1 of 2 signed" in listing and "awaits your signature" not in listing
    assert spain.pk not in dover.signatures.values_list("dynasty", flat=True)


def test_the_contract_comes_into_force_only_once_both_players_have_signed(client, campaign, alice, bob, olga):
    calais = draft(campaign, "England", "France", "The Peace of Calais", [{"kind": "non_aggression"}])
    dover = Contract.objects.get(pk=draft(campaign, "England", "Spain", "Dover").pk)
    client.force_login(bob)
    listing = client.get(url("contracts", campaign)).content.decode()
    assert "0 of 2 signed" in listing and "awaits your signature" in listing
    assert post(client, sign_for(campaign, calais, "England")).status_code == 403  # Bob is France's
    assert post(client, sign_for(campaign, dover, "England")).status_code == 404  # not his contract
    assert post(client, sign_for(campaign, dover, "Spain")).status_code == 404
    assert post(client, sign_for(campaign, calais, "Spain")).status_code == 404  # not a party
    client.force_login(olga)
    assert post(client, sign_for(campaign, calais, "France")).status_code == 404
    assert not ContractSignature.objects.exists() and not ActionKey.objects.exists()

    client.force_login(alice)
    assert post(client, sign_for(campaign, calais, "England")).status_code == 302
    calais.refresh_from_db()
    assert calais.state == ContractState.DRAFT and calais.in_force_year is None
    client.force_login(bob)
    page = client.get(url("contract", campaign, calais.pk)).content.decode()
    assert "Sign for Anjou" in page and "Sign for Plantagenet" not in page
    response = post(client, sign_for(campaign, calais, "France"))
    assert response.status_code == 302
    calais.refresh_from_db()
    assert calais.state == ContractState.IN_FORCE and calais.in_force_year == calais.signed_year == 1300
    assert {s.signed_by for s in calais.signatures.all()} == {alice, bob}
    html = client.get(url("contract", campaign, calais.pk)).content.decode()
    assert "Anjou has signed, the last party to sign. &#x27;The Peace of Calais&#x27; is signed and in force from 1300." in html
    assert 'id="signatures"' not in html and "Sign for" not in html
    again = post(client, sign_for(campaign, calais, "France"))
    assert again.status_code == 400 and "only a draft is signed" in top_errors(again.content.decode())


def test_the_gm_signs_for_any_party_or_for_every_party_at_the_table(client, campaign, deals, alice, gm):
    dover = deals["dover"]
    rhine = deals["rhine"]
    client.force_login(gm)
    page = client.get(url("contract", campaign, dover.pk)).content.decode()
    assert "Sign for Plantagenet" in page and "Sign for de Silva" in page
    assert "Every party signed at the table" in page and "signatures of Plantagenet and de Silva at once" in page
    assert post(client, sign_for(campaign, rhine, "Germany")).status_code == 302  # for any party
    rhine.refresh_from_db()
    assert rhine.state == ContractState.DRAFT and [s.dynasty.crown for s in rhine.signatures.all()] == ["Germany"]
    page = client.get(url("contract", campaign, rhine.pk)).content.decode()
    assert "signatures of Anjou at once" in page  # only the houses still to sign
    # the shortcut: the box must be ticked
    refused = post(client, url("contract_sign", campaign, dover.pk))
    assert refused.status_code == 400
    assert "Tick this once every party has signed" in field_errors(refused.content.decode(), "signed")
    assert Contract.objects.get(pk=dover.pk).state == ContractState.DRAFT and not dover.signatures.exists()
    key = new_action_key()
    assert post(client, url("contract_sign", campaign, dover.pk), {"signed": "on"}, key=key).status_code == 302
    assert post(client, url("contract_sign", campaign, dover.pk), {"signed": "on"}, key=key).status_code == 302
    dover.refresh_from_db()
    assert dover.state == ContractState.IN_FORCE and dover.in_force_year == campaign.current_year
    assert sorted((s.dynasty.crown, s.signed_by) for s in dover.signatures.all()) == [("England", gm), ("Spain", gm)]
    assert ChronicleEntry.objects.filter(kind="contract_signed", data__contract=dover.pk).count() == 1  # once
    payment = dover.payments.get()
    assert payment.status == PaymentStatus.UNPAID  # England holds nothing: owed, not skipped
    html = client.get(url("contract", campaign, dover.pk)).content.decode()
    assert "is signed and in force from 1300" in html and "Unpaid" in html
    assert "Every party signed at the table" not in html
    again = post(client, url("contract_sign", campaign, dover.pk), {"signed": "on"})
    assert again.status_code == 400 and "only a draft is signed" in top_errors(again.content.decode())


def test_a_betrothals_contract_waits_for_the_wedding(client, campaign, alice, gm):
    john = Character.objects.get(campaign=campaign, given_name="John", dynastic_name="Plantagenet")
    mary = Character.objects.get(campaign=campaign, given_name="Mary", dynastic_name="Hapsburg")
    match = Marriage.objects.create(campaign=campaign, husband=john, wife=mary, arranged_year=1300)
    contract = draft(campaign, "England", "Germany", "The match", kind="marriage", marriage=match)
    client.force_login(alice)
    assert (
        "Once every party has signed, it binds from the wedding"
        in client.get(url("contract", campaign, contract.pk)).content.decode()
    )
    assert post(client, sign_for(campaign, contract, "England")).status_code == 302
    client.force_login(gm)
    assert post(client, sign_for(campaign, contract, "Germany")).status_code == 302
    contract.refresh_from_db()
    assert contract.state == ContractState.SIGNED
    assert "it binds from the wedding" in client.get(url("contract", campaign, contract.pk)).content.decode()


def test_ending_by_consent_and_by_the_escape_clause(client, campaign, deals, alice, gm):
    client.force_login(alice)
    amiens, dover = deals["amiens"], deals["dover"]
    refused = post(client, url("contract_end", campaign, amiens.pk), {"how": "consent"})
    assert refused.status_code == 400 and "Tick this once every party has agreed" in field_errors(
        refused.content.decode(), "consent"
    )
    response = post(client, url("contract_end", campaign, amiens.pk), {"how": "consent", "consent": "on", "reason": "peace"})
    assert response.status_code == 302
    amiens.refresh_from_db()
    assert amiens.state == ContractState.ENDED and amiens.end_kind == EndKind.CONSENT and "peace" in amiens.end_reason
    contract_sign(campaign=campaign, contract=dover, by=SYSTEM_ACTOR)
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    html = client.get(url("contract", campaign, dover.pk)).content.decode()
    assert "Condition: Spain is attacked" in html
    refused = post(client, url("contract_end", campaign, dover.pk), {"how": "escape", "by_dynasty": england.pk, "reason": ""})
    assert refused.status_code == 400 and "required" in field_errors(refused.content.decode(), "reason")
    # Alice invokes it for her own house only
    refused = post(client, url("contract_end", campaign, dover.pk), {"how": "escape", "by_dynasty": spain.pk, "reason": "x"})
    assert refused.status_code == 400 and Contract.objects.get(pk=dover.pk).state == ContractState.IN_FORCE
    client.force_login(gm)
    response = post(
        client, url("contract_end", campaign, dover.pk), {"how": "escape", "by_dynasty": spain.pk, "reason": "France marched"}
    )
    assert response.status_code == 302
    dover.refresh_from_db()
    assert dover.end_kind == EndKind.ESCAPE and "France marched" in dover.end_reason


def test_a_marriage_contract_in_force_offers_no_ending_and_the_service_refuses_it(client, campaign, gm):
    john = Character.objects.get(campaign=campaign, given_name="Edward", dynastic_name="Plantagenet")
    match = Marriage.objects.filter(campaign=campaign, husband=john).first()
    contract = contract_draft(
        campaign=campaign,
        kind="marriage",
        title="Old match",
        parties=[house(campaign, "England").pk, house(campaign, "Spain").pk],
        marriage=match,
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=campaign, contract=contract, by=SYSTEM_ACTOR)
    client.force_login(gm)
    assert "End by mutual consent" not in client.get(url("contract", campaign, contract.pk)).content.decode()
    response = post(client, url("contract_end", campaign, contract.pk), {"how": "consent", "consent": "on"})
    assert response.status_code == 400 and "cannot be broken" in response.content.decode()
    assert Contract.objects.get(pk=contract.pk).state == ContractState.IN_FORCE and not ActionKey.objects.exists()


# breaches, disputes, parleys -------------------------------------------------------------------


def test_a_breach_goes_to_a_bloodline_dispute_with_the_other_players_votes(client, campaign, alice, bob, gm):
    bloodline(campaign)
    england, france = house(campaign, "England"), house(campaign, "France")
    germany, italy, spain = house(campaign, "Germany"), house(campaign, "Italy"), house(campaign, "Spain")
    fund(campaign, france, 100)
    treaty = draft(
        campaign,
        "England",
        "France",
        "Peace of Gascony",
        [{"kind": "non_aggression"}, {"kind": "damages", "params": {"amount": 60}}],
        kind="treaty",
    )
    contract_sign(campaign=campaign, contract=treaty, by=SYSTEM_ACTOR)
    peace, damages = treaty.clauses.order_by("position")
    client.force_login(alice)
    # Alice raises breaches for England only
    refused = post(
        client, url("breach_new", campaign, treaty.pk), {"raised_by": france.pk, "by_dynasty": england.pk, "text": "x"}
    )
    assert refused.status_code == 400 and "valid choice" in field_errors(refused.content.decode(), "raised_by")
    refused = post(client, url("breach_new", campaign, treaty.pk), {"raised_by": england.pk, "by_dynasty": france.pk, "text": ""})
    assert refused.status_code == 400 and "required" in field_errors(refused.content.decode(), "text")
    assert not Breach.objects.exists()
    response = post(
        client,
        url("breach_new", campaign, treaty.pk),
        {"raised_by": england.pk, "by_dynasty": france.pk, "clause": peace.pk, "text": "invaded Gascony"},
    )
    assert response.status_code == 302
    breach = Breach.objects.get()
    assert (breach.raised_by, breach.by_dynasty, breach.clause) == (england, france, peace)
    html = client.get(url("contract", campaign, treaty.pk)).content.decode()
    assert "invaded Gascony" in html and "Not settled yet" in html
    assert url("dispute", campaign, treaty.pk, breach.pk) not in html  # the GM records the votes
    client.force_login(bob)
    assert client.get(url("dispute", campaign, treaty.pk, breach.pk)).status_code == 403

    client.force_login(gm)
    address = url("dispute", campaign, treaty.pk, breach.pk)
    assert address in client.get(url("contract", campaign, treaty.pk)).content.decode()
    page = client.get(address).content.decode()
    for voter in (germany, italy, spain):
        assert f'name="v{voter.pk}_{peace.pk}"' in page
    assert f'name="v{england.pk}_{peace.pk}"' not in page and f'name="v{france.pk}_{peace.pk}"' not in page
    votes = {
        f"v{germany.pk}_{peace.pk}": "uphold",
        f"v{germany.pk}_{damages.pk}": "uphold",
        f"v{italy.pk}_{peace.pk}": "uphold",
        f"v{italy.pk}_{damages.pk}": "uphold",
        f"v{spain.pk}_{peace.pk}": "reject",
    }
    key = new_action_key()
    assert post(client, address, votes, key=key).status_code == 302
    assert post(client, address, votes, key=key).status_code == 302  # the double click
    dispute = Dispute.objects.get()
    assert {t.clause_id: (t.upheld_by, t.rejected_by, t.upheld) for t in dispute.terms.all()} == {
        peace.pk: (2, 1, True),
        damages.pk: (2, 0, True),
    }
    posting = Posting.objects.get(kind=PostingKind.DAMAGES)
    assert (posting.payer, posting.payee, posting.amount) == (france, england, 60)
    html = client.get(url("contract", campaign, treaty.pk)).content.decode()
    assert "upheld" in html and "damages of 60 ducats posted" in html
    settled = client.get(address).content.decode()
    assert "This breach was settled" in settled and "Rule the dispute" not in settled


def test_a_dispute_is_bloodlines_the_page_says_so(client, campaign, calais, gm):
    pact, breach = calais
    client.force_login(gm)
    html = client.get(url("dispute", campaign, pact.pk, breach.pk)).content.decode()
    assert "BloodLine's way of settling disputes" in html and "Rule the dispute" not in html
    response = post(client, url("dispute", campaign, pact.pk, breach.pk), {})
    assert response.status_code == 400 and "put a broken binding agreement to a parley" in response.content.decode()
    assert not Dispute.objects.exists() and not ActionKey.objects.exists()


def test_a_broken_agreement_goes_to_a_parley_and_a_tie_excommunicates(client, campaign, alice, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    pact = draft(campaign, "England", "France", "The Pact of Calais", [{"kind": "non_aggression"}])
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    client.force_login(alice)
    post(client, url("breach_new", campaign, pact.pk), {"raised_by": england.pk, "by_dynasty": france.pk, "text": "took Calais"})
    breach = Breach.objects.get()
    client.force_login(gm)
    address = url("parley", campaign)
    assert f"{address}?breach={breach.pk}" in client.get(url("contract", campaign, pact.pk)).content.decode()
    page = client.get(f"{address}?breach={breach.pk}").content.decode()
    assert "excommunicate" in page and "took Calais" in page and 'name="kind"' not in page
    # the caller's votes are missing: the service refuses, nothing is written
    keys = ActionKey.objects.count()
    refused = post(client, address, {"breach": breach.pk, f"s{france.pk}": 5, f"c{france.pk}": "against", f"x{france.pk}": "on"})
    assert refused.status_code == 400
    assert "List the votes of the house of Plantagenet, who calls the parley" in top_errors(refused.content.decode())
    assert not Parley.objects.exists() and ActionKey.objects.count() == keys
    bad = post(client, address, {"breach": breach.pk, f"s{england.pk}": -1, f"c{england.pk}": "for"})
    assert bad.status_code == 400 and field_errors(bad.content.decode(), f"s{england.pk}")
    votes = {
        "breach": breach.pk,
        f"s{england.pk}": 5,
        f"c{england.pk}": "for",
        f"x{england.pk}": "on",
        f"s{france.pk}": 3,
        f"k{france.pk}": "",
        f"c{france.pk}": "against",
        f"x{france.pk}": "on",
        f"s{house(campaign, 'Italy').pk}": 2,
        f"k{house(campaign, 'Italy').pk}": 0,
        f"c{house(campaign, 'Italy').pk}": "against",
        f"x{house(campaign, 'Italy').pk}": "on",
    }
    key = new_action_key()
    response = post(client, address, votes, key=key)
    assert response.status_code == 302 and response["Location"] == url("contract", campaign, pact.pk)
    assert post(client, address, votes, key=key).status_code == 302
    parley = Parley.objects.get()
    assert (parley.votes_for, parley.votes_against, parley.carried) == (5, 5, True)
    assert Excommunication.objects.get(dynasty=france).breach == breach
    html = client.get(url("contract", campaign, pact.pk)).content.decode()
    assert "excommunicated (5 to 5, a tie)" in html and "Call a parley" not in html
    listing = client.get(url("contracts", campaign)).content.decode()
    assert 'Anjou</a> <span class="muted">since 1300' in listing


def test_other_parleys_and_a_readmission(client, campaign, gm, bob):
    england, france, italy = house(campaign, "England"), house(campaign, "France"), house(campaign, "Italy")
    client.force_login(gm)
    address = url("parley", campaign)
    missing = post(client, address, {"kind": "conquest", "caller": italy.pk, f"s{italy.pk}": 4, f"c{italy.pk}": "for"})
    assert missing.status_code == 400 and "Say what the parley decides" in field_errors(missing.content.decode(), "subject")
    response = post(
        client,
        address,
        {
            "kind": "conquest",
            "caller": italy.pk,
            "opponent": england.pk,
            "subject": "Savoy",
            f"s{italy.pk}": 4,
            f"c{italy.pk}": "for",
            f"x{italy.pk}": "on",
            f"s{england.pk}": 4,
            f"c{england.pk}": "against",
            f"x{england.pk}": "on",
        },
    )
    held = Parley.objects.get()
    assert response.status_code == 302 and response["Location"] == url("parley_detail", campaign, held.pk)
    assert held.outcome.startswith("the caller prevails") and held.obligation.obliged == england
    # readmission: refused while France is not excommunicated, then held
    readmit = {"kind": "readmission", "caller": france.pk, f"s{france.pk}": 4, f"c{france.pk}": "for", f"x{france.pk}": "on"}
    refused = post(client, address, readmit)
    assert refused.status_code == 400 and "is not excommunicated" in top_errors(refused.content.decode())
    pact = draft(campaign, "England", "France", "Pact", [{"kind": "non_aggression"}])
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    breach = breach_record(campaign=campaign, contract=pact, by_dynasty=france, text="x", by=SYSTEM_ACTOR)
    parley_run(campaign=campaign, breach=breach, votes=[{"dynasty": england.pk, "stature": 5, "choice": "for"}], by=SYSTEM_ACTOR)
    assert post(client, address, readmit).status_code == 302
    assert not Excommunication.objects.filter(dynasty=france, ended_year__isnull=True).exists()
    listing = client.get(url("contracts", campaign)).content.decode()
    assert "Savoy" in listing and "readmit the house of Anjou" in listing
    client.force_login(bob)  # parleys are public; the breach parley's contract is his too, but not listed among them
    listing = client.get(url("contracts", campaign)).content.decode()
    assert "Savoy" in listing and "excommunicate the house of Anjou" not in listing


def test_payments_unpaid_are_settled_from_the_contract_page(client, campaign, deals, alice):
    dover = deals["dover"]
    contract_sign(campaign=campaign, contract=dover, by=SYSTEM_ACTOR)
    payment = ContractPayment.objects.get(contract=dover)
    client.force_login(alice)
    fund(campaign, house(campaign, "England"), 30)
    key = new_action_key()
    address = url("payment_settle", campaign, dover.pk, payment.pk)
    assert post(client, address, key=key).status_code == 302
    assert post(client, address, key=key).status_code == 302
    payment.refresh_from_db()
    assert payment.status == PaymentStatus.PAID and payment.settled_year == campaign.current_year
    assert treasury.balance(campaign, house(campaign, "England")) == 20
    again = post(client, address)
    assert again.status_code == 400 and "was already paid" in again.content.decode()
