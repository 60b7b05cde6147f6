from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser, DjangoHelpFormatter
from django.db import transaction

from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Status
from dynasties.services import campaign_create
from operations.simulation import HOUSE_SIZE, law_summary, law_table, simulate, simulated_dynasties
from operations.simulation_end import end_summary
from rules import RULESET_LABELS, default_ruleset, get_ruleset
from rules.dice import RandomSource
from rules.errors import RuleError


class _HelpFormatter(DjangoHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Django's order of arguments; the list of optional rules printed as written, one a line."""


def optional_rules_help() -> str:
    """Every ruleset's optional rules with their one-line descriptions (the rulesets' own registry)."""
    lines = ["optional rules (--option NAME), by ruleset:"]
    for ruleset in RULESET_LABELS:
        known = get_ruleset(ruleset).OPTIONAL_RULES
        if not known:
            lines.append(f"  {ruleset}: none")
            continue
        lines.append(f"  {ruleset}:")
        width = max(len(name) for name in known)
        lines.extend(f"    {name:<{width}}  {description}" for name, description in known.items())
    return "\n".join(lines)


def chosen_options(ruleset: str, names: list[str]) -> dict[str, bool]:
    """The campaign's optional rules: each name given turns its rule on; an unknown name is refused."""
    known = get_ruleset(ruleset).OPTIONAL_RULES
    chosen: dict[str, bool] = {}
    for given in names:
        name = given.strip().replace("-", "_")
        if name not in known:
            valid = ", ".join(known) or "none"
            raise CommandError(f"{ruleset} has no optional rule {given!r}; valid names: {valid}.")
        chosen[name] = True
    return chosen


class Command(BaseCommand):
    help = "Create a campaign and play N turns with an automatic policy (a prehistory generator)."

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        return super().create_parser(prog_name, subcommand, **kwargs)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.epilog = optional_rules_help()
        parser.add_argument(
            "--ruleset",
            default=default_ruleset().name,
            help=f"The ruleset: {', '.join(RULESET_LABELS)} (default {default_ruleset().name}).",
        )
        parser.add_argument("--players", type=int, default=5, help="How many player dynasties (default 5).")
        parser.add_argument(
            "--country",
            action="append",
            default=[],
            metavar="NAME",
            help=(
                "Blood Royale: a country the players play (repeatable, one per player; default the rulebook's: "
                "four players leave England out)."
            ),
        )
        parser.add_argument("--turns", type=int, default=10, help="How many turns to play (default 10).")
        parser.add_argument(
            "--seed",
            type=int,
            default=None,
            help="Seed of the dice: the same seed plays the same campaign, in any process (default: unseeded).",
        )
        parser.add_argument(
            "--house-size",
            type=int,
            default=HOUSE_SIZE,
            help=(
                "The automatic player arranges no more matches for a house's men once it has this many "
                f"living members (default {HOUSE_SIZE}: a table's size; the rules are untouched)."
            ),
        )
        parser.add_argument(
            "--end-year",
            type=int,
            default=None,
            help="The agreed last turn (its year): the game ends after it and the simulation stops (default: none).",
        )
        parser.add_argument(
            "--money-target",
            type=int,
            default=None,
            help="Blood Royale: the money target (eg 800): a house holding it after a turn's cashing-in wins and the "
            "simulation stops (default: none).",
        )
        parser.add_argument("--name", default="Simulated campaign", help="The campaign's name.")
        parser.add_argument("--slug", default=None, help="The campaign's slug (default: made from the name).")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME",
            help="Turn on an optional rule of the ruleset, named as listed below (repeatable).",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["turns"] < 0:
            raise CommandError("--turns must be 0 or more.")
        if opts["house_size"] < 1:
            raise CommandError("--house-size must be 1 or more.")
        source = RandomSource(opts["seed"])
        try:
            options = chosen_options(opts["ruleset"], opts["option"])
            with transaction.atomic():  # all or nothing: a failed run leaves no half-played campaign
                campaign = campaign_create(
                    name=opts["name"],
                    slug=opts["slug"],
                    ruleset=opts["ruleset"],
                    players=opts["players"],
                    dynasties=simulated_dynasties(opts["ruleset"], opts["players"], opts["country"] or None),
                    optional_rules=options,
                    source=source,
                    end_year=opts["end_year"],
                    money_target=opts["money_target"],
                )
                campaign = simulate(
                    campaign, turns=opts["turns"], source=source, law=True, house_size=opts["house_size"], by=SYSTEM_ACTOR
                )
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        chars = Character.objects.filter(campaign=campaign)
        self.stdout.write(
            f"{campaign.name} ({campaign.slug}): {opts['turns']} turns played, now {campaign.current_year}; "
            f"{chars.count()} characters, {chars.filter(status=Status.ALIVE).count()} alive."
        )
        self.stdout.write("The law played (times each part):\n" + law_table(law_summary(campaign)))
        if campaign.end_year is not None or campaign.money_target is not None:
            self.stdout.write(f"The end: {end_summary(campaign)} (the simulation stops at the end).")
