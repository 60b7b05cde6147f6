"""What an undo would throw away of the dynasties' records, for its confirmation ("2 deaths, 1
succession"): counted from the kernel's change log (``campaign.changelog.changes``) and registered
with ``campaign.undo.count_losses_with`` when the app is ready."""

from __future__ import annotations

import json

from campaign.models import Campaign
from campaign.undo import Loss
from dynasties.models import Character, Marriage, Reign, Status


def _old(row: str | None, column: str) -> object:
    return None if row is None else json.loads(row).get(column)


def dynastic_losses(campaign: Campaign, first: dict[str, dict[int, str | None]]) -> list[Loss]:
    """Characters added (births, mostly), deaths, successions (reigns begun) and weddings since the
    checkpoint: what is there now and was not (or not so) then."""
    people = first.get(Character._meta.db_table, {})
    added = [pk for pk, row in people.items() if row is None]
    were_alive = [pk for pk, row in people.items() if row is not None and _old(row, "status") == Status.ALIVE]
    reigns = [pk for pk, row in first.get(Reign._meta.db_table, {}).items() if row is None]
    matches = first.get(Marriage._meta.db_table, {})
    unwed = [pk for pk, row in matches.items() if row is None or _old(row, "wedding_year") is None]
    dead = Character.objects.filter(pk__in=were_alive, status=Status.DEAD).count() if were_alive else 0
    wed = Marriage.objects.filter(pk__in=unwed, wedding_year__isnull=False).count() if unwed else 0
    return [
        Loss("characters", Character.objects.filter(pk__in=added).count() if added else 0, "new character", "new characters"),
        Loss("deaths", dead, "death", "deaths"),
        Loss("successions", Reign.objects.filter(pk__in=reigns).count() if reigns else 0, "succession", "successions"),
        Loss("weddings", wed, "wedding", "weddings"),
    ]
