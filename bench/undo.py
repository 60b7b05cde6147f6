"""Benchmark: the undo checkpoint of a long campaign (taking it, its size, restoring it).

Plays ``--turns`` turns of a 5-player Blood Royale campaign with ``simulate``, then times taking a
checkpoint of the whole campaign (what the first action of every step played through the pages
pays), its compressed size, and an undo (delete every row, write them back with their keys).
Target: both well under a second for a 40-turn campaign, so an action on game night stays quick.

    make bench        # or: .venv/bin/python bench/undo.py [--turns 40] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from campaign.models import Campaign, Checkpoint, Roll
    from campaign.undo import checkpoint_take, new_action_key, undo_step
    from dynasties.models import Character
    from dynasties.services import campaign_create
    from operations.simulation import simulate
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    source = RandomSource(args.seed)
    campaign = simulate(campaign_create(name="Bench", players=5, source=source), turns=args.turns, source=source)
    people = Character.objects.filter(campaign=campaign).count()
    rolls = Roll.objects.filter(campaign=campaign).count()
    print(f"campaign: {args.turns} turns, {people} characters, {rolls} rolls")

    start = time.perf_counter()
    point = checkpoint_take(Campaign.objects.get(pk=campaign.pk), label="bench")
    took = time.perf_counter() - start
    assert point is not None
    size = len(Checkpoint.objects.get(pk=point.pk).data)
    print(f"checkpoint: {took * 1000:.0f} ms, {size / 1024:.0f} KiB compressed")

    start = time.perf_counter()
    undo_step(campaign=campaign.pk, key=new_action_key())
    print(f"undo (restore every row): {(time.perf_counter() - start) * 1000:.0f} ms")
    assert Character.objects.filter(campaign=campaign).count() == people


if __name__ == "__main__":
    main()
