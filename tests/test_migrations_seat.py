"""A member's house moves from the kernel's membership to the dynasties' Seat (issue 35, item 4):
a database with a player, a GM tied to a house and an observer with none, made before the move,
has their houses after it, as seats keyed by their memberships; the move undoes cleanly, the
column filled again. On PostgreSQL a player left with no house is refused at commit."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from campaign.models import Campaign, Membership, Role
from dynasties.models import Dynasty, Seat
from tests.test_migrations_kernel_moves import _latest, _migrate  # the same walk through the history

# SQLite's test databases are built from the models (config/settings_test.py): PostgreSQL's by migrating
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BEFORE = [("campaign", "0027_posting_moves_to_dynasties"), ("dynasties", "0026_posting_from_the_kernel")]
AFTER = [("campaign", "0028_membership_seat_moves_up"), ("dynasties", "0027_seat_from_the_membership")]


def test_the_members_houses_move_to_their_seats_and_back():
    try:
        old = _migrate(BEFORE)
        users = old.get_model("auth", "User").objects
        campaign = old.get_model("campaign", "Campaign").objects.create(name="Seats", slug="seats")
        houses = old.get_model("dynasties", "Dynasty").objects
        anjou = houses.create(campaign=campaign, name="Anjou", crown="France")
        york = houses.create(campaign=campaign, name="York", crown="England")
        memberships = old.get_model("campaign", "Membership").objects
        player = memberships.create(campaign=campaign, user=users.create(username="p"), role="player", dynasty=anjou)
        gm = memberships.create(campaign=campaign, user=users.create(username="g"), role="gm", dynasty=york)
        watcher = memberships.create(campaign=campaign, user=users.create(username="o"), role="observer", dynasty=None)

        new = _migrate(AFTER)
        seats = new.get_model("dynasties", "Seat").objects
        assert sorted(seats.values_list("membership_id", "campaign_id", "house_id")) == sorted(
            [(player.pk, campaign.pk, anjou.pk), (gm.pk, campaign.pk, york.pk)]
        )  # the observer has none
        with connection.cursor() as cursor:
            columns = [c.name for c in connection.introspection.get_table_description(cursor, "campaign_membership")]
        assert "dynasty_id" not in columns

        back = _migrate(BEFORE)
        again = back.get_model("campaign", "Membership").objects
        assert sorted(again.values_list("pk", "dynasty_id")) == sorted(
            [(player.pk, anjou.pk), (gm.pk, york.pk), (watcher.pk, None)]
        )
        assert "dynasties_seat" not in connection.introspection.table_names()
    finally:
        _latest()


def test_a_player_left_with_no_house_is_refused_at_commit(django_user_model):
    """The deferred trigger: a seat may follow its membership in the same transaction, but a player
    with none at commit (written around the services) is refused, and nothing is kept."""
    campaign = Campaign.objects.create(name="Trigger", slug="trigger")
    house = Dynasty.objects.create(campaign=campaign, name="Anjou", crown="France")
    user = django_user_model.objects.create_user("p", password="a-long-password-1")
    with transaction.atomic():
        seated = Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER)
        Seat.objects.create(membership=seated, campaign=campaign, house=house)  # after its membership: fine
    assert Seat.objects.get(membership=seated).house == house

    with pytest.raises(IntegrityError, match="A player plays a dynasty"), transaction.atomic():
        Seat.objects.filter(membership=seated).delete()
    assert Seat.objects.filter(membership=seated).exists()

    other = get_user_model().objects.create_user("q", password="a-long-password-1")
    with pytest.raises(IntegrityError, match="A player plays a dynasty"), transaction.atomic():
        Membership.objects.create(campaign=campaign, user=other, role=Role.PLAYER)
    assert not Membership.objects.filter(user=other).exists()

    watcher = Membership.objects.create(campaign=campaign, user=other, role=Role.OBSERVER)  # an observer needs none
    with pytest.raises(IntegrityError, match="A player plays a dynasty"), transaction.atomic():
        Membership.objects.filter(pk=watcher.pk).update(role=Role.PLAYER)
    assert Membership.objects.get(pk=watcher.pk).role == Role.OBSERVER
