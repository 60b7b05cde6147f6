"""BloodLine's Dynastic Union at the Queen's death (issue 15, defect 3)."""

from __future__ import annotations

import pytest

from campaign.models import Step
from dynasties.models import Character, Crown, Dynasty, Reign, Status
from tests.factories import at_step, person
from tests.test_bloodline_succession import bloodline, kill
from tests.test_union_ends import union


@pytest.mark.django_db
def test_none_of_a_union_queens_children_inherit_her_crown(campaign):
    """BloodLine, Dynastic Union: 'When the Queen or King dies the dynastic union is over and none of
    her children may inherit (for simplicity, it has to end somewhere), and the line passes to the
    next logical successor from the Queen's family.'"""
    bloodline(campaign)
    _england, france, queen, sister, king = union(campaign)
    late_king = Character.objects.get(pk=queen.father_id)
    assert Crown.objects.get(campaign=campaign, name="England").union_with is not None
    son = person(campaign, france, "Louis", "M", 1300, father=king, mother=queen)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, queen.pk)
    heir = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    assert heir != son and heir.father_id == late_king.pk  # her family's next: a brother or a sister, not Louis
    assert sister.father_id == late_king.pk
    assert Crown.objects.get(campaign=campaign, name="England").union_with is None  # the union is over


@pytest.mark.django_db
def test_the_unions_children_stay_barred_when_the_king_died_first(campaign):
    """'When the Queen or King dies the dynastic union is over and none of her children may inherit':
    the bar comes with the union's end, whichever spouse dies first (docs/rulings.md). The King of
    France dies; the Queen of England reigns on, widowed; at her death her son by him does not
    inherit England, her father's line does."""
    bloodline(campaign)
    _england, france, queen, sister, king = union(campaign)
    late_king = Character.objects.get(pk=queen.father_id)
    son = person(campaign, france, "Louis", "M", 1301, father=king, mother=queen)
    at_step(campaign, Step.SURVIVAL, year=1305)
    kill(campaign, king.pk)  # the King first: the union is over, the Queen reigns on
    assert Crown.objects.get(campaign=campaign, name="England").union_with is None
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder == queen
    at_step(campaign, Step.SURVIVAL, year=1310)
    kill(campaign, queen.pk)
    heir = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    assert heir != son and heir.father_id == late_king.pk
    assert sister.father_id == late_king.pk


@pytest.mark.django_db
def test_bloodline_characters_retired_before_the_fix_come_back_into_play(campaign):
    """BloodLine: 'If her husband dies first, the wife is returned to her original family' (no
    retirement): the data migration brings back the widows an older version retired."""
    import importlib

    from django.apps import apps

    bloodline(campaign)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    widow = person(campaign, france, "Blanche", "F", 1280)
    Character.objects.filter(pk=widow.pk).update(status=Status.RETIRED, birth_dynasty=england, controlled_by=france)
    migration = importlib.import_module("dynasties.migrations.0009_bloodline_unretire")
    migration.unretire(apps, None)
    widow.refresh_from_db()
    assert widow.status == Status.ALIVE and widow.controlled_by == england
