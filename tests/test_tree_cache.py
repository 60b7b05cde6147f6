"""Issue 14: the tree cache is bounded. Every tree parameter has one set of bounds (the API's and the
page's), parameters a kind does not use do not make a new file, and the cache directory stays under
``TREE_CACHE_MAX_BYTES``, the least recently used renders going first."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse

from campaign.models import Membership, Role
from dynasties.models import Dynasty
from dynasties.trees.data import TreeError
from dynasties.trees.render import GENERATIONS_MAX, LIMIT_MAX, TreeRequest, render_tree


@pytest.fixture(autouse=True)
def tree_cache(settings, tmp_path) -> Path:
    settings.TREE_CACHE_DIR = str(tmp_path / "trees")
    return tmp_path / "trees"


@pytest.fixture
def observer(campaign, django_user_model):
    user = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def size(root: Path) -> int:
    return sum(p.stat().st_size for p in files(root))


@pytest.mark.django_db
def test_out_of_range_limits_make_no_new_files(campaign, observer, client, tree_cache):
    client.force_login(observer)
    url = reverse("trees:tree", args=[campaign.slug, "succession"])
    for limit in range(1000, 1200):
        response = client.get(url, {"crown": "England", "limit": limit, "format": "dot"})
        assert response.status_code == 400
        assert f"limit must be between 1 and {LIMIT_MAX}, not {limit}" in response.content.decode()
    assert len(files(tree_cache)) == 0
    # what a kind does not use does not make a new file either: one file for 200 campaign trees
    tree = reverse("trees:tree", args=[campaign.slug, "campaign"])
    for limit in range(1, LIMIT_MAX + 1):
        assert client.get(tree, {"limit": limit, "crown": f"C{limit}", "format": "dot"}).status_code == 200
    assert len(files(tree_cache)) == 1


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
def test_every_tree_parameter_has_bounds_with_a_clear_message(campaign, observer, client, tree_cache, query, message):
    client.force_login(observer)
    response = client.get(reverse("trees:tree", args=[campaign.slug, "campaign"]), {"format": "dot", **query})
    assert response.status_code == 400 and message in response.content.decode(), response.content
    assert files(tree_cache) == []


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


@pytest.mark.django_db
def test_the_cache_never_exceeds_its_cap_and_drops_the_least_recently_used(campaign, tree_cache, settings):
    houses = list(Dynasty.objects.filter(campaign=campaign).order_by("pk"))
    requests = [TreeRequest(kind="dynasty", dynasty=d.pk, fmt="svg") for d in houses]
    sizes = [len(render_tree(campaign, r, use_cache=False).content) for r in requests]
    settings.TREE_CACHE_MAX_BYTES = max(sizes) * 2 + 10  # room for two renders, never three
    for _ in range(3):
        for r in requests:
            first = render_tree(campaign, r)
            assert size(tree_cache) <= settings.TREE_CACHE_MAX_BYTES
            again = render_tree(campaign, r)
            assert again.cached and again.content == first.content  # a hit is the same bytes
    a, b, c = requests[:3]
    render_tree(campaign, a)
    render_tree(campaign, b)
    past = os.stat(render_tree(campaign, b).path).st_mtime - 60
    os.utime(render_tree(campaign, a).path, (past, past))  # a used long ago ...
    assert render_tree(campaign, b).cached  # ... b just now (a hit marks it as used)
    render_tree(campaign, c)
    assert render_tree(campaign, b).cached and not render_tree(campaign, a).cached


@pytest.mark.django_db
def test_a_render_larger_than_the_cap_is_served_but_not_kept(campaign, tree_cache, settings):
    settings.TREE_CACHE_MAX_BYTES = 10
    first = render_tree(campaign, TreeRequest(kind="campaign", fmt="svg"))
    assert first.content.lstrip().startswith(b"<?xml") and files(tree_cache) == []
    assert not render_tree(campaign, TreeRequest(kind="campaign", fmt="svg")).cached


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
