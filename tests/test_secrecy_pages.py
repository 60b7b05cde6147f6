"""The secrecy matrix of ``tests/api/matrix.py`` through the pages' door: the same table holds for
the web pages as for the API (``tests/api/test_secrecy.py``). A page one may not see answers 404;
what one may see is on the page; what one may not see is on no page one can open (lists included)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from campaign.models import Membership, Role
from tests.api.matrix import KINDS, MATRIX, ROLES, build_secrets


@pytest.fixture
def observer(campaign, django_user_model):
    user = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def cast(campaign, gm, alice, bob, observer, outsider):
    return build_secrets(campaign, gm=gm, alice=alice, bob=bob, observer=observer, outsider=outsider)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _open(client: Client, path: str) -> str | None:
    """The page's text, or None when it answers 404 (anything else is a failure)."""
    response = client.get(path, follow=True)  # a player's treasury list leads to his own exchequer
    assert response.status_code in (200, 404), (path, response.status_code)
    return response.content.decode() if response.status_code == 200 else None


def _lists(client: Client, campaign, cast) -> str:
    """Every list page a member may open, joined: a secret must not leak into any of them."""
    slug = campaign.slug
    paths = [
        reverse("pages:dashboard", args=[slug]),
        reverse("pages:contracts", args=[slug]),
        reverse("pages:treasury", args=[slug]),
        reverse("pages:announcements", args=[slug]) + "?year=1300",
        *(reverse("pages:dynasty", args=[slug, house.pk]) for house in cast.houses.values()),
    ]
    return "".join(_open(client, p) or "" for p in paths)


def pages_see(client: Client, campaign, cast, name: str, obj) -> bool:
    slug = campaign.slug
    kind = KINDS[name]
    if kind == "campaign":
        return _open(client, reverse("pages:dashboard", args=[slug])) is not None
    if kind == "character":
        page = _open(client, reverse("pages:character", args=[slug, obj.pk]))
        return page is not None and obj.given_name in page
    if kind == "exchequer":
        return _open(client, reverse("pages:exchequer", args=[slug, obj.pk])) is not None
    if kind == "posting":
        page = _open(client, reverse("pages:exchequer", args=[slug, obj.payee_id]))
        seen = page is not None and obj.reason in page
        assert seen or obj.reason not in _lists(client, campaign, cast), f"{name} leaks into a list"
        return seen
    if kind == "contract":
        page = _open(client, reverse("pages:contract", args=[slug, obj.pk]))
        seen = page is not None and obj.title in page
        assert seen or obj.title not in _lists(client, campaign, cast), f"{name} leaks into a list"
        return seen
    # a chronicle line: on the year's announcements page, or nowhere
    page = _open(client, reverse("pages:announcements", args=[slug]) + "?year=1300")
    seen = page is not None and obj.text in page
    assert seen or obj.text not in _lists(client, campaign, cast), f"{name} leaks into a list"
    return seen


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(MATRIX))
def test_the_secrecy_matrix_holds_through_the_pages(cast, campaign, name):
    seen = tuple(pages_see(_client(cast.users[r]), campaign, cast, name, cast.objects[name]) for r in ROLES)
    assert seen == MATRIX[name], dict(zip(ROLES, seen, strict=True))
