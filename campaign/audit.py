"""The audit trail: who changed a character, a marriage or a contract, and when.

django-simple-history keeps a historical row of every save of the tracked models (``Character``,
``Marriage``, ``Contract``, ``Clause``, ``ContractSignature``): the row as it was after the
change, the time, the user, and here the campaign's year and step and the action's label. The
ledger needs no such copy: postings are never edited (a correction is a reversing posting) and
each carries ``entered_by`` and ``created_at``.

Who acted is **recorded** from, in this order, the service's own ``by`` when it is a person (the
bulk helpers below), the action running (:func:`acting`, set by ``campaign.undo.step_action`` for
every page and API write), or the request (``HistoryRequestMiddleware``, for the admin). That is
for the trail only: whether he **may** act is decided by ``campaign.permissions.require`` from the
service's ``by`` alone, never from :func:`acting_user`, the running action or the request (a call
with no actor is refused there, not run as whoever the context holds). ``SYSTEM_ACTOR`` is no
person: the trail records the action running it, or no one.

Bulk writes send no signals: the services write tracked models through :func:`bulk_create`,
:func:`bulk_update` and :func:`update`, which add the historical rows in one more query whatever
their number.

Undo (``campaign.undo``) restores rows raw; it keeps the trail and adds a row, marked as an
undo, for each object the undo changed (:func:`mark_undo`), so a record's diff against the one
before it always tells what really changed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.core.exceptions import EmptyResultSet
from django.db import connections, models
from django.db.models.expressions import Combinable
from django.utils import timezone
from simple_history.models import HistoricalRecords
from simple_history.signals import pre_create_historical_record
from simple_history.utils import get_history_manager_for_model

from campaign import registry

M = TypeVar("M", bound=models.Model)

REASON_LENGTH = 100
ADMIN_EDIT = "Admin edit"  # the label of a GM's edit saved in the admin (desk.admin.audit)
"""simple-history's ``history_change_reason`` column."""


@dataclass(frozen=True)
class RunningAction:
    """The action running: who, the campaign's year and step when it started, and its label."""

    user: Any
    year: int | None = None
    step: str = ""
    label: str = ""


_actor: ContextVar[RunningAction | None] = ContextVar("regnal_audit_actor", default=None)


def person(user: Any) -> Any:
    """A user who can be recorded (logged in, saved), or None (an anonymous user, the system)."""
    if user is None or not getattr(user, "is_authenticated", False) or getattr(user, "pk", None) is None:
        return None
    return user


@contextmanager
def acting(user: Any, *, year: int | None = None, step: str = "", label: str = "") -> Iterator[RunningAction]:
    """Everything saved inside is recorded as done by ``user`` in ``year``/``step`` for ``label``.
    Recorded only: it gives ``user`` no power (the services ask the policy for their own ``by``)."""
    actor = RunningAction(person(user), year, step, label[:REASON_LENGTH])
    token = _actor.set(actor)
    try:
        yield actor
    finally:
        _actor.reset(token)


def acting_user(by: Any = None) -> Any:
    """Whom to record as having made a change: ``by`` if it is a person, else the user of the action
    running, else the request's (the admin). For the trail only: the policy never asks it."""
    if person(by) is not None:
        return by
    actor = _actor.get()
    if actor is not None:
        return actor.user
    request = getattr(HistoricalRecords.context, "request", None)
    return person(getattr(request, "user", None))


def _get_user(instance: Any = None, request: Any = None, **kwargs: Any) -> Any:
    return acting_user()


class AuditedRecords(HistoricalRecords):  # type: ignore[misc]  # simple_history ships no types (Any)
    """``HistoricalRecords`` that knows the acting user, the action's label and the campaign's
    year and step (the fields of :class:`AuditFields`) from :func:`acting`."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("get_user", _get_user)
        kwargs.setdefault("bases", [AuditFields])
        super().__init__(**kwargs)

    def get_change_reason_for_object(self, instance: Any, history_type: str, using: Any) -> str | None:
        reason: str | None = super().get_change_reason_for_object(instance, history_type, using)
        if reason is None and (actor := _actor.get()) is not None:
            reason = actor.label or None
        return reason


class AuditFields(models.Model):
    """The campaign's year and step when the change was made (empty: outside an action)."""

    history_year = models.IntegerField(null=True, blank=True)
    history_step = models.CharField(max_length=20, blank=True, default="")

    class Meta:
        abstract = True


def _stamp(sender: Any, history_instance: Any, **kwargs: Any) -> None:
    actor = _actor.get()
    if actor is not None and hasattr(history_instance, "history_step") and not history_instance.history_step:
        history_instance.history_year = actor.year
        history_instance.history_step = actor.step


pre_create_historical_record.connect(_stamp, dispatch_uid="regnal_audit_stamp")


def _reason() -> str | None:
    actor = _actor.get()
    return (actor.label if actor is not None else "") or None


def bulk_create(model: type[M], objs: Sequence[M], *, by: Any = None) -> list[M]:
    """``model.objects.bulk_create(objs)`` and their historical rows, copied by the database from
    the rows just written (one more query, whatever their number)."""
    objs = list(objs)
    if not objs:
        return objs
    created = model._default_manager.bulk_create(objs)
    if any(o.pk is None for o in created):  # a database that does not return the new ids
        raise ValueError(f"audit.bulk_create: the database gave no ids for the new {model._meta.verbose_name_plural}")
    _copy_rows(model._default_manager.filter(pk__in=[o.pk for o in created]), history_type="+", by=by)
    return created


def bulk_update(model: type[M], objs: Iterable[M], fields: Sequence[str], *, by: Any = None) -> int:
    """``model.objects.bulk_update(objs, fields)`` and their historical rows, copied by the database
    from the rows as updated (one more query, whatever their number)."""
    objs = list(objs)
    if not objs:
        return 0
    changed = model._default_manager.bulk_update(objs, list(fields))
    _copy_rows(model._default_manager.filter(pk__in=[o.pk for o in objs]), history_type="~", by=by)
    return changed


def update(queryset: models.QuerySet[M], *, by: Any = None, **values: Any) -> int:
    """``queryset.update(**values)`` and the historical rows of the rows it changes, copied by the
    database itself (``INSERT INTO history ... SELECT ... FROM`` the rows about to change, with
    the new values): one more query, whatever the number of rows, none of them read into Python.
    Plain values only (no F() expressions)."""
    if any(isinstance(v, Combinable) for v in values.values()):
        raise ValueError("audit.update takes plain values; load the rows and use audit.bulk_update for expressions")
    _copy_rows(queryset, history_type="~", by=by, values=values)
    return queryset.update(**values)


def _copy_rows(queryset: models.QuerySet[M], *, history_type: str, by: Any, values: dict[str, Any] | None = None) -> None:
    """One historical row for each row of ``queryset`` as it is in the database (with ``values``
    instead of its own where given), the action's user, label, year and step: a single
    ``INSERT INTO history ... SELECT ... FROM`` the model's table, in the rows' id order."""
    model = queryset.model
    history = get_history_manager_for_model(model).model
    connection = connections[queryset.db]
    qn = connection.ops.quote_name
    new = {}
    for name, value in (values or {}).items():
        f = model._meta.get_field(name)
        if not isinstance(f, models.Field):  # a reverse relation has no column of the row
            raise ValueError(f"{model._meta.label}.{name} is not a column of the row")
        new[f.attname] = (f, value.pk if isinstance(value, models.Model) else value)
    actor = _actor.get()
    user = acting_user(by)
    constants = {
        "history_date": timezone.now(),
        "history_type": history_type,
        "history_user": user.pk if user is not None else None,
        "history_change_reason": _reason(),
        "history_year": actor.year if actor is not None else None,
        "history_step": actor.step if actor is not None else "",
    }
    columns: list[str] = []
    selects: list[str] = []
    params: list[Any] = []

    def constant(f: Any, value: Any) -> None:
        # SQLite takes the value as it is; PostgreSQL needs the type of a bare parameter in a SELECT
        selects.append("%s" if connection.vendor == "sqlite" else f"CAST(%s AS {f.db_type(connection)})")
        params.append(f.get_db_prep_save(value, connection))

    for f in history.tracked_fields:
        columns.append(qn(f.column))
        if f.attname in new:
            constant(*new[f.attname])
        else:
            selects.append(qn(f.column))
    for name, value in constants.items():
        f = history._meta.get_field(name)
        columns.append(qn(f.column))
        constant(f, value)
    try:
        rows_sql, rows_params = queryset.order_by().values("pk").query.sql_with_params()
    except EmptyResultSet:  # e.g. pk__in=[]: nothing to copy
        return
    table, source, pk = qn(history._meta.db_table), qn(model._meta.db_table), qn(registry.column(model._meta.pk))
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(selects)} FROM {source} "  # noqa: S608 (quoted names; values are parameters)
        f"WHERE {pk} IN ({rows_sql}) ORDER BY {pk}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *rows_params])


def tracked_models() -> list[type[models.Model]]:
    """The models with an audit trail (registered so in ``campaign.registry``), in the order their rows are restored."""
    return [e.model for e in registry.audited_models()]


@dataclass
class UndoMarks:
    """The tracked rows of a campaign just before an undo, to tell what the undo changed."""

    before: dict[str, dict[Any, models.Model]] = field(default_factory=dict)


def undo_capture(campaign_id: int, scopes: Iterable[tuple[type[models.Model], str]]) -> UndoMarks:
    """Read the tracked rows of the campaign (one query per tracked model) before an undo."""
    tracked = set(tracked_models())
    marks = UndoMarks()
    for model, path in scopes:
        if model in tracked:
            rows = model._base_manager.filter(**{path: campaign_id})
            marks.before[model._meta.label] = {o.pk: o for o in rows}
    return marks


def _values(obj: models.Model) -> tuple[Any, ...]:
    return tuple(getattr(obj, f.attname) for f in obj._meta.concrete_fields)


def mark_undo(marks: UndoMarks, restored: dict[str, list[models.Model]], *, by: Any, reason: str, year: int, step: str) -> int:
    """After an undo: a historical row for every tracked object the undo created ("+", a row
    brought back), changed ("~", as restored) or removed ("-", as it was), with ``reason`` and
    the user; the undone changes stay in the trail. One insert per tracked model at most."""
    now = timezone.now()
    user = acting_user(by)
    marked = 0
    for model in tracked_models():
        label = model._meta.label
        if label not in marks.before:
            continue
        before = marks.before[label]
        after = {o.pk: o for o in restored.get(label, [])}
        rows = []
        for pk, obj in after.items():
            old = before.get(pk)
            if old is None or _values(old) != _values(obj):
                rows.append((obj, "+" if old is None else "~"))
        rows += [(obj, "-") for pk, obj in before.items() if pk not in after]
        marked += _record(model, rows, user=user, reason=reason, year=year, step=step, when=now)
    return marked


def _record(
    model: type[models.Model],
    rows: Iterable[tuple[models.Model, str]],
    *,
    user: Any,
    reason: str,
    year: int | None,
    step: str,
    when: Any,
) -> int:
    """Historical rows of ``model`` for ``(object, "+"/"~"/"-")`` pairs, in one insert."""
    history = get_history_manager_for_model(model).model
    made = [
        history(
            history_date=when,
            history_type=kind,
            history_user=user,
            history_change_reason=reason[:REASON_LENGTH],
            history_year=year,
            history_step=step,
            **{f.attname: getattr(obj, f.attname) for f in history.tracked_fields},
        )
        for obj, kind in rows
    ]
    history.objects.bulk_create(made)
    return len(made)


IMPORT_REASON = "Imported from a file"


def record_import(campaign: Any, *, by: Any) -> int:
    """After an import: one "created" row for every tracked object of the campaign, as the file
    made it, with the importer and ``IMPORT_REASON`` - the trail starts with the file, not with the
    first change after it. One insert per tracked model."""
    now = timezone.now()
    user = acting_user(by)
    made = 0
    for e in registry.audited_models():
        model = e.model
        objs = model._base_manager.filter(**{e.campaign_path: campaign.pk}).order_by("pk")
        rows = [(obj, "+") for obj in objs]
        made += _record(model, rows, user=user, reason=IMPORT_REASON, year=campaign.current_year, step="", when=now)
    return made
