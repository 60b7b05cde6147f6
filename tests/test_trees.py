"""Family trees (issue 6): the node/edge data, the DOT text of every kind, the renders, the cache
and who may see them."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from campaign.artifacts import artifact_storage
from campaign.models import Membership, Role
from dynasties.models import Character, Dynasty, Reign, Status, Title, TreeRender
from dynasties.trees.data import TreeError, build_tree, load_rows
from dynasties.trees.dot import CROWN, REGENT, to_dot
from dynasties.trees.render import TreeRequest, render_tree, tree_dot
from tests.factories import crown, empty_house, person, wed


@pytest.fixture
def family(campaign):
    """House Testhouse of Testland: King Henry (m. twice), a son by each wife, a bastard, a
    grandson; Queen Maud from House Other; Henry reigns, then his son with a regent."""
    house = empty_house(campaign)
    house.color = "#aa0000"
    house.save()
    other = Dynasty.objects.create(campaign=campaign, name="Other", crown="Otherland", color="#0000aa")
    henry = person(campaign, house, "Henry", "M", 1250)
    anne = person(campaign, other, "Anne", "F", 1252, dynastic_name="Other")
    maud = person(campaign, other, "Maud", "F", 1260, dynastic_name="Other")
    m1 = wed(campaign, henry, anne, 1270)
    m1.ended_year, m1.end_cause = 1275, "death"
    m1.save()
    Character.objects.filter(pk=anne.pk).update(status=Status.DEAD, death_year=1275)
    wed(campaign, henry, maud, 1280)
    edward = person(campaign, house, "Edward", "M", 1272, father=henry, mother=anne)
    john = person(campaign, house, "John", "M", 1282, father=henry, mother=maud)
    will = person(campaign, house, "Will", "M", 1284, father=henry)
    Character.objects.filter(pk=will.pk).update(legitimate=False, prisoner_of=other)
    bess = person(campaign, other, "Bess", "F", 1274, dynastic_name="Other")
    wed(campaign, edward, bess, 1292)
    little = person(campaign, house, "Little", "M", 1294, father=edward, mother=bess)
    crown(campaign, henry, "Testland", 1280)
    Title.objects.create(
        campaign=campaign,
        name="Duke of Somewhere",
        province="Somewhere",
        crown="Testland",
        holder=john,
        granted_year=1300,
        granted_to=john,
    )
    return {
        "house": house,
        "other": other,
        "henry": henry,
        "anne": anne,
        "maud": maud,
        "edward": edward,
        "john": john,
        "will": will,
        "bess": bess,
        "little": little,
    }


def dot_of(campaign, **kw):
    return tree_dot(campaign, TreeRequest(**kw))


def node_line(text, pk):
    return next(line for line in text.splitlines() if line.startswith(f"  p{pk} ["))


# --- data ----------------------------------------------------------------------------------------


def test_unions_are_nodes_and_children_hang_from_them(campaign, family):
    rows = load_rows(campaign)
    tree = build_tree(rows, kind="dynasty", dynasty=family["house"].pk)
    henry = family["henry"].pk
    unions_of_henry = [key for pk, key in tree.spouse_edges if pk == henry]
    assert len(unions_of_henry) == 3  # Anne, Maud, and the bastard's unknown mother
    parent_union = {child: key for key, child in tree.child_edges}
    assert parent_union[family["edward"].pk] != parent_union[family["john"].pk]
    assert tree.unions[parent_union[family["edward"].pk]].wife == family["anne"].pk
    assert tree.unions[parent_union[family["will"].pk]].wife is None
    # the spouses married in are shown, in their own house's colour
    assert tree.people[family["maud"].pk].color == "#0000aa"


def test_unknown_kind_and_missing_focus_are_refused(campaign, family):
    rows = load_rows(campaign)
    with pytest.raises(TreeError):
        build_tree(rows, kind="forest")
    with pytest.raises(TreeError):
        build_tree(rows, kind="ancestors")


# --- DOT text ------------------------------------------------------------------------------------


def test_dynasty_dot_boxes(campaign, family):
    text = dot_of(campaign, kind="dynasty", dynasty=family["house"].pk)
    henry = node_line(text, family["henry"].pk)
    assert "Henry Testhouse" in henry and "b. 1250" in henry
    assert f"{CROWN} Testland 1280" in henry  # crown mark with regnal years
    assert "#aa0000" in henry
    anne = node_line(text, family["anne"].pk)
    assert "1252\u20131275" in anne and 'fillcolor="#e4e4e4"' in anne  # dead: greyed
    will = node_line(text, family["will"].pk)
    assert "(bastard)" in will and "dashed" in will and "Prisoner of Other" in will
    assert "<I>Duke of Somewhere</I>" in node_line(text, family["john"].pk)
    assert 'label="m. 1270, ended 1275"' in text and 'label="m. 1280"' in text
    assert "splines=ortho" not in text
    assert f'URL="/admin/dynasties/character/{family["henry"].pk}/change/"' in henry
    # people of other houses who did not marry in are not on a dynasty's tree
    assert text.count("Other") >= 1 and "Otherland" not in text


def test_regent_mark(campaign, family):
    reign = Reign.objects.get(campaign=campaign, crown="Testland")
    reign.end_year = 1300
    reign.save()
    Reign.objects.create(
        campaign=campaign,
        crown="Testland",
        holder=family["little"],
        start_year=1300,
        regent=family["maud"],
        regency_end_year=1309,
    )
    text = dot_of(campaign, kind="dynasty", dynasty=family["house"].pk)
    assert f"{REGENT} Regent, Testland 1300\u20131309" in node_line(text, family["maud"].pk)
    assert f"{CROWN} Testland 1300\u2013" in node_line(text, family["little"].pk)


def test_campaign_dot_has_legend_of_houses_in_their_colours(campaign, family):
    text = dot_of(campaign, kind="campaign")
    assert "cluster_legend" in text
    legend = next(line for line in text.splitlines() if "legend [" in line)
    assert 'BGCOLOR="#aa0000"' in legend and "Testhouse (Testland)" in legend and "Other (Otherland)" in legend
    assert text.count(" [id=") == Character.objects.filter(campaign=campaign).count()


def test_campaign_focus_and_generation_cap(campaign, family):
    text = dot_of(campaign, kind="campaign", focus=family["edward"].pk, generations=1)
    shown = set(map(int, re.findall(r"^  p(\d+) \[", text, re.M)))
    f = family
    assert {f["edward"].pk, f["henry"].pk, f["anne"].pk, f["little"].pk, f["bess"].pk} <= shown
    assert f["john"].pk not in shown and f["maud"].pk not in shown
    assert "(1 generations)" in text


def test_ancestors_dot(campaign, family):
    text = dot_of(campaign, kind="ancestors", focus=family["little"].pk, generations=1)
    shown = set(map(int, re.findall(r"^  p(\d+) \[", text, re.M)))
    assert shown == {family["little"].pk, family["edward"].pk, family["bess"].pk}
    assert "Ancestors of Little Testhouse" in text
    text = dot_of(campaign, kind="ancestors", focus=family["little"].pk, generations=2)
    assert "Henry Testhouse" in text and "Anne Other" in text and "Maud" not in text


def test_descendants_dot(campaign, family):
    text = dot_of(campaign, kind="descendants", focus=family["henry"].pk, generations=1)
    shown = set(map(int, re.findall(r"^  p(\d+) \[", text, re.M)))
    f = family
    assert {f["edward"].pk, f["john"].pk, f["will"].pk, f["anne"].pk, f["maud"].pk} <= shown
    assert f["little"].pk not in shown
    assert "penwidth=3" in node_line(text, f["henry"].pk)  # the focus
    text = dot_of(campaign, kind="descendants", focus=f["henry"].pk, generations=2)
    assert "Little Testhouse" in text and "Bess Other" in text


def test_succession_dot_numbers_the_heirs(campaign, family):
    text = dot_of(campaign, kind="succession", crown="Testland", limit=5)
    f = family
    edward, little, john = (node_line(text, f[k].pk) for k in ("edward", "little", "john"))
    assert "1. Edward Testhouse" in edward and "Heir no. 1" in edward
    assert "2. Little Testhouse" in little
    assert "3. John Testhouse" in john
    assert "Heir no." not in node_line(text, f["will"].pk) if f"p{f['will'].pk} [" in text else True
    assert "The line of succession of Testland" in text
    with pytest.raises(TreeError):
        dot_of(campaign, kind="succession", crown="Nowhere")


def test_labels_are_escaped():
    from dynasties.trees.data import PersonNode, Tree

    p = PersonNode(1, 'Bob <"&"> Smith', "M", 1300, None, False, False, None, "", "not-a-colour")
    text = to_dot(Tree("campaign", 'Say "hi"', {1: p}, {}, [], []))
    assert "Bob &lt;&quot;&amp;&quot;&gt; Smith" in text and 'label="Say \\"hi\\""' in text
    assert "not-a-colour" not in text


HOSTILE = 'Bob "the \\N" <b>&amp;</b> {x} } \\'


def test_hostile_names_stay_literal():
    """Names and titles a member typed are drawn by dot as the very text typed: quotes, backslashes
    (dot reads ``\\N`` as the node's id, a backslash at a line's end joins the lines), ``<...>``
    (an HTML label), ``&`` entities, braces and newlines neither break the DOT nor change what it
    draws."""
    import subprocess
    from xml.etree import ElementTree

    from dynasties.trees.data import PersonNode, Tree, UnionNode
    from dynasties.trees.render import dot_binary

    name = HOSTILE + "\nsecond line"
    p = PersonNode(1, name, "M", 1300, None, False, False, None, "", "#aa0000", titles=[HOSTILE], prisoner_of=HOSTILE)
    q = PersonNode(2, "Plain", "F", 1301, None, False, False, None, "", "#aa0000")
    union = UnionNode("u1", 1, 2, HOSTILE)
    tree = Tree("campaign", HOSTILE, {1: p, 2: q}, {"u1": union}, [(1, "u1"), (2, "u1")], [], legend=[(HOSTILE, "#aa0000")])
    text = to_dot(tree, url="/people/{id}/")
    drawn = subprocess.run([dot_binary(), "-Tsvg"], input=text.encode(), capture_output=True, check=False)
    assert drawn.returncode == 0 and drawn.stderr == b""  # no syntax error, no warning
    svg = ElementTree.fromstring(drawn.stdout)  # noqa: S314 (dot's own output): well-formed
    ns = {"svg": "http://www.w3.org/2000/svg", "xlink": "http://www.w3.org/1999/xlink"}
    titles = [t.text for t in svg.iterfind(".//svg:g[@class='node']/svg:title", ns)]
    assert sorted(titles) == ["legend", "p1", "p2", "u1"]  # no node made of a name, none lost
    assert len(svg.findall(".//svg:g[@class='edge']", ns)) == 2
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert texts.count(HOSTILE) == 4  # the title, the title held, the union's label, the legend
    assert HOSTILE + " second line" in texts  # the name in his box (a newline is a space there)
    assert "Prisoner of " + HOSTILE in texts
    links = [a.get("{http://www.w3.org/1999/xlink}href") for a in svg.iterfind(".//svg:a", ns)]
    assert links == ["/people/1/", "/people/2/"]
    tooltip = next(a.get("{http://www.w3.org/1999/xlink}title") for a in svg.iterfind(".//svg:a", ns))
    assert tooltip.startswith('Bob "the ') and "<b>&amp;</b> {x} }" in tooltip and tooltip.endswith("second line (b. 1300)")


# --- renders -------------------------------------------------------------------------------------


def test_svg_has_one_link_per_person(campaign, family):
    result = render_tree(campaign, TreeRequest(kind="campaign", fmt="svg", url="/people/{id}/"))
    svg = result.content.decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    links = re.findall(r'xlink:href="/people/(\d+)/"', svg)
    ids = sorted(Character.objects.filter(campaign=campaign).values_list("id", flat=True))
    assert sorted(map(int, links)) == ids


def test_png_and_pdf_bytes(campaign, family):
    png = render_tree(campaign, TreeRequest(kind="dynasty", dynasty=family["house"].pk, fmt="png"))
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n" and png.content_type == "image/png"
    pdf = render_tree(campaign, TreeRequest(kind="campaign", fmt="pdf"))
    assert pdf.content.startswith(b"%PDF-") and b"%%EOF" in pdf.content[-64:]
    people = Character.objects.filter(campaign=campaign).count()
    text = tree_dot(campaign, TreeRequest(kind="campaign", fmt="png"))
    assert ('size="16.54,11.69"' if people > 40 else 'size="11.69,8.27"') in text  # landscape A3 / A4
    assert 'size="8.27,11.69"' in tree_dot(campaign, TreeRequest(kind="campaign", fmt="png", orientation="portrait"))
    assert " size=" not in tree_dot(campaign, TreeRequest(kind="campaign", fmt="pdf"))  # fitted to its sheet after (issue 34)
    assert 'size="16.54,11.69"' in tree_dot(campaign, TreeRequest(kind="campaign", fmt="png", paper="A3"))
    assert " size=" not in tree_dot(campaign, TreeRequest(kind="campaign", fmt="svg"))  # SVG: never scaled


def test_cache_hit_and_invalidation(campaign, family):
    req = TreeRequest(kind="dynasty", dynasty=family["house"].pk, fmt="svg")
    first = render_tree(campaign, req)
    again = render_tree(campaign, req)
    assert not first.cached and again.cached and again.content == first.content
    # a death changes no id, but changes the tree
    Character.objects.filter(pk=family["henry"].pk).update(status=Status.DEAD, death_year=1301)
    after = render_tree(campaign, req)
    assert not after.cached and "1250\u20131301" in after.content.decode()
    assert render_tree(campaign, req).cached
    # a new marriage, a new reign: new versions again
    wed(campaign, family["john"], person(campaign, family["other"], "Joan", "F", 1285, dynastic_name="Other"), 1302)
    assert not render_tree(campaign, req).cached
    crown(campaign, family["edward"], "Testland", 1301)
    assert not render_tree(campaign, req).cached
    # old versions' renders are cleared away, from the index and the storage
    last = render_tree(campaign, req)
    assert [r.name for r in TreeRender.objects.filter(campaign=campaign)] == [last.name]
    assert artifact_storage().listdir(f"trees/{campaign.pk}") == ([], [last.name.rsplit("/", 1)[1]])


# --- view, permissions, command ------------------------------------------------------------------


def test_gm_gets_the_tree(client, campaign, family, gm):
    Membership.objects.get_or_create(campaign=campaign, user=gm, defaults={"role": Role.GM})
    client.force_login(gm)
    url = f"/trees/{campaign.slug}/descendants/?focus={family['henry'].pk}&generations=2"
    first = client.get(url)
    assert first.status_code == 200 and first["Content-Type"] == "image/svg+xml"
    assert first["X-Tree-Cache"] == "miss" and client.get(url)["X-Tree-Cache"] == "hit"
    pdf = client.get(f"/trees/{campaign.slug}/campaign/?format=pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert client.get(f"/trees/{campaign.slug}/ancestors/").status_code == 400  # no focus
    assert client.get(f"/trees/{campaign.slug}/campaign/?format=gif").status_code == 400
    assert client.get(f"/trees/{campaign.slug}/forest/").status_code == 404


def test_trees_are_for_members_only(client, campaign, family, alice, outsider):
    url = f"/trees/{campaign.slug}/campaign/"
    anonymous = client.get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/")
    client.force_login(alice)  # a player sees the public family record
    assert client.get(url).status_code == 200
    client.force_login(outsider)
    assert client.get(url).status_code == 404


def test_render_tree_command(campaign, family, tmp_path):
    out = tmp_path / "t.pdf"
    call_command(
        "render_tree",
        "--campaign",
        campaign.slug,
        "--kind",
        "succession",
        "--crown",
        "Testland",
        "--format",
        "pdf",
        "--output",
        str(out),
    )
    assert out.read_bytes().startswith(b"%PDF")
    out = tmp_path / "t.dot"
    call_command(
        "render_tree",
        "--campaign",
        campaign.slug,
        "--kind",
        "ancestors",
        "--focus",
        str(family["little"].pk),
        "--generations",
        "2",
        "--format",
        "dot",
        "--output",
        str(out),
    )
    assert "Ancestors of Little Testhouse" in out.read_text()


def test_data_version_sees_every_change_a_tree_shows(campaign, family):
    from dynasties.trees.data import data_version

    seen = {data_version(campaign)}
    changes = [
        lambda: Title.objects.filter(campaign=campaign).update(holder=family["edward"]),
        lambda: Dynasty.objects.filter(pk=family["house"].pk).update(color="#00aa00"),
        lambda: Character.objects.filter(pk=family["will"].pk).update(prisoner_of=None),
        lambda: Character.objects.filter(pk=family["john"].pk).update(given_name="Jean"),
        lambda: Reign.objects.filter(campaign=campaign).update(regent=family["maud"]),
    ]
    for change in changes:
        change()
        version = data_version(campaign)
        assert version not in seen
        seen.add(version)


@pytest.mark.django_db
def test_the_admin_links_to_the_trees_and_the_gedcom(admin_client, campaign):
    from django.urls import reverse

    from dynasties.models import Character, Dynasty

    england = Dynasty.objects.get(campaign=campaign, crown="England")
    page = admin_client.get(reverse("admin:dynasties_dynasty_change", args=[england.pk])).content.decode()
    assert f"/trees/{campaign.slug}/dynasty/?dynasty={england.pk}&amp;format=pdf" in page
    assert f"/campaigns/{campaign.slug}/dynasties/{england.pk}/gedcom/" in page
    king = Character.objects.filter(controlled_by=england).first()
    page = admin_client.get(reverse("admin:dynasties_character_change", args=[king.pk])).content.decode()
    assert f"/trees/{campaign.slug}/ancestors/?focus={king.pk}" in page
    svg = admin_client.get(f"/trees/{campaign.slug}/dynasty/?dynasty={england.pk}&format=svg")
    assert svg.status_code == 200 and b"<svg" in svg.content


def test_a_png_tree_is_drawn_at_150_dpi_sharp_enough_for_a4(campaign, family):
    """Issue 19: the PNG has 150 pixels per inch of the drawing (the SVG measures it in points, 72 an inch)."""
    import io

    from PIL import Image

    request = TreeRequest(kind="dynasty", dynasty=family["house"].pk, fmt="svg", paper=None)
    svg = render_tree(campaign, request).content.decode()
    width_pt, height_pt = (float(v) for v in re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    png = render_tree(campaign, TreeRequest(kind="dynasty", dynasty=family["house"].pk, fmt="png", paper=None)).content
    width_px, height_px = Image.open(io.BytesIO(png)).size
    # pixels per inch of the drawing (text is measured a little wider at 150 dpi, so a few per cent more)
    for pixels, points in ((width_px, width_pt), (height_px, height_pt)):
        assert 148 <= pixels / (points / 72) <= 165
