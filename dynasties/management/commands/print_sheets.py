"""Print character sheets (or a turn's announcements) to a PDF from the shell.

manage.py print_sheets --campaign SLUG [--dynasty NAME] [--two-up] --output FILE
manage.py print_sheets --campaign SLUG --announcements YEAR --output FILE
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.files import write_atomically
from campaign.models import Campaign
from dynasties import printing
from dynasties.models import Dynasty


class Command(BaseCommand):
    help = "Print the character sheets of a dynasty or a campaign, or a turn's announcements, to one PDF."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="the campaign's slug")
        parser.add_argument("--dynasty", help="the dynastic name (or crown) of one dynasty; default: every dynasty")
        parser.add_argument("--two-up", action="store_true", help="two sheets per A4 page (landscape)")
        parser.add_argument("--announcements", type=int, metavar="YEAR", help="print this turn's announcements instead")
        parser.add_argument("--output", required=True, help="the PDF file to write")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            campaign = Campaign.objects.get(slug=opts["campaign"])
        except Campaign.DoesNotExist:
            raise CommandError(f"There is no campaign {opts['campaign']!r}.") from None
        start = time.perf_counter()
        if opts["announcements"] is not None:
            pdf = printing.announcements_pdf(campaign, opts["announcements"])
            what = f"the announcements of {opts['announcements']}"
        else:
            if opts["dynasty"]:
                name = opts["dynasty"]
                dynasty = (
                    Dynasty.objects.filter(campaign=campaign, name__iexact=name).first()
                    or Dynasty.objects.filter(campaign=campaign, crown__iexact=name).first()
                )
                if dynasty is None:
                    raise CommandError(f"The campaign has no dynasty {name!r}.")
                characters = printing.dynasty_characters(dynasty)
            else:
                characters = printing.campaign_characters(campaign)
            if not characters:
                raise CommandError("No character to print.")
            pdf = printing.sheets_pdf(characters, opts["two_up"], campaign)
            what = f"{len(characters)} sheet{'s' if len(characters) != 1 else ''}"
        out = Path(opts["output"])
        try:
            write_atomically(out, pdf)
        except OSError as exc:
            raise CommandError(f"Cannot write {out}: {exc.strerror or exc}") from exc
        self.stdout.write(f"Wrote {what} to {out} ({len(pdf) // 1024} KB, {time.perf_counter() - start:.2f} s).")
