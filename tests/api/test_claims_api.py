"""The claims register and parley decisions through the API (issue 33): the GM holds a contest and
records claims and an exchange; the obliged house's player answers the decision; every member reads
the register; a player may not record an exchange."""

from __future__ import annotations

from campaign.permissions import SYSTEM_ACTOR
from contracts.models import Claim, Excommunication, ObligationState
from contracts.services import area_claim_record
from dynasties.models import Dynasty
from tests.api.conftest import assert_error, url


def house(campaign, crown) -> int:
    return Dynasty.objects.get(campaign=campaign, crown=crown).pk


def test_a_contest_answered_and_claims_exchanged(campaign, gm, alice, bob, observer, client_for):
    england, france, italy = house(campaign, "England"), house(campaign, "France"), house(campaign, "Italy")
    gm_api = client_for(gm)
    votes = [{"dynasty": italy, "stature": 5, "choice": "for"}, {"dynasty": england, "stature": 5, "choice": "against"}]
    held = gm_api.post(
        url(campaign, "parleys"),
        {"kind": "conquest", "caller": italy, "opponent": england, "area": "Kent", "votes": votes},
        format="json",
    )
    assert held.status_code == 201, held.content
    body = held.json()
    assert (body["opponent"], body["area"], body["claim"]) == (england, "Kent", None) and body["obligation"]
    due = body["obligation"]
    # England's player refuses; Bob (France) may not answer for England; the GM cannot answer twice
    assert_error(client_for(bob).post(url(campaign, f"obligations/{due}/resolve"), {"complied": True}, format="json"), 403)
    refused = client_for(alice).post(url(campaign, f"obligations/{due}/resolve"), {"complied": False}, format="json")
    assert refused.status_code == 200 and refused.json()["state"] == ObligationState.REFUSED
    assert refused.json()["excommunication"] == Excommunication.objects.get(dynasty_id=england).pk
    assert (
        assert_error(gm_api.post(url(campaign, f"obligations/{due}/resolve"), {"complied": True}, format="json"), 400)["code"]
        == "settled"
    )
    # the register: recorded by the GM, exchanged, read by every member
    recorded = gm_api.post(url(campaign, "claims/record"), {"dynasty": france, "area": " Anjou "}, format="json")
    assert recorded.status_code == 201 and recorded.json()["area"] == "Anjou"
    calais = area_claim_record(campaign=campaign, dynasty=england, area="Calais", by=SYSTEM_ACTOR)
    swap = {"first": england, "second": france, "first_gives": [calais.pk], "second_gives": [recorded.json()["id"]]}
    assert_error(client_for(alice).post(url(campaign, "claims/exchange"), swap, format="json"), 403)
    done = gm_api.post(url(campaign, "claims/exchange"), swap, format="json")
    assert done.status_code == 201, done.content
    assert sorted((c["dynasty"], c["area"], c["how"]) for c in done.json()) == sorted(
        [(france, "Calais", "exchange"), (england, "Anjou", "exchange")]
    )
    listed = client_for(observer).get(url(campaign, "claims") + "?held=true").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert sorted(r["area"] for r in rows) == ["Anjou", "Calais"]
    mine = [r for r in rows if r["dynasty"] == england]
    renounced = client_for(alice).post(url(campaign, f"claims/{mine[0]['id']}/renounce"), format="json")
    assert renounced.status_code == 200 and renounced.json()["end"] == "renounced"
    assert Claim.objects.filter(campaign=campaign, ended_year__isnull=True).count() == 1
    obligations = client_for(observer).get(url(campaign, "obligations")).json()
    assert [o["state"] for o in (obligations["results"] if isinstance(obligations, dict) else obligations)] == ["refused"]
