"""Benchmark: the succession view on a dynasty of ~2,000 characters, on a fresh SQLite database.

Builds (with one bulk_create) a deep random family tree under one crown - a founder, every couple
0-5 children, every blood child married to an outsider - with the monarch a living man of the
blood and his forebears the past holders. Then times, median of ``--runs`` runs each:

* ``succession_line`` (the first 10 heirs with reasons, ages, pass-over costs, and the total);
* ``succession_what_if`` with the monarch dying (successor, default regent) and with the heir dying;
* the pure ``explain_line`` on the same people, and the ``World`` load it all starts with;

printing milliseconds and the number of queries. Target: well under 100 ms.

    .venv/bin/python bench/succession_view.py [--size 2000] [--runs 20] [--seed 7]
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CROWN = "Benchland"
HOUSE = "Benchhouse"
GENERATION = 25
ALIVE_SPAN = 55  # people born in the last 55 years are alive


def build_tree(size: int, seed: int, year: int) -> list[dict[str, Any]]:
    """Rows for Character (temporary ids 0..n-1, parents before children): the founder's descendants
    and their spouses, ``size`` in all, the youngest generation born shortly before ``year``."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = [{"id": 0, "sex": "M", "born": 0, "father": None, "mother": None, "blood": True}]
    generation = [0]
    while len(rows) < size and generation:
        new: list[int] = []
        for parent in generation:
            if len(rows) >= size:
                break
            p = rows[parent]
            spouse = len(rows)
            rows.append(
                {
                    "id": spouse,
                    "sex": "F" if p["sex"] == "M" else "M",
                    "born": p["born"] + rng.randint(-5, 5),
                    "father": None,
                    "mother": None,
                    "blood": False,
                }
            )
            father, mother = (parent, spouse) if p["sex"] == "M" else (spouse, parent)
            for k in range(rng.choice((0, 1, 2, 2, 3, 3, 4, 5))):
                if len(rows) >= size:
                    break
                kid = len(rows)
                rows.append(
                    {
                        "id": kid,
                        "sex": rng.choice("MF"),
                        "born": p["born"] + GENERATION + 2 * k,
                        "father": father,
                        "mother": mother,
                        "blood": True,
                    }
                )
                new.append(kid)
        generation = new
    shift = year - 5 - max(r["born"] for r in rows)
    for r in rows:
        r["born"] += shift
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="print a profile of succession_line")
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
    from django.db.models import Max
    from django.test.utils import CaptureQueriesContext

    from dynasties.models import Character, Dynasty, Origin, Reign, Status
    from dynasties.services import campaign_create
    from dynasties.services.common import World
    from dynasties.services.succession_view import _LeanWorld, succession_line, succession_what_if
    from rules.dice import RandomSource
    from rules.explain import explain_line
    from rules.succession import FamilyIndex

    call_command("migrate", verbosity=0)

    with transaction.atomic():
        campaign = campaign_create(name="Bench succession", players=3, source=RandomSource(args.seed))
        year = campaign.current_year
        house = Dynasty.objects.create(campaign=campaign, name=HOUSE, crown=CROWN, seat=9)
        rows = build_tree(args.size, args.seed, year)
        base = (Character.objects.aggregate(m=Max("pk"))["m"] or 0) + 1

        # the monarch: the eldest living man of the blood with children; his blood forebears reigned
        alive = {r["id"] for r in rows if r["born"] >= year - ALIVE_SPAN}
        parents = {r["father"] for r in rows} | {r["mother"] for r in rows}
        monarch = min(
            (r for r in rows if r["blood"] and r["sex"] == "M" and r["id"] in alive and r["id"] in parents),
            key=lambda r: (r["born"], r["id"]),
        )
        chain = [monarch["id"]]
        while chain[-1] != 0:
            r = rows[chain[-1]]
            chain.append(r["father"] if r["father"] is not None and rows[r["father"]]["blood"] else r["mother"])
        chain.reverse()  # founder ... monarch
        starts = {pid: rows[pid]["born"] + 20 for pid in chain}
        deaths = {pid: starts[nxt] for pid, nxt in itertools.pairwise(chain)}

        characters = []
        for r in rows:
            dead = r["id"] not in alive and r["id"] != monarch["id"]
            death = deaths.get(r["id"], min(r["born"] + 50, year - 1)) if dead else None
            characters.append(
                Character(
                    id=base + r["id"],
                    campaign=campaign,
                    given_name=f"{'Hal' if r['sex'] == 'M' else 'Bess'}{r['id']}",
                    sex=r["sex"],
                    birth_year=r["born"],
                    father_id=None if r["father"] is None else base + r["father"],
                    mother_id=None if r["mother"] is None else base + r["mother"],
                    dynastic_name=HOUSE if r["blood"] else "Outsider",
                    birth_dynasty=house if r["blood"] else None,
                    controlled_by=house,
                    characteristics={},
                    origin=Origin.CREATED,
                    status=Status.DEAD if dead else Status.ALIVE,
                    death_year=death,
                )
            )
        Character.objects.bulk_create(characters, batch_size=500)
        Reign.objects.bulk_create(
            Reign(campaign=campaign, crown=CROWN, holder_id=base + pid, start_year=starts[pid], end_year=deaths.get(pid))
            for pid in chain
        )
    monarch_pk = base + monarch["id"]

    def measure(fn: Callable[[], object]) -> tuple[float, int, object]:
        times: list[float] = []
        result: object = None
        queries = 0
        for i in range(args.runs):
            if i == 0:
                with CaptureQueriesContext(connection) as ctx:
                    start = time.perf_counter()
                    result = fn()
                    times.append(time.perf_counter() - start)
                queries = len(ctx.captured_queries)
            else:
                start = time.perf_counter()
                result = fn()
                times.append(time.perf_counter() - start)
        return 1000 * statistics.median(times), queries, result

    world = World(campaign)
    people = world.people
    names = {pk: c.display_name for pk, c in world.characters.items()}
    royal = world.past_holders(CROWN)

    line_ms, line_q, line = measure(lambda: succession_line(campaign=campaign, crown=CROWN))
    heir = line.entries[0].character.pk  # type: ignore[attr-defined]
    dies_ms, dies_q, dies = measure(lambda: succession_what_if(campaign=campaign, crown=CROWN, dies=[monarch_pk]))
    heir_ms, heir_q, _ = measure(lambda: succession_what_if(campaign=campaign, crown=CROWN, dies=[heir]))
    all_ms, all_q, full = measure(lambda: succession_line(campaign=campaign, crown=CROWN, limit=None))
    lean_ms, lean_q, _ = measure(lambda: _LeanWorld(campaign).people)
    world_ms, world_q, _ = measure(lambda: World(campaign).people)
    pure_ms, _, _ = measure(lambda: explain_line(people, monarch_pk, names=names, royal=royal))
    index_ms, _, _ = measure(lambda: FamilyIndex(people))

    blood = sum(1 for r in rows if r["blood"])
    total = Character.objects.filter(campaign=campaign).count()
    print(
        f"succession view: {len(rows)} characters in the house of {HOUSE} ({blood} of the blood, "
        f"{len(alive)} alive), {total} in the campaign; {len(chain)} reigns; median of {args.runs} runs"
    )
    print(f"line: {line.total} heirs in all; heir: {line.entries[0].reason}")  # type: ignore[attr-defined]
    print(f"  tenth: {line.entries[-1].reason}")  # type: ignore[attr-defined]
    print(f"what-if the King dies: {' '.join(dies.notes)}")  # type: ignore[attr-defined]
    print(f"{'call':<46} {'ms':>8} {'queries':>8}")
    for label, ms, q in (
        ("succession_line (first 10 + total)", line_ms, line_q),
        ("succession_what_if (the King dies)", dies_ms, dies_q),
        ("succession_what_if (the heir dies)", heir_ms, heir_q),
        (f"succession_line (all {full.total}, limit=None)", all_ms, all_q),  # type: ignore[attr-defined]
        ("  of which loading the campaign (rows)", lean_ms, lean_q),
        ("  (a full World of model instances, for scale)", world_ms, world_q),
        ("  explain_line alone (pure, index included)", pure_ms, 0),
        ("  FamilyIndex alone", index_ms, 0),
    ):
        print(f"{label:<46} {ms:>8.1f} {q:>8}")
    print("target: well under 100 ms")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.runs):
            succession_line(campaign=campaign, crown=CROWN)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
