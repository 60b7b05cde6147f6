"""Benchmark: `simulate` for 5 players x 40 turns on a fresh SQLite database.

The automatic player keeps each house to its default size (``operations.simulation.HOUSE_SIZE``);
``--house-size 1000`` plays the former, unbounded houses. Prints the wall time (and the process's CPU
time, steadier on a loaded machine), the queries of every fifth turn with the campaign's size at that point,
and the share of the run spent inside the pure rules core (``rules``), measured in a
second, profiled run. Target (issue 18): at most 4 s, queries per turn flat as the campaign grows.

    make bench        # or: .venv/bin/python bench/simulate.py [--turns 40] [--players 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--house-size", type=int, default=None, help="default: the player's (HOUSE_SIZE)")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    warnings.filterwarnings("ignore", message="Limit for query logging exceeded")
    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.models import Character, Status
    from dynasties.services import campaign_create
    from operations.simulation import HOUSE_SIZE, play_turn
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    house_size = args.house_size or HOUSE_SIZE

    cpu: dict[str, float] = {}

    def run(name: str, record: bool) -> tuple[float, list[tuple[int, int, int, int]]]:
        source = RandomSource(args.seed)
        rows: list[tuple[int, int, int, int]] = []
        start, started_cpu = time.perf_counter(), time.process_time()
        with transaction.atomic():
            campaign = campaign_create(name=name, players=args.players, source=source)
            for turn in range(1, args.turns + 1):
                alive = Character.objects.filter(campaign=campaign, status=Status.ALIVE).count() if record else 0
                with CaptureQueriesContext(connection) as ctx:
                    campaign = play_turn(campaign, source, house_size=house_size, by=SYSTEM_ACTOR)
                rows.append((turn, campaign.current_year, alive, len(ctx.captured_queries)))
        cpu[name] = time.process_time() - started_cpu  # steadier than the wall time on a loaded machine
        return time.perf_counter() - start, rows

    wall, rows = run("Bench", record=True)
    # The alive count above is read outside the timed turns; time a clean run without it.
    clean, _ = run("Bench clean", record=False)

    profiler = cProfile.Profile()
    profiler.enable()
    run("Bench profiled", record=False)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
    rules = sum(
        v[2]
        for k, v in stats.stats.items()
        if k[0].startswith(str(ROOT / "rules") + os.sep)  # type: ignore[attr-defined]
    )
    characters = Character.objects.filter(campaign__name="Bench").count()

    print(f"simulate: {args.players} players x {args.turns} turns, seed {args.seed}, house size {house_size}")
    print(
        f"wall time: {clean:.2f} s (target <= 4 s), CPU time {cpu['Bench clean']:.2f} s; with per-turn bookkeeping {wall:.2f} s"
    )
    print(f"characters at the end: {characters}")
    print("turn  year  alive  queries")
    for turn, year, alive, queries in rows:
        if turn == 1 or turn % 5 == 0:
            print(f"{turn:>4}  {year}  {alive:>5}  {queries:>7}")
    counts = [q for *_, q in rows]
    print(f"queries per turn: min {min(counts)}, max {max(counts)}, mean {sum(counts) / len(counts):.1f}")
    print(f"share of time in the rules core (profiled run): {100 * rules / total:.1f}%")


if __name__ == "__main__":
    main()
