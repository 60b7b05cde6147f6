"""The EU monarch tables' board events of issue 32 that set a country's rules and fill a throne during play:
"A country's rules changed by the board" (``monarch_crown_configure``: France's event III-11, Spain's
alliances, a Doge ...) and "A historical monarch crowned" (``eu_monarch_crowned``: one of the aid's named
monarchs, or a typed one, on a vacant throne instead of the succession roll), from the page and the API."""

from __future__ import annotations

import pytest

from campaign.undo import new_action_key
from dynasties.models import Crown, Reign, Status
from dynasties.services.eu_monarchs import monarch_crown_configure, monarch_status
from tests.events_helpers import logged, page
from tests.test_eu_crowns import build_europa, monarch, send

pytestmark = pytest.mark.django_db


@pytest.fixture
def europa(gm, alice, bob):
    return build_europa(gm, alice, bob)


def vacate(campaign, crown: str) -> None:
    """The crown's monarch dies at the table this turn (the grid's death, in short)."""
    reign = Reign.objects.get(campaign=campaign, crown=crown, end_year__isnull=True)
    holder = reign.holder
    holder.status, holder.death_year = Status.DEAD, campaign.current_year
    holder.save()
    reign.end_year = campaign.current_year
    reign.save()


def post(user, campaign, key: str, body: dict):
    return logged(user).post(page(campaign, key), {**body, "action_key": new_action_key()})


def test_the_gm_records_frances_event_and_its_successors_read_column_6(europa, gm, alice):
    before = monarch_status(campaign=europa, crown="France").rules.base_column
    done = post(gm, europa, "monarch_crown_configure", {"crown": "France", "change": "event"})
    assert done.status_code == 302, done.content.decode()[:2000]
    assert Crown.objects.get(campaign=europa, name="France").state["base_column_event_passed"] is True
    assert (before, monarch_status(campaign=europa, crown="France").rules.base_column) == (5, 6)
    refused = post(alice, europa, "monarch_crown_configure", {"crown": "France", "change": "no_event"})
    assert refused.status_code in (403, 404)
    assert Crown.objects.get(campaign=europa, name="France").state["base_column_event_passed"] is True


def test_spains_alliances_need_their_number_and_move_its_column(europa, gm):
    missing = post(gm, europa, "monarch_crown_configure", {"crown": "Spain", "change": "alliances"})
    assert missing.status_code == 400 and "Give the number of dynastic alliances." in missing.content.decode()
    assert "dynastic_alliances" not in (Crown.objects.get(campaign=europa, name="Spain").state or {})
    done = send(gm, europa, "monarch_crown_configure", {"crown": "Spain", "change": "alliances", "number": 3})
    assert done.status_code in (200, 201), done.content
    assert Crown.objects.get(campaign=europa, name="Spain").state["dynastic_alliances"] == 3


def test_a_historical_monarch_takes_a_vacant_throne_with_the_aids_values(europa, gm):
    living = post(gm, europa, "eu_monarch_crowned", {"crown": "Poland", "how": "historical", "named": "Sobieski"})
    assert living.status_code == 400 and "Poland" in living.content.decode()  # Báthory reigns: not vacant
    vacate(europa, "Poland")
    done = post(gm, europa, "eu_monarch_crowned", {"crown": "Poland", "how": "historical", "named": "Sobieski"})
    assert done.status_code == 302, done.content.decode()[:2000]
    king = monarch(europa, "Poland")
    assert king.dynastic_name == "Sobieski"
    assert {k: king.characteristics[k] for k in ("adm", "dip", "mil")} == {"adm": 8, "dip": 7, "mil": 9}


def test_a_historical_monarch_out_of_his_period_is_refused_with_the_aids_condition(europa, gm):
    monarch_crown_configure(campaign=europa, crown="Turkey", settings={"country": "Turkey"}, by=gm)  # a vacant throne
    form = logged(gm).get(page(europa, "eu_monarch_crowned")).content.decode()
    assert "Turkey: Süleyman I" in form and "first Sultan of period II" in form
    refused = send(gm, europa, "eu_monarch_crowned", {"crown": "Turkey", "how": "historical", "named": "Süleyman I"})
    assert refused.status_code == 400
    assert "Süleyman I reigns in period II, not in period I" in refused.json()["message"]
    assert not Reign.objects.filter(campaign=europa, crown="Turkey").exists()
    done = send(gm, europa, "eu_monarch_crowned", {"crown": "Turkey", "how": "historical", "named": "Selim I"})
    assert done.status_code in (200, 201), done.content  # period I: his values rolled under his name
    assert monarch(europa, "Turkey").given_name == "Selim"


def test_a_typed_monarch_through_the_api_and_his_values_checked(europa, gm):
    vacate(europa, "Spain")
    bad = send(gm, europa, "eu_monarch_crowned", {"crown": "Spain", "how": "typed", "given_name": "Carlos", "adm": 5})
    assert bad.status_code == 400 and "fields" in bad.json()
    assert not Reign.objects.filter(campaign=europa, crown="Spain", end_year__isnull=True).exists()
    done = send(
        gm,
        europa,
        "eu_monarch_crowned",
        {"crown": "Spain", "how": "typed", "given_name": "Carlos II", "adm": 4, "dip": 6, "mil": 3, "reign_turns": 4},
    )
    assert done.status_code in (200, 201), done.content
    king = monarch(europa, "Spain")
    assert king.given_name == "Carlos" and {k: king.characteristics[k] for k in ("adm", "dip", "mil")} == {
        "adm": 4,
        "dip": 6,
        "mil": 3,
    }
    reign = Reign.objects.get(campaign=europa, crown="Spain", end_year__isnull=True)
    assert reign.numeral == 2 and reign.planned_end_year == europa.current_year + 4 * europa.turn_length
