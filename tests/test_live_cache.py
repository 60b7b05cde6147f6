"""The live poll from the cache (issue 36): with warm caches a poll makes no query (the session with
``cached_db``, who asks and his seat, the campaign's counters); a committed write is in the cache
when it commits, nothing before, and a rolled-back write never; a membership, a seat or a password
changed is read again. The suite's other tests poll the database (config/settings_test.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign import live
from campaign.models import Campaign, Membership, Role
from campaign.permissions import Seen
from dynasties.models import Dynasty, seat_write
from dynasties.treasury import treasury_transfer

pytestmark = pytest.mark.django_db


@pytest.fixture
def cached(settings):
    """The live cache on (a locmem cache of its own, empty) and sessions through the cache."""
    settings.CACHES = {
        **settings.CACHES,
        "live": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "regnal-live-test"},
    }
    settings.REGNAL_LIVE_CACHE = "live"
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    from django.core.cache import caches

    caches["live"].clear()
    caches["default"].clear()
    return caches["live"]


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def poll(client: Client, campaign: Campaign, v: object = None, **extra: str):
    params = {"v": v} if v is not None else {}
    return client.get(reverse("pages:live", args=[campaign.slug]), {**params, **extra})


def logged_in(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()  # made after the settings changed: its session middleware is cached_db
    client.force_login(user)
    return client


def test_a_warm_poll_makes_no_query(cached, campaign, alice):
    client = logged_in(alice)
    now = live.viewer_version(alice, campaign)
    assert poll(client, campaign, now).status_code == 204  # cold: the seat and the counters read, cached
    with CaptureQueriesContext(connection) as queries:
        still = poll(client, campaign, now)
        moved = poll(client, campaign, now - 1)
        public = poll(client, campaign, "x", **{"as": "public"})
    assert [q["sql"] for q in queries] == []
    assert still.status_code == 204 and still.content == b"" and still["Cache-Control"] == "private, no-store"
    assert moved.status_code == 200 and moved.json() == {"version": now}
    assert public.json() == {"version": live.member_version(alice, campaign.slug, public=True)}
    assert "sessionid" not in still.cookies  # nothing written


def test_the_gm_s_and_an_observer_s_warm_polls_make_no_query_and_an_outsider_gets_404(cached, campaign, gm, outsider):
    watcher = get_user_model().objects.create_user("watcher")
    Membership.objects.create(campaign=campaign, user=watcher, role=Role.OBSERVER)
    for user in (gm, watcher, outsider):
        client = logged_in(user)
        expected = live.member_version(user, campaign.slug)
        first = poll(client, campaign, "x")
        with CaptureQueriesContext(connection) as queries:
            again = poll(client, campaign, "x")
        if expected is None:  # the 404 page is drawn (its queries are the page's); no seat is remembered
            assert first.status_code == again.status_code == 404
            assert cached.get(f"regnal:live:who:{user.pk}")["seats"] == {campaign.slug: None}
        else:
            assert len(queries) == 0, [q["sql"] for q in queries]
            assert first.json() == again.json() == {"version": expected}


def test_a_committed_write_is_in_the_next_poll_with_no_query(cached, campaign, alice, gm, django_capture_on_commit_callbacks):
    client = logged_in(alice)
    now = live.viewer_version(alice, campaign)
    assert poll(client, campaign, now).status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=1, reason="Alms", by=gm)
    with CaptureQueriesContext(connection) as queries:
        moved = poll(client, campaign, now)
    assert len(queries) == 0, [q["sql"] for q in queries]
    assert moved.json() == {"version": now + 1} == {"version": live.viewer_version(alice, campaign)}
    with django_capture_on_commit_callbacks(execute=True):  # France's money: not hers to see
        treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "France"), amount=1, reason="Alms", by=gm)
    assert poll(client, campaign, now + 1).status_code == 204


def test_nothing_is_seen_before_its_write_commits_and_a_rollback_moves_nothing(
    cached, campaign, alice, django_capture_on_commit_callbacks
):
    client = logged_in(alice)
    now = live.viewer_version(alice, campaign)
    assert poll(client, campaign, now).status_code == 204
    seen_inside = []

    def refused() -> None:
        with transaction.atomic():
            live.lock_and_raise(campaign.pk, Seen.ALL)
            seen_inside.append(poll(client, campaign, now).status_code)  # written, not committed
            raise RuntimeError("refused")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        refused()
    assert seen_inside == [204]  # not seen before its commit
    assert poll(client, campaign, now).status_code == 204  # rolled back: nothing moved
    assert live.viewer_version(alice, campaign) == now
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        live.lock_and_raise(campaign.pk, Seen.ALL)
        assert poll(client, campaign, now).status_code == 204  # still not committed
    assert poll(client, campaign, now).json() == {"version": now + 1}


def test_commits_whose_callbacks_run_out_of_order_leave_the_newest(cached, campaign):
    live._publish(campaign.pk, 7, {"public": 5, "1": 2})
    live._publish(campaign.pk, 6, {"public": 4, "1": 3})  # an older write's callback, run late
    assert cached.get(f"regnal:live:v:{campaign.pk}") == (7, {"public": 5, "1": 3})


def test_a_membership_a_seat_and_a_password_changed_are_read_again(
    cached, campaign, alice, gm, django_capture_on_commit_callbacks
):
    client = logged_in(alice)
    membership = Membership.objects.get(campaign=campaign, user=alice)
    as_england = live.viewer_version(alice, campaign)
    assert poll(client, campaign, as_england).status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):  # France's money: not England's
            treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "France"), amount=1, reason="Alms", by=gm)
    assert poll(client, campaign, as_england).status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        Membership.objects.filter(campaign=campaign).exclude(user=alice).filter(role=Role.PLAYER).update(role=Role.OBSERVER)
        seat_write(membership, house(campaign, "France"))  # her seat moves: her count is France's
    as_france = live.viewer_version(alice, campaign)
    assert as_france != as_england
    assert poll(client, campaign, as_england).json() == {"version": as_france}
    with django_capture_on_commit_callbacks(execute=True):
        membership.role = Role.OBSERVER
        membership.save()
    assert poll(client, campaign, as_france).json() == {"version": live.member_version(alice, campaign.slug, public=True)}
    with django_capture_on_commit_callbacks(execute=True):
        membership.delete()
    assert poll(client, campaign, 0).status_code == 404  # no longer a member
    with django_capture_on_commit_callbacks(execute=True):
        Membership.objects.create(campaign=campaign, user=alice, role=Role.OBSERVER)
    assert poll(client, campaign, "x").json() == {"version": live.member_version(alice, campaign.slug)}
    with django_capture_on_commit_callbacks(execute=True):
        alice.set_password("a-new-password-1")
        alice.save()
    assert poll(client, campaign, 0).status_code == 404  # the old session is over (Django's check)


def test_a_cache_left_behind_is_checked_when_the_page_is_newer(cached, campaign, alice, gm):
    client = logged_in(alice)
    before = live.viewer_version(alice, campaign)
    assert poll(client, campaign, before).status_code == 204
    treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=1, reason="Alms", by=gm)
    # no commit callback ran (a race's outcome): the cache still says ``before``
    assert poll(client, campaign, before).status_code == 204
    assert poll(client, campaign, before + 1).status_code == 204  # the page is newer: the database says so
    assert poll(client, campaign, before).json() == {"version": before + 1}  # and the cache was mended


@pytest.mark.django_db(transaction=True)
def test_with_the_database_cache_every_server_reads_the_same_counters_and_no_game_table(settings, campaign, alice, gm):
    """The production default without Redis: the counters and who asks in ``regnal_cache``, shared
    by every process; a write that really commits (no test transaction around it) is there."""
    settings.CACHES = {
        **settings.CACHES,
        "shared": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "regnal_cache"},
    }
    settings.REGNAL_LIVE_CACHE = "shared"
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    settings.SESSION_CACHE_ALIAS = "shared"
    client = logged_in(alice)
    now = live.viewer_version(alice, campaign)
    assert poll(client, campaign, now).status_code == 204
    with CaptureQueriesContext(connection) as queries:
        assert poll(client, campaign, now).status_code == 204
    assert queries and all("regnal_cache" in q["sql"] for q in queries), [q["sql"] for q in queries]
    treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=1, reason="Alms", by=gm)
    with CaptureQueriesContext(connection) as queries:
        moved = poll(client, campaign, now)
    assert moved.json() == {"version": now + 1}
    assert all("regnal_cache" in q["sql"] for q in queries), [q["sql"] for q in queries]


class BrokenCache(LocMemCache):
    """A cache server gone: every call fails."""

    def get(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise ConnectionError("no cache")

    add = set = delete = get


def test_a_failing_cache_fails_neither_a_write_nor_a_poll(settings, campaign, alice, gm, django_capture_on_commit_callbacks):
    settings.CACHES = {**settings.CACHES, "live": {"BACKEND": "tests.test_live_cache.BrokenCache"}}
    settings.REGNAL_LIVE_CACHE = "live"
    client = logged_in(alice)
    now = live.viewer_version(alice, campaign)
    assert poll(client, campaign, now).status_code == 204  # the database answers
    with django_capture_on_commit_callbacks(execute=True):
        treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=1, reason="Alms", by=gm)
        Membership.objects.get(campaign=campaign, user=alice).save()  # a seat written: who asks forgotten (fails)
    after = live.viewer_version(alice, campaign)
    assert after > now  # committed
    assert poll(client, campaign, now).json() == {"version": after}
