"""Large trees render on the task queue (issue 18): a tree of more than
``settings.TREE_INLINE_PEOPLE`` people that is not in the cache is a job whose task draws it into
the cache (:func:`~dynasties.trees.render.render_tree`, as ``render_tree_artifact`` does); the
tree's page follows the job, then serves the render. A render the cache does not keep (larger than
its cap) is the job's own file (``tree-jobs/<job>.<format>``), deleted with the job by
``manage.py prune_jobs``; the cache's renders stay the cache's (bounded by
``TREE_CACHE_MAX_BYTES``). Asking again for the same tree of the same data while its job runs
follows that job: a refreshed page queues nothing more."""

from __future__ import annotations

import dataclasses

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django_tasks import task

from campaign.artifacts import artifact_storage
from campaign.jobs import job_create, job_finish, job_progress, job_run
from campaign.models import Campaign, Job, JobKind, JobState
from campaign.permissions import Actor
from dynasties.trees.render import FORMATS, TreeRequest, cache_key, render_tree

INLINE_PEOPLE = 500  # settings.TREE_INLINE_PEOPLE, when not set
FOLDER = "tree-jobs"


def inline_people() -> int:
    return int(getattr(settings, "TREE_INLINE_PEOPLE", INLINE_PEOPLE))


def _render(job: Job) -> None:
    assert job.campaign_id is not None  # a tree job is made for its campaign (job_create below)
    campaign = Campaign.objects.get(pk=job.campaign_id)
    request = TreeRequest(**job.params["request"])
    result = render_tree(campaign, request)
    job_progress(job, 1)
    if result.name is not None:  # kept by the cache: served from there
        job.params["render"] = result.name
        Job.objects.filter(pk=job.pk).update(params=job.params)
        job_finish(job)
    else:
        own = artifact_storage().save(f"{FOLDER}/{job.pk}.{request.fmt}", ContentFile(result.content))
        job_finish(job, artifact=own)


@task()
def render_tree_job(job_id: str) -> None:
    """Render a tree into the cache (the task)."""
    job_run(job_id, _render)


def start(campaign: Campaign, request: TreeRequest, path: str, *, by: Actor) -> Job:
    """The job drawing this tree: the one already queued or running for the same tree of the same
    data, else a new one on the task queue. ``path`` is the tree's address (to ask it again)."""
    request = request.checked()
    _, key = cache_key(campaign, request)
    running = Job.objects.filter(
        campaign=campaign, kind=JobKind.TREE, state__in=(JobState.QUEUED, JobState.RUNNING), params__key=key
    ).first()
    if running is not None:
        return running
    params = {"request": dataclasses.asdict(request), "key": key, "path": path}
    job = job_create(kind=JobKind.TREE, campaign=campaign, by=by, total=1, params=params)
    render_tree_job.enqueue(str(job.pk))
    job.refresh_from_db()
    return job


def find(campaign: Campaign, token: str) -> Job | None:
    """The campaign's tree job of that id, or None (a made-up or malformed id included)."""
    try:
        return Job.objects.filter(pk=token, kind=JobKind.TREE, campaign=campaign).first()
    except ValidationError:  # not a UUID
        return None


def rendered(job: Job) -> tuple[bytes, str] | None:
    """The finished job's render and its content type, or None if its file is gone (evicted from
    the cache since: the tree is asked again)."""
    name = job.artifact or job.params.get("render", "")
    try:
        with artifact_storage().open(name, "rb") as file:
            content = bytes(file.read())
    except OSError:
        return None
    return content, FORMATS[job.params["request"]["fmt"]]
