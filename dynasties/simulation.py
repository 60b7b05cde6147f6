"""An automatic player: plays whole turns through the services (the ``simulate`` command).

Policy: every eligible couple makes a birth roll, and up to two more while it has fewer than
three living children, the wife is 40 or younger and the extra attempt would not push her
Constitution below -1; every survival roll is made; betrothed couples of age are wed; unmatched
adults of different houses and dynastic names are matched, the eldest man first, with the
closest in age among the women aged 15-40; the rightful heir always succeeds.
"""

from __future__ import annotations

from collections.abc import Callable

from campaign.models import Campaign, Step
from dynasties import services
from dynasties.models import Marriage
from dynasties.rules import blood_royale as br
from dynasties.rules.dice import DiceSource
from dynasties.selectors import birth_couples, living_children_counts, unmatched_adults

MAX_WIFE_AGE_FOR_EXTRA = 40
MAX_BRIDE_AGE = 40


def play_births(campaign: Campaign, source: DiceSource) -> None:
    children = living_children_counts(campaign)
    year = campaign.current_year
    for status in birth_couples(campaign):
        if not status.may_attempt:
            continue
        m = status.marriage
        made = 0
        while made < br.MAX_BIRTH_ATTEMPTS:
            if made > 0:
                wife_con = int(m.wife.characteristics.get("constitution", 0))
                if (
                    children.get(m.pk, 0) >= 3
                    or m.wife.age(year) > MAX_WIFE_AGE_FOR_EXTRA
                    or wife_con + br.birth_penalty(made + 1) < -1
                ):
                    break
            attempt = services.births_attempt(campaign=campaign, marriage=m, source=source)
            made += 1
            if attempt.success:
                services.births_sex(campaign=campaign, attempt=attempt, source=source)
                children[m.pk] = children.get(m.pk, 0) + 1
    services.births_finish(campaign=campaign)


def play_marriages(campaign: Campaign) -> None:
    year = campaign.current_year
    for m in Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=True).select_related(
        "husband", "wife"
    ):
        if m.husband.age(year) >= br.ADULT_AGE and m.wife.age(year) >= br.ADULT_AGE and not (
            m.husband.prisoner_of_id or m.wife.prisoner_of_id
        ):
            services.marriage_wed(campaign=campaign, marriage=m)
    adults = unmatched_adults(campaign)
    men = [c for c in adults if c.sex == "M"]
    women = [c for c in adults if c.sex == "F" and c.age(year) <= MAX_BRIDE_AGE]
    for man in men:
        choices = [
            w for w in women
            if w.dynastic_name != man.dynastic_name and w.controlled_by_id != man.controlled_by_id
        ]
        if not choices:
            continue
        bride = min(choices, key=lambda w: (abs(w.birth_year - man.birth_year), w.birth_year, w.pk))
        women.remove(bride)
        services.marriage_arrange(campaign=campaign, husband=man, wife=bride, wed=True)
    services.marriages_finish(campaign=campaign)


def play_turn(campaign: Campaign, source: DiceSource) -> Campaign:
    """Play the rest of the current turn's Dynastic Sequence and advance to the next turn."""
    campaign.refresh_from_db()
    if campaign.step == Step.BIRTHS:
        play_births(campaign, source)
        campaign.refresh_from_db()
    if campaign.step == Step.SURVIVAL:
        services.survival_roll(campaign=campaign, source=source)
        services.survival_finish(campaign=campaign, source=source)
        campaign.refresh_from_db()
    if campaign.step == Step.MARRIAGES:
        play_marriages(campaign)
        campaign.refresh_from_db()
    if campaign.step == Step.ANNOUNCEMENTS:
        services.announcements_make(campaign=campaign)
        campaign.refresh_from_db()
    services.turn_advance(campaign=campaign)
    campaign.refresh_from_db()
    return campaign


def simulate(
    campaign: Campaign, *, turns: int, source: DiceSource, on_turn: Callable[[Campaign], None] | None = None
) -> Campaign:
    for _ in range(turns):
        campaign = play_turn(campaign, source)
        if on_turn is not None:
            on_turn(campaign)
    return campaign
