"""Issue 14, the API door: every malformed body is a JSON error (deep nesting included), the import
has its own documented size limit (REGNAL_IMPORT_MAX_BYTES, not Django's 2.5 MB), and a token
cannot mint tokens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings
from rest_framework.test import APIClient

from api.models import ApiToken
from api.parsers import MAX_DEPTH, nesting_depth
from api.services import token_create
from campaign.models import Campaign, ChronicleEntry
from dynasties.models import Posting
from tests.api.conftest import assert_error, url

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent.parent
IMPORT = "/api/v1/campaigns/import/"
TOKENS = "/api/v1/tokens/"
DEEP = 5000  # far beyond Python's recursion limit (1000)


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def deep_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def deep_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def counts() -> tuple[int, int, int]:
    return Campaign.objects.count(), ApiToken.objects.count(), Posting.objects.count()


# -- 5. nested JSON ---------------------------------------------------------------------------------


def test_nesting_depth_counts_brackets_outside_strings_only():
    assert nesting_depth("1") == 0
    assert nesting_depth("[]") == 1
    assert nesting_depth('{"a": [1, {"b": []}], "c": {}}') == 4
    assert nesting_depth('["[[[[{{{", "\\"[[[", {"k]]": "}"}]') == 2
    assert nesting_depth(deep_arrays(DEEP)) == DEEP


@pytest.mark.parametrize("body", [deep_arrays(DEEP), deep_objects(DEEP)], ids=["arrays", "objects"])
@pytest.mark.parametrize("where", ["transfer", "import", "token"])
def test_deeply_nested_json_is_a_json_400_on_every_endpoint(campaign, gm, client_for, body, where):
    target = {"transfer": url(campaign, "treasury/transfers"), "import": IMPORT, "token": TOKENS}[where]
    before = counts()
    response = client_for(gm).post(target, body, content_type="application/json")
    error = assert_error(response, 400, "parse_error")
    assert f"more than {MAX_DEPTH} deep" in error["message"]
    assert counts() == before


@pytest.mark.parametrize("where", ["transfer", "import", "token"])
def test_nesting_just_past_the_limit_is_refused_and_at_the_limit_read(campaign, gm, client_for, where):
    target = {"transfer": url(campaign, "treasury/transfers"), "import": IMPORT, "token": TOKENS}[where]
    client = client_for(gm)
    error = assert_error(client.post(target, deep_arrays(MAX_DEPTH + 1), content_type="application/json"), 400, "parse_error")
    assert f"more than {MAX_DEPTH} deep" in error["message"]
    # At the limit the body is read, and the endpoint's own checks answer (not a parse error).
    response = client.post(target, deep_arrays(MAX_DEPTH), content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] != "parse_error", response.content[:300]


def test_a_token_with_deep_but_allowed_extra_input_is_still_created(alice, client_for):
    nested = json.loads(deep_objects(MAX_DEPTH - 1))
    response = client_for(alice).post(TOKENS, json.dumps({"name": "deep", "extra": nested}), content_type="application/json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"[" * DEEP, "deep"),  # unclosed, and too deep to read to its end
        (b"[" * 10, "not valid JSON"),  # unclosed
        (b'{"name": "x",}', "not valid JSON"),
        (b'{"name": NaN}', "not valid JSON"),
        (b'{"name": "\xff\xfe"}', "not UTF-8"),
        (b"1" * 5000, "not valid JSON"),  # an integer too long for Python to read
    ],
)
def test_other_malformed_bodies_are_json_400s(campaign, gm, client_for, body, said):
    for target in (url(campaign, "treasury/transfers"), IMPORT, TOKENS):
        error = assert_error(client_for(gm).post(target, body, content_type="application/json"), 400, "parse_error")
        assert said in error["message"], error


def test_a_body_with_a_byte_order_mark_is_read(alice, client_for):
    body = "\ufeff" + json.dumps({"name": "with a BOM"})
    response = client_for(alice).post(TOKENS, body.encode(), content_type="application/json")
    assert response.status_code == 201, response.content


def test_a_form_with_too_many_fields_is_a_json_400(alice, client_for):
    fields = "&".join(f"f{i}=x" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = client_for(alice).post(TOKENS, f"name=form&{fields}", content_type="application/x-www-form-urlencoded")
    error = assert_error(response, 400, "parse_error")
    assert "DATA_UPLOAD_MAX_NUMBER_FIELDS" in error["message"]
    assert not ApiToken.objects.exists()


# -- 7. the import's size limit ---------------------------------------------------------------------


@pytest.fixture
def long_chronicle(campaign):
    """The shared campaign with a long chronicle: its export is about 3 MB, above Django's 2.5 MB."""
    text = "The chronicler wrote at length of the feasts, the hunts and the harvests. " * 1200  # 90,000 characters
    ChronicleEntry.objects.bulk_create(
        [ChronicleEntry(campaign=campaign, year=1300, step="births", kind="note", text=f"{i}: {text}") for i in range(34)]
    )
    return campaign


def test_an_import_above_django_s_upload_limit_is_imported(long_chronicle, gm, outsider, client_for):
    document = client_for(gm).get(url(long_chronicle, "export")).json()
    body = json.dumps(document).encode()
    assert len(body) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 2_621_440
    assert len(body) < settings.REGNAL_IMPORT_MAX_BYTES
    response = client_for(outsider).post(IMPORT, body, content_type="application/json")
    assert response.status_code == 201, response.content[:500]
    copy = Campaign.objects.get(slug=response.json()["slug"])
    texts = sorted(ChronicleEntry.objects.filter(campaign=copy, kind="note").values_list("text", flat=True))
    assert texts == sorted(ChronicleEntry.objects.filter(campaign=long_chronicle, kind="note").values_list("text", flat=True))
    assert len(texts) == 34


def test_an_import_above_its_limit_is_a_json_413_naming_the_limit(long_chronicle, gm, outsider, client_for):
    body = json.dumps(client_for(gm).get(url(long_chronicle, "export")).json()).encode()
    before = counts()
    with override_settings(REGNAL_IMPORT_MAX_BYTES=2_000_000):
        error = assert_error(client_for(outsider).post(IMPORT, body, content_type="application/json"), 413, "too_large")
    assert "REGNAL_IMPORT_MAX_BYTES" in error["message"] and "2,000,000 bytes" in error["message"]
    assert counts() == before


def test_other_endpoints_keep_django_s_limit_with_a_json_413(campaign, gm, client_for):
    big = json.dumps({"name": "padded", "padding": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    before = counts()
    for target in (TOKENS, url(campaign, "treasury/transfers")):
        error = assert_error(client_for(gm).post(target, big, content_type="application/json"), 413, "too_large")
        assert "2,621,440 bytes" in error["message"] and "DATA_UPLOAD_MAX_MEMORY_SIZE" in error["message"]
    assert counts() == before


def _settings_with(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "REGNAL_IMPORT_MAX_BYTES"}
    clean.update({"REGNAL_DEV": "1", **env})
    return subprocess.run(
        [sys.executable, "-c", "import config.settings as s; print(s.REGNAL_IMPORT_MAX_BYTES)"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_import_limit_comes_from_the_environment_and_is_checked_at_start_up():
    assert settings.REGNAL_IMPORT_MAX_BYTES == 50 * 1024 * 1024
    assert _settings_with({"REGNAL_IMPORT_MAX_BYTES": "104857600"}).stdout.strip() == "104857600"
    for bad, said in [("50MB", "is not a whole number"), ("1000", "must be at least 1048576")]:
        started = _settings_with({"REGNAL_IMPORT_MAX_BYTES": bad})
        assert started.returncode != 0 and "REGNAL_IMPORT_MAX_BYTES" in started.stderr and said in started.stderr


# -- 9. a token cannot mint tokens ------------------------------------------------------------------


def test_a_token_cannot_create_tokens(alice):
    _, key = token_create(user=alice, name="script")
    before = ApiToken.objects.count()
    error = assert_error(with_token(key).post(TOKENS, {"name": "minted"}), 403, "permission_denied")
    assert "log in" in error["message"] and "/account/tokens/" in error["message"]
    assert ApiToken.objects.count() == before and not ApiToken.objects.filter(name="minted").exists()


def test_a_token_with_a_session_cookie_too_still_cannot_create_tokens(alice):
    _, key = token_create(user=alice, name="script")
    client = APIClient()
    client.force_login(alice)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert_error(client.post(TOKENS, {"name": "minted"}), 403, "permission_denied")
    assert not ApiToken.objects.filter(name="minted").exists()


def test_a_session_creates_tokens_and_a_token_may_still_list_and_revoke(alice, client_for):
    created = client_for(alice).post(TOKENS, {"name": "by session"})
    assert created.status_code == 201, created.content
    bot = with_token(created.json()["key"])
    assert [t["name"] for t in bot.get(TOKENS).json()["results"]] == ["by session"]
    assert bot.post(f"{TOKENS}{created.json()['id']}/revoke/").json()["active"] is False  # revoking itself is allowed
    assert_error(bot.get(TOKENS), 401, "token_revoked")


def test_the_tokens_page_takes_no_token(alice):
    _, key = token_create(user=alice, name="script")
    page = Client(HTTP_AUTHORIZATION=f"Token {key}")
    response = page.post("/account/tokens/", {"name": "minted"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not ApiToken.objects.filter(name="minted").exists()
