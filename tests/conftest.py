"""The shared cast: a GM, two rival players, an outsider, and a seeded Blood Royale campaign."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from campaign.models import Campaign, Membership, Role
from dynasties.models import Dynasty
from dynasties.rules.dice import RandomSource
from dynasties.services import campaign_create


@pytest.fixture
def gm(db):
    return get_user_model().objects.create_user("gm", password="gm-password-1")


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="alice-password-1")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob", password="bob-password-1")


@pytest.fixture
def outsider(db):
    return get_user_model().objects.create_user("outsider", password="outsider-password-1")


@pytest.fixture
def campaign(db, gm, alice, bob) -> Campaign:
    """Five dynasties (England ... Spain); the GM runs it, Alice plays England and Bob France."""
    c = campaign_create(name="Test Campaign", players=5, source=RandomSource(7), by=gm)
    england = Dynasty.objects.get(campaign=c, crown="England")
    france = Dynasty.objects.get(campaign=c, crown="France")
    Membership.objects.create(campaign=c, user=alice, role=Role.PLAYER, dynasty=england)
    Membership.objects.create(campaign=c, user=bob, role=Role.PLAYER, dynasty=france)
    return c


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``postgres`` need PostgreSQL: on SQLite they are deselected (not skipped);
    ``make test`` runs them in its second run, on a throwaway PostgreSQL server."""
    from django.conf import settings

    if "postgresql" in str(settings.DATABASES["default"]["ENGINE"]):
        return
    drop = [item for item in items if item.get_closest_marker("postgres")]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [item for item in items if not item.get_closest_marker("postgres")]
