"""Benchmark: does a long campaign fit the API's import? (issue 14)

Plays ``--turns`` turns of a ``--players``-player campaign with ``simulate`` (Blood Royale by
default: its biggest table is 5 houses, the most rolls and characters of the rulesets), exports it
(``operations.exchange``), prints the export's size as the API sends it (compact JSON) and as
``export_campaign`` writes it (indented), then posts the compact document to ``POST
/api/v1/campaigns/import/`` with Django's test ``Client`` (no network) and times the import.
Target: the indented file well under ``REGNAL_IMPORT_MAX_BYTES`` (50 MB unless set), and the import
answering 201.

    .venv/bin/python bench/import_api.py [--ruleset blood-royale] [--players 5] [--turns 50] [--seed 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def mb(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="blood-royale")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from campaign.models import Campaign
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.models import Character
    from dynasties.services import campaign_create
    from operations.exchange import campaign_export
    from operations.simulation import simulate
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    source = RandomSource(args.seed)
    start = time.perf_counter()
    campaign = campaign_create(name="Import bench", ruleset=args.ruleset, players=args.players, source=source)
    campaign = simulate(campaign, turns=args.turns, source=source, by=SYSTEM_ACTOR)
    people = Character.objects.filter(campaign=campaign).count()
    print(
        f"campaign: {args.ruleset}, {args.players} houses, {args.turns} turns, {people} characters "
        f"({time.perf_counter() - start:.0f} s to play)"
    )

    document = campaign_export(campaign)
    compact = json.dumps(document, separators=(",", ":")).encode()
    indented = json.dumps(document, indent=2).encode()
    limit = settings.REGNAL_IMPORT_MAX_BYTES
    print(
        f"export: {len(compact):,} bytes ({mb(len(compact))}) compact, {len(indented):,} bytes "
        f"({mb(len(indented))}) indented; REGNAL_IMPORT_MAX_BYTES {limit:,} ({mb(limit)}); "
        f"Django's DATA_UPLOAD_MAX_MEMORY_SIZE {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,}"
    )

    user = get_user_model().objects.create_user("bench-importer")
    client = Client(HTTP_HOST="localhost")  # one of the development ALLOWED_HOSTS
    client.force_login(user)
    start = time.perf_counter()
    response = client.post("/api/v1/campaigns/import/", compact, content_type="application/json")
    took = time.perf_counter() - start
    assert response.status_code == 201, response.content[:500]
    copy = Campaign.objects.get(slug=response.json()["slug"])
    assert Character.objects.filter(campaign=copy).count() == people
    print(f"import through the API: {response.status_code} in {took:.1f} s")


if __name__ == "__main__":
    main()
