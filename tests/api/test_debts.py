"""Issue 34: a contract's unpaid payment (a debt) through the API: the balances say what each house
owes and is owed under contracts (not in its balance), to the two houses and the GM only."""

from __future__ import annotations

import pytest

from dynasties.models import Dynasty
from tests.api.conftest import url
from tests.test_pages_debts import _debt


@pytest.mark.django_db
def test_the_balances_say_what_a_house_owes_and_is_owed(campaign, gm, alice, bob, client_for):
    _debt(campaign, third="France")  # Germany owes England 80; France is a party to the contract
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    germany = Dynasty.objects.get(campaign=campaign, crown="Germany")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    rows = {r["dynasty"]: r for r in client_for(gm).get(url(campaign, "balances")).json()}
    assert (rows[germany.pk]["owes"], rows[germany.pk]["owed"], rows[germany.pk]["balance"]) == (80, 0, 0)
    assert (rows[england.pk]["owes"], rows[england.pk]["owed"]) == (0, 80)
    [mine] = client_for(alice).get(url(campaign, "balances")).json()
    assert (mine["dynasty"], mine["owed"]) == (england.pk, 80)
    assert client_for(alice).get(url(campaign, "balances", england.pk)).json()["owed"] == 80
    [his] = client_for(bob).get(url(campaign, "balances")).json()  # a third party: not his debt
    assert (his["dynasty"], his["owes"], his["owed"]) == (france.pk, 0, 0)
