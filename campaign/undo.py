"""Undo and redo for game night: a change set (a checkpoint) for each step and each desk
correction, and the one-time keys that make a second submit of the same form harmless.

Every write made through the pages goes through :func:`step_action`: one transaction that locks
the campaign, refuses a form key already used, opens the checkpoint of the current step if the step
has none yet, then runs the services; a save at the desk goes through :func:`change_set`, its own
checkpoint. :func:`undo_step` puts back the latest checkpoint (the start of the step last worked
on, or the state before a desk save) and :func:`undo_turn` the start of the turn; both restore every
row with its primary key, so links and bookmarks still point at the same people. An undo keeps
what it replaced: :func:`redo` writes it again, as long as nothing else was written since (the
next step action or desk save forgets every undone change set).

A checkpoint holds every row that belongs to the campaign (``campaign.registry.scoped_models``), read column by column and
stored as compressed JSON. Restoring deletes the campaign's rows without Django's cascade collector
and inserts the saved rows back raw (times as they were); the foreign keys are checked at commit
(deferred constraints on SQLite and PostgreSQL), so the order does not matter."""

from __future__ import annotations

import datetime
import json
import secrets
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, connections, models, transaction
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.utils import timezone

from campaign import audit, changelog, live, registry
from campaign.models import (
    ActionKey,
    Campaign,
    Checkpoint,
    CheckpointKind,
    ChronicleEntry,
    Membership,
    Role,
    Roll,
    Step,
    UndoChange,
)
from campaign.permissions import Actor, Seen, forget_seats, require, rows_seen, seat_of, sees_undo_plan
from campaign.steps import STEP_LABELS, collecting, holding, lock_campaign
from rules.errors import RuleError

T = TypeVar("T")

KEEP_TURNS = 2
"""Checkpoints are kept for the turn in play and the one before it."""


class AlreadyDone(RuleError):
    """The same form was submitted again: the first submit did the work."""

    code = "already_done"
    status = 409


class KeyReused(RuleError):
    """An API key sent again with another request (another address, or the same with another body):
    it names the first request; nothing is done."""

    code = "idempotency_key_reused"
    status = 422


class NothingToUndo(RuleError):
    code = "nothing_to_undo"
    status = 409


class NothingToRedo(RuleError):
    code = "nothing_to_redo"
    status = 409


def _scopes() -> list[tuple[type[models.Model], str]]:
    """Every model holding campaign state (``campaign.registry``), with the lookup from it to the campaign's id."""
    return [(e.model, e.campaign_path) for e in registry.scoped_models()]


CAMPAIGN_FIELDS = [
    "current_year",
    "step",
    "optional_rules",
    "allow_overdraft",
    "dice_entry",
    "auto_pass_certain",
    "turn_length",
    "ruleset",
    "start_year",
    "end_year",
    "money_target",
    "session_start",
    "ended_year",
    "ended_reason",
    "ended_standings",
]
"""The campaign's own columns a checkpoint restores (its name, slug and members stay as they are)."""


def _concrete(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    """A model's concrete field by name (a relation's reverse side is no column)."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise ValueError(f"{model._meta.label}.{name} is not a concrete field")
    return field


def _columns(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return [f for f in model._meta.concrete_fields]


def snapshot(campaign: Campaign) -> dict[str, Any]:
    """Every row of the campaign, as JSON-ready lists of column values keyed by model label."""
    rows: dict[str, Any] = {"campaign": _campaign_row(campaign)}
    for model, path in _scopes():
        columns = _columns(model)
        values = model._default_manager.filter(**{path: campaign.pk}).order_by("pk").values_list(*[f.attname for f in columns])
        rows[model._meta.label] = [list(v) for v in values]
    return rows


class _Encoder(DjangoJSONEncoder):
    """Times to the microsecond (DjangoJSONEncoder keeps milliseconds only)."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


def _pack(rows: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(rows, cls=_Encoder, separators=(",", ":")).encode(), 6)


def _unpack(data: bytes | memoryview) -> dict[str, Any]:
    return json.loads(zlib.decompress(bytes(data)))  # type: ignore[no-any-return]


TABLE_LINES = "membership"
"""The chronicle's lines about the table (``dynasties.invitations``: who joined, moved, left). They
are written outside every change set, as the members are not undone: an undo keeps them."""


def _table_lines_since(campaign: Campaign, rows: dict[str, Any]) -> list[ChronicleEntry]:
    """The table's chronicle lines written after a whole copy of the campaign (``rows``) was taken."""
    pk = _columns(ChronicleEntry).index(ChronicleEntry._meta.pk)
    saved = [values[pk] for values in rows.get(ChronicleEntry._meta.label, [])]
    return list(ChronicleEntry._base_manager.filter(campaign=campaign, kind=TABLE_LINES).exclude(pk__in=saved))


def _restore(campaign: Campaign, rows: dict[str, Any], *, by: Actor, reason: str = "") -> None:
    scopes = _scopes()
    seated = _seated_houses(campaign)
    marks = audit.undo_capture(campaign.pk, scopes)  # the audit trail is not restored: it records the undo
    restored: dict[str, list[models.Model]] = {}
    table_lines = _table_lines_since(campaign, rows)  # kept, as the members are
    for model, path in reversed(scopes):
        model._default_manager.filter(**{path: campaign.pk})._raw_delete(model._default_manager.db)
    for field, value in rows["campaign"].items():
        setattr(campaign, field, value)
    campaign.save(update_fields=list(rows["campaign"]))
    for model, _ in scopes:
        columns = _columns(model)
        objs = []
        for values in rows.get(model._meta.label, []):
            obj = model()
            for f, value in zip(columns, values, strict=True):
                setattr(obj, f.attname, value if value is None else _python(f, value))
            objs.append(obj)
        if model is ChronicleEntry:
            objs += table_lines
        restored[model._meta.label] = objs
        size = max(1, min(500, connections[model._base_manager.db].ops.bulk_batch_size(columns, objs)))
        for start in range(0, len(objs), size):  # raw: no auto_now / auto_now_add re-stamping
            model._base_manager._insert(objs[start : start + size], fields=columns, raw=True)  # type: ignore[attr-defined]
    audit.mark_undo(marks, restored, by=by, reason=reason, year=campaign.current_year, step=campaign.step)
    _unseat_houses_undone(campaign, seated)


def _revert(
    campaign: Campaign,
    first: dict[str, dict[int, str | None]],
    columns: dict[str, Any],
    *,
    by: Actor,
    reason: str = "",
) -> None:
    """Write the rows of ``first`` as given (``campaign.changelog.revert``) and the campaign's own
    ``columns``, and mark the rows put back in the audit trail (undo and redo alike)."""
    seated = _seated_houses(campaign)
    known = changelog.tables()
    tracked = [(known[table], list(rows)) for table, rows in first.items() if known[table] in audit.tracked_models()]
    marks = audit.UndoMarks()
    for model, ids in tracked:
        marks.before[model._meta.label] = {o.pk: o for o in model._base_manager.filter(pk__in=ids)}
    changelog.revert(first)
    for field, value in columns.items():
        setattr(campaign, field, value)
    campaign.save(update_fields=CAMPAIGN_FIELDS)
    restored = {model._meta.label: list(model._base_manager.filter(pk__in=ids)) for model, ids in tracked}
    audit.mark_undo(marks, restored, by=by, reason=reason, year=campaign.current_year, step=campaign.step)
    _unseat_houses_undone(campaign, seated)


class SeatedOnUndoneHouse(RuleError):
    code = "seated"
    status = 409


def _seated_houses(campaign: Campaign) -> dict[int, str]:
    """The houses players sit on, by id, with their names (read before an undo may take one away)."""
    house = registry.seats().house
    ids = Membership.objects.filter(campaign=campaign, role=Role.PLAYER, **{f"{house}__isnull": False}).values(house)
    return dict(registry.houses()._default_manager.filter(pk__in=ids).values_list("pk", "name"))


def _unseat_houses_undone(campaign: Campaign, seated: dict[int, str]) -> None:
    """A house the undo took away keeps no member's seat: an observer's or the GM's link to it is
    cleared; a player seated on it since (seating is outside every change set) refuses the undo,
    naming him, and the whole undo rolls back (docs/rulings.md, "Undo (game night)")."""
    seats = registry.seats()
    kept = registry.houses()._default_manager.filter(campaign=campaign).values("pk")
    on = Membership.objects.filter(campaign=campaign, **{f"{seats.house}__isnull": False})
    gone = on.exclude(**{f"{seats.house}__in": kept})
    players = list(gone.filter(role=Role.PLAYER).select_related("user").annotate(seat_house=models.F(seats.house)).order_by("pk"))
    if players:
        who = "; ".join(f"{m.user.get_username()} plays the house of {seated.get(m.seat_house, '?')}" for m in players)
        raise SeatedOnUndoneHouse(
            f"This undo would take away a house a player was seated on since: {who}. Give the seat another house "
            "(or make the player an observer) on the Players page, then undo."
        )
    seats.free(gone)


def _python(field: models.Field[Any, Any], value: Any) -> Any:
    if isinstance(field, models.JSONField):
        return value
    return field.to_python(value)


def _seen(first: dict[str, dict[int, str | None]], now: dict[str, dict[int, str | None]] | None, *, shown: bool) -> Seen:
    """Who sees a change set undone, redone or saved at the desk (``campaign.live``): every member
    when the campaign's own columns change (``shown``), else whoever sees one of its rows as it was
    (``first``) or as it is (``now``, read if not given) (``campaign.permissions.rows_seen``; the
    log's form of a row, by table and id)."""
    if shown:
        return Seen.ALL
    known = changelog.tables()
    if any(e is not None and e.sees == registry.MEMBERS for e in (registry.entry(known[t]) for t in first if first[t])):
        return Seen.ALL  # a public row changed: nothing to read
    if now is None:
        now = changelog.images(first)
    sides = [(known[table], images) for side in (first, now) for table, images in side.items() if images]
    rows: dict[type[models.Model], list[tuple[int, dict[str, Any]]]] = {}
    for model, images in sides:
        rows.setdefault(model, []).extend((int(pk), json.loads(image)) for pk, image in images.items() if image is not None)
    return rows_seen(rows)


def _copy_seen(campaign: Campaign, rows: dict[str, Any]) -> Seen:
    """As :func:`_seen`, for an undo to a whole copy of the campaign: the rows that differ from it
    (the table's lines, which it keeps, left out)."""
    if _campaign_row(campaign) != rows["campaign"]:
        return Seen.ALL
    now = _unpack(_pack(snapshot(campaign)))  # in the copy's own form
    changed: dict[type[models.Model], list[tuple[int, dict[str, Any]]]] = {}
    for model, _ in _scopes():
        columns = [registry.column(f) for f in _columns(model)]
        key = columns.index(registry.column(model._meta.pk))
        was = {json.dumps(values) for values in rows.get(model._meta.label, [])}
        kept = {json.dumps(values) for values in now.get(model._meta.label, [])}
        for text in was ^ kept:
            image = dict(zip(columns, json.loads(text), strict=True))
            if model is ChronicleEntry and image.get("kind") == TABLE_LINES and text in kept:
                continue
            changed.setdefault(model, []).append((image[columns[key]], image))
    return rows_seen(changed)


def new_action_key() -> str:
    """A fresh key for a form's hidden ``action_key`` input."""
    return secrets.token_hex(16)


KEY_MAX = 40
"""The longest one-time key a door may send (a page's is 32 characters, an API's Idempotency-Key at most this)."""
DOORS = ("page", "api")


@dataclass(frozen=True)
class KeyUse:
    """What an API key is sent with: ``request``, the method and address (``POST /api/v1/...``, kept
    for the message), and ``fingerprint``, a digest of the address and the body (``api.common``).
    The same key again is the same action only with the same fingerprint."""

    request: str
    fingerprint: str


REQUEST_MAX = 200
"""The longest ``request`` kept with a key (the fingerprint covers the whole address)."""


def key_refuse(key: str, *, campaign: Campaign | int | None, use: KeyUse | None, done: str) -> None:
    """Raise if the stored ``key`` (``action_key``'s form) was used already: :class:`AlreadyDone`
    (``done``) when it is the same request again, or when either side carries no fingerprint (a
    page's form, a key kept before fingerprints); :class:`KeyReused` when the key came with another
    request: another address, another campaign, or the same address with another body. A key is
    looked up in every campaign (it holds its door and its user: only one's own keys can match)."""
    found = ActionKey.objects.filter(key=key).only("campaign_id", "request", "fingerprint").first()
    if found is None:
        return
    if use is None or not found.fingerprint or found.fingerprint == use.fingerprint:
        raise AlreadyDone(done)
    campaign_id = campaign.pk if isinstance(campaign, Campaign) else campaign
    if campaign_id is not None and found.campaign_id != campaign_id:
        first = "a request to another campaign"
    elif found.request != use.request[:REQUEST_MAX]:
        first = found.request
    else:
        first = f"{found.request} with another body"
    raise KeyReused(
        f"This Idempotency-Key was already used for {first}: a key names one request. Nothing was done; "
        "send this request with a new key.",
        fields={"Idempotency-Key": f"Already used for {first}."},
    )


def _key_keep(campaign: Campaign, key: str, *, label: str, by: Actor | None, use: KeyUse | None) -> ActionKey:
    request, fingerprint = (use.request[:REQUEST_MAX], use.fingerprint) if use is not None else ("", "")
    return ActionKey.objects.create(
        campaign=campaign, key=key, label=label[:200], by=audit.person(by), request=request, fingerprint=fingerprint
    )


def _key_claim(campaign: Campaign, key: str, *, label: str, by: Actor | None, use: KeyUse | None) -> bool:
    """Keep ``key`` for this action unless it was used already, in any campaign: one statement
    (``INSERT ... SELECT ... WHERE NOT EXISTS``, with RETURNING). False: it was used (the caller
    asks :func:`key_refuse` why). Without RETURNING (SQLite before 3.35): a look-up, then the insert."""
    connection = connections[ActionKey.objects.db]
    if not connection.features.can_return_columns_from_insert:
        if ActionKey.objects.filter(key=key).exists():
            return False
        _key_keep(campaign, key, label=label, by=by, use=use)
        return True
    request, fingerprint = (use.request[:REQUEST_MAX], use.fingerprint) if use is not None else ("", "")
    who = audit.person(by)
    values = {
        "campaign": campaign.pk,
        "key": key,
        "label": label[:200],
        "by": None if who is None else who.pk,
        "created_at": timezone.now(),
        "request": request,
        "fingerprint": fingerprint,
    }
    fields = [_concrete(ActionKey, name) for name in values]
    params = [f.get_db_prep_save(v, connection) for f, v in zip(fields, values.values(), strict=True)]
    q = connection.ops.quote_name
    table, column = q(ActionKey._meta.db_table), q(registry.column(_concrete(ActionKey, "key")))
    sql = (
        f"INSERT INTO {table} ({', '.join(q(registry.column(f)) for f in fields)}) "  # noqa: S608 (names, not input)
        f"SELECT {', '.join(['%s'] * len(fields))} WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE {column} = %s) "
        f"RETURNING {q(registry.column(ActionKey._meta.pk))}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, key])
        return cursor.fetchone() is not None


def action_key(key: str | None, *, by: Actor | None, door: str = "page") -> str:
    """The stored form of a door's one-time key: kept per door and per user, so that no key sent
    through one door (a page's form) or by one user can ever match another's (the system's and an
    anonymous user's are the user 0's)."""
    key = (key or "").strip()
    if not key or len(key) > KEY_MAX:
        raise RuleError("The form has no valid action key: reload the page and submit it again.", code="action_key")
    if door not in DOORS:
        raise ValueError(f"unknown door {door!r}")
    return f"{door}:{getattr(by, 'pk', None) or 0}:{key}"


def step_action(
    *,
    campaign: Campaign | int,
    key: str | None,
    label: str,
    action: Callable[[Campaign], T],
    by: Actor,
    door: str = "page",
    use: KeyUse | None = None,
    seen: Seen = Seen.GM,
) -> T:
    """Run one action of game night (``action`` calls the services, each given ``by`` itself: the
    trail records ``by``, the policy asks each service's own) in one transaction.

    Refuses a missing key or one already used (:func:`key_refuse`: :class:`AlreadyDone`, or
    :class:`KeyReused` when an API key's ``use`` differs from its first), takes the checkpoint of
    the campaign's current step if this is the step's first action, records the key, then runs the
    action: if the action fails, nothing stays, the key and the checkpoint included.

    The campaign is locked and its live version raised here, once: the action's services are handed
    the locked row (``campaign.steps.holding``: their own ``lock_campaign`` takes it as it is) and
    report what they write to the action's outcome (``campaign.steps.collecting``; the action reads
    it with ``campaign.steps.current_outcome``). ``seen``: who the action's services say see its
    write (their own ``lock_campaign(seen=...)``), counted by the lock at once (one statement less);
    a service still adds whom it shows the write to beyond it (``campaign.live.reveal``)."""
    key = action_key(key, by=by, door=door)
    done = "That was already done (the same form was sent twice): nothing was done again."
    with transaction.atomic():
        locked = lock_campaign(campaign, seen=seen)
        try:  # no savepoint of its own: a key kept twice (a race past its check) fails the whole action
            with transaction.atomic(savepoint=False):
                claimed = _key_claim(locked, key, label=label, by=by, use=use)
        except IntegrityError:
            raise AlreadyDone(done) from None
        if not claimed:  # used already, in this campaign or another: why, and refused
            key_refuse(key, campaign=locked, use=use, done=done)
            raise AlreadyDone(done)  # (gone since it was seen: refused all the same)
        point = _step_checkpoint(locked, label=label, by=by)
        try:
            with (
                audit.acting(by, year=locked.current_year, step=locked.step, label=label),
                changelog.recording(point),
                holding(locked),
                collecting(),
            ):
                return action(locked)
        finally:
            forget_seats()  # the action may have moved a seat (an undo's house gone): read again after it


def _latest(campaign: Campaign) -> Checkpoint | None:
    """The newest change set, forgetting those an undo kept for redo: something is written now."""
    latest = Checkpoint.objects.filter(campaign=campaign).order_by("-pk").first()
    if latest is not None and latest.undone_in_id is not None:  # undone change sets are always the newest
        Checkpoint.objects.filter(campaign=campaign, undone_in__isnull=False).delete()
        latest = Checkpoint.objects.filter(campaign=campaign).order_by("-pk").first()
    return latest


def _in_step(latest: Checkpoint | None, campaign: Campaign) -> bool:
    """Whether ``latest`` is the current step's own change set (not a desk correction's)."""
    return (
        latest is not None
        and latest.kind == CheckpointKind.STEP
        and (latest.year, latest.step) == (campaign.current_year, campaign.step)
    )


def _step_checkpoint(campaign: Campaign, *, label: str, by: Actor) -> Checkpoint:
    """The change set a step action logs into: the newest one if it is the current step's (a
    desk save in between opens a new one, so that its undo stays apart), else a new one."""
    latest = _latest(campaign)
    if latest is not None and _in_step(latest, campaign):
        return latest
    # none yet: none to forget; the newest opened this year: every one opened this year forgot the old ones already
    prune = latest is not None and latest.year != campaign.current_year
    return _checkpoint_create(campaign, label=label, by=by, kind=CheckpointKind.STEP.value, prune=prune)


def checkpoint_take(campaign: Campaign, *, label: str, by: Actor) -> Checkpoint | None:
    """The checkpoint of the campaign's current step, unless the step has one already. Call it
    inside the transaction of the action, after locking the campaign."""
    if _in_step(_latest(campaign), campaign):
        return None
    return _checkpoint_create(campaign, label=label, by=by, kind=CheckpointKind.STEP.value)


def _checkpoint_create(campaign: Campaign, *, label: str, by: Actor, kind: str, prune: bool = True) -> Checkpoint:
    """A new change set, after forgetting those older than :data:`KEEP_TURNS` (unless ``prune`` is
    false: the caller knows there are none)."""
    if prune:
        oldest = campaign.current_year - KEEP_TURNS * campaign.turn_length
        Checkpoint.objects.filter(campaign=campaign, year__lte=oldest).delete()
    return Checkpoint.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        kind=kind,
        label=label[:200],
        by=audit.person(by),
        data=_pack(snapshot(campaign) if snapshots() else {"campaign": _campaign_row(campaign), "changes": True}),
    )


@contextmanager
def change_set(campaign: Campaign | int, *, label: str, by: Actor) -> Iterator[Campaign]:
    """A GM's write outside the steps (a save at the desk) as its own change set: one transaction
    that locks the campaign, opens a desk checkpoint and logs into it every row written inside; the
    undo history shows it (``label``) and undo takes it back alone. Having written, it forgets what
    undo kept for redo; a change set that wrote nothing is dropped. Only the campaign's GM opens one
    (the policy: ``require(.., "edit")``, "edit a record by hand"): nothing of another campaign is
    locked, checkpointed or written through it. Yields the locked campaign."""
    require(by, campaign, "edit")
    with transaction.atomic():
        locked = lock_campaign(campaign)
        before = _campaign_row(locked)
        name = locked.name
        point = _checkpoint_create(locked, label=label, by=by, kind=CheckpointKind.DESK.value)
        try:
            with audit.acting(by, year=locked.current_year, step=locked.step, label=label), changelog.recording(point):
                yield locked
        finally:
            forget_seats()  # a desk save may move a seat: read again after it
        after = Campaign.objects.filter(pk=locked.pk).values(*CAMPAIGN_FIELDS, "name").first() or {}
        renamed = after.pop("name", name) != name
        first: dict[str, dict[int, str | None]] = {}
        for table, row_id, old in UndoChange.objects.filter(checkpoint=point).values_list("table", "row_id", "old"):
            first.setdefault(table, {})[row_id] = old
        if not first and after == before:
            point.delete()  # nothing written (a form sent back with errors): what undo kept stays
        else:
            Checkpoint.objects.filter(campaign=locked, undone_in__isnull=False).delete()
        if first or after != before or renamed:  # who sees what the desk wrote: the rows as they were and are
            live.reveal(locked, _seen(first, None, shown=after != before or renamed))


def snapshots() -> bool:
    """Whether checkpoints copy the whole campaign (the old way, ``REGNAL_UNDO_SNAPSHOTS``) rather
    than the campaign's own columns, the step's changes being logged (``campaign.changelog``)."""
    return bool(getattr(settings, "REGNAL_UNDO_SNAPSHOTS", False))


def _campaign_row(campaign: Campaign) -> dict[str, Any]:
    return {f: getattr(campaign, f) for f in CAMPAIGN_FIELDS}


def describe(checkpoint: Checkpoint) -> str:
    """What going back to ``checkpoint`` means, in the GM's words."""
    if checkpoint.kind == CheckpointKind.DESK:
        return f"before the desk's correction “{checkpoint.label}” ({STEP_LABELS[checkpoint.step]} {checkpoint.year})"
    return f"the start of {STEP_LABELS[checkpoint.step]} {checkpoint.year}"


@dataclass(frozen=True)
class Loss:
    """One kind of thing an undo would throw away, counted: ``Loss("deaths", 2, "death", "deaths")``."""

    key: str
    count: int
    one: str
    many: str

    @property
    def text(self) -> str:
        return f"{self.count} {self.one if self.count == 1 else self.many}"


LossCounter = Callable[[Campaign, dict[str, dict[int, str | None]]], list[Loss]]
"""Counts, from the rows changed since a checkpoint (``changelog.changes``: by table, by id, the row
as it was then or None), what an undo would throw away of an app's records."""

_loss_counters: list[LossCounter] = []


def count_losses_with(counter: LossCounter) -> LossCounter:
    """Register ``counter`` (an app above the kernel, in its ``ready``): undo plans name its losses."""
    if counter not in _loss_counters:
        _loss_counters.append(counter)
    return counter


@dataclass(frozen=True)
class UndoPlan:
    """What an undo would put back, for the confirmation page."""

    checkpoint: Checkpoint
    step_label: str
    lost_rolls: int
    lost_chronicle: int
    lost_postings: int
    desk_edits: int = 0
    """Desk corrections made since the checkpoint, undone with it (an undo of the turn)."""
    losses: tuple[Loss, ...] = ()
    """What else it throws away, as the apps count it (births, deaths, successions, weddings)."""

    @property
    def description(self) -> str:
        return describe(self.checkpoint)

    @property
    def summary(self) -> str:
        """Everything it throws away, in words: "37 rolls, 2 deaths, 1 succession, 5 chronicle lines"."""
        parts = [Loss("rolls", self.lost_rolls, "roll", "rolls").text]
        parts += [loss.text for loss in self.losses if loss.count]
        parts += [
            Loss("chronicle", self.lost_chronicle, "chronicle line", "chronicle lines").text,
            Loss("postings", self.lost_postings, "posting", "postings").text,
        ]
        return ", ".join(parts)


def _live(campaign: Campaign | int) -> QuerySet[Checkpoint]:
    return Checkpoint.objects.filter(campaign=campaign, undone_in__isnull=True)


LABEL_FIELDS = ("id", "campaign_id", "year", "step", "kind", "label")
"""What a checkpoint's label needs (:func:`describe`): not its data nor what it keeps for redo."""


def _target(campaign: Campaign | int, *, turn: bool, light: bool = False) -> Checkpoint | None:
    """The step: the newest change set in force. The turn: the first change set of the newest
    turn's Births step (a step's own, not a desk correction's). One query each; ``light``: only
    the columns a label needs (:data:`LABEL_FIELDS`)."""
    live = _live(campaign).only(*LABEL_FIELDS) if light else _live(campaign)
    if not turn:
        return live.order_by("-pk").first()
    births = live.filter(step=Step.BIRTHS, kind=CheckpointKind.STEP)
    newest = births.order_by("-pk").values("year")[:1]
    return births.filter(year=Subquery(newest)).order_by("pk").first()


def undo_plan(campaign: Campaign, *, turn: bool = False) -> UndoPlan | None:
    """What :func:`undo_step` (or :func:`undo_turn`) would restore, and how much would be lost."""
    target = _target(campaign, turn=turn)
    if target is None:
        return None
    rows = _unpack(target.data)
    lost: dict[type[models.Model], int] = {}
    first = changelog.changes(target) if rows.get("changes") else {}
    postings = registry.ledger()  # the game's ledger (campaign.registry.register_ledger)
    for model in (Roll, ChronicleEntry, postings):
        if not rows.get("changes"):
            lost[model] = model._base_manager.filter(campaign=campaign).count() - len(rows.get(model._meta.label, []))
            lost[model] -= len(_table_lines_since(campaign, rows)) if model is ChronicleEntry else 0
            continue
        touched = first.get(model._meta.db_table, {})
        now = len(model._base_manager.filter(pk__in=list(touched)).values("pk")) if touched else 0
        lost[model] = now - sum(old is not None for old in touched.values())
    desk = _live(campaign).filter(pk__gt=target.pk, kind=CheckpointKind.DESK).count() if turn else 0
    losses = tuple(loss for counter in _loss_counters for loss in counter(campaign, first)) if first else ()
    return UndoPlan(
        checkpoint=target,
        step_label=STEP_LABELS[target.step],
        lost_rolls=lost[Roll],
        lost_chronicle=lost[ChronicleEntry],
        lost_postings=lost[postings],
        desk_edits=desk,
        losses=losses,
    )


def _undo(campaign: Campaign | int, key: str | None, by: Actor, *, turn: bool, door: str, use: KeyUse | None) -> Checkpoint:
    def restore(locked: Campaign) -> Checkpoint:
        target = _target(locked, turn=turn)
        if target is None:
            raise NothingToUndo(
                "There is nothing to undo: no step has been played through the pages since the last two turns began."
            )
        reason = f"{label}: back to {describe(target)}"
        rows = _unpack(target.data)
        group = _live(locked).filter(pk__gte=target.pk)
        if not rows.get("changes"):  # a checkpoint taken as a whole copy of the campaign: no redo
            seen = _copy_seen(locked, rows)
            _restore(locked, rows, by=by, reason=reason)
            live.reveal(locked, seen)
            group.delete()
            return target
        first = changelog.changes(target)
        kept: dict[str, Any] = {"campaign": _campaign_row(locked), "rows": changelog.images(first)}
        seen = _seen(first, kept["rows"], shown=kept["campaign"] != rows["campaign"])  # read before the rows go
        kept["seen"] = seen.counters()  # the redo is seen by the same
        _revert(locked, first, rows["campaign"], by=by, reason=reason)
        live.reveal(locked, seen)
        group.update(undone_in=target)
        Checkpoint.objects.filter(pk=target.pk).update(redo=_pack(kept))
        return target

    label = "Undo the turn" if turn else "Undo the step"
    with transaction.atomic():
        locked = lock_campaign(campaign)
        require(by, locked, "gm")  # undo is the GM's (campaign.permissions): asked first, the key after
        key = action_key(key, by=by, door=door)
        done = "That undo was already done (the same form was sent twice): nothing more was undone."
        key_refuse(key, campaign=locked, use=use, done=done)
        _key_keep(locked, key, label=label, by=by, use=use)
        return restore(locked)


def undo_step(
    *,
    campaign: Campaign | int,
    key: str | None,
    by: Actor,
    door: str = "page",
    use: KeyUse | None = None,
) -> Checkpoint:
    """Put the campaign back as it was at the start of the step last worked on (or before the last
    desk correction); returns the checkpoint used (kept for redo). Undo again to go further back."""
    return _undo(campaign, key, by, turn=False, door=door, use=use)


def undo_turn(
    *,
    campaign: Campaign | int,
    key: str | None,
    by: Actor,
    door: str = "page",
    use: KeyUse | None = None,
) -> Checkpoint:
    """Put the campaign back as it was at the start of the turn last worked on (its Births step)."""
    return _undo(campaign, key, by, turn=True, door=door, use=use)


# --- redo -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RedoPlan:
    """What a redo would write again, for the pages."""

    checkpoint: Checkpoint
    change_sets: int

    @property
    def description(self) -> str:
        return describe(self.checkpoint)


def _redo_target(campaign: Campaign | int) -> Checkpoint | None:
    """The checkpoint of the last undo (undoes go further back each time, so its key is the lowest)."""
    return Checkpoint.objects.filter(campaign=campaign, undone_in=models.F("pk")).order_by("pk").first()


def redo_plan(campaign: Campaign | int) -> RedoPlan | None:
    """What :func:`redo` would bring back; None when no undo is kept for redo. One query: the
    checkpoint's label (not its data) with the count of the change sets the undo took back."""
    sets = Checkpoint.objects.filter(undone_in=OuterRef("pk")).order_by().values("undone_in").annotate(n=Count("pk")).values("n")
    found = (
        Checkpoint.objects.filter(campaign=campaign, undone_in=models.F("pk"))
        .only(*LABEL_FIELDS)
        .annotate(change_sets=Subquery(sets))
        .order_by("pk")
        .first()
    )
    if found is None:
        return None
    return RedoPlan(checkpoint=found, change_sets=found.change_sets or 0)


@dataclass(frozen=True)
class UndoPlans:
    """What an undo of the step, an undo of the turn and a redo would do: the GM's view of the turn."""

    step: UndoPlan | None
    turn: UndoPlan | None
    redo: RedoPlan | None


def undo_plans(campaign: Campaign, *, by: Any) -> UndoPlans | None:
    """The plans of undo and redo for ``by`` if the policy shows them to him (``sees_undo_plan``),
    else None (and nothing is read): what they would throw away, counted (the undo page's, the
    API's undo preview's). Read when asked for: the turn's buttons need :func:`undo_offers` only."""
    if not sees_undo_plan(seat_of(by, campaign).role):
        return None
    return UndoPlans(step=undo_plan(campaign), turn=undo_plan(campaign, turn=True), redo=redo_plan(campaign))


def undo_preview(campaign: Campaign, *, by: Actor) -> UndoPlans:
    """The plans of undo and redo, asked for by their reader (the API's ``GET undo/``): the GM's
    (the policy: ``require(.., "gm")``, as undo is his), :class:`Forbidden` to anyone else."""
    require(by, campaign, "gm")
    return UndoPlans(step=undo_plan(campaign), turn=undo_plan(campaign, turn=True), redo=redo_plan(campaign))


@dataclass(frozen=True)
class UndoOffer:
    """Where an undo would go back to, without what it would throw away (a button's label)."""

    checkpoint: Checkpoint

    @property
    def description(self) -> str:
        return describe(self.checkpoint)


@dataclass(frozen=True)
class UndoOffers:
    """What the turn offers the GM: undo the step, undo the turn, redo (None when there is none)."""

    step: UndoOffer | None
    turn: UndoOffer | None
    redo: RedoPlan | None


def undo_offers(campaign: Campaign, *, by: Any) -> UndoOffers | None:
    """The undo and redo the turn offers ``by`` if the policy shows them to him (``sees_undo_plan``),
    else None (and nothing is read): the checkpoints' labels and the redo's count, three small
    queries whatever the campaign's history or the step's size (:func:`undo_plans` counts the losses)."""
    if not sees_undo_plan(seat_of(by, campaign).role):
        return None
    step, turn = _target(campaign, turn=False, light=True), _target(campaign, turn=True, light=True)
    return UndoOffers(
        step=None if step is None else UndoOffer(step),
        turn=None if turn is None else UndoOffer(turn),
        redo=redo_plan(campaign),
    )


def _undone(target: Checkpoint) -> dict[str, dict[int, str | None]]:
    """By table, the rows the undo that went back to ``target`` put back, as it put them back."""
    first: dict[str, dict[int, str | None]] = {}
    log = UndoChange.objects.filter(checkpoint__undone_in=target).order_by("checkpoint_id")
    for table, row_id, old in log.values_list("table", "row_id", "old"):
        first.setdefault(table, {}).setdefault(row_id, old)
    return first


def _untouched_since_undo(campaign: Campaign, target: Checkpoint) -> bool:
    """Whether the rows the undo put back, and the campaign's columns, are still as it left them
    (a write that went round ``step_action`` and the desk would otherwise be lost by a redo)."""
    if _campaign_row(campaign) != _unpack(target.data)["campaign"]:
        return False
    first = _undone(target)
    now = changelog.images(first)
    return all(
        (old is None and now[table][row_id] is None)
        or (old is not None and now[table][row_id] is not None and json.loads(old) == json.loads(now[table][row_id] or ""))
        for table, rows in first.items()
        for row_id, old in rows.items()
    )


def redo(
    *,
    campaign: Campaign | int,
    key: str | None,
    by: Actor,
    door: str = "page",
    use: KeyUse | None = None,
) -> Checkpoint:
    """Write again what the last undo took back (the same rows, the same rolls: nothing is rolled
    again) and put its change sets back in force, so they can be undone again; returns the checkpoint
    the undo had gone back to. Refused when nothing is kept for redo (:class:`NothingToRedo`)."""
    label = "Redo"
    with transaction.atomic():
        locked = lock_campaign(campaign)
        require(by, locked, "gm")  # redo is the GM's, as undo (campaign.permissions): asked first, the key after
        key = action_key(key, by=by, door=door)
        done = "That redo was already done (the same form was sent twice): nothing more was redone."
        key_refuse(key, campaign=locked, use=use, done=done)
        target = _redo_target(locked)
        if target is None or target.redo is None:
            raise NothingToRedo("There is nothing to redo: no undo is kept (a step played or a desk save since forgets it).")
        stale = not _untouched_since_undo(locked, target)
        if stale:  # forgotten for good (committed), then refused
            Checkpoint.objects.filter(campaign=locked, undone_in__isnull=False).delete()
        else:
            _key_keep(locked, key, label=label, by=by, use=use)
            kept = _unpack(target.redo)
            rows = {table: {int(i): image for i, image in images.items()} for table, images in kept["rows"].items()}
            shown = kept["campaign"] != _campaign_row(locked)
            before = None if "seen" in kept else _undone(target)  # an undo kept before it said who saw it
            _revert(locked, rows, kept["campaign"], by=by, reason=f"{label}: again from {describe(target)}")
            seen = Seen.of_counters(kept["seen"]) if before is None else _seen(before, rows, shown=shown)
            live.reveal(locked, seen)  # seen by whoever saw the undo
            Checkpoint.objects.filter(undone_in=target).update(undone_in=None, redo=None)
    if stale:
        raise NothingToRedo("There is nothing to redo: the campaign was changed since the undo, which is forgotten.")
    return target
