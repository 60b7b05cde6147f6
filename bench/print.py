"""Benchmark: the printables against bare WeasyPrint on the same HTML.

Sets up a fresh SQLite campaign (5 players, a few turns played), then times
  - one character sheet, steady state (after a warm-up), through ``dynasties.printing``;
  - a batch of 100 sheets in one PDF, one-up and two-up;
and the bare ``weasyprint.HTML(string=html).write_pdf()`` of the very same HTML, so the difference
is what Regnal adds (queries, template). Targets (issue 6): one sheet < 0.3 s; batch <= 1.2x bare.

    .venv/bin/python bench/print.py [--repeat 5] [--batch 100] [--save DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--save", help="also write sample PDFs into this folder")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="regnal-print-bench-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ.setdefault("REGNAL_DEV", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    warnings.filterwarnings("ignore", message="Limit for query logging exceeded")
    django.setup()
    from django.core.management import call_command
    from weasyprint import HTML

    from campaign.permissions import SYSTEM_ACTOR
    from dynasties import printing
    from dynasties.models import Character
    from dynasties.services import campaign_create
    from operations.simulation import play_turn
    from rules.dice import RandomSource

    call_command("migrate", verbosity=0)
    source = RandomSource(7)
    campaign = campaign_create(name="Print bench", players=5, source=source)
    for _ in range(args.turns):
        campaign = play_turn(campaign, source, by=SYSTEM_ACTOR)
    people = printing.campaign_characters(campaign)
    everyone = list(Character.objects.filter(campaign=campaign).select_related("father", "mother", "controlled_by", "campaign"))
    batch = (everyone * (args.batch // max(1, len(everyone)) + 1))[: args.batch]
    one = people[0]
    print(f"campaign: {campaign.current_year}, {len(everyone)} characters ({len(people)} controlled); batch of {len(batch)}")

    def bare(html: str) -> bytes:
        return HTML(string=html).write_pdf()

    # warm-up: fonts, Pango, templates
    printing.character_sheet_pdf(one)
    bare(printing.sheets_html([one]))

    html1 = printing.sheets_html([one])
    t_sheet = best(lambda: printing.character_sheet_pdf(one), args.repeat)
    t_sheet_bare = best(lambda: bare(html1), args.repeat)
    print(
        f"one sheet      : regnal {t_sheet * 1000:7.1f} ms   bare weasyprint {t_sheet_bare * 1000:7.1f} ms"
        f"   ratio {t_sheet / t_sheet_bare:.2f}   (target < 300 ms)"
    )
    reps = max(1, args.repeat // 2)
    for two_up in (False, True):
        html = printing.sheets_html(batch, two_up, campaign)
        t_batch = best(lambda two_up=two_up: printing.sheets_pdf(batch, two_up, campaign), reps)
        t_bare = best(lambda html=html: bare(html), reps)
        label = "two-up" if two_up else "one-up"
        print(
            f"batch {len(batch)} {label}: regnal {t_batch:7.2f} s    bare weasyprint {t_bare:7.2f} s"
            f"    ratio {t_batch / t_bare:.2f}   (target <= 1.2)"
        )
    t_news = best(lambda: printing.announcements_pdf(campaign, campaign.current_year - campaign.turn_length), args.repeat)
    print(f"announcements  : {t_news * 1000:7.1f} ms")
    if args.save:
        out = Path(args.save)
        out.mkdir(parents=True, exist_ok=True)
        (out / "sheet.pdf").write_bytes(printing.character_sheet_pdf(one))
        dead = [c for c in everyone if c.death_year]
        if dead:
            (out / "dead.pdf").write_bytes(printing.character_sheet_pdf(dead[0]))
        (out / "two-up.pdf").write_bytes(printing.sheets_pdf(people[:4], True, campaign))
        (out / "announcements.pdf").write_bytes(
            printing.announcements_pdf(campaign, campaign.current_year - campaign.turn_length)
        )
        bl = campaign_create(name="Print bench BloodLine", ruleset="eu-bloodline", players=3, source=RandomSource(4))
        bl_people = printing.campaign_characters(bl)
        (out / "bloodline.pdf").write_bytes(printing.character_sheet_pdf(bl_people[0]))
        print(f"samples written to {out}")


if __name__ == "__main__":
    main()
