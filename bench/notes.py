"""Benchmark: the worst notes (issue 30). A player's note of 20,000 ``[`` (the length limit) held a
worker 60 s on every view of his house's page while notes were rendered by Python-Markdown on each
read; now a note is rendered once, when it is written, by markdown-it-py within a bound
(docs/rulings.md, "Notes and portraits").

For each shape (tests/notes_corpus.py: the worst shapes found at ``dynasties.notes.MAX_LENGTH``
characters, those the bound keeps and those it refuses, and real notes at their own lengths) it
prints: whether the bound keeps it; the parser's steps a character (counted with the bound lifted,
the whole work); the render at write (``dynasties.notes.render``, as the writer's service calls
it: counted, sanitized; for a refused note, the time to refuse it; the fastest of ``--runs``) and
its milliseconds a kilobyte; for a refused note, what the whole render would cost with the bound
lifted; and the house's page with that note (``/c/<slug>/dynasty/<id>/`` as its player sees it,
through Django's test ``Client`` and the whole middleware, on a throwaway SQLite database; the
median of ``--runs``), next to the same page with no note. Times are CPU milliseconds of the
process (``time.process_time``, the garbage collector's share included): steadier than the wall
clock on a shared, loaded machine. Target: the page costs what it costs without the note (nothing is
rendered on a read), and a write renders within a few milliseconds a kilobyte or is refused.
``--old N`` also times Python-Markdown (if installed: ``pip install markdown``) on each shape at N
characters, for the comparison.

    .venv/bin/python bench/notes.py [--runs 5] [--old 5000]
"""

from __future__ import annotations

import argparse
import contextlib
import os
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

from tests.notes_corpus import DEPTH, KEPT, REAL, REFUSED  # noqa: E402

LIFTED = 10**6  # steps a character no note reaches: the bound lifted


def cell(name: str) -> str:
    """A shape's name as a Markdown table's cell: as code, so its marks show as typed."""
    if name.startswith("real: "):
        return name
    return f"`` {name} ``" if "`" in name else f"`{name}`"


def shapes(size: int) -> dict[str, str]:
    """Every shape as a note: the worst found at ``size`` characters, then real notes at their lengths."""
    built = {name: build(size) for name, build in {**KEPT, **REFUSED}.items()}
    built |= {f"real: {name}": build(length) for name, (build, length) in REAL.items()}
    return built


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
    print(f"{connection.vendor}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"bound: {notes.STEPS_PER_CHARACTER} steps a character and {notes.STEPS_BASE:,} "
        f"({(notes.STEPS_PER_CHARACTER * size + notes.STEPS_BASE) / size:.1f} a character at {size:,})"
    )
    print(f"the house's page with no note: {bare:.1f} ms CPU (median of {max(args.runs, 9)})")
    print()
    print(
        "| shape | kept | steps a character | render at write (CPU) | ms per KB | whole render, ms per KB "
        "| HTML | the house's page (CPU) | page - no note |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    worst: tuple[float, str] = (0.0, "")
    for name, text in shapes(size).items():
        kb = len(text) / 1024
        steps = notes.render(text, per_character=LIFTED).steps
        write = best(partial(render_or_refuse, text), args.runs)
        try:
            rendered = notes.render(text)
        except notes.NoteRefused:
            whole = best(partial(notes.render, text, per_character=LIFTED), args.runs)
            print(
                f"| {cell(name)} | refused | {steps / len(text):.2f} | {write:.1f} ms (refused) | {write / kb:.1f} "
                f"| {whole / kb:.1f} | - | not saved | - |"
            )
            continue
        worst = max(worst, (write / kb, name))
        note_write(campaign, audience="player", text=text, dynasty=england, by=player)
        median_page(client, page, 1)
        shown = median_page(client, page, args.runs)
        print(
            f"| {cell(name)} | kept | {steps / len(text):.2f} | {write:.1f} ms | {write / kb:.1f} | {write / kb:.1f} "
            f"| {len(rendered.html) / 1024:.0f} KB | {shown:.1f} ms | {shown - bare:+.1f} ms |"
        )
    print()
    print(f"the worst kept: {worst[0]:.1f} ms a KB ({cell(worst[1])})")
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

    from dynasties import notes

    print(
        f"\nPython-Markdown {markdown.__version__} against markdown-it-py, at {size:,} characters (real notes at "
        f"their own lengths; fastest of {runs}):"
    )
    print("| shape | Python-Markdown | markdown-it-py, whole (counted, bound lifted) | at write (kept or refused) |")
    print("|---|---|---|---|")
    for name, text in shapes(size).items():
        then = best(partial(python_markdown, text), runs)
        whole = best(partial(notes.render, text, per_character=LIFTED), runs)
        now = best(partial(render_or_refuse, text), runs)
        print(f"| {cell(name)} | {then:.1f} ms | {whole:.1f} ms | {now:.1f} ms |")


if __name__ == "__main__":
    main()
