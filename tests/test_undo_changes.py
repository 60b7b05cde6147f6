"""Undo by change sets: the triggers log every row a step touches (``campaign.changelog``), and
undo puts exactly those rows back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from campaign import changelog, registry
from campaign.changelog import recording_into
from campaign.models import Campaign, Checkpoint, Roll, UndoChange
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import _unpack, new_action_key, step_action, undo_plan, undo_step
from dynasties import services
from dynasties.models import Character, Reign, Status
from operations.exchange import campaign_export
from rules.dice import RandomSource


def _state(pk: int) -> tuple[dict[str, Any], dict[str, list[tuple[Any, ...]]]]:
    """The campaign's export and every column of every row of its scoped tables."""
    data = campaign_export(Campaign.objects.get(pk=pk))
    data.pop("exported_at", None)
    rows = {
        e.label: list(e.model._base_manager.filter(**{e.campaign_path: pk}).order_by("pk").values_list())
        for e in registry.scoped_models()
    }
    return data, rows


def _act(pk: int, label: str, fn: Callable[[int], Any]) -> Any:
    return step_action(campaign=pk, key=new_action_key(), label=label, action=lambda c: fn(c.pk), by=SYSTEM_ACTOR)


def _turn(ruleset: str) -> list[tuple[str, Callable[[int], Any]]]:
    """A turn cut into the actions the pages make (as ``operations.simulation.play_turn`` plays it)."""
    from operations.simulation import play_births, play_marriages, play_monarchs, wed_due

    def campaign(pk: int) -> Campaign:
        return Campaign.objects.get(pk=pk)

    out: list[tuple[str, Callable[[int], Any]]] = []
    if ruleset != "eu-monarchs":
        out.append(("births", lambda pk: play_births(campaign(pk), RandomSource(21), by=SYSTEM_ACTOR)))
    else:
        out.append(("births_finish", lambda pk: services.births_finish(campaign=pk, by=SYSTEM_ACTOR)))
        out.append(("monarchs", lambda pk: play_monarchs(campaign(pk), RandomSource(22), by=SYSTEM_ACTOR)))
    out += [
        ("survival_roll", lambda pk: services.survival_roll(campaign=pk, source=RandomSource(23), by=SYSTEM_ACTOR)),
        ("survival_finish", lambda pk: services.survival_finish(campaign=pk, source=RandomSource(24), by=SYSTEM_ACTOR)),
        ("marriages", lambda pk: play_marriages(campaign(pk), by=SYSTEM_ACTOR)),
        ("announcements_make", lambda pk: services.announcements_make(campaign=pk, by=SYSTEM_ACTOR)),
    ]
    if ruleset == "eu-bloodline":
        out.append(("wed_due", lambda pk: wed_due(campaign(pk), by=SYSTEM_ACTOR)))
    out.append(("turn_advance", lambda pk: services.turn_advance(campaign=pk, by=SYSTEM_ACTOR)))
    return out


@pytest.mark.long
@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline", "eu-monarchs"])
def test_every_action_of_a_turn_undoes_exactly(ruleset):
    """Each action of a whole turn, undone: the campaign is as at the start of its step, every
    column of every row; then the step is played again and the turn goes on."""
    from operations.services import demo_create
    from operations.simulation import play_turn

    demo = demo_create(ruleset=ruleset).campaign
    play_turn(demo, RandomSource(11), by=SYSTEM_ACTOR)  # a turn behind it: contracts, ledger and rolls
    pk = demo.pk
    done: list[tuple[str, Callable[[int], Any]]] = []  # the actions of the step in play
    where, start = None, None
    changed = logged = 0
    for name, run in _turn(ruleset):
        c = Campaign.objects.get(pk=pk)
        if (c.current_year, c.step) != where:
            where, start, done = (c.current_year, c.step), _state(pk), []
        _act(pk, name, run)
        logged += UndoChange.objects.filter(checkpoint__campaign=pk).exists()  # the campaign's own row is not logged
        changed += _state(pk) != start
        point = undo_step(campaign=pk, key=new_action_key(), by=SYSTEM_ACTOR)
        assert _state(pk) == start, f"{ruleset}: undoing {name} did not restore the start of its step"
        assert recording_into() is None
        assert not Checkpoint.objects.filter(pk__gte=point.pk, undone_in__isnull=True).exists()  # kept for redo only
        done.append((name, run))
        for again, replay in done:  # the step played again, up to this action
            _act(pk, again, replay)
    assert changed >= 5 and logged >= 5
    assert Campaign.objects.get(pk=pk).current_year > demo.current_year


def test_only_the_rows_a_step_touches_are_logged_once_each(campaign, gm):
    from operations.simulation import play_births

    made = set(Roll.objects.filter(campaign=campaign).values_list("pk", flat=True))
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    point = Checkpoint.objects.get(campaign=campaign)
    log = UndoChange.objects.filter(checkpoint=point)
    rolls = set(Roll.objects.filter(campaign=campaign).values_list("pk", flat=True)) - made
    assert rolls and set(log.filter(table=Roll._meta.db_table).values_list("row_id", flat=True)) == rolls
    assert not log.filter(table=Roll._meta.db_table, old__isnull=False).exists()  # inserted: nothing to put back
    assert log.count() < Character.objects.filter(campaign=campaign).count() + 4 * len(rolls)
    assert recording_into() is None  # no longer recording once the action is done
    people = Character.objects.filter(campaign=campaign).count()
    Character.objects.filter(campaign=campaign).update(given_name="Outside")  # no step recording: not logged
    assert log.count() == UndoChange.objects.filter(checkpoint=point).count()
    assert Character.objects.filter(campaign=campaign, given_name="Outside").count() == people


def test_raw_sql_writes_are_caught(campaign, gm):
    """The triggers see writes the ORM never hears of."""
    person = Character.objects.filter(campaign=campaign).order_by("pk").first()
    assert person is not None
    before = _state(campaign.pk)
    table = connection.ops.quote_name(Character._meta.db_table)

    def raw(c: Campaign) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET given_name = %s WHERE id = %s", ["Renamed", person.pk])  # noqa: S608
            cursor.execute(f"DELETE FROM {table} WHERE id = %s", [person.pk])  # noqa: S608
        services.births_finish(campaign=c.pk, by=gm)

    step_action(campaign=campaign, key=new_action_key(), label="Raw", action=raw, by=gm)
    assert not Character.objects.filter(pk=person.pk).exists()
    plan = undo_plan(campaign)
    assert plan is not None and plan.lost_rolls == 0
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert _state(campaign.pk) == before
    assert Character.objects.get(pk=person.pk).given_name == person.given_name


def test_a_failed_action_leaves_no_log(campaign, gm):
    from operations.simulation import play_births

    def fails(c: Campaign) -> None:
        play_births(c, RandomSource(3), by=gm)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        step_action(campaign=campaign, key=new_action_key(), label="Fails", action=fails, by=gm)
    assert not UndoChange.objects.exists() and recording_into() is None
    point = step_action(campaign=campaign, key=new_action_key(), label="Nothing", action=lambda c: None, by=gm)
    Character.objects.filter(campaign=campaign).update(given_name="Outside")  # after the failure: not logged
    assert not UndoChange.objects.exists()
    assert point is None and Checkpoint.objects.filter(campaign=campaign).count() == 1


def test_a_checkpoint_taken_as_a_whole_copy_still_restores(campaign, gm, settings):
    """Checkpoints taken before the change log (or with ``REGNAL_UNDO_SNAPSHOTS``) restore as before."""
    from operations.simulation import play_births

    settings.REGNAL_UNDO_SNAPSHOTS = True
    before, rolls = _state(campaign.pk), Roll.objects.filter(campaign=campaign).count()
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    assert "dynasties.Character" in _unpack(Checkpoint.objects.get(campaign=campaign).data)
    plan = undo_plan(campaign)
    assert plan is not None and plan.lost_rolls == Roll.objects.filter(campaign=campaign).count() - rolls > 0
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert _state(campaign.pk) == before


def test_the_triggers_cover_every_scoped_table(db):
    """Installed at migrate, one set per table of ``campaign.registry.scoped_models``."""
    tables = changelog.tables()
    assert {e.model._meta.db_table for e in registry.scoped_models()} == set(tables)
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'regnal_undo_%%'")
        else:
            cursor.execute("SELECT event_object_table FROM information_schema.triggers WHERE trigger_name = 'regnal_undo'")
        assert {t for (t,) in cursor.fetchall()} == set(tables)


@pytest.mark.django_db
def test_a_step_action_and_its_undo_cost_the_same_queries_whatever_the_campaign_size(gm):
    """The overhead of a step action and an undo do not grow with the campaign (bench/undo.py times them)."""
    from django.test.utils import CaptureQueriesContext

    from dynasties.services import campaign_create
    from operations.simulation import simulate

    def rename(c: Campaign) -> None:
        Character.objects.filter(pk=Character.objects.filter(campaign=c).order_by("pk")[:1]).update(given_name="Renamed")

    def cost(turns: int) -> tuple[int, int, int]:
        source = RandomSource(5)
        c = simulate(
            campaign_create(name=f"Size {turns}", players=5, source=source, by=gm), turns=turns, source=source, by=SYSTEM_ACTOR
        )
        with CaptureQueriesContext(connection) as act:
            step_action(campaign=c.pk, key=new_action_key(), label="Rename", action=rename, by=gm)
        with CaptureQueriesContext(connection) as undo:
            undo_step(campaign=c.pk, key=new_action_key(), by=gm)
        assert Character.objects.filter(campaign=c, given_name="Renamed").count() == 0
        return len(act), len(undo), Character.objects.filter(campaign=c).count()

    small, large = cost(0), cost(6)
    assert large[2] > small[2]
    assert large[:2] == small[:2]


def test_the_undo_plan_says_what_it_throws_away(campaign, gm):
    """Issue 19, "Undo asks first": the plan counts the births, deaths and successions it takes back."""
    from operations.simulation import play_births

    people, reigns = Character.objects.filter(campaign=campaign).count(), Reign.objects.filter(campaign=campaign).count()
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Births",
        action=lambda c: play_births(c, RandomSource(3), by=gm),
        by=gm,
    )
    born = Character.objects.filter(campaign=campaign).count() - people
    plan = undo_plan(campaign)
    assert plan is not None and born > 0
    assert {loss.key: loss.count for loss in plan.losses} == {"characters": born, "deaths": 0, "successions": 0, "weddings": 0}
    king = Reign.objects.filter(campaign=campaign, end_year__isnull=True).order_by("pk").first().holder

    def survival(c: Campaign) -> None:
        services.survival_roll(campaign=c, faces={king.pk: [1, 1]}, source=RandomSource(2), by=gm)
        services.survival_finish(campaign=c, source=RandomSource(2), by=gm)

    people = Character.objects.filter(campaign=campaign).count()
    step_action(campaign=campaign, key=new_action_key(), label="Survival", action=survival, by=gm)
    added = Character.objects.filter(campaign=campaign).count() - people  # a baron regent, say
    dead = Character.objects.filter(campaign=campaign, status=Status.DEAD, death_year=campaign.current_year).count()
    crowned = Reign.objects.filter(campaign=campaign).count() - reigns
    assert dead >= 1 and crowned >= 1  # the King rolled 1 + 1
    plan = undo_plan(campaign)
    counted = {loss.key: loss.count for loss in plan.losses}
    assert (counted["deaths"], counted["successions"], counted["characters"]) == (dead, crowned, added)
    assert f"{dead} death" in plan.summary and f"{crowned} succession" in plan.summary
    assert plan.summary.startswith(f"{plan.lost_rolls} rolls, ")
