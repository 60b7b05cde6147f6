"""Death (RULES.md A5): what a death does to the records, whatever caused it."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from campaign import audit, events
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import BirthAttempt, Character, Marriage, Status
from rules import birth_years


def character_die(
    *, campaign: Campaign, character_ids: Sequence[int], cause: str, chronicle: Chronicle | None = None
) -> dict[int, tuple[int, int]]:
    """Death (A5): the sheet crossed through, the piece freed, marriages and betrothals end; a child
    of the turn dated after the death is dated again (``births_within_lives``, returned). Returns of
    surviving spouses happen at the Announcements. Call inside a transaction."""
    year = campaign.current_year
    if chronicle is not None:
        void = Marriage.objects.filter(
            Q(husband_id__in=character_ids) | Q(wife_id__in=character_ids),
            campaign=campaign,
            ended_year__isnull=True,
            wedding_year__isnull=True,
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
        status=Status.DEAD,
        death_year=year,
        death_cause=cause,
        prince_piece="",
    )
    open_matches = Marriage.objects.filter(campaign=campaign, ended_year__isnull=True)
    audit.update(
        open_matches.filter(wedding_year__isnull=False, husband_id__in=character_ids),
        ended_year=year,
        end_cause="death of the husband",
    )
    audit.update(
        open_matches.filter(wedding_year__isnull=False, wife_id__in=character_ids),
        ended_year=year,
        end_cause="death of the wife",
    )
    audit.update(
        open_matches.filter(Q(husband_id__in=character_ids) | Q(wife_id__in=character_ids), wedding_year__isnull=True),
        ended_year=year,
        end_cause="betrothal void: death before the wedding",
    )
    moves = births_within_lives(campaign, character_ids, chronicle)
    # who listens ends what died with them (contracts: their marriage, betrothal or heirless leader)
    death = events.Deaths(campaign=campaign.pk, year=year, step=campaign.step, characters=tuple(character_ids), cause=cause)
    events.publish(death, campaign=campaign, chronicle=chronicle)
    return moves


def births_within_lives(
    campaign: Campaign, character_ids: Sequence[int], chronicle: Chronicle | None = None
) -> dict[int, tuple[int, int]]:
    """The children of the dead dated after the mother's death or more than a year after the
    father's (a turn's later children, born at the Births step before the parent's death in the
    turn's Survival) are dated again within their parents' lives, behind the elder children of that
    year (``rules.birth_years``; docs/rulings.md, Births). One query when nobody moves, four when
    some do, whatever their number. Returns child id -> (year of birth, birth order)."""
    year = campaign.current_year
    # the dead are the campaign's, so are their children: no campaign term (without statistics SQLite
    # read every character the campaign ever had through its index, not the parents')
    late = list(
        Character.objects.filter(
            Q(mother_id__in=character_ids, birth_year__gt=year)
            | Q(father_id__in=character_ids, birth_year__gt=year + birth_years.POSTHUMOUS_YEARS),
        )
        .order_by()
        .values_list("father_id", "mother_id")
    )
    if not late:
        return {}
    parents = {p for pair in late for p in pair if p is not None}
    kin = {
        c.pk: c
        for c in Character.objects.filter(Q(father_id__in=parents) | Q(mother_id__in=parents), campaign=campaign).select_related(
            "father", "mother"
        )
    }
    deaths = {
        p.pk: p.death_year for c in kin.values() for p in (c.father, c.mother) if p is not None and p.death_year is not None
    }
    moves = birth_years.moved_births(
        [birth_years.Birth(c.pk, c.birth_year, c.birth_order, c.father_id, c.mother_id) for c in kin.values()], deaths
    )
    moved: list[Character] = []
    for pk, (born, order) in sorted(moves.items()):
        child = kin[pk]
        if chronicle is not None:
            parent = child.mother if child.mother_id in deaths and born == deaths[child.mother_id] else child.father
            assert parent is not None
            chronicle.add(
                "birth",
                f"{child.display_name}'s year of birth is {born}, not {child.birth_year}: "
                f"{parent.display_name} died in {parent.death_year} (a child is born within its mother's life "
                f"and at most a year after its father's death).",
                character=child.pk,
                dynasty=child.controlled_by_id,
            )
        child.birth_year, child.birth_order = born, order
        moved.append(child)
    audit.bulk_update(Character, moved, ["birth_year", "birth_order"])
    attempts = list(BirthAttempt.objects.filter(campaign=campaign, child_id__in=moves))
    for attempt in attempts:
        attempt.child_birth_year = moves[attempt.child_id or 0][0]
    BirthAttempt.objects.bulk_update(attempts, ["child_birth_year"])
    return moves
