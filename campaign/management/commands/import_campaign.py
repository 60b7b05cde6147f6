"""Load a campaign exported by export_campaign (docs/export-format.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.exchange import campaign_import
from dynasties.rules.errors import RuleError


class Command(BaseCommand):
    help = "Import a campaign from a JSON export as a new campaign (a new slug if the old one is taken)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="The JSON export ('-' reads stdin).")
        parser.add_argument("--gm", metavar="USERNAME", help="Make this existing user the campaign's GM.")
        parser.add_argument("--slug", help="Use this slug (refused if taken) instead of the exported one.")

    def handle(self, *args: Any, **opts: Any) -> None:
        gm = None
        if opts["gm"]:
            User = get_user_model()
            try:
                gm = User._default_manager.get_by_natural_key(opts["gm"])
            except User.DoesNotExist:
                raise CommandError(f"There is no user called {opts['gm']!r}.") from None
        name = opts["file"]
        try:
            text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"Cannot read {name}: {getattr(exc, 'strerror', None) or exc}") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CommandError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from exc
        try:
            campaign = campaign_import(data, by=gm, slug=opts["slug"])
        except RuleError as exc:
            raise CommandError(f"{name}: {exc.message}") from exc
        self.stdout.write(f"Imported {campaign.name} as {campaign.slug}.")
