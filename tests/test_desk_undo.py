"""Saves at the desk (the admin) are change sets of their own: the undo history shows them, undo
takes a correction back before the step it followed, and nothing the desk wrote is lost silently."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from campaign.models import Campaign, Checkpoint, Step
from campaign.undo import new_action_key, redo, step_action, undo_plan, undo_step
from dynasties.models import Character
from operations.simulation import play_births
from rules.dice import RandomSource


def _form_data(response: Any) -> dict[str, Any]:
    """The POST the admin's change page would send unchanged: its form and its inlines."""
    data: dict[str, Any] = {}

    def add(form: Any, prefix: str = "") -> None:
        for name in form.fields:
            value = form[name].value()
            key = f"{prefix}{name}"
            if isinstance(value, bool):
                if value:
                    data[key] = "on"
            elif isinstance(value, list | tuple):
                data[key] = [str(v) for v in value]
            elif value is not None:
                data[key] = str(value)

    add(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for name, value in formset.management_form.initial.items():
            data[f"{formset.prefix}-{name}"] = value
        for i, form in enumerate(formset.forms):
            add(form, f"{formset.prefix}-{i}-")
    return data


def test_a_desk_correction_after_a_step_is_undone_alone_and_first(campaign, gm, admin_client):
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    played = Campaign.objects.get(pk=campaign.pk)
    assert played.step == Step.SURVIVAL
    change = reverse("admin:campaign_campaign_change", args=[campaign.pk])
    data = _form_data(admin_client.get(change))
    data["current_year"] = str(played.current_year + 5)  # the GM corrects the year at the desk
    response = admin_client.post(change, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    assert Campaign.objects.get(pk=campaign.pk).current_year == played.current_year + 5
    kinds = list(Checkpoint.objects.filter(campaign=campaign).order_by("pk").values_list("kind", "label"))
    assert kinds == [("step", "Births"), ("desk", f"Desk: changed campaign #{campaign.pk}")]
    plan = undo_plan(Campaign.objects.get(pk=campaign.pk))
    assert plan is not None and "desk" in plan.description
    undo_step(campaign=campaign, key=new_action_key(), by=gm)  # the correction only: the births stay
    back = Campaign.objects.get(pk=campaign.pk)
    assert (back.current_year, back.step) == (played.current_year, Step.SURVIVAL)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.BIRTHS
    redo(campaign=campaign, key=new_action_key(), by=gm)
    redo(campaign=campaign, key=new_action_key(), by=gm)
    assert Campaign.objects.get(pk=campaign.pk).current_year == played.current_year + 5


def test_a_desk_edit_of_a_character_is_logged_and_undone(campaign, gm, admin_client):
    person = Character.objects.filter(campaign=campaign).order_by("pk").first()
    assert person is not None
    change = reverse("admin:dynasties_character_change", args=[person.pk])
    data = _form_data(admin_client.get(change))
    data["given_name"] = "Corrected"
    response = admin_client.post(change, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    assert Character.objects.get(pk=person.pk).given_name == "Corrected"
    assert list(Checkpoint.objects.filter(campaign=campaign).values_list("kind", flat=True)) == ["desk"]
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert Character.objects.get(pk=person.pk).given_name == person.given_name


def test_a_desk_form_sent_back_with_errors_records_nothing(campaign, admin_client):
    change = reverse("admin:campaign_campaign_change", args=[campaign.pk])
    data = _form_data(admin_client.get(change))
    data["step"] = "no-such-step"
    assert admin_client.post(change, data).status_code == 200  # the form again, with its error
    assert not Checkpoint.objects.filter(campaign=campaign).exists()


def test_the_undo_command_redoes_too(campaign, gm):
    from io import StringIO

    from django.core.management import call_command

    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    call_command("undo", campaign.slug, as_user="gm", stdout=StringIO())
    assert Campaign.objects.get(pk=campaign.pk).step == Step.BIRTHS
    out = StringIO()
    call_command("undo", campaign.slug, "--redo", as_user="gm", stdout=out)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.SURVIVAL
    assert "redone from the start of Births 1300" in out.getvalue()
