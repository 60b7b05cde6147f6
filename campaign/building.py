"""A campaign being built is not open for play (issue 30).

A campaign made with a prehistory is played by a background job (``operations.services``) before
anyone plays it: ``Campaign.setup`` says where it stands: ``building`` while its job runs, ``ready``
once it finished, ``failed`` when the job failed or its worker was found lost. Only a ready campaign
takes writes: :func:`require_open`, asked by ``campaign.steps.lock_campaign`` (which every service
calls before it writes: the turn, the desk, undo, the treasury, contracts, notes, portraits, seats),
refuses every other with a message saying why and what happens next; the job itself writes into its
own campaign inside :func:`building`. A campaign whose set-up failed is never deleted behind its
GM's back: it stays, marked, for him to retry or delete (``operations.services``).

:func:`setup_status` is what the pages show (the list of campaigns, every page of the campaign):
the state and the job (its progress, or why it failed); it looks at the job first, so a job whose
worker died is found lost there and its campaign marked failed (``campaign.jobs.job_check``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.db.models import F

from campaign.jobs import LOST, job_check
from campaign.models import Campaign, Job, JobKind, JobState, Setup
from rules.errors import RuleError

_building: ContextVar[frozenset[int]] = ContextVar("regnal_building", default=frozenset())


class NotOpen(RuleError):
    """A write to a campaign that is not open for play (being built, or its set-up failed)."""

    code = "not_open"
    status = 409


@contextmanager
def building(campaign_id: int) -> Iterator[None]:
    """The set-up job's own writes into the campaign it builds (while it is being built)."""
    token = _building.set(_building.get() | {campaign_id})
    try:
        yield
    finally:
        _building.reset(token)


def require_open(campaign: Campaign) -> None:
    """Refuse a write to a campaign that is not ready (its own set-up job's excepted)."""
    if campaign.setup == Setup.READY:
        return
    if campaign.setup == Setup.BUILDING:
        if campaign.pk in _building.get():
            return
        raise NotOpen(
            f"{campaign.name} is still being built (its prehistory is being played): nothing can be written "
            "into it until that is finished. Its page shows how far it is."
        )
    raise NotOpen(
        f"The set-up of {campaign.name} failed before it finished, so it is not open for play: its game master "
        "retries the set-up or deletes the campaign, from its page."
    )


def mark(campaign_id: int, state: str, *, was: str = Setup.BUILDING) -> bool:
    """Set the campaign's set-up state (from ``was`` only), raising its live version so open pages
    follow; whether it changed."""
    return bool(Campaign.objects.filter(pk=campaign_id, setup=was).update(setup=state, live_version=F("live_version") + 1))


@dataclass(frozen=True)
class SetupStatus:
    """Where a campaign's set-up stands, and its job (None when it has none)."""

    state: str
    job: Job | None = None

    @property
    def ready(self) -> bool:
        return self.state == Setup.READY

    @property
    def building(self) -> bool:
        return self.state == Setup.BUILDING

    @property
    def failed(self) -> bool:
        return self.state == Setup.FAILED

    @property
    def why(self) -> str:
        return self.job.error if self.job is not None else ""

    @property
    def lost(self) -> bool:
        """Its job's worker was found lost (rather than the job failing in its own words)."""
        return self.why.startswith(LOST.split("{", 1)[0])


def _settled(campaign: Campaign, job: Job | None) -> SetupStatus:
    if campaign.setup == Setup.BUILDING and job is not None:
        job = job_check(job)  # a lost job is marked failed, and its campaign with it
        if job.state == JobState.FAILED:
            mark(campaign.pk, Setup.FAILED)  # failed without its campaign being marked (the worker's database went away)
            campaign.setup = Setup.FAILED
        elif job.state == JobState.DONE:
            campaign.refresh_from_db(fields=["setup"])
    elif campaign.setup == Setup.BUILDING:  # no job to finish it
        mark(campaign.pk, Setup.FAILED)
        campaign.setup = Setup.FAILED
    return SetupStatus(campaign.setup, job)


def setup_job(campaign: Campaign | int) -> Job | None:
    """The newest set-up (prehistory) job of a campaign, or None."""
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    return Job.objects.filter(campaign_id=pk, kind=JobKind.PREHISTORY).order_by("-created_at").first()


def setup_status(campaign: Campaign) -> SetupStatus:
    """The campaign's set-up as it stands (no query for a ready one)."""
    if campaign.setup == Setup.READY:
        return SetupStatus(Setup.READY)
    return _settled(campaign, setup_job(campaign))


def setup_statuses(campaigns: Iterable[Campaign]) -> dict[int, SetupStatus]:
    """:func:`setup_status` of each campaign not ready, by id: one query for their jobs."""
    waiting = [c for c in campaigns if c.setup != Setup.READY]
    if not waiting:
        return {}
    jobs: dict[int, Job] = {}
    for job in Job.objects.filter(campaign_id__in=[c.pk for c in waiting], kind=JobKind.PREHISTORY).order_by("created_at"):
        if job.campaign_id is not None:  # (always: filtered by it)
            jobs[job.campaign_id] = job  # the newest last
    return {c.pk: _settled(c, jobs.get(c.pk)) for c in waiting}
