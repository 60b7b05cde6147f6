"""The shared cast: a GM, two rival players, an outsider, and a seeded Blood Royale campaign."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from campaign.models import Campaign, Role
from dynasties.models import Dynasty
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests import profiles  # noqa: F401  (loads the Hypothesis profile before any test module)
from tests.factories import seat_member

TESTS = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _artifacts_in_tmp(settings, tmp_path):
    """Each test's files (rendered trees: campaign.artifacts) in its own directory, not var/media."""
    settings.MEDIA_ROOT = str(tmp_path / "media")


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
    """Five dynasties (England ... Spain); the GM runs it, Alice plays England and Bob France. Optional
    rule E (Event Cards: Pretenders and bastards) is in force, as every Blood Royale campaign had it
    before it was a setting."""
    c = campaign_create(name="Test Campaign", players=5, optional_rules={"event_cards": True}, source=RandomSource(7), by=gm)
    england = Dynasty.objects.get(campaign=c, crown="England")
    france = Dynasty.objects.get(campaign=c, crown="France")
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=england)
    seat_member(campaign=c, user=bob, role=Role.PLAYER, dynasty=france)
    return c


# What differs by database: make test runs these on PostgreSQL too. The browser and API suites run on
# PostgreSQL only (make test leaves them out of SQLite's run: SQLite gains nothing the rest of its run
# does not check); the other names run on both. Everything else runs on SQLite only: pure rules,
# validation, rendering, the policy's filters and the long simulations, which no database changes.
# Directories and files under tests/; a name here that no longer exists fails the collection.
DATABASE_SUITES = (
    "browser/",  # the whole browser suite (PostgreSQL only)
    "api/",  # the whole API suite (PostgreSQL only)
    "test_concurrency.py",  # row locks, two GMs at once
    "test_faults.py",  # atomicity when any write fails
    "test_undo.py",  # undo restores rows raw under deferred constraints
    "test_undo_changes.py",  # the change log's triggers, written per database
    "test_undo_redo.py",  # redo writes rows again raw, read as the triggers log them
    "test_membership_undo.py",  # members and their chronicle lines around an undo, through the triggers
    "test_audit.py",  # the audit trail's bulk writes
    "test_exchange.py",  # export/import: JSON fields, constraint names in integrity errors
    "test_query_counts.py",  # the queries each step makes
    "test_query_counts_births.py",  # one Births pair through the page and the API, counted
    "test_jobs.py",  # the task queue's table, a job seen from another connection
    "test_building.py",  # a campaign not open for play: its row lock, its set-up retried, deleted raw
    "test_accounts.py",  # usernames: iexact (Unicode on PostgreSQL, ASCII on SQLite), the unique keys
)


def _suite(item: pytest.Item) -> str | None:
    path = str(item.path.relative_to(TESTS)).replace("\\", "/")
    return next((s for s in DATABASE_SUITES if path == s or (s.endswith("/") and path.startswith(s))), None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the tests that differ by database ``database`` (DATABASE_SUITES). Tests marked
    ``postgres`` need PostgreSQL: on SQLite they are deselected (not skipped); ``make test`` runs
    them in its second run, on a throwaway PostgreSQL server."""
    from django.conf import settings

    for name in DATABASE_SUITES:
        if not (TESTS / name).exists():
            raise pytest.UsageError(f"tests/conftest.py DATABASE_SUITES names {name}, which does not exist")
    for item in items:
        if _suite(item):
            item.add_marker(pytest.mark.database)
    _long_ones_first(items)
    _unique_ids_for_scoped_distribution(config, items)
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


def _long_one(item: pytest.Item) -> bool:
    """A long test (marked ``long``, a long simulated campaign, or one of a module kept on one worker
    by its ``xdist_group``) that may run before the others: not a transactional one, which
    pytest-django keeps after the rest (it empties the database when it ends)."""
    if not any(item.get_closest_marker(name) for name in ("long", "long_simulation", "xdist_group")):
        return False
    db = item.get_closest_marker("django_db")
    transactional = db is not None and bool(db.kwargs.get("transaction") or db.kwargs.get("reset_sequences"))
    return not (transactional or {"transactional_db", "live_server"} & set(getattr(item, "fixturenames", ())))


def _unique_ids_for_scoped_distribution(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-xdist's --dist loadgroup (and loadscope, loadfile) keeps one test per node id: tests that
    share one (schemathesis's API fuzz tests, one per operation) would be dropped without a word. Refuse."""
    dist = config.getoption("dist", default="no")
    if getattr(config.option, "loadgroup", False):  # a worker of a --dist loadgroup run (pytest-xdist sets it)
        dist = "loadgroup"
    if dist not in ("loadgroup", "loadscope", "loadfile"):
        return
    counts = Counter(item.nodeid for item in items)
    shared = sorted(nodeid for nodeid, n in counts.items() if n > 1)
    if shared:
        raise pytest.UsageError(
            f"--dist {dist} would run one test of each of these node ids and drop the rest: {', '.join(shared[:3])}; "
            "run them with --dist load (make test does for PostgreSQL's run, which has the API fuzz tests)"
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    """On a worker of a --dist loadgroup run, each test marked ``xdist_group`` must carry its group in
    its node id (``...@group``), which is how pytest-xdist keeps a group on one worker. pytest 9.2
    stopped that silently (pytest-dev/pytest-xdist#1386: each module fixture was built on both
    workers); refuse rather than run the groups split."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    split = [item.nodeid for item in session.items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if split:
        raise pytest.UsageError(
            f"--dist loadgroup would split the xdist_group of {split[0]} (and {len(split) - 1} more) across workers: "
            "this pytest and pytest-xdist do not work together (see requirements-dev.in)"
        )


def _long_ones_first(items: list[pytest.Item]) -> None:
    """pytest-xdist hands tests out in this order: the long ones first, so that the last minutes of a
    run on two workers are short tests on both, not one long test on one."""
    items[:] = [item for item in items if _long_one(item)] + [item for item in items if not _long_one(item)]


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


# A matrix test's counts (``record_property("matrix", line)``: the desk matrix's requests) are printed
# in the run's summary, from whichever worker ran it (pytest-xdist sends each report's properties).
_MATRIX_LINES: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.passed:
        _MATRIX_LINES.extend(str(value) for name, value in report.user_properties if name == "matrix")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in _MATRIX_LINES:
        terminalreporter.write_line(line)
