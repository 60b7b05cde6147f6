"""The API's correction of a die (issues 19, 34): the GM's, any roll of the current turn, in the schema."""

from __future__ import annotations

from campaign.models import Roll, RollSource
from dynasties.models import BirthAttempt, Character, Marriage, Reign, Status
from tests.api.conftest import assert_error, url


def _attempt(campaign, client, faces) -> dict:
    match = Marriage.objects.get(campaign=campaign, husband__controlled_by__crown="England", ended_year__isnull=True)
    response = client.post(url(campaign, "births/attempts"), {"marriage": match.pk, "faces": faces}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()["attempt"]


def _correct(client, campaign, roll: int, faces, **headers):
    return client.post(url(campaign, f"rolls/{roll}/correct"), {"faces": faces}, format="json", **headers)


def test_the_gm_corrects_a_birth_roll_and_hears_what_changed(campaign, gm, client_for):
    client = client_for(gm)
    attempt = _attempt(campaign, client, [2, 3])
    wrong = attempt["roll"]["id"]
    response = _correct(client, campaign, wrong, [6, 6], HTTP_IDEMPOTENCY_KEY="fix-1")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["corrected"]["id"] == wrong and body["corrected"]["outcome"] == "no child"
    assert body["roll"]["faces"] == [6, 6] and body["roll"]["outcome"] == "child" and body["roll"]["entered_by"] == "gm"
    assert body["changed"] == ["now a child; roll its sex on Births"]
    assert body["message"].endswith(": 2 + 3 = 5 -> 6 + 6 = 12: now a child; roll its sex on Births.")
    assert [r["id"] for r in body["rolls"]] == [body["roll"]["id"]]
    new = Roll.objects.get(pk=body["roll"]["id"])
    assert new.corrects_id == wrong and new.source == RollSource.ENTERED
    assert BirthAttempt.objects.get(pk=attempt["id"]).success
    log = client.get(url(campaign, "rolls"), {"year": 1300, "step": "births"}).json()["results"]
    assert [(r["id"], (r["corrects"] or {}).get("id")) for r in log] == [(wrong, None), (new.pk, wrong)]
    assert_error(_correct(client, campaign, wrong, [6, 6], HTTP_IDEMPOTENCY_KEY="fix-1"), 409, "already_done")


def test_the_gm_corrects_by_the_total(campaign, gm, client_for):
    client = client_for(gm)
    attempt = _attempt(campaign, client, [2, 3])
    url_ = url(campaign, f"rolls/{attempt['roll']['id']}/correct")
    both = assert_error(client.post(url_, {"faces": [6, 6], "total": 12}, format="json"), 400)
    assert "not both" in both["fields"]["faces"]
    high = assert_error(client.post(url_, {"total": 13}, format="json"), 400, "invalid_dice")
    assert high["fields"] == {"total": high["message"]}
    body = client.post(url_, {"total": 12}, format="json").json()
    assert body["roll"]["source"] == "total" and body["roll"]["faces"] == [12] and body["changed"][0].startswith("now a child")


def test_a_player_may_not_correct(campaign, gm, alice, client_for):
    attempt = _attempt(campaign, client_for(alice), [2, 3])
    assert_error(_correct(client_for(alice), campaign, attempt["roll"]["id"], [6, 6]), 403, "permission_denied")
    assert not Roll.objects.filter(corrects__isnull=False).exists()


def test_the_refusals_answer_in_the_apis_error_shape(campaign, gm, client_for):
    client = client_for(gm)
    attempt = _attempt(campaign, client, [2, 3])
    roll = attempt["roll"]["id"]
    bad = assert_error(_correct(client, campaign, roll, [7, 1]), 400, "invalid_dice")
    assert bad["fields"] == {"faces": bad["message"]} and "cannot be rolled on a d6" in bad["message"]
    assert_error(_correct(client, campaign, roll, [2, 3]), 400, "unchanged")
    assert_error(_correct(client, campaign, 999999, [6, 6]), 404, "not_found")
    assert_error(client.post(url(campaign, f"rolls/{roll}/correct"), {}, format="json"), 400)
    Roll.objects.filter(pk=roll).update(year=campaign.current_year - 5)  # a roll of an earlier turn
    late = assert_error(_correct(client, campaign, roll, [6, 6]), 409, "not_current_turn")
    assert "only a roll of this turn can be corrected; undo back to it instead" in late["message"]


def test_a_correction_is_undone_with_its_step(campaign, gm, client_for):
    client = client_for(gm)
    attempt = _attempt(campaign, client, [2, 3])
    assert _correct(client, campaign, attempt["roll"]["id"], [6, 6]).status_code == 200
    assert client.post(url(campaign, "undo"), {"which": "step"}, format="json").status_code == 200
    assert not Roll.objects.filter(campaign=campaign, corrects__isnull=False).exists()
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()


def test_the_correction_is_in_the_schema():
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    post = paths["/api/v1/campaigns/{slug}/rolls/{roll}/correct/"]["post"]
    assert "CorrectRollResult" in str(post["responses"]["200"]) and "409" in post["responses"]


def test_a_survival_die_corrected_after_marriages_began_rederives_the_succession(campaign, gm, client_for):
    """Issue 34: 'Any roll of the current turn can be corrected, its consequences re-derived forward
    (a death reversed with the succession it caused)', and a refusal names what depends on it (409)."""
    client = client_for(gm)
    king = Marriage.objects.get(campaign=campaign, husband__controlled_by__crown="England", ended_year__isnull=True).husband
    assert client.post(url(campaign, "births/finish")).status_code == 200
    due = [row["character"]["id"] for row in client.get(url(campaign, "survival")).json()["rows"] if not row["rolled"]]
    faces = {str(pk): [1, 1] if pk == king.pk else [6, 6] for pk in due}
    assert client.post(url(campaign, "survival/rolls"), {"faces": faces}, format="json").status_code == 200
    assert client.post(url(campaign, "survival/finish"), {"pass_over": {}}, format="json").status_code == 200
    heir = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    assert heir != king
    wrong = Roll.objects.get(campaign=campaign, purpose="survival", subjects__character=king).pk
    response = _correct(client, campaign, wrong, [6, 6])
    assert response.status_code == 200, response.content
    body = response.json()
    assert any(c.startswith(f"{heir.display_name} no longer reigns over England") for c in body["changed"])
    assert f"{king.display_name} reigns over England again" in body["changed"]
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder == king
    assert Character.objects.get(pk=king.pk).status == Status.ALIVE
    late = assert_error(_correct(client, campaign, wrong, [5, 5]), 409, "already_corrected")
    assert "correct that one instead" in late["message"]
