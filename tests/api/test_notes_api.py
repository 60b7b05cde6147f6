"""Notes in the API (issue 20): read through the policy (a player reads the public notes and his own
house's player notes, never a GM note nor another house's player note; the GM reads all) and written
through the pages' service (the policy decides who may write); bad input gets the API's error shape."""

from __future__ import annotations

import pytest

from dynasties.models import Character, Dynasty, Note
from dynasties.services.notes import note_write
from tests.api.conftest import assert_error, url


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


@pytest.fixture
def notes(campaign, gm, alice, bob) -> dict[str, Note]:
    """One note of each kind: England's king's public and GM notes, England's and France's player
    notes (written by their players), the campaign's public and player notes."""
    england, france = house(campaign, "England"), house(campaign, "France")
    king = Character.objects.filter(campaign=campaign, controlled_by=england).order_by("pk").first()
    return {
        "public": note_write(campaign, audience="public", text="**Henry** the *Fair*", character=king, by=gm),
        "gm": note_write(campaign, audience="gm", text="Dies next year <script>alert(1)</script>", character=king, by=gm),
        "england": note_write(campaign, audience="player", text="Wed Spain", dynasty=england, by=alice),
        "france": note_write(campaign, audience="player", text="Betray England", dynasty=france, by=bob),
        "campaign": note_write(campaign, audience="public", text="Welcome", by=gm),
        "table": note_write(campaign, audience="player", text="Players: bring dice", by=gm),
    }


def read(client, campaign, **query) -> dict[int, dict]:
    body = client.get(url(campaign, "notes"), query).json()
    return {n["id"]: n for n in body["results"]}


def ids(notes, *names) -> set[int]:
    return {notes[n].pk for n in names}


def test_a_player_reads_the_public_notes_and_his_own_house_s(campaign, alice, bob, notes, client_for):
    assert set(read(client_for(alice), campaign)) == ids(notes, "public", "england", "campaign", "table")
    assert set(read(client_for(bob), campaign)) == ids(notes, "public", "france", "campaign", "table")
    for secret in ("gm", "france"):  # nor by its id
        assert_error(client_for(alice).get(url(campaign, "notes", notes[secret].pk)), 404)
    mine = client_for(alice).get(url(campaign, "notes", notes["england"].pk)).json()
    assert mine == {
        "id": notes["england"].pk,
        "subject": "dynasty",
        "character": None,
        "dynasty": house(campaign, "England").pk,
        "audience": "player",
        "text": "Wed Spain",
        "html": "<p>Wed Spain</p>",
    }


def test_the_gm_reads_all_and_an_observer_the_public_ones(campaign, gm, observer, notes, client_for):
    everything = read(client_for(gm), campaign)
    assert set(everything) == ids(notes, *notes)
    secret = everything[notes["gm"].pk]
    assert secret["text"] == "Dies next year <script>alert(1)</script>"  # the Markdown as written ...
    assert "<script>" not in secret["html"] and "Dies next year" in secret["html"]  # ... and the HTML sanitized
    assert everything[notes["public"].pk]["html"] == "<p><strong>Henry</strong> the <em>Fair</em></p>"
    assert set(read(client_for(observer), campaign)) == ids(notes, "public", "campaign")


def test_the_notes_of_a_character_of_a_dynasty_of_the_campaign(campaign, gm, alice, notes, client_for):
    king = notes["public"].character_id
    assert set(read(client_for(gm), campaign, character=king)) == ids(notes, "public", "gm")
    assert set(read(client_for(alice), campaign, character=king)) == ids(notes, "public")
    assert set(read(client_for(gm), campaign, dynasty=house(campaign, "France").pk)) == ids(notes, "france")
    assert set(read(client_for(alice), campaign, dynasty=house(campaign, "France").pk)) == set()
    assert set(read(client_for(gm), campaign, subject="campaign")) == ids(notes, "campaign", "table")
    assert set(read(client_for(alice), campaign, subject="campaign", audience="player")) == ids(notes, "table")


def test_a_player_writes_his_own_house_s_player_note_and_no_other(campaign, alice, notes, client_for):
    england, france = house(campaign, "England"), house(campaign, "France")
    client = client_for(alice)
    answer = client.post(
        url(campaign, "notes"), {"dynasty": england.pk, "audience": "player", "text": "Wed *France*"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["html"] == "<p>Wed <em>France</em></p>" and answer.json()["id"] == notes["england"].pk
    assert Note.objects.get(pk=notes["england"].pk).text == "Wed *France*"
    king = notes["public"].character_id
    for body in (
        {"character": king, "audience": "gm", "text": "I know"},  # a GM note
        {"character": king, "audience": "public", "text": "Long live me"},  # the public note: the GM's word
        {"dynasty": france.pk, "audience": "player", "text": "Surrender"},  # another house's
        {"audience": "player", "text": "Hello all"},  # the campaign's player note: the GM's
    ):
        assert_error(client.post(url(campaign, "notes"), body, format="json"), 403)
    assert Note.objects.get(pk=notes["gm"].pk).text.startswith("Dies next year")
    assert Note.objects.get(pk=notes["france"].pk).text == "Betray England"
    assert not Note.objects.filter(campaign=campaign, character_id=king, audience="public", text="Long live me").exists()


def test_the_gm_writes_any_note_and_an_observer_none(campaign, gm, observer, notes, client_for):
    france = house(campaign, "France")
    body = {"dynasty": france.pk, "audience": "gm", "text": "Watch them"}
    assert_error(client_for(observer).post(url(campaign, "notes"), body, format="json"), 403)
    answer = client_for(gm).post(url(campaign, "notes"), body, format="json")
    assert answer.status_code == 200 and answer.json()["subject"] == "dynasty" and answer.json()["audience"] == "gm"
    assert Note.objects.get(dynasty=france, audience="gm").text == "Watch them"


def test_bad_input_gets_the_error_shape(campaign, gm, outsider, notes, client_for):
    client = client_for(gm)
    king = notes["public"].character_id
    england = house(campaign, "England").pk
    error = assert_error(client.post(url(campaign, "notes"), {"character": king, "text": "x"}, format="json"), 400)
    assert "audience" in error["fields"]
    error = assert_error(client.post(url(campaign, "notes"), {"audience": "everyone", "text": "x"}, format="json"), 400)
    assert "audience" in error["fields"]
    both = {"character": king, "dynasty": england, "audience": "public", "text": "x"}
    assert "dynasty" in assert_error(client.post(url(campaign, "notes"), both, format="json"), 400)["fields"]
    long = {"audience": "public", "text": "x" * 20_001}
    assert "text" in assert_error(client.post(url(campaign, "notes"), long, format="json"), 400)["fields"]
    missing = {"character": 2**31 - 1, "audience": "public", "text": "x"}
    assert "character" in assert_error(client.post(url(campaign, "notes"), missing, format="json"), 404, "not_found")["fields"]
    assert "subject" in assert_error(client.get(url(campaign, "notes"), {"subject": "moon"}), 400)["fields"]
    assert_error(client.get(url(campaign, "notes"), {"character": "abc"}), 400)
    assert_error(client_for(outsider).get(url(campaign, "notes")), 404)
    assert_error(client_for(outsider).post(url(campaign, "notes"), {"audience": "public", "text": "x"}, format="json"), 404)
    assert Note.objects.get(pk=notes["public"].pk).text == "**Henry** the *Fair*"


def test_the_schema_describes_the_notes(client_for, db):
    schema = client_for().get("/api/schema/", {"format": "json"}).json()
    listed, one = schema["paths"]["/api/v1/campaigns/{slug}/notes/"], schema["paths"]["/api/v1/campaigns/{slug}/notes/{id}/"]
    assert set(listed) == {"get", "post"} and set(one) == {"get"}
    assert {p["name"] for p in listed["get"]["parameters"]} >= {"character", "dynasty", "subject", "audience"}
    note = schema["components"]["schemas"]["Note"]["properties"]
    assert {"subject", "character", "dynasty", "audience", "text", "html"} <= set(note)
    request = schema["components"]["schemas"]["NoteWriteRequest"]
    assert set(request["required"]) == {"audience", "text"}


def test_the_list_s_queries_do_not_grow_with_the_notes(campaign, gm, alice, notes, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    england = house(campaign, "England")
    for person in Character.objects.filter(campaign=campaign, controlled_by=england)[:6]:
        note_write(campaign, audience="player", text=f"About {person.given_name}", character=person, by=gm)
    counts = []
    for size in (2, 50):
        with CaptureQueriesContext(connection) as queries:
            body = client_for(alice).get(url(campaign, "notes"), {"page_size": size}).json()
        assert len(body["results"]) == min(size, body["count"]) and body["count"] > 2 + 2
        counts.append(len(queries))
    assert counts[0] == counts[1]
