"""Issue 30: a campaign whose prehistory is still being played by a background job is not open for
play, and one whose job failed or was found lost (its worker killed mid-way) is kept, clearly
marked, for its GM to retry or delete: never deleted behind his back (campaign.building,
operations.services.campaign_setup_retry / campaign_setup_delete, pages/setup.py)."""

from __future__ import annotations

import datetime
import html

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from campaign.building import NotOpen, setup_status
from campaign.jobs import job_check
from campaign.models import Campaign, ChronicleEntry, Job, JobKind, JobState, Membership, Role, Setup
from campaign.permissions import Forbidden
from dynasties import invitations as inv
from dynasties.models import Character, Dynasty
from dynasties.services.notes import note_write
from operations.services import campaign_setup_delete, campaign_setup_retry, campaign_start
from rules.errors import RuleError
from tests.factories import member_house

User = get_user_model()
QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
IMMEDIATE = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture
def queued(settings):
    """Tasks wait in the database for a worker, as in production."""
    settings.TASKS = QUEUE
    settings.REGNAL_JOB_STALE_SECONDS = 600


@pytest.fixture
def building(queued, gm, alice, bob) -> Campaign:
    """ "Old World" with a 3-turn prehistory queued for a worker: Alice plays England, Bob observes."""
    return campaign_start(
        name="Old World", gm=gm, players=3, seats={"England": alice}, observers=[bob], prehistory_turns=3, seed=11
    )


def _lose(campaign: Campaign) -> Job:
    """The worker died: its job running, silent for 11 minutes, then found lost as a page finds it."""
    job = Job.objects.get(campaign_id=campaign.pk, kind=JobKind.PREHISTORY)
    Job.objects.filter(pk=job.pk).update(state=JobState.RUNNING, touched_at=timezone.now() - datetime.timedelta(minutes=11))
    job.refresh_from_db()
    return job_check(job)


def _writes(campaign: Campaign, gm) -> list:
    """A write of each kind, through the services, as the GM: a seat, a note."""
    return [
        lambda: inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm),
        lambda: note_write(campaign, audience="public", text="Long live the king", by=gm),
    ]


def _refused(campaign: Campaign, gm, said: str) -> None:
    version = Campaign.objects.get(pk=campaign.pk).live_version
    for write in _writes(campaign, gm):
        with pytest.raises(NotOpen) as caught:
            write()
        assert said in caught.value.message and caught.value.status == 409
    assert Campaign.objects.get(pk=campaign.pk).live_version == version  # nothing written, not even the clock


@pytest.mark.django_db
def test_a_campaign_being_built_is_not_open_for_play_and_says_so(client, building, gm, alice):
    assert building.setup == Setup.BUILDING and setup_status(building).building
    _refused(building, gm, "Old World is still being built (its prehistory is being played): nothing can be written")

    client.force_login(gm)
    listed = client.get("/").content.decode()
    assert "<strong>being built</strong>" in listed and "turn 0 of 3" in listed
    page = client.get(reverse("pages:dashboard", args=[building.slug])).content.decode()
    assert "Old World is being built" in page and ">Retry</button>" not in page  # nothing to retry while it runs
    invite = client.post(reverse("pages:players", args=[building.slug]), {"op": "invite", "seat": "observer", "days": "7"})
    assert invite.status_code == 400 and "still being built" in html.unescape(invite.content.decode())
    api = client.post(
        f"/api/v1/campaigns/{building.slug}/notes/", {"audience": "public", "text": "hello"}, content_type="application/json"
    )
    assert api.status_code == 409 and api.json()["code"] == "not_open"
    retry = client.post(reverse("pages:setup", args=[building.slug]), {"op": "retry"}, follow=True)
    assert "is still being built" in html.unescape(retry.content.decode())
    assert Campaign.objects.filter(pk=building.pk, setup=Setup.BUILDING).exists()

    client.force_login(alice)  # a player sees it too, and no button
    assert "being built" in client.get("/").content.decode()


@pytest.mark.django_db
def test_a_lost_job_leaves_its_campaign_marked_refusing_writes_for_its_gm_to_retry_or_delete(client, building, gm, alice, bob):
    england = Dynasty.objects.get(campaign=building, crown="England")
    job = _lose(building)
    assert job.state == JobState.FAILED and job.error.startswith("Its worker stopped")
    building.refresh_from_db()
    assert building.setup == Setup.FAILED  # kept, with all it holds
    assert Membership.objects.filter(campaign=building).count() == 3 and Character.objects.filter(campaign=building).exists()
    _refused(building, gm, "The set-up of Old World failed before it finished, so it is not open for play")

    client.force_login(gm)
    listed = client.get("/").content.decode()
    assert (
        "<strong>its set-up was lost</strong>" in listed
        and ">Retry</button>" in listed
        and ">Delete Old World</button>" in listed
    )
    page = client.get(reverse("pages:dashboard", args=[building.slug])).content.decode()
    assert "Its set-up was lost" in page and "Its worker stopped" in page and ">Retry</button>" in page
    for who in (alice, bob):  # members see it, only its GM acts
        client.force_login(who)
        assert "its set-up was lost" in client.get("/").content.decode()
        page = client.get(reverse("pages:dashboard", args=[building.slug])).content.decode()
        assert "Its set-up was lost" in page and ">Retry</button>" not in page
        for op in ("retry", "delete"):
            assert client.post(reverse("pages:setup", args=[building.slug]), {"op": op}).status_code == 404
        for service in (campaign_setup_retry, campaign_setup_delete):
            with pytest.raises(Forbidden):
                service(campaign=building, by=who)
    assert Campaign.objects.filter(pk=building.pk, setup=Setup.FAILED).exists()
    assert Dynasty.objects.get(pk=england.pk)  # nothing was touched


@pytest.mark.django_db
def test_the_gm_retries_a_lost_set_up_to_completion(client, building, gm, alice, bob, settings):
    _lose(building)
    settings.TASKS = IMMEDIATE  # the retry plays it at once here (the worker's way: the next test)
    client.force_login(gm)
    answer = client.post(reverse("pages:setup", args=[building.slug]), {"op": "retry"})
    assert answer.status_code == 302 and answer["Location"] == reverse("pages:dashboard", args=["old-world"])
    again = Campaign.objects.get(slug="old-world")
    assert again.pk != building.pk and not Campaign.objects.filter(pk=building.pk).exists()
    assert (again.name, again.setup, again.current_year, again.start_year) == (
        "Old World",
        Setup.READY,
        1315,
        building.start_year,
    )
    seats = {
        (m.user.username, m.role, getattr(member_house(m), "crown", None)) for m in Membership.objects.filter(campaign=again)
    }
    assert seats == {("gm", Role.GM, None), ("alice", Role.PLAYER, "England"), ("bob", Role.OBSERVER, None)}
    assert ChronicleEntry.objects.get(campaign=again, kind="setup", data__seed=11).text.startswith("A prehistory of 3 turns")
    page = client.get(answer["Location"]).content.decode()
    assert "set up again and open for play" in page and "set-up was lost" not in page
    inv.invitation_create(campaign=again, role=Role.OBSERVER, by=gm)  # open for play

    # the same seed played the same prehistory as a campaign made at once
    at_once = campaign_start(name="At Once", gm=gm, players=3, prehistory_turns=3, seed=11)
    born = lambda c: sorted(Character.objects.filter(campaign=c).values_list("given_name", "birth_year", "sex", "status"))  # noqa: E731
    assert born(again) == born(at_once)


@pytest.mark.django_db
def test_the_gm_deletes_a_failed_campaign_and_nothing_else(client, building, gm, campaign):
    _lose(building)
    client.force_login(gm)
    answer = client.post(reverse("pages:setup", args=[building.slug]), {"op": "delete"}, follow=True)
    assert answer.redirect_chain[-1][0] == reverse("home")
    assert "Old World is deleted, with everything its set-up had written." in answer.content.decode()
    assert not Campaign.objects.filter(pk=building.pk).exists()
    assert (
        not Character.objects.filter(campaign_id=building.pk).exists()
        and not Membership.objects.filter(campaign_id=building.pk).exists()
    )
    assert Job.objects.get(campaign_id=building.pk).state == JobState.FAILED  # the job's record stays (pruned later)
    assert Character.objects.filter(campaign=campaign).exists()  # another campaign is untouched

    # a campaign that is open for play is deleted by no such button
    with pytest.raises(RuleError) as caught:
        campaign_setup_delete(campaign=campaign, by=gm)
    assert caught.value.code == "not_failed" and "nothing to retry or delete" in caught.value.message
    assert client.post(reverse("pages:setup", args=[campaign.slug]), {"op": "delete"}).status_code == 302
    assert Campaign.objects.filter(pk=campaign.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_prehistory_killed_mid_way_on_the_worker_is_retried_there_to_completion(client, queued, gm, alice, monkeypatch):
    import operations.services

    real = operations.services.simulate
    calls: list[int] = []

    def killed(campaign, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the worker's machine went away")
        return real(campaign, **kwargs)

    monkeypatch.setattr(operations.services, "simulate", killed)
    half = campaign_start(name="Old World", gm=gm, players=3, seats={"England": alice}, prehistory_turns=3, seed=11)
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", "--interval", "0", verbosity=0)
    half.refresh_from_db()
    assert half.setup == Setup.FAILED and half.current_year == 1305  # one turn played, and kept
    assert setup_status(half).why == "RuntimeError: the worker's machine went away" and not setup_status(half).lost

    client.force_login(gm)
    answer = client.post(reverse("pages:setup", args=[half.slug]), {"op": "retry"})
    job = Job.objects.filter(kind=JobKind.PREHISTORY).order_by("-created_at").first()
    assert answer["Location"] == f"/campaigns/new/?job={job.pk}"  # the worker plays it: its progress
    assert Campaign.objects.get(slug="old-world").setup == Setup.BUILDING
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", "--interval", "0", verbosity=0)
    done = Campaign.objects.get(slug="old-world")
    assert (done.setup, done.current_year) == (Setup.READY, 1315)
    assert client.get(answer["Location"])["Location"] == reverse("pages:dashboard", args=["old-world"])


@pytest.mark.django_db
def test_a_prehistory_that_fails_at_once_keeps_its_campaign_for_the_gm(client, alice, monkeypatch):
    """The immediate backend (development): the creation page opens the marked campaign."""
    import operations.services

    def stumbling(campaign, **kwargs):
        raise RuleError("The automatic player stumbled.")

    monkeypatch.setattr(operations.services, "simulate", stumbling)
    client.force_login(alice)
    data = {"name": "Old World", "ruleset": "blood-royale", "players": "3", "start_year": "", "setup": "prehistory"}
    data.update({"turns": "3", "seed": "11", "observers": "", "action_key": "k-old", "options": []})
    answer = client.post("/campaigns/new/", data, follow=True)
    text = html.unescape(answer.content.decode())
    assert answer.redirect_chain[-1][0] == reverse("pages:dashboard", args=["old-world"])
    assert "The prehistory failed: The automatic player stumbled." in text and "Its set-up failed" in text
    assert ">Retry</button>" in text and Campaign.objects.get(slug="old-world").setup == Setup.FAILED


@pytest.mark.django_db
def test_a_desk_save_into_a_campaign_being_built_is_refused_in_words(client, building, gm):
    gm.is_staff = gm.is_superuser = True
    gm.save()
    client.force_login(gm)
    house = Dynasty.objects.filter(campaign=building).order_by("pk").first()
    url = reverse("admin:dynasties_dynasty_change", args=[house.pk])
    form = client.get(url).context["adminform"].form
    data = {k: "" if v is None else v for k, v in form.initial.items()}
    answer = client.post(url, {**data, "name": "Renamed"}, follow=True)
    assert answer.redirect_chain == [(url, 302)] and answer.status_code == 200
    assert "Old World is still being built" in html.unescape(answer.content.decode())
    assert Dynasty.objects.get(pk=house.pk).name == house.name


@pytest.mark.django_db(transaction=True)  # the worker closes its connection (PostgreSQL)
def test_a_prehistory_whose_user_is_gone_acts_for_no_one_and_keeps_its_campaign_marked(building):
    """The job plays for the user who started it (``Job.by``); his account gone, it plays for no one:
    refused by the policy (NoActor), not run as the system, the campaign kept for a GM to delete."""
    Job.objects.filter(campaign_id=building.pk, kind=JobKind.PREHISTORY).update(by=None)
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", "--interval", "0", verbosity=0)
    building.refresh_from_db()
    assert building.setup == Setup.FAILED and building.current_year == building.start_year  # no turn played
    assert setup_status(building).why.startswith("No one is named as acting (by=None)")
