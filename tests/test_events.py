"""Domain events (campaign.events): who publishes what, in which order the handlers run, and a
failing handler undoing the whole action."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import pytest

from campaign import events
from campaign.models import Campaign, ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import Chronicle
from campaign.undo import new_action_key, step_action
from contracts import subscribers
from dynasties.models import Reign
from dynasties.services import announcements_make, marriage_cancel, marriage_wed, marriages_finish, survival_finish, turn_advance
from operations.simulation import play_births
from rules.dice import RandomSource
from tests.factories import at_step
from tests.test_contracts import betroth
from tests.test_survival_succession import everyone_survives

ALL = (events.Deaths, events.Weddings, events.MarriageEnded, events.Succession, events.StepFinished, events.TurnAdvanced)


@pytest.fixture
def heard():
    """Every event published, with what came with it, while the test runs."""
    seen: list[tuple[events.Event, dict]] = []

    def record(event, **context):
        seen.append((event, context))

    for kind in ALL:
        events.subscribe(kind, record)
    yield seen
    for kind in ALL:
        events.unsubscribe(kind, record)


def _of(seen, kind):
    return [e for e, _ in seen if isinstance(e, kind)]


def test_every_payload_is_plain_json():
    made = [
        events.Deaths(campaign=1, year=1300, step="survival", characters=(4, 5), cause="plague"),
        events.Weddings(campaign=1, year=1300, step="marriages", marriages=(7,)),
        events.MarriageEnded(campaign=1, year=1300, step="marriages", marriage=7, cause="broken off"),
        events.Succession(campaign=1, year=1300, step="survival", crown="England", reign=3, heir=5, late=4),
        events.StepFinished(campaign=1, year=1300, step="births", next_step="survival"),
        events.TurnAdvanced(campaign=1, year=1305, step="births", from_year=1300),
    ]
    for event in made:
        payload = event.payload()
        assert json.loads(json.dumps(payload)) == payload
        assert payload["event"] == event.name and payload["campaign"] == 1
    assert made[0].payload()["characters"] == [4, 5]
    with pytest.raises(AttributeError):
        made[0].year = 1301  # type: ignore[misc]  # frozen


@dataclass(frozen=True, kw_only=True)
class Knock(events.Event):
    """An event of this test's own, that no app listens to."""

    name: ClassVar[str] = "knock"


def test_handlers_run_in_the_order_they_subscribed_once_each():
    order: list[str] = []

    def first(event, **context):
        order.append("first")

    def second(event, **context):
        order.append(f"second {context['chronicle']}")

    events.subscribe(Knock, first)
    events.subscribe(Knock, second)
    events.subscribe(Knock, first)  # again: still once, still first
    try:
        events.publish(Knock(campaign=1, year=1305, step="births"), chronicle="c")
    finally:
        events.unsubscribe(Knock, first)
        events.unsubscribe(Knock, second)
    assert order == ["first", "second c"]
    assert events.handlers(Knock) == []


def test_contracts_listen_to_the_dynasties_events():
    assert events.handlers(events.Deaths)[:1] == [subscribers.on_deaths]
    assert events.handlers(events.Weddings)[:1] == [subscribers.on_weddings]
    assert events.handlers(events.MarriageEnded)[:1] == [subscribers.on_marriage_end]
    assert events.handlers(events.TurnAdvanced)[:1] == [subscribers.on_turn_advance]


@pytest.mark.django_db
def test_a_turn_publishes_deaths_successions_steps_and_the_advance(campaign, heard):
    at_step(campaign, Step.SURVIVAL)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    everyone_survives(campaign, {king.pk: [1, 1]})
    [death] = _of(heard, events.Deaths)
    assert death.characters == (king.pk,) and (death.campaign, death.year, death.step) == (campaign.pk, 1300, Step.SURVIVAL)
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    [succession] = _of(heard, events.Succession)
    new = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    assert (succession.crown, succession.late, succession.heir, succession.reign) == ("England", king.pk, new.holder_id, new.pk)
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    at_step(Campaign.objects.get(pk=campaign.pk), Step.INTERPHASE)
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    steps = [(e.step, e.next_step) for e in _of(heard, events.StepFinished)]
    assert steps == [(Step.SURVIVAL, Step.MARRIAGES), (Step.MARRIAGES, Step.ANNOUNCEMENTS), (Step.ANNOUNCEMENTS, Step.INTERPHASE)]
    [advance] = _of(heard, events.TurnAdvanced)
    assert (advance.from_year, advance.year, advance.step) == (1300, 1305, Step.BIRTHS)
    # the handlers get the writer the service fills, and the service's campaign row
    for event, context in heard:
        if not isinstance(event, events.StepFinished):
            assert isinstance(context["chronicle"], Chronicle | None), event
        assert context["campaign"].pk == campaign.pk


@pytest.mark.django_db
def test_a_wedding_and_a_betrothal_broken_off(campaign, heard):
    at_step(campaign, Step.MARRIAGES, year=1310)
    broken = betroth(campaign)
    marriage_cancel(campaign=campaign, marriage=broken, reason="a quarrel", by=SYSTEM_ACTOR)
    [ended] = _of(heard, events.MarriageEnded)
    assert ended.marriage == broken.pk and "a quarrel" in ended.cause and ended.step == Step.MARRIAGES
    match = betroth(campaign)  # the same couple again, and wed this time
    marriage_wed(campaign=campaign, marriage=match, by=SYSTEM_ACTOR)
    [weddings] = _of(heard, events.Weddings)
    assert weddings.marriages == (match.pk,) and weddings.year == 1310


@pytest.mark.django_db
def test_a_failing_handler_undoes_the_whole_step(campaign, gm):
    def fail(event, **context):
        raise RuntimeError("a listener broke")

    rolls = Roll.objects.filter(campaign=campaign).count()  # the set-up's
    events.subscribe(events.StepFinished, fail)
    try:
        with pytest.raises(RuntimeError, match="a listener broke"):
            step_action(
                campaign=campaign,
                key=new_action_key(),
                label="Roll all births",
                by=gm,
                action=lambda c: play_births(c, RandomSource(3), by=gm),
            )
    finally:
        events.unsubscribe(events.StepFinished, fail)
    assert Campaign.objects.get(pk=campaign.pk).step == Step.BIRTHS
    assert Roll.objects.filter(campaign=campaign).count() == rolls
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="birth").exists()
