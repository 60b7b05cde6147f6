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
