"""``export_gedcom --campaign SLUG [--dynasty NAME] [--output FILE]``: the family record as GEDCOM 5.5.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from campaign.files import write_atomically
from campaign.models import Campaign
from dynasties.gedcom import export_gedcom
from dynasties.models import Dynasty


class Command(BaseCommand):
    help = "Export a campaign's family record, or one dynasty's, as GEDCOM 5.5.1 (UTF-8)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="The campaign's slug.")
        parser.add_argument("--dynasty", default=None, help="A dynasty's name (or its crown); default: every dynasty.")
        parser.add_argument("--output", default=None, help="File to write; default: standard output.")

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = Campaign.objects.filter(slug=opts["campaign"]).first()
        if campaign is None:
            raise CommandError(f"No campaign with the slug {opts['campaign']!r}.")
        dynasty = None
        if opts["dynasty"]:
            wanted = opts["dynasty"].strip()
            found = list(Dynasty.objects.filter(campaign=campaign).filter(Q(name__iexact=wanted) | Q(crown__iexact=wanted)))
            if len(found) != 1:
                names = ", ".join(d.name for d in Dynasty.objects.filter(campaign=campaign))
                raise CommandError(
                    f"{'More than one' if found else 'No'} dynasty {wanted!r} in {campaign.name}; its dynasties: {names}."
                )
            dynasty = found[0]
        text = export_gedcom(campaign, dynasty)
        if opts["output"]:
            try:
                write_atomically(Path(opts["output"]), text.encode("utf-8"))
            except OSError as exc:
                raise CommandError(f"Cannot write {opts['output']}: {exc.strerror or exc}") from exc
            people = text.count(" INDI\n")
            families = text.count(" FAM\n")
            self.stdout.write(f"Wrote {opts['output']}: {people} people, {families} families.")
        else:
            self.stdout.write(text, ending="")
