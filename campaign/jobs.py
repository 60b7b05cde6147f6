"""Background work on the task queue (django-tasks, ``settings.TASKS``): a :class:`~campaign.models.Job`
row holds each piece of work's state, progress and error, so the page that follows it may be served
by any server and the work done by any worker (``manage.py db_worker``). In development and tests
the immediate backend runs a task as it is enqueued, inside the caller's transaction.

An app defines its task (``@task()``, taking the job's id) and calls :func:`job_run` in it with the
work; the work reports its progress with :func:`job_progress` and what it made with
:func:`job_finish`. An exception marks the job failed with what went wrong, then goes on to the
task queue (its own record of the failure).

A worker that dies (killed, its machine lost) leaves its job "running" for ever: each start and
each progress is a sign of life (``touched_at``), and a job running without one for
``settings.REGNAL_JOB_STALE_SECONDS`` is lost. :func:`job_check` (the pages that follow a job call
it) and :func:`fail_lost_jobs` (``manage.py prune_jobs``) mark it failed, saying so, and run what
its app registered with :func:`on_lost` (a prehistory marks its part-played campaign failed). A job
that does long work in one piece should report progress more often than that.

:func:`prune_jobs` deletes finished jobs older than some days, and the files they made."""

from __future__ import annotations

import contextlib
import datetime
import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from campaign import audit
from campaign.artifacts import artifact_storage
from campaign.models import Campaign, Job, JobState
from campaign.permissions import Actor
from rules.errors import RuleError

logger = logging.getLogger(__name__)

ERROR_LENGTH = 500
STALE_SECONDS = 900  # settings.REGNAL_JOB_STALE_SECONDS, when not set
LOST = "Its worker stopped: no sign of life since {since:%Y-%m-%d %H:%M} UTC ({minutes} minutes). Start it again."

Cleanup = Callable[[Job], None]
_on_lost: dict[str, Cleanup] = {}


def job_create(
    *,
    kind: str,
    campaign: Campaign,
    by: Actor,
    total: int = 0,
    params: dict[str, Any] | None = None,
) -> Job:
    """A job waiting for its task (the caller enqueues it with the job's id). ``by`` is whom it works
    for: a person (kept as ``Job.by``; a job that acts acts for him) or ``SYSTEM_ACTOR`` (the site's
    own work, kept as no one)."""
    return Job.objects.create(kind=kind, campaign=campaign, by=audit.person(by), total=total, params=params or {})


def job_progress(job: Job, done: int) -> None:
    """``done`` of the job's ``total`` are done (committed at once when no transaction is open): a
    sign of life."""
    job.done, job.touched_at = done, timezone.now()
    Job.objects.filter(pk=job.pk).update(done=done, touched_at=job.touched_at)


def job_finish(job: Job, *, artifact: str = "") -> None:
    """The job is done; ``artifact`` names the file it made in the storage (the job's own: pruning
    deletes it with the job). A job already failed (found lost meanwhile) stays failed, its file
    deleted."""
    now = timezone.now()
    finished = (
        Job.objects.filter(pk=job.pk)
        .exclude(state=JobState.FAILED)
        .update(state=JobState.DONE, done=job.total, artifact=artifact, finished_at=now, touched_at=now)
    )
    if not finished:
        if artifact:
            _delete(artifact)
        job.refresh_from_db()
        return
    job.state, job.done, job.artifact, job.finished_at, job.touched_at = JobState.DONE, job.total, artifact, now, now


def why(exc: BaseException) -> str:
    """What a player is told: a refusal's own message, else the error's kind and text."""
    text = exc.message if isinstance(exc, RuleError) else f"{type(exc).__name__}: {exc}"
    return text[:ERROR_LENGTH]


def job_run(job_id: str, work: Callable[[Job], None]) -> None:
    """Run ``work`` on the job: running, then done (unless the work finished it) or failed with why
    (the first reason stays: a job found lost meanwhile keeps saying so)."""
    job = Job.objects.get(pk=job_id)
    job.state, job.touched_at = JobState.RUNNING, timezone.now()
    Job.objects.filter(pk=job.pk).update(state=JobState.RUNNING, touched_at=job.touched_at)
    try:
        work(job)
    except Exception as exc:
        logger.exception("Job %s (%s) failed", job.pk, job.kind)
        Job.objects.filter(pk=job.pk).exclude(state=JobState.FAILED).update(
            state=JobState.FAILED, error=why(exc), finished_at=timezone.now()
        )
        raise
    if job.state != JobState.DONE:
        job_finish(job)


# Lost jobs ---------------------------------------------------------------------------------------


def on_lost(kind: str) -> Callable[[Cleanup], Cleanup]:
    """Register what to undo when a job of ``kind`` is found lost (in the transaction that marks it
    failed: if the cleanup fails, the job stays running and is looked at again)."""

    def register(cleanup: Cleanup) -> Cleanup:
        _on_lost[kind] = cleanup
        return cleanup

    return register


def stale_after() -> datetime.timedelta:
    return datetime.timedelta(seconds=int(getattr(settings, "REGNAL_JOB_STALE_SECONDS", STALE_SECONDS)))


def _silent_since(cutoff: datetime.datetime) -> Q:
    """Running jobs with no sign of life since ``cutoff``."""
    return Q(state=JobState.RUNNING) & (Q(touched_at__lt=cutoff) | Q(touched_at__isnull=True, created_at__lt=cutoff))


def job_check(job: Job, *, now: datetime.datetime | None = None) -> Job:
    """The job as it stands, a lost one marked failed first (see the module's doc)."""
    now = now or timezone.now()
    if job.state != JobState.RUNNING or (job.touched_at or job.created_at) >= now - stale_after():
        return job
    try:
        with transaction.atomic():
            lost = Job.objects.select_for_update().filter(_silent_since(now - stale_after()), pk=job.pk).first()
            if lost is not None:
                since = lost.touched_at or lost.created_at
                minutes = int((now - since).total_seconds() // 60)
                lost.state, lost.finished_at = JobState.FAILED, now
                lost.error = LOST.format(since=since.astimezone(datetime.UTC), minutes=minutes)[:ERROR_LENGTH]
                lost.save(update_fields=["state", "finished_at", "error"])
                cleanup = _on_lost.get(lost.kind)
                if cleanup is not None:
                    cleanup(lost)
                logger.warning("Job %s (%s) lost: %s", lost.pk, lost.kind, lost.error)
    except Exception:  # its cleanup failed: still running, looked at again next time
        logger.exception("Job %s (%s) is lost, and its cleanup failed", job.pk, job.kind)
    job.refresh_from_db()
    return job


def fail_lost_jobs(*, now: datetime.datetime | None = None) -> list[Job]:
    """Mark every lost job failed (:func:`job_check`); the jobs so marked."""
    now = now or timezone.now()
    silent = Job.objects.filter(_silent_since(now - stale_after()))
    return [job for job in (job_check(j, now=now) for j in silent) if job.state == JobState.FAILED]


# Pruning -----------------------------------------------------------------------------------------


def _delete(name: str) -> None:
    with contextlib.suppress(OSError):  # already gone
        artifact_storage().delete(name)


def prune_jobs(days: int, *, now: datetime.datetime | None = None) -> tuple[int, int]:
    """Delete the jobs finished (done or failed) more than ``days`` days ago and the files they
    made; (jobs, files) deleted. Running and queued jobs stay, however old."""
    if days < 0:
        raise RuleError("Keep jobs for 0 days or more.", code="invalid", fields={"days": "min"})
    cutoff = (now or timezone.now()) - datetime.timedelta(days=days)
    old = Job.objects.filter(state__in=(JobState.DONE, JobState.FAILED), finished_at__lt=cutoff)
    jobs, files = 0, 0
    for pk, artifact in old.values_list("pk", "artifact").iterator():
        if artifact:
            _delete(artifact)
            files += 1
        jobs += Job.objects.filter(pk=pk).delete()[0]
    return jobs, files
