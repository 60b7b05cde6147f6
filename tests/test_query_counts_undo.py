"""The GM's reads of the turn do not build the undo plans (issue 36).

The turn page and the API's turn used to count what each undo would throw away on every GM read
(``campaign.undo.undo_plans``: the step's and the turn's change log read back, each app's losses
counted: 14-30 queries, growing with the turn's work): the GM's turn page read made 29 queries and
the API's turn 23 here (SQLite, a Births step rolled through the API). They
now read where each undo goes back to and whether a redo is kept (``campaign.undo.undo_offers``:
three small queries, the checkpoints' labels, not their data); the losses are counted where they are
shown in full, the Undo page and the API's ``GET undo/``. The counts are the same on a campaign of
a few turns and on one of many, with and without a redo kept."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, Role, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.services import membership_add
from dynasties.models import Character
from dynasties.services import campaign_create
from operations.simulation import play_turn, simulate
from rules.dice import RandomSource
from tests.api.conftest import url

pytestmark = pytest.mark.django_db

LONG_TURNS = 30

PAGE_TURN = {"rolled": 19, "undone": 16}
"""The GM's turn page, the Births rolled (an undo offered) and then undone (a redo offered): the
door, the steps' summary, the turn's rolls to correct (three more while there are some), the
Movement lines, and the undo's offers (3: the step's checkpoint, the turn's, the redo's with its
count of change sets). Before issue 36: 29 and 17 (the plans read and counted the change log)."""
API_TURN = {"rolled": 13, "undone": 13}
"""The API's turn for the GM: the door, the step's board, the undo's offers (3). Before: 23 and 14."""


def _campaign(turns: int, gm) -> Campaign:
    source = RandomSource(5)
    campaign = campaign_create(name=f"Undo reads {turns}", players=5, source=source)
    if turns:
        campaign = simulate(campaign, turns=turns, source=source, by=SYSTEM_ACTOR)
    while Campaign.objects.get(pk=campaign.pk).step != Step.BIRTHS:  # a turn's start, as the small one
        play_turn(Campaign.objects.get(pk=campaign.pk), source, by=SYSTEM_ACTOR)
    membership_add(campaign=campaign, user=gm, role=Role.GM, by=SYSTEM_ACTOR)
    return Campaign.objects.get(pk=campaign.pk)


def _reads(campaign: Campaign, gm) -> dict[str, tuple[int, list[str]]]:
    """The queries of the GM's turn page and of the API's turn, and their SQL."""
    page, api = APIClient(), APIClient()
    page.force_login(gm)
    api.force_login(gm)
    out = {}
    for name, client, where in (
        ("page", page, reverse("pages:turn", args=[campaign.slug])),
        ("api", api, url(campaign, "turn")),
    ):
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(where)
        assert response.status_code == 200
        out[name] = (len(ctx.captured_queries), [q["sql"] for q in ctx.captured_queries])
    return out


def _no_plans_read(sql: list[str]) -> None:
    """Neither the change log nor a checkpoint's data (nor what it keeps for redo) is read."""
    assert not [s for s in sql if "campaign_undochange" in s]
    checkpoints = [s.split(" FROM ")[0] for s in sql if 'FROM "campaign_checkpoint"' in s]
    assert len(checkpoints) == 3
    assert not [s for s in checkpoints if '"campaign_checkpoint"."data"' in s or '"campaign_checkpoint"."redo"' in s]


def _played(campaign: Campaign, gm) -> dict[str, dict[str, int]]:
    """The reads' counts after the GM rolls the births (an undo offered), then after he undoes them
    (a redo offered too)."""
    api = APIClient()
    api.force_login(gm)
    counts = {}
    assert api.post(url(campaign, "births/roll-all"), {}, format="json").status_code == 200
    for state in ("rolled", "undone"):
        reads = _reads(campaign, gm)
        for _, sql in reads.values():
            _no_plans_read(sql)
        counts[state] = {name: n for name, (n, _) in reads.items()}
        offers = api.get(url(campaign, "turn")).json()["undo"]
        start = f"the start of Births {campaign.current_year}"
        if state == "rolled":  # the births to undo, nothing to redo
            assert offers["step"]["description"] == offers["turn"]["description"] == start and offers["redo"] is None
            assert api.post(url(campaign, "undo"), {"which": "step"}, format="json").status_code == 200
        else:  # the births undone (the turn's one change set): nothing to undo, the births to redo
            assert offers["step"] is offers["turn"] is None
            assert offers["redo"]["description"] == start and offers["redo"]["change_sets"] == 1
    return counts


def test_the_gms_turn_reads_cost_the_same_on_a_long_campaign_and_build_no_plan():
    users = get_user_model().objects
    short_gm, long_gm = users.create_user("short-gm"), users.create_user("long-gm")
    short, long = _campaign(0, short_gm), _campaign(LONG_TURNS, long_gm)
    assert Character.objects.filter(campaign=long).count() > 3 * Character.objects.filter(campaign=short).count()
    a, b = _played(short, short_gm), _played(long, long_gm)
    assert a == b
    assert {state: a[state]["page"] for state in a} == PAGE_TURN
    assert {state: a[state]["api"] for state in a} == API_TURN
