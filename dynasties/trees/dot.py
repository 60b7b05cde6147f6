"""A :class:`~dynasties.trees.data.Tree` as DOT text: pure, so its text is what the tests read.

Person boxes are HTML-like labels: a band of the house colour, the name (numbered for an heir),
the years, then one line per mark: the crown (with the regnal years), regencies, titles,
captivity, bastardy. The dead are greyed, bastards dashed, the focus drawn thicker. Unions are
small nodes of their own (the wedding year on them); children hang from them. No ``splines=ortho``:
it crashes Graphviz on big trees.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape

from dynasties.trees.data import PersonNode, Tree

CROWN = "\u265b"  # black chess queen: the crown mark
REGENT = "\u2696"  # scales: the regent mark
PAPERS = {"A4": (11.69, 8.27), "A3": (16.54, 11.69), "Letter": (11.0, 8.5)}  # landscape, inches
POINTS = {"A4": (841.89, 595.28), "A3": (1190.55, 841.89), "Letter": (792.0, 612.0)}  # landscape, exactly (ISO 216, ANSI)
ORIENTATIONS = ("landscape", "portrait")
A4_MAX_PEOPLE = 40  # more than this goes on A3
ADMIN_URL = "/admin/dynasties/character/{id}/change/"
PORTRAIT_SIZE = (40, 48)  # points: the cell a portrait is scaled into, under the house's band
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")


def quote(value: str) -> str:
    """A DOT double-quoted string."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def literal(value: str) -> str:
    """What a member typed, for a plain string of dot's (a title, a tooltip; then :func:`quote`):
    dot reads ``&amp;``, ``&lt;``... in them as the characters, so ``&`` is written ``&amp;`` and
    a typed ``&lt;`` stays the four characters."""
    return value.replace("&", "&amp;")


def cell(value: str) -> str:
    """What a member typed, as the text of an HTML-like label: HTML-escaped, and its backslashes
    doubled (dot reads ``\\N``, ``\\G``... in the text as the node's or the graph's name, and a
    backslash before a line's end joins the lines); a newline is a space there anyway."""
    return escape(value).replace("\\", "\\\\").replace("\r", " ").replace("\n", " ")


def color(value: str) -> str:
    return value if _COLOR.match(value or "") else "#bbbbbb"


def paper_for(tree: Tree, paper: str | None = "auto") -> str | None:
    if paper is None:
        return None
    if paper == "auto":
        return "A4" if len(tree.people) <= A4_MAX_PEOPLE else "A3"
    if paper not in PAPERS:
        raise ValueError(f"Unknown paper {paper!r}; choose one of {', '.join(PAPERS)}.")
    return paper


def sheet(paper: str, orientation: str = "landscape", *, points: bool = False) -> tuple[float, float]:
    """The sheet's width and height as it lies (``paper`` one of :data:`PAPERS`): in inches, or
    with ``points`` in points, exactly."""
    long, short = (POINTS if points else PAPERS)[paper]
    return (short, long) if orientation == "portrait" else (long, short)


def person_label(p: PersonNode, image: str | None = None) -> str:
    """The box's label; ``image``: a local file of the person's portrait, drawn under the band."""
    grey = p.dead
    rows = [f'<TR><TD BGCOLOR="{color(p.color)}" HEIGHT="5"></TD></TR>']
    if image:
        w, h = PORTRAIT_SIZE
        rows.append(f'<TR><TD FIXEDSIZE="TRUE" WIDTH="{w}" HEIGHT="{h}"><IMG SRC="{escape(image)}" SCALE="TRUE"/></TD></TR>')
    name = cell(p.name)
    if p.heir_no is not None:
        name = f"{p.heir_no}. {name}"
    rows.append(f"<TR><TD><B>{name}</B></TD></TR>")
    years = cell(p.years) + (" \u2020" if p.dead else "") + (" (retired)" if p.retired else "")
    rows.append(f'<TR><TD><FONT POINT-SIZE="9">{years}</FONT></TD></TR>')
    if p.heir_no is not None:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9">Heir no. {p.heir_no}</FONT></TD></TR>')
    for reign in p.reigns:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9">{CROWN} {cell(reign)}</FONT></TD></TR>')
    for regency in p.regencies:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9">{REGENT} Regent, {cell(regency)}</FONT></TD></TR>')
    for title in p.titles:
        rows.append(f'<TR><TD><FONT POINT-SIZE="9"><I>{cell(title)}</I></FONT></TD></TR>')
    if p.prisoner_of is not None:
        red = "#8b0000" if not grey else "#777777"
        rows.append(f'<TR><TD><FONT POINT-SIZE="9" COLOR="{red}">Prisoner of {cell(p.prisoner_of)}</FONT></TD></TR>')
    if p.bastard:
        rows.append('<TR><TD><FONT POINT-SIZE="9">(bastard)</FONT></TD></TR>')
    return '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">' + "".join(rows) + "</TABLE>>"


def person_node(p: PersonNode, url: str | None, image: str | None = None) -> str:
    style = ["rounded", "filled"] + (["dashed"] if p.bastard else [])
    attrs = {
        "id": quote(f"p{p.id}"),
        "label": person_label(p, image),
        "style": quote(",".join(style)),
        "color": quote(color(p.color)),
        "penwidth": "3" if p.focus else ("2" if p.reigns else "1.2"),
        "fillcolor": quote("#e4e4e4" if p.dead else "#ffffff"),
        "fontcolor": quote("#666666" if p.dead else "#000000"),
        "tooltip": quote(literal(f"{p.name} ({p.years})")),
    }
    if url:
        attrs["URL"] = quote(url.format(id=p.id))
        attrs["target"] = quote("_top")
    return f"  p{p.id} [" + ", ".join(f"{k}={v}" for k, v in attrs.items()) + "];"


def to_dot(
    tree: Tree,
    *,
    url: str | None = ADMIN_URL,
    paper: str | None = None,
    orientation: str = "landscape",
    images: Mapping[int, str] | None = None,
) -> str:
    """The DOT text of the tree. ``url`` is a pattern with ``{id}`` (None: no links); ``paper``
    ("A4", "A3", "Letter", "auto" or None) scales the drawing down to fit a sheet lying as
    ``orientation`` says (a PNG; a PDF is fitted to its page afterwards, up or down:
    :func:`dynasties.trees.render.on_sheet`); ``images`` maps a person's id to a local file of his
    portrait (dot reads it)."""
    images = images or {}
    out = [
        "digraph tree {",
        '  graph [rankdir=TB, newrank=true, nodesep=0.25, ranksep=0.45, fontname="DejaVu Sans", '
        f"labelloc=t, fontsize=18, label={quote(literal(tree.title))}];",
        '  node [shape=box, fontname="DejaVu Sans", fontsize=11, margin="0.08,0.04"];',
        '  edge [dir=none, color="#555555"];',
    ]
    size = paper_for(tree, paper)
    if size:
        w, h = sheet(size, orientation)
        out.append(f'  graph [size="{w},{h}", pad=0.2]; // {size} {orientation}')
    for p in tree.people.values():
        out.append(person_node(p, url, images.get(p.id)))
    for u in tree.unions.values():
        if u.label:
            out.append(
                f'  {u.key} [shape=box, style=rounded, fontsize=8, height=0.2, width=0.3, margin="0.03,0.01", '
                f"label={quote(literal(u.label))}];"
            )
        else:
            out.append(f'  {u.key} [shape=point, width=0.08, label=""];')
    for pk, key in tree.spouse_edges:
        out.append(f"  p{pk} -> {key};")
    for key, pk in tree.child_edges:
        out.append(f"  {key} -> p{pk};")
    if tree.legend:
        cells = "".join(
            f'<TR><TD BGCOLOR="{color(c)}" WIDTH="14"> </TD><TD ALIGN="LEFT">{cell(name)}</TD></TR>' for name, c in tree.legend
        )
        out.append('  subgraph cluster_legend { label="Houses"; fontsize=12; style=rounded; color="#999999";')
        out.append(f'    legend [shape=plaintext, label=<<TABLE BORDER="0" CELLSPACING="2">{cells}</TABLE>>];')
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
