"""BloodLine titles (RULES.md B, Titles)."""

from __future__ import annotations

import pytest

from campaign.models import Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Dynasty, Reign, Status, Title
from dynasties.services import campaign_create, survival_finish, survival_roll
from dynasties.services.bloodline_titles import bloodline_title_grant, title_income
from dynasties.services.common import World
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.factories import at_step, person


@pytest.fixture
def eu(db):
    c = campaign_create(name="Europa", ruleset="eu-bloodline", players=2, source=RandomSource(8))
    france = Dynasty.objects.get(campaign=c, crown="France")
    king = Reign.objects.get(campaign=c, crown="France").holder
    Character.objects.filter(father=king).update(status=Status.DEAD, death_year=1491)  # a clean slate of children
    kids = [person(c, france, n, "M", y, father=king) for n, y in (("Elder", 1470), ("Middle", 1472), ("Younger", 1474))]
    return c, france, king, kids


def land(*pairs):
    return [{"name": n, "value": v} for n, v in pairs]


@pytest.mark.django_db
def test_children_first_eldest_first_in_decreasing_value(eu):
    c, france, _king, (elder, middle, younger) = eu
    outsider = person(c, france, "Cousin", "M", 1460)
    with pytest.raises(RuleError, match="All the monarch's direct children must be titled before anyone outside the line"):
        bloodline_title_grant(
            campaign=c, giver=france, character=outsider, name="Count of Foix", provinces=land(("Foix", 2)), by=SYSTEM_ACTOR
        )
    with pytest.raises(RuleError, match="Elder Anjou is older and still untitled"):
        bloodline_title_grant(
            campaign=c, giver=france, character=middle, name="Duke of Berry", provinces=land(("Berry", 3)), by=SYSTEM_ACTOR
        )
    t = bloodline_title_grant(
        campaign=c,
        giver=france,
        character=elder,
        name="Duke of Burgundy",
        provinces=land(("Burgundy", 5), ("Nevers", 2)),
        by=SYSTEM_ACTOR,
    )
    assert title_income(t).total == 12 and title_income(t).controller_share == 6  # 5 + 2 + 5; half rounded up
    with pytest.raises(RuleError, match="worth 8, more than the 7"):
        bloodline_title_grant(
            campaign=c, giver=france, character=middle, name="Duke of Brittany", provinces=land(("Brittany", 8)), by=SYSTEM_ACTOR
        )
    bloodline_title_grant(
        campaign=c, giver=france, character=middle, name="Duke of Berry", provinces=land(("Berry", 3)), by=SYSTEM_ACTOR
    )
    with pytest.raises(RuleError, match="Berry already belong to another title"):
        bloodline_title_grant(
            campaign=c, giver=france, character=younger, name="Count of Berry", provinces=land(("Berry", 1)), by=SYSTEM_ACTOR
        )
    bloodline_title_grant(
        campaign=c, giver=france, character=younger, name="Count of Maine", provinces=land(("Maine", 1)), by=SYSTEM_ACTOR
    )
    bloodline_title_grant(
        campaign=c, giver=france, character=outsider, name="Count of Foix", provinces=land(("Foix", 2)), by=SYSTEM_ACTOR
    )
    with pytest.raises(RuleError, match="land value must be a whole number"):
        bloodline_title_grant(campaign=c, giver=france, character=outsider, name="X", provinces=land(("Y", 99)), by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_titles_pass_to_descendants_and_a_new_monarch_loses_his_in_country_titles(eu):
    c, france, king, (elder, _middle, _younger) = eu
    title = bloodline_title_grant(
        campaign=c, giver=france, character=elder, name="Duke of Burgundy", provinces=land(("Burgundy", 5)), by=SYSTEM_ACTOR
    )
    at_step(c, Step.SURVIVAL)
    faces = {p.pk: [7, 7] for p in World(c).in_play()}
    faces[king.pk] = [1, 1]
    survival_roll(campaign=c, faces=faces, by=SYSTEM_ACTOR)
    survival_finish(campaign=c, by=SYSTEM_ACTOR)
    assert Reign.objects.get(campaign=c, crown="France", end_year__isnull=True).holder == elder
    title.refresh_from_db()
    assert title.holder is None  # all its lands are in his own country
    assert Title.objects.filter(campaign=c, holder__isnull=False).count() == 0


@pytest.mark.django_db
def test_a_title_passes_down_to_the_holders_descendants_only(eu):
    c, france, _king, (elder, _middle, _younger) = eu
    grandson = person(c, france, "Grandson", "M", 1490, father=elder)
    title = bloodline_title_grant(
        campaign=c, giver=france, character=elder, name="Duke of Burgundy", provinces=land(("Burgundy", 5)), by=SYSTEM_ACTOR
    )
    at_step(c, Step.SURVIVAL)
    faces = {p.pk: [7, 7] for p in World(c).in_play()}
    faces[elder.pk] = [1, 1]
    survival_roll(campaign=c, faces=faces, by=SYSTEM_ACTOR)
    survival_finish(campaign=c, by=SYSTEM_ACTOR)
    title.refresh_from_db()
    assert title.holder == grandson


@pytest.mark.django_db
def test_the_admin_shows_title_income_and_the_diplomacy_bonus(eu, admin_client):
    from django.urls import reverse

    c, france, _king, (elder, _m, _y) = eu
    bloodline_title_grant(
        campaign=c,
        giver=france,
        character=elder,
        name="Duke of Burgundy",
        provinces=land(("Burgundy", 5), ("Nevers", 2)),
        by=SYSTEM_ACTOR,
    )
    page = admin_client.get(reverse("admin:dynasties_title_changelist")).content.decode()
    assert "12 (6)" in page
    minor = Dynasty.objects.create(campaign=c, name="Savoia", crown="Savoy", kind="minor", seat=9)
    page = admin_client.get(reverse("admin:dynasties_dynasty_change", args=[minor.pk])).content.decode()
    assert "Diplomacy bonus of each player" in page
    assert "Anjou: 0 (no marriage into its royal house)" in page
