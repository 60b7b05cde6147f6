"""Issue 18: the GM's backups are tasks. The button queues a job; the export is written through the
artifact storage (Django's storage API, here a shared "remote" store: no local path), the job's
page offers it to download, a failed backup says why, and only the GM may back up or see one."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.urls import reverse

from campaign.models import Job, JobKind, JobState
from campaign.permissions import Forbidden
from operations import backup
from operations.exchange import campaign_export, campaign_import, parse_document
from tests.test_jobs import QUEUE, work
from tests.test_tree_cache import Bucket


@pytest.fixture
def bucket(settings):
    """The artifacts in a shared "remote" store (STORAGES["artifacts"]), none on a local disk."""
    Bucket.objects = {}
    settings.STORAGES = {**settings.STORAGES, "artifacts": {"BACKEND": "tests.test_tree_cache.Bucket"}}
    yield Bucket.objects
    Bucket.objects = {}


def dashboard(client, campaign) -> str:
    return client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()


def _download(client, campaign, job: Job):
    response = client.get(reverse("pages:backup", args=[campaign.slug, job.pk]) + "?download=1")
    return response, b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.django_db
def test_the_gm_backs_up_the_campaign_from_its_page_and_downloads_it(campaign, client, gm, bucket, settings):
    client.force_login(gm)
    listing = client.get(reverse("pages:backups", args=[campaign.slug])).content.decode()
    assert "Back up now" in listing and "No backup yet." in listing
    assert reverse("pages:backups", args=[campaign.slug]) in dashboard(client, campaign)

    response = client.post(reverse("pages:backup_new", args=[campaign.slug]))  # the immediate backend runs it
    job = Job.objects.get(kind=JobKind.BACKUP)
    assert response.status_code == 302 and response["Location"] == reverse("pages:backup", args=[campaign.slug, job.pk])
    assert (job.state, job.done, job.total, job.by, job.error) == (JobState.DONE, 1, 1, gm, "")
    assert job.artifact.startswith(f"backups/{campaign.pk}/{campaign.slug}-") and job.artifact.endswith(".json")
    assert list(bucket) == [job.artifact]  # written through the storage API, into the shared store
    assert not (Path(django_settings.BASE_DIR) / "backups").joinpath(job.artifact.rsplit("/", 1)[-1]).exists()
    assert not Path(settings.MEDIA_ROOT).exists()  # nothing on this server's disk

    page = client.get(response["Location"]).content.decode()
    assert f"Ready: {job.params['size']} bytes." in page and 'http-equiv="refresh"' not in page
    assert job.artifact in client.get(reverse("pages:backups", args=[campaign.slug])).content.decode()
    download, content = _download(client, campaign, job)
    assert download["Content-Type"] == "application/json"
    assert download["Content-Disposition"] == f'attachment; filename="{job.artifact.rsplit("/", 1)[-1]}"'
    assert len(content) == job.params["size"]
    data = parse_document(content)
    assert data == json.loads(json.dumps(campaign_export(campaign)))  # the whole campaign, as exported
    again = campaign_import(data, by=gm, slug="restored")
    assert campaign_export(again)["characters"] == data["characters"]

    client.post(reverse("pages:backup_new", args=[campaign.slug]), {"gzip": "1"})
    packed = Job.objects.filter(kind=JobKind.BACKUP).order_by("-created_at").first()
    download, content = _download(client, campaign, packed)
    assert packed.artifact.endswith(".json.gz") and download["Content-Type"] == "application/gzip"
    assert json.loads(gzip.decompress(content)) == data


@pytest.mark.django_db(transaction=True)
def test_a_queued_backup_is_written_by_the_worker(campaign, client, gm, settings):
    settings.TASKS = QUEUE
    client.force_login(gm)
    response = client.post(reverse("pages:backup_new", args=[campaign.slug]))
    job = Job.objects.get(kind=JobKind.BACKUP)
    page = client.get(response["Location"]).content.decode()
    assert job.state == JobState.QUEUED and "Waiting for a worker" in page and 'http-equiv="refresh"' in page
    assert client.get(response["Location"] + "?download=1")["Content-Type"].startswith("text/html")  # no file yet

    work()

    job.refresh_from_db()
    assert job.state == JobState.DONE
    download, content = _download(client, campaign, job)
    assert download.status_code == 200 and parse_document(content)["campaign"]["name"] == campaign.name


@pytest.mark.django_db
def test_a_backup_that_fails_says_why(campaign, client, gm, monkeypatch):
    def broken(campaign):
        raise OSError("the disk is full")

    monkeypatch.setattr(backup, "campaign_export", broken)
    client.force_login(gm)
    response = client.post(reverse("pages:backup_new", args=[campaign.slug]))
    job = Job.objects.get(kind=JobKind.BACKUP)
    assert (job.state, job.error, job.artifact) == (JobState.FAILED, "OSError: the disk is full", "")
    page = client.get(response["Location"]).content.decode()
    assert "The backup failed: OSError: the disk is full" in page and "Download" not in page


@pytest.mark.django_db
def test_only_the_gm_backs_up_or_sees_a_backup(campaign, client, gm, alice, outsider, django_user_model):
    client.force_login(gm)
    client.post(reverse("pages:backup_new", args=[campaign.slug]))
    job = Job.objects.get(kind=JobKind.BACKUP)
    for user in (alice, outsider):  # a player, a stranger: as for a made-up campaign
        client.force_login(user)
        assert client.get(reverse("pages:backups", args=[campaign.slug])).status_code == 404
        assert client.post(reverse("pages:backup_new", args=[campaign.slug])).status_code == 404
        assert client.get(reverse("pages:backup", args=[campaign.slug, job.pk]) + "?download=1").status_code == 404
    client.force_login(alice)
    assert reverse("pages:backups", args=[campaign.slug]) not in dashboard(client, campaign)
    assert Job.objects.filter(kind=JobKind.BACKUP).count() == 1
    with pytest.raises(Forbidden):
        backup.backup_start(campaign, by=alice)  # the service asks the policy too

    root = django_user_model.objects.create_superuser("root", password="root-password-1")  # a GM everywhere
    client.force_login(root)
    assert client.post(reverse("pages:backup_new", args=[campaign.slug])).status_code == 302
    client.force_login(gm)
    assert client.get(reverse("pages:backup", args=[campaign.slug, "not-a-job"])).status_code == 404


@pytest.mark.django_db
def test_pruning_deletes_an_old_backup_and_its_file(campaign, client, gm, bucket):
    import datetime

    from django.utils import timezone

    client.force_login(gm)
    client.post(reverse("pages:backup_new", args=[campaign.slug]))
    job = Job.objects.get(kind=JobKind.BACKUP)
    assert list(bucket) == [job.artifact]
    Job.objects.filter(pk=job.pk).update(finished_at=timezone.now() - datetime.timedelta(days=8))
    call_command("prune_jobs", "--days", "7", stdout=io.StringIO())
    assert not Job.objects.exists() and bucket == {}
