"""The admin's hand edits (issue 20): a character's characteristics are one whole-number field each,
named by the campaign's ruleset with its range; a bad value is refused with a message; a good one
is saved through the service (the audit trail, the GM-only chronicle line); what the rules own is
read-only; a death recorded at the table is the characters' action."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from campaign.models import Audience, ChronicleEntry
from dynasties.models import Character, Dynasty, Marriage, Status


def change_url(model: str, pk: int) -> str:
    return reverse(f"admin:dynasties_{model}_change", args=[pk])


def form_data(response) -> dict[str, Any]:
    """The POST data that would resubmit an admin change form unchanged."""
    form = response.context["adminform"].form
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = field.prepare_value(form[name].value())
        if value is False:
            continue  # an unticked box is not sent
        data[name] = "" if value is None else value
    for inline in response.context["inline_admin_formsets"]:  # a house's characters: read-only rows
        formset = inline.formset
        for name in formset.management_form.fields:
            data[f"{formset.prefix}-{name}"] = formset.management_form[name].value()
        for form in formset.forms:
            for name in form.fields:
                value = form[name].value()
                data[f"{form.prefix}-{name}"] = "" if value is None else getattr(value, "pk", value)
    return data


@pytest.fixture
def king(campaign) -> Character:
    return Character.objects.get(campaign=campaign, controlled_by__crown="England", sex="M", birth_year=1275)


def test_the_characteristics_are_fields_named_by_the_ruleset_with_their_range(admin_client, king):
    response = admin_client.get(change_url("character", king.pk))
    form = response.context["adminform"].form
    assert "characteristics" not in form.fields
    fields = {name: form.fields[name] for name in ("char_strength", "char_constitution", "char_charisma")}
    assert [f.label for f in fields.values()] == ["Strength", "Constitution", "Charisma"]
    # a King's Charisma has no floor: a passed-over heir's penalty and foreign aid take it below -2 (issue 33)
    assert [(f.min_value, f.max_value) for f in fields.values()] == [(-2, 3), (-2, 2), (None, 2)]
    assert form["char_strength"].value() == king.characteristics["strength"]
    page = response.content.decode()
    assert 'name="char_strength"' in page and "-2 to +3" in page
    assert 'name="status"' not in page  # the rules' own: shown, not a field


def test_a_bad_characteristic_is_refused_with_a_message_and_nothing_is_written(admin_client, king):
    before = dict(king.characteristics)
    data = form_data(admin_client.get(change_url("character", king.pk)))
    data.update(char_charisma="5", given_name="Edmund")
    response = admin_client.post(change_url("character", king.pk), data)
    assert response.status_code == 200
    assert "Charisma is a whole number up to +2 (a monarch&#x27;s: Blood Royale 9 and 20" in response.content.decode()
    king.refresh_from_db()
    assert (king.given_name, king.characteristics) != ("Edmund", before)
    assert king.characteristics == before and king.given_name != "Edmund"


def test_a_good_characteristic_is_saved_through_the_service(admin_client, admin_user, king, campaign):
    data = form_data(admin_client.get(change_url("character", king.pk)))
    data.update(char_strength="3", given_name="Edmund")
    response = admin_client.post(change_url("character", king.pk), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    king.refresh_from_db()
    assert king.given_name == "Edmund" and king.characteristics["strength"] == 3
    row = king.history.latest("history_date")
    assert (row.history_user, row.history_change_reason) == (admin_user, "Admin edit")
    line = ChronicleEntry.objects.get(campaign=campaign, kind="hand_edit")
    assert line.audience == Audience.GM and "Strength +3" in line.text


def test_an_unchanged_form_writes_nothing(admin_client, king, campaign):
    data = form_data(admin_client.get(change_url("character", king.pk)))
    assert admin_client.post(change_url("character", king.pk), data).status_code == 302
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="hand_edit").exists()


def test_a_posted_status_is_ignored_the_rules_own_it(admin_client, king):
    data = form_data(admin_client.get(change_url("character", king.pk)))
    data.update(status="dead", death_year="1301", death_cause="typed by hand")
    assert admin_client.post(change_url("character", king.pk), data).status_code == 302
    king.refresh_from_db()
    assert king.status == Status.ALIVE


def test_a_death_recorded_at_the_table_goes_through_the_event_service(admin_client, king, campaign):
    response = admin_client.post(
        reverse("admin:dynasties_character_changelist"),
        {"action": "event_killed", "_selected_action": [king.pk]},
        follow=True,
    )
    assert response.status_code == 200
    king.refresh_from_db()
    assert (king.status, king.death_year) == (Status.DEAD, campaign.current_year)
    assert "killed" in king.death_cause.lower()
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="death", text__contains=king.given_name).exists()


def test_a_house_is_renamed_through_the_service(admin_client, campaign):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    data = form_data(admin_client.get(change_url("dynasty", england.pk)))
    assert "crown" not in data and "kind" not in data  # read-only here
    data["name"] = "Lancaster"
    response = admin_client.post(change_url("dynasty", england.pk), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Dynasty.objects.get(pk=england.pk).name == "Lancaster"
    assert Character.objects.filter(campaign=campaign, birth_dynasty=england, dynastic_name="Lancaster").exists()


def test_a_house_name_already_taken_is_refused_on_its_field(admin_client, campaign):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    data = form_data(admin_client.get(change_url("dynasty", england.pk)))
    data["name"] = france.name
    response = admin_client.post(change_url("dynasty", england.pk), data)
    assert response.status_code == 200
    assert f"Another house of Test Campaign is called {france.name}." in response.content.decode()


def test_a_matchs_year_is_edited_and_its_wedding_is_read_only(admin_client, campaign):
    match = Marriage.objects.filter(campaign=campaign).order_by("pk").first()
    data = form_data(admin_client.get(change_url("marriage", match.pk)))
    assert set(data) == {"arranged_year"}
    data["arranged_year"] = str(match.arranged_year - 1)
    assert admin_client.post(change_url("marriage", match.pk), data).status_code == 302
    assert Marriage.objects.get(pk=match.pk).arranged_year == match.arranged_year - 1


def test_a_drafts_title_and_text_are_edited_through_the_service(admin_client, campaign, gm):
    from contracts.models import Contract, ContractState
    from contracts.services import contract_draft

    houses = list(Dynasty.objects.filter(campaign=campaign, crown__in=["England", "France"]))
    deed = contract_draft(campaign=campaign, kind="agreement", title="Peace", parties=houses, text="Peace.", by=gm)
    change = reverse("admin:contracts_contract_change", args=[deed.pk])
    data = form_data(admin_client.get(change))
    assert {"title", "text", "term_years"} <= set(data) and "state" not in data
    data.update(title="Peace of Calais", text="Peace for ever.")
    response = admin_client.post(change, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    deed.refresh_from_db()
    assert (deed.title, deed.text) == ("Peace of Calais", "Peace for ever.")
    assert ChronicleEntry.objects.get(campaign=campaign, kind="hand_edit").audience == Audience.GM
    Contract.objects.filter(pk=deed.pk).update(state=ContractState.SIGNED, signed_year=campaign.current_year)
    assert "text" not in form_data(admin_client.get(change))  # once signed, only the title


def test_a_rolls_page_links_to_its_correction_through_the_service(admin_client, campaign):
    from campaign.models import Roll

    roll = Roll.objects.filter(campaign=campaign).order_by("pk").first()
    page = admin_client.get(reverse("admin:campaign_roll_change", args=[roll.pk])).content.decode()
    assert reverse("pages:roll_correct", args=[campaign.slug, roll.pk]) in page


def test_a_crowns_numerals_are_typed_as_words_not_json(admin_client, campaign):
    from dynasties.models import Crown

    crown = Crown.objects.get(campaign=campaign, name="England")
    Crown.objects.filter(pk=crown.pk).update(numerals={"Edward": 2, "Henry": 3})
    response = admin_client.get(reverse("admin:dynasties_crown_change", args=[crown.pk]))
    assert response.context["adminform"].form["numerals"].value() in ({"Edward": 2, "Henry": 3}, "Edward 2, Henry 3")
    assert 'value="Edward 2, Henry 3"' in response.content.decode()
    assert 'name="state"' not in response.content.decode()  # the rules' state: read-only


def test_a_campaigns_optional_rules_are_boxes_not_json(admin_client, campaign):
    from campaign.models import Campaign

    change = reverse("admin:campaign_campaign_change", args=[campaign.pk])
    response = admin_client.get(change)
    page = response.content.decode()
    assert 'type="checkbox" name="optional_rules" value="governing_provinces"' in page
    data = form_data(response)
    data["optional_rules"] = ["governing_provinces"]
    response = admin_client.post(change, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    options = Campaign.objects.get(pk=campaign.pk).optional_rules
    assert options["governing_provinces"] is True and options["four_character_start"] is False
