"""Issue 7: creating a campaign from the pages (campaigns:new) and the service behind it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaign.models import ActionKey, Campaign, ChronicleEntry, Membership, Role, Setup
from dynasties.models import Character, Dynasty, Reign
from operations.services import CampaignAlreadyCreated, campaign_start
from rules.errors import RuleError
from tests.factories import member_house

URL = "/campaigns/new/"


def _post(client, **fields):
    data = {
        "name": "Game Night",
        "ruleset": "blood-royale",
        "players": "5",
        "start_year": "",
        "setup": "standard",
        "turns": "",
        "seed": "",
        "observers": "",
        "action_key": fields.pop("action_key", "k-" + fields.get("name", "Game Night")),
    }
    options = fields.pop("options", [])
    data.update(fields)
    return client.post(URL, {**data, "options": options})


def _errors(response, field):
    return [str(e) for e in response.context["form"].errors.get(field, [])]


@pytest.fixture
def carol(db):
    return get_user_model().objects.create_user("carol", password="carol-password-1")


def test_url_name_and_home_link(client, alice):
    assert reverse("campaigns:new") == URL
    client.force_login(alice)
    assert URL in client.get(reverse("home")).content.decode()
    page = client.get(URL)
    assert page.status_code == 200
    html = page.content.decode()
    for label in ("Blood Royale", "Europa Universalis: BloodLine", "Europa Universalis: monarch tables"):
        assert label in html
    assert 'name="action_key"' in html and "csrfmiddlewaretoken" in html
    assert "Optional Rule C: Disputed Succession" in html  # the rulesets' optional rules are offered
    assert 'name="player_England"' in html and 'name="player_Sweden"' in html


def test_anonymous_is_sent_to_log_in(client, db):
    response = client.get(URL)
    assert response.status_code == 302 and "/login/" in response.url
    assert _post(client).status_code == 302
    assert not Campaign.objects.exists()


def test_a_user_creates_a_campaign_with_players_and_observers(client, alice, bob, carol, outsider):
    client.force_login(carol)
    response = _post(
        client,
        name="Carol's Kingdoms",
        players="4",
        start_year="1320",
        player_Spain="alice",
        player_Italy="bob",
        observers="outsider",
        options=["blood-royale:disputed_succession", "blood-royale:four_character_start"],
    )
    campaign = Campaign.objects.get()
    assert response.status_code == 302 and response.url == reverse("pages:dashboard", args=[campaign.slug])
    assert campaign.name == "Carol's Kingdoms" and campaign.ruleset == "blood-royale"
    assert campaign.start_year == campaign.current_year == 1320
    assert campaign.option("disputed_succession") and campaign.option("four_character_start")
    assert not campaign.option("rolled_king_queen")
    # four players: "England becomes a non-player country" (issue 33)
    assert sorted(Dynasty.objects.filter(campaign=campaign).values_list("crown", flat=True)) == [
        "France",
        "Germany",
        "Italy",
        "Spain",
    ]
    roles = {
        m.user.username: (m.role, getattr(member_house(m), "crown", None)) for m in Membership.objects.filter(campaign=campaign)
    }
    assert roles == {
        "carol": (Role.GM, None),
        "alice": (Role.PLAYER, "Spain"),
        "bob": (Role.PLAYER, "Italy"),
        "outsider": (Role.OBSERVER, None),
    }
    # rule A: four characters per house
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    assert Character.objects.filter(controlled_by=spain).count() == 4
    dashboard = client.get(response.url)
    assert dashboard.status_code == 200 and "Carol&#x27;s Kingdoms" in dashboard.content.decode()


def test_other_rulesets_and_their_defaults(client, alice):
    client.force_login(alice)
    response = _post(client, name="Bloodline", ruleset="eu-bloodline", players="7")
    assert response.status_code == 302
    c = Campaign.objects.get(name="Bloodline")
    assert c.start_year == 1492 and c.ruleset == "eu-bloodline"
    assert Dynasty.objects.filter(campaign=c).count() == 7
    response = _post(client, name="Monarchs", ruleset="eu-monarchs", players="2")
    assert response.status_code == 400  # its countries are ticked (tests/test_eu_setup.py), not counted
    assert "Tick the countries of the campaign" in response.content.decode()
    response = _post(client, name="Monarchs", ruleset="eu-monarchs", eu_france="on", eu_spain="on")
    assert response.status_code == 302
    assert Campaign.objects.get(name="Monarchs").ruleset == "eu-monarchs"


def test_a_generated_prehistory_plays_the_turns(client, alice, bob):
    client.force_login(alice)
    response = _post(client, name="Old World", setup="prehistory", turns="4", seed="11", player_France="bob")
    c = Campaign.objects.get(name="Old World")
    assert response.status_code == 302
    assert (c.start_year, c.current_year, c.step) == (1300, 1320, "births")
    assert set(ChronicleEntry.objects.filter(campaign=c, kind="announcements").values_list("year", flat=True)) == {
        1300,
        1305,
        1310,
        1315,
    }
    note = ChronicleEntry.objects.get(campaign=c, kind="setup", data__seed=11)
    assert "4 turns" in note.text and "1300-1320" in note.text
    assert member_house(Membership.objects.get(campaign=c, user__username="bob")).crown == "France"
    # the same seed plays the same prehistory
    _post(client, name="Old World Again", setup="prehistory", turns="4", seed="11", action_key="again")
    again = Campaign.objects.get(name="Old World Again")
    born = lambda camp: sorted(Character.objects.filter(campaign=camp).values_list("birth_year", "sex", "status"))  # noqa: E731
    assert born(again) == born(c)


def test_prehistory_without_a_seed_records_the_one_drawn(alice):
    c = campaign_start(name="Random Past", gm=alice, players=3, prehistory_turns=1)
    note = ChronicleEntry.objects.get(campaign=c, kind="setup", data__prehistory_turns=1)
    assert isinstance(note.data["seed"], int) and f"seed {note.data['seed']}" in note.text
    assert c.current_year == 1305


@pytest.mark.parametrize(
    ("fields", "field", "text"),
    [
        ({"name": "   "}, "name", "Give the campaign a name"),
        ({"name": ""}, "name", "Give the campaign a name"),
        ({"name": "x" * 121}, "name", "at most 120 characters"),
        ({"ruleset": "chess"}, "ruleset", "Select a valid choice"),
        ({"players": "2"}, "players", "Blood Royale is for 3 to 5 players"),
        ({"players": "12"}, "players", "Select a valid choice"),
        ({"start_year": "900"}, "start_year", "greater than or equal to 1000"),
        ({"start_year": "soon"}, "start_year", "Enter a whole number"),
        ({"options": ["eu-bloodline:turkish_fratricide"]}, "options", "another ruleset, not to Blood Royale"),
        ({"options": ["blood-royale:no_such_rule"]}, "options", "Select a valid choice"),
        ({"player_England": "nobody"}, "player_England", "There is no user called “nobody”"),
        ({"player_England": "ALICE"}, "player_England", "did you mean “alice”"),
        ({"player_England": "carol"}, "player_England", "game master cannot also play"),
        ({"player_England": "alice", "player_France": "alice"}, "player_France", "alice already plays England"),
        ({"players": "3", "player_Italy": "alice"}, "player_Italy", "has no Italy (its crowns: England, France, Germany)"),
        ({"player_Sweden": "alice"}, "player_Sweden", "has no Sweden"),
        ({"observers": "alice, ghost"}, "observers", "There is no user called “ghost”"),
        ({"observers": "carol"}, "observers", "You are the game master already"),
        ({"observers": "alice", "player_Spain": "alice"}, "observers", "alice plays Spain"),
        ({"setup": "prehistory"}, "turns", "How many turns of prehistory"),
        ({"setup": "prehistory", "turns": "31"}, "turns", "less than or equal to 30"),
        ({"setup": "prehistory", "turns": "3", "seed": "-1"}, "seed", "greater than or equal to 0"),
        ({"setup": "someday"}, "setup", "Select a valid choice"),
    ],
)
def test_each_bad_field_is_refused_next_to_it(client, alice, carol, fields, field, text):
    client.force_login(carol)
    response = _post(client, **fields)
    assert response.status_code == 400
    errors = _errors(response, field)
    assert any(text in e for e in errors), errors
    html = response.content.decode()
    assert "errorlist" in html
    assert not Campaign.objects.exists()
    assert not Membership.objects.exists()


def test_the_form_keeps_what_was_typed_and_marks_the_field(client, alice, carol):
    client.force_login(carol)
    response = _post(client, name="Kept Name", player_England="nobody", options=["blood-royale:rolled_king_queen"])
    html = response.content.decode()
    assert 'value="Kept Name"' in html and 'value="nobody"' in html
    assert 'value="blood-royale:rolled_king_queen" checked' in html
    assert 'class="field seat seat-England invalid"' in html  # shown even if its crown were hidden


def test_a_missing_action_key_is_refused(client, carol):
    client.force_login(carol)
    response = _post(client, action_key="")
    assert response.status_code == 400
    assert "action key" in response.content.decode()
    assert not Campaign.objects.exists()


def test_a_second_submit_of_the_same_form_creates_nothing_more(client, alice, carol):
    client.force_login(carol)
    first = _post(client, name="Once", player_England="alice", action_key="same-key")
    second = _post(client, name="Once", player_England="alice", action_key="same-key")
    campaign = Campaign.objects.get()
    assert first.url == second.url == reverse("pages:dashboard", args=[campaign.slug])
    assert Membership.objects.filter(campaign=campaign).count() == 2
    assert ActionKey.objects.filter(campaign=campaign, key="same-key").count() == 1
    messages = [str(m) for m in client.get(second.url).context["messages"]]
    assert any("already created" in m for m in messages)
    # another user's form with the same key is his own
    client.force_login(alice)
    assert _post(client, name="Alice's", action_key="same-key").status_code == 302
    assert Campaign.objects.count() == 2


def test_one_transaction_a_refused_member_leaves_nothing(alice, bob, carol):
    """The service: a membership refused after the campaign was made rolls everything back."""
    with pytest.raises(RuleError) as exc:
        campaign_start(name="Half", gm=carol, players=3, seats={"England": alice, "Spain": bob}, key="k1")
    assert "no player dynasty for Spain" in exc.value.message and exc.value.fields == {"player_Spain": "no_such_crown"}
    with pytest.raises(RuleError) as exc:
        campaign_start(name="Half", gm=carol, players=3, seats={"England": alice}, observers=[alice], key="k2")
    assert "already a member" in exc.value.message
    with pytest.raises(RuleError):
        campaign_start(name="Half", gm=carol, players=3, prehistory_turns=31)
    assert not Campaign.objects.exists()
    assert not Membership.objects.exists() and not Character.objects.exists() and not Reign.objects.exists()
    assert not ActionKey.objects.exists()


def test_the_service_refuses_a_used_key(carol):
    first = campaign_start(name="Keyed", gm=carol, players=3, key="abc")
    with pytest.raises(CampaignAlreadyCreated) as exc:
        campaign_start(name="Keyed", gm=carol, players=3, key="abc")
    assert exc.value.campaign == first
    assert Campaign.objects.count() == 1


def test_the_creation_page_hides_unused_crowns_with_css(client, carol):
    client.force_login(carol)
    html = client.get(URL).content.decode()
    # Blood Royale has no Sweden; with 3 players it has no Italy; BloodLine has no Germany
    assert 'form.create:has(input[name="ruleset"][value="blood-royale"]:checked) .seat-Sweden:not(.invalid)' in html
    assert (
        'form.create:has(input[name="ruleset"][value="blood-royale"]:checked):not(:has(input[name="countries"]:checked))'
        ':has(select[name="players"] option[value="3"]:checked) .seat-Italy:not(.invalid)'
    ) in html
    assert 'form.create:has(input[name="ruleset"][value="eu-bloodline"]:checked) .seat-Germany:not(.invalid)' in html
    assert "&quot;" not in html.split("<style nonce=")[1].split("</style>")[0]  # the nonce: the CSP (tests/test_csp.py)


def test_a_failure_in_the_prehistory_keeps_the_campaign_marked_for_its_gm(client, monkeypatch, alice, carol):
    """Issue 30: a prehistory that fails is not undone behind the GM's back: the campaign stays, not
    open for play, with Retry and Delete on its page (tests/test_building.py)."""
    import operations.services

    def broken(campaign, *, turns, source, by):
        raise RuleError("The automatic player stumbled.")

    monkeypatch.setattr(operations.services, "simulate", broken)
    client.force_login(carol)
    response = _post(client, setup="prehistory", turns="3", player_England="alice")
    campaign = Campaign.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/c/{campaign.slug}/"
    assert "The automatic player stumbled." in client.get(response["Location"]).content.decode()
    assert campaign.setup == Setup.FAILED and Membership.objects.filter(campaign=campaign).count() == 2


def test_a_refusal_by_the_service_is_shown_next_to_its_field(client, monkeypatch, carol):
    import pages.campaigns

    def refuse(**kwargs):
        raise RuleError("Spain is taken.", fields={"player_Spain": "taken"})

    monkeypatch.setattr(pages.campaigns, "campaign_start", refuse)
    client.force_login(carol)
    response = _post(client)
    assert response.status_code == 400
    assert _errors(response, "player_Spain") == ["Spain is taken."]
    assert "The campaign was not created" in response.content.decode()
