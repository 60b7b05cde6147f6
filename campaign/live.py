"""The live table's clock: ``Campaign.live_version`` counts every write to a campaign, and
``Campaign.live_seen`` counts, for each audience, the writes it sees.

Every service that writes locks the campaign first (``campaign.steps.lock_campaign``: step actions,
desk change sets, undo and redo, the treasury, contracts, notes and portraits) and says who sees
the write (``seen=``, a :class:`~campaign.permissions.Seen`: every member, every player, the houses
it concerns, or by default the GM alone). The lock is the raise itself: one ``UPDATE ... SET
live_version = live_version + 1[, live_seen = <its audience's counters + 1>] ... RETURNING`` takes
the row lock, raises the counters and reads the row, in the caller's transaction. What a write
turns out to show only once it is made (a chronicle line's readers, the rows a desk save or an
undo changed) is added by :func:`reveal` in the same transaction. So the new version is seen
exactly when the write is (a refused action rolls it back), by every server process (the database
is the truth; the poll's cache, below, a copy put there when the write commits).

A member polls his own version (:func:`member_version`, ``campaign.permissions.live_count``): the
GM every write, a player the public writes, the players' and his house's, an observer the public
ones. So nobody's poll moves, nor his page rebuilds, on a write he may not see, and the number he
reads counts only writes he sees. Open pages poll it and rebuild themselves when it moved
(``pages.live``); with warm caches the poll reads no database (:func:`session_version`)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model, load_backend
from django.core.cache import BaseCache, caches
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import request_started
from django.db import connections, router, transaction
from django.db.models.signals import post_delete, post_save
from django.utils.crypto import constant_time_compare

from campaign import registry
from campaign.models import Campaign, Membership, Role
from campaign.permissions import Seen, live_count, role_of
from rules.errors import NotFound

_SEEN = "live_seen"
logger = logging.getLogger(__name__)


def _counters_sql(connection: Any, keys: list[str]) -> tuple[str, list[Any]]:
    """``live_seen`` with each of ``keys`` raised by one, as SQL (a JSON object's keys; SQLite and
    PostgreSQL, the databases Regnal runs on)."""
    qn = connection.ops.quote_name
    column = qn(_SEEN)
    params: list[Any] = []
    if connection.vendor == "postgresql":
        pairs = []
        for key in keys:
            pairs.append(f"%s::text, COALESCE(({column} ->> %s)::bigint, 0) + 1")
            params += [key, key]
        return f"{column} || jsonb_build_object({', '.join(pairs)})", params
    if connection.vendor == "sqlite":
        pairs = []
        for key in keys:
            pairs.append(f"%s, COALESCE(json_extract({column}, %s), 0) + 1")
            params += [key, f'$."{key}"']
        return f"json_patch({column}, json_object({', '.join(pairs)}))", params
    raise ImproperlyConfigured(f"The live table's counters are kept on SQLite or PostgreSQL, not on {connection.vendor}.")


def _update(using: str, pk: int, *, total: bool, seen: Seen, returning: list[Any]) -> tuple[Any, ...] | None:
    """One ``UPDATE`` of the campaign's counters (the total if ``total``, the audience's), reading
    back the columns ``returning`` (fields); without RETURNING (SQLite before 3.35) an update, then
    a read. None: no such campaign."""
    connection = connections[using]
    qn = connection.ops.quote_name
    table, key = qn(Campaign._meta.db_table), qn(registry.column(Campaign._meta.pk))
    sets: list[str] = []
    params: list[Any] = []
    if total:
        sets.append(f"{qn('live_version')} = {qn('live_version')} + 1")
    keys = seen.counters()
    if keys:
        sql, params = _counters_sql(connection, keys)
        sets.append(f"{qn(_SEEN)} = {sql}")
    if not connection.features.can_return_columns_from_insert:
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET {', '.join(sets)} WHERE {key} = %s", [*params, pk])  # noqa: S608 (names, not input)
            if not cursor.rowcount:
                return None
        if not returning:
            return ()
        return tuple(Campaign.objects.using(using).filter(pk=pk).values_list(*[f.attname for f in returning]).get())
    columns = ", ".join(qn(f.column) for f in returning)
    sql = f"UPDATE {table} SET {', '.join(sets)} WHERE {key} = %s RETURNING {columns}"  # noqa: S608 (names, not input)
    with connection.cursor() as cursor:  # closed even on an error: SQLite rolls back no statement in progress
        cursor.execute(sql, [*params, pk])
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for f, value in zip(returning, row, strict=True):  # converted as a query would (JSON text, booleans, times)
        col = f.get_col(Campaign._meta.db_table)
        for convert in connection.ops.get_db_converters(col) + col.get_db_converters(connection):
            value = convert(value, col, connection)
        values.append(value)
    return tuple(values)


def _in_transaction(using: str, what: str) -> None:
    if transaction.get_autocommit(using):
        raise transaction.TransactionManagementError(f"{what} needs a transaction (the lock would end at once).")


def lock_and_raise(pk: int, seen: Seen = Seen.GM) -> Campaign:
    """Lock the campaign's row for the rest of the transaction and count a write ``seen`` by its
    audience: one statement (the query count of a locking read). Unmarked, a write is the GM's
    alone. Raises :class:`NotFound` for no such campaign."""
    using = router.db_for_write(Campaign)
    _in_transaction(using, "lock_and_raise")
    fields = list(Campaign._meta.concrete_fields)
    if not connections[using].features.can_return_columns_from_insert:  # two statements
        row = _update(using, pk, total=True, seen=seen, returning=[])
        if row is None:
            raise NotFound(f"There is no campaign #{pk}.")
        raised = Campaign.objects.using(using).get(pk=pk)
    else:
        values = _update(using, pk, total=True, seen=seen, returning=fields)
        if values is None:
            raise NotFound(f"There is no campaign #{pk}.")
        raised = Campaign.from_db(using, [f.attname for f in fields], list(values))
    _locked(using).update({pk: seen})
    version, counters = raised.live_version, dict(raised.live_seen or {})
    transaction.on_commit(lambda: _committed(pk, version, counters), using=using)
    return raised


def reveal(campaign: Campaign | int, seen: Seen) -> None:
    """The write the campaign was locked for (:func:`lock_and_raise`, in this transaction) is seen
    by ``seen`` too: raise the counters of whom it adds (one statement; none when the lock's audience
    already covers it). A chronicle line's readers, the rows a desk save or an undo changed. Nothing
    when the campaign was not locked in this thread (a campaign being created: nobody polls it yet)."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    using = router.db_for_write(Campaign)
    known = _locked(using).get(pk)
    if known is None:
        return
    if transaction.get_autocommit(using):  # the lock's transaction is over (it was rolled back)
        _locked(using).pop(pk, None)
        return
    extra = seen.beyond(known)
    if not extra.counters():
        return
    counted = [Campaign._meta.get_field("live_version"), Campaign._meta.get_field(_SEEN)]
    row = _update(using, pk, total=False, seen=extra, returning=counted)
    if row is None:
        raise NotFound(f"There is no campaign #{pk}.")
    version, counters = row[0], dict(row[1] or {})
    _locked(using)[pk] = known | seen
    if isinstance(campaign, Campaign):
        campaign.live_seen = counters
    transaction.on_commit(lambda: _committed(pk, version, counters), using=using)


_state = threading.local()
"""This thread's live state: ``locked`` (by database, each campaign's audience as this thread's
newest lock of it raised it, and what was revealed since) and ``written`` (the counters its
committed writes left, by campaign, since its request began: a request that writes, then draws a
page, shows the version its own write made)."""


def _locked(using: str) -> dict[int, Seen]:
    by_db: dict[str, dict[int, Seen]] | None = getattr(_state, "locked", None)
    if by_db is None:
        by_db = _state.locked = {}
    return by_db.setdefault(using, {})


def _written() -> dict[int, tuple[int, dict[str, int]]]:
    seen: dict[int, tuple[int, dict[str, int]]] | None = getattr(_state, "written", None)
    if seen is None:
        seen = _state.written = {}
    return seen


def _forget(**kwargs: Any) -> None:
    _state.written = {}
    _state.locked = {}


request_started.connect(_forget, dispatch_uid="campaign.live.forget")


SEAT_FIELDS = frozenset({"campaign", "user", "role", "house"})


def seat_changed(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """A seat taken, moved or given up in a write that locked the campaign (the desk, the links):
    every member sees who plays whom (the dashboard). A member's own dice preference is his. The
    game connects it to its model of a member's house too (``dynasties.Seat``)."""
    if update_fields is not None and not SEAT_FIELDS & set(update_fields):
        return
    reveal(instance.campaign_id, Seen.ALL)
    _seat_forget(instance)


def _seat_forget(instance: Any) -> None:
    """A seat's member is to be read again by the poll (:func:`forget_member`): a membership names
    him; a game's seat (keyed by its membership) when it is loaded, else once the write commits
    (no query in the write itself)."""
    if isinstance(instance, Membership):
        return  # its own handler below
    user_id = getattr(instance, "user_id", None)
    if user_id is not None:
        forget_member(user_id)
        return
    field = type(instance)._meta.get_field("membership") if hasattr(instance, "membership_id") else None
    if field is None or _cache() is None:
        return
    if field.is_cached(instance):
        forget_member(instance.membership.user_id)
        return
    membership_id = instance.membership_id

    def later() -> None:
        forget_member(Membership.objects.filter(pk=membership_id).values_list("user_id", flat=True).first())

    transaction.on_commit(later, using=router.db_for_write(Membership))


post_save.connect(seat_changed, sender=Membership, dispatch_uid="campaign.live.seat_saved")
post_delete.connect(seat_changed, sender=Membership, dispatch_uid="campaign.live.seat_deleted")


def _committed(pk: int, version: int, counters: dict[str, Any]) -> None:
    _publish(pk, version, counters)
    for locked in (getattr(_state, "locked", None) or {}).values():
        locked.pop(pk, None)  # its transaction is over
    written = _written()
    old_version, old = written.get(pk, (0, {}))
    merged = dict(old)
    for key, value in counters.items():
        merged[key] = max(int(value), int(old.get(key, 0)))
    written[pk] = (max(version, old_version), merged)


def page_version(campaign: Campaign, role: str | None, dynasty: int | None) -> int:
    """The version a page about ``campaign`` shows its viewer (``role``, his house ``dynasty``):
    his count (``campaign.permissions.live_count``) as read with the campaign before the page's data
    (so the data is at least that new), or as this request's own write committed it since, if higher
    (a form sent, then the page drawn again, must not take its own write for news)."""
    shown = live_count(role, dynasty, campaign.live_version, campaign.live_seen)
    written = _written().get(campaign.pk)
    if written is not None:
        shown = max(shown, live_count(role, dynasty, *written))
    return shown


def version(campaign: Campaign | int) -> int:
    """The campaign's live version as the database has it now: every write (0 for no such campaign)."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    return Campaign.objects.filter(pk=pk).values_list("live_version", flat=True).first() or 0


def viewer_version(user: Any, campaign: Campaign | int) -> int | None:
    """The version ``user`` polls for ``campaign`` as the database has it now (None: not a member)."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    role, dynasty = role_of(user, pk)
    if role is None:
        return None
    row = Campaign.objects.filter(pk=pk).values_list("live_version", _SEEN).first()
    return None if row is None else live_count(role, dynasty, row[0], row[1])


def member_version(user: Any, slug: str, *, public: bool = False) -> int | None:
    """The live version of the campaign ``slug`` as ``user`` sees it if he is one of its members (a
    superuser: every campaign's, as its GM), else None: one query. ``public``: the count of the
    public writes, whoever asks (what an observer sees: a screen the whole table looks at)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    if getattr(user, "is_superuser", False):
        counts = Campaign.objects.filter(slug=slug).values_list("live_version", _SEEN).first()
        found = None if counts is None else (Role.GM, None, *counts)
    else:
        seat = Membership.objects.filter(user=user, campaign__slug=slug)
        found = seat.values_list("role", registry.seats().house, "campaign__live_version", f"campaign__{_SEEN}").first()
    if found is None:
        return None
    role, dynasty, version, seen = found
    return live_count(Role.OBSERVER, None, version, seen) if public else live_count(role, dynasty, version, seen)


# --- the poll's cache -------------------------------------------------------------------------------
#
# The poll reads nothing from the database when its answers are in the cache (the setting
# REGNAL_LIVE_CACHE names the alias, empty: none, every poll reads the database as above):
# - ``regnal:live:v:<pk>``: the campaign's (live_version, live_seen), put there when a write commits
#   (its ``on_commit``, merged with what is there: every counter only grows, so the newest wins
#   whatever order two commits' callbacks run in) and, on a miss, read from the database once and
#   added (``add``: never over a value a commit put). A rolled-back write puts nothing.
# - ``regnal:live:who:<user>``: who is asking: his session's hash, whether he is a superuser, and
#   for each campaign he polled his seat (its pk, his role and house, or None: no member). Deleted
#   when his user row, a membership or a seat of his is written (at once and when it commits).
# Both expire after REGNAL_LIVE_CACHE_SECONDS: the bound on a value a race left stale (a poll that
# read the database just before a commit and filled the cache just after its callback ran).

_KEY_VERSION = "regnal:live:v:{}"
_KEY_WHO = "regnal:live:who:{}"
_WHO_SEATS_MAX = 32  # campaigns remembered for one user (a user polling random slugs fills no more)


def _cache() -> BaseCache | None:
    alias = getattr(settings, "REGNAL_LIVE_CACHE", "default")
    return caches[alias] if alias else None


def _ttl() -> int:
    return int(getattr(settings, "REGNAL_LIVE_CACHE_SECONDS", 60))


def _merged(old: Any, version: int, counters: dict[str, Any]) -> tuple[int, dict[str, int]]:
    new = {key: int(value) for key, value in counters.items()}
    if not old:
        return version, new
    old_version, old_counters = old
    for key, value in old_counters.items():
        new[key] = max(int(value), new.get(key, 0))
    return max(int(old_version), version), new


def _publish(pk: int, version: int, counters: dict[str, Any]) -> None:
    """A committed write's counters into the cache (merged: nothing goes back)."""
    cache = _cache()
    if cache is None:
        return
    key = _KEY_VERSION.format(pk)
    try:
        cache.set(key, _merged(cache.get(key), version, counters), _ttl())
    except Exception:  # the write is committed whatever the cache does; a poll then reads the database
        logger.warning("The live cache could not take campaign #%s's counters", pk, exc_info=True)
        _drop(cache, key)


def _counters(cache: BaseCache, pk: int, *, check: bool = False) -> tuple[int, dict[str, int]] | None:
    """The campaign's counters from the cache, else (or ``check``: the cache may be behind) from the
    database, then cached. None: no such campaign."""
    key = _KEY_VERSION.format(pk)
    if not check:
        found = cache.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
    row = Campaign.objects.filter(pk=pk).values_list("live_version", _SEEN).first()
    if row is None:
        return None
    value = (int(row[0]), {k: int(v) for k, v in (row[1] or {}).items()})
    if check:
        value = _merged(cache.get(key), *value)
        cache.set(key, value, _ttl())
    elif not cache.add(key, value, _ttl()):
        return _merged(cache.get(key), *value)
    return value


def forget_member(user_id: Any) -> None:
    """Who ``user_id`` is and where he sits is to be read again (now, and when the write commits)."""
    cache = _cache()
    if cache is None or user_id is None:
        return
    key = _KEY_WHO.format(user_id)
    _drop(cache, key)
    transaction.on_commit(lambda: _drop(cache, key), using=router.db_for_write(Membership))


def _drop(cache: BaseCache, key: str) -> None:
    """Delete ``key``; a cache that fails must not fail the write (its entry expires anyway)."""
    try:
        cache.delete(key)
    except Exception:
        logger.warning("The live cache could not forget %s (it expires within REGNAL_LIVE_CACHE_SECONDS)", key, exc_info=True)


def _user_saved(sender: Any, instance: Any, **kwargs: Any) -> None:
    forget_member(instance.pk)


def _membership_written(sender: Any, instance: Any, **kwargs: Any) -> None:
    forget_member(instance.user_id)


def _who(cache: BaseCache, session: Any) -> tuple[dict[str, Any], str] | None:
    """Who the session is (his cached record and its key), as ``django.contrib.auth.get_user`` would
    find him; None when it would not (no login, another backend, a changed password: the slow path,
    Django's own, decides)."""
    backend_path = session.get(BACKEND_SESSION_KEY)
    user_id, session_hash = session.get(SESSION_KEY), session.get(HASH_SESSION_KEY)
    if user_id is None or not session_hash or backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    key = _KEY_WHO.format(user_id)
    who = cache.get(key)
    if who is None or who.get("backend") != backend_path:
        try:
            pk = get_user_model()._meta.pk.to_python(user_id)
        except Exception:  # (Django's get_user treats a bad id as no user too)
            return None
        user = load_backend(backend_path).get_user(pk)
        if user is None or not hasattr(user, "get_session_auth_hash"):
            return None
        who = {"backend": backend_path, "hash": user.get_session_auth_hash(), "super": bool(user.is_superuser), "seats": {}}
        cache.set(key, who, _ttl())
    if not constant_time_compare(session_hash, who["hash"]):
        return None
    return who, key


def session_version(session: Any, slug: str, *, public: bool = False, asked: str | None = None) -> tuple[bool, int | None]:
    """What :func:`member_version` says for the user logged in by ``session``, from the cache:
    (True, the version or None for no member), or (False, None) when the cache cannot say who
    asks (no cache, no login, a session Django would refuse): ask :func:`member_version` then.
    With warm caches, no query. ``asked``: the version the page has; one above the cache's is
    checked against the database (a cache left behind by a race)."""
    cache = _cache()
    if cache is None:
        return False, None
    try:
        return _from_cache(cache, session, slug, public=public, asked=asked)
    except Exception:  # a cache that fails (Redis gone): the database answers, as without one
        logger.warning("The live cache failed; the poll reads the database", exc_info=True)
        return False, None


def _from_cache(cache: BaseCache, session: Any, slug: str, *, public: bool, asked: str | None) -> tuple[bool, int | None]:
    found = _who(cache, session)
    if found is None:
        return False, None
    who, key = found
    seats: dict[str, Any] = who["seats"]
    if slug in seats:
        seat = seats[slug]
    else:
        if who["super"]:
            pk = Campaign.objects.filter(slug=slug).values_list("pk", flat=True).first()
            seat = None if pk is None else (pk, Role.GM, None)
        else:
            user_id = session.get(SESSION_KEY)
            row = (
                Membership.objects.filter(user_id=user_id, campaign__slug=slug)
                .values_list("campaign_id", "role", registry.seats().house)
                .first()
            )
            seat = None if row is None else tuple(row)
        if len(seats) < _WHO_SEATS_MAX:
            seats[slug] = seat
            cache.set(key, who, _ttl())
    if seat is None:
        return True, None
    pk, role, dynasty = seat
    counts = _counters(cache, pk)
    if counts is None:
        return True, None
    role = Role.OBSERVER if public else role
    shown = live_count(role, dynasty if not public else None, *counts)
    if asked is not None and asked.isdigit() and int(asked) > shown:
        counts = _counters(cache, pk, check=True)
        if counts is None:
            return True, None
        shown = live_count(role, dynasty if not public else None, *counts)
    return True, shown


post_save.connect(_membership_written, sender=Membership, dispatch_uid="campaign.live.member_saved")
post_delete.connect(_membership_written, sender=Membership, dispatch_uid="campaign.live.member_deleted")
post_save.connect(_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="campaign.live.user_saved")
post_delete.connect(_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="campaign.live.user_deleted")


__all__ = [
    "Seen",
    "forget_member",
    "lock_and_raise",
    "member_version",
    "page_version",
    "reveal",
    "seat_changed",
    "session_version",
    "version",
    "viewer_version",
]
