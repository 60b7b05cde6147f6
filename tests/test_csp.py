"""Issue 14: a Content-Security-Policy on every response, with no inline script allowed, so that an
escaping slip cannot run script; and production refuses to start with a weak SECRET_KEY."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.resolvers import RoutePattern

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from contracts.services import contract_draft
from dynasties.models import Character, Dynasty

ROOT = Path(__file__).resolve().parent.parent
HEADER = "Content-Security-Policy"


def policy(response) -> dict[str, list[str]]:
    """The response's policy as {directive: [sources]}; a missing header fails the test."""
    assert HEADER in response, f"no {HEADER} on {response.request['PATH_INFO']} ({response.status_code})"
    directives: dict[str, list[str]] = {}
    for part in response[HEADER].split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def nonce_of(response) -> str | None:
    sources = policy(response).get("style-src", [])
    found = [s[len("'nonce-") : -1] for s in sources if s.startswith("'nonce-")]
    return found[0] if found else None


# --- The policy ----------------------------------------------------------------------------------


def test_the_policy_forbids_inline_script_and_foreign_sources(client, campaign, gm):
    client.force_login(gm)
    csp = policy(client.get(reverse("pages:dashboard", args=[campaign.slug])))
    assert csp["default-src"] == ["'self'"]
    assert csp["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval', no nonce
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["form-action"] == ["'self'"]
    assert csp["img-src"] == ["'self'", "data:"]
    everything = " ".join(" ".join(sources) for sources in csp.values())
    assert "'unsafe-inline'" not in csp["style-src"] and "'unsafe-eval'" not in everything


def test_the_policy_is_on_a_page_an_api_answer_the_admin_and_the_swagger_ui(client, campaign, gm):
    staff = get_user_model().objects.create_superuser("root", password="root-password-1")
    client.force_login(gm)
    for url in (
        reverse("pages:dynasty", args=[campaign.slug, Dynasty.objects.filter(campaign=campaign).first().pk]),
        reverse("api:campaign-list"),
        reverse("api:campaign-detail", args=["no-such-campaign"]),  # an error answer too
        "/api/nowhere/",
        reverse("login"),
    ):
        response = client.get(url)
        assert "'unsafe-inline'" not in policy(response)["script-src"], url
    assert Client().get(reverse("login"))[HEADER] == client.get(reverse("login"))[HEADER]  # anonymous too

    client.force_login(staff)
    for url in ("/admin/", "/admin/dynasties/character/", reverse("admin:login"), reverse("api:docs")):
        response = client.get(url)
        assert response.status_code in (200, 302), (url, response.status_code)
        assert policy(response)["script-src"] == ["'self'"], url


def test_the_swagger_ui_loads_its_start_up_script_from_the_site(client, gm):
    client.force_login(gm)
    page = client.get(reverse("api:docs"))
    assert page.status_code == 200
    html = page.content.decode()
    sources = re.findall(r'<script src="([^"]+)"', html)
    assert len(sources) == 3 and sources[-1].startswith("/api/docs/?") and "script" in sources[-1]
    script = client.get(sources[-1].replace("&amp;", "&"))
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle(" in script.content and b"/api/schema/" in script.content


def test_the_family_tree_may_be_framed_by_the_site_only(client, campaign, gm):
    """The dynasty page shows the tree's SVG in an <object>: that page may load an <object> from
    the site (no other page may load one at all), and the SVG may be framed by the site only."""
    client.force_login(gm)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    page = policy(client.get(reverse("pages:dynasty", args=[campaign.slug, england.pk])))
    assert page["object-src"] == ["'self'"] and page["frame-ancestors"] == ["'none'"]
    assert policy(client.get(reverse("pages:dashboard", args=[campaign.slug])))["object-src"] == ["'none'"]
    response = client.get(reverse("trees:tree", args=[campaign.slug, "dynasty"]), {"dynasty": england.pk})
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    csp = policy(response)
    assert csp["frame-ancestors"] == ["'self'"] and csp["script-src"] == ["'self'"]
    assert b"<script" not in response.content and b" style=" not in response.content


# --- No inline script (or style) on any page the site renders -------------------------------------


class Inline(HTMLParser):
    """Collects what the policy would block: inline <script>, on*= handlers, javascript: links,
    style="" attributes and <style> blocks without the response's nonce."""

    EXECUTABLE = {"", "text/javascript", "module", "application/javascript"}

    def __init__(self, nonce: str | None) -> None:
        super().__init__(convert_charrefs=True)
        self.nonce = nonce
        self.found: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        text = self.get_starttag_text() or tag
        if tag == "script":
            self.scripts += 1
            if not named.get("src") and (named.get("type") or "").lower() in self.EXECUTABLE:
                self.found.append(f"inline script: {text}")
        if tag == "style" and (self.nonce is None or named.get("nonce") != self.nonce):
            self.found.append(f"<style> without the nonce: {text}")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"handler {name}=: {text}")
            if name == "style":
                self.found.append(f"style attribute: {text}")
            if name in ("href", "src", "action", "formaction") and (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"javascript: URL: {text}")


def inline_in(response) -> list[str]:
    parser = Inline(nonce_of(response))
    parser.feed(response.content.decode())
    return parser.found


def _routes(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[str]:
    for entry in patterns:
        if not isinstance(entry.pattern, RoutePattern):
            continue
        route = prefix + str(entry.pattern._route)
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, route)
        else:
            yield route


def _fill(route: str, campaign: Campaign, pks: dict[str, int]) -> str:
    def value(match: re.Match[str]) -> str:
        converter, name = match.group(1) or "str", match.group(2)
        if converter == "int":
            return str(pks.get(name, pks["pk"]))
        if name == "slug" or converter == "slug":
            return campaign.slug
        if name == "year":
            return str(campaign.current_year)
        return "1" if converter == "path" else "x"

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", value, route)


def test_the_test_finds_inline_script_handlers_and_styles():
    """The control: the scanner below is not blind."""
    parser = Inline("n0nce")
    parser.feed(
        '<script>alert(1)</script><script src="/s.js"></script><script type="application/json">{}</script>'
        '<a href="JavaScript:x()">a</a><b onclick="x()">b</b><i style="color: red">c</i>'
        '<style>p {}</style><style nonce="n0nce">p {}</style>'
    )
    assert [f.split(":")[0] for f in parser.found] == [
        "inline script",
        "javascript",
        "handler onclick=",
        "style attribute",
        "<style> without the nonce",
    ]


def test_no_page_the_gm_sees_has_inline_script(client, campaign, gm):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    contract = contract_draft(
        campaign=campaign,
        kind="agreement",
        title="The Peace of Dover",
        parties=[england.pk, Dynasty.objects.get(campaign=campaign, crown="France").pk],
        clauses=[],
        by=SYSTEM_ACTOR,
    )
    character = Character.objects.filter(controlled_by=england).first()
    pks = {"pk": england.pk, "contract": contract.pk, "character": character.pk}
    urls = {_fill(route, campaign, pks) for route in _routes(get_resolver().url_patterns)}
    urls |= {
        reverse("pages:contract", args=[campaign.slug, contract.pk]),
        reverse("pages:character", args=[campaign.slug, character.pk]),
    }
    client.force_login(gm)
    pages = []
    problems: dict[str, list[str]] = {}
    for url in sorted(urls):
        response = client.get(url)
        policy(response)  # every answer, whatever its status, carries the policy
        if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
            pages.append(url)
            if found := inline_in(response):
                problems[url] = found
    assert len(pages) >= 20, pages  # the game-night pages were rendered, not refused
    for expected in (f"/c/{campaign.slug}/", f"/c/{campaign.slug}/dynasty/{england.pk}/", "/campaigns/new/"):
        assert expected in pages, expected
    assert not problems, problems


def test_no_admin_page_has_inline_script(client, campaign):
    staff = get_user_model().objects.create_superuser("root", password="root-password-1")
    client.force_login(staff)
    urls = ["/admin/"]
    for registered in admin.site._registry:
        app, model = registered._meta.app_label, registered._meta.model_name
        urls.append(reverse(f"admin:{app}_{model}_changelist"))
        first = registered._default_manager.order_by("pk").first()
        if first is not None:
            urls.append(reverse(f"admin:{app}_{model}_change", args=[first.pk]))
            urls.append(reverse(f"admin:{app}_{model}_history", args=[first.pk]))
    problems: dict[str, list[str]] = {}
    rendered = 0
    for url in urls:
        response = client.get(url)
        policy(response)
        if response.status_code == 200:
            rendered += 1
            if found := inline_in(response):
                problems[url] = found
    assert rendered >= 20
    assert not problems, problems


def test_the_tree_script_is_a_static_file(client, campaign, gm):
    client.force_login(gm)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    html = client.get(reverse("pages:dynasty", args=[campaign.slug, england.pk])).content.decode()
    (src,) = [src for src in re.findall(r'<script src="([^"]+)"', html) if "regnal-tree" in src]  # the others: every page
    script = b"".join(client.get(src).streaming_content) if src.startswith("/static/") else b""
    assert b"tree-frame" in script and b"addEventListener" in script


# --- A weak SECRET_KEY stops production ------------------------------------------------------------


def _production(secret_key: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "REGNAL_DEV", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"}}
    if secret_key is not None:
        env["SECRET_KEY"] = secret_key
    return subprocess.run(
        [sys.executable, "-c", "import config.settings_production as s; print(len(s.SECRET_KEY))"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("changeme", "is 8 characters long"),
        ("x" * 60, "has only 1 different characters"),
        ("ab" * 30, "has only 2 different characters"),
        # a fixed key: test ids must be the same in every worker of pytest-xdist
        ("django-insecure-" + "k7Qz9vW2pL4mN8xR1tY6uB3cD5fG0hJ" * 2, "starts with 'django-insecure-'"),
        ("dev-only-insecure-key-do-not-use-in-production", "is 46 characters long"),
    ],
)
def test_production_refuses_a_weak_secret_key(key, why):
    result = _production(key)
    assert result.returncode != 0
    assert f"SECRET_KEY {why}" in result.stderr, result.stderr
    assert "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'" in result.stderr
    assert key not in result.stderr  # the key itself is never printed


def test_production_starts_with_a_strong_secret_key():
    key = secrets.token_urlsafe(50)
    result = _production(key)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(len(key))
