"""Portraits on the family trees (issue 20): a person with a portrait has it in his box (the SVG
self-contained, PNG and PDF too), one without has none; the cache sees a portrait come and go; the
tree, portraits and all, is for the campaign's members only."""

from __future__ import annotations

import base64
import re
from io import BytesIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from PIL import Image

from campaign.models import Membership, Role
from dynasties.models import Character, Dynasty, Portrait
from dynasties.services.portraits import portrait_remove, portrait_set
from dynasties.trees import render as tree_render
from dynasties.trees.render import TreeRequest, cache_key, render_tree, tree_dot

pytestmark = pytest.mark.django_db

IMAGE = re.compile(rb'<image xlink:href="([^"]*)"')


def png(width: int = 300, height: int = 400) -> bytes:
    out = BytesIO()
    Image.new("RGB", (width, height), "darkred").save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def england(campaign) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown="England")


@pytest.fixture
def pictured(campaign, england, gm) -> Character:
    """The first of England's people, with a portrait."""
    someone = Character.objects.filter(campaign=campaign, controlled_by=england).order_by("pk").first()
    portrait_set(campaign, BytesIO(png()), character=someone, by=gm)
    return someone


def svg_of(campaign, england) -> bytes:
    return render_tree(campaign, TreeRequest(kind="dynasty", dynasty=england.pk, fmt="svg"), use_cache=False).content


def node_of(svg: bytes, pk: int) -> bytes:
    """The SVG group dot writes for person ``pk`` (its id is ``p<pk>``)."""
    found = re.search(rb'<g id="p%d" class="node">.*?</g>\n(?=<!--|</g>)' % pk, svg, re.S)
    assert found is not None, f"no node p{pk} in the SVG"
    return found.group(0)


def test_a_person_with_a_portrait_has_it_in_the_svg_and_one_without_has_none(campaign, england, pictured):
    svg = svg_of(campaign, england)
    images = IMAGE.findall(svg)
    assert len(images) == 1  # only the pictured one
    assert IMAGE.search(node_of(svg, pictured.pk))
    other = Character.objects.filter(campaign=campaign, controlled_by=england).exclude(pk=pictured.pk).first()
    assert not IMAGE.search(node_of(svg, other.pk))
    # self-contained: the image itself, no path of the server (dot was handed a temporary file)
    uri = images[0].decode()
    assert uri.startswith("data:image/png;base64,") and "/tmp" not in svg.decode() and "regnal-tree-" not in svg.decode()
    thumbnail = Image.open(BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    assert max(thumbnail.size) <= max(tree_render.THUMBNAIL) and thumbnail.size[1] > thumbnail.size[0]  # upright, small


def test_png_and_pdf_draw_the_portrait_and_dot_text_names_no_file(campaign, england, pictured, gm):
    def drawn(fmt: str) -> bytes:
        return render_tree(campaign, TreeRequest(kind="dynasty", dynasty=england.pk, fmt=fmt), use_cache=False).content

    with_png, with_pdf = drawn("png"), drawn("pdf")
    portrait_remove(campaign, character=pictured, by=gm)
    without_png, without_pdf = drawn("png"), drawn("pdf")

    def reds(content: bytes) -> int:  # pixels of the portrait's dark red (kept as a JPEG: nearly)
        colours = Image.open(BytesIO(content)).convert("RGB").getcolors(1 << 24) or []
        return sum(n for n, (r, g, b) in colours if 125 <= r <= 150 and g < 20 and b < 20)

    assert reds(with_png) > 1000 and reds(without_png) == 0  # the portrait's colour, drawn in its box
    assert b"/Subtype /Image" in with_pdf and b"/Subtype /Image" not in without_pdf  # the image is in it
    text = tree_dot(campaign, TreeRequest(kind="dynasty", dynasty=england.pk, fmt="dot"))
    assert "<IMG" not in text  # a DOT text would name a folder that is gone


def test_no_portrait_no_image(campaign, england):
    assert not IMAGE.search(svg_of(campaign, england))


def test_a_lost_file_is_left_out(campaign, england, pictured):
    default_storage.delete(Portrait.objects.get(character=pictured).name)
    svg = svg_of(campaign, england)
    assert not IMAGE.search(svg) and b'id="p%d"' % pictured.pk in svg


def test_a_big_tree_is_drawn_without_portraits(campaign, england, pictured, monkeypatch):
    monkeypatch.setattr(tree_render, "PORTRAITS_MAX_PEOPLE", 2)
    assert not IMAGE.search(svg_of(campaign, england))


def test_the_cache_key_changes_when_a_portrait_comes_changes_or_goes(campaign, england, gm):
    request = TreeRequest(kind="dynasty", dynasty=england.pk, fmt="svg")
    first = render_tree(campaign, request)
    assert render_tree(campaign, request).cached
    someone = Character.objects.filter(campaign=campaign, controlled_by=england).first()
    keys = [cache_key(campaign, request)]
    portrait_set(campaign, BytesIO(png()), character=someone, by=gm)
    keys.append(cache_key(campaign, request))
    added = render_tree(campaign, request)
    assert not added.cached and IMAGE.search(added.content) and not IMAGE.search(first.content)
    portrait_set(campaign, BytesIO(png(200, 200)), character=someone, by=gm)  # another image
    keys.append(cache_key(campaign, request))
    portrait_remove(campaign, character=someone, by=gm)
    keys.append(cache_key(campaign, request))
    removed = render_tree(campaign, request)
    assert not removed.cached and not IMAGE.search(removed.content)
    assert len({k for _, k in keys[:3]}) == 3  # a new key for a new portrait or a new image ...
    assert keys[3] == keys[0]  # ... and the tree without it is the one before it came


def test_the_portraits_on_a_tree_go_to_members_only(client, campaign, england, pictured, alice, bob, outsider):
    url = f"/trees/{campaign.slug}/dynasty/?dynasty={england.pk}&format=svg"
    observer = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=observer, role=Role.OBSERVER)
    for member in (alice, bob, observer):  # portraits are public to the members, as the family is
        client.force_login(member)
        answer = client.get(url)
        assert answer.status_code == 200 and len(IMAGE.findall(answer.content)) == 1
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302
