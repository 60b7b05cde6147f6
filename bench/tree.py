"""Benchmark: the campaign family tree of a 3,000-person campaign on a fresh SQLite database.

Builds the campaign with bulk_create (five houses intermarrying over generations, a chain of
monarchs per house, the old dead), then times: bare ``dot -Gnewrank=true -Tsvg`` on the tree's DOT
text, the full render (load the rows, build the data and the DOT, run dot, store in the cache), and
the cached re-serve. Targets (issue 6): full <= 1.1x bare dot; re-serve <= 20 ms.

It also times the DOT builder alone (``dynasties.trees.dot.to_dot``, the tree's data built) against
the same DOT built through the ``graphviz`` package's ``Digraph`` (:func:`package_dot`, below; a dev
dependency), after checking that the two say the same to dot (``dot -Tcanon`` of each, equal):
issue 35's measure of whether the package should build the DOT (bench/README.md, "The DOT builder").

    .venv/bin/python bench/tree.py [--people 3000] [--format svg] [--repeat 3]

With ``--format pdf`` it also times placing dot's PDF on its sheet (issue 34's paper sizes).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOUSES = [
    ("Plantagenet", "England", "#c0392b"),
    ("Valois", "France", "#2e86c1"),
    ("Habsburg", "Austria", "#f1c40f"),
    ("Trastamara", "Spain", "#8e44ad"),
    ("Visconti", "Milan", "#27ae60"),
]


def build(people: int, seed: int = 7):
    from campaign.models import Campaign
    from dynasties.models import Character, Dynasty, Marriage, Reign

    rng = random.Random(seed)
    campaign = Campaign.objects.create(name="Tree bench", slug="tree-bench", start_year=1000, current_year=1400)
    houses = Dynasty.objects.bulk_create(
        [Dynasty(campaign=campaign, name=n, crown=c, color=col, seat=i) for i, (n, c, col) in enumerate(HOUSES)]
    )
    made = 0

    def char(name, sex, year, house, father=None, mother=None):
        return Character(
            campaign=campaign,
            given_name=name,
            sex=sex,
            birth_year=year,
            father=father,
            mother=mother,
            dynastic_name=house.name,
            birth_dynasty=house,
            controlled_by=house,
            characteristics={},
        )

    # founders: a couple per house
    gen = Character.objects.bulk_create([char(f"Founder{i}{s}", s, 1000, h) for i, h in enumerate(houses) for s in "MF"])
    made += len(gen)
    couples = [(gen[2 * i], gen[2 * i + 1]) for i in range(len(houses))]
    marriages = [Marriage(campaign=campaign, husband=m, wife=f, arranged_year=1018, wedding_year=1018) for m, f in couples]
    heads = {h.pk: couples[i][0] for i, h in enumerate(houses)}
    year = 1000
    while made < people and couples:
        year += 22
        children: list[Character] = []
        for father, mother in couples:
            house = next(h for h in houses if h.pk == father.birth_dynasty_id)
            for k in range(rng.choice([2, 3, 3, 4, 4, 5])):
                if made + len(children) >= people:
                    break
                sex = rng.choice("MF")
                children.append(char(f"C{made + len(children)}", sex, year + k, house, father, mother))
        children = Character.objects.bulk_create(children)
        made += len(children)
        # heads of house: the first son of the head
        for h in houses:
            son = next((c for c in children if c.father_id == heads[h.pk].pk and c.sex == "M"), None)
            if son is not None:
                heads[h.pk] = son
        men = [c for c in children if c.sex == "M"]
        women = [c for c in children if c.sex == "F"]
        rng.shuffle(women)
        couples = list(zip(men, women, strict=False))
        marriages += [
            Marriage(campaign=campaign, husband=m, wife=f, arranged_year=year + 18, wedding_year=year + 18) for m, f in couples
        ]
        if year < 1360:  # the old generations are dead
            Character.objects.filter(campaign=campaign, birth_year__lte=year - 40, status="alive").update(
                status="dead", death_year=year
            )
    Marriage.objects.bulk_create(marriages)
    # a chain of monarchs per house: the heads, father to son
    reigns = []
    for h in houses:
        chain = []
        node = heads[h.pk]
        while node is not None:
            chain.append(node)
            node = node.father
        chain.reverse()
        for i, holder in enumerate(chain):
            end = chain[i + 1].birth_year + 20 if i + 1 < len(chain) else None
            reigns.append(Reign(campaign=campaign, crown=h.crown, holder=holder, start_year=holder.birth_year + 20, end_year=end))
    Reign.objects.bulk_create(reigns)
    return campaign


def package_dot(tree, *, url):
    """The DOT of ``to_dot(tree, url=url)`` (no paper, no portraits) through ``graphviz.Digraph``: every
    value quoted by the package (``graphviz.escape`` on what a member typed), attributes in the same
    order, so that ``dot -Tcanon`` gives the same text for both."""
    import graphviz

    from dynasties.trees.dot import cell, color, literal, person_label

    def text(value):  # typed text: no backslash escapes, no <...> HTML, no entities; a newline stays DOT's \n
        return graphviz.nohtml(graphviz.escape(literal(value)).replace("\n", "\\n"))

    dot = graphviz.Digraph("tree")
    graph = [("rankdir", "TB"), ("newrank", "true"), ("nodesep", "0.25"), ("ranksep", "0.45"), ("fontname", "DejaVu Sans")]
    dot.attr("graph", _attributes=[*graph, ("labelloc", "t"), ("fontsize", "18"), ("label", text(tree.title))])
    dot.attr("node", _attributes=[("shape", "box"), ("fontname", "DejaVu Sans"), ("fontsize", "11"), ("margin", "0.08,0.04")])
    dot.attr("edge", _attributes=[("dir", "none"), ("color", "#555555")])
    for p in tree.people.values():
        attrs = [
            ("id", f"p{p.id}"),
            ("label", person_label(p)),
            ("style", ",".join(["rounded", "filled"] + (["dashed"] if p.bastard else []))),
            ("color", color(p.color)),
            ("penwidth", "3" if p.focus else ("2" if p.reigns else "1.2")),
            ("fillcolor", "#e4e4e4" if p.dead else "#ffffff"),
            ("fontcolor", "#666666" if p.dead else "#000000"),
            ("tooltip", text(f"{p.name} ({p.years})")),
        ]
        if url:
            attrs += [("URL", text(url.format(id=p.id))), ("target", "_top")]
        dot.node(f"p{p.id}", _attributes=attrs)
    for u in tree.unions.values():
        if u.label:
            box = [("shape", "box"), ("style", "rounded"), ("fontsize", "8"), ("height", "0.2"), ("width", "0.3")]
            dot.node(u.key, _attributes=[*box, ("margin", "0.03,0.01"), ("label", text(u.label))])
        else:
            dot.node(u.key, _attributes=[("shape", "point"), ("width", "0.08"), ("label", "")])
    dot.edges((f"p{pk}", key) for pk, key in tree.spouse_edges)
    dot.edges((key, f"p{pk}") for key, pk in tree.child_edges)
    if tree.legend:
        cells = "".join(
            f'<TR><TD BGCOLOR="{color(c)}" WIDTH="14"> </TD><TD ALIGN="LEFT">{cell(name)}</TD></TR>' for name, c in tree.legend
        )
        with dot.subgraph(name="cluster_legend") as legend:
            legend.attr(_attributes=[("label", "Houses"), ("fontsize", "12"), ("style", "rounded"), ("color", "#999999")])
            legend.node(
                "legend", _attributes=[("shape", "plaintext"), ("label", f'<<TABLE BORDER="0" CELLSPACING="2">{cells}</TABLE>>')]
            )
    return dot.source


def canonical(text: str) -> bytes:
    from dynasties.trees.render import dot_binary

    return subprocess.run([dot_binary(), "-Tcanon"], input=text.encode(), capture_output=True, check=True).stdout  # noqa: S603


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=3000)
    parser.add_argument("--format", default="svg", choices=["svg", "png", "pdf"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-bench-tree-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.MEDIA_ROOT = f"{tmp}/media"
    call_command("migrate", verbosity=0)
    from dynasties.models import Character, TreeRender
    from dynasties.trees.render import TreeRequest, dot_binary, render_tree, tree_dot

    start = time.perf_counter()
    campaign = build(args.people)
    built = time.perf_counter() - start
    count = Character.objects.filter(campaign=campaign).count()
    request = TreeRequest(kind="campaign", fmt=args.format)

    start = time.perf_counter()
    text = tree_dot(campaign, request)
    dot_text = time.perf_counter() - start
    from dynasties.trees.dot import to_dot
    from dynasties.trees.render import _tree

    drawn_tree = _tree(campaign, request.checked())
    same = canonical(to_dot(drawn_tree, url=request.url)) == canonical(package_dot(drawn_tree, url=request.url))
    builds: dict[str, list[float]] = {"to_dot": [], "graphviz.Digraph": []}
    for _ in range(max(args.repeat, 7)):  # the DOT builders alone (the tree's data already built), in turns
        for name, builder in (("to_dot", to_dot), ("graphviz.Digraph", package_dot)):
            start = time.perf_counter()
            builder(drawn_tree, url=request.url)
            builds[name].append(time.perf_counter() - start)

    bare = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        subprocess.run([dot_binary(), "-Gnewrank=true", f"-T{args.format}"], input=text.encode(), capture_output=True, check=True)  # noqa: S603
        bare.append(time.perf_counter() - start)
    full = []
    for _ in range(args.repeat):
        TreeRender.objects.all().delete()  # the rows and their files: every render a miss
        start = time.perf_counter()
        result = render_tree(campaign, request)
        full.append(time.perf_counter() - start)
        assert not result.cached
    hits = []
    for _ in range(20):
        start = time.perf_counter()
        result = render_tree(campaign, request)
        hits.append(time.perf_counter() - start)
        assert result.cached

    sheet = []
    if args.format == "pdf":  # issue 34: dot's PDF placed on an A3 sheet, scaled to fit (part of the full render)
        from dynasties.trees.render import on_sheet

        drawn = subprocess.run([dot_binary(), "-Gnewrank=true", "-Tpdf"], input=text.encode(), capture_output=True, check=True)  # noqa: S603
        for _ in range(args.repeat):
            start = time.perf_counter()
            on_sheet(drawn.stdout, (1190.55, 841.89))
            sheet.append(time.perf_counter() - start)

    b, f, h = statistics.median(bare), statistics.median(full), statistics.median(hits)
    print(f"tree bench: {count} people, {text.count(' -> ')} edges, format {args.format}, built in {built:.2f} s")
    print(f"DOT text (load rows + data + DOT): {dot_text * 1000:.0f} ms, {len(text) // 1024} KiB")
    mine, package = (statistics.median(builds[k]) for k in ("to_dot", "graphviz.Digraph"))
    ratio = package / mine
    print(f"DOT builder alone:        to_dot {mine * 1000:.1f} ms, graphviz.Digraph {package * 1000:.1f} ms ({ratio:.1f}x),")
    print(f"                          medians of {len(builds['to_dot'])}; the same DOT (dot -Tcanon): {'yes' if same else 'NO'}")
    print(f"bare dot -Gnewrank=true:  {b:.2f} s (median of {args.repeat})")
    print(f"full render (miss):       {f:.2f} s  = {f / b:.2f}x bare (target <= 1.1x)")
    print(f"cached re-serve (hit):    {h * 1000:.1f} ms median, {max(hits) * 1000:.1f} ms max (target <= 20 ms)")
    if sheet:
        print(f"placed on its A3 sheet:   {statistics.median(sheet) * 1000:.0f} ms median (pypdf, the content never parsed)")
    print(f"output: {len(result.content) // 1024} KiB")


if __name__ == "__main__":
    main()
