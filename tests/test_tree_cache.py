"""Issue 14: the tree cache is bounded. Every tree parameter has one set of bounds (the API's and the
page's), parameters a kind does not use do not make a new render, and the cache stays under
``TREE_CACHE_MAX_BYTES``, the least recently used renders going first. Issue 18: the renders live
in the artifact storage (Django's storage API) and their index in the database, so a second server
sees what the first rendered and the same order of last use."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest
from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage, default_storage, storages
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import empty

from campaign.artifacts import artifact_storage
from campaign.models import Campaign, Job, JobKind, JobState, Membership, Role
from dynasties.models import Character, Dynasty, TreeRender
from dynasties.trees import cache
from dynasties.trees.data import TreeError
from dynasties.trees.render import GENERATIONS_MAX, LIMIT_MAX, TreeRequest, render_tree, render_tree_artifact


class Bucket(Storage):
    """A stand-in for an S3-compatible store: every client (instance) reads and writes the same
    objects, none of them on a local disk."""

    objects: dict[str, bytes] = {}

    def _save(self, name: str, content: File) -> str:
        self.objects[name] = content.read()
        return name

    def _open(self, name: str, mode: str = "rb") -> File:
        if name not in self.objects:
            raise FileNotFoundError(name)
        return ContentFile(self.objects[name], name=name)

    def delete(self, name: str) -> None:
        self.objects.pop(name, None)

    def exists(self, name: str) -> bool:
        return name in self.objects

    def size(self, name: str) -> int:
        return len(self.objects[name])

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        prefix = f"{path.rstrip('/')}/"
        inside = [n[len(prefix) :] for n in self.objects if n.startswith(prefix)]
        return sorted({n.split("/")[0] for n in inside if "/" in n}), sorted(n for n in inside if "/" not in n)

    def get_modified_time(self, name: str) -> datetime.datetime:
        return timezone.now()  # every object just written: none is a crashed writer's


@pytest.fixture
def observer(campaign, django_user_model):
    user = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def bucket(settings):
    """The artifacts in a shared "remote" store (STORAGES["artifacts"])."""
    Bucket.objects = {}
    settings.STORAGES = {**settings.STORAGES, "artifacts": {"BACKEND": f"{__name__}.Bucket"}}
    yield Bucket.objects
    Bucket.objects = {}


def files(settings) -> list[Path]:
    """The files under MEDIA_ROOT (default_storage, the artifacts' storage in development)."""
    root = Path(settings.MEDIA_ROOT)
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def stored(settings) -> int:
    """The bytes in the storage, read from the files themselves (not the index)."""
    return sum(p.stat().st_size for p in files(settings))


def another_server() -> None:
    """What a second server has: the same settings, database and store, but none of this
    process's storage clients."""
    storages._storages = {}
    default_storage._wrapped = empty


@pytest.mark.django_db
def test_out_of_range_limits_make_no_new_renders(campaign, observer, client, settings):
    client.force_login(observer)
    url = reverse("trees:tree", args=[campaign.slug, "succession"])
    for limit in range(1000, 1200):
        response = client.get(url, {"crown": "England", "limit": limit, "format": "dot"})
        assert response.status_code == 400
        assert f"limit must be between 1 and {LIMIT_MAX}, not {limit}" in response.content.decode()
    assert files(settings) == [] and not TreeRender.objects.exists()
    # what a kind does not use does not make a new render either: one for 100 campaign trees
    tree = reverse("trees:tree", args=[campaign.slug, "campaign"])
    for limit in range(1, LIMIT_MAX + 1):
        assert client.get(tree, {"limit": limit, "crown": f"C{limit}", "format": "dot"}).status_code == 200
    assert len(files(settings)) == 1 and TreeRender.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"generations": GENERATIONS_MAX + 1}, f"generations must be between 0 and {GENERATIONS_MAX}"),
        ({"generations": -1}, f"generations must be between 0 and {GENERATIONS_MAX}"),
        ({"focus": 0}, "focus must be between 1 and"),
        ({"focus": 10**12}, "focus must be between 1 and"),
        ({"dynasty": -5}, "dynasty must be between 1 and"),
        ({"limit": 0}, f"limit must be between 1 and {LIMIT_MAX}"),
        ({"crown": "X" * 81}, "crown must be at most 80 characters"),
        ({"generations": "three"}, "generations must be a whole number, not 'three'"),
    ],
)
def test_every_tree_parameter_has_bounds_with_a_clear_message(campaign, observer, client, settings, query, message):
    client.force_login(observer)
    response = client.get(reverse("trees:tree", args=[campaign.slug, "campaign"]), {"format": "dot", **query})
    assert response.status_code == 400 and message in response.content.decode(), response.content
    assert files(settings) == [] and not TreeRender.objects.exists()


@pytest.mark.django_db
def test_the_api_and_the_page_share_the_bounds(campaign, observer):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(observer)
    url = f"/api/v1/campaigns/{campaign.slug}/trees/succession/"
    assert client.get(url, {"crown": "England", "limit": LIMIT_MAX}).status_code == 200
    refused = client.get(url, {"crown": "England", "limit": LIMIT_MAX + 1})
    assert refused.status_code == 400 and "limit" in refused.json()["fields"]
    with pytest.raises(TreeError, match="limit must be between"):
        render_tree(campaign, TreeRequest(kind="succession", crown="England", limit=LIMIT_MAX + 1))


def used(render_name: str | None, seconds_ago: int) -> None:
    """Mark a render as last used that long ago."""
    when = timezone.now() - datetime.timedelta(seconds=seconds_ago)
    assert TreeRender.objects.filter(name=render_name).update(used=when) == 1


@pytest.mark.django_db
def test_the_cache_never_exceeds_its_cap_and_drops_the_least_recently_used(campaign, settings):
    houses = list(Dynasty.objects.filter(campaign=campaign).order_by("pk"))
    requests = [TreeRequest(kind="dynasty", dynasty=d.pk, fmt="svg") for d in houses]
    sizes = [len(render_tree(campaign, r, use_cache=False).content) for r in requests]
    assert files(settings) == []  # use_cache=False keeps nothing
    settings.TREE_CACHE_MAX_BYTES = max(sizes) * 2 + 10  # room for two renders, never three
    for _ in range(3):
        for r in requests:
            first = render_tree(campaign, r)
            assert stored(settings) <= settings.TREE_CACHE_MAX_BYTES
            assert cache.cache_size() == stored(settings)  # the index says what the storage holds
            again = render_tree(campaign, r)
            assert again.cached and again.content == first.content  # a hit is the same bytes
            assert again.name and artifact_storage().open(again.name).read() == first.content
    a, b, c = requests[:3]
    render_tree(campaign, a)
    render_tree(campaign, b)
    used(render_tree(campaign, a).name, 60)  # a used long ago ...
    used(render_tree(campaign, b).name, 120)
    assert render_tree(campaign, b).cached  # ... b just now (a hit marks it as used)
    render_tree(campaign, c)
    assert render_tree(campaign, b).cached and not render_tree(campaign, a).cached
    assert len(files(settings)) == TreeRender.objects.count() == 2  # evicted: the row and its file


@pytest.mark.django_db
def test_a_render_larger_than_the_cap_is_served_but_not_kept(campaign, settings):
    settings.TREE_CACHE_MAX_BYTES = 10
    first = render_tree(campaign, TreeRequest(kind="campaign", fmt="svg"))
    assert first.content.lstrip().startswith(b"<?xml") and first.name is None
    assert files(settings) == [] and not TreeRender.objects.exists()
    assert not render_tree(campaign, TreeRequest(kind="campaign", fmt="svg")).cached


@pytest.mark.django_db
def test_two_servers_share_the_renders_and_their_order_of_use(campaign, observer, client, settings, bucket):
    houses = list(Dynasty.objects.filter(campaign=campaign).order_by("pk"))
    url = reverse("trees:tree", args=[campaign.slug, "dynasty"])
    client.force_login(observer)
    drawn = client.get(url, {"dynasty": houses[0].pk})  # server 1 draws it
    assert drawn["X-Tree-Cache"] == "miss" and len(bucket) == 1
    assert files(settings) == []  # nothing on this server's disk
    another_server()
    served = client.get(url, {"dynasty": houses[0].pk})  # server 2 finds it
    assert served["X-Tree-Cache"] == "hit" and served.content == drawn.content
    # the order of use is shared too: what server 2 used last, server 1 keeps
    a, b, c = (TreeRequest(kind="dynasty", dynasty=d.pk, fmt="svg") for d in houses[:3])
    sizes = [len(render_tree(campaign, r, use_cache=False).content) for r in (a, b, c)]
    settings.TREE_CACHE_MAX_BYTES = cache.cache_size() + sizes[0] + max(sizes[1:])
    first, second = render_tree(campaign, a), render_tree(campaign, b)
    assert first.name in bucket and second.name in bucket and first.name.startswith(f"trees/{campaign.pk}/")
    used(first.name, 120)
    used(second.name, 60)
    another_server()
    assert render_tree(campaign, a).cached  # server 2 uses a ...
    another_server()
    third = render_tree(campaign, c)  # ... so server 1 evicts b, not a
    assert third.name in bucket and second.name not in bucket and first.name in bucket
    assert render_tree(campaign, a).cached and not render_tree(campaign, b).cached


@pytest.mark.django_db
def test_a_hit_costs_three_queries_whatever_the_cache_holds(campaign, django_assert_num_queries):
    request = TreeRequest(kind="campaign", fmt="svg")
    for house in Dynasty.objects.filter(campaign=campaign):
        render_tree(campaign, TreeRequest(kind="dynasty", dynasty=house.pk))
    render_tree(campaign, request)
    with django_assert_num_queries(3):  # the data's version, the index's row, its last use
        assert render_tree(campaign, request).cached


@pytest.mark.django_db
def test_a_render_lost_from_the_storage_is_drawn_again(campaign, bucket):
    request = TreeRequest(kind="campaign", fmt="svg")
    first = render_tree(campaign, request)
    del bucket[first.name]  # emptied behind the index's back
    again = render_tree(campaign, request)
    assert not again.cached and again.content == first.content and again.name in bucket
    assert TreeRender.objects.get().name == again.name and render_tree(campaign, request).cached


@pytest.mark.django_db
def test_a_file_a_crashed_writer_left_goes_at_the_next_render(campaign, settings):
    kept = render_tree(campaign, TreeRequest(kind="campaign", fmt="svg")).name
    folder = Path(settings.MEDIA_ROOT) / "trees" / str(campaign.pk)
    old, new = folder / "crashed-long-ago.svg", folder / "being-written.svg"  # no row names them
    old.write_bytes(b"<svg/>")
    new.write_bytes(b"<svg/>")
    past = (timezone.now() - cache.STRAY_AFTER - datetime.timedelta(minutes=1)).timestamp()
    os.utime(old, (past, past))
    drawn = render_tree(campaign, TreeRequest(kind="campaign", fmt="png")).name
    assert sorted(p.name for p in folder.iterdir()) == sorted([Path(kept).name, Path(drawn).name, new.name])


@pytest.mark.django_db
def test_a_deleted_campaign_takes_its_renders_with_it(campaign, bucket):
    empty = Campaign.objects.create(name="Empty", slug="empty")  # a campaign with nothing that protects it
    render_tree(empty, TreeRequest(kind="campaign", fmt="svg"))
    render_tree(empty, TreeRequest(kind="campaign", fmt="dot"))
    kept = render_tree(campaign, TreeRequest(kind="campaign", fmt="svg")).name
    assert len(bucket) == 3
    empty.delete()
    assert list(bucket) == [kept] and TreeRender.objects.get().name == kept


@pytest.mark.django_db
def test_a_task_can_render_a_tree_the_page_then_serves(campaign, observer, client, bucket):
    """render_tree_artifact takes JSON arguments (a task's) and leaves the render in the cache."""
    from dynasties.trees.render import pages_url

    name = render_tree_artifact(campaign.pk, kind="campaign", fmt="pdf", url=pages_url(campaign))
    assert name in bucket and bucket[name].startswith(b"%PDF-")
    client.force_login(observer)
    page = client.get(reverse("trees:tree", args=[campaign.slug, "campaign"]), {"format": "pdf"})
    assert page["X-Tree-Cache"] == "hit" and page.content == bucket[name]


def test_the_cap_comes_from_the_environment_and_is_checked():
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    code = "import config.settings as s; print(s.TREE_CACHE_MAX_BYTES)"

    def start(value: str | None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "TREE_CACHE_MAX_BYTES"} | {"REGNAL_DEV": "1"}
        if value is not None:
            env["TREE_CACHE_MAX_BYTES"] = value
        return subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=False)

    assert start(None).stdout.strip() == str(200 * 1024 * 1024)
    assert start("50000000").stdout.strip() == "50000000"
    bad = start("200MB")
    assert bad.returncode != 0 and "TREE_CACHE_MAX_BYTES='200MB' is not a whole number" in bad.stderr
    tiny = start("5")
    assert tiny.returncode != 0 and "TREE_CACHE_MAX_BYTES='5' must be at least" in tiny.stderr


# Issue 18: large trees on the task queue ----------------------------------------------------------


@pytest.mark.django_db
def test_a_small_tree_is_drawn_in_the_request(campaign, observer, client, settings):
    settings.TREE_INLINE_PEOPLE = Character.objects.filter(campaign=campaign).count()  # the whole campaign: not over
    client.force_login(observer)
    response = client.get(reverse("trees:tree", args=[campaign.slug, "campaign"]))
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml" and response["X-Tree-Cache"] == "miss"
    assert not Job.objects.exists()
    settings.TREE_INLINE_PEOPLE = 1  # a narrow tree of a large campaign counts its own people
    founder = Character.objects.filter(campaign=campaign, father__isnull=True, mother__isnull=True).first()
    narrow = client.get(reverse("trees:tree", args=[campaign.slug, "ancestors"]), {"focus": founder.pk, "format": "dot"})
    assert narrow.status_code == 200 and narrow["X-Tree-Cache"] == "miss" and not Job.objects.exists()


@pytest.mark.django_db
def test_a_large_tree_is_drawn_by_a_task_and_its_page_serves_it(campaign, observer, client, settings, bucket):
    settings.TREE_INLINE_PEOPLE = 5  # the test campaign has 15 characters
    client.force_login(observer)
    url = reverse("trees:tree", args=[campaign.slug, "campaign"])
    response = client.get(url, {"format": "svg"})  # the immediate backend draws it at once
    job = Job.objects.get(kind=JobKind.TREE)
    assert response.status_code == 302 and response["Location"] == reverse("trees:job", args=[campaign.slug, job.pk])
    assert (job.state, job.done, job.total, job.by, job.artifact) == (JobState.DONE, 1, 1, observer, "")
    assert job.params["path"] == f"{url}?format=svg" and job.params["render"] in bucket
    served = client.get(response["Location"])
    assert served.status_code == 200 and served["Content-Type"] == "image/svg+xml" and served["X-Tree-Cache"] == "hit"
    assert served.content == bucket[job.params["render"]] and served.content.startswith(b"<?xml")
    assert served["X-Frame-Options"] == "SAMEORIGIN"  # the dynasty page's <object> follows it too
    again = client.get(url, {"format": "svg"})  # now in the cache: served at once, no new job
    assert again.status_code == 200 and again["X-Tree-Cache"] == "hit" and again.content == served.content
    assert Job.objects.count() == 1

    del bucket[job.params["render"]]  # evicted since: the job's page asks for the tree again
    lost = client.get(response["Location"])
    assert lost.status_code == 302 and lost["Location"] == job.params["path"]

    client.force_login(type(observer).objects.create_user("stranger", password="stranger-password-1"))
    assert client.get(response["Location"]).status_code == 404  # not a member: no job, as no campaign
    assert client.get(reverse("trees:job", args=[campaign.slug, "not-a-job"])).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_queued_tree_is_followed_by_its_page_until_the_worker_draws_it(campaign, observer, client, settings):
    from tests.test_jobs import QUEUE, work

    settings.TASKS = QUEUE
    settings.TREE_INLINE_PEOPLE = 5
    client.force_login(observer)
    url = reverse("trees:tree", args=[campaign.slug, "campaign"])
    first = client.get(url, {"format": "png"})
    page = client.get(first["Location"])
    text = page.content.decode()
    assert page.status_code == 200 and "Waiting for a worker" in text and 'http-equiv="refresh"' in text
    assert client.get(url, {"format": "png"})["Location"] == first["Location"]  # a refresh queues nothing more
    assert Job.objects.filter(kind=JobKind.TREE).count() == 1

    work()

    served = client.get(first["Location"])
    assert served["Content-Type"] == "image/png" and served.content.startswith(b"\x89PNG")
    assert served["Content-Disposition"] == f'inline; filename="{campaign.slug}-campaign.png"'
    assert client.get(url, {"format": "png"})["X-Tree-Cache"] == "hit"


@pytest.mark.django_db
def test_a_tree_that_fails_says_why_and_one_too_large_to_keep_is_its_jobs_own_file(campaign, observer, client, settings):
    from dynasties.trees import render

    settings.TREE_INLINE_PEOPLE = 5
    client.force_login(observer)
    url = reverse("trees:tree", args=[campaign.slug, "campaign"])
    real = render.render_dot

    def broken(text: str, fmt: str) -> bytes:
        raise render.RenderError("dot failed (1): out of memory")

    render.render_dot = broken
    try:
        failed = client.get(url, {"format": "svg"})
    finally:
        render.render_dot = real
    text = client.get(failed["Location"]).content.decode()
    assert "The tree could not be drawn: RenderError: dot failed (1): out of memory" in text and "refresh" not in text

    settings.TREE_CACHE_MAX_BYTES = 100  # no render fits in the cache: the job keeps its own
    response = client.get(url, {"format": "svg"})
    job = Job.objects.get(kind=JobKind.TREE, state=JobState.DONE)
    assert job.artifact == f"tree-jobs/{job.pk}.svg" and "render" not in job.params and not TreeRender.objects.exists()
    served = client.get(response["Location"])
    assert served.status_code == 200 and served.content == artifact_storage().open(job.artifact).read()


@pytest.mark.django_db
def test_pruning_the_tree_jobs_leaves_the_cache_to_its_own_bound(campaign, observer, client, settings, bucket):
    import io

    from django.core.management import call_command

    settings.TREE_INLINE_PEOPLE = 5
    client.force_login(observer)
    url = reverse("trees:tree", args=[campaign.slug, "campaign"])
    client.get(url, {"format": "svg"})
    cached = Job.objects.get(kind=JobKind.TREE).params["render"]
    settings.TREE_CACHE_MAX_BYTES = 100
    client.get(url, {"format": "dot"})
    own = Job.objects.get(kind=JobKind.TREE, params__request__fmt="dot").artifact
    assert set(bucket) == {cached, own}
    Job.objects.update(finished_at=timezone.now() - datetime.timedelta(days=31))
    call_command("prune_jobs", stdout=io.StringIO())  # 30 days by default
    assert not Job.objects.exists() and set(bucket) == {cached}  # the cache's render is the cache's
    assert TreeRender.objects.get().name == cached and bucket[cached].startswith(b"<?xml")
