"""Security: login rate limiting, CSRF on every form, no secret in the logs, `check --deploy` clean."""

from __future__ import annotations

import datetime
import logging
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern
from django.utils import timezone
from freezegun import freeze_time

from dynasties.models import Dynasty

ROOT = Path(__file__).resolve().parent.parent
LOGIN = "/login/"


# --- Login rate limiting (django-axes) -----------------------------------------------------------


def _login(client: Client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_five_wrong_passwords_lock_the_account_from_that_address(alice, bob):
    assert settings.AXES_ENABLED and settings.AXES_FAILURE_LIMIT == 5
    client = Client()
    for _ in range(4):
        response = _login(client, "alice", "not-her-password")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.content.decode()
    locked = _login(client, "alice", "not-her-password")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed logins" in page and "15 minutes" in page
    assert 'name="password"' in page and "csrfmiddlewaretoken" in page  # still the login page
    # The right password does not help from that address while the lock lasts...
    again = _login(client, "alice", "alice-password-1")
    assert again.status_code == 429 and "_auth_user_id" not in client.session
    # ... but the same player at another table's address, and another player here, still log in.
    assert _login(Client(), "alice", "alice-password-1", ip="10.0.0.2").status_code == 302
    assert _login(Client(), "bob", "bob-password-1").status_code == 302


def test_the_lock_ends_after_the_cool_off(alice):
    start = timezone.now()
    with freeze_time(start) as frozen:
        client = Client()
        for _ in range(5):
            _login(client, "alice", "wrong")
        assert _login(client, "alice", "alice-password-1").status_code == 429
        frozen.tick(datetime.timedelta(minutes=16))
        assert _login(client, "alice", "alice-password-1").status_code == 302


def test_a_good_login_resets_the_count(alice):
    """A table that logs in and out all evening, with the odd typo, is never locked out."""
    for _ in range(3):
        client = Client()
        for _ in range(4):
            assert _login(client, "alice", "typo").status_code == 200
        assert _login(client, "alice", "alice-password-1").status_code == 302


def test_login_without_a_request_is_not_counted(alice):
    """``authenticate()`` without a request (the shell, ``Client.login``) passes Axes by."""
    for _ in range(10):
        assert not Client().login(username="alice", password="wrong")
    assert Client().login(username="alice", password="alice-password-1")


def test_the_client_address_behind_a_proxy(settings, rf):
    from config.auth import client_ip

    request = rf.get("/", REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7")
    settings.PROXY_COUNT = 0
    assert client_ip(request) == "10.9.9.9"  # no proxy configured: the header is not trusted
    settings.PROXY_COUNT = 1
    assert client_ip(request) == "203.0.113.7"  # the address the proxy saw, not the client's claim
    settings.PROXY_COUNT = 3
    assert client_ip(request) == "10.9.9.9"  # fewer hops than proxies: fall back to the peer


# --- CSRF on every form --------------------------------------------------------------------------


def _routes(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[str]:
    """Every route of the project written out with sample arguments (regex routes are skipped:
    only the admin's catch-all and the API's 404 use them)."""
    for entry in patterns:
        if not isinstance(entry.pattern, RoutePattern):
            continue
        route = prefix + str(entry.pattern._route)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, route)
        else:
            yield route


def _fill(route: str, slug: str, pk: int) -> str:
    def value(match: re.Match[str]) -> str:
        converter, name = match.group(1) or "str", match.group(2)
        if converter == "int":
            return str(pk)
        if name == "slug" or converter == "slug":
            return slug
        return "1" if converter == "path" else "x"

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", value, route)


def test_every_post_without_a_csrf_token_is_refused(campaign, gm):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    urls = sorted({_fill(route, campaign.slug, england.pk) for route in _routes(get_resolver().url_patterns)})
    pages = [u for u in urls if u.startswith(f"/c/{campaign.slug}/")]
    assert len(pages) >= 20, pages  # the game-night pages are all there
    assert LOGIN in urls and "/campaigns/new/" in urls and "/account/tokens/" in urls

    client = Client(enforce_csrf_checks=True)
    client.force_login(gm)
    let_through = {}
    for url in urls:
        # each POST as a forged one arrives: no token (the site's refusal page hands out a cookie, as any
        # page with a form does; forged with it, an API POST of a form body is refused as 415 before
        # its token is looked for, and a JSON one as below)
        client.cookies.pop(settings.CSRF_COOKIE_NAME, None)
        response = client.post(url, {"op": "finish", "action_key": "k", "amount": "1"})
        # (the Swagger UI renders DRF's CSRF refusal as a bare HTML "403 Forbidden")
        if response.status_code != 403 or (b"CSRF" not in response.content and url != "/api/docs/"):
            let_through[url] = response.status_code
    assert not let_through, f"POSTs without a CSRF token that were not refused: {let_through}"

    anonymous = Client(enforce_csrf_checks=True)
    assert anonymous.post(LOGIN, {"username": "gm", "password": "gm-password-1"}).status_code == 403

    client.get("/")  # now with the CSRF cookie, as a logged-in player's browser has it: still no token, still refused
    assert settings.CSRF_COOKIE_NAME in client.cookies
    forged = client.post(f"/api/v1/campaigns/{campaign.slug}/turn/advance/", {}, content_type="application/json")
    assert forged.status_code == 403 and b"CSRF" in forged.content
    page = client.post(f"/c/{campaign.slug}/turn/", {"op": "finish"})
    assert page.status_code == 403 and b"CSRF" in page.content and b"The form has expired" in page.content


def test_a_post_with_the_token_goes_through(db):
    """The control for the test above: the refusals are for the missing token, nothing else."""
    client = Client(enforce_csrf_checks=True)
    client.get(LOGIN)
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    response = client.post(LOGIN, {"username": "nobody", "password": "x", "csrfmiddlewaretoken": token})
    assert response.status_code == 200  # the form's answer (wrong password), not a CSRF refusal


def _templates() -> list[Path]:
    found = [*(ROOT / "templates").rglob("*.html")]
    for app in ROOT.iterdir():
        if (app / "templates").is_dir() and app.name not in {".venv", "var"}:
            found += (app / "templates").rglob("*.html")
    return found


def test_every_post_form_carries_the_token():
    forms = 0
    missing = []
    for template in _templates():
        text = template.read_text()
        for match in re.finditer(r"<form\b[^>]*>(.*?)</form>", text, flags=re.S | re.I):
            if re.search(r"method\s*=\s*[\"']?post", match.group(0)[:200], flags=re.I):
                forms += 1
                if "csrf_token" not in match.group(1):
                    missing.append(f"{template.relative_to(ROOT)}: {match.group(0)[:80]!r}")
    assert forms >= 20
    assert not missing, missing


# --- No secret in the logs -----------------------------------------------------------------------


def test_passwords_and_token_keys_never_reach_the_logs(caplog, settings, alice):
    settings.DEBUG = True  # the noisiest configuration: SQL would be logged if anything let it out
    caplog.set_level(logging.DEBUG)  # the root logger: every record that propagates
    assert logging.getLogger("django.db.backends").getEffectiveLevel() > logging.DEBUG

    wrong = "wrong-" + secrets.token_hex(8)
    client = Client()
    for _ in range(5):
        _login(client, "alice", wrong)  # failures, the last one a lockout
    good = Client()
    assert _login(good, "alice", "alice-password-1", ip="10.0.0.9").status_code == 302
    made = good.post("/api/v1/tokens/", {"name": "bot"}, content_type="application/json")
    assert made.status_code == 201, made.content
    key = made.json()["key"]
    page = good.post("/account/tokens/", {"name": "phone"})
    assert page.status_code == 200
    assert Client().get("/api/v1/campaigns/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    assert Client().get("/api/v1/campaigns/", HTTP_AUTHORIZATION=f"Token {key}x").status_code == 401
    assert Client().post("/api/v1/tokens/", {"name": wrong}, HTTP_AUTHORIZATION=f"Token {key}x").status_code == 401

    assert caplog.records, "nothing was logged: the test would prove nothing"
    logged = "\n".join(
        f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''} {getattr(r, 'request', '')!r}" for r in caplog.records
    )
    for secret in (wrong, "alice-password-1", key):
        assert secret not in logged


# --- Production settings ---------------------------------------------------------------------------


def production_env(**extra: str) -> dict[str, str]:
    # a clean environment: nothing of the test run's own (DEBUG, DJANGO_ALLOW_ASYNC_UNSAFE, ...)
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR") if k in os.environ}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings_production",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="regnal.example.org",
        DATABASE_URL="postgres://regnal:secret@127.0.0.1:5432/regnal",
        SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
    )
    env.update(extra)
    return env


def test_check_deploy_is_clean_with_the_production_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
