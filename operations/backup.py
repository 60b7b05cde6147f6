"""Backups: dated exports of every campaign, written atomically and rotated (docs/backups.md).

``backup_campaigns`` writes one ``regnal/3`` export per campaign (docs/export-format.md) as
``<slug>-YYYYMMDD-HHMMSS.json`` (UTC; ``.json.gz`` when compressed) and keeps the newest ``keep``
files of each campaign it backed up. A file is first written to a hidden temporary file in the same
directory, flushed to disk, then renamed over its final name (:func:`campaign.files.write_atomically`):
a crash or a full disk never leaves a half-written backup under a backup's name. Each campaign is
read inside one transaction holding the campaign's row lock, the lock every step takes first, so a
backup never catches a step half done.
Restore a backup with ``manage.py import_campaign FILE`` (``-`` for a decompressed stream).

That is the operator's command, writing to a directory of his choice. The site's own backups (the
GM's button) are a task (:func:`backup_start`): a job on the task queue whose export is written
through the artifact storage (``backups/<campaign id>/<slug>-YYYYMMDD-HHMMSS.json``), so the job's
page on any server hands it out (written whole or not at all: :mod:`campaign.files`); ``manage.py
prune_jobs`` deletes it with its job.
"""

from __future__ import annotations

import datetime
import gzip
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from campaign.artifacts import artifact_storage
from campaign.files import write_atomically
from campaign.jobs import job_create, job_finish, job_progress, job_run
from campaign.models import Campaign, Job, JobKind
from campaign.permissions import Actor, require
from campaign.steps import lock_campaign
from operations.exchange import campaign_export
from rules.errors import NotFound, RuleError

DEFAULT_KEEP = 14
"""Backups kept per campaign: two weeks of nightly runs."""

STAMP = "%Y%m%d-%H%M%S"
_NAME = re.compile(r"^(?P<slug>.+)-(?P<stamp>\d{8}-\d{6})\.json(?P<gz>\.gz)?$")


@dataclass(frozen=True)
class Written:
    campaign: str  # the slug
    path: Path
    size: int


@dataclass
class BackupResult:
    written: list[Written] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (slug, why): the others are still written


def dumps(data: dict[str, Any]) -> str:
    """The text of an export, as ``manage.py export_campaign`` writes it."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def backup_name(slug: str, when: datetime.datetime, *, compress: bool = False) -> str:
    """``<slug>-YYYYMMDD-HHMMSS.json`` (``.json.gz``), the time in UTC."""
    stamp = when.astimezone(datetime.UTC).strftime(STAMP) if timezone.is_aware(when) else when.strftime(STAMP)
    return f"{slug}-{stamp}.json" + (".gz" if compress else "")


def backups_of(directory: Path, slug: str) -> list[Path]:
    """The backups of one campaign in ``directory``, newest first (by the time in the name)."""
    if not directory.is_dir():
        return []
    found = []
    for path in directory.iterdir():
        match = _NAME.match(path.name)
        if match and match["slug"] == slug and path.is_file():
            found.append((match["stamp"], path.name, path))
    return [path for _, _, path in sorted(found, reverse=True)]


def _payload(text: str, compress: bool) -> bytes:
    raw = text.encode("utf-8")
    return gzip.compress(raw, mtime=0) if compress else raw


def _export(campaign: Campaign) -> dict[str, Any]:
    with transaction.atomic():
        return campaign_export(lock_campaign(campaign))


def _campaigns(slug: str | None) -> Iterable[Campaign]:
    if slug is None:
        return Campaign.objects.order_by("slug")
    found = list(Campaign.objects.filter(slug=slug))
    if not found:
        raise NotFound(f"There is no campaign with the slug {slug!r}.")
    return found


def backup_campaigns(
    *,
    directory: Path | str,
    keep: int = DEFAULT_KEEP,
    slug: str | None = None,
    compress: bool = False,
    now: datetime.datetime | None = None,
) -> BackupResult:
    """Back up every campaign (or the one with ``slug``) into ``directory`` (made if missing),
    then delete all but the newest ``keep`` backups of each campaign backed up. Backups of other
    campaigns, and files not named like backups, are never touched. A campaign that cannot be
    backed up (a full disk, say) is listed in ``failed`` with the reason, its old backups kept,
    and the next campaign is tried."""
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise RuleError("Keep at least one backup per campaign (--keep 1 or more).", code="invalid", fields={"keep": "min"})
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RuleError(f"Cannot make the backup directory {directory}: {exc.strerror or exc}.", code="backup_dir") from exc
    when = now or timezone.now()
    result = BackupResult()
    for campaign in _campaigns(slug):
        path = directory / backup_name(campaign.slug, when, compress=compress)
        try:
            payload = _payload(dumps(_export(campaign)), compress)
        except RuleError as exc:
            result.failed.append((campaign.slug, f"Cannot export {campaign.slug}: {exc.message}"))
            continue
        try:
            write_atomically(path, payload)
        except OSError as exc:
            result.failed.append((campaign.slug, f"Cannot write the backup {path}: {exc.strerror or exc}."))
            continue
        result.written.append(Written(campaign.slug, path, len(payload)))
        for old in backups_of(directory, campaign.slug)[keep:]:
            old.unlink(missing_ok=True)
            result.removed.append(old)
    return result


def read_backup(path: Path | str) -> Any:
    """The document in a backup file (plain or gzip-compressed JSON), for ``campaign_import``."""
    from operations.exchange import parse_document

    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return parse_document(raw)


# The site's backups: a task writing through the artifact storage ------------------------------------

FOLDER = "backups"


def backup_to_storage(campaign: Campaign, *, compress: bool = False, now: datetime.datetime | None = None) -> tuple[str, int]:
    """Write the campaign's export to the artifact storage: its name there and its size."""
    payload = _payload(dumps(_export(campaign)), compress)
    name = f"{FOLDER}/{campaign.pk}/{backup_name(campaign.slug, now or timezone.now(), compress=compress)}"
    return artifact_storage().save(name, ContentFile(payload)), len(payload)


def _backup(job: Job) -> None:
    assert job.campaign_id is not None  # a backup is made of its campaign (job_create)
    campaign = Campaign.objects.get(pk=job.campaign_id)
    name, size = backup_to_storage(campaign, compress=bool(job.params.get("gzip")))
    job.params["size"] = size
    Job.objects.filter(pk=job.pk).update(params=job.params)
    job_progress(job, 1)
    job_finish(job, artifact=name)


@task()
def backup_campaign(job_id: str) -> None:
    """Back up one campaign to the storage (the task)."""
    job_run(job_id, _backup)


def backup_start(campaign: Campaign, *, by: Actor, compress: bool = False) -> Job:
    """A backup of the campaign on the task queue; its GM's (a superuser is one everywhere), the
    export holding every secret."""
    require(by, campaign, "gm")
    job = job_create(kind=JobKind.BACKUP, campaign=campaign, by=by, total=1, params={"gzip": compress})
    backup_campaign.enqueue(str(job.pk))
    job.refresh_from_db()
    return job


def backups_latest(campaign: Campaign, *, by: Actor, shown: int = 10) -> list[Job]:
    """The campaign's latest backup jobs, newest first: the GM's (the policy decides), as backups are."""
    require(by, campaign, "gm")
    return list(Job.objects.filter(campaign=campaign, kind=JobKind.BACKUP).order_by("-created_at")[:shown])


def backup_job(campaign: Campaign, token: str, *, by: Actor) -> Job | None:
    """The campaign's backup job of that id, or None (a made-up or malformed id included); the GM's
    (the policy decides)."""
    require(by, campaign, "gm")
    try:
        return Job.objects.filter(pk=token, kind=JobKind.BACKUP, campaign=campaign).first()
    except ValidationError:  # not a UUID
        return None
