"""Issue 32: setting up an eu-monarchs campaign - its countries, starting turn, crown settings and
each throne's first monarch (rolled, historical, typed) - from the service, the New campaign page
and the demo."""

from __future__ import annotations

import copy

import pytest

from campaign.models import Campaign, ChronicleEntry, Membership, Role, Roll, RuleTable
from dynasties.models import Crown, Dynasty, DynastyKind, Reign
from dynasties.services.eu_monarchs import load_eu_tables, monarch_status, monarch_survival_roll
from dynasties.services.eu_setup import HISTORICAL, ROLL, TYPED, EuCountry, eu_check
from operations.services import campaign_start, demo_create
from rules import eu_monarchs as eu
from rules.dice import RandomSource
from rules.errors import InvalidTable, RuleError
from tests.factories import member_house

FIVE = [
    EuCountry("France"),
    EuCountry("Poland", first=HISTORICAL, named="Báthory", settings={"poland_era": True}),
    EuCountry("Venice", first=HISTORICAL, named="Barbarigo"),
    EuCountry("Turkey", first=TYPED, given_name="Mehmed II", adm=6, dip=5, mil=8, reign_turns=4),
    EuCountry("Spain", settings={"dynastic_alliances": 7}),
]


def start(gm, countries=FIVE, **kwargs):
    return campaign_start(name="Europa", gm=gm, ruleset=eu.NAME, eu_countries=countries, **kwargs)


def reign(campaign, crown):
    return Reign.objects.select_related("holder").get(campaign=campaign, crown=crown, end_year__isnull=True)


# --- the service ------------------------------------------------------------------------------------


def test_five_countries_each_with_a_monarch(gm):
    campaign = start(gm)
    houses = {d.crown: d.kind for d in Dynasty.objects.filter(campaign=campaign)}
    assert houses == dict.fromkeys(("France", "Poland", "Venice", "Turkey", "Spain"), DynastyKind.PLAYER)
    assert Reign.objects.filter(campaign=campaign, end_year__isnull=True).count() == 5
    assert Membership.objects.get(campaign=campaign, role=Role.GM).user == gm


def test_a_rolled_first_monarch_has_values_from_the_successor_table_and_a_reign_length(gm):
    campaign = start(gm)
    france = reign(campaign, "France")
    values = france.holder.characteristics
    assert set(values) == {"adm", "dip", "mil"} and all(3 <= v <= 9 for v in values.values())
    assert france.planned_end_year is not None and france.planned_end_year > campaign.current_year
    purposes = set(Roll.objects.filter(campaign=campaign, detail__startswith="France").values_list("purpose", flat=True))
    assert {"monarch_succession", "monarch_reign"} <= purposes


def test_a_historical_monarch_has_the_aids_values_and_no_numeral(gm):
    campaign = start(gm)
    poland = reign(campaign, "Poland")
    assert poland.holder.characteristics == {"adm": 8, "dip": 7, "mil": 9}
    assert (poland.holder.given_name, poland.holder.dynastic_name, poland.numeral) == ("Stefan", "Báthory", None)
    assert Crown.objects.get(campaign=campaign, name="Poland").state["poland_era"] is True
    assert Crown.objects.get(campaign=campaign, name="Poland").state["named"] is True


def test_venice_has_a_doge_rolled_as_one(gm):
    campaign = start(gm)
    venice = reign(campaign, "Venice")
    status = monarch_status(campaign=campaign, crown="Venice")
    assert status.rules.doge and venice.numeral is None
    assert venice.holder.given_name == "Agostino" and venice.holder.dynastic_name == "Barbarigo"
    assert all(v >= 4 for v in venice.holder.characteristics.values())  # a Doge's minimum


def test_a_typed_monarch_keeps_the_gms_values_numeral_and_reign(gm):
    campaign = start(gm)
    turkey = reign(campaign, "Turkey")
    assert turkey.holder.characteristics == {"adm": 6, "dip": 5, "mil": 8}
    assert (turkey.holder.given_name, turkey.numeral) == ("Mehmed", 2)
    assert Crown.objects.get(campaign=campaign, name="Turkey").numerals == {"Mehmed": 1}
    assert turkey.planned_end_year == campaign.current_year + 4 * campaign.turn_length
    assert monarch_status(campaign=campaign, crown="Turkey").rules.turkey


def test_spains_habsburg_column_is_read_by_period_and_alliances(gm):
    campaign = start(gm)
    status = monarch_status(campaign=campaign, crown="Spain")
    assert status.rules.base_column == 5  # 6, then -1 for 7 dynastic alliances in period I
    assert "7 dynastic alliances" in status.rules.column_note


def test_friedrich_ii_makes_no_survival_roll_for_six_turns_and_counts_one_earlier(gm):
    campaign = start(gm, [EuCountry("France"), EuCountry("Prussia", first=HISTORICAL, named="Friedrich II")])
    prussia = reign(campaign, "Prussia")
    assert (prussia.holder.given_name, prussia.numeral, prussia.holder.characteristics) == (
        "Friedrich",
        2,
        {"adm": 9, "dip": 9, "mil": 9},
    )
    assert Crown.objects.get(campaign=campaign, name="Prussia").state["no_survival_until_year"] == campaign.current_year + 30
    with pytest.raises(RuleError, match="makes no survival roll before"):
        monarch_survival_roll(campaign=campaign, crown="Prussia", faces=[5], by=gm)


def test_the_starting_turn_sets_the_period_and_the_year(gm):
    campaign = start(
        gm,
        [
            EuCountry("Russia", first=HISTORICAL, named="Peter the Great", adm=8, dip=5, mil=6),
            EuCountry("Holland", first=HISTORICAL, named="de Witt"),
        ],
        eu_first_turn=35,
    )
    assert campaign.start_year == 1492 + 34 * 5
    assert load_eu_tables(campaign)[eu.PERIODS]["campaign_first_turn"] == 35
    assert monarch_status(campaign=campaign, crown="Russia").period.name == "V"
    # Peter the Great's accession: Russia reads column 6 from now on
    assert monarch_status(campaign=campaign, crown="Russia").rules.base_column == 6
    assert reign(campaign, "Russia").holder.characteristics == {"adm": 8, "dip": 5, "mil": 6}


def test_a_historical_monarch_with_an_end_turn_reigns_until_it(gm):
    campaign = start(gm, [EuCountry("France"), EuCountry("Holland", first=HISTORICAL, named="Maurits")], eu_first_turn=20)
    assert reign(campaign, "Holland").planned_end_year == campaign.current_year + 7 * 5  # turns 20-27


def test_a_minor_is_a_minor_house(gm):
    campaign = start(gm, [EuCountry("France"), EuCountry("England"), EuCountry("Denmark")])
    assert Dynasty.objects.get(campaign=campaign, crown="Denmark").kind == DynastyKind.MINOR
    assert reign(campaign, "Denmark").holder.controlled_by.crown == "Denmark"


# --- refusals: beside the field, nothing written -------------------------------------------------------


@pytest.mark.parametrize(
    ("country", "field", "words"),
    [
        (EuCountry("Poland", first=HISTORICAL, named="Ivan III"), "Poland:named", "Choose one of Poland's historical"),
        (EuCountry("Russia", first=HISTORICAL, named="Peter the Great"), "Russia:named", "period V, VI, VII, not in period I"),
        (EuCountry("Poland", first=HISTORICAL, named="Báthory", adm=5), "Poland:adm", "values are the aid's (8/7/9)"),
        (EuCountry("Poland", first=TYPED, adm=5, dip=5, mil=5), "Poland:given_name", "Name Poland's first monarch"),
        (EuCountry("Poland", first=TYPED, given_name="Jan", adm=5, dip=5), "Poland:mil", "Give his MIL (3 to 9)"),
        (EuCountry("Poland", first=TYPED, given_name="Jan", adm=10, dip=5, mil=5), "Poland:adm", "from 3 to 9"),
        (EuCountry("Poland", first=ROLL, adm=5), "Poland:adm", "values come from the dice"),
        (EuCountry("Poland", first="guess"), "Poland:first", "Choose how Poland's first monarch is found"),
        (EuCountry("Poland", settings={"doge": "yes"}), "Poland:settings", "must be true or false"),
        (EuCountry("Narnia"), "Narnia:country", "not in the countries table"),
        (EuCountry("France"), "France:country", "France is chosen twice"),
    ],
)
def test_bad_set_ups_are_refused_naming_the_field(gm, country, field, words):
    before = Campaign.objects.count()
    with pytest.raises(RuleError) as caught:
        start(gm, [EuCountry("France"), country])
    assert words in caught.value.fields[field]
    assert Campaign.objects.count() == before


def test_peter_the_great_needs_his_condition(gm):
    with pytest.raises(RuleError) as caught:
        start(
            gm,
            [EuCountry("France"), EuCountry("Russia", first=HISTORICAL, named="Peter the Great", adm=7, dip=9, mil=9)],
            eu_first_turn=40,
        )
    assert "needs ADM 8 or more; these values give 7" in caught.value.fields["Russia:adm"]
    with pytest.raises(RuleError) as caught:
        start(gm, [EuCountry("France"), EuCountry("Russia", first=HISTORICAL, named="Peter the Great")], eu_first_turn=40)
    assert "type the values he has" in caught.value.fields["Russia:adm"]


def test_one_country_and_a_turn_out_of_range_are_refused(gm):
    with pytest.raises(RuleError) as caught:
        start(gm, [EuCountry("France")], eu_first_turn=0)
    assert set(caught.value.fields) == {"countries", "first_turn"}
    assert not Campaign.objects.exists()


def test_a_refused_monarch_late_in_the_set_up_leaves_nothing(gm, monkeypatch):
    """A service refusing the last throne (after the others were written) undoes the whole campaign."""
    from dynasties.services import eu_monarchs

    def refuse(**kwargs):
        raise RuleError("refused", code="invalid")

    monkeypatch.setattr(eu_monarchs, "monarch_place_named", refuse)
    with pytest.raises(RuleError, match="refused"):
        start(gm)
    assert not Campaign.objects.exists() and not Reign.objects.exists()


def test_eu_countries_belong_to_the_eu_monarchs_ruleset(gm):
    with pytest.raises(RuleError, match="eu-monarchs campaign only"):
        campaign_start(name="BR", gm=gm, eu_countries=FIVE)


# --- the named monarchs' table -------------------------------------------------------------------------


def test_the_named_table_is_the_campaigns_and_gm_editable(gm):
    campaign = start(gm)
    assert RuleTable.objects.get(campaign=campaign, key=eu.NAMED).data == eu.DEFAULT_NAMED
    names = {(m["country"], m["name"]) for m in eu.DEFAULT_NAMED}
    assert {("Poland", "Báthory"), ("Poland", "Sobieski"), ("Prussia", "Friedrich II"), ("Russia", "Peter the Great")} <= names
    sobieski = next(m for m in eu.DEFAULT_NAMED if m["name"] == "Sobieski")
    assert sobieski["values"] == {"adm": 8, "dip": 7, "mil": 9}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"values": {"adm": 8, "dip": 7}}, "must give adm, dip and mil"),
        ({"values": {"adm": 8, "dip": 7, "mil": 12}}, "outside 3..9"),
        ({"sets": {"dodge": True}}, "There is no crown setting 'dodge'"),
        ({"reign_turns": 3, "until_turn": 20}, "not both"),
        ({"requires": {"luck": 3}}, "'requires' maps adm, dip, mil or total"),
        ({"sex": "X"}, "choose one of 'M', 'F'"),
        ({"wife": "Anna"}, "unknown field 'wife'"),
    ],
)
def test_the_named_table_validator_says_what_to_fix(change, words):
    data = copy.deepcopy(eu.DEFAULT_NAMED)
    data[0].update(change)
    with pytest.raises(InvalidTable, match=words):
        eu.validate_named(data)


def test_a_named_monarch_twice_is_refused():
    data = copy.deepcopy(eu.DEFAULT_NAMED)
    with pytest.raises(InvalidTable, match="listed twice"):
        eu.validate_named([*data, data[0]])


def test_eu_check_reads_a_campaigns_own_tables():
    tables = eu.defaults()
    tables[eu.NAMED] = [*tables[eu.NAMED], {"country": "Denmark", "name": "Christian II", "condition": "house rule"}]
    eu_check([EuCountry("France"), EuCountry("Denmark", first=HISTORICAL, named="Christian II")], first_turn=1, tables=tables)
    with pytest.raises(RuleError):
        eu_check([EuCountry("France"), EuCountry("Denmark", first=HISTORICAL, named="Christian II")], first_turn=1)


# --- the demo ---------------------------------------------------------------------------------------------


def test_the_eu_demo_is_playable_with_a_monarch_on_every_throne(db):
    demo = demo_create(ruleset=eu.NAME)
    campaign = demo.campaign
    crowns = list(Crown.objects.filter(campaign=campaign).values_list("name", flat=True))
    assert len(crowns) == 7
    for crown in crowns:
        status = monarch_status(campaign=campaign, crown=crown)
        assert status.monarch is not None and set(status.values) == {"adm", "dip", "mil"}, crown
    assert monarch_status(campaign=campaign, crown="Venice").rules.doge
    assert reign(campaign, "France").holder.given_name == "Charles" and reign(campaign, "France").numeral == 8
    gm = Membership.objects.get(campaign=campaign, role=Role.GM).user
    for crown in crowns:  # the first turn's survival rolls can be made
        monarch_survival_roll(campaign=campaign, crown=crown, source=RandomSource(1), by=gm)
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="monarch_survival").count() == 7
    assert {login.username for login in demo.logins} >= {"eu-gm", "eu-france", "eu-venice"}
    assert "eu-denmark" not in {login.username for login in demo.logins}  # a minor house: the GM runs it


# --- the New campaign page ----------------------------------------------------------------------------

URL = "/campaigns/new/"


def _post(client, **fields):
    data = {
        "name": "Europa",
        "ruleset": "eu-monarchs",
        "players": "5",
        "setup": "standard",
        "action_key": fields.pop("action_key", "k-eu"),
        "eu_first_turn": "1",
    }
    data.update(fields)
    return client.post(URL, data)


def _field_html(response, field_id):
    """The HTML of the field block holding ``field_id`` (its errors are printed inside it)."""
    html = response.content.decode()
    at = html.index(f'id="{field_id}"')
    start = html.rindex('<div class="field', 0, at)
    return html[start : html.index("</div>", at)]


def test_the_page_lists_the_aids_countries_five_majors_ticked(client, alice):
    client.force_login(alice)
    html = client.get(URL).content.decode()
    for country in ("Poland", "Venice", "Turkey", "Russia", "Prussia", "Sweden", "Spain", "Holland", "Denmark", "Genoa"):
        assert f'name="{"eu_" + country.lower()}"' in html, country
    form = client.get(URL).context["form"]
    assert [c for c in ("France", "England", "Spain", "Austria", "Turkey", "Poland") if form[f"eu_{c.lower()}"].value()] == [
        "France",
        "England",
        "Spain",
        "Austria",
        "Turkey",
    ]
    assert "column 4; the Turkish survival column" in html
    assert "column 5 (6 after event III-11)" in html
    assert "Doges: +1 to each value die, minimum 4" in html
    assert "Báthory (8/7/9; an elected king (also a general))" in html
    assert 'name="eu_poland_era" id="id_eu_poland_era" checked' in html  # Poland's era, ticked at the start


def test_posting_the_page_creates_the_campaign_with_its_monarchs(client, alice, bob):
    client.force_login(alice)
    response = _post(
        client,
        eu_france="on",
        eu_france_first="roll",
        eu_poland="on",
        eu_poland_first="historical",
        eu_poland_named="Sobieski",
        eu_poland_era="on",
        eu_venice="on",
        eu_venice_first="historical",
        eu_venice_named="Barbarigo",
        eu_venice_doge="on",
        eu_turkey="on",
        eu_turkey_first="typed",
        eu_turkey_name="Mehmed II",
        eu_turkey_adm="6",
        eu_turkey_dip="5",
        eu_turkey_mil="8",
        eu_spain="on",
        eu_spain_alliances="3",
        eu_denmark="on",
        player_Poland="bob",
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(name="Europa")
    assert sorted(Crown.objects.filter(campaign=campaign).values_list("name", flat=True)) == [
        "Denmark",
        "France",
        "Poland",
        "Spain",
        "Turkey",
        "Venice",
    ]
    assert reign(campaign, "Poland").holder.characteristics == {"adm": 8, "dip": 7, "mil": 9}
    assert reign(campaign, "Turkey").holder.given_name == "Mehmed"
    assert member_house(Membership.objects.get(campaign=campaign, user=bob)).crown == "Poland"
    assert Crown.objects.get(campaign=campaign, name="Spain").state["dynastic_alliances"] == 3
    assert Dynasty.objects.get(campaign=campaign, crown="Denmark").kind == DynastyKind.MINOR
    dashboard = client.get(response.url).content.decode()
    assert "Jan III Sobieski" in dashboard and "Mehmed II" in dashboard


def test_the_page_refuses_beside_the_field_and_writes_nothing(client, alice):
    client.force_login(alice)
    response = _post(
        client,
        eu_france="on",
        eu_russia="on",
        eu_russia_first="historical",
        eu_russia_named="Peter the Great",
        eu_turkey="on",
        eu_turkey_first="typed",
        eu_turkey_adm="11",
        eu_first_turn="0",
    )
    assert response.status_code == 400
    assert "period V, VI, VII, not in period I" in _field_html(response, "id_eu_russia_named")
    assert "Name Turkey&#x27;s first monarch" in _field_html(response, "id_eu_turkey_name")
    assert "less than or equal to 9" in _field_html(response, "id_eu_turkey_adm")
    assert "greater than or equal to 1" in _field_html(response, "id_eu_first_turn")
    assert 'class="eu-row invalid" id="eu_russia-row"' in response.content.decode()
    assert not Campaign.objects.exists()


def test_a_seat_for_a_country_not_ticked_is_refused(client, alice, bob):
    client.force_login(alice)
    response = _post(client, eu_france="on", eu_spain="on", player_Venice="bob")
    assert response.status_code == 400
    assert "Venice is not among the countries ticked above" in _field_html(response, "id_player_Venice")
    assert not Campaign.objects.exists()


def test_the_eu_set_up_is_hidden_for_the_other_rulesets(client, alice):
    client.force_login(alice)
    html = client.get(URL).content.decode()
    assert 'form.create:not(:has(input[name="ruleset"][value="eu-monarchs"]:checked)) .eu-setup:not(.invalid)' in html
    assert 'input[name="eu_poland"]:not(:checked)) .seat-Poland:not(.invalid)' in html
    response = client.post(URL, {"name": "BR", "ruleset": "blood-royale", "players": "5", "setup": "standard", "action_key": "k"})
    assert response.status_code == 302  # the EU fields, left at their defaults, are not read


# --- the dashboard ------------------------------------------------------------------------------------------


def test_the_dashboard_shows_each_eu_monarch_and_his_values(client, gm):
    campaign = start(gm)
    client.force_login(gm)
    html = client.get(f"/c/{campaign.slug}/").content.decode()
    assert "Stefan Báthory" in html and "ADM 8 · DIP 7 · MIL 9" in html
    assert ">none<" not in html.replace(" ", "")


def test_a_prehistory_plays_on_from_the_set_up_monarchs(gm):
    """The automatic player skips the survival roll of a monarch who makes none (Friedrich II)."""
    campaign = start(
        gm,
        [EuCountry("France"), EuCountry("Prussia", first=HISTORICAL, named="Friedrich II"), EuCountry("Venice")],
        prehistory_turns=3,
        seed=4,
    )
    campaign.refresh_from_db()
    assert campaign.current_year == campaign.start_year + 15
    assert reign(campaign, "Prussia").holder.given_name == "Friedrich"  # no roll, no death in 6 turns
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="monarch_survival", data__crown="Prussia").exists()
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="monarch_survival", data__crown="France").exists()


def test_a_failed_prehistory_set_up_again_keeps_its_countries_and_first_monarchs(gm, monkeypatch):
    from operations import services as operations

    def fail(*args, **kwargs):
        raise RuntimeError("the worker fell over")

    monkeypatch.setattr(operations, "simulate", fail)
    start(gm, [EuCountry("France"), EuCountry("Poland", first=HISTORICAL, named="Sobieski")], prehistory_turns=2, seed=3)
    failed = Campaign.objects.get()
    assert failed.setup == "failed"
    monkeypatch.undo()
    again = operations.campaign_setup_retry(campaign=failed, by=gm)
    assert reign(again, "Poland").holder.characteristics == {"adm": 8, "dip": 7, "mil": 9}
    assert set(Crown.objects.filter(campaign=again).values_list("name", flat=True)) == {"France", "Poland"}


def test_the_hidden_eu_fields_never_stop_another_rulesets_campaign(client, alice):
    client.force_login(alice)
    data = {"name": "BR", "ruleset": "blood-royale", "players": "5", "setup": "standard", "action_key": "k-br"}
    response = client.post(URL, {**data, "eu_first_turn": "0", "eu_turkey_adm": "12"})
    assert response.status_code == 302
    assert Campaign.objects.get(name="BR").ruleset == "blood-royale"
    response = _post(client, name="EU", eu_france="on", eu_spain="on", eu_first_turn="99")
    assert response.status_code == 400
    assert 'class="eu-setup invalid"' in response.content.decode()  # shown whatever the ruleset ticked
