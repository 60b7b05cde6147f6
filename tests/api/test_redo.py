"""The API's redo: the GM's, next to undo, in the schema; the same rolls come back, once."""

from __future__ import annotations

from campaign.models import Roll
from operations.exchange import campaign_export
from tests.api.conftest import assert_error, url


def _export(campaign) -> dict:
    data = campaign_export(type(campaign).objects.get(pk=campaign.pk))
    data.pop("exported_at", None)
    return data


def test_the_gm_redoes_the_last_undo_with_the_same_rolls(campaign, gm, alice, client_for):
    client = client_for(gm)
    before = Roll.objects.filter(campaign=campaign).count()
    assert client.post(url(campaign, "births/roll-all")).status_code == 200
    done = _export(campaign)
    rolls = list(Roll.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "dice", "outcome"))
    assert len(rolls) > before
    assert client.post(url(campaign, "undo"), {"which": "step"}).status_code == 200
    assert Roll.objects.filter(campaign=campaign).count() == before
    assert_error(client_for(alice).post(url(campaign, "redo")), 403, "permission_denied")
    response = client.post(url(campaign, "redo"), HTTP_IDEMPOTENCY_KEY="redo-1")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["redone"]["step"] == "births" and body["redone"]["description"] == "the start of Births 1300"
    assert body["turn"]["undo"]["redo"] is None and body["turn"]["undo"]["step"]["step"] == "births"
    assert _export(campaign) == done
    assert list(Roll.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "dice", "outcome")) == rolls
    assert_error(client.post(url(campaign, "redo"), HTTP_IDEMPOTENCY_KEY="redo-1"), 409, "already_done")
    assert_error(client.post(url(campaign, "redo")), 409, "nothing_to_redo")


def test_a_step_played_after_an_undo_forgets_the_redo(campaign, gm, client_for):
    client = client_for(gm)
    client.post(url(campaign, "births/roll-all"))
    client.post(url(campaign, "undo"), {"which": "step"})
    assert client.get(url(campaign, "turn")).json()["undo"]["redo"]["change_sets"] == 1
    assert client.post(url(campaign, "births/finish")).status_code == 200
    assert client.get(url(campaign, "turn")).json()["undo"]["redo"] is None
    assert_error(client.post(url(campaign, "redo")), 409, "nothing_to_redo")


def test_redo_is_in_the_schema_next_to_undo(client_for, gm):
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    assert "/api/v1/campaigns/{slug}/undo/" in paths and "/api/v1/campaigns/{slug}/redo/" in paths
    assert "RedoResult" in str(paths["/api/v1/campaigns/{slug}/redo/"]["post"]["responses"]["200"])
