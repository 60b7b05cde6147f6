"""One monarch, two crowns (Blood Royale, A7 'Controlling Two Countries'; found by the independent
cross-check, issue 15): a King who comes to a second throne stays with the player who controls
him and that player controls both crowns; a Queen of two crowns who weds a King brings both into
the Dynastic Union."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Crown, Dynasty, Marriage, Reign, Status
from dynasties.services import marriage_arrange
from tests.factories import at_step, crown, empty_house, person
from tests.test_bloodline_succession import kill


def reigning(campaign, name):
    return Reign.objects.get(campaign=campaign, crown=name, end_year__isnull=True).holder


def uncle_of_testland(campaign):
    """Testland's first King (dead) had two sons: its next King, the uncle, and the King of France."""
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    testhouse = empty_house(campaign)
    king = reigning(campaign, "France")
    grandfather = person(campaign, testhouse, "Grand", "M", 1200)
    Character.objects.filter(pk=grandfather.pk).update(status=Status.DEAD, death_year=1260)
    uncle = person(campaign, testhouse, "Uncle", "M", 1240, father=grandfather)
    Character.objects.filter(pk=king.pk).update(father=grandfather)  # France's King is the uncle's brother
    crown(campaign, grandfather, "Testland", 1230)
    return france, testhouse, king, grandfather, uncle


@pytest.mark.django_db
def test_a_king_who_inherits_a_second_crown_brings_it_to_his_player(campaign):
    """'If a Dynastic Union takes place ... the male character's player will control both countries'
    and 'The player controlling the annexed country has complete control over it': a monarch wears
    two crowns for one player. The King of France inherits Testland from his uncle; before, he was
    moved into the Testland house, leaving France played by a house whose King it no longer held."""
    france, _testhouse, king, _grandfather, uncle = uncle_of_testland(campaign)
    crown(campaign, uncle, "Testland", 1260)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, uncle.pk)
    assert reigning(campaign, "Testland") == king
    king.refresh_from_db()
    assert king.controlled_by == france
    assert Crown.objects.get(campaign=campaign, name="Testland").controlled_by == france
    assert Crown.objects.get(campaign=campaign, name="France").controlled_by == france
    line = ChronicleEntry.objects.filter(campaign=campaign, kind="return").latest("pk").text
    assert "controls both crowns" in line and "Testhouse is landless" in line


@pytest.mark.django_db
def test_a_queen_of_two_crowns_who_weds_a_king_brings_both_into_the_union(campaign):
    """'If the new Queen is married to a King ... a Dynastic Union takes place, and the player of the
    male character takes control of both countries': a Queen who wears two crowns brings both."""
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    empty_house(campaign)
    queen = person(campaign, england, "Matilda", "F", 1276)
    crown(campaign, queen, "England", campaign.current_year)
    crown(campaign, queen, "Testland", campaign.current_year)
    king = reigning(campaign, "France")
    for first in Marriage.objects.filter(husband=king, ended_year__isnull=True):
        Character.objects.filter(pk=first.wife_id).update(status=Status.DEAD, death_year=campaign.current_year)
        Marriage.objects.filter(pk=first.pk).update(ended_year=campaign.current_year, end_cause="death of the wife")
    at_step(campaign, Step.MARRIAGES)
    marriage_arrange(campaign=campaign, husband=king, wife=queen, wed=True, by=SYSTEM_ACTOR)
    for name in ("England", "Testland"):
        record = Crown.objects.get(campaign=campaign, name=name)
        assert record.controlled_by == france and record.union_with is not None, name
    unions = ChronicleEntry.objects.filter(campaign=campaign, kind="union")
    assert sorted(e.data["crown"] for e in unions) == ["England", "Testland"]


@pytest.mark.django_db
def test_the_second_crown_goes_home_when_the_monarch_of_both_dies_and_another_heir_takes_it(campaign):
    """The player of a King of two crowns holds the second 'as long as the country is ruled by a
    "foreign" monarch': at his death the crowns pass each to its heir; Testland's (his son renounced
    it) is of its own house again, and Testland with him (before: it stayed with France's house)."""
    from dynasties.services.claims import claim_renounce

    france, testhouse, king, _grandfather, uncle = uncle_of_testland(campaign)
    cousin = person(campaign, testhouse, "Cousin", "M", 1270, father=uncle)
    crown(campaign, king, "Testland", 1260)
    Crown.objects.create(campaign=campaign, name="Testland", home_dynasty=testhouse, controlled_by=france)
    Character.objects.filter(pk=uncle.pk).update(status=Status.DEAD, death_year=1290)
    for son in Character.objects.filter(father=king, status=Status.ALIVE):
        claim_renounce(campaign=campaign, character=son, crown="Testland", by=SYSTEM_ACTOR)
    at_step(campaign, Step.SURVIVAL)
    kill(campaign, king.pk)
    assert reigning(campaign, "Testland") == cousin
    assert Crown.objects.get(campaign=campaign, name="Testland").controlled_by == testhouse
    cousin.refresh_from_db()
    assert cousin.controlled_by == testhouse
    assert reigning(campaign, "France").controlled_by == france
