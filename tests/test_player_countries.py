"""The countries the players play (issue 33, item 8): Blood Royale (23) Special Rules For Less Than
Five Players.

"If there are four players, one particular change is required in the rules. England becomes a
non-player country, much the same as Poland, Denmark or Wales in the 5-player game." "Experienced
players might choose to alter this rule so that the 'odd-country-out' is selected at the beginning
of the game." Three players: "Allow a free selection from all five countries (do not exclude
England). Players may draw lots and choose the country they play, or decide their countries
randomly." The New campaign page offers the rulebook's default and lets the table choose."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from campaign.models import Campaign, Membership, Role
from dynasties.models import Crown, Dynasty, DynastyKind
from dynasties.services import campaign_create
from dynasties.services.setup import default_dynasties
from operations.services import campaign_start
from rules import blood_royale as br
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.factories import member_house

URL = "/campaigns/new/"


def crowns_of(campaign: Campaign) -> list[str]:
    return sorted(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).values_list("crown", flat=True))


@pytest.fixture
def carol(db):
    return get_user_model().objects.create_user("carol", password="carol-password-1")


def _post(client, **fields):
    data = {
        "name": "Three Crowns",
        "ruleset": "blood-royale",
        "players": "3",
        "start_year": "",
        "setup": "standard",
        "turns": "",
        "seed": "",
        "observers": "",
        "action_key": fields.pop("action_key", "k-countries"),
    }
    countries = fields.pop("countries", [])
    data.update(fields)
    return client.post(URL, {**data, "countries": countries, "options": []})


# the rule --------------------------------------------------------------------------------------


def test_four_players_leave_england_out_and_five_play_all():
    assert br.player_countries(4) == ("France", "Germany", "Italy", "Spain")
    assert br.player_countries(5) == ("England", "France", "Germany", "Italy", "Spain")


def test_three_players_choose_freely_england_included():
    assert br.player_countries(3, ["Spain", "England", "Italy"]) == ("England", "Italy", "Spain")
    assert br.player_countries(4, ["England", "Germany", "Italy", "Spain"]) == ("England", "Germany", "Italy", "Spain")


@pytest.mark.parametrize(
    ("players", "chosen", "text"),
    [
        (3, ["Spain", "Italy"], "3 players play 3 countries; 2 were chosen"),
        (3, ["Spain", "Spain", "Italy"], "Spain is chosen twice"),
        (3, ["Wales", "Spain", "Italy"], "Wales is not a country of Blood Royale"),
        (6, None, "Blood Royale is for 3 to 5 players"),
    ],
)
def test_an_impossible_choice_is_refused_saying_what_to_fix(players, chosen, text):
    with pytest.raises(RuleError, match=text):
        br.player_countries(players, chosen)


# the service -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_four_player_campaign_has_no_english_house_nor_crown():
    campaign = campaign_create(name="Four", players=4, source=RandomSource(3))
    assert crowns_of(campaign) == ["France", "Germany", "Italy", "Spain"]
    assert not Crown.objects.filter(campaign=campaign, name="England").exists()


@pytest.mark.django_db
def test_three_players_start_with_their_chosen_countries_and_the_aristocratic_family(carol, alice):
    campaign = campaign_start(name="Three", gm=carol, players=3, countries=["Spain", "England", "Italy"], seats={"Spain": alice})
    assert crowns_of(campaign) == ["England", "Italy", "Spain"]
    assert (
        Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.ARISTOCRATIC).count() == 1
    )  # "an additional 'aristocratic' family"
    assert member_house(Membership.objects.get(campaign=campaign, user=alice)).crown == "Spain"


@pytest.mark.django_db
def test_the_service_refuses_a_choice_of_the_wrong_number(carol):
    with pytest.raises(RuleError, match="3 players play 3 countries") as caught:
        campaign_start(name="Three", gm=carol, players=3, countries=["Spain", "Italy"])
    assert caught.value.fields == {"countries": "invalid"}
    assert not Campaign.objects.exists()


def test_an_eu_ruleset_takes_no_choice_of_blood_royale_countries():
    with pytest.raises(RuleError, match="countries are the first 3"):
        default_dynasties(3, "eu-bloodline", ["Spain", "England", "Italy"])


@pytest.mark.django_db
def test_simulate_plays_the_countries_chosen():
    call_command(
        "simulate",
        "--players",
        "3",
        "--country",
        "Italy",
        "--country",
        "Spain",
        "--country",
        "England",
        "--turns",
        "1",
        "--seed",
        "5",
    )
    assert crowns_of(Campaign.objects.get()) == ["England", "Italy", "Spain"]


# the page --------------------------------------------------------------------------------------


def test_the_page_offers_the_countries_with_the_rulebooks_default(client, carol):
    client.force_login(carol)
    html = client.get(URL).content.decode()
    assert 'name="countries" value="England"' in html and 'name="countries" value="Spain"' in html
    assert "four, all but England" in html and "Allow a free selection from all five countries" in html
    # ticked countries show their seats only; the other rulesets hide the Blood Royale countries
    style = html.split("<style nonce=")[1].split("</style>")[0]
    assert (
        'form.create:has(input[name="ruleset"][value="blood-royale"]:checked):has(input[name="countries"]:checked)'
        ':not(:has(input[name="countries"][value="France"]:checked)) .seat-France:not(.invalid)'
    ) in style
    assert 'form.create:has(input[name="ruleset"][value="eu-bloodline"]:checked) .countries:not(.invalid)' in style


def test_four_players_on_the_page_play_without_england(client, carol, alice):
    client.force_login(carol)
    refused = _post(client, players="4", player_England="alice", action_key="four-1")
    assert refused.status_code == 400
    assert any("has no England" in e for e in refused.context["form"].errors["player_England"])
    response = _post(client, players="4", player_Spain="alice", action_key="four-2")
    assert response.status_code == 302
    assert crowns_of(Campaign.objects.get()) == ["France", "Germany", "Italy", "Spain"]


def test_three_players_tick_their_countries_on_the_page(client, carol, alice):
    client.force_login(carol)
    response = _post(client, countries=["England", "Italy", "Spain"], player_Spain="alice")
    assert response.status_code == 302, response.context["form"].errors
    campaign = Campaign.objects.get()
    assert crowns_of(campaign) == ["England", "Italy", "Spain"]
    assert member_house(Membership.objects.get(campaign=campaign, role=Role.PLAYER)).crown == "Spain"


def test_a_wrong_choice_on_the_page_is_refused_next_to_the_countries(client, carol, alice):
    client.force_login(carol)
    response = _post(client, countries=["England", "Italy"])
    assert response.status_code == 400
    assert any("3 players play 3 countries; 2 were chosen" in e for e in response.context["form"].errors["countries"])
    seat = _post(client, countries=["England", "Italy", "Spain"], player_France="alice", action_key="k-2")
    assert seat.status_code == 400
    assert any("tick it among the countries played" in e for e in seat.context["form"].errors["player_France"])
    assert not Campaign.objects.exists()
