"""Issue 20: joining a campaign by invitation; moving a seat, removing a member (dynasties.invitations,
pages/invitations.py). Every refusal says what to do and writes nothing; only the GM seats the table."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from campaign.models import Audience, ChronicleEntry, Membership, Role
from campaign.permissions import Forbidden
from campaign.services import membership_add
from dynasties import invitations as inv
from dynasties.models import Character, Dynasty, Invitation
from rules.errors import NotFound, RuleError
from tests.factories import member_house

User = get_user_model()
STRONG = "a-long-Passphrase-77"


@pytest.fixture
def carol(db):
    return User.objects.create_user("carol", password="carol-password-1")


@pytest.fixture
def watcher(campaign, db):
    user = User.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def house(campaign, crown):
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def state_of(campaign):
    """Everything these services could write."""
    return (
        list(Membership.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "user_id", "role", "seat__house")),
        list(Invitation.objects.filter(campaign=campaign).order_by("pk").values_list("pk", "used_by", "used_at", "revoked_at")),
        ChronicleEntry.objects.filter(campaign=campaign).count(),
        User.objects.count(),
    )


def refused(campaign, call, code=None, error=RuleError):
    before = state_of(campaign)
    with pytest.raises(error) as caught:
        call()
    assert state_of(campaign) == before, "a refusal writes nothing"
    if code is not None:
        assert caught.value.code == code
    return caught.value.message


# --- the services ----------------------------------------------------------------------------------


def test_a_player_seat_is_taken_by_whoever_accepts_the_link(campaign, gm, carol):
    germany = house(campaign, "Germany")
    invitation, token = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)
    assert invitation.created_by == gm and invitation.dynasty == germany
    assert invitation.token_hash == inv.token_hash(token) and token not in invitation.token_hash
    assert timedelta(days=6, hours=23) < invitation.expires_at - timezone.now() <= timedelta(days=7)
    assert inv.invitation_find(token) == invitation and inv.invitation_find(token + "x") is None

    membership = inv.invitation_accept(token=token, user=carol)

    assert (membership.user, membership.role, member_house(membership)) == (carol, Role.PLAYER, germany)
    invitation.refresh_from_db()
    assert invitation.used_by == carol and invitation.used_at is not None
    line = ChronicleEntry.objects.get(campaign=campaign, kind="membership")
    assert line.text == "carol joins the table as the player of Hapsburg of Germany." and line.audience == Audience.PUBLIC


def test_an_observer_link(campaign, gm, carol):
    _, token = inv.invitation_create(campaign=campaign, role=Role.OBSERVER, dynasty=house(campaign, "Spain"), by=gm, days=2)
    membership = inv.invitation_accept(token=token, user=carol)
    assert (membership.role, member_house(membership)) == (Role.OBSERVER, None)  # an observer's link names no house


def test_every_refusal_of_a_link_writes_nothing(campaign, gm, alice, carol, outsider):
    germany = house(campaign, "Germany")
    _, expired = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)
    Invitation.objects.filter(token_hash=inv.token_hash(expired)).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert "expired on" in refused(campaign, lambda: inv.invitation_accept(token=expired, user=carol), "expired")

    revoked_one, revoked = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)
    inv.invitation_revoke(campaign=campaign, invitation=revoked_one.pk, by=gm)
    assert "withdrawn" in refused(campaign, lambda: inv.invitation_accept(token=revoked, user=carol), "revoked")

    _, observer = inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm)
    message = refused(campaign, lambda: inv.invitation_accept(token=observer, user=alice), "already_member")
    assert "member of Test Campaign already (player)" in message

    # a seat has one waiting link (issue 34), but it may be filled another way meanwhile (at the desk)
    _, second = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)
    membership_add(campaign=campaign, user=carol, role=Role.PLAYER, dynasty=germany, by=gm)
    message = refused(campaign, lambda: inv.invitation_accept(token=second, user=outsider), "seat_taken")
    assert message == "Hapsburg of Germany has a player already: this link's seat is taken. Ask the game master for a new link."
    _, first = inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm)
    inv.invitation_accept(token=first, user=User.objects.create_user("eve", password=STRONG))
    assert "used already" in refused(campaign, lambda: inv.invitation_accept(token=first, user=outsider), "used")

    assert refused(campaign, lambda: inv.invitation_accept(token="made-up", user=outsider), error=NotFound) == inv.NO_SUCH
    assert refused(campaign, lambda: inv.account_join(token=second, username="dora", password=STRONG), "seat_taken")
    assert not User.objects.filter(username="dora").exists()  # a dead link makes no account


def test_a_new_account_joins_in_one_step(campaign, gm):
    _, token = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=house(campaign, "Spain"), by=gm)
    user, membership = inv.account_join(token=token, username="dora", password=STRONG)
    assert user.check_password(STRONG) and membership.user == user and member_house(membership).crown == "Spain"


def test_only_the_gm_seats_the_table(campaign, gm, alice, watcher, carol):
    germany = house(campaign, "Germany")
    bob_seat = Membership.objects.get(campaign=campaign, user__username="bob")
    link, _ = inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm)
    for who in (alice, watcher, carol):
        refused(
            campaign,
            lambda who=who: inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=who),
            error=Forbidden,
        )
        refused(campaign, lambda who=who: inv.invitation_revoke(campaign=campaign, invitation=link.pk, by=who), error=Forbidden)
        refused(
            campaign,
            lambda who=who: inv.seat_move(campaign=campaign, membership=bob_seat.pk, username="carol", by=who),
            error=Forbidden,
        )
        refused(campaign, lambda who=who: inv.member_remove(campaign=campaign, membership=bob_seat.pk, by=who), error=Forbidden)
        with pytest.raises(Forbidden):
            inv.table_of(campaign, by=who)


def test_what_the_gm_may_not_do(campaign, gm, alice):
    england = house(campaign, "England")
    message = refused(
        campaign, lambda: inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=england, by=gm), "seat_taken"
    )
    assert "England" in message and "played by alice already: remove him or move his seat first" in message
    refused(campaign, lambda: inv.invitation_create(campaign=campaign, role=Role.PLAYER, by=gm), "invalid")
    refused(campaign, lambda: inv.invitation_create(campaign=campaign, role=Role.GM, by=gm), "invalid")
    refused(campaign, lambda: inv.invitation_create(campaign=campaign, role=Role.OBSERVER, days=0, by=gm), "invalid")
    refused(
        campaign, lambda: inv.invitation_create(campaign=campaign, role=Role.OBSERVER, days=inv.MAX_DAYS + 1, by=gm), "invalid"
    )
    gm_seat = Membership.objects.get(campaign=campaign, user=gm)
    assert "keeps its game master" in refused(
        campaign, lambda: inv.member_remove(campaign=campaign, membership=gm_seat.pk, by=gm)
    )
    assert "keeps its game master" in refused(
        campaign, lambda: inv.seat_move(campaign=campaign, membership=gm_seat.pk, username="alice", by=gm)
    )
    used, token = inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm)
    inv.invitation_accept(token=token, user=User.objects.create_user("eve", password=STRONG))
    assert "remove him" in refused(campaign, lambda: inv.invitation_revoke(campaign=campaign, invitation=used.pk, by=gm), "used")
    refused(campaign, lambda: inv.invitation_revoke(campaign=campaign, invitation=10**9, by=gm), error=NotFound)


def test_moving_a_seat_to_another_user(campaign, gm, alice, bob, carol):
    seat = Membership.objects.get(campaign=campaign, user=alice)
    assert "a user sits at a table once" in refused(
        campaign, lambda: inv.seat_move(campaign=campaign, membership=seat.pk, username="bob", by=gm), "already_member"
    )
    assert "no user called “nobody”" in refused(
        campaign, lambda: inv.seat_move(campaign=campaign, membership=seat.pk, username="nobody", by=gm)
    )
    moved = inv.seat_move(campaign=campaign, membership=seat.pk, username="carol", by=gm)
    assert (moved.pk, moved.user, member_house(moved).crown) == (seat.pk, carol, "England")
    assert not Membership.objects.filter(campaign=campaign, user=alice).exists()
    line = ChronicleEntry.objects.get(campaign=campaign, kind="membership")
    assert "carol takes over from alice" in line.text


def test_a_removed_players_house_stays_unplayed(campaign, gm, bob):
    france = house(campaign, "France")
    people = list(Character.objects.filter(campaign=campaign, controlled_by=france).values_list("pk", "status"))
    seat = Membership.objects.get(campaign=campaign, user=bob)
    inv.member_remove(campaign=campaign, membership=seat.pk, by=gm)
    assert not Membership.objects.filter(pk=seat.pk).exists()
    assert Dynasty.objects.filter(pk=france.pk).exists()
    assert list(Character.objects.filter(campaign=campaign, controlled_by=france).values_list("pk", "status")) == people
    line = ChronicleEntry.objects.get(campaign=campaign, kind="membership")
    assert "bob leaves the table" in line.text and "stays in play, unplayed" in line.text
    table = inv.table_of(campaign, by=gm)
    assert [s.member for s in table.seats if s.dynasty == france] == [None]
    _, token = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=france, by=gm)  # the seat is free again
    assert member_house(inv.invitation_accept(token=token, user=bob)) == france


# --- the pages -------------------------------------------------------------------------------------


def players_url(campaign):
    return reverse("pages:players", args=[campaign.slug])


def test_the_players_page_is_the_gms(client, campaign, gm, alice, watcher, outsider):
    for who in (alice, watcher, outsider):
        client.force_login(who)
        assert client.get(players_url(campaign)).status_code == 404
        before = state_of(campaign)
        answer = client.post(players_url(campaign), {"op": "invite", "seat": "observer", "days": "7"})
        assert answer.status_code == 404 and state_of(campaign) == before
    client.force_login(gm)
    page = client.get(players_url(campaign))
    assert page.status_code == 200
    text = page.content.decode()
    assert "alice" in text and "nobody: the GM acts for it" in text and "watcher" in text
    assert f'href="{players_url(campaign)}"' in client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    client.force_login(alice)
    assert players_url(campaign) not in client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()


def _invite(client, campaign, **data):
    answer = client.post(players_url(campaign), {"op": "invite", "days": "7", **data})
    assert answer.status_code == 200, answer.content.decode()[:2000]
    link = re.search(r'value="(http://testserver/join/[^"/]+/)"', answer.content.decode())
    assert link, "the new link is shown to copy, as an absolute URL"
    return link.group(1)


def test_the_gm_invites_and_a_newcomer_makes_an_account(client, campaign, gm):
    germany = house(campaign, "Germany")
    client.force_login(gm)
    link = _invite(client, campaign, seat=str(germany.pk))
    path = link.removeprefix("http://testserver")
    assert "waiting" in client.get(players_url(campaign)).content.decode()
    assert link not in client.get(players_url(campaign)).content.decode()  # shown once
    client.logout()

    page = client.get(path)
    text = page.content.decode()
    assert page.status_code == 200 and "Test Campaign" in text and "the player of Hapsburg of Germany" in text
    assert f'href="/login/?next={path}"' in text and "Create an account" in text

    weak = client.post(path, {"username": "dora", "password1": "dora", "password2": "dora"})
    assert weak.status_code == 400 and "too short" in weak.content.decode()
    assert not User.objects.filter(username="dora").exists()

    joined = client.post(path, {"username": "dora", "password1": STRONG, "password2": STRONG})
    assert joined.status_code == 302 and joined["Location"] == reverse("pages:dashboard", args=[campaign.slug])
    dora = User.objects.get(username="dora")
    assert member_house(Membership.objects.get(campaign=campaign, user=dora)) == germany
    dashboard = client.get(joined["Location"])
    assert (
        dashboard.status_code == 200 and "you sit at its table as the player of Hapsburg of Germany" in dashboard.content.decode()
    )

    again = client.get(path)  # the link is used up
    assert again.status_code == 410 and "used already" in again.content.decode()


def test_a_logged_in_user_joins_in_one_click(client, campaign, gm, carol):
    client.force_login(gm)
    path = _invite(client, campaign, seat="observer").removeprefix("http://testserver")
    client.force_login(carol)
    page = client.get(path)
    assert page.status_code == 200 and "Join as an observer" in page.content.decode()
    assert client.post(path).status_code == 302
    assert Membership.objects.get(campaign=campaign, user=carol).role == Role.OBSERVER


def test_dead_and_made_up_links_refuse(client, campaign, gm, alice, carol):
    client.force_login(gm)
    path = _invite(client, campaign, seat="observer").removeprefix("http://testserver")
    invitation = Invitation.objects.get(campaign=campaign)
    assert client.post(players_url(campaign), {"op": "revoke", "invitation": invitation.pk}).status_code == 302
    client.logout()
    page = client.get(path)
    assert page.status_code == 410 and "withdrawn" in page.content.decode() and "Create an account" not in page.content.decode()
    before = state_of(campaign)
    assert client.post(path, {"username": "dora", "password1": STRONG, "password2": STRONG}).status_code == 410
    assert state_of(campaign) == before
    missing = client.get("/join/no-such-secret/")
    assert missing.status_code == 404 and "no such invitation" in missing.content.decode()
    assert "Test Campaign" not in missing.content.decode()

    client.force_login(gm)
    path = _invite(client, campaign, seat="observer").removeprefix("http://testserver")
    client.force_login(alice)  # a member already
    page = client.get(path)
    assert "member of Test Campaign already" in page.content.decode() and "Join as" not in page.content.decode()
    before = state_of(campaign)
    assert client.post(path).status_code == 400 and state_of(campaign) == before


def test_the_gm_moves_and_removes_from_the_page(client, campaign, gm, alice, bob, carol):
    client.force_login(gm)
    seat = Membership.objects.get(campaign=campaign, user=alice)
    wrong = client.post(players_url(campaign), {"op": "move", "membership": seat.pk, "username": "bob"})
    assert wrong.status_code == 400 and "a user sits at a table once" in wrong.content.decode()
    assert client.post(players_url(campaign), {"op": "move", "membership": seat.pk, "username": "carol"}).status_code == 302
    assert Membership.objects.get(pk=seat.pk).user == carol
    bob_seat = Membership.objects.get(campaign=campaign, user=bob)
    gone = client.post(players_url(campaign), {"op": "remove", "membership": bob_seat.pk}, follow=True)
    assert re.search(r"bob is no longer a member\. \w+ of France stays in play, unplayed", gone.content.decode()), re.findall(
        r"<li class=.*?</li>", gone.content.decode()
    )
    assert not Membership.objects.filter(pk=bob_seat.pk).exists()


def test_a_taken_house_is_not_offered_and_refused(client, campaign, gm):
    client.force_login(gm)
    england = house(campaign, "England")
    page = client.get(players_url(campaign)).content.decode()
    assert f'<option value="{england.pk}"' not in page and f'<option value="{house(campaign, "Spain").pk}"' in page
    answer = client.post(players_url(campaign), {"op": "invite", "seat": str(england.pk), "days": "7"})
    assert answer.status_code == 400 and not Invitation.objects.exists()


def test_the_link_can_be_sent_when_a_mail_server_is_set(client, campaign, gm, settings):
    client.force_login(gm)
    assert 'name="email"' not in client.get(players_url(campaign)).content.decode()  # no mail server: copy it
    settings.EMAIL_HOST = "smtp.example.org"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    link = _invite(client, campaign, seat="observer", email="dora@example.org")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dora@example.org"] and link in mail.outbox[0].body


def test_the_demo_prints_an_invitation_link(db, capsys):
    call_command("demo")
    out = capsys.readouterr().out
    link = re.search(r"http://127\.0\.0\.1:8000/join/([^/\s]+)/", out)
    assert link and "username" in out
    invitation = inv.invitation_find(link.group(1))
    assert invitation is not None and invitation.role == Role.OBSERVER and inv.problem(invitation) is None


def test_logging_in_from_the_link_comes_back_to_it(client, campaign, gm, carol):
    client.force_login(gm)
    path = _invite(client, campaign, seat="observer").removeprefix("http://testserver")
    client.logout()
    answer = client.post("/login/", {"username": "carol", "password": "carol-password-1", "next": path})
    assert answer.status_code == 302 and answer["Location"] == path
    assert client.post(path).status_code == 302
    assert Membership.objects.get(campaign=campaign, user=carol).role == Role.OBSERVER
