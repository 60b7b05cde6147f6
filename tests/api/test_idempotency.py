"""An ``Idempotency-Key`` is bound to the request it was first sent with (issue 30): the same key
with the same request is "already done" (409, nothing twice); with another address, another
campaign or another body it is a 422 ``idempotency_key_reused`` naming the first request, and
nothing is done (``campaign.undo.key_refuse``, ``api.common.key_use``). The pages' form keys keep
their own rule: a form sent twice is done once."""

from __future__ import annotations

import json

import pytest

from campaign.models import ActionKey, Membership, Role, Step
from campaign.undo import new_action_key
from dynasties import treasury
from dynasties.models import Dynasty, PostingKind
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.api.conftest import assert_error, url
from tests.factories import at_step

pytestmark = pytest.mark.django_db

TRANSFERS = "treasury/transfers"


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


@pytest.fixture
def purses(campaign):
    at_step(campaign, Step.BIRTHS, year=1305)
    england, france = house(campaign, "England"), house(campaign, "France")
    treasury.post(campaign, payer=None, payee=england, amount=100, kind=PostingKind.TAX, reason="Taxes")
    return england, france


def gift(england, france, amount: int = 10) -> dict:
    return {"payer": england.pk, "payee": france.pk, "amount": amount, "reason": "A gift"}


def test_the_same_key_with_the_same_request_is_done_once(campaign, alice, client_for, purses):
    england, france = purses
    client = client_for(alice)
    assert client.post(url(campaign, TRANSFERS), gift(england, france), HTTP_IDEMPOTENCY_KEY="k-1").status_code == 201
    body = assert_error(client.post(url(campaign, TRANSFERS), gift(england, france), HTTP_IDEMPOTENCY_KEY="k-1"), 409)
    assert body["code"] == "already_done" and "nothing was done again" in body["message"]
    # the same body written otherwise (other spacing, other key order) is the same request
    raw = json.dumps(dict(reversed(list(gift(england, france).items()))), indent=4)
    again = client.post(url(campaign, TRANSFERS), raw, content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert_error(again, 409, "already_done")
    assert treasury.balance(campaign, england) == 90
    stored = ActionKey.objects.get(campaign=campaign, key=f"api:{alice.pk}:k-1")
    assert stored.request == f"POST /api/v1/campaigns/{campaign.slug}/treasury/transfers/"
    assert len(stored.fingerprint) == 64


def test_the_same_key_at_another_endpoint_is_refused(campaign, gm, client_for, purses):
    england, france = purses
    client = client_for(gm)
    assert client.post(url(campaign, TRANSFERS), gift(england, france), HTTP_IDEMPOTENCY_KEY="k-2").status_code == 201
    body = assert_error(client.post(url(campaign, "births/finish"), {}, HTTP_IDEMPOTENCY_KEY="k-2"), 422)
    assert body["code"] == "idempotency_key_reused"
    first = f"POST /api/v1/campaigns/{campaign.slug}/treasury/transfers/"
    assert body["message"] == (
        f"This Idempotency-Key was already used for {first}: a key names one request. Nothing was done; "
        "send this request with a new key."
    )
    assert body["fields"] == {"Idempotency-Key": f"Already used for {first}."}
    campaign.refresh_from_db()
    assert campaign.step == Step.BIRTHS  # the Births were not finished
    assert client.post(url(campaign, "births/finish"), {}, HTTP_IDEMPOTENCY_KEY="k-3").status_code == 200


def test_the_same_key_at_the_same_endpoint_with_another_body_is_refused(campaign, alice, client_for, purses):
    england, france = purses
    client = client_for(alice)
    assert client.post(url(campaign, TRANSFERS), gift(england, france, 10), HTTP_IDEMPOTENCY_KEY="k-4").status_code == 201
    body = assert_error(client.post(url(campaign, TRANSFERS), gift(england, france, 11), HTTP_IDEMPOTENCY_KEY="k-4"), 422)
    assert body["code"] == "idempotency_key_reused"
    assert f"already used for POST /api/v1/campaigns/{campaign.slug}/treasury/transfers/ with another body" in body["message"]
    assert treasury.balance(campaign, england) == 90  # once, the first amount
    # another query string is another address
    body = assert_error(
        client.post(url(campaign, TRANSFERS) + "?x=1", gift(england, france, 10), HTTP_IDEMPOTENCY_KEY="k-4"), 422
    )
    assert body["code"] == "idempotency_key_reused"
    assert treasury.balance(campaign, england) == 90


def test_the_same_key_in_another_campaign_is_refused(campaign, gm, client_for, purses):
    england, france = purses
    other = campaign_create(name="Other Table", players=5, source=RandomSource(8), by=gm)
    Membership.objects.get_or_create(campaign=other, user=gm, defaults={"role": Role.GM})
    client = client_for(gm)
    assert client.post(url(campaign, TRANSFERS), gift(england, france), HTTP_IDEMPOTENCY_KEY="k-5").status_code == 201
    treasury.post(other, payer=None, payee=house(other, "England"), amount=50, kind=PostingKind.TAX, reason="Taxes")
    there = gift(house(other, "England"), house(other, "France"))
    body = assert_error(client.post(url(other, TRANSFERS), there, HTTP_IDEMPOTENCY_KEY="k-5"), 422)
    assert body["code"] == "idempotency_key_reused" and "a request to another campaign" in body["message"]
    assert campaign.slug not in body["message"]
    assert treasury.balance(other, house(other, "France")) == 0
    # undo and redo are bound too
    assert client.post(url(campaign, "undo"), {"which": "step"}, HTTP_IDEMPOTENCY_KEY="k-6").status_code == 200
    assert_error(client.post(url(campaign, "redo"), {}, HTTP_IDEMPOTENCY_KEY="k-6"), 422, "idempotency_key_reused")
    assert_error(client.post(url(campaign, "undo"), {"which": "turn"}, HTTP_IDEMPOTENCY_KEY="k-6"), 422, "idempotency_key_reused")
    assert_error(client.post(url(campaign, "undo"), {"which": "step"}, HTTP_IDEMPOTENCY_KEY="k-6"), 409, "already_done")


def test_an_import_is_bound_to_its_document(campaign, gm, client_for, purses):
    england, france = purses
    client = client_for(gm)
    document = client.get(url(campaign, "export")).json()
    imported = client.post("/api/v1/campaigns/import/", document, HTTP_IDEMPOTENCY_KEY="i-1")
    assert imported.status_code == 201, imported.content[:300]
    count = ActionKey.objects.filter(key=f"api:{gm.pk}:i-1").count()
    assert_error(client.post("/api/v1/campaigns/import/", document, HTTP_IDEMPOTENCY_KEY="i-1"), 409, "already_done")
    changed = {**document, "campaign": {**document["campaign"], "name": "Another Name"}}
    body = assert_error(client.post("/api/v1/campaigns/import/", changed, HTTP_IDEMPOTENCY_KEY="i-1"), 422)
    assert "POST /api/v1/campaigns/import/ with another body" in body["message"]
    # a key first used for a transfer imports nothing
    assert client.post(url(campaign, TRANSFERS), gift(england, france), HTTP_IDEMPOTENCY_KEY="i-2").status_code == 201
    body = assert_error(client.post("/api/v1/campaigns/import/", document, HTTP_IDEMPOTENCY_KEY="i-2"), 422)
    assert "treasury/transfers/" in body["message"]
    assert ActionKey.objects.filter(key=f"api:{gm.pk}:i-1").count() == count == 1


def test_the_pages_form_keys_keep_working(client, campaign, alice, purses):
    """A page's form sent twice is done once, whatever its body; its key never meets an API key."""
    england, france = purses
    client.force_login(alice)
    address = f"/c/{campaign.slug}/treasury/{england.pk}/"
    form = {"form": "transfer", "payee": france.pk, "kind": "transfer", "amount": 5, "reason": "Alms"}
    key = new_action_key()
    assert client.post(address, {**form, "action_key": key}).status_code == 302
    again = client.post(address, {**form, "action_key": key, "amount": 6}, follow=True)
    assert "That was already done (the same form was sent twice)" in again.content.decode()
    assert treasury.balance(campaign, england) == 95
    stored = ActionKey.objects.get(campaign=campaign, key=f"page:{alice.pk}:{key}")
    assert (stored.request, stored.fingerprint) == ("", "")
    # the same characters as an API key are the API's own key
    body = json.dumps(gift(england, france, 1))
    assert (
        client.post(url(campaign, TRANSFERS), body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key).status_code == 201
    )
    assert treasury.balance(campaign, england) == 94
