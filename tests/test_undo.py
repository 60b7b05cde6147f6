"""Undo: checkpoints at the start of each step, one-time form keys, exact restores."""

from __future__ import annotations

import pytest

from campaign.models import ActionKey, Campaign, Checkpoint, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import AlreadyDone, NothingToUndo, new_action_key, step_action, undo_plan, undo_step, undo_turn
from dynasties import services
from dynasties.models import Character
from operations.exchange import campaign_export
from operations.simulation import play_births, play_marriages
from rules.dice import RandomSource
from rules.errors import RuleError


def _state(campaign: Campaign) -> dict:
    data = campaign_export(Campaign.objects.get(pk=campaign.pk))
    data.pop("exported_at", None)
    return data


def _act(campaign: Campaign, label: str, fn, gm=None):
    return step_action(campaign=campaign, key=new_action_key(), label=label, action=fn, by=gm)


def test_undo_step_restores_exactly_the_start_of_the_step(campaign, gm):
    before = _state(campaign)
    ids = set(Character.objects.filter(campaign=campaign).values_list("pk", flat=True))
    _act(campaign, "Roll all births", lambda c: play_births(c, RandomSource(3), by=SYSTEM_ACTOR), gm)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.SURVIVAL
    assert Roll.objects.filter(campaign=campaign).count() > 0
    assert _state(campaign) != before
    plan = undo_plan(campaign)
    assert plan is not None and plan.checkpoint.step == Step.BIRTHS and plan.lost_rolls > 0
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert _state(campaign) == before
    # Same people with the same primary keys: links and bookmarks still work.
    assert set(Character.objects.filter(campaign=campaign).values_list("pk", flat=True)) == ids
    assert not Checkpoint.objects.filter(campaign=campaign, undone_in__isnull=True).exists()  # none in force
    assert Checkpoint.objects.filter(campaign=campaign, undone_in__isnull=False).count() == 1  # kept for redo


def test_undo_goes_back_one_step_at_a_time_and_a_whole_turn(campaign, gm):
    start = _state(campaign)
    _act(campaign, "Births", lambda c: play_births(c, RandomSource(3), by=SYSTEM_ACTOR), gm)
    after_births = _state(campaign)
    _act(campaign, "Survival", lambda c: services.survival_roll(campaign=c, source=RandomSource(4), by=SYSTEM_ACTOR), gm)
    _act(campaign, "Finish survival", lambda c: services.survival_finish(campaign=c, source=RandomSource(5), by=SYSTEM_ACTOR), gm)
    _act(campaign, "Marriages", lambda c: play_marriages(c, by=SYSTEM_ACTOR), gm)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.ANNOUNCEMENTS
    undo_step(campaign=campaign, key=new_action_key(), by=gm)  # the Marriages step
    assert Campaign.objects.get(pk=campaign.pk).step == Step.MARRIAGES
    undo_step(campaign=campaign, key=new_action_key(), by=gm)  # the Survival step
    assert _state(campaign) == after_births
    _act(campaign, "Survival again", lambda c: services.survival_roll(campaign=c, source=RandomSource(9), by=SYSTEM_ACTOR), gm)
    undo_turn(campaign=campaign, key=new_action_key(), by=gm)
    assert _state(campaign) == start
    with pytest.raises(NothingToUndo):
        undo_step(campaign=campaign, key=new_action_key(), by=gm)


def test_the_same_form_twice_does_the_work_once(campaign, gm):
    key = new_action_key()
    step_action(campaign=campaign, key=key, label="Births", action=lambda c: play_births(c, RandomSource(3), by=gm), by=gm)
    rolls = Roll.objects.filter(campaign=campaign).count()
    with pytest.raises(AlreadyDone):
        step_action(campaign=campaign, key=key, label="Births", action=lambda c: play_births(c, RandomSource(3), by=gm), by=gm)
    assert Roll.objects.filter(campaign=campaign).count() == rolls
    with pytest.raises(RuleError, match="action key"):
        step_action(campaign=campaign, key="", label="x", action=lambda c: None, by=gm)


def test_a_failed_action_leaves_no_key_and_no_checkpoint(campaign, gm):
    key = new_action_key()

    def fails(c: Campaign) -> None:
        play_births(c, RandomSource(3), by=gm)
        raise RuleError("boom")

    before = _state(campaign)
    with pytest.raises(RuleError, match="boom"):
        step_action(campaign=campaign, key=key, label="Births", action=fails, by=gm)
    assert _state(campaign) == before
    assert not ActionKey.objects.filter(campaign=campaign).exists()
    assert not Checkpoint.objects.filter(campaign=campaign).exists()
    step_action(campaign=campaign, key=key, label="Births", action=lambda c: play_births(c, RandomSource(3), by=gm), by=gm)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.SURVIVAL


def test_checkpoints_and_keys_are_read_only_in_the_admin(client, campaign, gm, django_user_model):
    from django.urls import reverse

    _act(campaign, "Roll all births", lambda c: play_births(c, RandomSource(3), by=SYSTEM_ACTOR), gm)
    admin_user = django_user_model.objects.create_superuser("root", password="root-password-1")
    client.force_login(admin_user)
    point = Checkpoint.objects.get(campaign=campaign)
    listing = client.get(reverse("admin:campaign_checkpoint_changelist"))
    assert listing.status_code == 200 and b"Roll all births" in listing.content
    detail = client.get(reverse("admin:campaign_checkpoint_change", args=[point.pk]))
    assert detail.status_code == 200 and str(len(point.data)).encode() in detail.content
    assert client.post(reverse("admin:campaign_checkpoint_delete", args=[point.pk])).status_code == 403
    keys = client.get(reverse("admin:campaign_actionkey_changelist"))
    assert keys.status_code == 200 and b"Roll all births" in keys.content


@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline", "eu-monarchs"])
def test_undo_a_whole_turn_in_every_ruleset(db, ruleset):
    from operations.services import demo_create
    from operations.simulation import play_turn

    demo = demo_create(ruleset=ruleset).campaign
    play_turn(demo, RandomSource(11), by=SYSTEM_ACTOR)  # a turn already behind, with contracts, ledger and rolls
    before, year = _state(demo), Campaign.objects.get(pk=demo.pk).current_year
    _act(demo, "A whole turn", lambda c: play_turn(c, RandomSource(12), by=SYSTEM_ACTOR))
    assert Campaign.objects.get(pk=demo.pk).current_year > year
    assert _state(demo) != before
    undo_turn(campaign=demo, key=new_action_key(), by=SYSTEM_ACTOR)
    assert _state(demo) == before


def test_undo_keeps_the_times_to_the_microsecond(campaign, gm):
    from dynasties.models import Posting

    _act(campaign, "Births", lambda c: play_births(c, RandomSource(3), by=SYSTEM_ACTOR), gm)
    stamps = {
        "rolls": list(Roll.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "created_at")),
        "postings": list(Posting.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "created_at")),
    }
    assert stamps["rolls"] and any(t.microsecond % 1000 for _, t in stamps["rolls"])
    _act(campaign, "Survival", lambda c: services.survival_roll(campaign=c, source=RandomSource(4), by=SYSTEM_ACTOR), gm)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    survived = {
        "rolls": list(Roll.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "created_at")),
        "postings": list(Posting.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "created_at")),
    }
    assert survived == stamps
