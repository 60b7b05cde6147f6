"""The table's changes and game night's undo (issue 20): seating, moving and removing members is not a
move of the game. It is written outside every change set, so an undo or a redo of a step leaves the
members and their chronicle lines (kind ``membership``) as they are, together; docs/rulings.md,
"Undo (game night)"."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from campaign.models import Campaign, Checkpoint, ChronicleEntry, Membership, Role, UndoChange
from campaign.undo import new_action_key, redo, redo_plan, step_action, undo_plan, undo_step
from dynasties.invitations import account_join, invitation_create, member_remove, seat_move
from dynasties.models import Dynasty, Seat
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.factories import member_house_id

pytestmark = pytest.mark.django_db


def births(campaign: Campaign, gm) -> None:
    """One action of the Births step, through step_action as the pages and the API run it."""
    from operations.simulation import play_births

    step_action(
        campaign=campaign.pk,
        key=new_action_key(),
        label="Births",
        by=gm,
        action=lambda c: play_births(c, RandomSource(3), by=gm),
    )


def table(campaign: Campaign) -> tuple[list[tuple[str, str, int | None]], list[str]]:
    """Who sits where, and the chronicle's membership lines."""
    seats = sorted(Membership.objects.filter(campaign=campaign).values_list("user__username", "role", "seat__house"))
    lines = list(
        ChronicleEntry.objects.filter(campaign=campaign, kind="membership").order_by("pk").values_list("text", flat=True)
    )
    return seats, lines


def game(campaign: Campaign) -> list[tuple[int, str]]:
    """The game's own chronicle lines (not the table's)."""
    return list(ChronicleEntry.objects.filter(campaign=campaign).exclude(kind="membership").values_list("pk", "kind"))


def change_the_table(campaign: Campaign, gm, bob) -> None:
    """Bob leaves; a newcomer takes France by a link."""
    member_remove(campaign=campaign, membership=Membership.objects.get(campaign=campaign, user=bob).pk, by=gm)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    _, token = invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=france, by=gm)
    account_join(token=token, username="newcomer", password="a-long-password-1")


def test_a_membership_change_is_in_no_change_set(campaign, gm, bob):
    before = game(campaign)
    births(campaign, gm)
    logged = UndoChange.objects.count()
    checkpoints = Checkpoint.objects.count()
    change_the_table(campaign, gm, bob)
    assert UndoChange.objects.count() == logged and Checkpoint.objects.count() == checkpoints
    plan = undo_plan(campaign)
    assert plan is not None and plan.lost_chronicle == len(game(campaign)) - len(before)  # not the table's lines


def test_undo_and_redo_of_a_step_leave_the_table_and_its_lines_together(campaign, gm, alice, bob):
    before = game(campaign)
    births(campaign, gm)
    played = game(campaign)
    assert played != before
    change_the_table(campaign, gm, bob)  # between two actions of the step
    births_again = game(campaign)
    seated = table(campaign)
    assert [text.split(" ")[0] for text in seated[1]] == ["bob", "newcomer"]
    assert ("newcomer", Role.PLAYER, Dynasty.objects.get(campaign=campaign, crown="France").pk) in seated[0]

    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert game(campaign) == before and table(campaign) == seated  # the step's writes gone; the table as it is

    redo(campaign=campaign, key=new_action_key(), by=gm)
    assert game(campaign) == births_again and table(campaign) == seated

    # a seat moved after an undo: the redo is still offered, and the line stays with the move
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    carol = get_user_model().objects.create_user("carol", password="carol-password-1")
    seat_move(campaign=campaign, membership=Membership.objects.get(campaign=campaign, user=alice).pk, username="carol", by=gm)
    moved = table(campaign)
    england = Dynasty.objects.get(campaign=campaign, crown="England").pk
    assert moved[1][-1].startswith("carol takes over from alice") and ("carol", Role.PLAYER, england) in moved[0]
    assert carol.pk and redo_plan(campaign) is not None
    redo(campaign=campaign, key=new_action_key(), by=gm)
    assert game(campaign) == births_again and table(campaign) == moved


def test_an_undo_to_a_whole_copy_keeps_the_table_s_lines_too(campaign, gm, bob, settings):
    """Checkpoints taken as a whole copy of the campaign (before the change log, or with
    ``REGNAL_UNDO_SNAPSHOTS``) restore every row of the campaign: the table's lines written since
    stay, as the members do."""
    settings.REGNAL_UNDO_SNAPSHOTS = True
    before = game(campaign)
    births(campaign, gm)
    change_the_table(campaign, gm, bob)
    seated = table(campaign)
    plan = undo_plan(campaign)
    assert plan is not None and plan.lost_chronicle == len(game(campaign)) - len(before)
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert game(campaign) == before and table(campaign) == seated


def _new_house_at_the_desk(campaign: Campaign, gm) -> Dynasty:
    from campaign.undo import change_set

    with change_set(campaign.pk, label="A new house", by=gm) as locked:
        return Dynasty.objects.create(campaign=locked, name="Anjou-Sicily", kind="player")


def test_an_undo_that_takes_away_a_house_a_player_plays_is_refused_naming_him(campaign, gm):
    """The house was made by the change set undone; a player was seated on it afterwards (outside any
    change set): the undo is refused, saying whom to seat elsewhere first, and nothing is undone."""
    from campaign.services import membership_add

    anjou = _new_house_at_the_desk(campaign, gm)
    newcomer = get_user_model().objects.create_user("anjou_player", password="a-long-password-1")
    membership_add(campaign=campaign, user=newcomer, role=Role.PLAYER, dynasty=anjou, by=gm)
    with pytest.raises(RuleError) as refused:
        undo_step(campaign=campaign.pk, key=new_action_key(), by=gm)
    assert refused.value.code == "seated"
    assert "anjou_player plays the house of Anjou-Sicily" in refused.value.message
    assert "seat" in refused.value.message and "then undo" in refused.value.message
    assert Dynasty.objects.filter(pk=anjou.pk).exists()  # nothing undone
    assert member_house_id(Membership.objects.get(user=newcomer)) == anjou.pk


def test_an_undo_that_takes_away_a_house_frees_an_observer_s_row_and_goes_on(campaign, gm):
    """Only a player plays a house; once he is seated elsewhere (or an observer), the undo goes through."""
    from campaign.services import membership_add

    anjou = _new_house_at_the_desk(campaign, gm)
    newcomer = get_user_model().objects.create_user("anjou_player", password="a-long-password-1")
    seat = membership_add(campaign=campaign, user=newcomer, role=Role.PLAYER, dynasty=anjou, by=gm)
    Membership.objects.filter(pk=seat.pk).update(role=Role.OBSERVER)
    Seat.objects.filter(membership_id=seat.pk).delete()
    undo_step(campaign=campaign.pk, key=new_action_key(), by=gm)
    assert not Dynasty.objects.filter(pk=anjou.pk).exists()
