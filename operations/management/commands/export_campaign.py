"""Print a campaign as JSON (docs/export-format.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.files import write_atomically
from campaign.models import Campaign
from operations.exchange import campaign_export
from rules.errors import RuleError


def dumps(data: dict[str, Any]) -> str:
    """The export's text: stable key order, two-space indent, UTF-8, a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = "Export a campaign as JSON (to stdout, or to --output FILE)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="The campaign's slug.")
        parser.add_argument("--output", "-o", metavar="FILE", help="Write to FILE instead of stdout.")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            campaign = Campaign.objects.get(slug=opts["slug"])
        except Campaign.DoesNotExist:
            raise CommandError(f"There is no campaign with the slug {opts['slug']!r}.") from None
        try:
            text = dumps(campaign_export(campaign))
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        if opts["output"]:
            try:
                write_atomically(Path(opts["output"]), text.encode("utf-8"))
            except OSError as exc:
                raise CommandError(f"Cannot write {opts['output']}: {exc.strerror or exc}") from exc
            self.stderr.write(f"Exported {campaign.name} ({campaign.slug}) to {opts['output']}.")
        else:
            self.stdout.write(text, ending="")
