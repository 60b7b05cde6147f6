from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from dynasties.models import Character, Status
from dynasties.rules.dice import RandomSource
from dynasties.rules.errors import RuleError
from dynasties.services import campaign_create
from dynasties.simulation import simulate


class Command(BaseCommand):
    help = "Create a campaign and play N turns with an automatic policy (a prehistory generator)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ruleset", default="blood-royale")
        parser.add_argument("--players", type=int, default=5)
        parser.add_argument("--turns", type=int, default=10)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--name", default="Simulated campaign")
        parser.add_argument("--slug", default=None)

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["turns"] < 0:
            raise CommandError("--turns must be 0 or more.")
        source = RandomSource(opts["seed"])
        try:
            with transaction.atomic():  # all or nothing: a failed run leaves no half-played campaign
                campaign = campaign_create(
                    name=opts["name"], slug=opts["slug"], ruleset=opts["ruleset"], players=opts["players"], source=source
                )
                campaign = simulate(campaign, turns=opts["turns"], source=source)
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        chars = Character.objects.filter(campaign=campaign)
        self.stdout.write(
            f"{campaign.name} ({campaign.slug}): {opts['turns']} turns played, now {campaign.current_year}; "
            f"{chars.count()} characters, {chars.filter(status=Status.ALIVE).count()} alive."
        )
