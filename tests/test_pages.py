"""The login page and the home page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaign.models import Role
from campaign.permissions import SYSTEM_ACTOR
from campaign.services import membership_add
from dynasties.services import campaign_create
from rules.dice import RandomSource


def test_login_page_renders_a_mobile_friendly_form(client, db):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert 'name="username"' in html
    assert 'name="password"' in html
    assert "csrfmiddlewaretoken" in html
    assert "regnal.css" in html


def test_logging_in_leads_home(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "alice-password-1"})
    assert response.status_code == 302
    assert response.url == reverse("home")


def test_a_wrong_password_shows_an_error(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "wrong"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_home_requires_login(client, db):
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
    assert "next=/" in response.url


def test_home_lists_only_the_users_own_campaigns(client, campaign, alice, bob, gm):
    other = campaign_create(name="Bob's Private War", players=3, source=RandomSource(3), by=bob)
    client.force_login(alice)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Test Campaign" in html
    assert other.name not in html.replace("&#x27;", "'")
    assert "Player" in html
    assert "Plantagenet of England" in html  # her dynasty, not Bob's
    assert "Anjou of France" not in html
    assert "1300" in html
    assert "Births" in html
    assert [m.campaign.name for m in response.context["memberships"]] == ["Test Campaign"]


def test_home_shows_role_for_a_gm_without_dynasty(client, campaign, gm):
    client.force_login(gm)
    html = client.get(reverse("home")).content.decode()
    assert "Test Campaign" in html
    assert "Game master" in html


def test_home_with_no_campaign_says_so(client, outsider):
    client.force_login(outsider)
    html = client.get(reverse("home")).content.decode()
    assert "You do not belong to any campaign yet" in html
    assert "Test Campaign" not in html


def test_home_has_a_logout_form_that_posts(client, alice):
    client.force_login(alice)
    html = client.get(reverse("home")).content.decode()
    assert f'<form method="post" action="{reverse("logout")}">' in html
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize(("staff", "gm", "shown"), [(False, True, True), (True, False, False), (False, False, False)])
def test_the_admin_link_is_for_every_gm_and_only_gms(client, alice, staff, gm, shown):
    """The desk is every GM's (campaign.permissions.may_use_desk): the staff flag neither gives nor takes it."""
    alice.is_staff = staff
    alice.save()
    if gm:
        campaign_create(name="Alice's Own", players=3, source=RandomSource(4), by=alice)
    client.force_login(alice)
    html = client.get(reverse("home")).content.decode()
    assert (reverse("admin:index") in html) is shown


def test_home_query_count_does_not_grow_with_campaigns(client, campaign, alice, gm, django_assert_max_num_queries):
    for n in range(3):
        c = campaign_create(name=f"Extra {n}", players=3, source=RandomSource(n), by=gm)
        membership_add(campaign=c, user=alice, role=Role.PLAYER, dynasty=c.dynasties.get(crown="England"), by=SYSTEM_ACTOR)
    client.force_login(alice)
    with django_assert_max_num_queries(4):  # session, user, memberships (+ a savepoint margin)
        response = client.get(reverse("home"))
    assert len(response.context["memberships"]) == 4
