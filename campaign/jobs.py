"""Background work on the task queue (django-tasks, ``settings.TASKS``): a :class:`~campaign.models.Job`
row holds each piece of work's state, progress and error, so the page that follows it may be served
by any server and the work done by any worker (``manage.py db_worker``). In development and tests
the immediate backend runs a task as it is enqueued, inside the caller's transaction.

An app defines its task (``@task()``, taking the job's id) and calls :func:`job_run` in it with the
work; the work reports its progress with :func:`job_progress` and what it made with
:func:`job_finish`. An exception marks the job failed with what went wrong, then goes on to the
task queue (its own record of the failure)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from campaign.models import Campaign, Job, JobState
from rules.errors import RuleError

logger = logging.getLogger(__name__)

ERROR_LENGTH = 500


def job_create(
    *,
    kind: str,
    campaign: Campaign,
    by: AbstractBaseUser | None = None,
    total: int = 0,
    params: dict[str, Any] | None = None,
) -> Job:
    """A job waiting for its task (the caller enqueues it with the job's id)."""
    return Job.objects.create(kind=kind, campaign=campaign, by=by, total=total, params=params or {})


def job_progress(job: Job, done: int) -> None:
    """``done`` of the job's ``total`` are done (committed at once when no transaction is open)."""
    job.done = done
    Job.objects.filter(pk=job.pk).update(done=done)


def job_finish(job: Job, *, artifact: str = "") -> None:
    """The job is done; ``artifact`` names the file it made in the storage."""
    job.state, job.done, job.artifact, job.finished_at = JobState.DONE, job.total, artifact, timezone.now()
    job.save(update_fields=["state", "done", "artifact", "finished_at"])


def why(exc: BaseException) -> str:
    """What a player is told: a refusal's own message, else the error's kind and text."""
    text = exc.message if isinstance(exc, RuleError) else f"{type(exc).__name__}: {exc}"
    return text[:ERROR_LENGTH]


def job_run(job_id: str, work: Callable[[Job], None]) -> None:
    """Run ``work`` on the job: running, then done (unless the work finished it) or failed with why."""
    job = Job.objects.get(pk=job_id)
    job.state = JobState.RUNNING
    Job.objects.filter(pk=job.pk).update(state=JobState.RUNNING)
    try:
        work(job)
    except Exception as exc:
        logger.exception("Job %s (%s) failed", job.pk, job.kind)
        Job.objects.filter(pk=job.pk).update(state=JobState.FAILED, error=why(exc), finished_at=timezone.now())
        raise
    if job.state != JobState.DONE:
        job_finish(job)
