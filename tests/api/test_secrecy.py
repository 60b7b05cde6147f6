"""The secrecy matrix through the API door: detail answers 200 or 404, lists hold the object or
not, exactly as ``tests/api/matrix.py`` says (the table the pages' door must also satisfy)."""

from __future__ import annotations

import pytest

from tests.api.conftest import url
from tests.api.matrix import KINDS, MATRIX, ROLES, build_secrets

RESOURCE = {
    "character": "characters",
    "posting": "ledger",
    "contract": "contracts",
    "chronicle": "chronicle",
    "exchequer": "balances",
}


def api_sees(client, campaign, name: str, obj) -> bool:
    """Whether this client sees the object through the API; detail and list must agree."""
    kind = KINDS[name]
    if kind == "campaign":
        detail = client.get(url(campaign))
        listed = client.get("/api/v1/campaigns/")
        assert listed.status_code == 200
        in_list = any(c["slug"] == campaign.slug for c in listed.json()["results"])
        assert (detail.status_code == 200) == in_list, (name, detail.status_code, in_list)
        return in_list
    resource = RESOURCE[kind]
    detail = client.get(url(campaign, resource, obj.pk))
    assert detail.status_code in (200, 404), detail.content
    if detail.status_code == 404:
        assert detail.json()["code"] == "not_found"
    listed = client.get(url(campaign, resource), {"page_size": 100} if kind != "exchequer" else {})
    if listed.status_code == 404:  # not a member: no list either
        assert detail.status_code == 404
        return False
    rows = listed.json() if kind == "exchequer" else listed.json()["results"]
    key = "dynasty" if kind == "exchequer" else "id"
    in_list = any(row[key] == obj.pk for row in rows)
    assert (detail.status_code == 200) == in_list, (name, detail.status_code, in_list)
    return in_list


@pytest.fixture
def cast(campaign, gm, alice, bob, observer, outsider):
    return build_secrets(campaign, gm=gm, alice=alice, bob=bob, observer=observer, outsider=outsider)


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(MATRIX))
def test_the_secrecy_matrix_holds_through_the_api(cast, campaign, client_for, name):
    seen = tuple(api_sees(client_for(cast.users[r]), campaign, name, cast.objects[name]) for r in ROLES)
    assert seen == MATRIX[name], dict(zip(ROLES, seen, strict=True))


@pytest.mark.django_db
def test_a_token_sees_what_its_user_sees(cast, campaign):
    from rest_framework.test import APIClient

    from api.services import token_create

    _, key = token_create(user=cast.users["alice"], name="bot")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    for name, expected in MATRIX.items():
        assert api_sees(client, campaign, name, cast.objects[name]) == expected[ROLES.index("alice")], name


@pytest.mark.django_db
def test_every_campaign_resource_is_404_for_an_outsider(cast, campaign, client_for):
    from tests.api.conftest import assert_error

    client = client_for(cast.users["outsider"])
    resources = [
        "",
        "memberships",
        "dynasties",
        "characters",
        "marriages",
        "reigns",
        "titles",
        "contracts",
        "ledger",
        "balances",
        "rolls",
        "chronicle",
    ]
    for resource in resources:
        assert_error(client.get(url(campaign, resource)), 404, "not_found")
    assert client.get("/api/v1/campaigns/").json()["count"] == 0


@pytest.mark.django_db
def test_balances_show_only_the_exchequers_the_viewer_may_see(cast, campaign, client_for):
    england, france = cast.houses["england"], cast.houses["france"]
    gm_rows = {r["dynasty"]: r["balance"] for r in client_for(cast.users["gm"]).get(url(campaign, "balances")).json()}
    assert gm_rows[england.pk] == 10 and gm_rows[france.pk] == 12
    assert gm_rows[None] == -22  # the Treasury paid both; all accounts sum to zero
    assert sum(gm_rows.values()) == 0
    assert client_for(cast.users["alice"]).get(url(campaign, "balances")).json() == [
        {"dynasty": england.pk, "name": str(england), "balance": 10, "currency": "Crowns", "owes": 0, "owed": 0}
    ]
    assert client_for(cast.users["observer"]).get(url(campaign, "balances")).json() == []
    ledger = client_for(cast.users["bob"]).get(url(campaign, "ledger")).json()["results"]
    assert [p["reason"] for p in ledger] == ["French taxes"]
