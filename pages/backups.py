"""Pages: the GM's backups of his campaign (issue 18). A backup is a task (``operations.backup``):
the button queues it and opens its page, which refreshes itself until the export is written to the
artifact storage, then offers it to download; a failed backup says why. The GM only (a superuser
is one everywhere): an export holds every secret. Anyone else gets 404, as for a made-up campaign
or job."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.views.decorators.http import require_GET, require_POST

from campaign.artifacts import artifact_storage
from campaign.doors import refused_as_missing
from campaign.jobs import job_check
from campaign.models import JobState, Role
from operations.backup import backup_job, backup_start, backups_latest
from pages.common import member

SHOWN = 10  # the latest backups listed


@require_GET
@login_required
def backups(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, _, _ = member(request, slug)
    with refused_as_missing():
        latest = backups_latest(campaign, by=request.user, shown=SHOWN)
    return render(request, "pages/backups.html", {"campaign": campaign, "role": Role.GM, "jobs": latest})


@require_POST
@login_required
def backup_new(request: HttpRequest, slug: str) -> HttpResponse:
    campaign, _, _ = member(request, slug)
    with refused_as_missing():
        job = backup_start(campaign, by=request.user, compress=bool(request.POST.get("gzip")))
    return redirect("pages:backup", campaign.slug, job.pk)


@require_GET
@login_required
def backup(request: HttpRequest, slug: str, token: str) -> HttpResponseBase:
    """The backup's page (refreshing until it is written); ``?download=1`` hands out the file."""
    campaign, _, _ = member(request, slug)
    with refused_as_missing():
        job = backup_job(campaign, token, by=request.user)
    if job is None:
        raise Http404("No such backup.")
    job = job_check(job)  # a lost one says so
    if request.GET.get("download") and job.state == JobState.DONE:
        try:
            file = artifact_storage().open(job.artifact, "rb")
        except OSError:
            raise Http404("This backup's file is gone (old backups are deleted); make another.") from None
        filename = job.artifact.rsplit("/", 1)[-1]
        content_type = "application/gzip" if filename.endswith(".gz") else "application/json"
        return FileResponse(file, as_attachment=True, filename=filename, content_type=content_type)
    return render(request, "pages/backup.html", {"campaign": campaign, "role": Role.GM, "job": job})


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/backups/", backups, name="backups"),
    path("<slug:slug>/backups/new/", backup_new, name="backup_new"),
    path("<slug:slug>/backups/<str:token>/", backup, name="backup"),
]
