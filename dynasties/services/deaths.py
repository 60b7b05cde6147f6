"""Death (RULES.md A5): what a death does to the records, whatever caused it."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from campaign import audit
from campaign.models import Campaign
from dynasties.models import Character, Marriage, Status
from dynasties.services.common import Chronicle


def character_die(
    *, campaign: Campaign, character_ids: Sequence[int], cause: str, chronicle: Chronicle | None = None
) -> None:
    """Death (A5): the sheet crossed through, the piece freed, marriages and betrothals end.
    Returns of surviving spouses happen at the Announcements. Call inside a transaction."""
    year = campaign.current_year
    if chronicle is not None:
        void = Marriage.objects.filter(
            Q(husband_id__in=character_ids) | Q(wife_id__in=character_ids),
            campaign=campaign, ended_year__isnull=True, wedding_year__isnull=True,
        ).select_related("husband", "wife")
        for match in void:
            chronicle.add(
                "betrothal_end",
                f"The betrothal of {match.husband.display_name} and {match.wife.display_name} is void: "
                f"{match.husband.display_name if match.husband_id in character_ids else match.wife.display_name} died.",
                marriage=match.pk,
            )
    # audit.update: the update and the rows' audit trail (a bulk update sends no signals)
    audit.update(
        Character.objects.filter(pk__in=character_ids, campaign=campaign),
        status=Status.DEAD, death_year=year, death_cause=cause, prince_piece="",
    )  # fmt: skip
    open_matches = Marriage.objects.filter(campaign=campaign, ended_year__isnull=True)
    audit.update(
        open_matches.filter(wedding_year__isnull=False, husband_id__in=character_ids),
        ended_year=year, end_cause="death of the husband",
    )  # fmt: skip
    audit.update(
        open_matches.filter(wedding_year__isnull=False, wife_id__in=character_ids),
        ended_year=year, end_cause="death of the wife",
    )  # fmt: skip
    audit.update(
        open_matches.filter(Q(husband_id__in=character_ids) | Q(wife_id__in=character_ids), wedding_year__isnull=True),
        ended_year=year, end_cause="betrothal void: death before the wedding",
    )  # fmt: skip
    # contracts end with their marriage, their betrothal or an heirless leader (imported here:
    # contracts.services builds on the dynasties' services)
    from contracts.services import contracts_on_deaths

    contracts_on_deaths(campaign, list(character_ids), chronicle)
