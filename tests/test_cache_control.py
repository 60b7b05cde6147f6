"""``Cache-Control`` (issue 30): every answer is ``private, no-store`` unless its view chose private
caching (``config/cache_control.py``). The sweep of every URL as every role is
``tests/test_secrecy_matrix.py::test_no_answer_is_stored_by_a_browser_or_a_proxy``; here the rule
itself, the pages a member opens at the table, the answers the middleware does not touch, and the
answers of other middleware."""

from __future__ import annotations

import re
from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from PIL import Image

from config.cache_control import PRIVATE_NO_STORE, cache_control
from dynasties.models import Dynasty


@pytest.mark.parametrize(
    ("said", "sent"),
    [
        (None, PRIVATE_NO_STORE),  # a view that says nothing: never kept
        ("", PRIVATE_NO_STORE),
        ("public, max-age=3600", PRIVATE_NO_STORE),  # public is never kept
        ("max-age=600", PRIVATE_NO_STORE),
        ("no-cache", PRIVATE_NO_STORE),
        ("no-store", PRIVATE_NO_STORE),  # the live poll: made private too
        ("private, public", PRIVATE_NO_STORE),
        ("private, max-age=86400", "private, max-age=86400"),  # a portrait: the view's own private caching
        ("max-age=0, no-cache, no-store, must-revalidate, private", "max-age=0, no-cache, no-store, must-revalidate, private"),
        ("Private, Max-Age=60", "Private, Max-Age=60"),  # directives are case-insensitive
    ],
)
def test_the_rule(said, sent):
    assert cache_control(said) == sent


def _directives(response) -> set[str]:
    return {d.strip().split("=")[0].lower() for d in response.get("Cache-Control", "").split(",") if d.strip()}


@pytest.mark.django_db
def test_what_a_member_opens_is_never_stored(client, campaign, alice):
    """The dashboard, a house's page and tree, a character sheet, the announcements' PDF, the GEDCOM
    and the API's export (the GM's) and turn: each says private, no-store."""
    client.force_login(alice)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    addresses = [
        reverse("pages:dashboard", args=[campaign.slug]),
        reverse("pages:dynasty", args=[campaign.slug, england.pk]),
        f"/trees/{campaign.slug}/dynasty/?dynasty={england.pk}&format=svg",
        reverse("print:dynasty_sheets", args=[england.pk]),
        reverse("print:announcements", args=[campaign.slug, campaign.current_year]),
        reverse("gedcom-campaign", args=[campaign.slug]),
        f"/api/v1/campaigns/{campaign.slug}/turn/",
        f"/api/v1/campaigns/{campaign.slug}/gedcom/",
        "/no/such/page/",  # an error page too
    ]
    for address in addresses:
        response = client.get(address)
        assert response.status_code in (200, 404), (address, response.status_code)
        assert response["Cache-Control"] == PRIVATE_NO_STORE, address


@pytest.mark.django_db
def test_the_export_is_never_stored(client, campaign, gm):
    client.force_login(gm)
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/export/")
    assert response.status_code == 200 and response["Cache-Control"] == PRIVATE_NO_STORE


@pytest.mark.django_db
def test_answers_of_other_middleware_are_never_stored(campaign, alice):
    """A form posted without its CSRF token is refused by Django's middleware, before any view:
    the refusal is not stored either."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(reverse("pages:births", args=[campaign.slug]), {"op": "finish"})
    assert response.status_code == 403 and response["Cache-Control"] == PRIVATE_NO_STORE


@pytest.mark.django_db
def test_a_portrait_keeps_its_own_private_caching(client, campaign, alice):
    """The portrait's view chose a day in the member's own browser (a new image has a new address):
    private, so the middleware keeps it."""
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    client.force_login(alice)
    image = BytesIO()
    Image.new("RGB", (300, 300), "navy").save(image, "PNG")
    upload = reverse("pages:portrait_upload", args=[campaign.slug, "dynasty", england.pk])
    assert client.post(upload, {"image": SimpleUploadedFile("arms.png", image.getvalue())}).status_code == 302
    answer = client.get(reverse("pages:portrait", args=[campaign.slug, "dynasty", england.pk]))
    assert answer.status_code == 200 and answer["Cache-Control"] == "private, max-age=86400"


@pytest.mark.django_db
def test_static_files_and_the_login_page(client):
    """Static files are WhiteNoise's, answered before the middleware: cacheable. The login page is
    Django's never_cache, whose words (private and no-store among them) are kept."""
    login = client.get(reverse("login"))
    assert {"private", "no-store", "no-cache"} <= _directives(login)
    (stylesheet,) = re.findall(r'href="(/static/[^"]+\.css)"', login.content.decode())[:1]
    static = client.get(stylesheet)
    assert static.status_code == 200 and "no-store" not in _directives(static)
