"""The automatic player plays the whole law (issue 15): N seeds x T turns of each ruleset, a
5-player campaign with every optional rule on, and how often each part of the ruleset's law
(``operations.simulation.LAW``) was played, summed over the seeds; a part never played is marked.
A run that crashes is reported (seed, turn reached, the error) and the others go on. Target:
every part played at least once over 10 x 40, no crash. Exit status 1 if a part was never
played or a run crashed.

    .venv/bin/python bench/simulate_law.py [--seeds 10] [--turns 40] [--ruleset NAME]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--ruleset", action="append", default=[])
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-law-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/law.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.services import campaign_create
    from operations.simulation import LAW, law_summary, law_table, play_turn, simulated_dynasties
    from rules import RULESET_LABELS, get_ruleset
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    failed = False
    for ruleset in args.ruleset or list(RULESET_LABELS):
        totals = {part.name: 0 for part in LAW[ruleset]}
        start = time.perf_counter()
        for seed in range(1, args.seeds + 1):
            source = RandomSource(seed)
            campaign = campaign_create(
                name=f"{ruleset} {seed}",
                slug=f"{ruleset}-{seed}",
                ruleset=ruleset,
                players=5,
                dynasties=simulated_dynasties(ruleset, 5),
                optional_rules={name: True for name in get_ruleset(ruleset).OPTIONAL_RULES},
                source=source,
            )
            played = 0
            try:
                while played < args.turns:
                    campaign = play_turn(campaign, source, law=True, by=SYSTEM_ACTOR)
                    played += 1
            except Exception as exc:  # reported, and the other seeds go on
                failed = True
                where = traceback.extract_tb(exc.__traceback__)[-1]
                error = f"{type(exc).__name__}: {exc} ({where.filename}:{where.lineno})"
                print(f"CRASH {ruleset} seed {seed} turn {played + 1}: {error}")
            for name, n in law_summary(campaign):
                totals[name] += n
        rows = list(totals.items())
        failed = failed or any(n == 0 for _, n in rows)
        print(f"{ruleset}: {args.seeds} seeds x {args.turns} turns, all optional rules on ({time.perf_counter() - start:.0f} s)")
        print(law_table(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
