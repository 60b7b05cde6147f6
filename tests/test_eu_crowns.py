"""The EU monarch tables between turns and what everyone sees of them (issue 32): a monarch's military
skill and a captured monarch's capture, release and ransom recorded at the table (page and API), Stability
on its track, the crown page's monarch with his values as they count this turn, the monarchs' history and
its timeline, the printable monarch cards, the API's crowns and monarchs, and their query counts."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import ChronicleEntry, Role, Roll
from dynasties import treasury
from dynasties.models import Character, Crown, CrownEvent, Dynasty, Posting, PostingKind, Reign
from dynasties.services import campaign_create
from dynasties.services.eu_monarchs import (
    monarch_crown_configure,
    monarch_place_named,
    monarch_succession_roll,
    monarch_survival_roll,
)
from dynasties.services.events import character_capture
from rules import eu_crowns
from rules import eu_monarchs as eu
from rules.dice import RandomSource
from tests.events_helpers import api, endpoint, key, logged, page
from tests.factories import seat_member

pytestmark = pytest.mark.django_db

PDFTOTEXT = shutil.which("pdftotext") or "/usr/bin/pdftotext"


def seat(campaign, crown, gm, **faces):
    """A rolled monarch with typed faces: an adult, middling values and a 7-turn reign unless told."""
    given = {"succession": [5], "adm": [5], "dip": [5], "mil": [5], "reign": [5]}
    given.update({k: list(v) for k, v in faces.items()})
    return monarch_succession_roll(campaign=campaign, crown=crown, faces=given, by=gm)


def build_europa(gm, alice, bob):
    """An eu-monarchs campaign: England (Alice's, a named monarch), France (Bob's, rolled), Spain, and
    Poland and Venice, countries no player rules (Poland's Báthory named, Venice's Doge rolled)."""
    c = campaign_create(name="Europa", ruleset="eu-monarchs", players=3, source=RandomSource(2), by=gm)
    seat_member(campaign=c, user=alice, role=Role.PLAYER, dynasty=Dynasty.objects.get(campaign=c, crown="England"))
    seat_member(campaign=c, user=bob, role=Role.PLAYER, dynasty=Dynasty.objects.get(campaign=c, crown="France"))
    monarch_place_named(campaign=c, crown="England", given_name="Henry", adm=8, dip=7, mil=9, reign_turns=6, by=gm)
    seat(c, "France", gm, adm=[8], dip=[7], mil=[9])  # column 5: 7, 6, 8
    seat(c, "Spain", gm)
    monarch_crown_configure(campaign=c, crown="Poland", settings={"country": "Poland"}, by=gm)
    monarch_place_named(campaign=c, crown="Poland", given_name="Stefan", dynastic_name="Báthory", adm=8, dip=7, mil=9, by=gm)
    monarch_crown_configure(campaign=c, crown="Venice", settings={"country": "Venice"}, by=gm)
    seat(c, "Venice", gm)
    c.refresh_from_db()
    return c


@pytest.fixture
def europa(gm, alice, bob):
    return build_europa(gm, alice, bob)


def monarch(campaign, crown) -> Character:
    return Reign.objects.get(campaign=campaign, crown=crown, end_year__isnull=True).holder


def crown_page(user, campaign, crown="France") -> str:
    response = logged(user).get(reverse("pages:crown", args=[campaign.slug, crown]))
    assert response.status_code == 200
    return response.content.decode()


def send(user, campaign, key_: str, body: dict):
    """The event through the API, as ``user``."""
    return api(user).post(endpoint(campaign, key_), body, format="json", HTTP_IDEMPOTENCY_KEY=key())


def next_turn(campaign, turns=1):
    campaign.refresh_from_db()
    campaign.current_year += turns * campaign.turn_length
    campaign.save()
    return campaign


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    src = tmp_path / "card.pdf"
    src.write_bytes(pdf)
    return subprocess.run([PDFTOTEXT, "-layout", str(src), "-"], check=True, capture_output=True, text=True).stdout


# --- the events' doors ------------------------------------------------------------------------------


def test_the_eu_events_belong_to_the_eu_monarch_tables_and_the_capture_and_release_take_their_monarch(campaign, europa, gm):
    """Blood Royale has no military skill table and no fixed monarch's ransom (404); the EU monarch tables
    now have the capture and the release (before issue 32 they were the family rulesets' alone)."""
    for key_ in ("monarch_military_skill", "monarch_ransom"):
        assert logged(gm).get(page(campaign, key_)).status_code == 404
        assert logged(gm).get(page(europa, key_)).status_code == 200
    form = logged(gm).get(page(europa, "capture")).content.decode()
    assert "reigns over Poland" in form and monarch(europa, "Poland").display_name in form
    assert logged(gm).get(page(europa, "release")).status_code == 200
    assert logged(gm).get(page(europa, "crown_stability_change")).status_code == 200


def test_the_gm_records_a_polish_monarchs_military_skill_with_typed_dice_from_the_page(europa, gm):
    """The aid: MIL 9 on a 1d10 of 8 reads '3*' (a siege value: 1 + its modifier); each value's die reads
    1: -2, 2-3: -1, 4-7: 0, 8-9: +1, 10: +2, the final value 0..6; Poland +1 to Manoeuvre and Shock."""
    client = logged(gm)
    form = client.get(page(europa, "monarch_military_skill")).content.decode()
    assert "MIL 9: average 1 40%, 2 20%, 3 10%, 3* 10%, 4* 20%" in form  # the odds, before the roll
    assert "+1 to the manoeuvre die; +1 to the shock die" in form
    body = {"crown": "Poland", "average-0": 8, "manoeuvre-0": 9, "fire-0": 1, "shock-0": 7, "siege-0": 10, "action_key": key()}
    done = client.post(page(europa, "monarch_military_skill"), body, follow=True)
    assert done.status_code == 200, done.content.decode()
    values = {"manoeuvre": 5, "fire": 1, "shock": 4, "siege": 3}  # 3+2, 3-2, 3+1, 1+2
    assert "as a leader: manoeuvre 5, fire 1, shock 4, siege 3" in done.content.decode()
    assert {k: v for k, v in Crown.objects.get(campaign=europa, name="Poland").state["leader"].items() if k != "year"} == values
    faces = list(
        Roll.objects.filter(campaign=europa, purpose__in=("monarch_military", "monarch_leader")).values_list("faces", "modifier")
    )
    assert faces == [([8], 0), ([9], 1), ([1], 0), ([7], 1), ([10], 0)]
    page_text = crown_page(gm, europa, "Poland")
    assert "manoeuvre 5, fire 1, shock 4, siege 3" in page_text


def test_a_siege_die_is_asked_for_when_the_average_is_starred_and_the_server_rolls_when_none_is_typed(europa, gm):
    short = send(
        gm, europa, "monarch_military_skill", {"crown": "Poland", "average": [8], "manoeuvre": [5], "fire": [5], "shock": [5]}
    )
    assert short.status_code == 400 and short.json()["fields"] == {"siege": "required"}
    assert "The siege roll of Stefan Báthory is due" in short.json()["message"]
    served = send(gm, europa, "monarch_military_skill", {"crown": "France"})
    assert served.status_code == 200, served.json()
    assert "France's monarch as a leader: manoeuvre" in served.json()["message"]
    assert Roll.objects.filter(campaign=europa, purpose="monarch_military", source="server").count() == 1


def test_a_child_monarch_is_not_offered_as_a_leader_and_the_service_refuses_him_citing_the_aid(europa, gm):
    """The aid's age penalties: '2 child (not a leader)'."""
    monarch_place_named(campaign=europa, crown="Spain", given_name="X", adm=5, dip=5, mil=5, replace=True, by=gm)
    spain = monarch(europa, "Spain")
    spain.birth_year = europa.current_year - 8  # a child
    spain.save()
    form = logged(gm).get(page(europa, "monarch_military_skill")).content.decode()
    assert 'value="Spain"' not in form and 'value="France"' in form
    refused = send(gm, europa, "monarch_military_skill", {"crown": "Spain"})
    assert refused.status_code == 400 and "is not one of what crown offers you now" in str(refused.json())
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.services.eu_monarchs import monarch_military_skill
    from rules.errors import RuleError

    with pytest.raises(RuleError, match=r"is a child and cannot lead \(the aid's age penalties: '2 child \(not a leader\)'"):
        monarch_military_skill(campaign=europa, crown="Spain", by=SYSTEM_ACTOR)


def test_a_player_records_neither_event(europa, alice):
    for key_ in ("monarch_military_skill", "monarch_ransom"):
        assert logged(alice).get(page(europa, key_)).status_code == 403
        refused = send(alice, europa, key_, {"crown": "England"})
        assert refused.status_code == 403


def test_a_major_powers_monarch_is_taken_and_ransomed_for_200_ducats_and_two_stability(europa, gm, alice, bob):
    """The aid: 'Major monarch ransom: 200 and -2 Stability', owed by his house to his captor's."""
    henry = monarch(europa, "England")
    england, france = (Dynasty.objects.get(campaign=europa, crown=c) for c in ("England", "France"))
    treasury.post(europa, payer=None, payee=england, amount=300, kind="tax", reason="taxes")
    client = logged(gm)
    taken = client.post(
        page(europa, "capture"), {"characters": [henry.pk], "captor": france.pk, "reason": "at Calais", "action_key": key()}
    )
    assert taken.status_code == 302
    henry.refresh_from_db()
    assert henry.prisoner_of == france
    assert "A prisoner of the house of" in crown_page(alice, europa, "England")
    form = client.get(page(europa, "monarch_ransom")).content.decode()
    assert "prisoner of the house of Anjou; a major power: 200 ducats and -2 Stability" in form
    # the release's own ransom is not the tables': refused, citing them
    wrong = client.post(page(europa, "release"), {"characters": [henry.pk], "ransom": 120, "action_key": key()})
    text = wrong.content.decode()
    assert (
        wrong.status_code == 400
        and "The EU monarch tables fix a captured monarch&#x27;s ransom (a major power 200 ducats" in text
    )
    done = client.post(page(europa, "monarch_ransom"), {"crown": "England", "action_key": key()}, follow=True)
    assert done.status_code == 200, done.content.decode()
    henry.refresh_from_db()
    assert not henry.is_prisoner
    paid = Posting.objects.get(campaign=europa, kind=PostingKind.RANSOM)
    assert (paid.payer, paid.payee, paid.amount) == (england, france, 200)
    assert treasury.balance(europa, england) == 100
    change = CrownEvent.objects.get(campaign=europa, crown__name="England", cause="ransom")
    assert (change.delta, change.stability_after) == (-2, -2)
    page_text = crown_page(alice, europa, "England")
    assert "A prisoner" not in page_text and "+1 (Stability -2)" in page_text  # Stability below 0: +1 to survive
    # the ransom's amount is the houses' and the GM's: Spain's player (none here) and the public line do not say it
    public = ChronicleEntry.objects.get(campaign=europa, kind="release")
    assert public.audience == "public" and "200" not in public.text and "-2 Stability" in public.text


def test_a_minor_monarch_held_by_the_neutrals_is_ransomed_for_50_or_freed_for_nothing(europa, gm):
    """The aid: 'Minor monarch ransom is 50 or bonus to peace proposal or allowing separate peace'."""
    stefan = monarch(europa, "Poland")
    character_capture(campaign=europa, characters=[stefan.pk], neutrals=True, by=gm)
    offered = api(gm).get(f"/api/v1/campaigns/{europa.slug}/events/").json()
    ransom = next(e for e in offered if e["key"] == "monarch_ransom")
    [crown] = [f for f in ransom["fields"] if f["name"] == "crown"]
    assert [(c["value"], c["note"]) for c in crown["choices"]] == [("Poland", "prisoner of the neutrals; a minor: 50 ducats")]
    done = send(gm, europa, "monarch_ransom", {"crown": "Poland"})
    assert done.status_code == 200, done.json()
    stefan.refresh_from_db()
    assert not stefan.is_prisoner and Crown.objects.get(campaign=europa, name="Poland").stability == 0
    # taken again, and freed for nothing by a peace: the release
    character_capture(campaign=europa, characters=[stefan.pk], neutrals=True, by=gm)
    freed = send(gm, europa, "release", {"characters": [stefan.pk]})
    assert freed.status_code == 200, freed.json()
    # nobody left to ransom: the service says so
    none = send(gm, europa, "monarch_ransom", {"crown": "Poland"})
    assert none.status_code == 400


def test_only_the_monarch_is_taken_by_the_eu_tables(europa, gm):
    """The EU monarch tables keep one character a crown: his monarch. One who no longer reigns is not taken."""
    old = monarch(europa, "Spain")
    monarch_place_named(campaign=europa, crown="Spain", given_name="Carlos", adm=6, dip=6, mil=6, replace=True, by=gm)
    refused = send(gm, europa, "capture", {"characters": [old.pk], "neutrals": True})
    assert refused.status_code == 400


def test_stability_changed_by_the_board_moves_an_eu_crown_on_its_track(europa, gm, bob):
    client = logged(gm)
    form = client.get(page(europa, "crown_stability_change")).content.decode()
    assert "Stability +0" in form and "Venice" in form
    for cause in ("peace", "peace", "peace", "peace"):
        client.post(page(europa, "crown_stability_change"), {"crown": "France", "cause": cause, "action_key": key()})
    assert Crown.objects.get(campaign=europa, name="France").stability == 3  # the track stops at +3
    client.post(page(europa, "crown_stability_change"), {"crown": "Venice", "cause": "levies", "action_key": key()})
    venice = crown_page(bob, europa, "Venice")
    assert 'aria-current="true">-1<' in venice and "+1 (Stability -1)" in venice


# --- the crown page ---------------------------------------------------------------------------------


def test_the_crown_page_shows_the_values_as_they_count_this_turn_after_a_crisis_and_a_minority(europa, gm, alice):
    """A Dynastic Crisis halves the values in its first turn; a teenager has -1 on each (RULES.md C).
    Spain's new King rolled 9/9/9 counts 3/3/3 (9 // 2 - 1), then 9/9/9 less a teenager's 1 the next turn
    with +2 to his survival roll; his reign's planned end, the period, Stability -2 and his Fragile Health shown."""
    old = monarch(europa, "Spain")
    monarch_survival_roll(campaign=europa, crown="Spain", faces=[10], by=gm)
    seat(europa, "Spain", gm, succession=[1], age=[8], adm=[10], dip=[10], mil=[10], reign=[5])
    body = crown_page(alice, europa, "Spain")
    eu_part = body[body.index('id="eu-h"') :]
    assert re.search(r"This turn</th><td>3</td><td>3</td><td>3</td>", eu_part)
    assert re.search(r"As rolled</th><td>9</td><td>9</td><td>9</td>", eu_part)
    assert "halved in the first turn of a Dynastic Crisis; a teenager: -1 to each value" in eu_part
    assert "planned to end in <strong>1527</strong>" in eu_part  # 7 turns of 5 years from 1492
    assert "Period <strong>I</strong>" in eu_part and "<strong>-2</strong> on the -3..+3 track" in eu_part
    assert "1497: +2 to the survival roll, turn 1 after the crisis" in eu_part
    next_turn(europa)
    body = crown_page(alice, europa, "Spain")
    assert re.search(r"This turn</th><td>9</td><td>9</td><td>9</td>", body)  # 15 now: of age, the crisis's turn past
    assert "As rolled</th>" not in body
    assert "+2 (turn 1 after a Dynastic Crisis) +1 (Stability -2)" in body
    # the history: the late King (died on his survival roll) and the new one, in a table and a timeline
    history = body[body.index('id="eu-history-h"') :]
    assert old.display_name in history and "died (the survival roll)" in history
    assert "teenager, Dynastic Crisis" in history and "9 / 9 / 9" in history
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in history and "the reigns along the years</title>" in history
    desc = re.search(r'<desc id="eu-tl-desc">(.*?)</desc>', history).group(1)
    assert f"{old.display_name} 1492-1492" in desc and "1492-now (planned to 1527)" in desc


def test_a_vacant_throne_and_a_crown_with_no_history_say_so(gm):
    fresh = campaign_create(name="Fresh", ruleset="eu-monarchs", players=3, source=RandomSource(2), by=gm)
    body = crown_page(gm, fresh, "France")
    assert "The throne is vacant: the succession roll (or a named monarch) is due." in body
    assert "No monarch has reigned over France yet." in body and "<svg" not in body
    assert api(gm).get(f"/api/v1/campaigns/{fresh.slug}/monarchs/").json()["results"] == []


def test_the_page_names_a_named_monarchs_values_and_a_doge(europa, gm):
    body = crown_page(gm, europa, "Poland")
    assert re.search(r"This turn</th><td>8</td><td>7</td><td>9</td>", body)
    assert "no planned end: the survival rolls decide" in body and "named" in body
    venice = crown_page(gm, europa, "Venice")
    assert "Venetian Doges" in venice and "Doge" in venice


def test_the_timeline_lays_reigns_along_the_years():
    first, last, bars = eu_crowns.timeline([(1492, 1502, 1520), (1502, None, 1537)], first=1492, now=1512, width=450)
    assert (first, last) == (1492, 1537)  # to the planned end of the reign going on
    assert [(b.x, b.width, b.planned_width) for b in bars] == [(0.0, 100.0, 0.0), (100.0, 100.0, 250.0)]


def test_the_military_odds_read_the_mil_row_of_the_aid():
    odds = dict(eu_crowns.military_average_odds(eu.DEFAULT_MILITARY, 8))
    assert {k: str(v) for k, v in odds.items()} == {"1": "2/5", "2": "1/5", "3": "1/5", "4": "1/10", "4*": "1/10"}


# --- the cards --------------------------------------------------------------------------------------


def test_the_monarch_card_prints_his_values_as_they_count_this_turn(europa, gm, bob, outsider, tmp_path, campaign):
    monarch_survival_roll(campaign=europa, crown="Spain", faces=[10], by=gm)
    seat(europa, "Spain", gm, succession=[1], age=[8], adm=[10], dip=[10], mil=[10])
    response = logged(bob).get(reverse("print:monarch_card", args=[europa.slug, "Spain"]))  # any member
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = pdf_text(response.content, tmp_path)
    assert "SPAIN · PERIOD I" in text and monarch(europa, "Spain").display_name in text
    assert re.search(r"3\s+3\s+3", text) and "As rolled: 9 / 9 / 9" in text and "to 1527 (planned)" in text
    assert "Stability" in text and "-2" in text
    every = logged(bob).get(reverse("print:monarch_cards", args=[europa.slug]))
    assert every.status_code == 200
    assert all(name in pdf_text(every.content, tmp_path) for name in ("ENGLAND", "FRANCE", "POLAND", "VENICE"))
    assert logged(outsider).get(reverse("print:monarch_cards", args=[europa.slug])).status_code == 404
    assert logged(gm).get(reverse("print:monarch_cards", args=[campaign.slug])).status_code == 404  # Blood Royale
    assert logged(gm).get(reverse("print:monarch_card", args=[europa.slug, "Atlantis"])).status_code == 404


# --- the API ----------------------------------------------------------------------------------------


def test_the_api_gives_each_crowns_monarch_as_counted_and_his_crowns_monarchs(europa, gm, alice, campaign):
    monarch_survival_roll(campaign=europa, crown="Spain", faces=[10], by=gm)
    seat(europa, "Spain", gm, succession=[1], age=[8], adm=[10], dip=[10], mil=[10])
    crowns = api(alice).get(f"/api/v1/campaigns/{europa.slug}/crowns/").json()["results"]
    spain = next(c for c in crowns if c["name"] == "Spain")["eu_monarch"]
    assert spain["values"] == {"adm": 9, "dip": 9, "mil": 9} and spain["values_this_turn"] == {"adm": 3, "dip": 3, "mil": 3}
    assert (spain["minority"], spain["halved"], spain["period"], spain["planned_end_year"]) == ("teenager", True, "I", 1527)
    assert [t["year"] for t in spain["crisis_turns"]] == [1492, 1497, 1502]
    poland = next(c for c in crowns if c["name"] == "Poland")["eu_monarch"]
    assert poland["named"] and poland["leader"] is None and poland["country"] == "Poland"
    history = api(alice).get(f"/api/v1/campaigns/{europa.slug}/monarchs/?crown=Spain").json()["results"]
    assert [(m["end_year"], m["dynastic_crisis"], m["minority"], m["ended"][:4]) for m in history] == [
        (1492, False, "", "died"),
        (None, True, "teenager", ""),
    ]
    assert history[1]["values"] == {"adm": 9, "dip": 9, "mil": 9}
    one = api(alice).get(f"/api/v1/campaigns/{europa.slug}/monarchs/{history[1]['id']}/").json()
    assert one["name"] == history[1]["name"]
    # another ruleset: no EU standing, no monarchs
    br = api(gm).get(f"/api/v1/campaigns/{campaign.slug}/crowns/").json()["results"]
    assert all(c["eu_monarch"] is None for c in br)
    assert api(gm).get(f"/api/v1/campaigns/{campaign.slug}/monarchs/").json()["results"] == []


def test_the_crowns_and_monarchs_cost_the_same_queries_however_many_reigns(europa, gm):
    client = api(gm)

    def queries(path: str) -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"/api/v1/campaigns/{europa.slug}/{path}").status_code == 200
        return len(ctx.captured_queries)

    def page_queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            crown_page(gm, europa, "Spain")
        return len(ctx.captured_queries)

    before = (queries("crowns/"), queries("monarchs/?page_size=100"), page_queries())
    for name in ("Spain", "France", "Venice", "Spain"):
        monarch_survival_roll(campaign=europa, crown=name, faces=[10], by=gm)
        seat(europa, name, gm, **({} if name == "Venice" else {"succession": [1], "age": [9]}))  # a Doge: no crisis
        next_turn(europa)
    monarch_crown_configure(campaign=europa, crown="Sweden", settings={"country": "Sweden"}, by=gm)
    seat(europa, "Sweden", gm)
    assert (queries("crowns/"), queries("monarchs/?page_size=100"), page_queries()) == before
