"""Benchmark: the dashboard and ``succession_view.heirs_now`` as the campaign's history grows.

Starts two 5-player Blood Royale campaigns as the creation page does (``campaign_start``: a GM
and a player), plays one ``--short`` turns (20) and one ``--long`` (200) with ``simulate`` (the
automatic player, the same seed), then times, median of ``--runs`` runs each:

* ``heirs_now`` (every crown's heir, as the dashboard, the live table and a character's status
  line ask for it);
* the dashboard as the GM sees it (Django's test ``Client``: the whole middleware, DEBUG off),

printing milliseconds (wall and CPU of the process) and the queries made. Target (issue 36): the
long campaign within 1.2x of the short, for both, and the queries the same.

``--keep FILE`` keeps the SQLite database built (the 220 simulated turns take minutes) and uses it
again when it exists; ``--dump FILE`` writes what was measured (every crown's heir with its reason,
and the dashboard's HTML with the CSRF token and CSP nonce blanked) for comparing two versions of
the code byte for byte.

    .venv/bin/python bench/dashboard.py [--short 20] [--long 200] [--runs 20] [--keep /tmp/dash.sqlite3] [--dump out.txt]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEED = 7


def _blank(html: str) -> str:
    """The dashboard without what changes from one request to the next (the CSRF token, the nonce)."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', 'name="csrfmiddlewaretoken" value=""', html)
    html = re.sub(r'nonce="[^"]*"', 'nonce=""', html)
    return re.sub(r'("csrfToken"|X-CSRFToken"?)\s*:\s*"[^"]*"', r'\1: ""', html)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", type=int, default=20)
    parser.add_argument("--long", type=int, default=200)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--keep", help="SQLite file to keep the campaigns in (built when missing)")
    parser.add_argument("--dump", help="write the heirs and the dashboards' HTML here")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    try:
        if args.keep:
            os.environ["DATABASE_URL"] = f"sqlite:///{Path(args.keep).resolve()}"
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
    from django.test.utils import CaptureQueriesContext

    from campaign.models import Campaign
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.models import Character
    from dynasties.services.succession_view import heirs_now
    from operations.services import campaign_start
    from operations.simulation import simulate
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    gm = users.filter(username="bench-gm").first() or users.create_user("bench-gm")
    campaigns: dict[int, Campaign] = {}
    for turns in (args.short, args.long):
        name = f"Dashboard bench {turns}"
        found = Campaign.objects.filter(name=name).first()
        if found is None:
            start = time.perf_counter()
            player = users.create_user(f"bench-player-{turns}")
            found = campaign_start(name=name, gm=gm, players=5, seats={"England": player})
            found = simulate(found, turns=turns, source=RandomSource(SEED), by=SYSTEM_ACTOR)
            print(f"built {name}: {time.perf_counter() - start:.0f} s", flush=True)
        campaigns[turns] = found
    client = Client()
    client.force_login(gm)

    def measure(fn: Callable[[], Any]) -> tuple[float, float, int, Any]:
        walls: list[float] = []
        cpus: list[float] = []
        with CaptureQueriesContext(connection) as ctx:
            result = fn()
        queries = len(ctx.captured_queries)
        for _ in range(args.runs):
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        return 1000 * statistics.median(walls), 1000 * statistics.median(cpus), queries, result

    rows: list[tuple[str, float, float, int]] = []
    dump: list[str] = []
    for turns, campaign in campaigns.items():
        total = Character.objects.filter(campaign=campaign).count()
        alive = Character.objects.filter(campaign=campaign, status="alive").count()
        print(f"{campaign.name}: year {campaign.current_year}, {total} characters ({alive} alive)")

        def heirs(c: Campaign = campaign) -> dict[str, Any]:
            return heirs_now(campaign=c)

        ms, cpu, q, found = measure(heirs)
        rows.append((f"heirs_now, {turns} turns", ms, cpu, q))
        page = f"/c/{campaign.slug}/"

        def dashboard(address: str = page) -> str:
            response = client.get(address)
            assert response.status_code == 200, response.status_code
            return response.content.decode()

        ms, cpu, q, html = measure(dashboard)
        rows.append((f"dashboard (the GM's), {turns} turns", ms, cpu, q))
        dump.append(f"== {campaign.name}")
        for crown, e in found.items():
            shown = "-" if e is None else f"#{e.character.pk} {e.position} {e.age} {e.minor} {e.kin!r} {e.reason!r} {e.level}"
            dump.append(f"{crown}: {shown}")  # (the heir's label is in the page's Heir cell)
        dump.append(_blank(html))
    print(f"{connection.vendor}; median of {args.runs} runs")
    print(f"{'call':<40} {'ms':>8} {'CPU ms':>8} {'queries':>8}")
    for label, ms, cpu, q in rows:
        print(f"{label:<40} {ms:>8.1f} {cpu:>8.1f} {q:>8}")
    for what in ("heirs_now", "dashboard"):
        short, long_ = (r for r in rows if r[0].startswith(what))
        print(f"{what}: {long_[2] / short[2]:.2f}x the CPU from {args.short} to {args.long} turns (target 1.2x)")
    if args.dump:
        Path(args.dump).write_text("\n".join(dump))


if __name__ == "__main__":
    main()
