"""Render a family tree from the shell.

    manage.py render_tree --campaign SLUG --kind descendants --focus 12 --generations 3 \
        --format pdf --output tree.pdf
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.files import write_atomically
from campaign.models import Campaign
from dynasties.trees.data import KINDS, TreeError
from dynasties.trees.dot import ADMIN_URL, ORIENTATIONS
from dynasties.trees.render import FORMATS, PAPERS_ASKED, RenderError, TreeRequest, render_tree


class Command(BaseCommand):
    help = "Render a family tree (dynasty, campaign, ancestors, descendants, succession) as SVG, PNG, PDF or DOT."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="The campaign's slug.")
        parser.add_argument("--kind", required=True, choices=KINDS)
        parser.add_argument("--dynasty", type=int, help="Dynasty id (kind dynasty).")
        parser.add_argument("--focus", type=int, help="Character id: the focus person.")
        parser.add_argument("--generations", type=int, help="Generation cap (each way from the focus).")
        parser.add_argument("--crown", help="The crown (kind succession).")
        parser.add_argument("--limit", type=int, default=10, help="Heirs shown (kind succession).")
        parser.add_argument("--format", default="svg", choices=sorted(FORMATS))
        parser.add_argument("--paper", default="auto", choices=PAPERS_ASKED, help="PNG/PDF sheet size.")
        parser.add_argument("--orientation", default="landscape", choices=ORIENTATIONS, help="PNG/PDF: how the sheet lies.")
        parser.add_argument("--url", default=ADMIN_URL, help="Link pattern of a person, with {id}; '' for none.")
        parser.add_argument("--no-cache", action="store_true")
        parser.add_argument("--output", "-o", help="File to write; default standard output.")

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = Campaign.objects.filter(slug=opts["campaign"]).first()
        if campaign is None:
            raise CommandError(f"There is no campaign {opts['campaign']!r}.")
        request = TreeRequest(
            kind=opts["kind"],
            dynasty=opts["dynasty"],
            focus=opts["focus"],
            generations=opts["generations"],
            crown=opts["crown"],
            limit=opts["limit"],
            fmt=opts["format"],
            url=opts["url"] or None,
            paper=opts["paper"],
            orientation=opts["orientation"],
        )
        try:
            result = render_tree(campaign, request, use_cache=not opts["no_cache"])
        except (TreeError, RenderError) as exc:
            raise CommandError(str(exc)) from exc
        if opts["output"]:
            try:
                write_atomically(Path(opts["output"]), result.content)
            except OSError as exc:
                raise CommandError(f"Cannot write {opts['output']}: {exc.strerror or exc}") from exc
            self.stderr.write(f"wrote {opts['output']} ({len(result.content)} bytes{', cached' if result.cached else ''})")
        else:
            sys.stdout.buffer.write(result.content)
            sys.stdout.flush()
