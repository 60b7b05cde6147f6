"""Issue 8: the contract actions through the API, with the pages' rules (pages/contracts/).
Drafting with structured clauses (a clause at fault named in ``fields``), each party signing its
own side, ending by consent or the escape clause, breaches, BloodLine disputes and parleys (the
GM's), unpaid payments settled; a contract one may not see is a 404 for every action, an action
one may see but not do a 403; a repeated ``Idempotency-Key`` is a 409 and does nothing twice."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry
from campaign.permissions import SYSTEM_ACTOR
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
from contracts.services import breach_record, contract_draft, contract_sign
from dynasties import treasury
from dynasties.models import Dynasty, PostingKind
from tests.api.conftest import assert_error, url
from tests.factories import seat_member

pytestmark = pytest.mark.django_db


def house(campaign, crown) -> int:
    return Dynasty.objects.get(campaign=campaign, crown=crown).pk


def draft(campaign, a, b, title, clauses=(), kind="agreement"):
    return contract_draft(
        campaign=campaign,
        kind=kind,
        title=title,
        parties=[house(campaign, a), house(campaign, b)],
        clauses=list(clauses),
        by=SYSTEM_ACTOR,
    )


def pay(campaign, payer, payee, amount):
    return {"kind": "payment", "params": {"payer": house(campaign, payer), "payee": house(campaign, payee), "amount": amount}}


def fund(campaign, crown, amount):
    treasury.post(campaign, payer=None, payee=house(campaign, crown), amount=amount, kind=PostingKind.OTHER, reason="test")


def contract_url(campaign, contract, action=""):
    return url(campaign, "contracts", contract.pk) + (f"{action}/" if action else "")


@pytest.fixture
def dover(campaign):
    """England-Spain, a draft: England pays Spain 10; an escape clause."""
    escape = {"kind": "escape", "params": {"condition": "Spain is attacked"}}
    return draft(campaign, "England", "Spain", "The Peace of Dover", [pay(campaign, "England", "Spain", 10), escape])


@pytest.fixture
def amiens(campaign):
    """England-France, a binding agreement in force (damages of 30 for a breach)."""
    pact = draft(
        campaign,
        "England",
        "France",
        "The Pact of Amiens",
        [{"kind": "non_aggression"}, {"kind": "damages", "params": {"amount": 30}}],
    )
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    return pact


# drafting --------------------------------------------------------------------------------------


def test_a_player_drafts_a_contract_with_structured_clauses(campaign, alice, client_for):
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    body = {
        "kind": "treaty",
        "title": "The Treaty of Windsor",
        "parties": [england, spain],
        "term_years": 10,
        "clauses": [
            {"kind": "recurring_payment", "params": {"payer": spain, "payee": england, "amount": 5, "from_year": 1300}},
            {"kind": "military_support", "params": {"by": england, "exclusions": ["not against Portugal"]}, "text": "Aid."},
        ],
    }
    response = client_for(alice).post(url(campaign, "contracts"), body, format="json")
    assert response.status_code == 201, response.content
    out = response.json()
    contract = Contract.objects.get()
    assert out["id"] == contract.pk and out["state"] == "draft" and out["parties"] == sorted([england, spain])
    assert out["term_years"] == 10 and out["signatures"] == [] and out["url"].endswith(f"/contracts/{contract.pk}/")
    assert [(c["position"], c["kind"]) for c in out["clauses"]] == [(1, "recurring_payment"), (2, "military_support")]
    assert out["clauses"][0]["params"] == {"payer": spain, "payee": england, "amount": 5, "from_year": 1300, "turns": None}
    assert out["clauses"][1]["text"] == "Aid."
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="contract_draft").count() == 1
    listed = client_for(alice).get(url(campaign, "contracts")).json()["results"]
    assert [c["id"] for c in listed] == [contract.pk]  # the same path still lists


def test_a_clause_at_fault_is_named_in_fields_and_nothing_is_written(campaign, alice, client_for):
    england, spain, france = house(campaign, "England"), house(campaign, "Spain"), house(campaign, "France")
    body = {
        "kind": "agreement",
        "title": "Bad terms",
        "parties": [england, spain],
        "clauses": [
            {"kind": "non_aggression"},
            {"kind": "payment", "params": {"payer": france, "payee": spain, "amount": 10}},
            {"kind": "damages", "params": {"amount": 0}},
            {"kind": "payment", "params": {"payer": england, "payee": spain, "amount": 2**40}},
        ],
    }
    error = assert_error(client_for(alice).post(url(campaign, "contracts"), body, format="json"), 400, "invalid")
    assert set(error["fields"]) == {"clauses.1.params", "clauses.2.params", "clauses.3.params"}
    assert "not a party to the contract" in error["fields"]["clauses.1.params"]
    assert "at least 1" in error["fields"]["clauses.2.params"]
    assert "out of range" in error["fields"]["clauses.3.params"]
    assert not Contract.objects.exists() and not ChronicleEntry.objects.filter(kind="contract_draft").exists()


def test_draft_refusals_are_400_with_their_fields(campaign, gm, client_for):
    client = client_for(gm)
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    address = url(campaign, "contracts")
    missing = assert_error(client.post(address, {"kind": "treaty", "parties": [england]}, format="json"), 400)
    assert {"title", "parties"} <= set(missing["fields"])
    unknown = assert_error(
        client.post(address, {"kind": "treaty", "title": "T", "parties": [england, 999999]}, format="json"), 400
    )
    assert unknown["fields"] == {"parties": "There is no dynasty #999999 in this campaign."}
    twice = {
        "kind": "treaty",
        "title": "T",
        "parties": [england, spain],
        "clauses": [{"kind": "damages", "params": {"amount": 1}}, {"kind": "damages", "params": {"amount": 2}}],
    }
    assert (
        "one damages for breach clause at most"
        in assert_error(client.post(address, twice, format="json"), 400)["fields"]["clauses"]
    )
    # the services' own refusal: a marriage contract names its match (the field carries the message)
    match = assert_error(
        client.post(address, {"kind": "marriage", "title": "M", "parties": [england, spain]}, format="json"), 400
    )
    assert match["fields"] == {"marriage": match["message"]} and "name the match" in match["message"]
    assert not Contract.objects.exists()


def test_only_members_who_are_parties_draft(campaign, alice, observer, outsider, client_for):
    body = {"kind": "treaty", "title": "Not mine", "parties": [house(campaign, "France"), house(campaign, "Spain")]}
    assert_error(client_for(alice).post(url(campaign, "contracts"), body, format="json"), 403, "permission_denied")
    assert_error(client_for(observer).post(url(campaign, "contracts"), body, format="json"), 403, "permission_denied")
    assert_error(client_for(outsider).post(url(campaign, "contracts"), body, format="json"), 404, "not_found")
    assert_error(client_for(None).post(url(campaign, "contracts"), body, format="json"), 401)
    assert not Contract.objects.exists()


def test_the_same_idempotency_key_drafts_once(campaign, alice, client_for):
    client = client_for(alice)
    body = {"kind": "treaty", "title": "Once", "parties": [house(campaign, "England"), house(campaign, "Spain")]}
    first = client.post(url(campaign, "contracts"), body, format="json", HTTP_IDEMPOTENCY_KEY="draft-1")
    assert first.status_code == 201
    assert_error(
        client.post(url(campaign, "contracts"), body, format="json", HTTP_IDEMPOTENCY_KEY="draft-1"), 409, "already_done"
    )
    assert Contract.objects.count() == 1
    assert client.post(url(campaign, "contracts"), body, format="json", HTTP_IDEMPOTENCY_KEY="draft-2").status_code == 201


# signing ---------------------------------------------------------------------------------------


def test_each_player_signs_his_own_side_and_the_last_signature_brings_it_into_force(campaign, alice, bob, client_for):
    pact = draft(campaign, "England", "France", "The Pact of Amiens", [{"kind": "non_aggression"}])
    england, france = house(campaign, "England"), house(campaign, "France")
    signed = client_for(alice).post(contract_url(campaign, pact, "sign"), {}, format="json")
    assert signed.status_code == 200, signed.content
    assert signed.json()["state"] == "draft" and [s["dynasty"] for s in signed.json()["signatures"]] == [england]
    assert signed.json()["signatures"][0]["signed_by"] == "alice"
    refused = client_for(alice).post(contract_url(campaign, pact, "sign"), {"dynasty": france}, format="json")
    assert_error(refused, 403, "permission_denied")
    last = client_for(bob).post(contract_url(campaign, pact, "sign"), {"dynasty": france}, format="json")
    assert last.status_code == 200 and last.json()["state"] == "in_force"
    assert [(s["dynasty"], s["signed_by"]) for s in last.json()["signatures"]] == [(england, "alice"), (france, "bob")]
    again = assert_error(client_for(alice).post(contract_url(campaign, pact, "sign"), {}, format="json"), 400, "not_draft")
    assert "only a draft is signed" in again["message"]
    detail = client_for(bob).get(contract_url(campaign, pact)).json()
    assert [s["dynasty"] for s in detail["signatures"]] == [england, france]


def test_the_gm_signs_for_any_party_or_for_all_at_once(campaign, gm, alice, dover, client_for):
    spain = house(campaign, "Spain")
    client = client_for(gm)
    assert_error(client.post(contract_url(campaign, dover, "sign"), {}, format="json"), 400)  # the GM names the party
    outside = assert_error(
        client.post(contract_url(campaign, dover, "sign"), {"dynasty": house(campaign, "France")}, format="json"), 400
    )
    assert set(outside["fields"]) == {"dynasty"}
    assert client.post(contract_url(campaign, dover, "sign"), {"dynasty": spain}, format="json").json()["state"] == "draft"
    assert_error(client_for(alice).post(contract_url(campaign, dover, "sign"), {"all_parties": True}, format="json"), 403)
    done = client.post(contract_url(campaign, dover, "sign"), {"all_parties": True}, format="json")
    assert done.status_code == 200 and done.json()["state"] == "in_force"
    assert ContractSignature.objects.filter(contract=dover).count() == 2
    assert ContractPayment.objects.get(contract=dover).status == PaymentStatus.UNPAID  # England holds nothing


def test_a_repeated_key_signs_once(campaign, alice, dover, client_for):
    client = client_for(alice)
    assert client.post(contract_url(campaign, dover, "sign"), {}, format="json", HTTP_IDEMPOTENCY_KEY="s").status_code == 200
    assert_error(
        client.post(contract_url(campaign, dover, "sign"), {}, format="json", HTTP_IDEMPOTENCY_KEY="s"), 409, "already_done"
    )
    assert ContractSignature.objects.filter(contract=dover).count() == 1


# secrecy ---------------------------------------------------------------------------------------


def test_every_action_on_a_contract_one_may_not_see_is_404(campaign, bob, observer, outsider, dover, amiens, client_for):
    contract_sign(campaign=campaign, contract=dover, by=SYSTEM_ACTOR)
    payment = ContractPayment.objects.get(contract=dover)
    breach = breach_record(campaign=campaign, contract=dover, by_dynasty=house(campaign, "Spain"), text="raided", by=SYSTEM_ACTOR)
    posts = [
        (contract_url(campaign, dover, "sign"), {"dynasty": house(campaign, "Spain")}),
        (contract_url(campaign, dover, "end"), {"how": "consent"}),
        (contract_url(campaign, dover, "breaches"), {"by_dynasty": house(campaign, "Spain"), "text": "again"}),
        (contract_url(campaign, dover, f"payments/{payment.pk}/settle"), {}),
        (url(campaign, "breaches") + f"{breach.pk}/dispute/", {"votes": []}),
    ]
    for user in (bob, observer, outsider):  # Bob's France is not a party
        for address, body in posts:
            assert_error(client_for(user).post(address, body, format="json"), 404, "not_found")
        assert_error(client_for(user).get(contract_url(campaign, dover, "pdf")), 404, "not_found")
    assert_error(client_for(bob).post(url(campaign, "contracts", 999999) + "end/", {"how": "consent"}, format="json"), 404)
    assert Contract.objects.get(pk=dover.pk).state == ContractState.IN_FORCE and Breach.objects.count() == 1


# ending ----------------------------------------------------------------------------------------


def test_ending_by_the_escape_clause_and_by_consent(campaign, alice, bob, gm, dover, amiens, client_for):
    contract_sign(campaign=campaign, contract=dover, by=SYSTEM_ACTOR)
    no_reason = assert_error(client_for(alice).post(contract_url(campaign, dover, "end"), {"how": "escape"}, format="json"), 400)
    assert set(no_reason["fields"]) == {"reason"} and "escape condition" in no_reason["fields"]["reason"]
    spain = {"how": "escape", "by_dynasty": house(campaign, "Spain"), "reason": "Spain was attacked"}
    assert_error(client_for(alice).post(contract_url(campaign, dover, "end"), spain, format="json"), 403)
    escaped = client_for(alice).post(
        contract_url(campaign, dover, "end"), {"how": "escape", "reason": "Spain was attacked"}, format="json"
    )
    assert escaped.status_code == 200 and escaped.json()["state"] == "ended" and escaped.json()["end_kind"] == EndKind.ESCAPE
    assert "Spain was attacked" in escaped.json()["end_reason"]
    assert_error(
        client_for(gm).post(contract_url(campaign, amiens, "end"), {"how": "escape"}, format="json"), 400
    )  # the GM names who
    ended = client_for(bob).post(contract_url(campaign, amiens, "end"), {"how": "consent", "reason": "peace"}, format="json")
    assert ended.status_code == 200 and ended.json()["end_kind"] == EndKind.CONSENT
    assert_error(client_for(bob).post(contract_url(campaign, amiens, "end"), {"how": "consent"}, format="json"), 400, "ended")
    assert_error(client_for(bob).post(contract_url(campaign, amiens, "end"), {"how": "never"}, format="json"), 400, "invalid")


# breaches, disputes, parleys -------------------------------------------------------------------


def test_a_breach_goes_to_a_bloodline_dispute_ruled_by_the_other_players(campaign, alice, bob, gm, amiens, client_for):
    campaign.ruleset = "eu-bloodline"
    campaign.save()
    england, france = house(campaign, "England"), house(campaign, "France")
    address = contract_url(campaign, amiens, "breaches")
    assert_error(client_for(alice).post(address, {"by_dynasty": england, "raised_by": france, "text": "x"}, format="json"), 403)
    itself = assert_error(client_for(alice).post(address, {"by_dynasty": england, "text": "x"}, format="json"), 400)
    assert set(itself["fields"]) == {"by_dynasty"}
    damages = amiens.clauses.get(kind="damages")
    wrong_clause = assert_error(
        client_for(alice).post(address, {"by_dynasty": france, "clause": 999999, "text": "x"}, format="json"), 400
    )
    assert set(wrong_clause["fields"]) == {"clause"}
    made = client_for(alice).post(
        address, {"by_dynasty": france, "clause": damages.pk, "text": "crossed the border"}, format="json"
    )
    assert made.status_code == 201, made.content
    breach = Breach.objects.get()
    assert made.json()["id"] == breach.pk and made.json()["raised_by"] == england and made.json()["dispute"] is None
    dispute_url = url(campaign, "breaches") + f"{breach.pk}/dispute/"
    assert_error(client_for(alice).post(dispute_url, {"votes": []}, format="json"), 403, "permission_denied")
    others = [house(campaign, c) for c in ("Spain", "Germany")]
    players_voting = [{"dynasty": d, "clause": damages.pk, "upholds": True} for d in others]
    party = assert_error(
        client_for(gm).post(dispute_url, {"votes": [{"dynasty": france, "clause": damages.pk, "upholds": False}]}, format="json"),
        400,
    )
    assert party["code"] == "not_a_voter"
    fund(campaign, "France", 50)
    ruled = client_for(gm).post(dispute_url, {"votes": players_voting}, format="json")
    assert ruled.status_code == 201, ruled.content
    assert ruled.json()["terms"][0]["upheld"] is True and Dispute.objects.count() == 1
    assert treasury.balance(campaign, Dynasty.objects.get(pk=england)) == 30  # the damages were posted
    assert_error(client_for(gm).post(dispute_url, {"votes": players_voting}, format="json"), 400, "settled")
    seen = client_for(bob).get(contract_url(campaign, amiens)).json()["breaches"][0]
    assert seen["dispute"]["id"] == ruled.json()["id"]


def test_a_broken_agreement_goes_to_a_parley_and_a_tie_excommunicates(campaign, alice, gm, amiens, client_for):
    england, france = house(campaign, "England"), house(campaign, "France")
    breach = breach_record(campaign=campaign, contract=amiens, by_dynasty=france, text="marched on Calais", by=SYSTEM_ACTOR)
    votes = [{"dynasty": england, "stature": 5, "choice": "for"}, {"dynasty": france, "stature": 5, "choice": "against"}]
    assert_error(client_for(alice).post(url(campaign, "parleys"), {"breach": breach.pk, "votes": votes}, format="json"), 403)
    unknown = assert_error(client_for(gm).post(url(campaign, "parleys"), {"breach": 999999, "votes": votes}, format="json"), 400)
    assert set(unknown["fields"]) == {"breach"}
    held = client_for(gm).post(url(campaign, "parleys"), {"breach": breach.pk, "votes": votes}, format="json")
    assert held.status_code == 201, held.content
    out = held.json()
    assert (out["kind"], out["votes_for"], out["votes_against"], out["carried"]) == ("breach", 5, 5, True)
    assert [v["dynasty"] for v in out["votes"]] == [england, france] and "excommunicated" in out["outcome"]
    assert Excommunication.objects.get().dynasty_id == france


def test_other_parleys_say_their_kind_caller_and_subject(campaign, gm, client_for):
    england, spain = house(campaign, "England"), house(campaign, "Spain")
    votes = [
        {"dynasty": england, "stature": 4, "church_cards": 1, "choice": "for"},
        {"dynasty": spain, "stature": 8, "choice": "against"},
    ]
    client = client_for(gm)
    assert set(assert_error(client.post(url(campaign, "parleys"), {"votes": votes}, format="json"), 400)["fields"]) == {"kind"}
    no_subject = {"kind": "claim", "caller": england, "votes": votes}
    assert set(assert_error(client.post(url(campaign, "parleys"), no_subject, format="json"), 400)["fields"]) == {"subject"}
    held = client.post(url(campaign, "parleys"), {**no_subject, "subject": "the claim to Gascony"}, format="json")
    assert held.status_code == 201, held.content
    assert (held.json()["votes_for"], held.json()["votes_against"], held.json()["carried"]) == (9, 8, True)
    once = assert_error(client.post(url(campaign, "parleys"), {**no_subject, "subject": "again"}, format="json"), 400)
    assert once["code"] == "once_per_round"
    readmit = assert_error(
        client.post(url(campaign, "parleys"), {"kind": "readmission", "caller": spain, "votes": votes}, format="json"), 400
    )
    assert readmit["code"] == "not_excommunicated"
    assert Parley.objects.count() == 1


# payments --------------------------------------------------------------------------------------


def test_the_payer_settles_an_unpaid_payment(campaign, alice, gm, dover, amiens, client_for):
    contract_sign(campaign=campaign, contract=dover, by=SYSTEM_ACTOR)
    payment = ContractPayment.objects.get(contract=dover)
    address = contract_url(campaign, dover, f"payments/{payment.pk}/settle")
    broke = assert_error(client_for(alice).post(address, format="json"), 400)  # England still holds nothing
    assert ContractPayment.objects.get(pk=payment.pk).status == PaymentStatus.UNPAID and broke["code"]
    fund(campaign, "England", 30)
    settled = client_for(alice).post(address, format="json", HTTP_IDEMPOTENCY_KEY="pay-1")
    assert settled.status_code == 200, settled.content
    assert settled.json()["status"] == "paid" and settled.json()["settled_year"] == campaign.current_year
    assert treasury.balance(campaign, Dynasty.objects.get(crown="England", campaign=campaign)) == 20
    assert_error(client_for(alice).post(address, format="json", HTTP_IDEMPOTENCY_KEY="pay-1"), 409, "already_done")
    assert_error(client_for(gm).post(address, format="json"), 400, "already_paid")
    elsewhere = contract_url(campaign, amiens, f"payments/{payment.pk}/settle")  # not a payment of that contract
    assert_error(client_for(alice).post(elsewhere, format="json"), 404)


def test_only_the_payers_player_settles(campaign, gm, dover, client_for, django_user_model):
    from campaign.models import Role

    spaniard = django_user_model.objects.create_user("carlos", password="carlos-password-1")
    seat_member(campaign=campaign, user=spaniard, role=Role.PLAYER, dynasty_id=house(campaign, "Spain"))
    contract_sign(campaign=campaign, contract=dover, by=SYSTEM_ACTOR)
    payment = ContractPayment.objects.get(contract=dover)
    address = contract_url(campaign, dover, f"payments/{payment.pk}/settle")
    assert_error(client_for(spaniard).post(address, format="json"), 403, "permission_denied")  # Spain is owed, not the payer
    fund(campaign, "England", 10)
    assert client_for(gm).post(address, format="json").json()["status"] == "paid"


def test_the_ledger_names_the_contract_a_posting_paid_under_as_the_contracts_keep_it(campaign, alice, dover, client_for):
    """The posting is the dynasties', the link the contracts' (``ContractPosting``): the ledger's
    ``contract`` and its filter read it, a posting under no contract names none."""
    fund(campaign, "England", 30)
    contract_sign(campaign=campaign, contract=dover, by=SYSTEM_ACTOR)
    paid = ContractPayment.objects.get(contract=dover, status=PaymentStatus.PAID).posting
    assert paid.contract_link.contract_id == dover.pk
    rows = {r["id"]: r for r in client_for(alice).get(url(campaign, "ledger")).json()["results"]}
    assert rows[paid.pk]["contract"]["id"] == dover.pk
    assert rows[paid.pk]["contract"]["url"].endswith(url(campaign, "contracts", dover.pk))
    assert [r["contract"] for pk, r in rows.items() if pk != paid.pk] == [None]  # the funds: no contract
    only = client_for(alice).get(url(campaign, "ledger"), {"contract": dover.pk}).json()["results"]
    assert [r["id"] for r in only] == [paid.pk]
