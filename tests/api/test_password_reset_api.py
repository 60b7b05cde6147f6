"""The GM's one-time password-reset link through the API (issue 34): POST
campaigns/{slug}/memberships/{id}/password-reset/ answers the link once; who may ask is the policy's."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from campaign.models import Membership
from dynasties.services import campaign_create
from rules.dice import RandomSource
from tests.api.conftest import assert_error

User = get_user_model()


def reset_url(campaign, user) -> str:
    pk = Membership.objects.get(campaign=campaign, user=user).pk
    return f"/api/v1/campaigns/{campaign.slug}/memberships/{pk}/password-reset/"


def test_the_gm_gets_a_one_time_link_for_a_player(client_for, campaign, gm, alice, client):
    answer = client_for(gm).post(reset_url(campaign, alice))
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["username"] == "alice" and body["user"] == alice.pk and "/reset/" in body["link"]
    path = body["link"].split("testserver", 1)[1]
    set_password = client.get(path)["Location"]
    new = "another-Passphrase-88"
    assert client.post(set_password, {"new_password1": new, "new_password2": new}).status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new)
    client.logout()
    assert "This link no longer works" in client.get(path, follow=True).content.decode()  # used once


def test_only_the_gm_and_only_for_his_own_table(client_for, campaign, gm, alice, bob, outsider):
    assert_error(client_for(alice).post(reset_url(campaign, bob)), 403)
    assert_error(client_for(outsider).post(reset_url(campaign, bob)), 404)  # not a member: no such campaign
    assert_error(client_for(None).post(reset_url(campaign, bob)), 401)
    campaign_create(name="Bob's Table", players=5, source=RandomSource(6), by=bob)
    refused = assert_error(client_for(gm).post(reset_url(campaign, bob)), 403)
    assert "runs a campaign himself" in refused["message"]
    missing = f"/api/v1/campaigns/{campaign.slug}/memberships/999999/password-reset/"
    assert_error(client_for(gm).post(missing), 404)
