"""Benchmark: the worst notes (issue 30). A player's note of 20,000 ``[`` (the length limit) held a
worker 60 s on every view of his house's page while notes were rendered by Python-Markdown on each
read; now a note is rendered once, when it is written, by markdown-it-py within a bound
(docs/rulings.md, "Notes and portraits").

For each worst shape at ``dynasties.notes.MAX_LENGTH`` characters it prints: the render at write
(``dynasties.notes.render``, as the writer's service calls it: counted, sanitized; the fastest of
``--runs``), the parser's steps a character against the bound, and the house's page with that note
(``/c/<slug>/dynasty/<id>/`` as its player sees it, through Django's test ``Client`` and the whole
middleware, on a throwaway SQLite database; the median of ``--runs``), next to the same page with no
note. Times are CPU milliseconds of the process (``time.process_time``): steadier than the wall
clock on a shared, loaded machine. Target: the page costs what it costs without the note (nothing is rendered on a read), and a
write renders within a few milliseconds a kilobyte. ``--old N`` also times today's Python-Markdown
(if installed: ``pip install markdown``) on each shape at N characters, for the comparison.

    .venv/bin/python bench/notes.py [--runs 5] [--old 5000]
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEPTH = 9  # dynasties.notes.MAX_DEPTH (read after Django is set up)


def nested_lists(n: int) -> str:
    lines: list[str] = []
    while sum(map(len, lines)) < n:
        lines += ["  " * depth + f"- item {depth}\n" for depth in range(DEPTH)]
    return "".join(lines)[:n]


SHAPES: dict[str, Callable[[int], str]] = {
    "[ x n": lambda n: "[" * n,
    "[* x n/2": lambda n: "[*" * (n // 2),
    "![ x n/2": lambda n: "![" * (n // 2),
    "[]( x n/3": lambda n: "[](" * (n // 3),
    "![a]( x n/5": lambda n: "![a](" * (n // 5),
    "> x 9, lines": lambda n: ((">" * DEPTH + " quoted\n") * n)[:n],
    "lists 9 deep": nested_lists,
    "*...a...*": lambda n: "*" * (n // 2) + "a" + "*" * (n // 2 - 1),
    "*a x n/2": lambda n: "*a" * (n // 2),
    "< x n": lambda n: "<" * n,
    "<a x n/2": lambda n: "<a" * (n // 2),
    "` x n": lambda n: "`" * n,
    "`a x n/2": lambda n: "`a" * (n // 2),
    "a\\n x n/2": lambda n: "a\n" * (n // 2),
    "table, 2 cells a row": lambda n: ("|a|b|\n|-|-|\n" + "|c|d|\n" * n)[:n],
    "table, empty cells": lambda n: ("|||||\n|-|-|-|-|\n" + "|||||\n" * n)[:n],
    "prose (README)": lambda n: ((ROOT / "README.md").read_text() * 20)[:n],
}
"""The worst shapes found, and plain prose for scale, each as a note of ``n`` characters."""

REFUSED = {
    "table too wide for its rows": lambda n: ("|a" * 3_000 + "\n" + "|-" * 3_000 + "\n" + "|\n" * n)[:n],
    "> x 20,000": lambda n: ">" * n,
}
"""Shapes the bound refuses: how long the refusal takes."""


def render_or_refuse(text: str) -> None:
    from dynasties import notes

    with contextlib.suppress(notes.NoteRefused):
        notes.render(text)


def best(action: Callable[[], object], runs: int) -> float:
    """The fastest of ``runs``, in CPU milliseconds of this process."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        action()
        times.append((time.process_time() - start) * 1000)
    return min(times)


def median_page(client, address: str, runs: int) -> float:  # type: ignore[no-untyped-def]
    """The median of ``runs`` requests, in CPU milliseconds of this process (server and client)."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        answer = client.get(address)
        times.append((time.process_time() - start) * 1000)
        assert answer.status_code == 200, (address, answer.status_code)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="renders and page requests per shape")
    parser.add_argument("--old", type=int, default=0, help="also time Python-Markdown on each shape at this many characters")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    try:
        run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args: argparse.Namespace, tmp: str) -> None:
    from bench.django_setup import setup_for_requests

    setup_for_requests(tmp, keep_database=False)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from dynasties import notes
    from dynasties.models import Dynasty
    from dynasties.services.notes import note_write
    from operations.services import campaign_start

    assert notes.MAX_DEPTH == DEPTH
    size = notes.MAX_LENGTH
    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    gm, player = users.create_user("bench-gm"), users.create_user("bench-player")
    campaign = campaign_start(name="Notes bench", gm=gm, players=5, seats={"England": player}, prehistory_turns=1, seed=1)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    client = Client()
    client.force_login(player)
    page = f"/c/{campaign.slug}/dynasty/{england.pk}/"
    median_page(client, page, 5)  # warm up
    bare = median_page(client, page, max(args.runs, 9))
    print(f"{connection.vendor}; notes of {size:,} characters; bound {notes.STEPS_PER_CHARACTER} steps a character")
    print(f"the house's page with no note: {bare:.1f} ms CPU (median of {max(args.runs, 9)})")
    print()
    print("| shape | render at write (CPU) | ms per KB | steps a character | HTML | the house's page (CPU) | page - no note |")
    print("|---|---|---|---|---|---|---|")
    for name, build in SHAPES.items():
        text = build(size)
        rendered = notes.render(text)
        write = best(partial(notes.render, text), args.runs)
        note_write(campaign, audience="player", text=text, dynasty=england, by=player)
        median_page(client, page, 1)
        shown = median_page(client, page, args.runs)
        print(
            f"| {name} | {write:.1f} ms | {write / (len(text) / 1024):.1f} | {rendered.steps / len(text):.2f} | "
            f"{len(rendered.html) / 1024:.0f} KB | {shown:.1f} ms | {shown - bare:+.1f} ms |"
        )
    print()
    for name, build in REFUSED.items():
        text = build(size)
        try:
            notes.render(text)
        except notes.NoteRefused:
            print(f"refused, {name}: {best(partial(render_or_refuse, text), args.runs):.1f} ms to refuse")
        else:
            raise AssertionError(f"{name}: not refused")
    if args.old:
        old(args.old, args.runs)


def old(size: int, runs: int) -> None:
    """Python-Markdown (the renderer before issue 30) on the same shapes at ``size`` characters."""
    try:
        import markdown
    except ImportError:
        print("\nPython-Markdown is not installed (pip install markdown): no comparison")
        return
    import nh3

    def python_markdown(text: str) -> None:
        nh3.clean(markdown.markdown(text, extensions=["sane_lists", "tables"], output_format="html"))

    print(f"\nPython-Markdown {markdown.__version__} against markdown-it-py, at {size:,} characters (fastest of {runs}):")
    print("| shape | Python-Markdown | markdown-it-py (counted, as at write) |")
    print("|---|---|---|")
    for name, build in {**SHAPES, **REFUSED}.items():
        text = build(size)
        then, now = best(partial(python_markdown, text), runs), best(partial(render_or_refuse, text), runs)
        print(f"| {name} | {then:.1f} ms | {now:.1f} ms |")


if __name__ == "__main__":
    main()
