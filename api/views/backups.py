"""The GM's backups through the API (issue 18): the pages' Backups button as endpoints.

- ``POST campaigns/{slug}/backups/``: queue a backup (``operations.backup.backup_start``, the GM
  only); 202 with the job and its address;
- ``GET campaigns/{slug}/backups/{id}/``: the job (state, progress, error, the file's size);
- ``GET campaigns/{slug}/backups/{id}/file/``: the export, once written (409 before).

Members other than the GM get 403, non-members 404, as for the export."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.common import CampaignScoped
from api.schema import ErrorSerializer
from campaign.artifacts import artifact_storage
from campaign.jobs import job_check
from campaign.models import Job, JobState
from operations.backup import backup_job, backup_start
from rules.errors import NotFound, RuleError


class NotReady(RuleError):
    code = "not_ready"
    status = 409


class BackupOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    state = serializers.ChoiceField(choices=JobState.choices)
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    error = serializers.CharField(help_text="Why it failed (empty unless failed).")
    size = serializers.IntegerField(allow_null=True, help_text="The file's bytes, once written.")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(help_text="This job's address.")
    file = serializers.CharField(allow_null=True, help_text="The export's address, once written.")


def job_out(job: Job, url: str) -> dict[str, object]:
    """What the API shows of a job (a backup's, a large tree's): its state, why it failed, when, its
    address (``url``) and its file's, once done."""
    return {
        "id": job.pk,
        "state": job.state,
        "error": job.error,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
        "url": url,
        "file": url + "file/" if job.state == JobState.DONE else None,
    }


def _out(request: Request, slug: str, job: Job) -> dict[str, object]:
    url = reverse("api:backup", args=[slug, job.pk])
    return {**job_out(job, url), "done": job.done, "total": job.total, "size": job.params.get("size")}


class BackupsView(CampaignScoped, APIView):
    api_tag = "exchange"
    throttle_scope = "render"  # an export written by the worker (api.throttles)

    @extend_schema(
        summary="Back up the campaign (GM)",
        description=(
            "Queue a backup: the worker writes the campaign's export (as `export/` gives it) to the site's storage. "
            "Follow the job's `url` until its state is `done`, then fetch its `file`; a failed job says why in `error`."
        ),
        request=None,
        responses={202: BackupOut},
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer
        job = backup_start(v.campaign, by=request.user)
        response = Response(BackupOut(_out(request, slug, job)).data, status=status.HTTP_202_ACCEPTED)
        response["Location"] = reverse("api:backup", args=[slug, job.pk])
        return response


class BackupView(CampaignScoped, APIView):
    api_tag = "exchange"

    def _job(self, token: str) -> Job:
        job = backup_job(self.viewer.campaign, token, by=self.request.user)
        if job is None:
            raise NotFound("No such backup.")
        return job_check(job)  # a lost one says so

    @extend_schema(summary="A backup's job (GM)", responses={200: BackupOut})
    def get(self, request: Request, slug: str, token: str) -> Response:
        return Response(BackupOut(_out(request, slug, self._job(token))).data)


class BackupFileView(BackupView):
    @extend_schema(
        summary="A backup's file (GM)",
        description="The export the job wrote (JSON, or gzip-compressed JSON); 409 while the job is not done.",
        responses={
            200: OpenApiResponse(OpenApiTypes.BINARY, description="The export."),
            409: OpenApiResponse(ErrorSerializer, description="Not written (yet)."),
        },
    )
    def get(self, request: Request, slug: str, token: str) -> FileResponse:  # type: ignore[override]
        job = self._job(token)
        if job.state != JobState.DONE:
            raise NotReady(f"This backup is {job.get_state_display().lower()}: no file to fetch yet.")
        try:
            file = artifact_storage().open(job.artifact, "rb")
        except OSError:
            raise NotFound("This backup's file is gone (old backups are deleted); make another.") from None
        filename = job.artifact.rsplit("/", 1)[-1]
        content_type = "application/gzip" if filename.endswith(".gz") else "application/json"
        return FileResponse(file, as_attachment=True, filename=filename, content_type=content_type)
