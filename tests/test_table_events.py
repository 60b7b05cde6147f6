"""The table's events (issue 31): one declaration each (campaign.table_events), and the doors made from
it: the pages' form, the API's endpoint, the desk's list action."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from campaign.models import ActionKey
from campaign.table_events import WHEN, Kind, events
from dynasties.models import Character, Status


def logged(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def key() -> str:
    from campaign.undo import new_action_key

    return new_action_key()


def test_every_declaration_is_well_formed():
    declared = events()
    assert declared, "no table event declared"
    for e in declared:
        assert e.label and e.help and e.group and e.when in WHEN, e.key
        assert e.services, f"{e.key}: name the services it reaches (the door inventory)"
        for f in e.fields:
            assert f.label, f"{e.key}.{f.name}"
            if f.kind in (Kind.CHARACTER, Kind.CHARACTERS, Kind.DYNASTY, Kind.TITLE, Kind.TITLES, Kind.OFFER, Kind.CHOICE):
                assert f.choices is not None, f"{e.key}.{f.name}: what does it offer?"


def test_the_gm_records_a_death_at_the_table_from_the_pages(campaign, gm):
    client = logged(gm)
    listing = client.get(reverse("pages:events", args=[campaign.slug]))
    assert listing.status_code == 200 and "Killed at the table" in listing.content.decode()
    url = reverse("pages:event", args=[campaign.slug, "killed"])
    victim = Character.objects.filter(campaign=campaign, status=Status.ALIVE).order_by("-birth_year", "pk").first()
    page = client.get(url)
    assert page.status_code == 200 and victim.display_name in page.content.decode()
    response = client.post(url, {"characters": [victim.pk], "note": "in a duel", "action_key": key()}, follow=True)
    assert response.status_code == 200
    victim.refresh_from_db()
    assert victim.status == Status.DEAD
    assert re.search(r"killed", response.content.decode())
    assert ActionKey.objects.filter(campaign=campaign, label="Killed at the table").exists()  # one step action: undo takes it


def test_a_player_is_not_offered_the_gms_events(campaign, alice):
    client = logged(alice)
    assert "Killed at the table" not in client.get(reverse("pages:events", args=[campaign.slug])).content.decode()
    assert client.get(reverse("pages:event", args=[campaign.slug, "killed"])).status_code == 403


def test_a_refusal_is_shown_beside_the_form_and_nothing_is_written(campaign, gm):
    client = logged(gm)
    url = reverse("pages:event", args=[campaign.slug, "killed"])
    response = client.post(url, {"characters": [], "action_key": key()})
    assert response.status_code == 400
    assert Character.objects.filter(campaign=campaign, status=Status.DEAD).count() == 0
    made_up = client.post(url, {"characters": [999999], "action_key": key()})
    assert made_up.status_code == 400 and "not one of the available choices" in made_up.content.decode()


@pytest.mark.parametrize("slug", ["no-such-event"])
def test_an_unknown_event_is_404(campaign, gm, slug):
    assert logged(gm).get(reverse("pages:event", args=[campaign.slug, slug])).status_code == 404


# --- the API ---------------------------------------------------------------------------------------


def api(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_lists_the_events_offered_with_what_each_field_offers(campaign, gm, alice):
    listed = api(gm).get(f"/api/v1/campaigns/{campaign.slug}/events/").json()
    killed = next(e for e in listed if e["key"] == "killed")
    people = next(f for f in killed["fields"] if f["name"] == "characters")
    assert people["kind"] == "characters" and people["choices"]
    assert all(isinstance(c["value"], int) for c in people["choices"])
    offered = {e["key"] for e in api(alice).get(f"/api/v1/campaigns/{campaign.slug}/events/").json()}
    assert "killed" not in offered  # nothing of the GM's for her


def test_the_api_records_an_event_as_one_step_action(campaign, gm, alice):
    victim = Character.objects.filter(campaign=campaign, status=Status.ALIVE).order_by("-birth_year", "pk").first()
    url = f"/api/v1/campaigns/{campaign.slug}/events/killed/"
    refused = api(alice).post(url, {"characters": [victim.pk]}, format="json")
    assert refused.status_code == 403
    wrong = api(gm).post(url, {"characters": [999999]}, format="json")
    assert wrong.status_code == 400 and "characters" in str(wrong.json())
    done = api(gm).post(url, {"characters": [victim.pk], "note": "poisoned"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert done.status_code == 200, done.content
    assert "killed" in done.json()["message"]
    assert any("poisoned" in line["text"] for line in done.json()["chronicle"])
    victim.refresh_from_db()
    assert victim.status == Status.DEAD
    again = api(gm).post(url, {"characters": [victim.pk], "note": "poisoned"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 409
