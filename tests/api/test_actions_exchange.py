"""Issue 8: export and import of a campaign through the API. The GM exports the ``regnal/3``
document; any logged-in user imports one and becomes the new campaign's GM; an export imported
through the API exports again as the same document (but the slug); a document at fault is a 400
naming the problem, with nothing written; a repeated ``Idempotency-Key`` imports once."""

from __future__ import annotations

import pytest

from campaign.models import Campaign, Membership, Role
from campaign.permissions import SYSTEM_ACTOR
from contracts.services import contract_draft, contract_sign
from dynasties.models import Character, Dynasty
from operations.exchange import FORMAT, campaign_export
from tests.api.conftest import assert_error, url

pytestmark = pytest.mark.django_db


def without_slug(document: dict) -> dict:
    return {**document, "campaign": {k: v for k, v in document["campaign"].items() if k != "slug"}}


@pytest.fixture
def rich(campaign):
    """The shared campaign with a contract in force, so the document carries secrets too."""
    parties = list(Dynasty.objects.filter(campaign=campaign, crown__in=["England", "France"]).values_list("pk", flat=True))
    pact = contract_draft(
        campaign=campaign,
        kind="agreement",
        title="Amiens",
        parties=parties,
        clauses=[{"kind": "non_aggression"}],
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    return campaign


def test_the_gm_exports_the_regnal_2_document(rich, gm, client_for):
    response = client_for(gm).get(url(rich, "export"))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert f'filename="{rich.slug}.json"' in response["Content-Disposition"]
    document = response.json()
    assert document["format"] == FORMAT == "regnal/3"  # issue 15: the format now carries what re-derives the game
    assert document == campaign_export(rich)


def test_only_the_gm_exports(rich, alice, observer, outsider, client_for):
    for user in (alice, observer):
        assert_error(client_for(user).get(url(rich, "export")), 403, "permission_denied")
    assert_error(client_for(outsider).get(url(rich, "export")), 404, "not_found")
    assert_error(client_for(None).get(url(rich, "export")), 401)


def test_an_export_imported_through_the_api_exports_the_same(rich, gm, outsider, client_for):
    document = client_for(gm).get(url(rich, "export")).json()
    response = client_for(outsider).post("/api/v1/campaigns/import/", document, format="json")
    assert response.status_code == 201, response.content
    out = response.json()
    assert out["slug"] != rich.slug and out["role"] == "gm" and out["name"] == rich.name
    assert response["Location"].endswith(f"/api/v1/campaigns/{out['slug']}/")
    copy = Campaign.objects.get(slug=out["slug"])
    assert Membership.objects.get(campaign=copy).user == outsider  # the importer is its GM, the only member
    assert Membership.objects.get(campaign=copy).role == Role.GM
    again = client_for(outsider).get(url(copy, "export")).json()
    assert without_slug(again) == without_slug(document)
    assert Character.objects.filter(campaign=copy).count() == Character.objects.filter(campaign=rich).count()


def test_a_chosen_slug_and_a_taken_one(rich, gm, client_for):
    document = campaign_export(rich)
    made = client_for(gm).post("/api/v1/campaigns/import/?slug=second-copy", document, format="json")
    assert made.status_code == 201 and made.json()["slug"] == "second-copy"
    taken = assert_error(client_for(gm).post("/api/v1/campaigns/import/?slug=second-copy", document, format="json"), 400)
    assert taken["code"] == "slug_taken" and set(taken["fields"]) == {"slug"}
    bad = assert_error(client_for(gm).post("/api/v1/campaigns/import/?slug=not a slug", document, format="json"), 400)
    assert set(bad["fields"]) == {"slug"}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d.pop("format"), "format: missing"),
        (lambda d: d.update(format="regnal/9"), "format: 'regnal/9' is not supported"),
        (lambda d: d.pop("characters"), "characters: the section is missing"),
        (lambda d: d["characters"][0].update(sex="X"), "characters[0].sex"),
    ],
)
def test_a_document_at_fault_is_a_400_naming_the_problem(rich, gm, client_for, change, named):
    document = campaign_export(rich)
    change(document)
    before = Campaign.objects.count()
    error = assert_error(client_for(gm).post("/api/v1/campaigns/import/", document, format="json"), 400, "invalid_import")
    assert named in error["message"], error
    assert Campaign.objects.count() == before


def test_not_a_json_object_is_refused(gm, client_for, db):
    client = client_for(gm)
    assert (
        "must be a JSON object" in assert_error(client.post("/api/v1/campaigns/import/", [1, 2], format="json"), 400)["message"]
    )
    assert_error(client.post("/api/v1/campaigns/import/", "{not json", content_type="application/json"), 400, "parse_error")
    assert_error(client.post("/api/v1/campaigns/import/", {"format": "regnal/2"}, format="multipart"), 415)
    assert_error(client_for(None).post("/api/v1/campaigns/import/", {}, format="json"), 401)
    assert not Campaign.objects.exists()


def test_the_same_idempotency_key_imports_once(rich, gm, client_for):
    document = campaign_export(rich)
    client = client_for(gm)
    first = client.post("/api/v1/campaigns/import/", document, format="json", HTTP_IDEMPOTENCY_KEY="import-1")
    assert first.status_code == 201
    assert_error(
        client.post("/api/v1/campaigns/import/", document, format="json", HTTP_IDEMPOTENCY_KEY="import-1"), 409, "already_done"
    )
    assert Campaign.objects.count() == 2
    assert client.post("/api/v1/campaigns/import/", document, format="json", HTTP_IDEMPOTENCY_KEY="import-2").status_code == 201
