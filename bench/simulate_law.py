"""The automatic player plays the whole law (issue 15): N seeds x T turns of each ruleset, a
5-player campaign (``--players``) with every optional rule on, and how often each part of the ruleset's law
(``operations.simulation.LAW``) was played, summed over the seeds (the Interphase's armies raised and
maintained and rule G's governed provinces included); a part never played is marked, and a part the
campaigns do not have (the aristocratic auction outside the three-player game) is named apart.
A run that crashes is reported (seed, turn reached, the error) and the others go on. Target:
every part played at least once over 10 x 40, no crash. Exit status 1 if a part was never
played or a run crashed.

    .venv/bin/python bench/simulate_law.py [--seeds 10] [--turns 40] [--ruleset NAME] [--players 5]
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
    parser.add_argument("--players", type=int, default=5, help="3: the aristocratic auction too")
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
    from operations.simulation_end import end_summary, game_over
    from rules import RULESET_LABELS, get_ruleset
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    failed = False
    for ruleset in args.ruleset or list(RULESET_LABELS):
        totals = {part.name: 0 for part in LAW[ruleset]}
        applies: set[str] = set()  # the parts these campaigns have at all (the auction: three players only)
        start = time.perf_counter()
        ends: list[str] = []
        for seed in range(1, args.seeds + 1):
            source = RandomSource(seed)
            campaign = campaign_create(
                name=f"{ruleset} {seed}",
                slug=f"{ruleset}-{seed}",
                ruleset=ruleset,
                players=args.players,
                dynasties=simulated_dynasties(ruleset, args.players),
                optional_rules={name: True for name in get_ruleset(ruleset).OPTIONAL_RULES},
                source=source,
                # the game's end (section 22): agreed after the last turn played, so the law plays whole
                end_year=get_ruleset(ruleset).start_year + (args.turns - 1) * get_ruleset(ruleset).turn_length,
            )
            played = 0
            try:
                while played < args.turns and not game_over(campaign):
                    campaign = play_turn(campaign, source, law=True, by=SYSTEM_ACTOR)
                    played += 1
            except Exception as exc:  # reported, and the other seeds go on
                failed = True
                where = traceback.extract_tb(exc.__traceback__)[-1]
                error = f"{type(exc).__name__}: {exc} ({where.filename}:{where.lineno})"
                print(f"CRASH {ruleset} seed {seed} turn {played + 1}: {error}")
            ends.append(end_summary(campaign))
            for name, n in law_summary(campaign):
                totals[name] += n
                applies.add(name)
        rows = [(name, n) for name, n in totals.items() if name in applies]
        absent = [name for name in totals if name not in applies]
        failed = failed or any(n == 0 for _, n in rows)
        print(f"{ruleset}: {args.seeds} seeds x {args.turns} turns, all optional rules on ({time.perf_counter() - start:.0f} s)")
        print(law_table(rows))
        if absent:
            print(f"  not in a {args.players}-player campaign: {', '.join(absent)}")
        ended = sum(1 for line in ends if line.startswith("the game ended"))
        first = ends[0] if ends else "-"
        print(f"  the game's end (the agreed last turn): {ended} of {len(ends)} campaigns ended; the first: {first}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
