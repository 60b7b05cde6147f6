"""One pass down per request (issue 35), measured on one typed Births pair: the birth roll of a wed
couple (2d6 typed in), then its child's sex and characteristics (typed in), through the page's grid
(htmx, as the page sends it) and through the API.

Before: the page's attempt cost 37 queries plus 19 for the redirect's GET (56), the sex roll 44 + 19
(63); the API's attempt 34, its sex roll 46 (SQLite, the step's first action: it opens the undo
checkpoint). The campaign was locked and its live version raised twice per action, and the API
read back what the action made from three table-wide ``MAX(pk)`` reads. Then (one pass down, the
fragment) 50, 57, 26 and 34; then 41, 48, 17 and 25: the door reads the seat with its campaign once
for the request (the policy asked by the service reuses it), the lock counts whom the write shows
to, the key and the service inside the step action take no savepoint of their own, the key is
checked and kept in one statement (``INSERT ... WHERE NOT EXISTS``: used in any campaign, it is
refused), a step's first checkpoint forgets old ones only when some may be old, and the sex roll
reads the birth roll with its attempt (its link checked in memory). Now 24, 29, 15 and 21 on SQLite
(26, 31, 17 and 23 on PostgreSQL): undo's change log writes no flag row per action (the connection
names the checkpoint it records into: SQLite's own SQL function, no query; PostgreSQL's transaction
setting, set and cleared: two), a child is inserted complete (one insert, one history row), and the
page reads its Births board once: the fragment is drawn from the board the grid was checked against,
its attempts and characters read again (``births_board(kept=)``, when the action's lock raised the
version read with the campaign by one: nothing else was written since), the names labelled from it."""

from __future__ import annotations

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import ActionKey, Campaign, Checkpoint, ChronicleEntry, Membership, Role, Roll, RollSource, Step
from campaign.permissions import SYSTEM_ACTOR, member_of, role_of
from campaign.steps import Outcome, collecting, current_outcome, lock_campaign
from campaign.undo import KEEP_TURNS, new_action_key, step_action
from dynasties.models import BirthAttempt, Marriage, Reign
from dynasties.services import births_attempt
from rules.errors import InvalidDice
from tests.api.conftest import url
from tests.factories import member_house_id

pytestmark = pytest.mark.django_db

PG = connection.vendor == "postgresql"
RECORDING = 2 if PG else 0
"""Undo's change log inside a step action: PostgreSQL sets the transaction's setting naming the
checkpoint and clears it (two statements); SQLite's connection answers its triggers itself (none)."""

PAGE_ATTEMPT = 24 + RECORDING
"""The grid's typed birth roll answered with the step's fragment: the door (3: session, user, the
seat with its campaign), the board the grid is checked against (7: this turn's attempts, the rule
tables, the living characters, the houses, the reigns, the open marriages, the wives' birth
penalties), the step action (11 as the API's: 6 of its own, the checkpoint made, and the service's
5), the board drawn again for the
fragment from the first (3: the attempts, the living characters, the birth penalties), nothing
more for the names (the board's characters and reigns label them)."""
PAGE_SEX = 29 + RECORDING
"""The door (3), the board (7), the step action (16 as the API's: 5 of its own, the service's 11),
the board again (3)."""
API_ATTEMPT = 15 + RECORDING
"""The door (3: session, user, the seat with its campaign), the couple for the label (1), the step
action (6: its savepoint and release, the lock, the key checked and kept, the checkpoint read and
written), the service (5: the couple, its attempts, the roll, its subjects, the attempt)."""
API_SEX = 21 + RECORDING
"""The door (3), the attempt for the label (1), the step action (5: savepoint, lock, key, the
step's checkpoint read, release), the service (11: the attempt with its couple, the rule tables,
the reigning, the houses, the parents' children, the child inserted complete with its history row,
the rolls, their subjects, the attempt's child, the chronicle line), the attempt's roll's subjects
for the answer (1)."""


def couple(campaign: Campaign, crown: str = "England") -> Marriage:
    return Marriage.objects.get(campaign=campaign, husband__controlled_by__crown=crown, ended_year__isnull=True)


def _sql(ctx: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries]


def _version_raises(sql: list[str]) -> int:
    return sum(1 for s in sql if s.startswith('UPDATE "campaign_campaign"') and '"live_version" = ' in s.split("WHERE")[0])


def _sex_fields(pk: int, attempt: BirthAttempt) -> dict[str, str]:
    fields = {f"state-{pk}": f"sex-{attempt.pk}", f"x{pk}-sex": "2"}
    for trait, face in ((1, "6"), (2, "3"), (3, "4")):
        for die in (1, 2, 3):
            fields[f"x{pk}-c{trait}_{die}"] = face
    return fields


def test_the_pages_births_pair_answers_with_the_steps_fragment(client, campaign, alice):
    client.force_login(alice)
    page = reverse("pages:births", args=[campaign.slug])
    pk = couple(campaign).pk
    typed = {"op": "grid", f"a{pk}-d1": "3", f"a{pk}-d2": "4", f"state-{pk}": "attempt-1"}
    with CaptureQueriesContext(connection) as ctx:
        answer = client.post(page, {**typed, "action_key": new_action_key()}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200  # no redirect, no second request
    body = answer.content.decode()
    assert body.lstrip().startswith('<div id="step"') and "<main" not in body and "<html" not in body
    assert "attempt 1: 3 + 4 = 7: a child! Now its sex." in body  # the message, in the fragment
    assert f'name="x{pk}-sex"' in body  # the step as it is now: the child's sex is due
    assert answer["Regnal-Version"].isdigit() and "HX-Request" in answer["Vary"]
    assert len(ctx.captured_queries) <= PAGE_ATTEMPT, len(ctx.captured_queries)
    assert _version_raises(_sql(ctx)) == 1  # locked and counted once
    made = BirthAttempt.objects.get(marriage_id=pk)
    assert made.success and made.roll.faces == [3, 4] and made.roll.source == RollSource.ENTERED

    with CaptureQueriesContext(connection) as ctx:
        answer = client.post(
            page, {"op": "grid", "action_key": new_action_key(), **_sex_fields(pk, made)}, HTTP_HX_REQUEST="true"
        )
    assert answer.status_code == 200 and "A son: " in answer.content.decode()
    assert len(ctx.captured_queries) <= PAGE_SEX, len(ctx.captured_queries)
    made.refresh_from_db()
    assert made.child is not None and made.child.sex == "M"


def test_the_fragment_reads_the_board_afresh_when_another_write_came_between(client, campaign, alice, monkeypatch):
    """The fragment is drawn from the board the grid was checked against only when the grid's own
    action is the one write since the campaign was read: another's write in between (here a reign's
    numeral, which the kept board would hold as it was) and the board is read again whole."""
    from pages import sequence

    client.force_login(alice)
    page = reverse("pages:births", args=[campaign.slug])
    match = couple(campaign)
    reign = Reign.objects.get(campaign=campaign, holder=match.husband, end_year__isnull=True)
    real, kept = sequence.births_board, []

    def board(c: Campaign, **kwargs: object) -> object:
        drawn = real(c, **kwargs)
        kept.append(kwargs.get("kept"))
        if len(kept) == 1 and between:  # the grid's read: another write lands before the action's lock
            step_action(
                campaign=campaign,
                key=new_action_key(),
                label="elsewhere",
                action=lambda locked: Reign.objects.filter(pk=reign.pk).update(numeral=7),
                by=SYSTEM_ACTOR,
            )
        return drawn

    monkeypatch.setattr(sequence, "births_board", board)
    typed = {"op": "grid", f"a{match.pk}-d1": "1", f"a{match.pk}-d2": "2", f"state-{match.pk}": "attempt-1"}
    between = False
    answer = client.post(page, {**typed, "action_key": new_action_key()}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200 and kept[1] is not None  # the grid's action alone: the board kept
    assert "Edward VII" not in answer.content.decode()
    kept.clear()
    between = True
    typed = {"op": "grid", f"a{match.pk}-d1": "1", f"a{match.pk}-d2": "2", f"state-{match.pk}": "attempt-2"}
    answer = client.post(page, {**typed, "action_key": new_action_key()}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200, answer.content.decode()
    assert kept == [None, None]  # read again whole
    assert "Edward VII Plantagenet" in answer.content.decode()  # the other write, shown


@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-bloodline"])
def test_a_board_drawn_from_the_one_before_a_births_action_is_the_board_read_afresh(db, ruleset):
    """``births_board(kept=)`` after births written (attempts, a child; BloodLine's wife aged for
    good by another attempt) draws what a fresh read draws: the odds, the cost of one more attempt,
    the wife's survival, who may roll, the names (Blood Royale and BloodLine)."""
    from dynasties.services.births import births_sex
    from dynasties.services.sequence_view import births_board
    from dynasties.services.setup import campaign_create
    from rules.dice import RandomSource
    from tests.factories import at_step

    c = campaign_create(name="Kept", ruleset=ruleset, players=3, source=RandomSource(4))
    at_step(c, Step.BIRTHS, year=c.current_year)
    c.refresh_from_db()
    match = Marriage.objects.filter(campaign=c, ended_year__isnull=True, wedding_year__isnull=False).order_by("pk").first()
    assert match is not None
    six = 12 if ruleset == "eu-bloodline" else 6  # a child on either ruleset's birth dice
    writes = [
        lambda: births_attempt(campaign=c, marriage=match, faces=[1, 1], by=SYSTEM_ACTOR),  # no child
        lambda: births_attempt(campaign=c, marriage=match, faces=[six // 2, six // 2 + 1], by=SYSTEM_ACTOR),
    ]
    for write in writes:
        before = births_board(c)
        write()
        kept, fresh = births_board(c, kept=before), births_board(c)
        assert kept == fresh and kept.known is not None and fresh.known is not None
        assert [(x.pk, x.given_name, x.effective_age_offset) for x in kept.known[0]] == [
            (x.pk, x.given_name, x.effective_age_offset) for x in fresh.known[0]
        ]
    before = births_board(c)
    pending = next(row.pending for row in before.couples if row.pending is not None)
    trait = [[5], [5], [5]] if ruleset == "eu-bloodline" else [[3, 3, 3]] * 3
    births_sex(campaign=c, attempt=pending, faces=[2], characteristic_faces=trait, by=SYSTEM_ACTOR)
    kept, fresh = births_board(c, kept=before), births_board(c)
    assert kept == fresh and [a.child_id for r in kept.couples for a in r.attempts] == [
        a.child_id for r in fresh.couples for a in r.attempts
    ]
    assert kept.known is not None and fresh.known is not None and len(kept.known[0]) == len(fresh.known[0])


def test_a_plain_post_of_the_grid_keeps_its_redirect(client, campaign, alice):
    client.force_login(alice)
    page = reverse("pages:births", args=[campaign.slug])
    pk = couple(campaign).pk
    answer = client.post(page, {"op": "grid", "action_key": new_action_key(), f"a{pk}-d1": "1", f"a{pk}-d2": "2"})
    assert answer.status_code == 302 and answer["Location"].endswith("#step")
    assert BirthAttempt.objects.filter(marriage_id=pk, success=False).count() == 1


def test_another_houses_row_sent_to_the_grid_is_refused_by_the_policy(client, campaign, bob):
    client.force_login(bob)  # France's player, dice for England's couple
    page = reverse("pages:births", args=[campaign.slug])
    pk = couple(campaign).pk
    fields = {"op": "grid", "action_key": new_action_key(), f"a{pk}-d1": "3", f"a{pk}-d2": "4"}
    assert client.post(page, fields, HTTP_HX_REQUEST="true").status_code == 403
    assert not BirthAttempt.objects.filter(marriage_id=pk).exists()
    assert not Roll.objects.filter(campaign=campaign, purpose="birth").exists()


def test_the_apis_births_pair_answers_with_the_actions_outcome(campaign, alice):
    client = APIClient()
    client.force_login(alice)
    pk = couple(campaign).pk
    with CaptureQueriesContext(connection) as ctx:
        answer = client.post(url(campaign, "births/attempts"), {"marriage": pk, "faces": [3, 4]}, format="json")
    assert answer.status_code == 201, answer.content
    sql = _sql(ctx)
    assert not [s for s in sql if "MAX(" in s]  # no table-wide marks: the writers said what they wrote
    assert _version_raises(sql) == 1
    assert len(sql) <= API_ATTEMPT, len(sql)
    body = answer.json()
    roll = Roll.objects.get(campaign=campaign, purpose="birth")
    assert [r["id"] for r in body["rolls"]] == [roll.pk] and body["rolls"][0]["faces"] == [3, 4]
    assert body["rolls"][0]["entered_by"] == "alice" and len(body["rolls"][0]["characters"]) == 2
    assert body["attempt"]["roll"]["id"] == roll.pk and body["chronicle"] == []

    attempt = body["attempt"]["id"]
    typed = {"faces": [2], "characteristic_faces": [[6, 6, 6], [3, 3, 3], [4, 4, 4]]}
    with CaptureQueriesContext(connection) as ctx:
        answer = client.post(url(campaign, f"births/attempts/{attempt}/sex"), typed, format="json")
    assert answer.status_code == 201, answer.content
    sql = _sql(ctx)
    assert not [s for s in sql if "MAX(" in s] and _version_raises(sql) == 1
    assert len(sql) <= API_SEX, len(sql)
    body = answer.json()
    written = list(Roll.objects.filter(campaign=campaign, pk__gt=roll.pk).order_by("pk"))
    assert [r["id"] for r in body["rolls"]] == [r.pk for r in written] and len(written) == 4  # sex + 3 characteristics
    assert [r["faces"] for r in body["rolls"]] == [[2], [6, 6, 6], [3, 3, 3], [4, 4, 4]]
    child = body["child"]["id"]
    assert all(r["characters"] and r["characters"][0]["id"] == child for r in body["rolls"])
    line = ChronicleEntry.objects.get(campaign=campaign, kind="birth")
    assert [(c["id"], c["text"]) for c in body["chronicle"]] == [(line.pk, line.text)]


def test_a_service_inside_a_step_action_takes_the_locked_campaign_as_it_is(campaign):
    before = Campaign.objects.values_list("live_version", flat=True).get(pk=campaign.pk)
    seen: list[tuple[Campaign, Campaign, Outcome | None]] = []

    def action(locked: Campaign) -> BirthAttempt:
        again = lock_campaign(campaign.pk)
        seen.append((locked, again, current_outcome()))
        return births_attempt(campaign=campaign.pk, marriage=couple(campaign), faces=[5, 6], by=SYSTEM_ACTOR)

    with CaptureQueriesContext(connection) as ctx:
        made = step_action(campaign=campaign, key=new_action_key(), label="a birth roll", action=action, by=SYSTEM_ACTOR)
    locked, again, outcome = seen[0]
    assert again is locked and outcome is not None
    assert [r.pk for r in outcome.rolls] == [made.roll_id]
    assert _version_raises(_sql(ctx)) == 1
    assert Campaign.objects.values_list("live_version", flat=True).get(pk=campaign.pk) == before + 1


def test_a_service_called_alone_still_locks_itself(campaign):
    before = Campaign.objects.values_list("live_version", flat=True).get(pk=campaign.pk)
    with CaptureQueriesContext(connection) as ctx, collecting() as outcome:
        births_attempt(campaign=campaign, marriage=couple(campaign), faces=[1, 1], by=SYSTEM_ACTOR)
    assert _version_raises(_sql(ctx)) == 1  # its own lock: no step action holds the campaign
    assert Campaign.objects.values_list("live_version", flat=True).get(pk=campaign.pk) == before + 1
    assert [r.faces for r in outcome.rolls] == [[1, 1]]  # an open outcome hears of it all the same


def test_a_step_action_takes_no_savepoint_for_its_service_yet_a_failure_leaves_nothing(campaign):
    """Inside a step action a service runs in the action's transaction (no savepoint of its own): a
    refusal after the service wrote still takes back all of it, the key and the checkpoint too."""
    key = new_action_key()
    rolls = Roll.objects.filter(campaign=campaign).count()

    def action(locked: Campaign) -> None:
        births_attempt(campaign=locked, marriage=couple(campaign), faces=[6, 6], by=SYSTEM_ACTOR)
        births_attempt(campaign=locked, marriage=couple(campaign, "France"), faces=[9, 9], by=SYSTEM_ACTOR)  # not 2d6

    with CaptureQueriesContext(connection) as ctx, pytest.raises(InvalidDice):
        step_action(campaign=campaign, key=key, label="two birth rolls", action=action, by=SYSTEM_ACTOR)
    assert sum(1 for s in _sql(ctx) if s.startswith("SAVEPOINT")) == 1  # the step action's own only
    assert not BirthAttempt.objects.filter(campaign=campaign).exists()
    assert Roll.objects.filter(campaign=campaign).count() == rolls
    assert not ActionKey.objects.filter(campaign=campaign).exists() and not Checkpoint.objects.filter(campaign=campaign).exists()


def test_a_service_called_alone_inside_a_transaction_keeps_its_savepoint(campaign):
    """Outside a step action a service is its own unit: a caller's transaction that catches its
    refusal goes on."""
    with transaction.atomic():
        with pytest.raises(InvalidDice):
            births_attempt(campaign=campaign, marriage=couple(campaign), faces=[9, 9], by=SYSTEM_ACTOR)
        assert Campaign.objects.filter(pk=campaign.pk).exists()  # the transaction is still usable


def test_the_first_checkpoint_of_a_new_year_forgets_the_old_ones(campaign):
    """A step's first action forgets the checkpoints older than KEEP_TURNS when the newest is of an
    earlier year; within a year (or with none) there is nothing to forget and nothing is asked."""
    step_action(campaign=campaign, key=new_action_key(), label="first", action=lambda c: None, by=SYSTEM_ACTOR)
    old = Checkpoint.objects.get(campaign=campaign)
    Campaign.objects.filter(pk=campaign.pk).update(step=Step.SURVIVAL)
    with CaptureQueriesContext(connection) as ctx:
        step_action(campaign=campaign, key=new_action_key(), label="same year", action=lambda c: None, by=SYSTEM_ACTOR)
    assert not [s for s in _sql(ctx) if '"campaign_checkpoint"."year" <=' in s]  # no old ones looked for
    assert Checkpoint.objects.filter(campaign=campaign).count() == 2
    later = old.year + KEEP_TURNS * campaign.turn_length
    Campaign.objects.filter(pk=campaign.pk).update(current_year=later, step=Step.BIRTHS)
    step_action(campaign=campaign, key=new_action_key(), label="a later turn", action=lambda c: None, by=SYSTEM_ACTOR)
    assert list(Checkpoint.objects.filter(campaign=campaign).values_list("year", flat=True)) == [later]


def test_a_request_reads_the_seat_once_until_a_seat_or_a_write_changes(campaign, alice):
    """The door and the policy share one read of the caller's seat per request; a membership saved,
    or a step action ended, forgets it; outside a request it is read every time."""
    seat = Membership.objects.get(campaign=campaign, user=alice)
    house = member_house_id(seat)
    assert house is not None
    with CaptureQueriesContext(connection) as ctx:
        role_of(alice, campaign)
        role_of(alice, campaign)
    assert len(ctx.captured_queries) == 2  # no request: no memo
    request_started.disconnect(close_old_connections)  # as the test client does: the test's connection stays open
    request_finished.disconnect(close_old_connections)
    request_started.send(sender=None)
    try:
        with CaptureQueriesContext(connection) as ctx:
            assert role_of(alice, campaign) == (seat.role, house)
            assert role_of(alice, campaign) == (seat.role, house)
        assert len(ctx.captured_queries) == 1
        seat.role = Role.OBSERVER
        seat.save(update_fields=["role"])
        assert role_of(alice, campaign) == (Role.OBSERVER, house)  # read again
        Membership.objects.filter(pk=seat.pk).update(role=Role.PLAYER)  # no signal: as an undo's own update
        step_action(campaign=campaign, key=new_action_key(), label="a write", action=lambda c: None, by=SYSTEM_ACTOR)
        assert role_of(alice, campaign) == (Role.PLAYER, house)  # the step action forgot it
        found, role, _ = member_of(alice, campaign.slug)
        assert found == campaign and role == Role.PLAYER
        with CaptureQueriesContext(connection) as ctx:
            role_of(alice, campaign)
        assert not ctx.captured_queries  # the door's read serves the policy
    finally:
        request_finished.send(sender=None)
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    with CaptureQueriesContext(connection) as ctx:
        role_of(alice, campaign)
    assert len(ctx.captured_queries) == 1
