"""Benchmark: undo by change sets as the campaign grows (what a step action pays, what an undo costs).

Plays a 5-player Blood Royale campaign with ``simulate`` (its default house size: about 20 living
members a house, some 10 characters more a turn) up to each of ``--turns`` (20, 50, 100 and 200 by
default), then measures:

- the checkpoint overhead per action: the first action of a step (``step_action``: the checkpoint,
  the recording flag, the triggers logging every row the action writes) against the same action in
  a bare transaction, both rolled back (the Births step: every house's children rolled);
- the rows the step logged (``campaign.changelog``);
- an undo of that step (``undo_step``: every logged row put back, the audit trail marked);
- the same for an action that writes one row (a character's name): the fixed cost of a step
  action and of an undo, whatever the campaign's size.

Target (issue 18): overhead <= 10 ms per action and undo <= 100 ms, flat from 20 to 200 turns.

    make bench        # or: .venv/bin/python bench/undo.py [--turns 20 50 100 200] [--seed 7] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, nargs="+", default=[20, 50, 100, 200])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from campaign.models import Campaign, Roll, Step
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.models import Character
    from dynasties.services import campaign_create
    from operations.simulation import play_births, play_turn, simulate
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    source = RandomSource(args.seed)
    campaign = campaign_create(name="Bench", players=5, source=source)
    played = 0
    print("turns | characters | rolls | action | bare | as a step | overhead | rows logged | undo")
    for turns in sorted(args.turns):
        campaign = simulate(campaign, turns=turns - played, source=source, by=SYSTEM_ACTOR)
        played = turns
        while Campaign.objects.get(pk=campaign.pk).step != Step.BIRTHS:  # a turn's start: the Births step to time
            play_turn(Campaign.objects.get(pk=campaign.pk), source, by=SYSTEM_ACTOR)

        def births(c: Campaign) -> None:
            play_births(c, RandomSource(args.seed), by=SYSTEM_ACTOR)

        def rename(c: Campaign) -> None:
            Character.objects.filter(pk=Character.objects.filter(campaign=c).order_by("pk")[:1]).update(given_name="Bench")

        people = Character.objects.filter(campaign=campaign).count()
        rolls = Roll.objects.filter(campaign=campaign).count()
        for name, action in (("one row", rename), ("Births", births)):
            timings = _measure(campaign.pk, action, args.repeat)
            print(f"{turns:5} | {people:10} | {rolls:5} | {name:7} | {timings}")


def _measure(pk: int, action: Callable[[Any], None], repeat: int) -> str:
    """The action bare and as a step action (median of ``repeat``, each rolled back), then undone."""
    from django.db import transaction

    from campaign.models import Campaign, UndoChange
    from campaign.permissions import SYSTEM_ACTOR
    from campaign.undo import new_action_key, step_action, undo_step

    bare, stepped = [], []
    for _ in range(repeat):  # alternated, each rolled back: the same campaign every time
        with transaction.atomic():
            start = time.perf_counter()
            action(Campaign.objects.select_for_update().get(pk=pk))
            bare.append(time.perf_counter() - start)
            transaction.set_rollback(True)
        with transaction.atomic():
            start = time.perf_counter()
            step_action(campaign=pk, key=new_action_key(), label="bench", action=action, by=SYSTEM_ACTOR)
            stepped.append(time.perf_counter() - start)
            transaction.set_rollback(True)
    step_action(campaign=pk, key=new_action_key(), label="bench", action=action, by=SYSTEM_ACTOR)
    logged = UndoChange.objects.filter(checkpoint__campaign=pk).count()
    start = time.perf_counter()
    undo_step(campaign=pk, key=new_action_key(), by=SYSTEM_ACTOR)
    undone = time.perf_counter() - start
    b, s = statistics.median(bare) * 1000, statistics.median(stepped) * 1000
    return f"{b:6.0f} ms | {s:6.0f} ms | {s - b:5.0f} ms | {logged:11} | {undone * 1000:.0f} ms"


if __name__ == "__main__":
    main()
