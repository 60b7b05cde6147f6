"""Issue 18: background work on the task queue (campaign.jobs). A print batch and a new campaign's
prehistory are tasks; their job's state, progress and error are rows in the database, so another
thread (another server, the worker) sees them; a failed job says why on its page. A job whose
worker died is found lost and says so; old finished jobs are pruned with their files. (Backups:
tests/test_backup_jobs.py; large trees: tests/test_tree_cache.py.)"""

from __future__ import annotations

import datetime
import io
import re
import threading

import pytest
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from campaign.artifacts import artifact_storage
from campaign.jobs import job_check, job_create, job_finish, job_progress, job_run
from campaign.models import Campaign, ChronicleEntry, Job, JobKind, JobState, Membership, Setup
from campaign.permissions import SYSTEM_ACTOR
from dynasties import print_jobs, printing
from dynasties.models import Character
from rules.errors import RuleError

QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture
def queued(settings):
    """Tasks wait in the database for a worker, as in production."""
    settings.TASKS = QUEUE


def work() -> None:
    """``manage.py db_worker`` until the queue is empty (in the main thread: it sets signal handlers)."""
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", "--interval", "0", verbosity=0)


def in_another_thread(fn) -> None:
    """Run ``fn`` in a thread of its own: its own database connection, as another server has."""
    errors: list[BaseException] = []

    def body() -> None:
        try:
            fn()
        except BaseException as exc:  # handed back to the test
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(60)
    assert not thread.is_alive() and not errors, errors


def _create(client, **fields):
    data = {
        "name": "Old World",
        "ruleset": "blood-royale",
        "players": "3",
        "start_year": "",
        "setup": "prehistory",
        "turns": "3",
        "seed": "11",
        "observers": "",
        "action_key": "k-old-world",
        "options": [],
    }
    data.update(fields)
    return client.post("/campaigns/new/", data)


@pytest.mark.django_db(transaction=True)
def test_a_print_job_queued_by_one_server_is_done_by_the_worker_and_seen_by_another(campaign, client, gm, queued, monkeypatch):
    monkeypatch.setattr(print_jobs, "INLINE_LIMIT", 5)  # the test campaign has 15 characters
    client.force_login(gm)
    asked: list = []
    in_another_thread(lambda: asked.append(client.get(reverse("print:campaign_sheets", args=[campaign.slug]))))
    response = asked[0]  # one server queued it, on its own connection
    assert response.status_code == 302
    job = Job.objects.get(kind=JobKind.PRINT)
    assert (job.state, job.total, job.campaign_id, job.by) == (JobState.QUEUED, 15, campaign.pk, gm)
    page = client.get(response["Location"]).content.decode()
    assert 'http-equiv="refresh"' in page and "Waiting for a worker" in page

    work()  # the worker finds the task in the database, renders the PDF and stores it

    job.refresh_from_db()
    assert (job.state, job.done, job.error) == (JobState.DONE, 15, "")
    seen: list = []  # another server: its own connection reads the job and hands out the file
    in_another_thread(lambda: seen.extend([client.get(response["Location"]), client.get(response["Location"] + "?download=1")]))
    page, pdf = seen
    assert "Ready: 15 sheets" in page.content.decode() and 'http-equiv="refresh"' not in page.content.decode()
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")


@pytest.mark.django_db
def test_a_print_job_that_fails_says_why(campaign, client, gm, monkeypatch):
    def broken(campaign, two_up):
        raise RuntimeError("the printer caught fire")

    monkeypatch.setattr(printing, "campaign_sheets_pdf", broken)
    monkeypatch.setattr(print_jobs, "INLINE_LIMIT", 5)
    client.force_login(gm)
    response = client.get(reverse("print:campaign_sheets", args=[campaign.slug]))  # the immediate backend runs it
    job = Job.objects.get(kind=JobKind.PRINT)
    assert (job.state, job.error, job.artifact) == (JobState.FAILED, "RuntimeError: the printer caught fire", "")
    assert job.finished_at is not None
    page = client.get(response["Location"]).content.decode()
    assert "The printing failed: RuntimeError: the printer caught fire" in page and 'http-equiv="refresh"' not in page
    assert "Download" not in page
    assert client.get(response["Location"] + "?download=1").status_code == 200  # the page again, no file
    assert client.get(response["Location"] + "?download=1")["Content-Type"].startswith("text/html")


@pytest.mark.django_db
def test_the_job_counts_its_progress_and_a_refusal_is_said_in_its_own_words(campaign, gm):
    job = job_create(kind=JobKind.PRINT, campaign=campaign, by=gm, total=4)
    seen: list[tuple[str, int]] = []

    def steps(job: Job) -> None:
        for n in range(1, 4):
            job_progress(job, n)
            row = Job.objects.get(pk=job.pk)
            seen.append((row.state, row.done))

    job_run(str(job.pk), steps)
    assert seen == [(JobState.RUNNING, 1), (JobState.RUNNING, 2), (JobState.RUNNING, 3)]
    job.refresh_from_db()
    assert (job.state, job.done, job.total) == (JobState.DONE, 4, 4)

    refused = job_create(kind=JobKind.PRINT, campaign=campaign, total=1, by=SYSTEM_ACTOR)

    def refuse(job: Job) -> None:
        raise RuleError("No sheets today.")

    with pytest.raises(RuleError):
        job_run(str(refused.pk), refuse)
    refused.refresh_from_db()
    assert (refused.state, refused.error) == (JobState.FAILED, "No sheets today.")


@pytest.mark.django_db(transaction=True)
def test_the_prehistory_runs_on_the_worker_with_a_progress_bar(client, alice, queued, monkeypatch, django_user_model):
    import operations.services

    real = operations.services.simulate
    progress: list[int] = []
    actors: set = set()

    def playing(campaign, *, turns, source, by):
        progress.append(Job.objects.get(kind=JobKind.PREHISTORY).done)  # what the page shows meanwhile
        actors.add(by)
        return real(campaign, turns=turns, source=source, by=by)

    monkeypatch.setattr(operations.services, "simulate", playing)
    client.force_login(alice)
    response = _create(client)
    job = Job.objects.get(kind=JobKind.PREHISTORY)
    assert response.status_code == 302 and response["Location"] == f"/campaigns/new/?job={job.pk}"
    page = client.get(response["Location"]).content.decode()
    assert '<progress value="0" max="3"' in page and "turn 0 of 3" in page and 'http-equiv="refresh"' in page
    assert not re.findall(r"<script(?![^>]*\bsrc=)", page)  # the strict CSP: no inline script, the page refreshes itself

    work()

    assert progress == [0, 1, 2]
    assert actors == {alice}  # the job plays for the GM who started it, never as the system
    job.refresh_from_db()
    assert (job.state, job.done, job.total) == (JobState.DONE, 3, 3)
    c = Campaign.objects.get(name="Old World")
    assert (c.current_year, c.step) == (1315, "births")
    assert ChronicleEntry.objects.get(campaign=c, kind="setup", data__seed=11).text.startswith("A prehistory of 3 turns")
    done = client.get(response["Location"])
    assert done.status_code == 302 and done["Location"] == reverse("pages:dashboard", args=[c.slug])
    client.force_login(django_user_model.objects.create_user("eve", password="eve-password-1"))  # only its creator
    assert client.get(response["Location"]).status_code == 404
    assert client.get("/campaigns/new/?job=not-a-job").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_same_seed_plays_the_same_prehistory_on_the_worker_as_at_once(client, alice, settings):
    client.force_login(alice)
    assert _create(client, name="At Once", action_key="a").status_code == 302  # the immediate backend
    settings.TASKS = QUEUE
    _create(client, name="On The Worker", action_key="b")
    work()
    at_once, worker = Campaign.objects.get(name="At Once"), Campaign.objects.get(name="On The Worker")
    born = lambda c: sorted(Character.objects.filter(campaign=c).values_list("given_name", "birth_year", "sex", "status"))  # noqa: E731
    assert born(at_once) == born(worker) and at_once.current_year == worker.current_year == 1315


@pytest.mark.django_db(transaction=True)
def test_a_prehistory_that_fails_on_the_worker_keeps_the_campaign_marked_and_says_why(client, alice, queued, monkeypatch):
    import operations.services

    real = operations.services.simulate
    calls: list[int] = []

    def stumbling(campaign, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuleError("The automatic player stumbled.")
        return real(campaign, **kwargs)

    monkeypatch.setattr(operations.services, "simulate", stumbling)
    client.force_login(alice)
    response = _create(client)
    work()
    job = Job.objects.get(kind=JobKind.PREHISTORY)
    assert (job.state, job.done, job.error) == (JobState.FAILED, 1, "The automatic player stumbled.")
    campaign = Campaign.objects.get(pk=job.campaign_id)  # kept, with its first turn: its GM retries or deletes it
    assert (
        campaign.setup == Setup.FAILED and campaign.current_year == 1305 and Character.objects.filter(campaign=campaign).exists()
    )
    page = client.get(response["Location"], follow=True)
    text = page.content.decode()
    assert page.status_code == 200 and "The prehistory failed: The automatic player stumbled." in text
    assert "Its set-up failed" in text and ">Retry</button>" in text and 'http-equiv="refresh"' not in text
    # (tests/test_building.py: what such a campaign refuses, and its Retry and Delete)


def test_production_queues_the_tasks_for_a_worker_and_development_runs_them_at_once(settings):
    from tests.test_settings import STRONG_KEY, _production

    shown = _production({"SECRET_KEY": STRONG_KEY}, "print(s.TASKS['default']['BACKEND'])")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "django_tasks_db.DatabaseBackend"
    assert (
        settings.TASKS["default"]["BACKEND"] == "django_tasks.backends.immediate.ImmediateBackend"
    )  # the tests' (and make run's)


# Lost jobs and pruning ----------------------------------------------------------------------------


def _running(job: Job, *, silent_for: datetime.timedelta) -> Job:
    """The job as a worker left it: running, its last sign of life ``silent_for`` ago."""
    Job.objects.filter(pk=job.pk).update(state=JobState.RUNNING, touched_at=timezone.now() - silent_for)
    job.refresh_from_db()
    return job


@pytest.mark.django_db
def test_a_job_whose_worker_died_is_reported_failed_when_its_page_is_looked_at(campaign, client, gm, settings):
    settings.REGNAL_JOB_STALE_SECONDS = 600
    lost = _running(job_create(kind=JobKind.PRINT, campaign=campaign, by=gm, total=15), silent_for=datetime.timedelta(minutes=25))
    busy = _running(job_create(kind=JobKind.PRINT, campaign=campaign, by=gm, total=15), silent_for=datetime.timedelta(minutes=9))
    client.force_login(gm)

    page = client.get(reverse("print:job", args=[campaign.slug, lost.pk])).content.decode()
    lost.refresh_from_db()
    assert (lost.state, lost.finished_at is not None) == (JobState.FAILED, True)
    assert lost.error.startswith("Its worker stopped: no sign of life since ") and "(25 minutes). Start it again." in lost.error
    assert f"The printing failed: {lost.error}" in page and 'http-equiv="refresh"' not in page

    page = client.get(reverse("print:job", args=[campaign.slug, busy.pk])).content.decode()  # slow, not lost
    busy.refresh_from_db()
    assert busy.state == JobState.RUNNING and "Rendering." in page and 'http-equiv="refresh"' in page


@pytest.mark.django_db
def test_progress_is_a_sign_of_life_and_a_late_worker_does_not_revive_a_lost_job(campaign, gm, settings):
    settings.REGNAL_JOB_STALE_SECONDS = 600
    job = _running(
        job_create(kind=JobKind.PRINT, campaign=campaign, total=3, by=SYSTEM_ACTOR), silent_for=datetime.timedelta(hours=1)
    )
    job_progress(job, 1)  # it was only slow
    assert job_check(job).state == JobState.RUNNING
    job = _running(job, silent_for=datetime.timedelta(hours=1))
    assert job_check(job).state == JobState.FAILED
    reason = job.error

    name = artifact_storage().save("prints/late.pdf", ContentFile(b"%PDF-1.7 late"))
    job_finish(job, artifact=name)  # the worker was not dead after all: too late
    job.refresh_from_db()
    assert (job.state, job.error, job.artifact) == (JobState.FAILED, reason, "")
    assert not artifact_storage().exists(name)


@pytest.mark.django_db
def test_a_lost_prehistory_keeps_its_campaign_marked_and_the_command_finds_it(client, alice, queued, settings):
    settings.REGNAL_JOB_STALE_SECONDS = 600
    client.force_login(alice)
    response = _create(client)
    job = Job.objects.get(kind=JobKind.PREHISTORY)
    assert Campaign.objects.get(pk=job.campaign_id).setup == Setup.BUILDING
    _running(job, silent_for=datetime.timedelta(minutes=11))  # the worker died in its first turn

    out = io.StringIO()
    call_command("prune_jobs", "--lost-only", stdout=out)
    assert out.getvalue().startswith(f"Lost: Prehistory {job.pk}. Its worker stopped: no sign of life since ")
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.error.startswith("Its worker stopped")
    campaign = Campaign.objects.get(pk=job.campaign_id)  # never deleted behind its GM's back
    assert campaign.setup == Setup.FAILED and Membership.objects.filter(campaign=campaign).count() == 1
    text = client.get(response["Location"], follow=True).content.decode()
    assert f"The prehistory failed: {job.error}" in text and "Its set-up was lost" in text
    assert Job.objects.count() == 1  # --lost-only deletes nothing

    out = io.StringIO()
    call_command("prune_jobs", "--lost-only", stdout=out)
    assert out.getvalue() == ""  # nothing more is lost


@pytest.mark.django_db
def test_pruning_deletes_the_old_finished_jobs_and_their_files(campaign, gm):
    now = timezone.now()

    def job(state: str, *, days: int, artifact: bool = False) -> Job:
        made = job_create(kind=JobKind.PRINT, campaign=campaign, by=gm, total=1)
        name = artifact_storage().save(f"prints/{made.pk}.pdf", ContentFile(b"%PDF-1.7")) if artifact else ""
        finished = now - datetime.timedelta(days=days) if state in (JobState.DONE, JobState.FAILED) else None
        Job.objects.filter(pk=made.pk).update(state=state, artifact=name, finished_at=finished)
        Job.objects.filter(pk=made.pk).update(created_at=now - datetime.timedelta(days=days))
        made.refresh_from_db()
        return made

    old_done, old_failed = job(JobState.DONE, days=40, artifact=True), job(JobState.FAILED, days=31)
    recent = job(JobState.DONE, days=5, artifact=True)
    waiting, running = job(JobState.QUEUED, days=40), job(JobState.RUNNING, days=0)
    out = io.StringIO()
    call_command("prune_jobs", "--days", "30", stdout=out)
    assert out.getvalue().strip() == "Deleted 2 jobs finished more than 30 days ago, and 1 files."
    assert set(Job.objects.values_list("pk", flat=True)) == {recent.pk, waiting.pk, running.pk}
    assert not artifact_storage().exists(old_done.artifact) and artifact_storage().exists(recent.artifact)
    assert old_failed.pk not in set(Job.objects.values_list("pk", flat=True))

    with pytest.raises(CommandError, match="Keep jobs for 0 days or more"):
        call_command("prune_jobs", "--days", "-1", stdout=io.StringIO())
