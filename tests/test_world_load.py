"""A ``World`` (dynasties/services/common.py) reads a campaign's history only when asked for
(issue 36): a whole World holds the living and the retired until something could see one of the
dead, then reads them all in one query, and is then what an eager load would have been. Its
queries do not grow with the campaign."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Status
from dynasties.services import campaign_create
from dynasties.services.common import World
from operations.simulation import simulate
from rules.dice import RandomSource

pytestmark = pytest.mark.django_db


def _campaign(turns: int, seed: int = 7) -> Campaign:
    c = campaign_create(name=f"World {turns}", players=5, source=RandomSource(seed))
    return simulate(c, turns=turns, source=RandomSource(seed), by=SYSTEM_ACTOR)


def _queries(fn) -> int:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return len(ctx.captured_queries)


@pytest.fixture(scope="module")
def grown(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Campaign]:
    """A 60-turn campaign (and a 10-turn one), made once for the module, rolled back after it."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield _campaign(60)
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


def test_whole_world_reads_the_dead_only_when_asked(grown: Campaign) -> None:
    everyone = list(Character.objects.filter(campaign=grown).order_by("pk"))
    dead = [c.pk for c in everyone if c.status == Status.DEAD]
    assert len(dead) > 50  # a history to skip
    world = World(grown)
    held = set(dict.keys(world.characters))
    assert not held & set(dead[:-1])  # the dead are not read (but the latest made, if dead)
    assert {c.pk for c in everyone if c.status != Status.DEAD} <= held
    assert _queries(lambda: list(world.in_play())) == 0
    # one of the dead asked for: all of them read, once, in one query, as an eager load has them
    assert _queries(lambda: world.characters[dead[0]]) == 1
    assert list(world.characters) == [c.pk for c in everyone]
    assert [(c.pk, c.status, c.death_year) for c in world.characters.values()] == [
        (c.pk, c.status, c.death_year) for c in everyone
    ]
    assert _queries(lambda: (dead[1] in world.characters, len(world.people))) == 0


def test_a_whole_world_iterated_is_complete_and_keeps_what_was_written(grown: Campaign) -> None:
    everyone = list(Character.objects.filter(campaign=grown).order_by("pk").values_list("pk", flat=True))
    world = World(grown)
    alive = next(iter(world.in_play()))
    alive.given_name = "Written"
    world.characters[alive.pk] = alive
    assert list(world.characters.keys()) == everyone  # in pk order, the dead among the living
    assert world.characters[alive.pk].given_name == "Written"
    # a key never loaded: asked for, it reads the rest; absent still, it is absent
    assert World(grown).characters.get(-1, "none") == "none"
    assert -1 not in World(grown).characters


def test_a_world_load_costs_the_same_queries_at_10_and_60_turns(grown: Campaign) -> None:
    young = _campaign(10, seed=7)
    for living_only in (True, False):
        counts = [_queries(lambda c=c, lo=living_only: World(c, living_only=lo)) for c in (young, grown)]
        assert counts[0] == counts[1], (living_only, counts)
