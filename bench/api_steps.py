"""Benchmark: the GM's step actions through the API as a campaign grows, on PostgreSQL.

Grows one 5-house Blood Royale campaign with the automatic player (``operations.simulation.simulate``,
dice seed 7, its default house size) to each size in turn (turns played; 20, 50, 100 and 200 by
default), runs ANALYZE (as autovacuum would on a live site), then plays ``--turns`` more turns
through the API as the GM does (his API token, Django's test ``Client``: no
network): roll all the births, close them, roll survival, close it, close Marriages, publish the
Announcements, start the next turn; in every turn whose births were rolled, an undo of the step
(``{"which": "step"}``) and the births rolled again. Each request is timed; the script prints p50
and p95 per size and per kind of action, how the 200-turn campaign compares with the 20-turn one,
and what the campaign takes at each size: its characters, its export's size and the database's
growth since it was empty.

Target (issue 18): p50 at most 100 ms for every action at every size, and the largest campaign's
p50 within 1.3 times the smallest's.

    scripts/pg-test.sh .venv/bin/python bench/api_steps.py [--sizes 20 50 100 200] [--turns 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
import warnings
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import percentile  # noqa: E402  (after the path is set)

TARGET_P50_MS = 100.0
TARGET_GROWTH = 1.3
ACTIONS = (
    "births/roll-all",
    "births/finish",
    "survival/rolls",
    "survival/finish",
    "marriages/finish",
    "announcements/publish",
    "turn/advance",
    "undo",
    "GET turn/",
    "GET turn page",
)
"""The GM's actions, then his reads: the API's turn (read before every action) and the turn page."""

Samples = Mapping[str, Sequence[float]]


def summary(times: Sequence[float]) -> tuple[int, float, float]:
    """Count, p50 and p95 (ms, nearest rank) of some response times; zeros when there are none."""
    if not times:
        return 0, 0.0, 0.0
    return len(times), percentile(list(times), 50), percentile(list(times), 95)


def table(results: Mapping[int, Samples]) -> list[str]:
    """One line per kind of action, p50 and p95 of each size in columns, then the p50 growth of the
    largest size over the smallest and whether every p50 is under the target."""
    sizes = sorted(results)
    kinds = [k for k in ACTIONS if any(results[s].get(k) for s in sizes)]
    kinds += sorted({k for s in sizes for k in results[s]} - set(kinds))
    width = max([len(k) for k in kinds] + [6])
    head = f"{'action':<{width}}" + "".join(f"  {f'{s} turns p50/p95 ms':>22}" for s in sizes)
    if len(sizes) > 1:
        head += f"  {f'{sizes[-1]}/{sizes[0]}':>8}"
    lines = [head]
    for kind in kinds:
        row = f"{kind:<{width}}"
        p50s = []
        for size in sizes:
            count, p50, p95 = summary(results[size].get(kind, ()))
            p50s.append(p50 if count else None)
            row += f"  {f'{p50:.0f} / {p95:.0f} (n={count})' if count else '-':>22}"
        if len(sizes) > 1:
            first, last = p50s[0], p50s[-1]
            row += f"  {f'{last / first:.2f}x' if first and last else '-':>8}"
        lines.append(row)
    return lines


def verdict(results: Mapping[int, Samples]) -> list[str]:
    """What misses the target (issue 18): a p50 over 100 ms, a largest-size p50 over 1.3x the smallest."""
    sizes = sorted(results)
    misses = []
    for size in sizes:
        for kind, times in results[size].items():
            _, p50, _ = summary(times)
            if times and p50 > TARGET_P50_MS:
                misses.append(f"{kind} at {size} turns: p50 {p50:.0f} ms > {TARGET_P50_MS:.0f} ms")
    if len(sizes) > 1:
        small, large = results[sizes[0]], results[sizes[-1]]
        for kind in sorted(set(small) & set(large)):
            (_, first, _), (_, last, _) = summary(small[kind]), summary(large[kind])
            if first and last > TARGET_GROWTH * first:
                misses.append(f"{kind}: p50 {last:.0f} ms at {sizes[-1]} turns > {TARGET_GROWTH}x {first:.0f} ms at {sizes[0]}")
    return misses


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 100, 200], help="turns played before timing")
    parser.add_argument("--turns", type=int, default=5, help="turns played through the API at each size (default 5)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--law", action="store_true", help="the automatic player plays the whole law too (simulate's law=True)")
    parser.add_argument(
        "--house-size",
        type=int,
        default=None,
        help="living members a house grows to (default: the automatic player's); a size the smallest campaign "
        "already has (6) keeps the table the same at every size, so that only the campaign's history grows",
    )
    args = parser.parse_args(argv)
    if any(not 1 <= s <= 400 for s in args.sizes):
        parser.error("--sizes: 1 to 400 turns each.")
    if not 1 <= args.turns <= 50:
        parser.error("--turns: 1 to 50.")
    return args


def setup() -> None:
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ["DEBUG"] = "0"  # no query log: as in production
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    warnings.filterwarnings("ignore", message="No directory at")  # WhiteNoise: no collectstatic for a bench
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def database_bytes() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database())")
        return int(cursor.fetchone()[0])


def create(seed: int, gm: Any) -> tuple[Any, Any]:
    """The 5-house campaign the bench grows, ``gm`` its GM, and its dice."""
    from campaign.models import Role
    from campaign.permissions import SYSTEM_ACTOR
    from campaign.services import membership_add
    from dynasties.services import campaign_create
    from rules.dice import RandomSource

    source = RandomSource(seed)
    campaign = campaign_create(name="Steps bench", slug=f"steps-{uuid.uuid4().hex[:6]}", players=5, source=source)
    membership_add(campaign=campaign, user=gm, role=Role.GM, by=SYSTEM_ACTOR)
    return campaign, source


def grow(
    campaign: Any, source: Any, size: int, empty: int, law: bool = False, house_size: int | None = None
) -> tuple[Any, dict[str, Any]]:
    """The campaign simulated on to ``size`` turns played (those played through the API count), its
    houses kept to ``house_size`` living (the automatic player's default if None); what it takes then
    (``empty``: the database's size before the campaign)."""
    from django.db import connection

    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.models import Character, Status
    from operations.exchange.export import campaign_export
    from operations.simulation import HOUSE_SIZE, simulate

    campaign.refresh_from_db()
    started = time.perf_counter()
    turns = max(0, size - (campaign.turn_number - 1))
    campaign = simulate(campaign, turns=turns, source=source, law=law, house_size=house_size or HOUSE_SIZE, by=SYSTEM_ACTOR)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # the planner's statistics, as autovacuum keeps them on a live site
    built = time.perf_counter() - started
    export = json.dumps(campaign_export(campaign), separators=(",", ":")).encode()
    return campaign, {
        "seconds": built,
        "people": Character.objects.filter(campaign=campaign).count(),
        "living": Character.objects.filter(campaign=campaign, status=Status.ALIVE).count(),
        "export_bytes": len(export),
        "database_bytes": database_bytes() - empty,
    }


def timed(call: Any, kind: str, times: dict[str, list[float]], queries: dict[str, list[int]]) -> Any:
    """``call()`` timed (ms, into ``times[kind]``) and its queries counted (into ``queries[kind]``)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        started = time.perf_counter()
        response = call()
        elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise SystemExit(f"{kind}: HTTP {response.status_code} {response.content[:300]!r}")
    times.setdefault(kind, []).append(elapsed)
    queries.setdefault(kind, []).append(len(captured.captured_queries))
    return response


def play(
    client: Any, slug: str, turns: int, page: Any = None, queries: dict[str, list[int]] | None = None
) -> dict[str, list[float]]:
    """``turns`` turns through the API, each action timed (ms); an undo in each turn that rolls births.
    The API's turn read before each action is timed too, and the GM's turn page (``page``: a client
    logged in as him) read after it; ``queries`` gets the queries of each request."""
    from django.urls import reverse

    api = f"/api/v1/campaigns/{slug}"
    times: dict[str, list[float]] = {}
    queries = {} if queries is None else queries
    undone: set[int] = set()
    played = actions = 0
    while played < turns:
        actions += 1
        turn = timed(partial(client.get, f"{api}/turn/"), "GET turn/", times, queries).json()
        if page is not None:
            timed(partial(page.get, reverse("pages:turn", args=[slug])), "GET turn page", times, queries)
        if actions > 40 * turns:
            raise SystemExit(f"{slug}: {actions} actions without finishing {turns} turns; stuck at {turn}")
        step, number = turn["step"], turn["turn_number"]
        body: dict[str, Any] = {}
        if step == "births":
            if turn["to_roll"]:
                action = "births/roll-all"
            elif number not in undone and times.get("births/roll-all"):
                undone.add(number)  # the births just rolled: undo the step, roll them again
                action, body = "undo", {"which": "step"}
            else:
                action = "births/finish"
        elif step == "survival":
            action = "survival/rolls" if turn["to_roll"] else "survival/finish"
        elif step == "marriages":
            action = "marriages/finish"
        elif step == "announcements":
            action = "announcements/publish"
        else:
            action = "turn/advance"
            played += 1
        key = uuid.uuid4().hex
        post = partial(client.post, f"{api}/{action}/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)
        timed(post, action, times, queries)
    return times


def query_lines(counts: Mapping[int, Mapping[str, Sequence[int]]]) -> list[str]:
    """One line per kind: the median queries of a request at each size."""
    sizes = sorted(counts)
    kinds = [k for k in ACTIONS if any(counts[s].get(k) for s in sizes)]
    width = max([len(k) for k in kinds] + [6])
    lines = [f"{'queries':<{width}}" + "".join(f"  {f'{s} turns median':>16}" for s in sizes)]
    for kind in kinds:
        row = f"{kind:<{width}}"
        for size in sizes:
            got = sorted(counts[size].get(kind, ()))
            row += f"  {got[len(got) // 2] if got else '-':>16}"
        lines.append(row)
    return lines


def main() -> int:
    args = parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        print("Run it on PostgreSQL: scripts/pg-test.sh .venv/bin/python bench/api_steps.py", file=sys.stderr)
        return 2
    setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from api.services import token_create

    gm = get_user_model().objects.create_user(f"steps-gm-{uuid.uuid4().hex[:6]}")
    _, key = token_create(user=gm, name="api steps bench")
    client = Client(HTTP_AUTHORIZATION=f"Token {key}")
    page = Client()
    page.force_login(gm)
    results: dict[int, dict[str, list[float]]] = {}
    counts: dict[int, dict[str, list[int]]] = {}
    empty = database_bytes()
    campaign, source = create(args.seed, gm)
    for size in sorted(set(args.sizes)):
        campaign, took = grow(campaign, source, size, empty, law=args.law, house_size=args.house_size)
        print(
            f"{size} turns: grown in {took['seconds']:.0f} s, {took['people']} characters ({took['living']} living), "
            f"export {took['export_bytes'] / 1024:.0f} KiB, database +{took['database_bytes'] / 1024 / 1024:.1f} MiB",
            flush=True,
        )
        play(client, campaign.slug, 1, page)  # warm up: the first request of a size loads what it caches
        counts[size] = {}
        results[size] = play(client, campaign.slug, args.turns, page, counts[size])
        for line in table({size: results[size]}):  # as it goes: the largest sizes take long to build
            print(line, flush=True)
    print()
    for line in table(results):
        print(line)
    print()
    for line in query_lines(counts):
        print(line)
    misses = verdict(results)
    print()
    for miss in misses:
        print(f"MISSES: {miss}")
    if not misses:
        print(f"MEETS the target: every p50 <= {TARGET_P50_MS:.0f} ms, the largest size within {TARGET_GROWTH}x the smallest.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
