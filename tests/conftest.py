"""The shared cast: a GM, two rival players, an outsider, and a seeded Blood Royale campaign."""

from __future__ import annotations

import warnings

import pytest
from django.contrib.auth import get_user_model

from campaign.models import Campaign, Membership, Role
from dynasties.models import Dynasty
from dynasties.services import campaign_create
from rules.dice import RandomSource


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
        # long simulated campaigns check the rules, not the database: SQLite's run has them (inside one
        # test transaction PostgreSQL's planner has no statistics and their queries crawl)
        drop = [item for item in items if item.get_closest_marker("long_simulation")]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = [item for item in items if not item.get_closest_marker("long_simulation")]
        return
    drop = [item for item in items if item.get_closest_marker("postgres")]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [item for item in items if not item.get_closest_marker("postgres")]


@pytest.fixture(scope="session", autouse=True)
def _no_database_session_left_open(django_db_setup, django_db_blocker):
    """On PostgreSQL, a connection some thread left open (a live server's request thread cut short
    by a browser test's end, say) would stop the test database from being dropped. At the end of
    the run such sessions are named in a warning (with their last query, to find the culprit) and
    closed, so the teardown drops the database cleanly."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, application_name, state, left(query, 200) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        left = cursor.fetchall()
        for pid, *_ in left:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    if left:
        warnings.warn(f"{len(left)} database session(s) were left open and are now closed: {left}", stacklevel=1)
