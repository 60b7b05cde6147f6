"""Benchmark: what the undo's plans cost the GM's reads and a step's answer (issue 36).

Grows one 5-house Blood Royale campaign with the automatic player (dice seed 7, its default house
size) to each of ``--sizes`` turns (20 and 200 by default), then, at the start of the next turn, the
GM plays through the API (his session, Django's test ``Client``: no network) the births (all rolled,
closed) and Survival's rolls: the turn's change sets are what an undo of the turn would take back.
Then, ``--repeat`` times each, alternated (the same moment, the same load), with the undo's plans
built as before issue 36 (``campaign.undo.undo_plans``, the losses counted, on every read and in
every step's answer) and with the offers only (``undo_offers``: the checkpoints' labels):

- the GM's turn page (``GET /c/<slug>/turn/``);
- the API's turn (``GET .../turn/``);
- ``POST .../survival/finish/`` (its answer carries the turn), each in a transaction rolled back.

Prints each one's p50 (ms) and queries in both modes, at each size. The "plans" mode is the old
read, reproduced: the plans built and dropped, then the offers (3 small queries more than before).

    .venv/bin/python bench/undo_reads.py [--sizes 20 200] [--repeat 15]   # SQLite in a temporary file
    scripts/pg-test.sh .venv/bin/python bench/undo_reads.py                # PostgreSQL
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODES = ("plans", "offers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='regnal-bench-')}/bench.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ["DEBUG"] = "0"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    warnings.filterwarnings("ignore", message="No directory at")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from campaign.models import Campaign, Role, Step
    from campaign.permissions import SYSTEM_ACTOR
    from campaign.services import membership_add
    from dynasties.models import Character
    from dynasties.services import campaign_create
    from operations.simulation import play_turn, simulate
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0, interactive=False)
    print(f"database: {connection.vendor}; {args.repeat} of each, the two modes alternated")
    source = RandomSource(args.seed)
    campaign = campaign_create(name="Undo reads", slug=f"undo-reads-{uuid.uuid4().hex[:6]}", players=5, source=source)
    gm = get_user_model().objects.create_user(f"undo-reads-gm-{uuid.uuid4().hex[:6]}")
    membership_add(campaign=campaign, user=gm, role=Role.GM, by=SYSTEM_ACTOR)
    client = Client()
    client.force_login(gm)
    print("turns | characters | request | plans: p50 ms, queries | offers: p50 ms, queries | saved")
    for size in sorted(args.sizes):
        campaign.refresh_from_db()
        campaign = simulate(campaign, turns=max(0, size - (campaign.turn_number - 1)), source=source, by=SYSTEM_ACTOR)
        while Campaign.objects.get(pk=campaign.pk).step != Step.BIRTHS:
            play_turn(Campaign.objects.get(pk=campaign.pk), source, by=SYSTEM_ACTOR)
        api = f"/api/v1/campaigns/{campaign.slug}"
        for action in ("births/roll-all", "births/finish", "survival/rolls"):
            _ok(client.post(f"{api}/{action}/", {}, content_type="application/json"), action)
        people = Character.objects.filter(campaign=campaign).count()
        requests: list[tuple[str, Callable[[], Any], bool]] = [
            ("GET turn page", partial(client.get, f"/c/{campaign.slug}/turn/"), False),
            ("GET turn/", partial(client.get, f"{api}/turn/"), False),
            ("survival/finish", partial(client.post, f"{api}/survival/finish/", {}, content_type="application/json"), True),
        ]
        for name, call, rolled_back in requests:
            got = _measure(call, args.repeat, rolled_back)
            (p_ms, p_q), (o_ms, o_q) = got["plans"], got["offers"]
            row = f"{size:5} | {people:10} | {name:15} | {p_ms:6.1f} ms, {p_q:3} | {o_ms:6.1f} ms, {o_q:3}"
            print(f"{row} | {p_ms - o_ms:5.1f} ms", flush=True)


def _ok(response: Any, what: str) -> Any:
    if response.status_code != 200:
        raise SystemExit(f"{what}: HTTP {response.status_code} {response.content[:300]!r}")
    return response


def _plans_too(mode: str) -> Any:
    """In "plans" mode the doors build the plans before the offers, as they did on every read."""
    from api.views.sequence import turn as api_turn
    from campaign import undo
    from pages import sequence as pages_sequence

    def offers(campaign: Any, *, by: Any) -> Any:
        if mode == "plans":
            undo.undo_plans(campaign, by=by)
        return undo.undo_offers(campaign, by=by)

    setattr(api_turn, "undo_offers", offers)  # noqa: B010  (a module's name replaced for the bench)
    setattr(pages_sequence, "undo_offers", offers)  # noqa: B010


def _measure(call: Callable[[], Any], repeat: int, rolled_back: bool) -> dict[str, tuple[float, int]]:
    """The p50 (ms) and the queries of ``call`` in each mode, the modes alternated."""
    from contextlib import nullcontext

    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    counts: dict[str, list[int]] = {mode: [] for mode in MODES}
    for _ in range(repeat):
        for mode in MODES:
            _plans_too(mode)
            with transaction.atomic() if rolled_back else nullcontext(), CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                _ok(call(), "request")
                times[mode].append((time.perf_counter() - started) * 1000)
                if rolled_back:
                    transaction.set_rollback(True)
            counts[mode].append(len(captured.captured_queries))
    _plans_too("offers")
    return {mode: (statistics.median(times[mode]), int(statistics.median(counts[mode]))) for mode in MODES}


if __name__ == "__main__":
    main()
