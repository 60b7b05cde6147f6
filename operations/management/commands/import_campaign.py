"""Load a campaign exported by export_campaign or written by backup (docs/export-format.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.exchange import MAX_DOCUMENT_BYTES, campaign_import, parse_document
from rules.errors import RuleError


class Command(BaseCommand):
    help = "Import a campaign from a JSON export as a new campaign (a new slug if the old one is taken)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="The JSON export, plain or gzip-compressed ('-' reads stdin).")
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
            if name == "-":
                stdin = getattr(sys.stdin, "buffer", sys.stdin)
                raw: str | bytes = stdin.read(MAX_DOCUMENT_BYTES + 1)
            else:
                with Path(name).open("rb") as stream:  # never more than an export may be: not /dev/zero
                    raw = stream.read(MAX_DOCUMENT_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"Cannot read {name}: {exc.strerror or exc}") from exc
        try:
            campaign = campaign_import(parse_document(raw), by=gm, slug=opts["slug"])
        except RuleError as exc:
            raise CommandError(f"{name}: {exc.message}") from exc
        self.stdout.write(f"Imported {campaign.name} as {campaign.slug}.")
