"""Atomic turns under faults: a failure at any write of any step leaves the database exactly as it
was before the step.

Each step of a short Blood Royale story (births, survival with deaths and a succession, marriages,
announcements, the turn advance, contracts ending by a death and by their term, ledger postings)
is run again and again from the same state, the n-th write statement (INSERT, UPDATE or DELETE)
failing each time, for every n up to the number of writes the step makes; the run after the last
failing one makes the step for real, so the next step starts from it. After each failure every
row of every table is what it was, read raw (so the campaign's export, made from those rows, is
too: it is also compared once a step, after its first fault). Each step is run once straight
through its service and once through ``campaign.undo.step_action``, the door of the pages and the
API, where the undo checkpoint and the form's one-time key are writes too. The BloodLine and EU
monarchs turns are checked the same way, a whole turn step by step.

CI's thorough profile fails every write. The quick one (``make test``'s) fails every distinct write
statement of a step once, at its first occurrence: the same statement again (another roll's INSERT,
another person's UPDATE) fails the same way, with more to roll back behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.apps import apps
from django.db import OperationalError, connection

from campaign.models import ActionKey, Campaign, Checkpoint, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import action_key, step_action
from contracts.models import Contract, ContractPayment, ContractState, EndKind, PaymentStatus
from contracts.services import contract_draft, contract_sign
from dynasties import services, treasury
from dynasties.models import BirthAttempt, Character, Dynasty, Marriage, PostingKind, Reign, Status
from operations.exchange import campaign_export
from rules.dice import RandomSource
from tests.factories import at_step
from tests.profiles import PROFILE

WRITES = ("INSERT", "UPDATE", "DELETE")
MAX_WRITES = 200
YEAR = 1310  # the fixture's children (born 1295) are of age: they roll for survival and marry


class Fault(OperationalError):
    """The injected failure: a database error, as a lost connection or a full disk would raise."""


EVERY_WRITE = PROFILE == "thorough"


class FailAt:
    """A database execute wrapper that counts write statements and fails the ``at``-th one, after
    the database has run it (so the rollback has a real write to undo). Given the statements
    already failed (``failed``), it fails the first write from the ``at``-th on that is none of them."""

    def __init__(self, at: int | None, failed: set[str] | None = None) -> None:
        self.at = at
        self.failed = failed
        self.writes: list[str] = []
        self.statement = ""

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        result = execute(sql, params, many, context)
        if sql.lstrip()[:6].upper() in WRITES:
            self.writes.append(sql[:120])
            due = self.at is not None and len(self.writes) >= self.at and not self.statement  # one fault an attempt
            if due and (self.failed is None or sql not in self.failed):
                self.statement = sql
                raise Fault(f"injected fault at write {len(self.writes)}: {sql[:80]}")
        return result


def _tables() -> list[Any]:
    return [m for m in apps.get_models(include_auto_created=True) if not m._meta.proxy and m._meta.managed]


def row_counts() -> dict[str, int]:
    """The number of rows of every table the project's models own, in one query."""
    models = _tables()
    quote = connection.ops.quote_name
    counts = ", ".join(f"(SELECT COUNT(*) FROM {quote(m._meta.db_table)})" for m in models)  # noqa: S608 (model tables)
    sql = f"SELECT {counts}"
    with connection.cursor() as cursor:
        cursor.execute(sql)
        counts = cursor.fetchone()
    return {m._meta.label: n for m, n in zip(models, counts, strict=True)}


def rows(counts: dict[str, int]) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table that has any, in primary-key order, as the database returns it (one
    plain query a table, no model built: this runs after every injected fault)."""
    out = {}
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for model in _tables():
            if counts[model._meta.label]:
                columns = ", ".join(quote(f.column) for f in model._meta.concrete_fields)
                table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
                cursor.execute(f"SELECT {columns} FROM {table} ORDER BY {pk}")  # noqa: S608 (model tables)
                found = cursor.fetchall()
                out[model._meta.label] = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in found]
    return out


def state(pk: int) -> tuple[dict[str, int], dict[str, list[tuple[Any, ...]]]]:
    """The row count of every table and every row of the database."""
    counts = row_counts()
    return counts, rows(counts)


def with_faults(pk: int, name: str, run: Callable[[int], Any], via: str) -> int:
    """Fail the step ``run`` at each of its writes in turn, checking nothing stays; then run it
    through. Returns the number of writes the step makes."""
    before, export = state(pk), campaign_export(Campaign.objects.get(pk=pk))
    assert before[0]["campaign.Campaign"] >= 1
    key = f"fault-{name}"  # one form key for every attempt: a failed attempt must not use it up

    def attempt() -> Any:
        if via == "service":
            return run(pk)
        return step_action(campaign=pk, key=key, label=name, action=lambda locked: run(locked.pk), by=SYSTEM_ACTOR)

    failed: set[str] | None = None if EVERY_WRITE else set()
    n = 0
    while True:
        n += 1
        assert n <= MAX_WRITES, f"{name} makes more than {MAX_WRITES} writes: its query count grows"
        spy = FailAt(n, failed)
        try:
            with connection.execute_wrapper(spy):
                attempt()
        except Fault:
            n = len(spy.writes)  # the write that failed (a later one when statements already failed are passed over)
            if failed is not None:
                failed.add(spy.statement)
            after = state(pk)
            where = f"{name} via {via}, failing write {n}: {spy.writes[-1]}"
            assert after[0] == before[0], f"row counts changed after {where}"
            assert after[1] == before[1], f"rows changed after {where}"
            if n == 1:
                assert campaign_export(Campaign.objects.get(pk=pk)) == export, f"the export changed after {where}"
            continue
        assert not spy.statement, f"{name} via {via}: the fault at write {len(spy.writes)} was swallowed: {spy.statement[:120]}"
        if failed is None:
            assert len(spy.writes) == n - 1, f"{name}: the writes changed between runs"
        else:  # the writes after the last failed one were statements failed before
            assert len(spy.writes) >= n - 1, f"{name}: the writes changed between runs"
        assert spy.writes, f"{name} wrote nothing"
        if via == "step_action":
            assert ActionKey.objects.filter(campaign_id=pk, key=action_key(key, by=None)).exists()
        return len(spy.writes)


# --- the Blood Royale story --------------------------------------------------------------------


def house(pk: int, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign_id=pk, crown=crown)


def who(pk: int, given: str, dynastic: str) -> Character:
    """One of the fixture's people (a child born in the story may share the name)."""
    return Character.objects.get(campaign_id=pk, given_name=given, dynastic_name=dynastic, birth_year__lt=1300)


def prepare(campaign: Campaign) -> int:
    """The fixture's campaign in 1310 with contracts that the story ends, brings into force and pays."""
    pk = campaign.pk
    at_step(campaign, Step.BIRTHS, year=YEAR)
    england, france, germany, italy = (house(pk, c) for c in ("England", "France", "Germany", "Italy"))
    treasury.post(campaign, payer=None, payee=england, amount=200, kind=PostingKind.OTHER, reason="test funds")
    john, mary = who(pk, "John", "Plantagenet"), who(pk, "Mary", "Hapsburg")
    betrothal = Marriage.objects.create(campaign=campaign, husband=john, wife=mary, arranged_year=1300)
    pay = {"kind": "payment", "params": {"payer": england.pk, "payee": germany.pk, "amount": 10}}
    match = contract_draft(
        campaign=pk,
        kind="marriage",
        title="The English match",
        parties=[england.pk, germany.pk],
        marriage=betrothal,
        clauses=[pay],
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=pk, contract=match, by=SYSTEM_ACTOR)  # waits for the wedding
    jean = who(pk, "Jean", "Anjou")
    french = Marriage.objects.get(campaign=campaign, husband=jean)
    dies = contract_draft(
        campaign=pk, kind="marriage", title="The French match", parties=[france.pk, italy.pk], marriage=french, by=SYSTEM_ACTOR
    )
    contract_sign(campaign=pk, contract=dies, by=SYSTEM_ACTOR)  # in force: the couple is wed; Jean's death ends it
    treaty = contract_draft(
        campaign=pk, kind="treaty", title="Truce", parties=[england.pk, france.pk], term_years=5, by=SYSTEM_ACTOR
    )
    contract_sign(campaign=pk, contract=treaty, by=SYSTEM_ACTOR)  # its term runs out at the turn advance
    recurring = {
        "kind": "recurring_payment",
        "params": {"payer": england.pk, "payee": france.pk, "amount": 5, "from_year": YEAR, "turns": 3},
    }
    tribute = contract_draft(
        campaign=pk, kind="agreement", title="Tribute", parties=[england.pk, france.pk], clauses=[recurring], by=SYSTEM_ACTOR
    )
    contract_sign(campaign=pk, contract=tribute, by=SYSTEM_ACTOR)  # an instalment now and one at the turn advance
    return pk


def births_attempt(pk: int) -> Any:
    edward = who(pk, "Edward", "Plantagenet")
    match = Marriage.objects.get(campaign_id=pk, husband=edward)
    return services.births_attempt(campaign=pk, marriage=match.pk, faces=[6, 6], by=SYSTEM_ACTOR)


def births_sex(pk: int) -> Any:
    waiting = BirthAttempt.objects.get(campaign_id=pk, success=True, child__isnull=True)
    return services.births_sex(campaign=pk, attempt=waiting.pk, faces=[1], source=RandomSource(2), by=SYSTEM_ACTOR)


def births_roll_all(pk: int) -> Any:
    return services.births_roll_all(campaign=pk, extra=lambda turn: True, source=RandomSource(3), by=SYSTEM_ACTOR)


def births_finish(pk: int) -> Any:
    return services.births_finish(campaign=pk, by=SYSTEM_ACTOR)


def survival_roll(pk: int) -> Any:
    """Jean of France dies (his marriage contract ends), and Edward of England; John and Mary live."""
    faces = {who(pk, "Edward", "Plantagenet").pk: [1, 1], who(pk, "Jean", "Anjou").pk: [1, 1]}
    faces |= {who(pk, "John", "Plantagenet").pk: [6, 6], who(pk, "Mary", "Hapsburg").pk: [6, 6]}
    return services.survival_roll(campaign=pk, faces=faces, source=RandomSource(4), by=SYSTEM_ACTOR)


def survival_finish(pk: int) -> Any:
    return services.survival_finish(campaign=pk, source=RandomSource(5), by=SYSTEM_ACTOR)


def marriage_wed(pk: int) -> Any:
    """John, now King, weds Mary: the wedding's money and the contract's payment are posted."""
    match = Marriage.objects.get(campaign_id=pk, husband=who(pk, "John", "Plantagenet"))
    return services.marriage_wed(campaign=pk, marriage=match.pk, by=SYSTEM_ACTOR)


def marriage_arrange(pk: int) -> Any:
    louis, julianna = who(pk, "Louis", "Anjou"), who(pk, "Julianna", "Visconti")
    return services.marriage_arrange(campaign=pk, husband=louis.pk, wife=julianna.pk, wed=True, by=SYSTEM_ACTOR)


def marriages_finish(pk: int) -> Any:
    return services.marriages_finish(campaign=pk, by=SYSTEM_ACTOR)


def announcements_make(pk: int) -> Any:
    return services.announcements_make(campaign=pk, by=SYSTEM_ACTOR)


def turn_advance(pk: int) -> Any:
    return services.turn_advance(campaign=pk, by=SYSTEM_ACTOR)


def transfer(pk: int) -> Any:
    return treasury.treasury_transfer(
        campaign=pk, payer=house(pk, "England"), payee=house(pk, "Spain"), amount=7, reason="a gift", by=SYSTEM_ACTOR
    )


def reverse(pk: int) -> Any:
    gift = treasury.Posting.objects.filter(campaign_id=pk, kind=PostingKind.TRANSFER).latest("pk")
    return treasury.posting_reverse(campaign=pk, posting=gift.pk, reason="sent by mistake", by=SYSTEM_ACTOR)


def alliance(pk: int) -> Any:
    england, spain = house(pk, "England").pk, house(pk, "Spain").pk
    return contract_draft(
        campaign=pk,
        kind="agreement",
        title="Alliance",
        parties=[england, spain],
        clauses=[{"kind": "payment", "params": {"payer": england, "payee": spain, "amount": 3}}],
        by=SYSTEM_ACTOR,
    )


def sign(pk: int) -> Any:
    """The alliance comes into force at once: its payment is posted."""
    return contract_sign(campaign=pk, contract=Contract.objects.get(campaign_id=pk, title="Alliance").pk, by=SYSTEM_ACTOR)


STORY: list[tuple[str, Callable[[int], Any]]] = [
    ("births_attempt", births_attempt),
    ("births_sex", births_sex),
    ("births_roll_all", births_roll_all),
    ("births_finish", births_finish),
    ("survival_roll", survival_roll),
    ("survival_finish", survival_finish),
    ("marriage_wed", marriage_wed),
    ("marriage_arrange", marriage_arrange),
    ("marriages_finish", marriages_finish),
    ("announcements_make", announcements_make),
    ("turn_advance", turn_advance),
    ("treasury_transfer", transfer),
    ("posting_reverse", reverse),
    ("contract_draft", alliance),
    ("contract_sign", sign),
]


def check_story(pk: int, done: str) -> None:
    """What the story is meant to exercise did happen."""
    year = Campaign.objects.get(pk=pk).current_year
    contracts = {c.title: c for c in Contract.objects.filter(campaign_id=pk)}
    if done == "survival_roll":
        assert who(pk, "Jean", "Anjou").status == Status.DEAD and who(pk, "Edward", "Plantagenet").status == Status.DEAD
        assert contracts["The French match"].end_kind == EndKind.DEATH
    if done == "survival_finish":
        assert Reign.objects.filter(campaign_id=pk, crown="England", end_year__isnull=True).get().holder.given_name == "John"
    if done == "marriage_wed":
        assert contracts["The English match"].state == ContractState.IN_FORCE
        paid = ContractPayment.objects.get(contract=contracts["The English match"])
        assert paid.status == PaymentStatus.PAID and paid.posting is not None
    if done == "turn_advance":
        assert year == YEAR + 5
        assert contracts["Truce"].end_kind == EndKind.TERM
        assert treasury.Posting.objects.filter(campaign_id=pk, contract_link__contract=contracts["Tribute"]).count() == 2
    if done == "contract_sign":
        assert contracts["Alliance"].state == ContractState.IN_FORCE


@pytest.mark.long
@pytest.mark.django_db
@pytest.mark.parametrize("via", ["service", "step_action"])
def test_a_fault_at_any_write_of_a_step_leaves_the_database_as_before(campaign, via):
    pk = prepare(campaign)
    writes = {}
    for name, run in STORY:
        writes[name] = with_faults(pk, name, run, via)
        check_story(pk, name)
    key = 1 if via == "step_action" else 0  # the form's one-time key (undo's recording is the connection's: no write)
    locks = 2 if via == "step_action" else 1  # each lock of the campaign raises its live version (campaign.live)
    assert writes["births_finish"] == 1 + key + locks  # the step moves on, and nothing else (the step has its checkpoint)


# --- BloodLine and EU monarchs: a whole turn, step by step --------------------------------------


@dataclass
class Turn:
    """A demo campaign's turn, cut into the services ``operations.simulation.play_turn`` calls."""

    ruleset: str

    def steps(self) -> list[tuple[str, Callable[[int], Any]]]:
        from operations.simulation import play_births, play_marriages, play_monarchs, wed_due

        def campaign(pk: int) -> Campaign:
            return Campaign.objects.get(pk=pk)

        out: list[tuple[str, Callable[[int], Any]]] = []
        if self.ruleset != "eu-monarchs":
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
        if self.ruleset == "eu-bloodline":
            out.append(("wed_due", lambda pk: wed_due(campaign(pk), by=SYSTEM_ACTOR)))
        out.append(("turn_advance", lambda pk: services.turn_advance(campaign=pk, by=SYSTEM_ACTOR)))
        return out


@pytest.mark.long
@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["eu-bloodline", "eu-monarchs"])
def test_every_step_of_a_turn_in_the_other_rulesets_is_atomic(ruleset):
    from operations.services import demo_create
    from operations.simulation import play_turn

    demo = demo_create(ruleset=ruleset).campaign
    play_turn(demo, RandomSource(11), by=SYSTEM_ACTOR)  # a turn behind it: contracts, ledger and rolls
    writes = {}
    for name, run in Turn(ruleset).steps():  # some steps call several services: one action of the pages
        writes[name] = with_faults(demo.pk, name, run, "step_action")
    assert all(writes.values())
    assert Roll.objects.filter(campaign=demo).exists() and Checkpoint.objects.filter(campaign=demo).exists()
