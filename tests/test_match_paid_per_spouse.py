"""A match's 100 Crowns are owed once per spouse (Blood Royale A6): "If a bride marries a King or a
Prince who later becomes a King, the player from whose Dynasty she came receives 100 Crowns ... The
same applies to a male child who marries a Queen". When both spouses were born to one house, the
bride's 100 paid at her wedding to a reigning King are not the groom's when she comes to a throne of
her own later (found by the cross-check BR-monarch-match over a simulated campaign, issue 33)."""

from __future__ import annotations

import pytest

from campaign.steps import Chronicle
from dynasties.models import Dynasty, Marriage, Posting, PostingKind, Reign
from dynasties.services.common import World
from dynasties.services.succession import pay_monarch_match
from tests.factories import person, wed


@pytest.mark.django_db
def test_the_grooms_house_is_paid_when_his_wife_comes_to_a_throne_after_her_own_house_was_paid(campaign):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    king = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    year = campaign.current_year
    cousin = person(campaign, england, "Mary", "F", year - 20)
    Reign.objects.filter(campaign=campaign, holder=king).update(start_year=year - 10)
    Marriage.objects.filter(campaign=campaign, husband=king, ended_year__isnull=True).update(
        ended_year=year, end_cause="death of the wife"
    )  # a widower
    match = wed(campaign, king, cousin, year)
    Posting.objects.create(  # her wedding to the reigning King: 100 to her house (England)
        campaign=campaign,
        payer=None,
        payee=england,
        amount=100,
        kind=PostingKind.MONARCH_MATCH,
        reason="wedding",
        marriage=match,
        year=year,
    )
    Reign.objects.filter(campaign=campaign, crown="France", end_year__isnull=True).update(end_year=year)
    Reign.objects.create(campaign=campaign, crown="France", holder=cousin, start_year=year)  # she inherits France
    chronicle = Chronicle(campaign)
    pay_monarch_match(World(campaign), cousin, "France", chronicle)
    paid = Posting.objects.filter(campaign=campaign, kind=PostingKind.MONARCH_MATCH, payee=england).order_by("id")
    assert [(p.amount, p.character_id) for p in paid] == [(100, None), (100, king.pk)]
    # and once only: she does not bring his house 100 again for a third throne
    pay_monarch_match(World(campaign), cousin, "France", chronicle)
    assert paid.count() == 2
