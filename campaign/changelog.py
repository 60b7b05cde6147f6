"""Undo's change log: database triggers on every table of ``campaign.registry.scoped_models`` copy
a row, as it was, into :class:`~campaign.models.UndoChange` the first time a step touches it.

The triggers log only while the action is :func:`recording`, into its checkpoint, which the
connection itself names (no row is written for it): SQLite asks the connection's own function
``regnal_undo_checkpoint()`` (Python's, registered on every connection Django opens), PostgreSQL
the transaction's setting ``regnal.undo_checkpoint`` (``set_config(..., true)``, which a rollback
takes back with the action); an insert is logged with no old row. So every
write a step makes is caught, whichever way it goes (the ORM, bulk writes, raw SQL). The triggers
are generated from the registry at ``post_migrate`` (SQLite and PostgreSQL), so a model registered
later gets them too. :func:`revert` puts back every row logged since a checkpoint; :func:`images`
reads rows in the log's own form, so that what an undo replaces can be written again (redo)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections, models
from django.db.backends.base.base import BaseDatabaseWrapper

from campaign import registry
from campaign.models import Checkpoint, UndoChange

PREFIX = "regnal_undo"
LOG = UndoChange._meta.db_table
FUNCTION = "regnal_undo_checkpoint"
"""SQLite: the SQL function the triggers ask for the checkpoint being recorded (NULL: none)."""
SETTING = "regnal.undo_checkpoint"
"""PostgreSQL: the transaction's setting naming the checkpoint being recorded ('' or unset: none)."""


class _Recording:
    """The checkpoint one connection records into now (SQLite: read by its SQL function)."""

    checkpoint: int | None = None

    def __call__(self) -> int | None:
        return self.checkpoint


def _recording_of(connection: BaseDatabaseWrapper) -> _Recording:
    state = getattr(connection, "_regnal_undo", None)
    if state is None:
        state = _Recording()
        connection._regnal_undo = state  # type: ignore[attr-defined]
    return state


def connect_function(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """``connection_created``: give a new SQLite connection the function its triggers ask."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(FUNCTION, 0, _recording_of(connection), deterministic=False)


def recording_into(using: str = DEFAULT_DB_ALIAS) -> int | None:
    """The checkpoint the connection's writes are logged into now (None: not recording)."""
    return _recording_of(connections[using]).checkpoint


def tables() -> dict[str, type[models.Model]]:
    """The logged tables: every scoped model's, by table name."""
    return {e.model._meta.db_table: e.model for e in registry.scoped_models()}


def _sqlite_triggers(table: str, model: type[models.Model]) -> list[str]:
    q = connections[DEFAULT_DB_ALIAS].ops.quote_name
    old = ", ".join(f"'{f.column}', OLD.{q(registry.column(f))}" for f in model._meta.concrete_fields)
    log = f"INSERT OR IGNORE INTO {LOG} (checkpoint_id, {q('table')}, row_id, old) SELECT {FUNCTION}(), '{table}'"
    pk = q(registry.column(model._meta.pk))
    on = {"i": "INSERT", "u": "UPDATE", "d": "DELETE"}
    row = {"i": f"NEW.{pk}, NULL", "u": f"OLD.{pk}, json_object({old})", "d": f"OLD.{pk}, json_object({old})"}
    when = f"WHERE {FUNCTION}() IS NOT NULL"
    return [f"CREATE TRIGGER {PREFIX}_{table}_{k} AFTER {on[k]} ON {q(table)} BEGIN {log}, {row[k]} {when}; END" for k in on]


POSTGRES_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {PREFIX}_log() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    point bigint := NULLIF(current_setting('{SETTING}', true), '')::bigint;
BEGIN
    IF point IS NULL THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO {LOG} (checkpoint_id, "table", row_id, old)
            VALUES (point, TG_TABLE_NAME, NEW.id, NULL) ON CONFLICT DO NOTHING;
    ELSE
        INSERT INTO {LOG} (checkpoint_id, "table", row_id, old)
            VALUES (point, TG_TABLE_NAME, OLD.id, row_to_json(OLD)::text) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$"""  # noqa: S608 (our own tables' names)


def install_triggers(using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """(Re)create the triggers of every logged table (``post_migrate``; idempotent)."""
    connection = connections[using]
    existing = set(connection.introspection.table_names())
    if LOG not in existing:
        return
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE %s", [f"{PREFIX}_%"])
            for (name,) in cursor.fetchall():
                cursor.execute(f"DROP TRIGGER {name}")
            for table, model in tables().items():
                if table in existing:
                    for sql in _sqlite_triggers(table, model):
                        cursor.execute(sql)
        elif connection.vendor == "postgresql":
            cursor.execute(POSTGRES_FUNCTION)
            for table, model in tables().items():
                if table in existing:
                    if model._meta.pk.column != "id":
                        raise ValueError(f"{model._meta.label}: the undo triggers expect the primary key 'id'")
                    cursor.execute(f'DROP TRIGGER IF EXISTS {PREFIX} ON "{table}"')
                    cursor.execute(
                        f'CREATE TRIGGER {PREFIX} AFTER INSERT OR UPDATE OR DELETE ON "{table}" '
                        f"FOR EACH ROW EXECUTE FUNCTION {PREFIX}_log()"
                    )
        else:
            raise ImproperlyConfigured(
                f"Regnal runs on SQLite or PostgreSQL (undo's change log is kept by their triggers), not on {connection.vendor}."
            )


@contextmanager
def recording(checkpoint: Checkpoint) -> Iterator[None]:
    """Log every write to the campaign's tables into ``checkpoint`` while inside (call it inside
    the action's transaction: if the action fails, the log goes with it). SQLite: no query (the
    connection's function answers); PostgreSQL: the transaction's setting, set and cleared (a
    failure's rollback clears it with the rest)."""
    connection = connections[UndoChange.objects.db]
    state = _recording_of(connection)
    if state.checkpoint is not None:
        raise RuntimeError(f"already recording into checkpoint {state.checkpoint}")
    postgres = connection.vendor == "postgresql"
    if postgres:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config(%s, %s, true)", [SETTING, str(checkpoint.pk)])
    state.checkpoint = checkpoint.pk
    try:
        yield
    finally:
        state.checkpoint = None
    if postgres:  # done (a failure's rollback took the setting back already)
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config(%s, '', true)", [SETTING])


def changes(since: Checkpoint) -> dict[str, dict[int, str | None]]:
    """By table, every row changed since ``since`` began, as it was then (None: it did not exist).
    Change sets already undone (kept for redo) are left out."""
    first: dict[str, dict[int, str | None]] = {}
    rows = UndoChange.objects.filter(
        checkpoint__campaign=since.campaign_id, checkpoint_id__gte=since.pk, checkpoint__undone_in__isnull=True
    )
    for table, row_id, old in rows.order_by("checkpoint_id").values_list("table", "row_id", "old"):
        first.setdefault(table, {}).setdefault(row_id, old)
    return first


def images(rows: dict[str, dict[int, str | None]]) -> dict[str, dict[int, str | None]]:
    """The rows named by ``rows`` (by table, by id) as they are now, in the form the triggers log
    them (None: no such row now): :func:`revert` of the result writes them again."""
    connection = connections[UndoChange.objects.db]
    known = tables()
    q = connection.ops.quote_name
    out: dict[str, dict[int, str | None]] = {}
    with connection.cursor() as cursor:
        for table, logged in rows.items():
            model = known[table]
            pk = q(registry.column(model._meta.pk))
            if connection.vendor == "postgresql":
                image = "row_to_json(t)::text"
            else:
                pairs = (f"'{f.column}', t.{q(registry.column(f))}" for f in model._meta.concrete_fields)
                image = "json_object(" + ", ".join(pairs) + ")"
            now: dict[int, str | None] = dict.fromkeys(logged)
            ids = list(logged)
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ", ".join(["%s"] * len(chunk))
                cursor.execute(f"SELECT t.{pk}, {image} FROM {q(table)} t WHERE t.{pk} IN ({marks})", chunk)  # noqa: S608 (quoted names)
                now.update(cursor.fetchall())
            out[table] = now
    return out


def revert(first: dict[str, dict[int, str | None]]) -> None:
    """Put every row of ``first`` (:func:`changes`) back as it was, with its primary key: delete
    the rows as they are now, insert the old ones raw. Nothing may be :func:`recording`;
    the foreign keys are checked at commit (deferred), so the order does not matter."""
    connection = connections[UndoChange.objects.db]
    known = tables()
    q = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table, rows in first.items():
            model = known[table]
            ids = list(rows)
            pk = q(registry.column(model._meta.pk))
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                cursor.execute(f"DELETE FROM {q(table)} WHERE {pk} IN ({', '.join(['%s'] * len(chunk))})", chunk)  # noqa: S608 (quoted names; values are parameters)
            olds = [old for old in rows.values() if old is not None]
            if not olds:
                continue
            if connection.vendor == "postgresql":
                sql = f"INSERT INTO {q(table)} SELECT * FROM json_populate_record(NULL::{q(table)}, %s::json)"  # noqa: S608
                cursor.executemany(sql, [[old] for old in olds])
            else:
                columns = [registry.column(f) for f in model._meta.concrete_fields]
                names = ", ".join(q(c) for c in columns)
                sql = f"INSERT INTO {q(table)} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"  # noqa: S608
                cursor.executemany(sql, [[json.loads(old)[c] for c in columns] for old in olds])
