"""The rule tables in the admin as grids of typed fields, no raw JSON (issue 20): every table of every
ruleset renders as its cells; a cell edited is saved through ``table_update`` (a desk change set);
a bad value is refused in the validator's words with nothing saved; a GM sees only his tables."""

from __future__ import annotations

import copy
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from campaign.models import Campaign, Checkpoint, RuleTable
from dynasties.services import campaign_create
from rules import get_ruleset, rulesets
from rules.dice import RandomSource
from rules.tables import DEFAULT_SURVIVAL

RULESETS = [r.name for r in rulesets()]
TABLES = [(r.name, key) for r in rulesets() for key in r.DEFAULT_TABLES]


def change_url(table: RuleTable) -> str:
    return reverse("admin:campaign_ruletable_change", args=[table.pk])


class Inputs(HTMLParser):
    """The values a browser would send back from a page's form: inputs, checked boxes, selected options."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.textareas = 0
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        name = a.get("name") or ""
        if tag == "textarea":
            self.textareas += 1
        elif tag == "input" and a.get("type") == "checkbox":
            if "checked" in a:
                self.values[name] = a.get("value") or "on"
            else:
                self.values.setdefault(name, "")
        elif tag == "input" and a.get("type") not in ("submit", "hidden"):
            self.values[name] = a.get("value") or ""
        elif tag == "select":
            self.select = name
            self.values[name] = ""
        elif tag == "option" and self.select and "selected" in a:
            self.values[self.select] = a.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None


def page_cells(body: str) -> tuple[dict[str, str], int]:
    """The grid's cells (fields named ``t-...``) as the page shows them, and the number of textareas."""
    parser = Inputs()
    parser.feed(body)
    return {k: v for k, v in parser.values.items() if k.startswith("t-")}, parser.textareas


def post_cells(cells: dict[str, str]) -> dict[str, str]:
    """What the browser sends: an unticked box is not sent."""
    return {k: v for k, v in cells.items() if not (v == "" and k.endswith("can_lead"))}


@pytest.fixture
def campaigns(campaign) -> dict[str, Campaign]:
    """One campaign of every ruleset (the test campaign is Blood Royale's)."""
    found = {campaign.ruleset: campaign}
    for n, name in enumerate(r for r in RULESETS if r not in found):
        found[name] = campaign_create(name=f"Campaign {name}", ruleset=name, players=3, source=RandomSource(n + 1))
    return found


def table_of(campaigns: dict[str, Campaign], ruleset: str, key: str) -> RuleTable:
    return RuleTable.objects.get(campaign=campaigns[ruleset], key=key)


# Every table renders as a grid and comes back unchanged ------------------------------------------


@pytest.mark.parametrize(("ruleset", "key"), TABLES)
def test_every_table_renders_as_typed_cells_and_posts_back_unchanged(admin_client, campaigns, ruleset, key):
    table = table_of(campaigns, ruleset, key)
    response = admin_client.get(change_url(table))
    assert response.status_code == 200
    body = response.content.decode()
    cells, textareas = page_cells(body)
    assert textareas == 0  # no JSON box anywhere on the page
    assert set(cells) == set(response.context["adminform"].form.grid.fields)
    assert 'type="number"' in body  # every table has numbers, typed as numbers

    response = admin_client.post(change_url(table), post_cells(cells))
    assert response.status_code == 302, response.context["adminform"].form.errors
    table.refresh_from_db()
    assert table.data == get_ruleset(ruleset).DEFAULT_TABLES[key]


@pytest.mark.parametrize(
    ("ruleset", "key", "count"),
    [
        ("blood-royale", "survival", 14 * 2 + 2),  # age and need per row, and an empty row to add one
        ("blood-royale", "characteristic_bands", 5 * 3 + 3),
        ("eu-bloodline", "bloodline_survival", 14 + 19 * 14),  # the age headings, then a row per 2d10 total
        ("eu-monarchs", "eu_ransom", 2 * 2),  # major and minor: ducats and stability
        ("eu-monarchs", "eu_monarch_modifiers", 10),  # one field per modifier, after_crisis as "2, 1"
        ("eu-monarchs", "eu_successor_values", 5 + 11 * 6),  # the columns, then roll and 5 values per row
    ],
)
def test_a_table_has_one_input_per_cell(admin_client, campaigns, ruleset, key, count):
    cells, _ = page_cells(admin_client.get(change_url(table_of(campaigns, ruleset, key))).content.decode())
    assert len(cells) == count


def test_the_grid_is_headed_as_the_rulebook_prints_it(admin_client, campaigns):
    body = admin_client.get(change_url(table_of(campaigns, "blood-royale", "survival"))).content.decode()
    assert '<th scope="col">Age</th><th scope="col">Need</th>' in body
    assert 'name="t-0-age" value="15"' in body and 'name="t-0-need" value="3"' in body
    assert "Survival numbers by age" in body  # the table's title
    monarchs = admin_client.get(change_url(table_of(campaigns, "eu-monarchs", "eu_monarch_table"))).content.decode()
    assert '<select name="t-9-survival"' in monarchs  # the validator's choices, as a choice
    assert '<option value="dead" selected>dead</option>' in monarchs


# Editing through the service ---------------------------------------------------------------------


def test_editing_one_cell_saves_it_through_the_service_as_a_desk_change_set(admin_client, campaign, monkeypatch):
    import desk.admin.campaign as campaign_admin

    calls: list[dict[str, Any]] = []
    real = campaign_admin.table_update
    monkeypatch.setattr(campaign_admin, "table_update", lambda **kw: calls.append(kw) or real(**kw))
    table = RuleTable.objects.get(campaign=campaign, key="survival")
    cells, _ = page_cells(admin_client.get(change_url(table)).content.decode())
    response = admin_client.post(change_url(table), {**cells, "t-0-need": "2"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.data == [{"age": 15, "need": 2}, *DEFAULT_SURVIVAL[1:]]
    assert [(c["campaign"].pk, c["key"], c["by"].username) for c in calls] == [(campaign.pk, "survival", "admin")]
    point = Checkpoint.objects.filter(campaign=campaign).latest("pk")
    assert point.label == f"Desk: changed rule table #{table.pk}"  # in the undo history, undone alone


def test_a_row_is_added_in_the_empty_row_and_removed_by_clearing_it(admin_client, campaign):
    table = RuleTable.objects.get(campaign=campaign, key="survival")
    cells, _ = page_cells(admin_client.get(change_url(table)).content.decode())
    last = len(DEFAULT_SURVIVAL)
    edited = {**cells, f"t-{last}-age": "85", f"t-{last}-need": "14", "t-1-age": "", "t-1-need": ""}
    assert admin_client.post(change_url(table), edited).status_code == 302
    table.refresh_from_db()
    assert table.data == [DEFAULT_SURVIVAL[0], *DEFAULT_SURVIVAL[2:], {"age": 85, "need": 14}]


def test_a_choice_and_a_list_are_saved_typed(admin_client, campaigns):
    monarchs = table_of(campaigns, "eu-monarchs", "eu_monarch_table")
    cells, _ = page_cells(admin_client.get(change_url(monarchs)).content.decode())
    assert admin_client.post(change_url(monarchs), {**cells, "t-1-survival": "dead"}).status_code == 302
    monarchs.refresh_from_db()
    assert monarchs.data[1]["survival"] == "dead"
    modifiers = table_of(campaigns, "eu-monarchs", "eu_monarch_modifiers")
    cells, _ = page_cells(admin_client.get(change_url(modifiers)).content.decode())
    assert cells["t-after_crisis"] == "2, 1"
    assert admin_client.post(change_url(modifiers), {**cells, "t-after_crisis": "3, 2, 1"}).status_code == 302
    modifiers.refresh_from_db()
    assert modifiers.data["after_crisis"] == [3, 2, 1]


# A bad value is refused, nothing saved -----------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("t-0-need", "99", "Survival table, row 1: the number needed, 99, is outside -10..30."),  # out of range
        ("t-0-need", "three", "Enter a whole number."),  # wrong type
        ("t-1-age", "10", "Survival table, row 2: ages must increase (age 10 comes after 15)."),
        ("t-0-need", "", "Fill in this cell, or clear the whole row to remove it."),
    ],
)
def test_a_bad_value_is_refused_with_the_message_and_nothing_saved(admin_client, campaign, field, value, message):
    table = RuleTable.objects.get(campaign=campaign, key="survival")
    cells, _ = page_cells(admin_client.get(change_url(table)).content.decode())
    before = Checkpoint.objects.filter(campaign=campaign).count()
    response = admin_client.post(change_url(table), {**cells, field: value})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert response.context["adminform"].form.errors
    table.refresh_from_db()
    assert table.data == DEFAULT_SURVIVAL
    assert Checkpoint.objects.filter(campaign=campaign).count() == before  # no change set either


def test_a_value_outside_the_validators_choices_is_refused(admin_client, campaigns):
    table = table_of(campaigns, "eu-monarchs", "eu_monarch_table")
    cells, _ = page_cells(admin_client.get(change_url(table)).content.decode())
    response = admin_client.post(change_url(table), {**cells, "t-0-survival": "resurrected"})
    assert response.status_code == 200
    assert "Select a valid choice." in response.content.decode()
    response = admin_client.post(change_url(table), {**cells, "t-0-reign": "99"})
    assert response.status_code == 200
    assert "Monarch table, row 1: &#x27;reign&#x27; (turns) is 99, outside 1..40." in response.content.decode()
    table.refresh_from_db()
    assert table.data == get_ruleset("eu-monarchs").DEFAULT_TABLES["eu_monarch_table"]


def test_a_list_of_numbers_that_are_not_numbers_is_refused(admin_client, campaigns):
    table = table_of(campaigns, "eu-monarchs", "eu_monarch_modifiers")
    cells, _ = page_cells(admin_client.get(change_url(table)).content.decode())
    response = admin_client.post(change_url(table), {**cells, "t-after_crisis": "two, one"})
    assert "Write whole numbers separated by commas, e.g. 2, 1." in response.content.decode()
    table.refresh_from_db()
    assert table.data == get_ruleset("eu-monarchs").DEFAULT_TABLES["eu_monarch_modifiers"]


# Adding a table --------------------------------------------------------------------------------


def test_an_added_table_starts_as_the_shipped_default_shown_in_the_grid(admin_client, campaign):
    RuleTable.objects.filter(campaign=campaign, key="characteristic_bands").delete()
    add = reverse("admin:campaign_ruletable_add")
    page = admin_client.get(add).content.decode()
    assert "<textarea" not in page and 'name="key"' in page
    admin_client.get(reverse("admin:desk_choose", args=[campaign.pk]))  # working on this campaign
    form = admin_client.get(add).context["adminform"].form
    assert "campaign" not in form.fields and form.instance.campaign_id == campaign.pk  # added to the desk's campaign
    response = admin_client.post(add, {"desk_campaign": campaign.pk, "key": "characteristic_bands"}, follow=True)
    table = RuleTable.objects.get(campaign=campaign, key="characteristic_bands")
    assert table.data == get_ruleset("blood-royale").DEFAULT_TABLES["characteristic_bands"]
    assert response.redirect_chain[-1][0] == change_url(table)  # straight to its grid
    body = response.content.decode()
    assert "starts as the ruleset&#x27;s shipped default" in body
    assert 'name="t-4-high" value="18"' in body


def test_adding_a_table_the_campaign_has_or_its_ruleset_lacks_is_refused(admin_client, campaign):
    add = reverse("admin:campaign_ruletable_add")
    response = admin_client.post(add, {"desk_campaign": campaign.pk, "key": "survival"})
    assert "has this table already" in response.content.decode()
    response = admin_client.post(add, {"desk_campaign": campaign.pk, "key": "eu_ransom"})
    assert "ruleset has no table called &#x27;eu_ransom&#x27;" in response.content.decode()
    assert not RuleTable.objects.filter(campaign=campaign, key="eu_ransom").exists()


def test_the_restore_action_stays(admin_client, campaign):
    table = RuleTable.objects.get(campaign=campaign, key="survival")
    RuleTable.objects.filter(pk=table.pk).update(data=[{"age": 15, "need": 12}])
    admin_client.post(
        reverse("admin:campaign_ruletable_changelist"), {"action": "restore_defaults", "_selected_action": [table.pk]}
    )
    table.refresh_from_db()
    assert table.data == DEFAULT_SURVIVAL


# Scoping -----------------------------------------------------------------------------------------


def test_a_gm_of_another_campaign_cannot_open_or_change_its_table(campaign, gm, django_user_model):
    other_gm = django_user_model.objects.create_user("other", password="other-password-1", is_staff=True)
    other_gm.user_permissions.set(Permission.objects.filter(content_type__app_label="campaign"))
    gm.is_staff = True
    gm.save()
    gm.user_permissions.set(Permission.objects.filter(content_type__app_label="campaign"))
    theirs = campaign_create(name="Other Campaign", players=3, source=RandomSource(3), by=other_gm)
    table = RuleTable.objects.get(campaign=theirs, key="survival")
    client = Client()
    client.force_login(gm)
    assert client.get(change_url(table)).status_code == 302  # "does not exist": back to the index
    edited = copy.deepcopy(DEFAULT_SURVIVAL)
    client.post(change_url(table), {"t-0-age": "15", "t-0-need": "2"})
    table.refresh_from_db()
    assert table.data == edited
    RuleTable.objects.filter(pk=table.pk).update(data=[{"age": 15, "need": 12}])
    client.post(change_url(table), {"_restore": "Restore the shipped defaults"})  # nor its restore button
    table.refresh_from_db()
    assert table.data == [{"age": 15, "need": 12}]
    add = reverse("admin:campaign_ruletable_add")
    RuleTable.objects.filter(pk=table.pk).delete()
    response = client.post(add, {"campaign": theirs.pk, "desk_campaign": theirs.pk, "key": "survival"})
    assert "switched to another campaign" in response.content.decode()  # the desk adds to his campaign, not the one posted
    assert not RuleTable.objects.filter(campaign=theirs, key="survival").exists()
    own = RuleTable.objects.get(campaign=campaign, key="survival")
    assert client.get(change_url(own)).status_code == 200  # his own opens


def test_the_grids_restore_button_puts_this_table_back(admin_client, campaign):
    table = RuleTable.objects.get(campaign=campaign, key="survival")
    bands = RuleTable.objects.get(campaign=campaign, key="characteristic_bands")
    RuleTable.objects.filter(pk__in=[table.pk, bands.pk]).update(data=[{"age": 15, "need": 12}])
    page = admin_client.get(change_url(table)).content.decode()
    assert 'name="_restore"' in page and 'style="' not in page  # the CSP allows no inline style
    response = admin_client.post(change_url(table), {"_restore": "Restore the shipped defaults"}, follow=True)
    assert "Restored the shipped defaults of this table." in response.content.decode()
    table.refresh_from_db()
    bands.refresh_from_db()
    assert table.data == DEFAULT_SURVIVAL
    assert bands.data == [{"age": 15, "need": 12}]  # another table is not touched
    point = Checkpoint.objects.filter(campaign=campaign).latest("pk")
    assert point.label == f"Desk: changed rule table #{table.pk}"
