"""The API's search (issue 20): the pages' search (``operations.search``) as JSON, through the same
policy: a player never finds another house's contract."""

from __future__ import annotations

from contracts.services import contract_draft
from dynasties.models import Dynasty
from tests.api.conftest import assert_error, url

THEIRS = "Treaty of Quillembourg"  # France and Spain's
OURS = "Pact of Quillanvale"  # England and Spain's


def _plant(campaign, gm) -> None:
    house = {d.crown: d for d in Dynasty.objects.filter(campaign=campaign)}
    contract_draft(campaign=campaign, kind="agreement", title=THEIRS, parties=[house["France"], house["Spain"]], by=gm)
    contract_draft(campaign=campaign, kind="agreement", title=OURS, parties=[house["England"], house["Spain"]], by=gm)


def _names(body: dict, kind: str) -> list[str]:
    return [hit["name"] for group in body["groups"] if group["kind"] == kind for hit in group["found"]]


def test_the_gm_finds_every_contract_and_a_player_his_own(campaign, gm, alice, client_for):
    _plant(campaign, gm)
    body = client_for(gm).get(url(campaign, "search"), {"q": "QUILL"}).json()
    assert sorted(_names(body, "contracts")) == sorted([OURS, THEIRS])
    assert [g["kind"] for g in body["groups"]] == ["people", "houses", "crowns", "contracts", "chronicle", "notes"]
    body = client_for(alice).get(url(campaign, "search"), {"q": "quill"}).json()
    assert _names(body, "contracts") == [OURS]
    assert not any(THEIRS in line for line in _names(body, "chronicle"))


def test_one_kind_alone(campaign, gm, client_for):
    body = client_for(gm).get(url(campaign, "search"), {"q": "england", "kind": "crowns"}).json()
    assert [g["kind"] for g in body["groups"]] == ["crowns"]
    assert _names(body, "crowns") == ["England"] and body["kind"] == "crowns" and body["page"] == 1


def test_a_short_query_is_refused_with_what_to_type(campaign, gm, client_for):
    error = assert_error(client_for(gm).get(url(campaign, "search"), {"q": "x"}), 400, "query")
    assert "at least 2 letters" in error["message"] and "q" in error["fields"]


def test_a_non_member_gets_404(campaign, outsider, client_for):
    assert_error(client_for(outsider).get(url(campaign, "search"), {"q": "england"}), 404)
