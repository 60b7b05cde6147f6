"""Redo: what an undo took back is written again exactly (the same rows, the same rolls), only while
nothing else was written since; and desk corrections are change sets of their own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from campaign.models import Campaign, Checkpoint, CheckpointKind, Roll
from campaign.permissions import SYSTEM_ACTOR, Forbidden
from campaign.undo import (
    AlreadyDone,
    NothingToRedo,
    change_set,
    new_action_key,
    redo,
    redo_plan,
    step_action,
    undo_plan,
    undo_step,
    undo_turn,
)
from dynasties import services
from dynasties.models import Character
from rules.dice import RandomSource
from tests.test_faults import MAX_WRITES, FailAt, Fault, state
from tests.test_undo_changes import _state, _turn


def _act(pk: int, label: str, fn: Callable[[int], Any]) -> Any:
    return step_action(campaign=pk, key=new_action_key(), label=label, action=lambda c: fn(c.pk), by=SYSTEM_ACTOR)


def _births(pk: int) -> None:
    from operations.simulation import play_births

    play_births(Campaign.objects.get(pk=pk), RandomSource(3), by=SYSTEM_ACTOR)


@pytest.mark.long
@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline", "eu-monarchs"])
def test_undo_then_redo_of_every_action_of_a_turn_gives_back_the_same_campaign(ruleset):
    """Each action of a whole turn, undone (back to the start of its step) and redone: every column
    of every row and the export are as before the undo; the rolls are the same rows (not rolled
    again); undo still works after."""
    from operations.services import demo_create
    from operations.simulation import play_turn

    demo = demo_create(ruleset=ruleset).campaign
    play_turn(demo, RandomSource(11), by=SYSTEM_ACTOR)
    pk = demo.pk
    redone = 0
    where, start = None, None
    for name, run in _turn(ruleset):
        c = Campaign.objects.get(pk=pk)
        if (c.current_year, c.step) != where:  # undo goes back to the start of the step
            where, start = (c.current_year, c.step), _state(pk)
        _act(pk, name, run)
        done = _state(pk)
        rolls = list(Roll.objects.filter(campaign=pk).order_by("pk").values_list("pk", "dice", "outcome"))
        undo_step(campaign=pk, key=new_action_key(), by=SYSTEM_ACTOR)
        assert _state(pk) == start, name
        plan = redo_plan(pk)
        assert plan is not None and plan.change_sets == 1
        redo(campaign=pk, key=new_action_key(), by=SYSTEM_ACTOR)
        assert _state(pk) == done, f"{ruleset}: redoing {name} did not give back the campaign as it was"
        assert list(Roll.objects.filter(campaign=pk).order_by("pk").values_list("pk", "dice", "outcome")) == rolls
        assert redo_plan(pk) is None
        redone += done != start
        undo_step(
            campaign=pk, key=new_action_key(), by=SYSTEM_ACTOR
        )  # the redone change set is in force: undo takes it back again
        assert _state(pk) == start, name
        redo(campaign=pk, key=new_action_key(), by=SYSTEM_ACTOR)
        assert _state(pk) == done
    assert redone >= 5
    assert Campaign.objects.get(pk=pk).current_year > demo.current_year


def test_several_undos_are_redone_latest_first_and_a_turn_undo_too(campaign, gm):
    pk = campaign.pk
    start = _state(pk)
    _act(pk, "Births", _births)
    after_births = _state(pk)
    _act(pk, "Survival", lambda p: services.survival_roll(campaign=p, source=RandomSource(4), by=SYSTEM_ACTOR))
    after_survival = _state(pk)
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == start
    redo(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == after_births
    redo(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == after_survival
    with pytest.raises(NothingToRedo):
        redo(campaign=pk, key=new_action_key(), by=gm)
    undo_turn(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == start
    plan = redo_plan(pk)
    assert plan is not None and plan.change_sets == 2
    redo(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == after_survival


def test_a_new_step_action_forgets_the_redo(campaign, gm):
    pk = campaign.pk
    _act(pk, "Births", _births)
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    assert redo_plan(pk) is not None
    step_action(campaign=pk, key=new_action_key(), label="Births again", action=lambda c: _births(c.pk), by=gm)
    assert redo_plan(pk) is None
    assert not Checkpoint.objects.filter(campaign=pk, undone_in__isnull=False).exists()
    with pytest.raises(NothingToRedo, match="nothing to redo"):
        redo(campaign=pk, key=new_action_key(), by=gm)


def test_a_write_round_the_undo_history_forgets_the_redo_rather_than_lose_it(campaign, gm):
    """A row the undo put back, changed since by a write nobody recorded: redo would overwrite it,
    so it is refused and the kept undo forgotten."""
    pk = campaign.pk
    person = Character.objects.filter(campaign=pk).order_by("pk").first()
    assert person is not None

    def rename(c: Campaign) -> None:
        Character.objects.filter(pk=person.pk).update(given_name="Renamed")

    step_action(campaign=pk, key=new_action_key(), label="Rename", action=rename, by=gm)
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    Character.objects.filter(pk=person.pk).update(given_name="Outside")
    with pytest.raises(NothingToRedo, match="changed since the undo"):
        redo(campaign=pk, key=new_action_key(), by=gm)
    assert Character.objects.get(pk=person.pk).given_name == "Outside"
    assert redo_plan(pk) is None


def test_redo_is_the_gms_and_a_form_sent_twice_redoes_once(campaign, gm, alice):
    pk = campaign.pk
    _act(pk, "Births", _births)
    done = _state(pk)
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    with pytest.raises(Forbidden):
        redo(campaign=pk, key=new_action_key(), by=alice)
    key = new_action_key()
    redo(campaign=pk, key=key, by=gm)
    with pytest.raises(AlreadyDone):
        redo(campaign=pk, key=key, by=gm)
    assert _state(pk) == done


@pytest.mark.django_db
def test_a_fault_at_any_write_of_a_redo_leaves_the_database_as_before(campaign, gm):
    pk = campaign.pk
    _act(pk, "Births", _births)
    _act(pk, "Survival", lambda p: services.survival_roll(campaign=p, source=RandomSource(4), by=SYSTEM_ACTOR))
    done = _state(pk)
    undo_turn(campaign=pk, key=new_action_key(), by=gm)
    before = state(pk)
    key = new_action_key()
    n = 0
    while True:
        n += 1
        assert n <= MAX_WRITES
        fail = FailAt(n)
        try:
            with connection.execute_wrapper(fail):
                redo(campaign=pk, key=key, by=gm)
        except Fault:
            assert state(pk) == before, f"a fault at write {n} of the redo left something behind"
            continue
        break
    assert n > 5  # the redo writes rows of several tables: each write was failed once
    assert _state(pk) == done


# --- desk corrections --------------------------------------------------------------------------


def test_a_desk_correction_is_its_own_change_set_undone_before_the_step(campaign, gm):
    """A desk save after a step: the first undo takes back the correction alone, the second the
    step; redo brings both back, in order. Nothing the desk wrote is lost silently."""
    pk = campaign.pk
    start = _state(pk)
    _act(pk, "Births", _births)
    after_births = _state(pk)
    person = Character.objects.filter(campaign=pk).order_by("pk").first()
    assert person is not None
    with change_set(pk, label="Changed a character", by=gm) as locked:
        Character.objects.filter(pk=person.pk).update(given_name="Corrected")
        Campaign.objects.filter(pk=locked.pk).update(allow_overdraft=not locked.allow_overdraft)
    corrected = _state(pk)
    points = list(Checkpoint.objects.filter(campaign=pk).order_by("pk").values_list("kind", "label"))
    assert points == [(CheckpointKind.STEP, "Births"), (CheckpointKind.DESK, "Changed a character")]
    plan = undo_plan(Campaign.objects.get(pk=pk))
    assert plan is not None and "desk" in plan.description and "Changed a character" in plan.description
    turn = undo_plan(Campaign.objects.get(pk=pk), turn=True)
    assert turn is not None and turn.desk_edits == 1  # the turn's undo says it takes the correction too
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == after_births
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == start
    redo(campaign=pk, key=new_action_key(), by=gm)
    redo(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == corrected
    assert Character.objects.get(pk=person.pk).given_name == "Corrected"


def test_a_step_action_after_a_desk_correction_opens_a_change_set_of_its_own(campaign, gm):
    pk = campaign.pk
    _act(pk, "Births", _births)  # the campaign is at Survival now
    person = Character.objects.filter(campaign=pk).order_by("pk").first()
    assert person is not None
    _act(pk, "Survival", lambda p: services.survival_roll(campaign=p, source=RandomSource(4), by=SYSTEM_ACTOR))
    after_roll = _state(pk)
    with change_set(pk, label="Renamed", by=gm):
        Character.objects.filter(pk=person.pk).update(given_name="Corrected")
    corrected = _state(pk)
    _act(pk, "Survival finish", lambda p: services.survival_finish(campaign=p, source=RandomSource(5), by=SYSTEM_ACTOR))
    kinds = list(Checkpoint.objects.filter(campaign=pk).order_by("pk").values_list("kind", flat=True))
    assert kinds == ["step", "step", "desk", "step"]
    undo_step(campaign=pk, key=new_action_key(), by=gm)  # the finish only: the correction stays
    assert _state(pk) == corrected
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    assert _state(pk) == after_roll


def test_a_desk_save_forgets_the_redo_and_one_that_wrote_nothing_leaves_no_trace(campaign, gm):
    pk = campaign.pk
    person = Character.objects.filter(campaign=pk).order_by("pk").first()
    assert person is not None
    _act(pk, "Births", _births)
    undo_step(campaign=pk, key=new_action_key(), by=gm)
    with change_set(pk, label="Nothing", by=gm):
        pass  # a form sent back with errors writes nothing
    assert redo_plan(pk) is not None
    assert Checkpoint.objects.filter(campaign=pk, undone_in__isnull=False).count() == 1
    with change_set(pk, label="Renamed", by=gm):
        Character.objects.filter(pk=person.pk).update(given_name="Corrected")
    assert redo_plan(pk) is None  # a desk save is a write: the kept undo is forgotten
    assert list(Checkpoint.objects.filter(campaign=pk).values_list("kind", flat=True)) == ["desk"]
