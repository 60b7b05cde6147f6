"""Back up every campaign as dated exports, rotated (docs/backups.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.backup import DEFAULT_KEEP, backup_campaigns
from rules.errors import RuleError


def default_directory() -> Path:
    return Path(settings.BASE_DIR) / "backups"


class Command(BaseCommand):
    help = (
        "Write a dated export of every campaign (or one) to a directory, <slug>-YYYYMMDD-HHMMSS.json (UTC), "
        "and keep only the newest N of each campaign. Restore one with import_campaign."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", metavar="DIR", help="Where to write (made if missing); default: backups/ in the project.")
        parser.add_argument(
            "--keep",
            type=int,
            default=DEFAULT_KEEP,
            metavar="N",
            help=f"Backups kept per campaign, the newest (default {DEFAULT_KEEP}).",
        )
        parser.add_argument("--campaign", metavar="SLUG", help="Back up this campaign only.")
        parser.add_argument("--gzip", action="store_true", help="Compress the files (.json.gz).")

    def handle(self, *args: Any, **opts: Any) -> None:
        directory = Path(opts["dir"]) if opts["dir"] else default_directory()
        try:
            result = backup_campaigns(directory=directory, keep=opts["keep"], slug=opts["campaign"], compress=opts["gzip"])
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        for written in result.written:
            self.stdout.write(f"Wrote {written.path} ({written.size} bytes).")
        for path in result.removed:
            self.stdout.write(f"Removed {path}.")
        if result.failed:  # the others were written: fail loudly for cron
            raise CommandError(" ".join(why for _, why in result.failed))
        if not result.written:
            self.stdout.write("There is no campaign to back up.")
