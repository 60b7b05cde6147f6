"""A Queen regnant widowed by a King does not retire (found with issue 15, defect 7: the simulator's
Queen of Italy in a Dynastic Union retired as the King of Germany's widow and left a throne held by
a retired Queen)."""

from __future__ import annotations

import pytest

from dynasties.models import Character, Marriage, Reign, Status
from tests.factories import crown
from tests.test_announcements import king_of, to_announcements


@pytest.mark.django_db
def test_a_queen_regnant_widowed_by_a_king_keeps_her_throne(campaign):
    """'Monarchs may not abdicate, nor be deposed' (rule 9): the King's widow who is herself the
    Queen of another country reigns on; only a widow who does not reign retires ('except the widow
    of a King, who is retired')."""
    king = king_of(campaign, "Spain")
    queen = Marriage.objects.get(husband=king).wife
    crown(campaign, queen, "Italy", campaign.current_year)
    to_announcements(campaign, {king.pk})
    queen = Character.objects.get(pk=queen.pk)
    assert queen.status == Status.ALIVE and queen.retired_year is None
    assert Reign.objects.get(campaign=campaign, crown="Italy", end_year__isnull=True).holder == queen
