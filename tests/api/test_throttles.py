"""The API's rate limits (issue 30, ``api.throttles``): per user (his session and his tokens
together), a generous scope for every request and tight ones for what costs; over a rate a 429 in
the API's error shape that says when to try again, with ``Retry-After``. The rates here are the
test's own (the suite's settings are far above any test: ``config/settings_test.py``)."""

from __future__ import annotations

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from rest_framework.test import APIClient

from api import throttles
from api.models import CacheEntry
from api.services import token_create
from config.env import CACHE_MAX_ENTRIES, CACHE_TABLE, env_cache
from dynasties.models import Note
from tests.api.conftest import assert_error, url

pytestmark = pytest.mark.django_db

RATES = {"api": "8/min", "render": "2/min", "import": "1/hour", "notes": "2/min"}


class Clock:
    """The throttles' clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(settings, monkeypatch):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": RATES}
    cache.clear()
    now = Clock()
    monkeypatch.setattr(throttles._Counted, "timer", now)
    yield now
    cache.clear()


def gedcom(campaign) -> str:
    return url(campaign, "gedcom")


def test_a_scope_over_its_rate_is_a_429_saying_when_to_try_again(campaign, alice, bob, client_for, clock):
    client = client_for(alice)
    assert client.get(gedcom(campaign)).status_code == 200
    clock.now += 20
    assert client.get(gedcom(campaign)).status_code == 200
    clock.now += 1
    refused = client.get(gedcom(campaign))
    body = assert_error(refused, 429, "throttled")
    # the first render leaves the minute 39 seconds from now: then one more may be drawn
    assert body["message"] == (
        "Too many renders of trees, sheets, PDFs, GEDCOM files and exports: at most 2 a minute for each user. "
        "Try again in 39 seconds."
    )
    assert refused["Retry-After"] == "39"
    assert body["fields"] == {}
    # the other scopes are not touched: reads and a note go on
    assert client.get(url(campaign, "turn")).status_code == 200
    note = client.post(
        url(campaign, "notes"), {"dynasty": campaign.dynasties.get(crown="England").pk, "audience": "player", "text": "Hm"}
    )
    assert note.status_code == 200, note.content
    # nor are other users
    assert client_for(bob).get(gedcom(campaign)).status_code == 200
    # a refused request does not count: once the first render has left the minute, one more
    clock.now += 39
    assert client.get(gedcom(campaign)).status_code == 200
    assert_error(client.get(gedcom(campaign)), 429, "throttled")


def test_a_user_is_one_whatever_he_comes_with(campaign, alice, client_for, clock):
    """His session and every token of his count together: making tokens does not buy renders."""
    _, first = token_create(user=alice, name="one")
    _, second = token_create(user=alice, name="two")
    by_token = []
    for key in (first, second):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        by_token.append(client)
    assert by_token[0].get(gedcom(campaign)).status_code == 200
    assert by_token[1].get(gedcom(campaign)).status_code == 200
    assert_error(client_for(alice).get(gedcom(campaign)), 429, "throttled")
    assert_error(by_token[0].get(url(campaign, "characters", 999999) + "sheet.pdf"), 429, "throttled")


def test_every_request_counts_in_the_tables_scope(campaign, alice, client_for, clock):
    client = client_for(alice)
    for _ in range(8):
        assert client.get(url(campaign, "turn")).status_code == 200
        clock.now += 1
    refused = client.get(url(campaign, "dynasties"))
    body = assert_error(refused, 429, "throttled")
    assert body["message"] == "Too many requests: at most 8 a minute for each user. Try again in 52 seconds."
    assert refused["Retry-After"] == "52"
    # a render over the table's limit is refused too (its own scope was not reached): the longer wait is told
    body = assert_error(client.get(gedcom(campaign)), 429, "throttled")
    assert body["message"].startswith("Too many requests:")


def test_note_writes_and_imports_have_their_own_limits(campaign, gm, alice, client_for, clock):
    client = client_for(alice)
    england = campaign.dynasties.get(crown="England").pk
    for text in ("One", "Two"):
        assert client.post(url(campaign, "notes"), {"dynasty": england, "audience": "player", "text": text}).status_code == 200
    body = assert_error(
        client.post(url(campaign, "notes"), {"dynasty": england, "audience": "player", "text": "Three"}), 429, "throttled"
    )
    assert body["message"].startswith("Too many notes written: at most 2 a minute for each user.")
    assert Note.objects.get(dynasty_id=england, audience="player").text == "Two"  # the third was not written
    assert client.get(url(campaign, "notes")).status_code == 200  # reading them is not writing
    # an import, even a refused one, counts: an hour for one
    document = client_for(gm).get(url(campaign, "export")).json()
    assert_error(client.post("/api/v1/campaigns/import/", {"format": "nonsense"}), 400)
    refused = client.post("/api/v1/campaigns/import/", document)
    body = assert_error(refused, 429, "throttled")
    assert body["message"] == "Too many campaign imports: at most 1 an hour for each user. Try again in 3600 seconds."
    assert refused["Retry-After"] == "3600"
    assert client_for(gm).post("/api/v1/campaigns/import/", document).status_code == 201  # the GM's own hour


def test_a_caller_not_logged_in_is_counted_by_his_address(client_for, clock, settings, db):
    """The schema and its pages are open to anyone: counted by the address (the proxy's count of
    X-Forwarded-For, as the login limit does)."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {**RATES, "api": "2/min"}}
    anonymous = client_for(None)
    for _ in range(2):
        assert anonymous.get("/api/docs/", REMOTE_ADDR="192.0.2.1").status_code == 200
    assert_error(anonymous.get("/api/docs/", REMOTE_ADDR="192.0.2.1"), 429, "throttled")
    assert anonymous.get("/api/docs/", REMOTE_ADDR="192.0.2.2").status_code == 200
    # a request refused for want of a login is not counted (401 comes first)
    assert_error(anonymous.get("/api/v1/campaigns/", REMOTE_ADDR="192.0.2.2"), 401)


def test_the_database_cache_counts_for_every_server(campaign, alice, client_for, clock, settings):
    """With the database as the cache (the production default), a request's count is a row of
    regnal_cache: another server (here another cache object on the same table, as another process
    has) reads the same count, and a request through it is refused alike."""
    settings.CACHES = {"default": env_cache("REGNAL_CACHE", "database", {})}
    assert settings.CACHES["default"]["LOCATION"] == CACHE_TABLE == CacheEntry._meta.db_table
    client = client_for(alice)
    assert client.get(gedcom(campaign)).status_code == 200
    assert client.get(gedcom(campaign)).status_code == 200
    key = f"throttle_render_user-{alice.pk}"
    other_server = DatabaseCache(CACHE_TABLE, {"OPTIONS": {"MAX_ENTRIES": CACHE_MAX_ENTRIES}})
    assert len(other_server.get(key)) == 2
    assert CacheEntry.objects.filter(cache_key__endswith=key).count() == 1
    assert caches["default"] is not other_server
    assert_error(client.get(gedcom(campaign)), 429, "throttled")


def test_the_429_is_in_the_schema():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = [op for item in schema["paths"].values() for op in item.values()]
    assert operations and all("429" in op["responses"] for op in operations)
