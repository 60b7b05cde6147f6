"""A member's house is the dynasties' Seat (issue 35, item 4): the kernel reads it through what the
game registers, a house given or taken forgets the request's seats and counts as a seat moved for
the live table, and the services keep "a player plays a house" with one message."""

from __future__ import annotations

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from django.db.models import RestrictedError
from django.test.utils import CaptureQueriesContext

from campaign import registry
from campaign.models import Membership, Role
from campaign.permissions import SYSTEM_ACTOR, member_of, role_of
from campaign.services import membership_add
from dynasties.models import Dynasty, Seat, seat_write
from rules.errors import RuleError
from tests.factories import member_house_id

pytestmark = pytest.mark.django_db


def test_the_game_registers_the_members_houses():
    seats = registry.seats()
    assert seats.house == "seat__house" and seats.write is seat_write
    entry = registry.entry(Seat)
    assert entry is not None and entry.exempt and entry.campaign_path == "campaign"
    assert not any(f.name == "dynasty" for f in Membership._meta.get_fields())


def test_the_policy_reads_the_house_with_the_membership_in_one_query(campaign, alice):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    with CaptureQueriesContext(connection) as ctx:
        assert role_of(alice, campaign) == (Role.PLAYER, england.pk)
    assert len(ctx.captured_queries) == 1
    with CaptureQueriesContext(connection) as ctx:
        assert member_of(alice, campaign.slug) == (campaign, Role.PLAYER, england.pk)
    assert len(ctx.captured_queries) == 1


def test_a_house_given_at_the_seat_forgets_the_requests_seats(campaign, alice):
    seat = Membership.objects.get(campaign=campaign, user=alice)
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    request_started.disconnect(close_old_connections)  # as the test client does: the test's connection stays open
    request_finished.disconnect(close_old_connections)
    request_started.send(sender=None)
    try:
        england = role_of(alice, campaign)[1]
        seat_write(seat, spain)  # the seat row written, not the membership
        assert role_of(alice, campaign) == (Role.PLAYER, spain.pk) != (Role.PLAYER, england)
    finally:
        request_finished.send(sender=None)
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_a_player_needs_a_house_with_one_message_and_nothing_is_kept(campaign, outsider):
    with pytest.raises(RuleError, match="A player needs a dynasty of Test Campaign to play") as refused:
        membership_add(campaign=campaign, user=outsider, role=Role.PLAYER, by=SYSTEM_ACTOR)
    assert refused.value.fields == {"dynasty": "required"}
    assert not Membership.objects.filter(user=outsider).exists()
    watcher = membership_add(campaign=campaign, user=outsider, role=Role.OBSERVER, by=SYSTEM_ACTOR)
    assert member_house_id(watcher) is None and not Seat.objects.filter(membership=watcher).exists()


def test_a_house_deleted_keeps_a_players_seat_and_frees_an_observers(campaign, outsider, django_user_model):
    anjou = Dynasty.objects.create(campaign=campaign, name="Anjou-Sicily", kind="player")
    spain = Dynasty.objects.get(campaign=campaign, crown="Spain")
    newcomer = django_user_model.objects.create_user("anjou_player", password="a-long-password-1")
    player = membership_add(campaign=campaign, user=newcomer, role=Role.PLAYER, dynasty=anjou, by=SYSTEM_ACTOR)
    watcher = membership_add(campaign=campaign, user=outsider, role=Role.OBSERVER, dynasty=anjou, by=SYSTEM_ACTOR)
    with pytest.raises(RestrictedError, match="Seat"):
        anjou.delete()
    assert (member_house_id(player), member_house_id(watcher)) == (anjou.pk, anjou.pk)
    seat_write(player, spain)  # the GM gives the seat another house first
    anjou.delete()
    assert Membership.objects.filter(pk=watcher.pk).exists() and member_house_id(watcher) is None
    assert member_house_id(player) == spain.pk
