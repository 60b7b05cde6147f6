"""The live table's clock: ``Campaign.live_version``, raised by every write to a campaign.

Every service that writes locks the campaign first (``campaign.steps.lock_campaign``: step actions,
desk change sets, undo and redo, the treasury, contracts, notes and portraits), and the lock is the
raise itself: one ``UPDATE ... SET live_version = live_version + 1 ... RETURNING`` takes the row
lock, raises the version and reads the row, in the caller's transaction. So the new version is seen exactly when
the write is (a refused action rolls it back), by every server process (the database is the
truth, nothing is kept in memory). Open pages poll :func:`member_version` and rebuild themselves
when it moved (``pages.live``)."""

from __future__ import annotations

import threading
from typing import Any

from django.core.signals import request_started
from django.db import connections, router, transaction
from django.db.models import F

from campaign.models import Campaign
from campaign.permissions import member_campaigns
from rules.errors import NotFound


def lock_and_raise(pk: int) -> Campaign:
    """Lock the campaign's row for the rest of the transaction and raise its live version: one
    statement (the query count of a locking read). Raises :class:`NotFound` for no such campaign."""
    using = router.db_for_write(Campaign)
    if transaction.get_autocommit(using):
        raise transaction.TransactionManagementError("lock_and_raise needs a transaction (the lock would end at once).")
    connection = connections[using]
    if not connection.features.can_return_columns_from_insert:  # no RETURNING (SQLite before 3.35): two statements
        if not Campaign.objects.using(using).filter(pk=pk).update(live_version=F("live_version") + 1):
            raise NotFound(f"There is no campaign #{pk}.")
        raised = Campaign.objects.using(using).get(pk=pk)
        transaction.on_commit(lambda: _committed(pk, raised.live_version), using=using)
        return raised
    qn = connection.ops.quote_name
    fields = Campaign._meta.concrete_fields
    table, version, key = qn(Campaign._meta.db_table), qn("live_version"), qn(Campaign._meta.pk.column)  # type: ignore[union-attr]
    columns = ", ".join(qn(f.column) for f in fields)
    sql = f"UPDATE {table} SET {version} = {version} + 1 WHERE {key} = %s RETURNING {columns}"  # noqa: S608 (names, not input)
    with connection.cursor() as cursor:  # closed even on an error: SQLite rolls back no statement in progress
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    if row is None:
        raise NotFound(f"There is no campaign #{pk}.")
    values = []
    for f, value in zip(fields, row, strict=True):  # converted as a query would (JSON text, booleans, times)
        col = f.get_col(Campaign._meta.db_table)
        for convert in connection.ops.get_db_converters(col) + col.get_db_converters(connection):
            value = convert(value, col, connection)
        values.append(value)
    raised = Campaign.from_db(using, [f.attname for f in fields], values)
    transaction.on_commit(lambda: _committed(pk, raised.live_version), using=using)
    return raised


_written = threading.local()
"""The versions this thread's committed writes left, by campaign, since its request began (a
request that writes, then draws a page, shows the version its own write made)."""


def _forget(**kwargs: Any) -> None:
    _written.versions = {}


request_started.connect(_forget, dispatch_uid="campaign.live.forget")


def _committed(pk: int, version: int) -> None:
    seen = getattr(_written, "versions", None)
    if seen is None:
        seen = _written.versions = {}
    seen[pk] = max(version, seen.get(pk, 0))


def page_version(campaign: Campaign) -> int:
    """The version a page about ``campaign`` shows: the one read with the campaign before the page's
    data (so the data is at least that new), or the one this request's own write committed since, if
    higher (a form sent, then the page drawn again, must not take its own write for news)."""
    return max(campaign.live_version, getattr(_written, "versions", {}).get(campaign.pk, 0))


def version(campaign: Campaign | int) -> int:
    """The campaign's live version as the database has it now (0 for no such campaign)."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    return Campaign.objects.filter(pk=pk).values_list("live_version", flat=True).first() or 0


def member_version(user: Any, slug: str) -> int | None:
    """The live version of the campaign ``slug`` if ``user`` is one of its members
    (``campaign.permissions.member_campaigns``), else None: one query."""
    return member_campaigns(user).filter(slug=slug).values_list("live_version", flat=True).first()
