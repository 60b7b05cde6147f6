"""Undo the step (or the turn) last worked on, from the shell: what the GM's Undo button does.

With ``--as USER`` the undo is that user's, and the policy decides as for every other door (only
the campaign's GM may undo); without it the command acts as the system (``SYSTEM_ACTOR``: the
server's operator)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR, Actor
from campaign.undo import describe, new_action_key, redo, undo_step, undo_turn
from rules.errors import RuleError


class Command(BaseCommand):
    help = "Undo the step (or, with --turn, the turn) last worked on, as the GM's Undo button does."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="The campaign's slug.")
        parser.add_argument("--turn", action="store_true", help="Undo the whole turn, not just the step.")
        parser.add_argument("--redo", action="store_true", help="Redo the last undo instead (the Redo button).")
        parser.add_argument("--as", dest="as_user", metavar="USER", help="Act as this user (the policy checks him).")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            campaign = Campaign.objects.get(slug=opts["slug"])
        except Campaign.DoesNotExist:
            raise CommandError(f"There is no campaign with the slug {opts['slug']!r}.") from None
        by: Actor = SYSTEM_ACTOR
        if opts["as_user"]:
            user = get_user_model().objects.filter(username=opts["as_user"]).first()
            if user is None:
                raise CommandError(f"There is no user {opts['as_user']!r}.")
            by = user
        undo = redo if opts["redo"] else undo_turn if opts["turn"] else undo_step
        try:
            restored = undo(campaign=campaign, key=new_action_key(), by=by)
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        done = "redone from" if opts["redo"] else "back to"
        self.stdout.write(f"{campaign.name}: {done} {describe(restored)}.")
