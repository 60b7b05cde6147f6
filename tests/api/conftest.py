"""The API's test cast: the shared campaign plus an observer, and clients logged in as anyone."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from campaign.models import Membership, Role


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Requests sent straight to the WSGI application (schemathesis) close the database connection
    when they finish; inside the test's transaction that ends the test on PostgreSQL. Django's test
    client disconnects the same handlers for the same reason."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def observer(campaign, django_user_model):
    user = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def client_for(db):
    """``client_for(user)``: an API client logged in by session as ``user`` (None: anonymous)."""

    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return make


def url(campaign, resource: str = "", pk: int | None = None) -> str:
    base = f"/api/v1/campaigns/{campaign.slug}/"
    if resource:
        base += f"{resource}/"
    return base if pk is None else f"{base}{pk}/"


def assert_error(response, status: int, code: str | None = None) -> dict:
    """The response is an error of the API's one shape: ``{"code", "message", "fields"}``."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    body = response.json()
    assert set(body) == {"code", "message", "fields"}, body
    assert isinstance(body["code"], str) and body["code"]
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["fields"], dict)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in body["fields"].items())
    if code is not None:
        assert body["code"] == code, body
    return body
