"""``marriage_checker`` (the simulator's many checks) says what ``marriage_check`` says, pair by pair,
and asks the database nothing per pair."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Marriage, Status
from dynasties.services import campaign_create, marriage_check
from dynasties.services.marriages import marriage_checker
from operations.simulation import simulate
from rules import blood_royale as br
from rules import bloodline as bl
from rules.dice import RandomSource


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", [br.NAME, bl.NAME])
def test_the_checker_agrees_with_marriage_check(ruleset: str) -> None:
    campaign = campaign_create(name="Checked", players=5, source=RandomSource(5), ruleset=ruleset)
    campaign = simulate(campaign, turns=8, source=RandomSource(5), by=SYSTEM_ACTOR)
    people = list(
        Character.objects.filter(campaign=campaign, status=Status.ALIVE, birth_year__lte=campaign.current_year - 12).order_by(
            "pk"
        )
    )
    men = [c for c in people if c.sex == "M"]
    women = [c for c in people if c.sex == "F"]
    betrothed = list(Marriage.objects.filter(campaign=campaign, ended_year__isnull=True).select_related("husband", "wife"))
    assert men and women and betrothed
    for wedding in (False, True):
        check = marriage_checker(campaign, [c.pk for c in people], wedding=wedding)
        with CaptureQueriesContext(connection) as ctx:
            mine = {(m.pk, w.pk): check(m, w, None) for m in men for w in women}
            own = {m.pk: check(m.husband, m.wife, m) for m in betrothed}
        assert len(ctx.captured_queries) == 0
        assert mine == {(m.pk, w.pk): marriage_check(campaign, m, w, wedding=wedding) for m in men for w in women}
        assert own == {m.pk: marriage_check(campaign, m.husband, m.wife, wedding=wedding, exclude=m) for m in betrothed}
        assert any(mine.values()) and not all(mine.values())  # both answers are exercised
