"""What the table events' tests share: clients logged in as a member, an event's page and API path."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.undo import new_action_key


def logged(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def page(campaign, key: str) -> str:
    return reverse("pages:event", args=[campaign.slug, key])


def endpoint(campaign, key: str) -> str:
    return f"/api/v1/campaigns/{campaign.slug}/events/{key}/"


def key() -> str:
    return new_action_key()
