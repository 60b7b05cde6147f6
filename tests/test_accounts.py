"""Issue 30: no account may copy another's username up to case ("GMa" beside "gmA") or by look-alike
letters (a Cyrillic "А" for a Latin "A"), whatever door makes it: the join page, the admin's user
forms, ``createsuperuser``, code that saves a user (campaign.accounts); and a link for a seat
already taken does not say who took it."""

from __future__ import annotations

import html
import importlib
import io

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from campaign import accounts
from campaign.models import AccountName, Membership, Role
from campaign.services import membership_add
from dynasties import invitations as inv
from dynasties.models import Dynasty
from rules.errors import RuleError

User = get_user_model()
STRONG = "a-long-Passphrase-77"
CYRILLIC_A = "\u0410"  # А
CYRILLIC_POPE = "\u0440\u043e\u0440\u0435"  # роре: every letter Cyrillic, and it reads "pope"


def _link(campaign, gm, crown=None):
    dynasty = Dynasty.objects.get(campaign=campaign, crown=crown) if crown else None
    _, token = inv.invitation_create(campaign=campaign, role=Role.PLAYER if crown else Role.OBSERVER, dynasty=dynasty, by=gm)
    return token


def _join(token, username):
    return inv.account_join(token=token, username=username, password=STRONG)


def _refused(call, field_code):
    users, names = User.objects.count(), AccountName.objects.count()
    with pytest.raises(RuleError) as caught:
        call()
    assert (User.objects.count(), AccountName.objects.count()) == (users, names), "a refusal makes no account"
    assert caught.value.fields == {"username": field_code}, caught.value.fields
    return caught.value.message


@pytest.mark.django_db
def test_a_new_account_may_not_copy_a_name_up_to_case_or_look_alike_letters(campaign, gm):
    User.objects.create_user("gmA", password=STRONG)
    User.objects.create_user("pope", password=STRONG)
    User.objects.create_user("emma", password=STRONG)
    User.objects.create_user("OTTO", password=STRONG)
    token = _link(campaign, gm)

    message = _refused(lambda: _join(token, "GMa"), "taken")
    assert message == "The username “GMa” is taken (a username is the same whatever its capitals): choose another."
    _refused(lambda: _join(token, "GM"), "taken")  # the fixture's "gm"
    message = _refused(lambda: _join(token, f"gm{CYRILLIC_A}"), "mixed_scripts")
    assert message.startswith(f"“gm{CYRILLIC_A}” mixes the letters of Cyrillic and Latin (“{CYRILLIC_A}” is Cyrillic)")
    assert message.endswith("write your username in one alphabet.")
    message = _refused(lambda: _join(token, CYRILLIC_POPE), "confusable")  # one script, yet it reads "pope"
    assert "looks like the name of an existing account" in message and message.endswith("choose another username.")
    _refused(lambda: _join(token, "ernrna"), "confusable")  # "rn" for "m"
    _refused(lambda: _join(token, "0TT0"), "confusable")  # zeros for capital O
    _refused(lambda: _join(token, "\uff47\uff4d\uff21"), "taken")  # ｇｍＡ, full-width: normalised (NFKC) to "gmA"

    # names that only resemble are not refused: another letter, another script written alone, Japanese
    for name in ("gmB", "pape", "Иван", "たなか太郎", "Li李"):
        assert accounts.username_problem(name) is None, name
    user, membership = _join(token, "emmy")
    assert membership.user == user and user.get_username() == "emmy"
    row = AccountName.objects.get(user=user)
    assert (row.folded, row.skeleton) == accounts.username_keys("emmy")


def test_the_skeleton_is_unicodes_and_costs_a_pass_over_the_name():
    same = [
        ("gmA", f"gm{CYRILLIC_A}"),
        ("pope", CYRILLIC_POPE),
        ("emma", "ernrna"),
        ("OTTO", "0TT0"),
        ("bill", "bi11"),
        ("gm", "ｇｍ"),
    ]
    for one, other in same:
        assert accounts.skeleton(one) == accounts.skeleton(other), (one, other)
    # case is its own check, not folded into the skeleton: "i" and "l" (the small and the capital "I") stay apart
    for one, other in (("newspain", "newspaln"), ("otto", "0tt0"), ("player1", "player2"), ("GMa", "gmA")):
        assert accounts.skeleton(one) != accounts.skeleton(other), (one, other)
    assert accounts.folded("GMa") == accounts.folded("gmA") == "gma"
    assert accounts.folded("ИВАН") == accounts.folded("иван")  # Unicode's folding, where SQLite's iexact folds ASCII only


@pytest.mark.django_db
def test_the_join_page_says_what_to_change_beside_the_name(client, campaign, gm):
    path = reverse("join", args=[_link(campaign, gm)])
    before = User.objects.count()
    for name, said in (
        ("GM", "The username “GM” is taken (a username is the same whatever its capitals): choose another."),
        (f"Gm{CYRILLIC_A}", f"“Gm{CYRILLIC_A}” mixes the letters of Cyrillic and Latin"),
        ("Ａlice", "The username “Alice” is taken"),  # normalised first, as Django's UsernameField does
    ):
        page = client.post(path, {"username": name, "password1": STRONG, "password2": STRONG})
        text = page.content.decode()
        assert page.status_code == 400 and said in text, text[:3000]
        assert 'aria-invalid="true"' in text or "errorlist" in text  # beside the field
    assert User.objects.count() == before
    assert client.post(path, {"username": "dora", "password1": STRONG, "password2": STRONG}).status_code == 302


@pytest.mark.django_db
def test_every_other_door_that_saves_an_account_is_guarded(gm):
    with pytest.raises(ValidationError) as caught:
        User.objects.create_user("GM", password=STRONG)
    assert "is taken" in caught.value.message_dict["username"][0]
    with pytest.raises(ValidationError):
        User.objects.create_user("ｇｍ")  # not NFKC: "write it “gm”"
    with pytest.raises(CommandError, match="is taken"):
        call_command("createsuperuser", "--noinput", "--username", "Gm", "--email", "gm@example.org", stdout=io.StringIO())
    with pytest.raises(CommandError, match="mixes the letters of Cyrillic and Latin"):
        call_command(
            "createsuperuser", "--noinput", "--username", f"r{CYRILLIC_A}t", "--email", "r@example.org", stdout=io.StringIO()
        )
    assert User.objects.count() == 1

    gm.first_name = "Geoffrey"
    gm.save()  # a save that keeps the name is not checked again
    gm.username = "grn"
    gm.save()  # a rename is checked against the other accounts: "grn" looks like his own name only
    assert AccountName.objects.get(user=gm).skeleton == accounts.username_keys("grn")[1]
    assert accounts.username_problem("gm") is not None and accounts.username_problem("gm", user=gm) is None
    gm.username = "geoffrey"
    gm.save()
    assert accounts.username_problem("gm") is None  # the old name is free again


@pytest.mark.django_db
def test_the_admins_user_forms_ask_the_same(client, gm, alice):
    root = User.objects.create_superuser("root", password=STRONG)
    client.force_login(root)
    add = client.post(
        reverse("admin:auth_user_add"), {"username": "ALICE", "password1": STRONG, "password2": STRONG, "usable_password": "true"}
    )
    assert add.status_code == 200 and "The username “ALICE” is taken" in add.content.decode()
    change = client.get(reverse("admin:auth_user_change", args=[alice.pk]))
    assert change.status_code == 200
    form = change.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k not in ("groups", "user_permissions", "password")}
    data.update({"username": "gM", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00"})
    renamed = client.post(reverse("admin:auth_user_change", args=[alice.pk]), data)
    assert renamed.status_code == 200 and "The username “gM” is taken" in renamed.content.decode()
    alice.refresh_from_db()
    assert alice.username == "alice"
    data["username"] = "alicia"
    assert client.post(reverse("admin:auth_user_change", args=[alice.pk]), data).status_code == 302
    assert User.objects.get(pk=alice.pk).username == "alicia"


@pytest.mark.django_db(transaction=True)
def test_two_doors_at_once_meet_the_unique_keys(gm, monkeypatch):
    """A look-alike let in by two doors at the same moment (both checked before either wrote) is
    refused by the database's unique key, and said so."""
    monkeypatch.setattr(accounts, "username_problem", lambda name, user=None: None)
    with pytest.raises(RuleError) as caught:
        accounts.account_create(username="Gm", password=STRONG)
    assert caught.value.message == "The username “Gm” was taken a moment ago: choose another."
    assert list(User.objects.values_list("username", flat=True)) == ["gm"]


@pytest.mark.django_db
def test_accounts_from_before_the_rule_keep_their_names_and_bar_their_look_alikes():
    old = User.objects.bulk_create([User(username="Tom"), User(username="TOM"), User(username="T0M")])  # no guard on bulk
    AccountName.objects.all().delete()
    migration = importlib.import_module("campaign.migrations.0016_account_name")
    migration.keep_skeletons(django_apps, None)
    rows = {r.user_id: (r.folded, r.skeleton) for r in AccountName.objects.all()}
    tom, shout, zero = (rows[u.pk] for u in old)
    assert tom == accounts.username_keys("Tom")  # the oldest keeps its keys
    assert shout == (None, accounts.username_keys("TOM")[1])  # its case is Tom's
    assert zero == (accounts.username_keys("T0M")[0], None)  # it looks like "TOM"
    assert accounts.username_problem("tom") is not None and accounts.username_problem("TOM") is not None
    louder = User.objects.get(username="TOM")
    louder.email = "tom@example.org"
    louder.save()  # an old account whose name is another's is saved as ever


# --- a link for a seat already taken ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_link_for_a_taken_seat_does_not_say_who_took_it(client, campaign, gm, outsider):
    second = _link(campaign, gm, "Germany")
    newspain = User.objects.create_user("newspain", password=STRONG)
    # a seat has one waiting link (issue 34); the GM seats someone else there at the desk meanwhile
    germany = Dynasty.objects.get(campaign=campaign, crown="Germany")
    membership_add(campaign=campaign, user=newspain, role=Role.PLAYER, dynasty=germany, by=gm)
    said = "Hapsburg of Germany has a player already: this link's seat is taken. Ask the game master for a new link."

    with pytest.raises(RuleError) as caught:
        inv.invitation_accept(token=second, user=outsider)
    assert caught.value.message == said
    with pytest.raises(RuleError) as caught:
        _join(second, "dora")
    assert caught.value.message == said

    path = reverse("join", args=[second])
    for who in (None, outsider):
        if who is None:
            client.logout()
        else:
            client.force_login(who)
        for answer in (client.get(path), client.post(path, {"username": "dora", "password1": STRONG, "password2": STRONG})):
            text = html.unescape(answer.content.decode())
            assert said in text and "newspain" not in text, text[:3000]
    assert not Membership.objects.filter(user=outsider).exists() and not User.objects.filter(username="dora").exists()
