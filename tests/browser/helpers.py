"""What the browser tests share."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.factories import seat_member


def log_in(page: Page, base_url: str, username: str, password: str) -> None:
    """Log in through the login page, as a person does, and wait until the header names the user."""
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("navigation", name="Account")).to_contain_text(username)


def seated_table(name: str, gm_password: str) -> Any:
    """A new 5-house Blood Royale campaign run by ``gm`` (``gm_password``) with alice seated as
    England's player: the table an invitation test seats the others at."""
    from django.contrib.auth import get_user_model

    from campaign.models import Role
    from dynasties.models import Dynasty
    from dynasties.services import campaign_create

    users = get_user_model()
    gm = users.objects.create_user("gm", password=gm_password)
    alice = users.objects.create_user("alice", password="alice-password-1")
    campaign = campaign_create(name=name, players=5, by=gm)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    seat_member(campaign=campaign, user=alice, role=Role.PLAYER, dynasty=england)
    return campaign
