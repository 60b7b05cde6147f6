"""Tell the lost jobs and delete the old finished ones with their files (docs/deployment.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.jobs import fail_lost_jobs, prune_jobs
from rules.errors import RuleError

DEFAULT_DAYS = 30


class Command(BaseCommand):
    help = (
        "Mark failed the jobs whose worker stopped (running, no sign of life for REGNAL_JOB_STALE_SECONDS), then "
        "delete the jobs finished more than N days ago and the files they made (print batches, backups, trees)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=DEFAULT_DAYS,
            metavar="N",
            help=f"Keep the jobs finished in the last N days (default {DEFAULT_DAYS}).",
        )
        parser.add_argument("--lost-only", action="store_true", help="Only mark the lost jobs failed; delete nothing.")

    def handle(self, *args: Any, **opts: Any) -> None:
        for job in fail_lost_jobs():
            self.stdout.write(f"Lost: {job.get_kind_display()} {job.pk}. {job.error}")
        if opts["lost_only"]:
            return
        try:
            jobs, files = prune_jobs(opts["days"])
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"Deleted {jobs} jobs finished more than {opts['days']} days ago, and {files} files.")
