"""The closing page and the printable final table (pages.ending): who sees what, the GM's forms,
and the queries, bounded however long the ledger."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Campaign, ChronicleEntry, Membership, Role, Step
from dynasties.models import Dynasty, PostingKind
from dynasties.services.ending import game_end
from dynasties.treasury import post
from tests.factories import at_step


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def give(campaign: Campaign, dynasty: Dynasty, amount: int, times: int = 1) -> None:
    for _ in range(times):
        post(campaign, payer=None, payee=dynasty, amount=amount, kind=PostingKind.OTHER, reason="a purse")


@pytest.fixture
def observer(db, campaign):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("olga", password="olga-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def url(campaign: Campaign, name: str = "pages:closing") -> str:
    return reverse(name, args=[campaign.slug])


def test_before_the_end_a_player_sees_only_his_own_money(client, campaign, alice) -> None:
    give(campaign, house(campaign, "England"), 123)
    give(campaign, house(campaign, "France"), 987)
    client.force_login(alice)
    page = client.get(url(campaign)).content.decode()
    assert "123" in page and "987" not in page and "private" in page
    assert "Save the end of the game" not in page and "End the game now" not in page
    assert client.get(url(campaign, "pages:final_table_pdf")).status_code == 404
    assert client.post(url(campaign), {"op": "end", "action_key": "k1"}).status_code == 404
    campaign.refresh_from_db()
    assert campaign.ended_year is None


def test_the_gm_sets_the_end_and_sees_his_mistakes(client, campaign, gm) -> None:
    client.force_login(gm)
    page = client.get(url(campaign)).content.decode()
    assert "the rulebook&#x27;s example: 800 Crowns" in page
    bad = client.post(url(campaign), {"op": "settings", "end_year": "1290", "money_target": "", "action_key": "k1"})
    assert bad.status_code == 400 and "cannot be before the turn in play (1300)" in bad.content.decode()
    england = house(campaign, "England")
    done = client.post(
        url(campaign),
        {
            "op": "settings",
            "end_year": "1450",
            "money_target": "800",
            "series": "on",
            f"start_{england.pk}": "400",
            "action_key": "k2",
        },
    )
    assert done.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.end_year, campaign.money_target) == (1450, 800)
    assert campaign.session_start[str(england.pk)] == 400 and campaign.session_start[str(house(campaign, "Spain").pk)] == 0
    assert "the agreed last turn is 1450 (turn 31); the money target is 800 Crowns" in client.get(url(campaign)).content.decode()


def test_once_ended_every_member_sees_the_final_table_and_may_print_it(client, campaign, gm, bob, observer) -> None:
    give(campaign, house(campaign, "England"), 640)
    give(campaign, house(campaign, "France"), 210)
    client.force_login(gm)
    assert client.post(url(campaign), {"op": "end", "action_key": "k1"}).status_code == 302
    for who in (bob, observer):
        client.force_login(who)
        page = client.get(url(campaign)).content.decode()
        assert "The game ended in 1300" in page and "640" in page and "210" in page and "Winner" in page
        pdf = client.get(url(campaign, "pages:final_table_pdf"))
        assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
        dash = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
        assert "The game ended in 1300." in dash and url(campaign) in dash


def test_the_next_turn_after_the_agreed_end_leads_to_the_closing_page(client, campaign, gm) -> None:
    campaign.end_year = 1300
    campaign.save()
    at_step(campaign, Step.INTERPHASE)
    client.force_login(gm)
    response = client.post(reverse("pages:announcements", args=[campaign.slug]), {"op": "next", "action_key": "k1"})
    assert response.status_code == 302 and response["Location"] == url(campaign)
    campaign.refresh_from_db()
    assert campaign.ended_year == 1300 and campaign.current_year == 1300
    again = client.post(reverse("pages:announcements", args=[campaign.slug]), {"op": "next", "action_key": "k2"})
    assert "The game ended in 1300" in again.content.decode()


def test_reopen_from_the_page(client, campaign, gm) -> None:
    game_end(campaign=campaign, by=gm)
    client.force_login(gm)
    assert client.post(url(campaign), {"op": "reopen", "action_key": "k1"}).status_code == 302
    campaign.refresh_from_db()
    assert campaign.ended_year is None
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="game_reopened").exists()


@pytest.mark.parametrize("ended", [False, True])
def test_the_closing_page_queries_do_not_grow_with_the_ledger(client, campaign, gm, alice, ended) -> None:
    def count(who) -> int:
        client.force_login(who)
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url(campaign)).status_code == 200
        return len(ctx.captured_queries)

    give(campaign, house(campaign, "England"), 5)
    if ended:
        game_end(campaign=campaign, by=gm)
    small = {who.pk: count(who) for who in (gm, alice)}
    for crown in ("England", "France", "Spain", "Italy", "Germany"):
        give(campaign, house(campaign, crown), 7, times=40)
    assert {who.pk: count(who) for who in (gm, alice)} == small
    assert max(small.values()) <= 25


def test_an_eu_campaign_closes_at_an_agreed_year_and_names_no_winner(client, gm) -> None:
    """The EU rulesets are won at the board (victory points Regnal does not keep): no money target,
    no winner named; the agreed end and the end by agreement work as in Blood Royale."""
    from dynasties.services.setup import campaign_create
    from rules import bloodline as bl

    europa = campaign_create(name="Europa", ruleset=bl.NAME, players=3, by=gm)
    client.force_login(gm)
    page = client.get(url(europa)).content.decode()
    assert "The money target" not in page and "The agreed last turn" in page
    assert client.post(url(europa), {"op": "settings", "end_year": "1500", "action_key": "e1"}).status_code == 302
    assert client.post(url(europa), {"op": "end", "action_key": "e2"}).status_code == 302
    europa.refresh_from_db()
    assert europa.ended_reason == "agreement" and europa.ended_standings["winners"] == []
    closed = client.get(url(europa)).content.decode()
    assert "won at the board" in closed and "Winner" not in closed


def test_the_end_is_set_at_the_campaigns_creation(client, alice) -> None:
    """(22) "at the beginning of the game players could set a monetary victory target (eg, 800
    Crowns)"; (3) "Before the game starts, players should decide how long it will last." """
    client.force_login(alice)
    base = {"ruleset": "blood-royale", "players": "5", "setup": "standard", "observers": ""}
    made = client.post(
        "/campaigns/new/", {**base, "name": "Short", "end_year": "1350", "money_target": "800", "action_key": "c1"}
    )
    assert made.status_code == 302
    short = Campaign.objects.get(name="Short")
    assert (short.end_year, short.money_target) == (1350, 800)
    refused = client.post(
        "/campaigns/new/",
        {**base, "name": "Europa", "ruleset": "eu-bloodline", "players": "3", "money_target": "800", "action_key": "c2"},
    )
    assert refused.status_code == 400 and "not won on money" in " ".join(refused.context["form"].errors.get("money_target", []))
    assert not Campaign.objects.filter(name="Europa").exists()
