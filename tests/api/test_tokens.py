"""Named, revocable API tokens: through the API, the /account/tokens/ page and the admin. Only a
hash is stored; the key is shown once; a revoked token is a 401."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from api.models import ApiToken
from api.services import key_hash, token_create
from tests.api.conftest import assert_error, url


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.mark.django_db
def test_create_list_and_revoke_through_the_api(campaign, alice, client_for):
    client = client_for(alice)
    created = client.post("/api/v1/tokens/", {"name": "dice bot"})
    assert created.status_code == 201, created.content
    body = created.json()
    key = body["key"]
    assert key.startswith("rgn_") and body["prefix"] == key[:12] and body["active"] is True
    token = ApiToken.objects.get(pk=body["id"])
    assert token.key_hash == key_hash(key) and key not in {token.key_hash, token.prefix}  # only a hash is kept

    listed = client.get("/api/v1/tokens/").json()
    assert [t["name"] for t in listed["results"]] == ["dice bot"]
    assert "key" not in listed["results"][0]  # shown once, at creation only
    assert "key" not in client.get(f"/api/v1/tokens/{token.pk}/").json()

    bot = with_token(key)
    assert bot.get(url(campaign)).json()["role"] == "player"
    token.refresh_from_db()
    assert token.last_used_at is not None

    revoked = client.post(f"/api/v1/tokens/{token.pk}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    assert client.post(f"/api/v1/tokens/{token.pk}/revoke/").status_code == 200  # twice is harmless
    response = bot.get(url(campaign))
    assert_error(response, 401, "token_revoked")
    assert response.headers["WWW-Authenticate"] == "Token"


@pytest.mark.django_db
def test_tokens_are_private_to_their_user(alice, bob, client_for):
    token, _ = token_create(user=alice, name="mine")
    client = client_for(bob)
    assert client.get("/api/v1/tokens/").json()["count"] == 0
    assert_error(client.get(f"/api/v1/tokens/{token.pk}/"), 404, "not_found")
    assert_error(client.post(f"/api/v1/tokens/{token.pk}/revoke/"), 404, "not_found")
    token.refresh_from_db()
    assert token.active


@pytest.mark.django_db
def test_a_token_writes_without_csrf_but_cannot_create_tokens(alice):
    _, key = token_create(user=alice, name="script")
    other, _ = token_create(user=alice, name="old phone")
    response = with_token(key).post(f"/api/v1/tokens/{other.pk}/revoke/")
    assert response.status_code == 200 and response.json()["active"] is False
    assert_error(with_token(key).post("/api/v1/tokens/", {"name": "another"}), 403, "permission_denied")
    assert not ApiToken.objects.filter(name="another").exists()  # tests/api/test_hardening.py has the rest


@pytest.mark.django_db
def test_bad_names_and_bad_keys(alice, client_for):
    client = client_for(alice)
    body = assert_error(client.post("/api/v1/tokens/", {"name": ""}), 400, "invalid")
    assert "name" in body["fields"]
    client.post("/api/v1/tokens/", {"name": "twin"})
    body = assert_error(client.post("/api/v1/tokens/", {"name": "twin"}), 400, "invalid")
    assert "already" in body["fields"]["name"]
    assert_error(with_token("rgn_not-a-real-key").get("/api/v1/campaigns/"), 401, "invalid_token")
    assert_error(with_token("nonsense").get("/api/v1/campaigns/"), 401, "invalid_token")
    malformed = APIClient()
    malformed.credentials(HTTP_AUTHORIZATION="Token two words")
    assert_error(malformed.get("/api/v1/campaigns/"), 401, "invalid_token")


@pytest.mark.django_db
def test_an_inactive_user_token_is_refused(alice):
    _, key = token_create(user=alice, name="old")
    alice.is_active = False
    alice.save()
    assert_error(with_token(key).get("/api/v1/campaigns/"), 401, "user_inactive")


@pytest.mark.django_db
def test_the_tokens_page_creates_shows_the_key_once_and_revokes(campaign, alice):
    client = Client(enforce_csrf_checks=True)
    assert client.get("/account/tokens/").status_code == 302  # login required
    client.force_login(alice)
    page = client.get("/account/tokens/")
    assert page.status_code == 200 and b"You have no tokens yet" in page.content
    csrf = page.cookies["csrftoken"].value
    assert client.post("/account/tokens/", {"name": "phone"}).status_code == 403  # CSRF enforced
    created = client.post("/account/tokens/", {"name": "phone", "csrfmiddlewaretoken": csrf})
    assert created.status_code == 200
    key = re.search(rb'id="token-key">(rgn_[^<]+)<', created.content).group(1).decode()
    token = ApiToken.objects.get(user=alice, name="phone")
    assert key not in client.get("/account/tokens/").content.decode()  # shown once
    assert with_token(key).get(url(campaign)).status_code == 200

    again = client.post("/account/tokens/", {"name": "phone", "csrfmiddlewaretoken": csrf})
    assert again.status_code == 400 and b"already have an active token" in again.content

    revoked = client.post(f"/account/tokens/{token.pk}/revoke/", {"csrfmiddlewaretoken": csrf}, follow=True)
    assert b"revoked" in revoked.content
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert_error(with_token(key).get(url(campaign)), 401, "token_revoked")


@pytest.mark.django_db
def test_the_page_revokes_only_ones_own_tokens(alice, bob):
    token, _ = token_create(user=alice, name="alices")
    client = Client()
    client.force_login(bob)
    response = client.post(f"/account/tokens/{token.pk}/revoke/", follow=True)
    assert b"No such token" in response.content
    token.refresh_from_db()
    assert token.active


@pytest.mark.django_db
def test_the_admin_creates_with_the_key_shown_once_and_revokes(alice, admin_client):
    response = admin_client.post("/admin/api/apitoken/add/", {"user": alice.pk, "name": "by the GM"}, follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    key = re.search(r"(rgn_[A-Za-z0-9_-]+)", text).group(1)
    token = ApiToken.objects.get(user=alice, name="by the GM")
    assert token.key_hash == key_hash(key)
    assert with_token(key).get("/api/v1/campaigns/").status_code == 200

    duplicate = admin_client.post("/admin/api/apitoken/add/", {"user": alice.pk, "name": "by the GM"})
    assert duplicate.status_code == 200 and b"already has an active token" in duplicate.content

    listed = admin_client.get("/admin/api/apitoken/")
    assert listed.status_code == 200 and token.prefix.encode() in listed.content and key.encode() not in listed.content
    assert admin_client.get(f"/admin/api/apitoken/{token.pk}/change/").status_code == 200

    admin_client.post("/admin/api/apitoken/", {"action": "revoke", "_selected_action": [token.pk]}, follow=True)
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert_error(with_token(key).get("/api/v1/campaigns/"), 401, "token_revoked")
