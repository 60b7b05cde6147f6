"""Seating the table and hosting it (issue 34): one waiting link per seat, the next free seat offered,
a new link's QR code, the demo's link kept; open sign-up (a site setting) and the GM's one-time
password-reset link for a member of his table."""

from __future__ import annotations

import html
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from campaign import accounts
from campaign.models import Membership, Role
from campaign.password_reset import password_reset_link
from campaign.permissions import Forbidden
from dynasties import invitations as inv
from dynasties.models import Dynasty, Invitation
from dynasties.services import campaign_create
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.factories import seat_member
from tests.test_settings import STRONG_KEY, _production

User = get_user_model()
STRONG = "a-long-Passphrase-77"


@pytest.fixture(autouse=True)
def _fresh_counts():
    cache.clear()  # the sign-up counts live in the cache
    yield
    cache.clear()


def house(campaign, crown):
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def text_of(response):
    return html.unescape(response.content.decode())


def selected_seat(response):
    found = re.search(r'<option value="([^"]+)"[^>]*selected', response.content.decode())
    return found.group(1) if found else None


# --- one waiting link per seat ---------------------------------------------------------------------


def test_a_second_link_for_a_waiting_seat_is_refused_naming_the_first(campaign, gm):
    germany = house(campaign, "Germany")
    first, token = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)
    before = list(Invitation.objects.values_list("pk", "revoked_at"))
    with pytest.raises(RuleError) as caught:
        inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)
    assert caught.value.code == "seat_waiting" and caught.value.fields == {"dynasty": "waiting"}
    said = caught.value.message
    assert "A link for the player of Hapsburg of Germany is waiting already" in said
    assert f"made {first.created_at:%Y-%m-%d %H:%M} by gm" in said and "Replace the waiting link" in said
    assert list(Invitation.objects.values_list("pk", "revoked_at")) == before  # nothing written

    second, new_token = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, replace=True, by=gm)
    first.refresh_from_db()
    assert first.revoked_at is not None and second.revoked_at is None
    assert inv.state(first) == inv.REVOKED and inv.waiting_links(campaign, germany.pk) == [second]
    with pytest.raises(RuleError) as caught:
        inv.invitation_accept(token=token, user=User.objects.create_user("carol", password=STRONG))
    assert caught.value.code == "revoked"
    # observers may be many: their links are never "the same seat"
    inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm)
    inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm)
    assert new_token != token


def test_a_seat_whose_link_expired_or_was_used_takes_a_new_one(campaign, gm):
    germany = house(campaign, "Germany")
    first, _ = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)
    inv.invitation_revoke(campaign=campaign, invitation=first.pk, by=gm)
    inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=germany, by=gm)  # no refusal: none waits


def test_the_players_page_offers_the_next_seat_without_a_link_and_draws_the_new_links_qr(client, campaign, gm):
    client.force_login(gm)
    url = reverse("pages:players", args=[campaign.slug])
    houses = {d.crown: d.pk for d in Dynasty.objects.filter(campaign=campaign)}
    # England and France are played: the first free seat is Germany (houses in the table's order)
    order = [d.pk for d in Dynasty.objects.filter(campaign=campaign).order_by("pk") if d.is_player]
    free = [pk for pk in order if pk not in (houses["England"], houses["France"])]
    assert selected_seat(client.get(url)) == str(free[0])

    answer = client.post(url, {"op": "invite", "seat": str(free[0]), "days": "7"})
    assert answer.status_code == 200
    assert selected_seat(answer) == str(free[1])  # moved on to the next house without a link
    page = text_of(answer)
    link = re.search(r'id="invite-link" value="([^"]+)"', page).group(1)
    assert "/join/" in link
    assert f'data-link="{link}"' in page and f'aria-label="QR code: {link}"' in page and "<svg" in page
    assert "(a link is waiting)" in page  # the seat's choice says so

    # the last free seat, then round to the first free one still without a link, then an observer
    client.post(url, {"op": "invite", "seat": str(free[1]), "days": "7"})
    answer = client.post(url, {"op": "invite", "seat": str(free[2]), "days": "7"})
    assert selected_seat(answer) == "observer"  # every free house has its link waiting


def test_the_players_page_flags_a_second_link_and_replaces_it_when_asked(client, campaign, gm):
    client.force_login(gm)
    url = reverse("pages:players", args=[campaign.slug])
    germany = house(campaign, "Germany")
    client.post(url, {"op": "invite", "seat": str(germany.pk), "days": "7"})
    answer = client.post(url, {"op": "invite", "seat": str(germany.pk), "days": "7"})
    assert answer.status_code == 400
    assert "A link for the player of Hapsburg of Germany is waiting already" in text_of(answer)
    assert Invitation.objects.filter(dynasty=germany).count() == 1

    answer = client.post(url, {"op": "invite", "seat": str(germany.pk), "days": "7", "replace": "on"})
    assert answer.status_code == 200 and 'id="invite-link"' in answer.content.decode()
    states = sorted(inv.state(i) for i in Invitation.objects.filter(dynasty=germany))
    assert states == [inv.OPEN, inv.REVOKED]


# --- the demo's link -------------------------------------------------------------------------------


def _demo_link() -> str:
    out = io.StringIO()
    call_command("demo", stdout=out)
    return re.search(r"http://\S+/join/\S+", out.getvalue()).group(0)


def test_the_demo_shows_the_same_waiting_link_each_run(db):
    first = _demo_link()
    assert _demo_link() == first and _demo_link() == first
    campaign = Invitation.objects.get().campaign
    assert Invitation.objects.filter(campaign=campaign).count() == 1  # no new link minted per run
    token = first.rstrip("/").rsplit("/", 1)[1]
    inv.invitation_accept(token=token, user=User.objects.create_user("carol", password=STRONG))
    second = _demo_link()  # used: a new one, kept in turn
    assert second != first and _demo_link() == second
    assert Invitation.objects.filter(campaign=campaign).count() == 2


# --- open sign-up ----------------------------------------------------------------------------------


def test_signup_makes_an_account_logs_in_and_it_can_start_a_campaign(client, db):
    page = client.get(reverse("signup"))
    assert page.status_code == 200 and "Make the account" in text_of(page)
    answer = client.post(
        reverse("signup"),
        {"username": "newgm", "email": "", "password1": STRONG, "password2": STRONG},
    )
    assert answer.status_code == 302 and answer["Location"] == reverse("home")
    user = User.objects.get(username="newgm")
    assert user.check_password(STRONG) and not user.is_staff and not user.is_superuser
    assert not Membership.objects.filter(user=user).exists()
    home = client.get(reverse("home"))
    assert "newgm" in text_of(home) and reverse("campaigns:new") in home.content.decode()
    # the new account starts a campaign and is its GM
    made = campaign_create(name="New Table", players=5, source=RandomSource(3), by=user)
    assert Membership.objects.get(campaign=made, user=user).role == Role.GM


def test_signup_checks_the_username_and_the_password(client, gm):
    url = reverse("signup")
    look_alike = client.post(url, {"username": "GM", "password1": STRONG, "password2": STRONG})
    assert look_alike.status_code == 400 and "is taken" in text_of(look_alike)
    mixed = client.post(url, {"username": "gmА", "password1": STRONG, "password2": STRONG})  # a Cyrillic А
    assert mixed.status_code == 400 and "one alphabet" in text_of(mixed)
    weak = client.post(url, {"username": "dora", "password1": "password", "password2": "password"})
    assert weak.status_code == 400 and "too common" in text_of(weak)
    twice = client.post(url, {"username": "dora", "password1": STRONG, "password2": STRONG + "x"})
    assert twice.status_code == 400 and "didn’t match" in text_of(twice)
    assert not User.objects.filter(username="dora").exists()


def test_signup_goes_back_to_the_invitation_it_came_from(client, campaign, gm):
    _, token = inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=house(campaign, "Spain"), by=gm)
    join = reverse("join", args=[token])
    answer = client.post(reverse("signup"), {"username": "dora", "password1": STRONG, "password2": STRONG, "next": join})
    assert answer.status_code == 302 and answer["Location"] == join
    evil = client.post(
        reverse("signup"), {"username": "eve", "password1": STRONG, "password2": STRONG, "next": "https://evil.example/"}
    )
    assert evil["Location"] == reverse("home")  # never off the site


@override_settings(REGNAL_OPEN_SIGNUP=False)
def test_signup_off_is_refused_with_the_reason(client, db):
    with pytest.raises(RuleError) as caught:
        accounts.account_signup(username="dora", password=STRONG)
    assert caught.value.code == "signup_closed"
    for answer in (
        client.get(reverse("signup")),
        client.post(reverse("signup"), {"username": "dora", "password1": STRONG, "password2": STRONG}),
    ):
        assert answer.status_code == 403
        assert "does not let anyone make an account" in text_of(answer) and "invitation link" in text_of(answer)
    assert not User.objects.filter(username="dora").exists()
    login = text_of(client.get(reverse("login")))
    assert reverse("signup") not in login and "createsuperuser" in login


def test_the_login_page_says_how_to_get_an_account(client, db):
    login = text_of(client.get(reverse("login")))
    assert f'href="{reverse("signup")}"' in login and "Make an account" in login
    assert "manage.py createsuperuser" in login and "invitation link" in login
    assert "one-time link" in login  # a forgotten password


@override_settings(REGNAL_RATE_SIGNUP="2/hour")
def test_signup_attempts_are_rate_limited_per_address(client, db):
    url = reverse("signup")
    for name in ("dora", "eve"):
        assert client.post(url, {"username": name, "password1": STRONG, "password2": STRONG}).status_code == 302
        client.logout()
    third = client.post(url, {"username": "fay", "password1": STRONG, "password2": STRONG})
    assert third.status_code == 429 and "Too many sign-up attempts from your address" in text_of(third)
    assert not User.objects.filter(username="fay").exists()
    other = client.post(url, {"username": "fay", "password1": STRONG, "password2": STRONG}, REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 302  # another address is counted apart


def test_open_signup_is_on_here_and_on_game_night_and_off_in_production_unless_told():
    assert accounts.signup_open() is True  # config.settings: make run, a game night on the local network
    shown = "print(s.REGNAL_OPEN_SIGNUP, s.REGNAL_RATE_SIGNUP)"
    default = _production({"SECRET_KEY": STRONG_KEY}, shown)
    assert default.returncode == 0, default.stderr
    assert default.stdout.strip() == "False 20/hour"
    told = _production({"SECRET_KEY": STRONG_KEY, "REGNAL_OPEN_SIGNUP": "1", "REGNAL_RATE_SIGNUP": "5/min"}, shown)
    assert told.stdout.strip() == "True 5/min", told.stderr
    bad = _production({"SECRET_KEY": STRONG_KEY, "REGNAL_OPEN_SIGNUP": "perhaps"}, "")
    assert bad.returncode != 0 and "REGNAL_OPEN_SIGNUP='perhaps' is not a boolean" in bad.stderr
    # make lan's settings (the production ones over plain HTTP): a game night's server allows it
    lan = "import config.settings_lan as lan; print(lan.REGNAL_OPEN_SIGNUP)"
    assert _production({"SECRET_KEY": STRONG_KEY}, lan).stdout.strip() == "True"
    assert _production({"SECRET_KEY": STRONG_KEY, "REGNAL_OPEN_SIGNUP": "0"}, lan).stdout.strip() == "False"


# --- the GM's one-time password-reset link ---------------------------------------------------------


def seat(campaign, user):
    return Membership.objects.get(campaign=campaign, user=user).pk


def test_the_gm_gives_a_player_a_one_time_reset_link(client, campaign, gm, alice):
    made = password_reset_link(campaign=campaign, membership=seat(campaign, alice), by=gm)
    assert made.user == alice and made.path.startswith("/reset/")
    opened = client.get(made.path)  # Django moves the token into the session, then asks for the password
    assert opened.status_code == 302
    form = client.get(opened["Location"])
    assert form.status_code == 200 and "Choose the new password of alice" in text_of(form)
    new = "another-Passphrase-88"
    done = client.post(opened["Location"], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302 and done["Location"] == reverse("home")
    alice.refresh_from_db()
    assert alice.check_password(new)
    assert client.get(reverse("home")).wsgi_request.user == alice  # logged in

    client.logout()
    again = client.get(made.path, follow=True)  # used: refused
    assert "This link no longer works" in text_of(again)
    assert client.post(made.path, {"new_password1": "x-Passphrase-99", "new_password2": "x-Passphrase-99"}).status_code == 200
    alice.refresh_from_db()
    assert alice.check_password(new)


def test_who_may_make_a_reset_link(campaign, gm, alice, bob, outsider):
    alice_seat = seat(campaign, alice)
    for who in (alice, bob, outsider):  # a player, another player, a stranger
        with pytest.raises(Forbidden):
            password_reset_link(campaign=campaign, membership=alice_seat, by=who)
    watcher = User.objects.create_user("watcher", password=STRONG)
    Membership.objects.create(campaign=campaign, user=watcher, role=Role.OBSERVER)
    assert password_reset_link(campaign=campaign, membership=seat(campaign, watcher), by=gm).user == watcher
    with pytest.raises(Forbidden) as caught:  # his own seat: the GM is no player of his table
        password_reset_link(campaign=campaign, membership=seat(campaign, gm), by=gm)
    assert "not a player or an observer" in caught.value.message

    # alice also plays at another GM's table: her new password would open it to this GM
    other_gm = User.objects.create_user("othergm", password=STRONG)
    other = campaign_create(name="Other Table", players=5, source=RandomSource(5), by=other_gm)
    seat_member(campaign=other, user=alice, role=Role.PLAYER, dynasty=house(other, "Spain"))
    with pytest.raises(Forbidden) as caught:
        password_reset_link(campaign=campaign, membership=alice_seat, by=gm)
    assert "also sits at a table you do not run" in caught.value.message
    # ... unless this GM runs that table too
    Membership.objects.filter(campaign=other, user=other_gm).update(user=gm)
    assert password_reset_link(campaign=campaign, membership=alice_seat, by=gm).user == alice

    # bob runs a campaign himself, and staff and superusers are the administrators'
    campaign_create(name="Bob's Table", players=5, source=RandomSource(6), by=bob)
    with pytest.raises(Forbidden) as caught:
        password_reset_link(campaign=campaign, membership=seat(campaign, bob), by=gm)
    assert "runs a campaign himself" in caught.value.message
    User.objects.filter(pk=watcher.pk).update(is_staff=True)
    with pytest.raises(Forbidden) as caught:
        password_reset_link(campaign=campaign, membership=seat(campaign, watcher), by=gm)
    assert "administrator" in caught.value.message


def test_the_players_page_shows_the_reset_link_with_its_qr_and_mails_it(client, campaign, gm, alice):
    client.force_login(gm)
    url = reverse("pages:players", args=[campaign.slug])
    assert "A password-reset link for alice" in text_of(client.get(url))
    answer = client.post(url, {"op": "reset", "membership": seat(campaign, alice)})
    page = text_of(answer)
    assert answer.status_code == 200 and "A new password for alice" in page
    link = re.search(r'id="reset-link-text" value="([^"]+)"', page).group(1)
    assert "/reset/" in link and f'aria-label="QR code: {link}"' in page
    assert mail.outbox == []  # no mail server here

    alice.email = "alice@example.org"
    alice.save(update_fields=["email"])
    with override_settings(EMAIL_HOST="smtp.example.org"):
        answer = client.post(url, {"op": "reset", "membership": seat(campaign, alice)})
    assert "it was also sent to alice@example.org" in text_of(answer)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.org"]
    assert "/reset/" in mail.outbox[0].body


def test_a_reset_refused_to_the_gm_says_why_and_the_others_get_404(client, campaign, gm, alice, bob):
    url = reverse("pages:players", args=[campaign.slug])
    campaign_create(name="Bob's Table", players=5, source=RandomSource(6), by=bob)
    client.force_login(gm)
    answer = client.post(url, {"op": "reset", "membership": seat(campaign, bob)})
    assert answer.status_code == 403 and "runs a campaign himself" in text_of(answer)
    client.force_login(alice)
    assert client.post(url, {"op": "reset", "membership": seat(campaign, bob)}).status_code == 404


def test_the_players_page_costs_the_same_whatever_the_links_and_members(client, campaign, gm):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(gm)
    url = reverse("pages:players", args=[campaign.slug])

    def queries() -> int:
        with CaptureQueriesContext(connection) as seen:
            assert client.get(url).status_code == 200
        return len(seen)

    inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=house(campaign, "Germany"), by=gm)
    few = queries()
    for n in range(8):
        made, _ = inv.invitation_create(campaign=campaign, role=Role.OBSERVER, by=gm)
        if n % 2:
            inv.invitation_revoke(campaign=campaign, invitation=made.pk, by=gm)
        watcher = User.objects.create_user(f"watcher{n}", password=STRONG)
        Membership.objects.create(campaign=campaign, user=watcher, role=Role.OBSERVER)
    inv.invitation_create(campaign=campaign, role=Role.PLAYER, dynasty=house(campaign, "Spain"), by=gm)
    assert queries() == few, "the Players page's queries grow with its links or members"
    assert few <= 20, few
