"""The kernel's models that moved up to the dynasties (issue 35, item 4) keep their rows: a database
with a roll's subjects and an invitation, made before the move, has them after it, on the same
tables, with their content types moved; and the move undoes cleanly."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# SQLite's test databases are built from the models (config/settings_test.py): PostgreSQL's by migrating
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BEFORE = [("campaign", "0022_invariants_carry_their_messages"), ("dynasties", "0023_reign_interim_titleholding_end_constraints")]
AFTER = [("campaign", "0024_invitation_moves_to_dynasties"), ("dynasties", "0025_invitation_from_the_kernel")]


def _migrate(targets: list[tuple[str, str]]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _content_types() -> set[str]:
    """The apps of the moved models' content types (the rows as they are: the table's shape is the
    latest whatever the two apps' state)."""
    rows = ContentType.objects.filter(model__in=["rollsubject", "invitation"], app_label__in=["campaign", "dynasties"])
    assert rows.count() == 2
    return set(rows.values_list("app_label", flat=True))


def _latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_moved_models_keep_their_rows_and_content_types():
    try:
        old = _migrate(BEFORE)
        campaign = old.get_model("campaign", "Campaign").objects.create(name="Moves", slug="moves")
        house = old.get_model("dynasties", "Dynasty").objects.create(campaign=campaign, name="Plantagenet")
        king = old.get_model("dynasties", "Character").objects.create(
            campaign=campaign, given_name="Henry", sex="M", birth_year=1280, dynastic_name="Plantagenet"
        )
        roll = old.get_model("campaign", "Roll").objects.create(
            campaign=campaign, year=1300, step="survival", purpose="survival", dice="2d6", faces=[3, 4], source="server"
        )
        subject = old.get_model("campaign", "RollSubject").objects.create(roll=roll, character=king, position=0)
        link = old.get_model("campaign", "Invitation").objects.create(
            campaign=campaign,
            role="player",
            dynasty=house,
            token_hash="a" * 64,
            expires_at=datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC),
        )
        assert _content_types() == {"campaign"}  # moved back by the move's own undoing

        new = _migrate(AFTER)
        moved = new.get_model("dynasties", "RollSubject").objects.get()
        assert (moved.pk, moved.roll_id, moved.character_id, moved.position) == (subject.pk, roll.pk, king.pk, 0)
        assert [r.pk for r in new.get_model("dynasties", "Character").objects.get(pk=king.pk).rolls.all()] == [roll.pk]
        invitation = new.get_model("dynasties", "Invitation").objects.get()
        assert (invitation.pk, invitation.dynasty_id, invitation.token_hash) == (link.pk, house.pk, "a" * 64)
        assert _content_types() == {"dynasties"}

        back = _migrate(BEFORE)
        assert back.get_model("campaign", "RollSubject").objects.get().pk == subject.pk
        assert back.get_model("campaign", "Invitation").objects.get().dynasty_id == house.pk
        assert _content_types() == {"campaign"}
    finally:
        _latest()


LEDGER_BEFORE = [
    ("campaign", "0026_membership_seat_kept_by_a_player"),
    ("dynasties", "0025_invitation_from_the_kernel"),
    ("contracts", "0006_invariants_carry_their_messages"),
]
LEDGER_AFTER = [
    ("campaign", "0027_posting_moves_to_dynasties"),
    ("dynasties", "0026_posting_from_the_kernel"),
    ("contracts", "0007_contract_postings_from_the_ledger"),
]


def _posting_content_type() -> str:
    rows = ContentType.objects.filter(model="posting", app_label__in=["campaign", "dynasties"])
    assert rows.count() == 1
    return rows.get().app_label


def test_the_ledger_moves_up_with_its_rows_and_the_contracts_keep_which_posting_paid_which_contract():
    try:
        old = _migrate(LEDGER_BEFORE)
        campaign = old.get_model("campaign", "Campaign").objects.create(name="Ledger", slug="ledger")
        houses = old.get_model("dynasties", "Dynasty").objects
        york, lancaster = houses.create(campaign=campaign, name="York"), houses.create(campaign=campaign, name="Lancaster")
        contract = old.get_model("contracts", "Contract").objects.create(
            campaign=campaign, kind="agreement", title="Tribute", start_year=1300, state="in_force"
        )
        postings = old.get_model("campaign", "Posting").objects
        common = {"campaign": campaign, "year": 1300, "step": "interphase"}
        paid = postings.create(**common, payer=york, payee=lancaster, amount=12, kind="contract", reason="T", contract=contract)
        tax = postings.create(**common, payer=None, payee=york, amount=30, kind="tax", reason="taxes")
        stray = postings.create(**common, payer=lancaster, payee=york, amount=4, kind="damages", reason="D", contract=contract)
        payment = old.get_model("contracts", "ContractPayment").objects.create(
            campaign=campaign, contract=contract, year=1300, payer=york, payee=lancaster, amount=12, status="paid", posting=paid
        )
        assert _posting_content_type() == "campaign"

        new = _migrate(LEDGER_AFTER)
        moved = new.get_model("dynasties", "Posting").objects.order_by("pk")
        assert [(p.pk, p.payer_id, p.payee_id, p.amount, p.kind) for p in moved] == [
            (paid.pk, york.pk, lancaster.pk, 12, "contract"),
            (tax.pk, None, york.pk, 30, "tax"),
            (stray.pk, lancaster.pk, york.pk, 4, "damages"),
        ]
        assert "contract_id" not in {
            c.name for c in connection.introspection.get_table_description(connection.cursor(), "campaign_posting")
        }
        links = new.get_model("contracts", "ContractPosting").objects.order_by("posting_id")
        # every posting that named a contract keeps it, a payment's or not (damages posted by hand)
        assert [(x.posting_id, x.contract_id, x.campaign_id) for x in links] == [
            (paid.pk, contract.pk, campaign.pk),
            (stray.pk, contract.pk, campaign.pk),
        ]
        assert new.get_model("contracts", "ContractPayment").objects.get().posting_id == paid.pk == payment.posting_id
        assert _posting_content_type() == "dynasties"

        back = _migrate(LEDGER_BEFORE)
        again = back.get_model("campaign", "Posting").objects.order_by("pk")
        assert [(p.pk, p.contract_id) for p in again] == [(paid.pk, contract.pk), (tax.pk, None), (stray.pk, contract.pk)]
        assert "contracts_contractposting" not in connection.introspection.table_names()
        assert _posting_content_type() == "campaign"
    finally:
        _latest()
