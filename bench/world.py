"""Benchmark: loading a campaign's ``World`` (``dynasties.services.common.World``) as the campaign
grows, issue 36.

Plays ``simulate``'s automatic player (5 players, seed 7, on a fresh SQLite database) for 200 turns
and times every ``World`` load made by the steps (its ``__init__`` and the queries it makes; and
apart, ``dead``, a whole World's later read of the dead, when a succession walk or anything else
asks for one of them), grouped by turns 1-20 and 181-200, by kind (``living_only`` or whole; ``all``
is every load with the later reads of the dead, per load). Prints the mean CPU milliseconds and
queries, the characters in the campaign and those a load holds at first. Target (issue 36): a load
at turns 181-200 within 1.2x of one at turns 1-20. Runs on the code before issue 36 too (no later
reads there: a whole World read the dead in its ``__init__``).

    .venv/bin/python bench/world.py [--turns 200] [--players 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--window", type=int, default=20, help="turns in each group compared (default 20)")
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
    from dynasties.services import campaign_create, common
    from operations.simulation import HOUSE_SIZE, play_turn
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)

    turn = 0
    # (turn, kind) -> [loads, cpu seconds, queries, characters held]
    stats: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0, 0.0, 0, 0])
    original = common.World.__init__

    def timed(self: common.World, *a: object, **kw: object) -> None:
        kind = "living" if kw.get("living_only") else "whole"
        with CaptureQueriesContext(connection) as ctx:
            started = time.process_time()
            original(self, *a, **kw)  # type: ignore[arg-type]
            spent = time.process_time() - started
        row = stats[(turn, kind)]
        row[0] += 1
        row[1] += spent
        row[2] += len(ctx.captured_queries)
        row[3] += dict.__len__(self.characters)  # what it holds, without reading the dead

    # what a whole World reads later, when asked for: the dead (counted in the turn)
    complete = getattr(common, "_Characters", None) and common._Characters._complete

    def counted(kind: str, read: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(self: Any) -> Any:
            with CaptureQueriesContext(connection) as ctx:
                started = time.process_time()
                out = read(self)
                spent = time.process_time() - started
            if ctx.captured_queries:
                row = stats[(turn, kind)]
                row[0] += 1
                row[1] += spent
                row[2] += len(ctx.captured_queries)
            return out

        return wrapped

    common.World.__init__ = timed  # type: ignore[method-assign]
    if complete:  # not before issue 36
        common._Characters._complete = counted("dead", complete)  # type: ignore[method-assign]

    source = RandomSource(args.seed)
    size: dict[int, int] = {}
    started = time.perf_counter()
    with transaction.atomic():
        campaign = campaign_create(name="Bench", players=args.players, source=source)
        for turn in range(1, args.turns + 1):  # read by ``timed``
            campaign = play_turn(campaign, source, house_size=HOUSE_SIZE, by=SYSTEM_ACTOR)
            size[turn] = Character.objects.filter(campaign=campaign).count()
        alive = Character.objects.filter(campaign=campaign, status=Status.ALIVE).count()
    wall = time.perf_counter() - started
    common.World.__init__ = original  # type: ignore[method-assign]
    if complete:
        common._Characters._complete = complete  # type: ignore[method-assign]

    print(f"World loads over {args.players} players x {args.turns} turns, seed {args.seed} (wall {wall:.1f} s)")
    print(f"characters at the end: {size[args.turns]} ({alive} alive)")
    w = args.window
    groups = [(1, w), (args.turns - w + 1, args.turns)]
    print("turns      kind    loads  ms/load  queries/load  held/load  characters")
    print("(dead: a whole World's later read of the dead, per read; all: every load with its later reads, per load)")
    means: dict[tuple[int, str], float] = {}
    for lo, hi in groups:
        for kind in ("living", "whole", "dead", "all"):
            kinds = ("living", "whole", "dead") if kind == "all" else (kind,)
            rows = [stats[(t, k)] for t in range(lo, hi + 1) for k in kinds if (t, k) in stats]
            loads = sum(stats[(t, k)][0] for t in range(lo, hi + 1) for k in ("living", "whole") if (t, k) in stats)
            if kind != "all":
                loads = sum(r[0] for r in rows)
            if not loads:
                continue
            ms = 1000 * sum(r[1] for r in rows) / loads
            means[(lo, kind)] = ms
            held = f"{sum(r[3] for r in rows) / loads:>9.0f}" if kind in ("living", "whole") else " " * 9
            print(
                f"{lo:>3}-{hi:<4}  {kind:<6}  {loads:>5}  {ms:>7.2f}  {sum(r[2] for r in rows) / loads:>12.1f}"
                f"  {held}  {size[hi]:>10}"
            )
    early, late = groups[0][0], groups[1][0]
    for kind in ("living", "all"):
        if (early, kind) in means and (late, kind) in means:
            ratio = means[(late, kind)] / means[(early, kind)]
            print(f"{kind}: turns {groups[1][0]}-{groups[1][1]} / turns 1-{w}: {ratio:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    main()
