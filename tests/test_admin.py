"""The game master's admin: every page loads, search and filters work, the roll log is read-only,
rule tables go through the service (RULES.md: tables are data, editable, defaults restorable)."""

from __future__ import annotations

import copy
import html
from typing import Any

import pytest
from django.contrib import admin
from django.db import connection
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import Campaign, ChronicleEntry, Membership, Role, Roll, RuleTable
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import (
    BirthAttempt,
    Character,
    Crown,
    CrownEvent,
    Dynasty,
    Marriage,
    Modifier,
    ModifierKind,
    PassedOver,
    Reign,
    Renunciation,
    RollSubject,
    Status,
    Title,
    TitleHolding,
)
from dynasties.services import births_attempt, births_sex, campaign_create
from rules.dice import RandomSource
from rules.tables import DEFAULT_CHARACTERISTIC_BANDS, DEFAULT_SURVIVAL
from tests.factories import member_house

MODELS: list[type[Model]] = [
    Campaign,
    Membership,
    RuleTable,
    Roll,
    ChronicleEntry,
    Dynasty,
    Character,
    Marriage,
    Reign,
    BirthAttempt,
    Crown,
    Modifier,
    Renunciation,
    Title,
]
INLINED = {RollSubject: Roll, PassedOver: Reign, CrownEvent: Crown, TitleHolding: Title}
READ_ONLY = [Roll, ChronicleEntry]
SERVICE_MADE = [Modifier, Renunciation, Title]  # created by the services only: no add page


def url(model: type[Model], view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def world(campaign):
    """The test campaign with a child born this turn, a death and an heir passed over, so every
    admin page has rows of every kind."""
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    royal = Marriage.objects.get(campaign=campaign, husband__controlled_by=england)
    attempt = births_attempt(campaign=campaign, marriage=royal, faces=[6, 6], by=SYSTEM_ACTOR)
    births_sex(
        campaign=campaign, attempt=attempt, faces=[1], characteristic_faces=[[3, 4, 4]] * 3, given_name="Hal", by=SYSTEM_ACTOR
    )
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    Character.objects.filter(campaign=campaign, controlled_by=france, sex="F", birth_year=1280).update(
        status=Status.DEAD, death_year=1300, death_cause="survival roll failed"
    )
    reign = Reign.objects.get(campaign=campaign, crown="England")
    hal = Character.objects.get(given_name="Hal")
    PassedOver.objects.create(reign=reign, character=hal, reason="a test")
    Modifier.objects.create(
        campaign=campaign,
        kind=ModifierKind.USURPER_STRENGTH,
        value=-1,
        crown="England",
        dynasty=england,
        claimant=hal,
        reason="Hal passed over",
        start_year=1300,
    )
    Renunciation.objects.create(campaign=campaign, character=hal, crown="France", year=1300, source="a contract")
    title = Title.objects.create(
        campaign=campaign,
        name="Duke of Kent",
        province="Kent",
        crown="England",
        holder=reign.holder,
        granted_year=1300,
        granted_to=reign.holder,
    )
    TitleHolding.objects.create(title=title, holder=reign.holder, start_year=1300, how="granted")
    CrownEvent.objects.create(
        campaign=campaign,
        crown=Crown.objects.get(campaign=campaign, name="England"),
        year=1300,
        kind="stability",
        delta=-1,
        stability_after=-1,
        reason="a test",
    )
    return campaign


# Every page -----------------------------------------------------------------------------------


def test_every_model_is_in_the_admin():
    registered = set(admin.site._registry)
    assert set(MODELS) <= registered
    for inline_model, parent in INLINED.items():
        inlines = [i.model for i in admin.site._registry[parent].inlines]
        assert inline_model in inlines


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelist_and_change_page_load(admin_client, world, model):
    response = admin_client.get(url(model, "changelist"))
    assert response.status_code == 200
    assert response.context["cl"].result_count > 0
    obj = model.objects.order_by("pk").first()
    response = admin_client.get(url(model, "change", obj.pk))
    assert response.status_code == 200
    assert str(obj) in html.unescape(response.content.decode())


@pytest.mark.parametrize("model", [m for m in MODELS if m not in READ_ONLY + SERVICE_MADE], ids=lambda m: m.__name__)
def test_add_page_loads_for_editable_models(admin_client, world, model):
    assert admin_client.get(url(model, "add")).status_code == 200


@pytest.mark.parametrize("model", SERVICE_MADE, ids=lambda m: m.__name__)
def test_service_made_records_cannot_be_added_by_hand(admin_client, world, model):
    assert admin_client.get(url(model, "add")).status_code == 403


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelists_make_no_n_plus_one_queries(admin_client, world, gm, model):
    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert admin_client.get(url(model, "changelist")).status_code == 200
        return len(ctx.captured_queries)

    before = count()
    campaign_create(name="Second Campaign", players=5, source=RandomSource(11), by=gm)
    assert model.objects.count() > 0
    assert count() == before


# Search ---------------------------------------------------------------------------------------


def results(response) -> list[Any]:
    return list(response.context["cl"].result_list)


def test_search_characters_by_given_and_dynastic_name(admin_client, world):
    found = results(admin_client.get(url(Character, "changelist"), {"q": "Hal"}))
    assert [c.given_name for c in found] == ["Hal"]
    found = results(admin_client.get(url(Character, "changelist"), {"q": "Plantagenet"}))
    assert found
    assert all("Plantagenet" in c.dynastic_name for c in found)
    assert {c.controlled_by.crown for c in found} == {"England"}


def test_search_dynasties_by_name_and_crown(admin_client, world):
    assert [d.crown for d in results(admin_client.get(url(Dynasty, "changelist"), {"q": "Spain"}))] == ["Spain"]
    assert [d.name for d in results(admin_client.get(url(Dynasty, "changelist"), {"q": "Anjou"}))] == ["Anjou"]


def test_search_campaigns_by_name_and_slug(admin_client, world, gm):
    campaign_create(name="Another War", slug="another", players=3, source=RandomSource(5), by=gm)
    assert [c.slug for c in results(admin_client.get(url(Campaign, "changelist"), {"q": "another"}))] == ["another"]
    assert [c.name for c in results(admin_client.get(url(Campaign, "changelist"), {"q": "Test Camp"}))] == ["Test Campaign"]


def test_search_the_other_admins(admin_client, world):
    assert {m.user.username for m in results(admin_client.get(url(Membership, "changelist"), {"q": "alice"}))} == {"alice"}
    assert [t.key for t in results(admin_client.get(url(RuleTable, "changelist"), {"q": "survival"}))] == ["survival"]
    births = results(admin_client.get(url(Roll, "changelist"), {"q": "birth"}))
    assert births
    assert {r.purpose for r in births} == {"birth"}
    entries = results(admin_client.get(url(ChronicleEntry, "changelist"), {"q": "Hal"}))
    assert entries
    assert all("Hal" in e.text for e in entries)
    reigns = results(admin_client.get(url(Reign, "changelist"), {"q": "England"}))
    assert [r.crown for r in reigns] == ["England"]
    marriages = results(admin_client.get(url(Marriage, "changelist"), {"q": "Plantagenet"}))
    assert marriages
    assert all("Plantagenet" in str(m) for m in marriages)
    attempts = results(admin_client.get(url(BirthAttempt, "changelist"), {"q": "Plantagenet"}))
    assert len(attempts) == 1


# Filters --------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_filter_choice_loads(admin_client, world, model):
    """Follow every choice of every list filter: each answers 200 (a bad filter redirects with
    ?e=1) and never shows more rows than the unfiltered list."""
    response = admin_client.get(url(model, "changelist"))
    cl = response.context["cl"]
    total = cl.result_count
    assert cl.filter_specs, f"{model.__name__} has no list filters"
    followed = 0
    for spec in cl.filter_specs:
        for choice in spec.choices(cl):
            if choice.get("selected") and "All" in str(choice.get("display")):
                continue
            filtered = admin_client.get(url(model, "changelist") + choice["query_string"])
            assert filtered.status_code == 200, (spec.title, choice["display"])
            assert filtered.context["cl"].result_count <= total
            followed += 1
    assert followed > 0


def test_filter_characters_by_controlling_dynasty_status_and_sex(admin_client, world):
    england = Dynasty.objects.get(campaign=world, crown="England")
    found = results(admin_client.get(url(Character, "changelist"), {"controlled_by__id__exact": england.pk}))
    assert found
    assert {c.controlled_by_id for c in found} == {england.pk}
    assert len(found) == Character.objects.filter(controlled_by=england).count()

    dead = results(admin_client.get(url(Character, "changelist"), {"status__exact": "dead"}))
    assert [(c.given_name, c.controlled_by.crown) for c in dead] == [(Character.objects.get(status="dead").given_name, "France")]
    women = results(admin_client.get(url(Character, "changelist"), {"sex__exact": "F"}))
    assert women
    assert {c.sex for c in women} == {"F"}
    born = results(admin_client.get(url(Character, "changelist"), {"origin__exact": "born"}))
    assert [c.given_name for c in born] == ["Hal"]


def test_filter_dynasties_by_crown_and_campaign(admin_client, world, gm):
    other = campaign_create(name="Another", players=3, source=RandomSource(5), by=gm)
    found = results(admin_client.get(url(Dynasty, "changelist"), {"campaign__id__exact": other.pk}))
    assert len(found) == 4
    assert {d.campaign_id for d in found} == {other.pk}
    found = results(admin_client.get(url(Dynasty, "changelist"), {"crown": "Italy"}))
    assert [d.campaign_id for d in found] == [world.pk]


def test_filter_marriages_by_state_and_husbands_dynasty(admin_client, world):
    france = Dynasty.objects.get(campaign=world, crown="France")
    ended = results(admin_client.get(url(Marriage, "changelist"), {"state": "ended"}))
    assert ended == list(Marriage.objects.filter(ended_year__isnull=False))
    wed = results(admin_client.get(url(Marriage, "changelist"), {"state": "wed"}))
    assert wed
    assert all(m.is_wed for m in wed)
    french = results(admin_client.get(url(Marriage, "changelist"), {"husband__controlled_by__id__exact": france.pk}))
    assert french
    assert {m.husband.controlled_by_id for m in french} == {france.pk}


# Dynasty page: characters inline, marriages listed ----------------------------------------------


def test_dynasty_page_shows_its_characters_and_marriages(admin_client, world):
    england = Dynasty.objects.get(campaign=world, crown="England")
    response = admin_client.get(url(Dynasty, "change", england.pk))
    [formset] = [f.formset for f in response.context["inline_admin_formsets"]]
    assert set(formset.queryset) == set(Character.objects.filter(controlled_by=england))
    html = response.content.decode()
    royal = Marriage.objects.get(husband__controlled_by=england)
    assert url(Marriage, "change", royal.pk) in html
    france_marriage = Marriage.objects.get(husband__controlled_by__crown="France", campaign=world)
    assert url(Marriage, "change", france_marriage.pk) not in html


# The roll log is read-only ----------------------------------------------------------------------


@pytest.mark.parametrize("model", READ_ONLY, ids=lambda m: m.__name__)
def test_roll_log_admin_refuses_add_change_delete(admin_client, world, rf, admin_user, model):
    model_admin = admin.site._registry[model]
    request = rf.get("/")
    request.user = admin_user
    obj = model.objects.order_by("pk").first()
    assert model_admin.has_add_permission(request) is False
    assert model_admin.has_change_permission(request, obj) is False
    assert model_admin.has_delete_permission(request, obj) is False
    assert model_admin.has_view_permission(request, obj) is True
    assert "delete_selected" not in model_admin.get_actions(request)
    concrete = {f.name for f in model._meta.concrete_fields}
    assert concrete <= set(model_admin.get_readonly_fields(request, obj))

    assert admin_client.get(url(model, "add")).status_code == 403
    assert admin_client.post(url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
    assert model.objects.filter(pk=obj.pk).exists()


def test_roll_subject_inline_is_read_only(rf, admin_user):
    request = rf.get("/")
    request.user = admin_user
    inline = next(i(Roll, admin.site) for i in admin.site._registry[Roll].inlines if i.model is RollSubject)
    assert inline.has_add_permission(request, None) is False
    assert inline.has_change_permission(request, None) is False
    assert inline.has_delete_permission(request, None) is False


def test_posting_to_a_roll_change_page_changes_nothing(admin_client, world):
    roll = Roll.objects.filter(campaign=world, purpose="birth").get()
    before = (roll.faces, roll.outcome, roll.target, roll.modifier)
    response = admin_client.post(
        url(Roll, "change", roll.pk),
        {"faces": "[1, 1]", "outcome": "no child", "target": "2", "modifier": "5", "purpose": "birth"},
    )
    assert response.status_code == 403
    roll.refresh_from_db()
    assert (roll.faces, roll.outcome, roll.target, roll.modifier) == before == ([6, 6], "child", 7, 0)


def test_posting_to_a_chronicle_change_page_changes_nothing(admin_client, world):
    entry = ChronicleEntry.objects.filter(campaign=world).order_by("pk").first()
    text = entry.text
    response = admin_client.post(url(ChronicleEntry, "change", entry.pk), {"text": "rewritten history"})
    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.text == text


# Rule tables go through the service -------------------------------------------------------------


# A table's cells edited as a grid (no JSON), through the service: tests/test_admin_rule_tables.py.


def test_the_restore_defaults_action_restores_an_edited_table(admin_client, world):
    survival = RuleTable.objects.get(campaign=world, key="survival")
    edited = copy.deepcopy(DEFAULT_SURVIVAL)
    edited[-1]["need"] = 20
    survival.data = edited
    survival.save()
    bands = RuleTable.objects.get(campaign=world, key="characteristic_bands")
    bands_edited = copy.deepcopy(DEFAULT_CHARACTERISTIC_BANDS)
    bands_edited[0]["value"] = -3
    bands.data = bands_edited
    bands.save()

    response = admin_client.post(
        url(RuleTable, "changelist"), {"action": "restore_defaults", "_selected_action": [survival.pk]}, follow=True
    )
    assert response.status_code == 200
    assert "restored the shipped defaults of survival" in response.content.decode()
    survival.refresh_from_db()
    bands.refresh_from_db()
    assert survival.data == DEFAULT_SURVIVAL
    assert bands.data == bands_edited  # not selected, not touched


def test_the_campaign_action_restores_all_its_tables(admin_client, world):
    RuleTable.objects.filter(campaign=world, key="survival").update(data=[{"age": 15, "need": 12}])
    RuleTable.objects.filter(campaign=world, key="characteristic_bands").delete()
    response = admin_client.post(url(Campaign, "changelist"), {"action": "restore_all_tables", "_selected_action": [world.pk]})
    assert response.status_code == 302
    tables = {t.key: t.data for t in RuleTable.objects.filter(campaign=world)}
    assert tables == {"survival": DEFAULT_SURVIVAL, "characteristic_bands": DEFAULT_CHARACTERISTIC_BANDS}


# Campaigns and members through their services ---------------------------------------------------


def test_adding_a_campaign_in_the_admin_sets_it_up(admin_client, admin_user, db):
    response = admin_client.post(
        url(Campaign, "add"),
        {"name": "Admin War", "slug": "admin-war", "ruleset": "blood-royale", "players": "3"},
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    campaign = Campaign.objects.get(slug="admin-war")
    assert campaign.dynasties.count() == 4  # three crowns and the aristocratic family
    assert campaign.tables.count() == 2
    assert Membership.objects.get(campaign=campaign).user == admin_user
    assert Membership.objects.get(campaign=campaign).role == Role.GM


def test_adding_a_campaign_in_the_admin_lets_the_table_choose_its_countries(admin_client, db):
    """Blood Royale: 'If there are four players ... England becomes a non-player country' (the default);
    three players 'Allow a free selection from all five countries' - the desk offers both."""
    response = admin_client.post(
        url(Campaign, "add"), {"name": "Four", "slug": "four", "ruleset": "blood-royale", "players": "4"}
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    four = Campaign.objects.get(slug="four")
    assert sorted(four.dynasties.values_list("crown", flat=True)) == ["France", "Germany", "Italy", "Spain"]
    response = admin_client.post(
        url(Campaign, "add"),
        {"name": "Three", "slug": "three", "ruleset": "blood-royale", "players": "3", "countries": ["England", "Italy", "Spain"]},
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    three = Campaign.objects.get(slug="three")
    crowns = set(three.dynasties.exclude(crown="").values_list("crown", flat=True))
    assert crowns == {"England", "Italy", "Spain"}
    response = admin_client.post(  # two countries for three players: refused beside the field, nothing made
        url(Campaign, "add"),
        {"name": "Bad", "slug": "bad", "ruleset": "blood-royale", "players": "3", "countries": ["England", "Italy"]},
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["countries"]
    assert not Campaign.objects.filter(slug="bad").exists()


def test_adding_a_campaign_with_an_unknown_optional_rule_is_a_form_error(admin_client, db):
    response = admin_client.post(
        url(Campaign, "add"),
        {"name": "X", "slug": "x", "ruleset": "blood-royale", "players": "3", "optional_rules": ["dragons"]},
    )
    assert response.status_code == 200
    assert "no optional rule &#x27;dragons&#x27;" in response.content.decode()
    assert not Campaign.objects.filter(slug="x").exists()


def test_a_player_membership_without_a_dynasty_is_refused_in_the_admin(admin_client, world, outsider):
    response = admin_client.post(
        url(Membership, "add"), {"desk_campaign": world.pk, "username": "outsider", "role": "player", "dynasty": ""}
    )
    assert response.status_code == 200
    assert "A player needs a dynasty of Test Campaign to play." in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()


def test_a_membership_added_in_the_admin_is_saved(admin_client, world, outsider):
    spain = Dynasty.objects.get(campaign=world, crown="Spain")
    response = admin_client.post(
        url(Membership, "add"), {"desk_campaign": world.pk, "username": "outsider", "role": "player", "dynasty": spain.pk}
    )
    assert response.status_code == 302
    assert member_house(Membership.objects.get(user=outsider)) == spain


# Character corrections --------------------------------------------------------------------------


def form_data(response) -> dict[str, Any]:
    """The POST data that would resubmit an admin change form unchanged."""
    form = response.context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = field.prepare_value(form[name].value())
        data[name] = "" if value is None else value
    return data


def test_a_dead_character_without_a_death_year_gets_a_readable_error(admin_client, world):
    """On the add page (a character's change page shows his fate read-only: the rules' own)."""
    hal = Character.objects.get(given_name="Hal")
    data = form_data(admin_client.get(url(Character, "add")))
    data.update(
        campaign=world.pk,
        given_name="Added",
        dynastic_name="Plantagenet",
        sex="M",
        birth_year="1290",
        birth_order="1",
        origin="created",
        birth_dynasty=hal.birth_dynasty_id,
        controlled_by=hal.controlled_by_id,
        status="dead",
    )
    response = admin_client.post(url(Character, "add"), data)
    assert response.status_code == 200
    assert "A dead character needs a year of death." in response.content.decode()
    assert not Character.objects.filter(given_name="Added").exists()


def test_a_gm_correction_of_a_character_is_saved(admin_client, world):
    hal = Character.objects.get(given_name="Hal")
    data = form_data(admin_client.get(url(Character, "change", hal.pk)))
    data.update(given_name="Henry", status="dead", death_year="1302")  # the fate is read-only: ignored
    response = admin_client.post(url(Character, "change", hal.pk), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    hal.refresh_from_db()
    assert (hal.given_name, hal.status, hal.death_year) == ("Henry", "alive", None)
