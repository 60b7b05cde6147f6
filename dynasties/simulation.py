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
from dynasties.rules import bloodline as bl
from dynasties.rules.dice import DiceSource
from dynasties.selectors import living_children_counts, unmatched_adults
from dynasties.services.births import CoupleTurn

MAX_WIFE_AGE_FOR_EXTRA = 40
MAX_BRIDE_AGE = 40


def wants_another_child(turn: CoupleTurn, children: dict[int, int], year: int) -> bool:
    m = turn.marriage
    return (
        children.get(m.pk, 0) + turn.children_this_turn < 3
        and m.wife.age(year) <= MAX_WIFE_AGE_FOR_EXTRA
        and turn.wife_constitution_after_next >= -1
    )


def play_births(campaign: Campaign, source: DiceSource) -> None:
    children = living_children_counts(campaign)
    year = campaign.current_year
    services.births_roll_all(
        campaign=campaign, source=source, extra=lambda turn: wants_another_child(turn, children, year)
    )
    services.births_finish(campaign=campaign)


def wed_due(campaign: Campaign) -> None:
    """Wed every betrothed couple now of age (BloodLine: at the start of the Diplomacy phase)."""
    year = campaign.current_year
    bloodline = campaign.ruleset == bl.NAME
    due = [
        m.pk
        for m in Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=True)
        .select_related("husband", "wife")
        .order_by("pk")  # the same order in any process and on any database
        if (m.husband.effective_age(year) if bloodline else m.husband.age(year)) >= br.ADULT_AGE
        and (m.wife.effective_age(year) if bloodline else m.wife.age(year)) >= br.ADULT_AGE
        and not (m.husband.prisoner_of_id or m.wife.prisoner_of_id)
        and services.marriage_check(campaign, m.husband, m.wife, wedding=True, exclude=m) == []
    ]
    if due:
        services.marriage_wed_many(campaign=campaign, marriages=due)


def play_marriages(campaign: Campaign) -> None:
    year = campaign.current_year
    if campaign.ruleset == bl.NAME:  # betrothals now, weddings in the Diplomacy phase
        _match_adults(campaign, year, wed=False)
        services.marriages_finish(campaign=campaign)
        return
    due = [
        m.pk
        for m in Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=True)
        .select_related("husband", "wife")
        .order_by("pk")  # the same order in any process and on any database
        if m.husband.age(year) >= br.ADULT_AGE
        and m.wife.age(year) >= br.ADULT_AGE
        and not (m.husband.prisoner_of_id or m.wife.prisoner_of_id)
    ]
    if due:
        services.marriage_wed_many(campaign=campaign, marriages=due)
    _match_adults(campaign, year, wed=True)
    services.marriages_finish(campaign=campaign)


def _match_adults(campaign: Campaign, year: int, *, wed: bool) -> None:
    adults = unmatched_adults(campaign)
    men = [c for c in adults if c.sex == "M"]
    women = [c for c in adults if c.sex == "F" and c.age(year) <= MAX_BRIDE_AGE]
    matches: list[services.Match] = []
    for man in men:
        choices = [
            w for w in women if w.dynastic_name != man.dynastic_name and w.controlled_by_id != man.controlled_by_id
        ]
        if not choices:
            continue
        bride = min(choices, key=lambda w: (abs(w.birth_year - man.birth_year), w.birth_year, w.pk))
        women.remove(bride)
        if campaign.ruleset == bl.NAME:  # a monarch's family asks a dowry and a title: the policy offers them
            matches.append(services.Match(man.pk, bride.pk, dowry="100 ducats", alliance_title="Count of the Marches"))
        else:
            matches.append(services.Match(man.pk, bride.pk))
    services.marriage_arrange_many(campaign=campaign, matches=matches, wed=wed)


def play_monarchs(campaign: Campaign, source: DiceSource) -> None:
    """EU monarchs: each throne rolls for its monarch's survival; an empty throne rolls a successor."""
    from dynasties.models import Crown
    from dynasties.services import eu_monarchs

    for crown in Crown.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True):
        status = eu_monarchs.monarch_status(campaign=campaign, crown=crown)
        if status.monarch is not None and not status.survival_rolled:
            if not eu_monarchs.monarch_survival_roll(campaign=campaign, crown=crown, source=source).died:
                continue
        elif status.monarch is not None:
            continue
        eu_monarchs.monarch_succession_roll(campaign=campaign, crown=crown, source=source)


def play_turn(campaign: Campaign, source: DiceSource) -> Campaign:
    """Play the rest of the current turn's Dynastic Sequence and advance to the next turn."""
    campaign.refresh_from_db()
    if campaign.step == Step.BIRTHS:
        play_births(campaign, source)
        campaign.refresh_from_db()
    if campaign.step == Step.SURVIVAL and campaign.ruleset == "eu-monarchs":
        play_monarchs(campaign, source)
    if campaign.step == Step.SURVIVAL:
        services.survival_roll(campaign=campaign, source=source)
        services.survival_finish(campaign=campaign, source=source)
        campaign.refresh_from_db()
    if campaign.step == Step.MARRIAGES:
        play_marriages(campaign)
        campaign.refresh_from_db()
    if campaign.step == Step.ANNOUNCEMENTS:
        services.announcements_make(campaign=campaign, source=source)
        campaign.refresh_from_db()
    if campaign.ruleset == bl.NAME:
        wed_due(campaign)
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
