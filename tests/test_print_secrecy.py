"""Issue 14: the printables, trees and GEDCOM tell nobody what exists. Whoever may not know a thing
(a non-member, a staff user who is not this campaign's GM, an anonymous visitor) gets the same
answer for a real campaign, character, dynasty or print job as for a made-up one; a member who may
not print a particular thing gets 404 as well, never 403."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from campaign.artifacts import artifact_storage
from campaign.jobs import job_finish
from campaign.models import Campaign, Job, JobKind, JobState, Membership, Role
from dynasties import print_jobs, printing
from dynasties.models import Character, Dynasty

MADE_UP = 987_654  # no row of the tests has this id
NO_SUCH = "no-such-campaign"


@pytest.fixture(autouse=True)
def _quick_files(settings, tmp_path, monkeypatch):
    """The PDFs are stubbed (who gets one is the question here, not what it shows); trees and jobs
    keep their files in the test's own directory."""
    settings.TREE_CACHE_DIR = str(tmp_path / "trees")
    settings.MEDIA_ROOT = tmp_path / "media"
    for name in ("character_sheet_pdf", "sheets_pdf", "campaign_sheets_pdf", "announcements_pdf"):
        monkeypatch.setattr(printing, name, lambda *a, **k: b"%PDF-1.7 stub")


@pytest.fixture
def staff(django_user_model):
    """An admin-site user who is neither a member of the campaign nor a superuser."""
    return django_user_model.objects.create_user("clerk", password="clerk-password-1", is_staff=True)


@pytest.fixture
def job(campaign) -> str:
    job = Job.objects.create(kind=JobKind.PRINT, campaign=campaign, state=JobState.DONE, total=15)
    job_finish(job, artifact=artifact_storage().save(print_jobs.pdf_name(job), ContentFile(b"%PDF-1.7 stub")))
    return str(job.pk)


def england(campaign: Campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


def king(campaign: Campaign) -> Character:
    return printing.dynasty_characters(england(campaign))[0]


def pairs(campaign: Campaign, job: str) -> list[tuple[str, str]]:
    """(a real thing's URL, the same URL for a made-up thing) for every print, tree and GEDCOM URL."""
    s, d, k = campaign.slug, england(campaign).pk, king(campaign).pk
    api = "/api/v1/campaigns/{}/trees/{}/"

    def tree(slug: str, kind: str, query: str = "") -> str:
        return reverse("trees:tree", args=[slug, kind]) + query

    return [
        (reverse("print:character_sheet", args=[k]), reverse("print:character_sheet", args=[MADE_UP])),
        (reverse("print:dynasty_sheets", args=[d]), reverse("print:dynasty_sheets", args=[MADE_UP])),
        (reverse("print:campaign_sheets", args=[s]), reverse("print:campaign_sheets", args=[NO_SUCH])),
        (reverse("print:announcements", args=[s, 1300]), reverse("print:announcements", args=[NO_SUCH, 1300])),
        (reverse("print:job", args=[s, job]), reverse("print:job", args=[NO_SUCH, job])),
        (reverse("print:job", args=[s, job]) + "?download=1", reverse("print:job", args=[NO_SUCH, job]) + "?download=1"),
        (tree(s, "campaign"), tree(NO_SUCH, "campaign")),
        (tree(s, "dynasty", f"?dynasty={d}"), tree(NO_SUCH, "dynasty", f"?dynasty={d}")),
        (tree(s, "forest", "?limit=5000"), tree(NO_SUCH, "forest", "?limit=5000")),
        (tree(s, "succession", "?crown=England&limit=1000"), tree(NO_SUCH, "succession", "?crown=England&limit=1000")),
        (reverse("gedcom-campaign", args=[s]), reverse("gedcom-campaign", args=[NO_SUCH])),
        (reverse("gedcom-dynasty", args=[s, d]), reverse("gedcom-dynasty", args=[NO_SUCH, d])),
        (api.format(s, "campaign"), api.format(NO_SUCH, "campaign")),
        (api.format(s, "ancestors") + f"?focus={k}", api.format(NO_SUCH, "ancestors") + f"?focus={k}"),
    ]


def answer(response) -> tuple[int, str]:
    """What a visitor can read off a response: its status and where it sends him (not the ``next``)."""
    return response.status_code, response.get("Location", "").split("?")[0]


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["outsider", "staff", "anonymous"])
def test_a_real_thing_and_a_made_up_one_get_the_same_answer(campaign, job, client, who, request):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    for real, made_up in pairs(campaign, job):
        real_answer, made_up_answer = answer(client.get(real)), answer(client.get(made_up))
        assert real_answer == made_up_answer, (who, real, real_answer, made_up_answer)
        if who == "anonymous":
            assert real_answer[0] in (302, 401), (real, real_answer)  # the login page (the API: 401)
        else:
            assert real_answer[0] == 404, (who, real, real_answer)


@pytest.mark.django_db
def test_a_player_asking_for_another_house_s_prints_gets_404(campaign, job, client, bob):
    client.force_login(bob)  # France
    s, k, d = campaign.slug, king(campaign).pk, england(campaign).pk
    assert client.get(reverse("print:character_sheet", args=[k])).status_code == 404
    assert client.get(reverse("print:dynasty_sheets", args=[d])).status_code == 404
    assert client.get(reverse("print:campaign_sheets", args=[s])).status_code == 404  # the GM's batch
    assert client.get(reverse("print:job", args=[s, job])).status_code == 404
    assert client.get(reverse("print:job", args=[s, job]) + "?download=1").status_code == 404
    assert client.get(reverse("print:announcements", args=[s, 1300])).status_code == 200  # public to members
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    assert client.get(reverse("print:dynasty_sheets", args=[france.pk])).status_code == 200  # his own


@pytest.mark.django_db
def test_staff_is_not_the_gm_of_a_campaign(campaign, job, client, bob, gm, django_user_model):
    bob.is_staff = True
    bob.save()
    client.force_login(bob)  # staff, and the player of France: a player's rights, no more
    assert client.get(reverse("print:character_sheet", args=[king(campaign).pk])).status_code == 404
    assert client.get(reverse("print:campaign_sheets", args=[campaign.slug])).status_code == 404
    assert client.get(reverse("print:job", args=[campaign.slug, job])).status_code == 404
    client.force_login(gm)  # the GM, not staff
    assert client.get(reverse("print:campaign_sheets", args=[campaign.slug])).status_code == 200
    assert client.get(reverse("print:job", args=[campaign.slug, job])).status_code == 200
    boss = django_user_model.objects.create_superuser("boss", password="boss-password-1")
    client.force_login(boss)  # a superuser is the GM everywhere
    assert client.get(reverse("print:character_sheet", args=[king(campaign).pk])).status_code == 200


@pytest.mark.django_db
def test_an_observer_prints_the_announcements_only(campaign, client, django_user_model):
    watcher = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=watcher, role=Role.OBSERVER)
    client.force_login(watcher)
    assert client.get(reverse("print:announcements", args=[campaign.slug, 1300])).status_code == 200
    assert client.get(reverse("print:character_sheet", args=[king(campaign).pk])).status_code == 404
    assert client.get(reverse("print:dynasty_sheets", args=[england(campaign).pk])).status_code == 404


@pytest.mark.django_db
def test_announcements_of_a_year_the_campaign_has_not_lived_are_not_found(campaign, client, alice):
    client.force_login(alice)
    response = client.get(reverse("print:announcements", args=[campaign.slug, 1999]))
    assert response.status_code == 404
