"""The crown's player's choice of heirs to pass over, kept until the GM closes Survival (A7).

When a monarch dies at the Survival step the player who controls the crown decides whether to pass
over the rightful heir (Disputed Succession; optional rule C; BloodLine B). The decision takes
effect when the GM finishes the step (``survival_finish(pass_over=...)``), so the player's choice is
kept on the crown's record (``Crown.state["pass_over_choice"]``, stamped with the year) and offered
to the GM's finish form; the GM may still change it. Stale choices of an earlier year are ignored;
:func:`pass_over_clear` removes them when the step is finished. The crown's record travels with the
undo checkpoints and the export like any other state."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from campaign.models import Campaign, Step
from campaign.permissions import Actor, require
from campaign.steps import Seen, lock_campaign, require_step
from dynasties.models import Crown, Dynasty, Reign, Status
from dynasties.services.common import World
from dynasties.services.succession import line_with_pass_over
from dynasties.services.succession_view import succession_line
from rules.errors import RuleError

CHOICE_KEY = "pass_over_choice"


def pass_over_choices(campaign: Campaign) -> dict[str, list[int]]:
    """Crown -> the heirs its player chose to pass over this year (an empty list: none)."""
    out: dict[str, list[int]] = {}
    for name, state in Crown.objects.filter(campaign=campaign).values_list("name", "state"):
        choice = (state or {}).get(CHOICE_KEY)
        if isinstance(choice, dict) and choice.get("year") == campaign.current_year:
            out[name] = [int(pk) for pk in choice.get("heirs", [])]
    return out


def crown_player(campaign: Campaign, crown: str) -> int | None:
    """The dynasty whose player controls the crown now (another in a Dynastic Union), as
    ``World.crown_dynasty`` reads it: the one who decides its succession."""
    record = Crown.objects.filter(campaign=campaign, name=crown).only("controlled_by_id").first()
    if record is not None and record.controlled_by_id:
        return record.controlled_by_id
    return Dynasty.objects.filter(campaign=campaign, crown=crown).values_list("pk", flat=True).first()


@transaction.atomic
def pass_over_choose(*, campaign: Campaign | int, crown: str, heirs: Sequence[int], limit: int, by: Actor) -> list[int]:
    """Record which heirs of the dead monarch's line the crown's player passes over (possibly
    none). Each must be among the first ``limit`` of the line, one the rules let him pass over and
    ahead of the one who would then succeed (the walk ``survival_finish`` makes, dry)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "crown", player=crown_player(campaign, crown), crown=crown)  # before the step is looked at
    require_step(campaign, Step.SURVIVAL)
    reign = Reign.objects.filter(campaign=campaign, crown=crown, end_year__isnull=True).select_related("holder").first()
    if reign is None or reign.holder.status != Status.DEAD:
        raise RuleError(f"The monarch of {crown} has not died this turn: there is no succession to decide.", code="no_succession")
    line = succession_line(campaign=campaign, crown=crown, limit=limit)
    entries = {e.character.pk: e for e in line.entries}
    chosen = list(dict.fromkeys(int(pk) for pk in heirs))
    for pk in chosen:
        entry = entries.get(pk)
        if entry is None:
            raise RuleError(
                f"Character #{pk} is not among the first {limit} of the line of succession of {crown}.",
                code="not_in_line",
                fields={"heirs": "invalid"},
            )
        if entry.pass_over is None or not entry.pass_over.allowed:
            why = entry.pass_over.text if entry.pass_over else "the rules of this campaign do not allow it"
            raise RuleError(
                f"{entry.character.display_name} may not be passed over: {why}",
                code="illegal_pass_over",
                fields={"heirs": "invalid"},
            )
    if chosen:  # refused now as the GM's finish would refuse it (e.g. an heir behind the one who succeeds)
        line_with_pass_over(World(campaign), crown, chosen)
    record = Crown.objects.select_for_update().filter(campaign=campaign, name=crown).first()
    if record is None:
        home = Dynasty.objects.filter(campaign=campaign, crown=crown).first()
        record = Crown.objects.create(campaign=campaign, name=crown, home_dynasty=home, controlled_by=home)
    record.state = {**(record.state or {}), CHOICE_KEY: {"year": campaign.current_year, "heirs": chosen}}
    record.save(update_fields=["state"])
    return chosen


def pass_over_clear(campaign: Campaign) -> None:
    """Forget every recorded choice (call it in the transaction that finishes Survival)."""
    changed = []
    for record in Crown.objects.filter(campaign=campaign):
        if CHOICE_KEY in (record.state or {}):
            record.state = {k: v for k, v in record.state.items() if k != CHOICE_KEY}
            changed.append(record)
    if changed:
        Crown.objects.bulk_update(changed, ["state"])
