from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.services import DEMO_RULESETS, DemoResult, demo_create
from rules.errors import RuleError
from rules.registry import default_ruleset


def keep_logins(result: DemoResult, text: str, path: Path) -> str:
    """Writes the logins to ``path`` (its owner's eyes only) when their passwords were just set, so
    they stay readable once the server's log scrolls on; says where they are either way."""
    if not any(x.password for x in result.logins):
        return f"\nThe passwords set before are in {path}." if path.exists() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text + "\n")
    return f"\nThese logins are written to {path} as well."


class Command(BaseCommand):
    help = (
        "Create the demo Blood Royale campaign (slug 'demo') with a GM login and one login per crown, "
        "and print the logins. Run again to list them; --reset-passwords prints new passwords."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--ruleset",
            default=default_ruleset().name,
            help=", ".join(f"{name} (slug {demo.slug!r})" for name, demo in DEMO_RULESETS.items()) + ".",
        )
        parser.add_argument(
            "--logins-file",
            default=str(settings.REGNAL_LOGINS_FILE or ""),
            help="Where the logins are written when their passwords are set (default var/logins.txt; '': nowhere).",
        )
        parser.add_argument(
            "--reset-passwords",
            action="store_true",
            help="If the demo campaign exists, set new passwords for its logins and print them.",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            result = demo_create(reset_passwords=opts["reset_passwords"], ruleset=opts["ruleset"])
        except RuleError as exc:
            raise CommandError(exc.message) from exc
        text = self.render(result, reset=opts["reset_passwords"])
        self.stdout.write(text)
        if opts["logins_file"]:
            self.stdout.write(keep_logins(result, text, Path(opts["logins_file"])))

    @staticmethod
    def render(result: DemoResult, *, reset: bool) -> str:
        campaign = result.campaign
        if result.created:
            head = f"Created {campaign.name} ({campaign.slug}), {campaign.current_year}."
        elif reset:
            head = f"{campaign.name} ({campaign.slug}) exists; its logins have new passwords."
        else:
            head = (
                f"{campaign.name} ({campaign.slug}) exists already. Its logins are below; their passwords "
                "cannot be shown again (run with --reset-passwords to set and print new ones)."
            )
        rows = [("username", "password", "role", "dynasty")]
        rows += [(x.username, x.password or "(unchanged)", x.role, x.dynasty) for x in result.logins]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = [head, f"Open {result.url} and log in (the GM also has {result.url}/admin/).", ""]
        for n, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
            if n == 0:
                lines.append("  ".join("-" * w for w in widths))
        if result.invitation:
            lines += [
                "",
                "To try joining by invitation, open this link logged out (an observer's seat, 7 days, once):",
                result.invitation,
            ]
        return "\n".join(lines)
