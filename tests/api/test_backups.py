"""Issue 18: the GM's backups through the API: queued (202), followed, fetched; the GM only."""

from __future__ import annotations

import json

import pytest

from campaign.models import Job, JobKind, JobState
from operations import backup
from operations.exchange import campaign_export, parse_document
from tests.test_jobs import QUEUE, work


def base(campaign) -> str:
    return f"/api/v1/campaigns/{campaign.slug}/backups/"


@pytest.mark.django_db
def test_the_gm_backs_up_through_the_api_and_fetches_the_file(campaign, client_for, gm):
    api = client_for(gm)
    answer = api.post(base(campaign))
    job = Job.objects.get(kind=JobKind.BACKUP)
    assert answer.status_code == 202 and answer["Location"] == f"{base(campaign)}{job.pk}/"
    body = answer.json()
    assert (body["id"], body["state"], body["done"], body["total"], body["error"]) == (str(job.pk), "done", 1, 1, "")
    assert body["url"] == f"{base(campaign)}{job.pk}/" and body["file"] == f"{base(campaign)}{job.pk}/file/"
    assert api.get(body["url"]).json() == body
    fetched = api.get(body["file"])
    content = b"".join(fetched.streaming_content)
    assert fetched.status_code == 200 and fetched["Content-Type"] == "application/json" and len(content) == body["size"]
    assert parse_document(content) == json.loads(json.dumps(campaign_export(campaign)))


@pytest.mark.django_db(transaction=True)
def test_a_queued_backup_has_no_file_until_the_worker_writes_it(campaign, client_for, gm, settings):
    settings.TASKS = QUEUE
    api = client_for(gm)
    body = api.post(base(campaign)).json()
    assert (body["state"], body["file"], body["size"]) == ("queued", None, None)
    early = api.get(body["url"] + "file/")
    assert early.status_code == 409 and early.json()["code"] == "not_ready"
    work()
    done = api.get(body["url"]).json()
    assert done["state"] == "done" and api.get(done["file"]).status_code == 200


@pytest.mark.django_db
def test_a_failed_backup_says_why_and_only_the_gm_may_back_up(campaign, client_for, gm, alice, observer, outsider, monkeypatch):
    def broken(campaign):
        raise OSError("the disk is full")

    monkeypatch.setattr(backup, "campaign_export", broken)
    failed = client_for(gm).post(base(campaign)).json()
    assert (failed["state"], failed["error"], failed["file"]) == ("failed", "OSError: the disk is full", None)
    assert client_for(gm).get(failed["url"] + "file/").status_code == 409
    for user, code in ((alice, 403), (observer, 403), (outsider, 404)):
        api = client_for(user)
        assert api.post(base(campaign)).status_code == code
        assert api.get(failed["url"]).status_code == code
        assert api.get(failed["url"] + "file/").status_code == code
    assert Job.objects.filter(kind=JobKind.BACKUP).count() == 1
    assert Job.objects.get().state == JobState.FAILED
    assert client_for(gm).get(f"{base(campaign)}not-a-job/").status_code == 404
