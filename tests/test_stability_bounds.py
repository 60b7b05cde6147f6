"""Stability stays on the EU board game's track, -3..+3, whatever changes it (issue 15, defect 5;
rules/stability.py through dynasties/services/bloodline.stability): the GM's own changes and
BloodLine's minority costs (its play's law.turn_effects), the EU monarchs' Dynastic Crises (services.eu_monarchs).
A cost beyond -3 moves the marker no further; the chronicle says so and the history keeps the cost
(docs/rulings.md, "The Stability track")."""

from __future__ import annotations

import pytest

from campaign.dice import DiceBox
from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle
from dynasties.models import Crown, CrownEvent, Reign
from dynasties.play.bloodline.law import turn_effects
from dynasties.services import campaign_create
from dynasties.services.bloodline import crown_stability_change
from dynasties.services.common import World
from dynasties.services.eu_monarchs import monarch_place_named, monarch_succession_roll, monarch_survival_roll
from rules.dice import RandomSource
from tests.factories import at_step, crown, person

pytestmark = pytest.mark.django_db


def history(campaign, name: str) -> list[tuple[int, int]]:
    return list(
        CrownEvent.objects.filter(campaign=campaign, crown__name=name, kind="stability")
        .order_by("pk")
        .values_list("delta", "stability_after")
    )


def stability_lines(campaign) -> list[str]:
    return [e.text for e in ChronicleEntry.objects.filter(campaign=campaign, kind="stability").order_by("pk")]


def test_the_gms_stability_changes_stop_at_the_ends_of_the_track(campaign):
    """The Stability track runs from -3 to +3 ('Mandatory peace if two consecutive turns at -3
    Stability'): three bankruptcies of -2 leave France at -3, not -6."""
    for _ in range(3):
        crown_stability_change(campaign=campaign, crown="France", delta=-2, reason="bankruptcy", by=SYSTEM_ACTOR)
    assert Crown.objects.get(campaign=campaign, name="France").stability == -3
    # the history keeps each cost as the rule gave it and where the marker stood after it
    assert history(campaign, "France") == [(-2, -2), (-2, -3), (-2, -3)]
    assert stability_lines(campaign) == [
        "France: -2 Stability (bankruptcy); now -2.",
        "France: -2 Stability (bankruptcy); only -1: the track ends at -3 (1 level beyond it, no effect); now -3.",
        "France: -2 Stability (bankruptcy); already at -3, the end of the track: no effect (2 levels beyond it); now -3.",
    ]
    crown_stability_change(campaign=campaign, crown="France", delta=5, reason="peace and plenty", by=SYSTEM_ACTOR)
    crown_stability_change(campaign=campaign, crown="France", delta=3, reason="a great victory", by=SYSTEM_ACTOR)
    assert Crown.objects.get(campaign=campaign, name="France").stability == 3
    assert history(campaign, "France")[-2:] == [(5, 2), (3, 3)]


def test_a_minor_on_a_bloodline_throne_costs_stability_down_to_minus_three_only(campaign):
    """'New Monarchs who are under 15 years old inflict a -1 Stability per Turn on their country
    until their reach their 15th birthday': five turns of a child King cost -3 at most."""
    campaign.ruleset = "eu-bloodline"
    campaign.save()
    at_step(campaign, Step.SURVIVAL)
    france = Reign.objects.get(campaign=campaign, crown="France", end_year__isnull=True).holder.controlled_by
    boy = person(campaign, france, "Louis", "M", campaign.current_year - 4)
    crown(campaign, boy, "France", campaign.current_year)
    for _ in range(5):
        chronicle = Chronicle(campaign)
        turn_effects(World(campaign), DiceBox(campaign, source=RandomSource(1)), chronicle)
        chronicle.flush()
    assert Crown.objects.get(campaign=campaign, name="France").stability == -3
    assert [after for _, after in history(campaign, "France")] == [-1, -2, -3, -3, -3]
    assert stability_lines(campaign)[-1] == (
        "France: -1 Stability (Louis Anjou is a minor); already at -3, the end of the track: no effect "
        "(1 level beyond it); now -3."
    )


def test_repeated_turkish_crises_leave_turkey_at_minus_three(db):
    """The Turkish column's 11+ is 'R + DC', and a Dynastic Crisis costs '-2 Stability' (the aid: 'DC
    Dynastic crisis, stats/2 at turn 1, -2 Stability, reroll'): four crises in a row leave Turkey at
    -3, the end of the track, not -8."""
    campaign = campaign_create(name="Europa", ruleset="eu-monarchs", players=5, source=RandomSource(2))
    monarch_place_named(
        campaign=campaign, crown="Turkey", given_name="Bayezid", adm=6, dip=4, mil=6, replace=True, by=SYSTEM_ACTOR
    )
    for turn in range(4):
        died = monarch_survival_roll(campaign=campaign, crown="Turkey", faces=[10], by=SYSTEM_ACTOR)
        assert died.died and died.result.crisis
        new = monarch_succession_roll(
            campaign=campaign,
            crown="Turkey",
            faces={"succession": [5], "adm": [5], "dip": [5], "mil": [5], "reign": [5]},
            by=SYSTEM_ACTOR,
        )
        assert new.crisis
        assert -3 <= Crown.objects.get(campaign=campaign, name="Turkey").stability <= 3, f"crisis {turn + 1}"
        campaign.refresh_from_db()
        campaign.current_year += campaign.turn_length
        campaign.save()
    assert Crown.objects.get(campaign=campaign, name="Turkey").stability == -3
    assert history(campaign, "Turkey") == [(-2, -2), (-2, -3), (-2, -3), (-2, -3)]
    assert stability_lines(campaign)[-1] == (
        "Turkey: -2 Stability (Dynastic Crisis); already at -3, the end of the track: no effect (2 levels beyond it); now -3."
    )
