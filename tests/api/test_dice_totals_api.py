"""Issue 19: rolls typed in as their totals through the API (births, the child's characteristics,
survival), refused clearly when the dice cannot show them or when faces and a total are both given;
the roll log says which rolls were typed as totals and which were passed as certain."""

from __future__ import annotations

import pytest

from campaign.models import Roll, RollSource
from dynasties.models import Character, Marriage
from dynasties.services import births_finish
from dynasties.services.sequence_view import survival_board
from tests.api.conftest import assert_error, url

pytestmark = pytest.mark.django_db


def couple(campaign, crown: str = "England") -> Marriage:
    return Marriage.objects.get(campaign=campaign, husband__controlled_by__crown=crown, ended_year__isnull=True)


def test_a_birth_roll_and_the_childs_characteristics_typed_as_totals(campaign, gm, client_for):
    client = client_for(gm)
    response = client.post(url(campaign, "births/attempts"), {"marriage": couple(campaign).pk, "total": 9}, format="json")
    assert response.status_code == 201, response.content
    attempt = response.json()["attempt"]
    assert attempt["success"] is True
    roll = Roll.objects.get(pk=attempt["roll"]["id"]) if isinstance(attempt.get("roll"), dict) else None
    logged = Roll.objects.filter(campaign=campaign, purpose="birth").get()
    assert (logged.source, logged.faces) == (RollSource.TOTAL, [9])
    assert roll is None or roll == logged
    sex = client.post(
        url(campaign, f"births/attempts/{attempt['id']}/sex"),
        {"faces": [5], "characteristic_totals": [17, 4, 11]},
        format="json",
    )
    assert sex.status_code == 201, sex.content
    child = Character.objects.get(pk=sex.json()["child"]["id"])
    traits = Roll.objects.filter(campaign=campaign, purpose="characteristic", characters=child).order_by("pk")
    assert [(r.source, r.faces) for r in traits] == [(RollSource.TOTAL, [17]), (RollSource.TOTAL, [4]), (RollSource.TOTAL, [11])]


def test_totals_the_dice_cannot_show_or_given_with_faces_are_refused_naming_the_field(campaign, gm, client_for):
    client = client_for(gm)
    match = couple(campaign)
    before = Roll.objects.filter(campaign=campaign).count()
    body = assert_error(client.post(url(campaign, "births/attempts"), {"marriage": match.pk, "total": 1}, format="json"), 400)
    assert body["fields"] == {"total": body["message"]} and "from 2 to 12; 1 cannot be rolled" in body["message"]
    both = {"marriage": match.pk, "total": 7, "faces": [3, 4]}
    body = assert_error(client.post(url(campaign, "births/attempts"), both, format="json"), 400)
    assert "faces or its total, not both" in body["message"] and "total" in body["fields"]
    assert Roll.objects.filter(campaign=campaign).count() == before  # nothing was written


def test_survival_rolls_typed_as_totals_beside_faces_and_the_server(campaign, gm, client_for):
    births_finish(campaign=campaign, by=gm)
    first, second, third = (r.character.pk for r in survival_board(campaign).to_roll[:3])
    client = client_for(gm)
    wrong = {"characters": [first], "totals": {str(first): 13}}
    body = assert_error(client.post(url(campaign, "survival/rolls"), wrong, format="json"), 400)
    assert body["fields"] == {f"totals.{first}": body["message"]}
    request = {"characters": [first, second, third], "totals": {str(first): 12}, "faces": {str(second): [6, 6]}}
    response = client.post(url(campaign, "survival/rolls"), request, format="json")
    assert response.status_code == 200, response.content
    sources = {r.characters.get().pk: (r.source, r.faces) for r in Roll.objects.filter(campaign=campaign, purpose="survival")}
    assert sources[first] == (RollSource.TOTAL, [12])
    assert sources[second] == (RollSource.ENTERED, [6, 6])
    assert sources[third][0] == RollSource.SERVER
    log = client.get(url(campaign, "rolls") + "?purpose=survival").json()
    rows = log["results"] if isinstance(log, dict) else log
    assert {"total", "entered", "server"} <= {r["source"] for r in rows}
