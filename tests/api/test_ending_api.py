"""The end of the game through the API: the standings (private money before the end, the whole
final table after), the GM's settings, the end and the reopening, and the printable final table."""

from __future__ import annotations

import pytest

from campaign.models import Step
from dynasties import treasury
from dynasties.models import Dynasty, PostingKind
from tests.api.conftest import assert_error, url
from tests.factories import at_step

pytestmark = pytest.mark.django_db


def house(campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


@pytest.fixture
def purses(campaign):
    at_step(campaign, Step.INTERPHASE, year=1305)
    england, france = house(campaign, "England"), house(campaign, "France")
    treasury.post(campaign, payer=None, payee=england, amount=310, kind=PostingKind.TAX, reason="Taxes")
    treasury.post(campaign, payer=None, payee=france, amount=90, kind=PostingKind.TAX, reason="Taxes")
    return england, france


def rows(body: dict) -> dict[str, dict]:
    return {r["crown"]: r for r in body["rows"]}


def test_the_standings_before_and_after_the_end(campaign, gm, alice, observer, client_for, purses) -> None:
    before = client_for(alice).get(url(campaign, "standings"))
    assert before.status_code == 200
    body = before.json()
    assert not body["ended"] and not body["whole"]
    assert rows(body)["England"]["money"] == 310 and rows(body)["France"]["money"] is None
    assert rows(body)["England"]["rank"] is None
    assert client_for(observer).get(url(campaign, "standings") + "pdf/").status_code == 404
    assert rows(client_for(gm).get(url(campaign, "standings")).json())["France"]["money"] == 90

    assert_error(client_for(alice).post(url(campaign, "end"), format="json", HTTP_IDEMPOTENCY_KEY="a1"), 403)
    ended = client_for(gm).post(url(campaign, "end"), format="json", HTTP_IDEMPOTENCY_KEY="g1")
    assert ended.status_code == 200, ended.content
    assert ended.json()["standings"]["reason"] == "agreement"
    assert any("The game ends in 1305" in line["text"] for line in ended.json()["chronicle"])

    after = client_for(observer).get(url(campaign, "standings")).json()
    assert after["ended"] and after["whole"] and after["year"] == 1305
    assert [(r["crown"], r["money"], r["rank"], r["winner"]) for r in after["rows"][:2]] == [
        ("England", 310, 1, True),
        ("France", 90, 2, False),
    ]
    pdf = client_for(observer).get(url(campaign, "standings") + "pdf/")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    refused = client_for(gm).post(url(campaign, "turn") + "advance/", format="json", HTTP_IDEMPOTENCY_KEY="g2")
    assert_error(refused, 409, "game_ended")
    assert "The game ended in 1305" in refused.json()["message"]


def test_the_gm_sets_the_end_and_reopens(campaign, gm, client_for, purses) -> None:
    england, _france = purses
    client = client_for(gm)
    bad = client.post(
        url(campaign, "end") + "settings/", {"end_year": 1305, "money_target": 0}, format="json", HTTP_IDEMPOTENCY_KEY="s0"
    )
    assert_error(bad, 400, "invalid_game_end")
    assert "money_target" in bad.json()["fields"]
    done = client.post(
        url(campaign, "end") + "settings/",
        {"end_year": 1305, "money_target": 800, "session_start": {str(england.pk): 155}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="s1",
    )
    assert done.status_code == 200, done.content
    standings = done.json()["standings"]
    assert (standings["end_year"], standings["target"], standings["series"]) == (1305, 800, True)
    assert rows(standings)["England"]["increase"] == "+100%"
    advanced = client.post(url(campaign, "turn") + "advance/", format="json", HTTP_IDEMPOTENCY_KEY="t1")
    assert advanced.status_code == 200
    campaign.refresh_from_db()
    assert campaign.ended_year == 1305 and campaign.ended_reason == "agreed"
    assert_error(client.post(url(campaign, "end") + "reopen/", format="json", HTTP_IDEMPOTENCY_KEY="r1"), 400, "game_end_due")
    client.post(
        url(campaign, "end") + "settings/", {"end_year": 1310, "money_target": 800}, format="json", HTTP_IDEMPOTENCY_KEY="s2"
    )
    reopened = client.post(url(campaign, "end") + "reopen/", format="json", HTTP_IDEMPOTENCY_KEY="r2")
    assert reopened.status_code == 200 and not reopened.json()["standings"]["ended"]
