"""Large batches of sheets render on the task queue (``campaign.jobs``): the page says what is being
printed and refreshes itself until the PDF is ready, then links to it (issue 6: a batch over a few
seconds). The job's state is in the database and the PDF in the artifact storage
(``campaign.artifacts``: ``default_storage`` unless the deployment names one), so any server
shows the page and hands out the file, whichever worker rendered it."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django_tasks import task

from campaign.artifacts import artifact_storage
from campaign.jobs import job_create, job_finish, job_run
from campaign.models import Campaign, Job, JobKind
from campaign.permissions import Actor
from dynasties import printing

INLINE_LIMIT = 20  # up to this many sheets (about 2-3 s) render in the request; more in the background
FOLDER = "prints"


def pdf_name(job: Job) -> str:
    return f"{FOLDER}/{job.pk}.pdf"


def _render(job: Job) -> None:
    assert job.campaign_id is not None  # a print job is made for its campaign (start, job_create)
    campaign = Campaign.objects.get(pk=job.campaign_id)
    pdf = printing.campaign_sheets_pdf(campaign, bool(job.params.get("two_up")))
    job_finish(job, artifact=artifact_storage().save(pdf_name(job), ContentFile(pdf)))


@task()
def render_sheets(job_id: str) -> None:
    """Render the campaign's sheets to the storage (the task)."""
    job_run(job_id, _render)


def start(campaign: Campaign, two_up: bool, total: int, *, by: Actor) -> Job:
    """A print job for the campaign's ``total`` sheets, on the task queue."""
    job = job_create(kind=JobKind.PRINT, campaign=campaign, by=by, total=total, params={"two_up": two_up})
    render_sheets.enqueue(str(job.pk))
    job.refresh_from_db()
    return job


def pdf(job: Job) -> bytes:
    """The finished job's PDF, from the storage."""
    with artifact_storage().open(job.artifact, "rb") as file:
        return bytes(file.read())


def find(campaign: Campaign, token: str) -> Job | None:
    """The campaign's print job of that id, or None (a made-up or malformed id included)."""
    try:
        return Job.objects.filter(pk=token, kind=JobKind.PRINT, campaign=campaign).first()
    except ValidationError:  # not a UUID
        return None
