"""The independent cross-checks (tests/crosscheck/, issue 15) over long simulations: for each
ruleset, N seeds x T turns with every optional rule on, each export checked against the rulebook's
text; prints the violations per rule, asserted by the suite or reported for an open defect.
Target (issue 15): no violation of an asserted rule over 10 seeds x 40 turns.

    .venv/bin/python bench/crosscheck.py [--seeds 10] [--turns 40] [--ruleset blood-royale] [--show 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--first-seed", type=int, default=1, help="the first seed (the issues' examples use 801..)")
    parser.add_argument("--ruleset", action="append", help="one ruleset (repeatable); all three by default")
    parser.add_argument("--show", type=int, default=3, help="example violations printed per rule")
    parser.add_argument("--law", action="store_true", help="the automatic player plays the whole law too (as `simulate`)")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-crosscheck-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/crosscheck.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from tests.crosscheck.common import rule_of
    from tests.crosscheck.run import ASSERTED, CHECKS, OPEN_DEFECTS, simulated_export

    call_command("migrate", verbosity=0)
    failed = False
    for ruleset in args.ruleset or list(CHECKS):
        counts: Counter[str] = Counter()
        examples: dict[str, list[str]] = {}
        start = time.perf_counter()
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for v in CHECKS[ruleset](simulated_export(ruleset, seed, args.turns, law=args.law)):
                rule = f"{rule_of(v)} (seed {seed})"
                counts[rule_of(v)] += 1
                examples.setdefault(rule_of(v), [])
                if len(examples[rule_of(v)]) < args.show:
                    examples[rule_of(v)].append(f"{rule}: {v.split(': ', 1)[1]}")
        print(
            f"{ruleset}: {args.seeds} seeds x {args.turns} turns, all optional rules on"
            f"{', the whole law played' if args.law else ''} ({time.perf_counter() - start:.0f} s)"
        )
        for rule in ASSERTED[ruleset]:
            print(f"  {rule:<22} {counts[rule]:>6}  asserted")
            failed = failed or counts[rule] > 0
        for rule, defect in OPEN_DEFECTS[ruleset].items():
            print(f"  {rule:<22} {counts[rule]:>6}  reported (open defect: {defect})")
        for rule in sorted(set(counts) - set(ASSERTED[ruleset]) - set(OPEN_DEFECTS[ruleset])):
            print(f"  {rule:<22} {counts[rule]:>6}  unknown rule")
        for lines in examples.values():
            for line in lines:
                print(f"    {line[:300]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
