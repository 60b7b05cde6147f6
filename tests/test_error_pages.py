"""Issue 19: the site's own 403, 404 and 500 pages (config/errors.py), styled like the rest with a
way back; the API keeps its JSON error shape for the same errors."""

from __future__ import annotations

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path, reverse

from config.urls import urlpatterns as site_urls

pytestmark = pytest.mark.django_db


def _boom(request: HttpRequest) -> HttpResponse:
    """A view that fails, for the 500 page."""
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", _boom), path("api/boom/", _boom), *site_urls]
handler403 = "config.errors.forbidden"
handler404 = "config.errors.not_found"
handler500 = "config.errors.server_error"


def _styled(body: str) -> None:
    assert "regnal.css" in body and 'class="brand"' in body  # the site's layout, not Django's plain page
    assert 'href="/"' in body  # a way back: the visitor's campaigns


def test_an_unknown_address_gets_the_sites_404_with_a_way_back(client: Client) -> None:
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    body = response.content.decode()
    _styled(body)
    assert "Nothing here" in body and "There is no page at this address" in body


def test_a_404_inside_a_campaign_offers_its_dashboard_to_a_member_only(
    client: Client, campaign, alice, django_user_model
) -> None:
    client.force_login(alice)
    body = client.get(f"/c/{campaign.slug}/no-such-page/").content.decode()
    assert f'href="/c/{campaign.slug}/"' in body and f"Back to {campaign.name}" in body
    stranger = django_user_model.objects.create_user("stranger", password="x")
    client.force_login(stranger)
    response = client.get(f"/c/{campaign.slug}/no-such-page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert campaign.name not in body and f'href="/c/{campaign.slug}/"' not in body  # nothing told about a campaign he is not in
    _styled(body)


def test_a_refused_page_gets_the_sites_403_with_the_reason(client: Client, campaign, alice) -> None:
    client.force_login(alice)  # a player: the Undo page is the GM's
    response = client.get(reverse("pages:undo", args=[campaign.slug]))
    assert response.status_code == 403
    body = response.content.decode()
    _styled(body)
    assert "Not allowed" in body and f"Back to {campaign.name}" in body


def test_a_form_without_its_security_token_says_to_reload(campaign, alice) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post("/logout/")
    assert response.status_code == 403
    body = response.content.decode()
    _styled(body)
    assert "The form has expired" in body and "reload the page" in body


@pytest.mark.urls("tests.test_error_pages")
def test_a_server_error_gets_the_sites_500_page(client: Client) -> None:
    client.raise_request_exception = False
    response = client.get("/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    _styled(body)
    assert "Something went wrong" in body and "Nothing was half-saved" in body


@pytest.mark.urls("tests.test_error_pages")
def test_the_api_keeps_its_json_errors(client: Client) -> None:
    missing = client.get("/api/v1/no-such-resource/")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    client.raise_request_exception = False
    failed = client.get("/api/boom/")
    assert failed.status_code == 500
    assert failed.json() == {
        "code": "server_error",
        "message": "The server met an unexpected error; nothing was saved. Try again.",
        "fields": {},
    }
