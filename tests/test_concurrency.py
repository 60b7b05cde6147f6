"""Concurrency on PostgreSQL: many writers at once leave the books exact, and a step runs once.

Every writer locks the campaign row first (``lock_campaign``: ``SELECT ... FOR UPDATE``), so the
balance checks of the treasury and the step checks of the Dynastic Sequence see what the writer
before them committed. To make the race real rather than lucky, each test first holds that lock
itself (``_gate``), starts the writers (threads, each with its own database connection), waits until
PostgreSQL reports every one of them blocked on the lock, then lets them all go at once.

SQLite has one writer at a time by construction (``IMMEDIATE`` transactions), so these tests need
PostgreSQL: ``make test`` runs them on its throwaway server (``scripts/pg-test.sh``) and deselects
them from the SQLite run (``-m "not postgres"``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.test import Client
from rest_framework.test import APIClient

from campaign.models import ActionKey, Campaign, Checkpoint, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import lock_campaign
from campaign.undo import new_action_key, step_action
from dynasties import treasury
from dynasties.models import Dynasty, Posting
from dynasties.services import births_finish
from rules.errors import RuleError, StepOrderError

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
]

WRITERS = 20


def _blocked_on_locks() -> int:
    """How many other sessions of the test database wait for a lock right now."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # the view is otherwise frozen per transaction
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND backend_type = 'client backend' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def _run_all(jobs: list[Callable[[], Any]], *, gate: Campaign) -> list[tuple[str, Any]]:
    """Run ``jobs`` in threads released together: each returns ("ok", result) or ("error", exc)."""
    results: list[tuple[str, Any]] = [("pending", None)] * len(jobs)

    def work(i: int, job: Callable[[], Any]) -> None:
        try:
            results[i] = ("ok", job())
        except Exception as exc:
            results[i] = ("error", exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i, job), daemon=True) for i, job in enumerate(jobs)]
    with transaction.atomic():
        lock_campaign(gate)  # the writers queue behind this lock until all of them are waiting
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while _blocked_on_locks() < len(jobs):
            assert time.monotonic() < deadline, f"only {_blocked_on_locks()} of {len(jobs)} writers reached the lock"
            time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive(), "a writer is stuck"
    return results


def _other_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


@contextmanager
def _no_leftover_connections() -> Iterator[None]:
    """The writers close their connections (a server process ends a moment after its client).
    Other sessions open before (the browser tests' live server) are left alone."""
    before = _other_sessions()
    yield
    deadline = time.monotonic() + 10
    while _other_sessions() > before:
        assert time.monotonic() < deadline, "the writers' connections were left open"
        time.sleep(0.05)


def _houses(campaign: Campaign) -> dict[str, Dynasty]:
    return {d.crown: d for d in Dynasty.objects.filter(campaign=campaign)}


def _replay_never_overdraws(campaign: Campaign, opening: dict[int | None, int], checked: set[int]) -> None:
    """Replaying the ledger in commit order, no checked exchequer ever went below zero."""
    held = dict(opening)
    for posting in Posting.objects.filter(campaign=campaign).order_by("id"):
        if posting.payer_id is not None:
            held[posting.payer_id] = held.get(posting.payer_id, 0) - posting.amount
            if posting.payer_id in checked:
                assert held[posting.payer_id] >= 0, f"posting #{posting.pk} overdrew dynasty #{posting.payer_id}"
        held[posting.payee_id] = held.get(posting.payee_id, 0) + posting.amount


def test_twenty_concurrent_postings_leave_the_books_exact(campaign):
    houses = _houses(campaign)
    england, france, spain = houses["England"], houses["France"], houses["Spain"]
    with transaction.atomic():
        for house in (england, france):
            treasury.post(campaign, payer=None, payee=house, amount=40, kind="tax", reason="opening taxes")
    opening = treasury.balances(campaign)
    first_new = Posting.objects.filter(campaign=campaign).order_by("-id").values_list("id", flat=True).first() or 0

    # 8 x England -> France 10, 6 x France -> England 15, 6 x the Treasury -> Spain 5: some of the
    # transfers between houses must be refused, which ones depends on the order the lock grants.
    plan = [(england, france, 10)] * 8 + [(france, england, 15)] * 6 + [(None, spain, 5)] * 6
    assert len(plan) == WRITERS

    def transfer(payer: Dynasty | None, payee: Dynasty, amount: int) -> Callable[[], Posting]:
        return lambda: treasury.treasury_transfer(
            campaign=campaign.pk, payer=payer.pk if payer else None, payee=payee.pk, amount=amount, reason="race", by=SYSTEM_ACTOR
        )

    with _no_leftover_connections():
        results = _run_all([transfer(*row) for row in plan], gate=campaign)

    errors = [exc for status, exc in results if status == "error"]
    assert all(isinstance(exc, treasury.InsufficientFunds) for exc in errors), errors
    made = [posting for status, posting in results if status == "ok"]
    assert len(made) + len(errors) == WRITERS
    assert sum(1 for (payer, _, _), (status, _) in zip(plan, results, strict=True) if payer is None and status == "ok") == 6

    # The ledger holds exactly the transfers that succeeded, once each.
    new = list(Posting.objects.filter(campaign=campaign, id__gt=first_new).order_by("id"))
    assert sorted(p.pk for p in new) == sorted(p.pk for p in made)
    # Balances are exact: the opening plus what the successful transfers moved; all sum to zero.
    expected = dict(opening)
    for posting in made:
        expected[posting.payer_id] = expected.get(posting.payer_id, 0) - posting.amount
        expected[posting.payee_id] = expected.get(posting.payee_id, 0) + posting.amount
    now = treasury.balances(campaign)
    assert {k: v for k, v in now.items() if v} == {k: v for k, v in expected.items() if v}
    assert sum(now.values()) == 0
    for house in (england, france, spain):
        assert treasury.balance(campaign, house) == expected.get(house.pk, 0) >= 0
    _replay_never_overdraws(campaign, opening, {england.pk, france.pk})
    # A refusal is a real shortage at its turn in the queue: with 80 Crowns between the two houses
    # and every transfer covered by the payer, at least the first transfers of each kind went through.
    assert len(made) > 6


def test_concurrent_spending_stops_exactly_at_zero(campaign):
    houses = _houses(campaign)
    england, france = houses["England"], houses["France"]
    with transaction.atomic():
        treasury.post(campaign, payer=None, payee=england, amount=50, kind="tax", reason="opening taxes")

    jobs = [
        (
            lambda: treasury.treasury_transfer(
                campaign=campaign.pk, payer=england.pk, payee=france.pk, amount=10, reason="gift", by=SYSTEM_ACTOR
            )
        )
        for _ in range(WRITERS)
    ]
    with _no_leftover_connections():
        results = _run_all(jobs, gate=campaign)

    statuses = [status for status, _ in results]
    assert statuses.count("ok") == 5
    assert all(isinstance(exc, treasury.InsufficientFunds) for status, exc in results if status == "error")
    assert treasury.balance(campaign, england) == 0
    assert treasury.balance(campaign, france) == 50
    assert Posting.objects.filter(campaign=campaign, kind="transfer").count() == 5
    assert sum(treasury.balances(campaign).values()) == 0


def _step_done_once(campaign: Campaign) -> None:
    campaign.refresh_from_db()
    assert campaign.step == Step.SURVIVAL
    assert Checkpoint.objects.filter(campaign=campaign, year=campaign.current_year, step=Step.BIRTHS).count() == 1
    assert ActionKey.objects.filter(campaign=campaign, label="Finish Births").count() == 1


def test_two_gms_finishing_the_same_step_one_wins(campaign, gm):
    assert campaign.step == Step.BIRTHS

    def finish() -> Campaign:
        return step_action(
            campaign=campaign.pk,
            key=new_action_key(),
            label="Finish Births",
            by=gm,
            action=lambda c: births_finish(campaign=c, by=gm),
        )

    with _no_leftover_connections():
        results = _run_all([finish, finish], gate=campaign)

    assert sorted(status for status, _ in results) == ["error", "ok"]
    [error] = [exc for status, exc in results if status == "error"]
    assert isinstance(error, StepOrderError) and error.status == 409
    assert "already done" in error.message
    _step_done_once(campaign)


def test_two_gms_through_the_api_one_gets_409(campaign, gm):
    clients = []
    for _ in range(2):
        client = APIClient()
        client.force_login(gm)
        clients.append(client)
    url = f"/api/v1/campaigns/{campaign.slug}/births/finish/"

    def post(client: APIClient, key: str) -> Any:
        return lambda: client.post(url, HTTP_IDEMPOTENCY_KEY=key)

    with _no_leftover_connections():
        results = _run_all([post(clients[0], "gm-first"), post(clients[1], "gm-second")], gate=campaign)

    assert all(status == "ok" for status, _ in results), results
    codes = sorted(response.status_code for _, response in results)
    assert codes[0] in (200, 201) and codes[1] == 409, codes
    loser = next(response for _, response in results if response.status_code == 409)
    assert loser.json()["code"] == "step_order"
    _step_done_once(campaign)


def test_two_gms_on_the_pages_one_is_told_it_is_done(campaign, gm):
    clients = []
    for _ in range(2):
        client = Client()
        client.force_login(gm)
        clients.append(client)
    url = f"/c/{campaign.slug}/turn/births/"

    def post(client: Client) -> Callable[[], Any]:
        return lambda: client.post(url, {"op": "finish", "action_key": new_action_key()})

    with _no_leftover_connections():
        results = _run_all([post(clients[0]), post(clients[1])], gate=campaign)

    assert all(status == "ok" for status, _ in results), results
    responses = sorted((r for _, r in results), key=lambda r: r.status_code)
    assert responses[0].status_code == 302
    # The pages answer a refused action with the form again and the services' reason.
    assert responses[1].status_code == 400
    assert "already done" in responses[1].content.decode()
    _step_done_once(campaign)


def test_a_refused_writer_leaves_nothing_behind(campaign, gm):
    """The loser's action key and checkpoint are rolled back with it: its key can be used again."""
    key = "shared-key"

    def finish() -> Campaign:
        return step_action(
            campaign=campaign.pk, key=key, label="Finish Births", by=gm, action=lambda c: births_finish(campaign=c, by=gm)
        )

    with _no_leftover_connections():
        results = _run_all([finish, finish], gate=campaign)
    errors = [exc for status, exc in results if status == "error"]
    assert len(errors) == 1 and isinstance(errors[0], RuleError) and errors[0].code == "already_done"
    _step_done_once(campaign)
