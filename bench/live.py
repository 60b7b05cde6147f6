"""Benchmark: what the live table costs the server - the poll every open page makes every 700 ms
(``/c/<slug>/live/?v=n``: 204 while nothing moved) and the page each open page asks again when
the campaign moved on (the dashboard, Survival, the table screen).

A 5-house Blood Royale campaign with a few turns of prehistory, served in one process through the
whole middleware (session login, CSP, ...) with Django's test ``Client`` (no network), on SQLite
(or on PostgreSQL: ``scripts/pg-test.sh .venv/bin/python bench/live.py``). Prints milliseconds and
CPU milliseconds per request, and what they come to at 1,000 open tables of 10 devices each
(docs/architecture.md, "A live table").

The poll is timed three ways (``campaign/live.py``, REGNAL_LIVE_CACHE): from the database (no live
cache, database sessions: the poll before issue 36), from the database cache (the production
settings' default without Redis: sessions ``cached_db``) and from a memory cache (one process; a
Redis cache answers the same gets over a socket), against a bare view answering 204 through the
same middleware with the same session cookie (its anchor: issue 36 asks at most 1.5x of it).

    .venv/bin/python bench/live.py [--requests 500] [--turns 4]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TABLES, DEVICES, PERIOD_S = 1_000, 10, 0.7
WRITES_EVERY_S = 10  # a busy game night: one write per table every 10 seconds


def timed(client, address: str, count: int, status: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall ms, CPU ms of this process) per request, over ``count`` requests."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        answer = client.get(address)
        assert answer.status_code == status, (address, answer.status_code)
    return (time.perf_counter() - wall) * 1000 / count, (time.process_time() - cpu) * 1000 / count


def bare(request):  # type: ignore[no-untyped-def]
    """The anchor: the whole middleware, nothing else (the session not even read)."""
    from django.http import HttpResponse

    return HttpResponse(status=204)


def time_polls(args: argparse.Namespace, player, poll: str) -> float:  # type: ignore[no-untyped-def]
    """Times the bare 204 and the poll each way; returns the poll's CPU ms from the memory cache."""
    import types

    from django.core.cache import caches
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings
    from django.urls import include, path

    urls = types.ModuleType("bench_live_urls")
    urls.urlpatterns = [path("bare/", bare), path("", include("config.urls"))]  # type: ignore[attr-defined]
    caches_ = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "bench"},
        "db": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "regnal_cache"},
    }
    ways = [
        ("database (before)", "", "django.contrib.sessions.backends.db", "default"),
        ("database cache", "db", "django.contrib.sessions.backends.cached_db", "db"),
        ("memory cache", "default", "django.contrib.sessions.backends.cached_db", "default"),
    ]
    figures: dict[str, float] = {}
    for name, live_alias, engine, session_alias in ways:
        with override_settings(
            ROOT_URLCONF=urls,
            CACHES=caches_,
            REGNAL_LIVE_CACHE=live_alias,
            SESSION_ENGINE=engine,
            SESSION_CACHE_ALIAS=session_alias,
        ):
            for alias in caches_:
                caches[alias].clear()
            client = Client()
            client.force_login(player)
            timed(client, poll, 50, 204)  # warm up (and the caches)
            timed(client, "/bare/", 50, 204)
            with CaptureQueriesContext(connection) as queries:
                client.get(poll)
            count = len(queries)
            # interleaved rounds, the quickest of each kept: the machine is shared, its load comes and goes
            rounds = [
                (timed(client, "/bare/", args.requests // 5, 204), timed(client, poll, args.requests // 5, 204)) for _ in range(5)
            ]
            bare_ms, bare_cpu = min((r[0] for r in rounds), key=lambda f: f[1])
            poll_ms, poll_cpu = min((r[1] for r in rounds), key=lambda f: f[1])
            figures[name] = poll_cpu
            print(
                f"poll (204) from the {name}: {poll_ms:.2f} ms, {poll_cpu:.3f} ms CPU a request, {count} queries; "
                f"bare 204: {bare_ms:.2f} ms, {bare_cpu:.3f} ms CPU; the poll is {poll_cpu / bare_cpu:.2f}x the bare 204"
            )
            cores = TABLES * DEVICES / PERIOD_S * poll_cpu / 1000
            tables = 8 * 1000 / poll_cpu * PERIOD_S / DEVICES
            print(
                f"  at {TABLES:,} tables x {DEVICES} devices every {PERIOD_S} s: {cores:.1f} CPU cores of polls; "
                f"one 8-core server: {tables:,.0f} tables of {DEVICES} devices (polls alone)"
            )
    return figures["memory cache"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=500, help="polls timed (pages: a tenth of it)")
    parser.add_argument("--turns", type=int, default=4, help="turns of prehistory")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    try:
        run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(args: argparse.Namespace, tmp: str) -> None:
    from bench.django_setup import setup_for_requests

    setup_for_requests(tmp, keep_database=True)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from campaign import live
    from operations.services import campaign_start

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    gm, player = users.create_user("bench-gm"), users.create_user("bench-player")
    campaign = campaign_start(name="Live bench", gm=gm, players=5, seats={"England": player}, prehistory_turns=args.turns, seed=1)
    client = Client()
    client.force_login(player)
    version = live.viewer_version(player, campaign)  # his count: the writes he may see
    base = f"/c/{campaign.slug}"
    poll = f"{base}/live/?v={version}"
    pages = {"dashboard": f"{base}/", "Survival": f"{base}/turn/survival/", "table screen": f"{base}/table/"}
    print(f"{connection.vendor}; {campaign.name}: {args.turns} turns of prehistory, a player's session")
    poll_cpu = time_polls(args, player, poll)
    page_cpu = 0.0
    for name, address in pages.items():
        timed(client, address, 3, 200)
        ms, cpu = timed(client, address, max(5, args.requests // 10), 200)
        page_cpu = max(page_cpu, cpu)
        print(f"{name} (200): {ms:.1f} ms, {cpu:.1f} ms CPU a request")
    polls = TABLES * DEVICES / PERIOD_S
    renders = TABLES * DEVICES / WRITES_EVERY_S
    print(
        f"at {TABLES:,} tables x {DEVICES} devices: {polls:,.0f} polls/s = {polls * poll_cpu / 1000:.0f} CPU cores; "
        f"a write every {WRITES_EVERY_S} s at each table: {renders:,.0f} pages/s = {renders * page_cpu / 1000:.0f} CPU cores "
        "(the heaviest page for every device)"
    )


if __name__ == "__main__":
    main()
