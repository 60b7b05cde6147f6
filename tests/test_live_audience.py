"""The live table counts for each member only the writes he may see (issue 30): a GM note, a house's
player note, a private transfer, a correction of it, a contract drafted, signed or edited by hand,
a house's Interphase, a desk save and an undo or redo of any of them move the GM's version and
those of the houses concerned, never an observer's nor another player's; a public write moves
everyone's. The poll answers, and a page carries, the viewer's own count."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign import live
from campaign.models import Campaign, Membership, Role, Step
from campaign.undo import new_action_key, redo, step_action, undo_step
from contracts.models import Contract
from contracts.services import contract_draft, contract_sign_party
from contracts.services.editing import contract_edit
from dynasties.models import Character, Dynasty, Posting, PostingKind
from dynasties.services import births_roll_all
from dynasties.services.editing import character_edit
from dynasties.services.interphase import interphase_run
from dynasties.services.notes import note_write
from dynasties.treasury import post, posting_reverse, treasury_transfer
from rules.dice import RandomSource
from rules.errors import RuleError
from rules.interphase import InterphaseEntry
from tests.factories import at_step, member_house_id, seat_member
from tests.test_desk_undo import _form_data


@pytest.fixture
def observer(campaign):
    user = get_user_model().objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


@pytest.fixture
def carol(campaign):
    """A third player, of a house that is party to nothing here."""
    user = get_user_model().objects.create_user("carol", password="carol-password-1")
    third = Dynasty.objects.filter(campaign=campaign, kind="player").exclude(crown__in=["England", "France"]).order_by("pk")[0]
    seat_member(campaign=campaign, user=user, role=Role.PLAYER, dynasty=third)
    return user


@pytest.fixture
def table(campaign, gm, alice, bob, carol, observer):
    """Everyone at the table, by name, each logged in on his own device: the GM, Alice (England),
    Bob (France), Carol, an observer."""
    devices = {}
    for name, user in {"gm": gm, "alice": alice, "bob": bob, "carol": carol, "observer": observer}.items():
        devices[name] = Client()
        devices[name].force_login(user)
    return devices


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def versions(campaign: Campaign, table: dict) -> dict[str, int]:
    """The version each one's poll answers now (asked with no version: it says the one there is)."""
    counts = {}
    for name, device in table.items():
        answer = device.get(reverse("pages:live", args=[campaign.slug]))
        assert answer.status_code == 200, (name, answer.status_code)
        counts[name] = answer.json()["version"]
    return counts


def moved(campaign: Campaign, table: dict, write) -> set[str]:
    """Whose version the write moved (each by one at least; none went back)."""
    before = versions(campaign, table)
    write()
    after = versions(campaign, table)
    assert all(after[name] >= before[name] for name in table), (before, after)
    return {name for name in table if after[name] > before[name]}


EVERYONE = {"gm", "alice", "bob", "carol", "observer"}


# --- secret writes: the GM and the houses concerned, no one else ---------------------------------


def test_a_gm_note_moves_the_gm_s_version_alone(campaign, table, gm):
    england = house(campaign, "England")
    assert moved(campaign, table, lambda: note_write(campaign, audience="gm", text="A plot.", dynasty=england, by=gm)) == {"gm"}
    person = Character.objects.filter(campaign=campaign, controlled_by=england).first()
    on_person = moved(campaign, table, lambda: note_write(campaign, audience="gm", text="Poison?", character=person, by=gm))
    assert on_person == {"gm"}
    assert moved(campaign, table, lambda: note_write(campaign, audience="gm", text="Secret.", by=gm)) == {"gm"}


def test_a_player_s_note_moves_his_house_and_the_gm(campaign, table, alice):
    england = house(campaign, "England")
    person = Character.objects.filter(campaign=campaign, controlled_by=england).first()
    own = moved(campaign, table, lambda: note_write(campaign, audience="player", text="My plans.", dynasty=england, by=alice))
    assert own == {"gm", "alice"}
    of_his = moved(campaign, table, lambda: note_write(campaign, audience="player", text="Heir.", character=person, by=alice))
    assert of_his == {"gm", "alice"}


def test_the_campaign_s_player_note_moves_every_player_but_not_the_observer(campaign, table, gm):
    players = moved(campaign, table, lambda: note_write(campaign, audience="player", text="To the players.", by=gm))
    assert players == {"gm", "alice", "bob", "carol"}


def test_a_private_transfer_and_its_correction_move_the_payer_the_payee_and_the_gm(campaign, table, alice, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    post(campaign, payer=None, payee=england, amount=50, kind=PostingKind.OTHER, reason="purse")
    gift = []

    def give() -> None:
        gift.append(treasury_transfer(campaign=campaign, payer=england, payee=france, amount=10, reason="A gift", by=alice))

    assert moved(campaign, table, give) == {"gm", "alice", "bob"}
    assert moved(campaign, table, lambda: posting_reverse(campaign=campaign, posting=gift[0], reason="sent twice", by=gm)) == {
        "gm",
        "alice",
        "bob",
    }
    grant = moved(
        campaign, table, lambda: treasury_transfer(campaign=campaign, payer=None, payee=england, amount=5, reason="Alms", by=gm)
    )
    assert grant == {"gm", "alice"}


def test_a_contract_drafted_signed_and_edited_moves_its_parties_and_the_gm(campaign, table, alice, bob, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    drafted: list[Contract] = []

    def draft() -> None:
        drafted.append(
            contract_draft(campaign=campaign, kind="agreement", title="Secret pact", parties=[england, france], by=alice)
        )

    assert moved(campaign, table, draft) == {"gm", "alice", "bob"}
    deed = drafted[0]
    signed = moved(campaign, table, lambda: contract_sign_party(campaign=campaign, contract=deed, dynasty=england, by=alice))
    assert signed == {"gm", "alice", "bob"}
    edited = moved(campaign, table, lambda: contract_edit(campaign=campaign, contract=deed, changes={"title": "Pact"}, by=gm))
    assert edited == {"gm", "alice", "bob"}
    in_force = moved(campaign, table, lambda: contract_sign_party(campaign=campaign, contract=deed, dynasty=france, by=bob))
    assert in_force == {"gm", "alice", "bob"}  # the last signature: in force, its lines the parties'
    assert Contract.objects.get(pk=deed.pk).state == "in_force"


def test_a_house_s_interphase_moves_that_house_and_the_gm(campaign, table, gm):
    campaign = at_step(Campaign.objects.get(pk=campaign.pk), Step.INTERPHASE, year=1305)
    england = house(campaign, "England")
    post(campaign, payer=None, payee=england, amount=10, kind=PostingKind.OTHER, reason="purse")

    def run() -> None:
        interphase_run(
            campaign=campaign,
            dynasty=england,
            entry=InterphaseEntry(provinces=10, tax_rate=7, home_provinces=8, home_in_rebellion=0, armies_kept=1, fleets_kept=0),
            by=gm,
        )

    assert moved(campaign, table, run) == {"gm", "alice"}


def test_a_refused_write_moves_no_one(campaign, table, alice):
    england, france = house(campaign, "England"), house(campaign, "France")

    def refused() -> None:
        with pytest.raises(RuleError):
            treasury_transfer(campaign=campaign, payer=england, payee=france, amount=10**9, reason="Too much", by=alice)

    assert moved(campaign, table, refused) == set()


# --- public writes: everyone ---------------------------------------------------------------------


def test_a_public_write_moves_everyone(campaign, table, gm):
    england = house(campaign, "England")
    assert (
        moved(campaign, table, lambda: note_write(campaign, audience="public", text="A feast.", dynasty=england, by=gm))
        == EVERYONE
    )
    assert moved(campaign, table, lambda: births_roll_all(campaign=campaign, source=RandomSource(1), by=gm)) == EVERYONE
    person = Character.objects.filter(campaign=campaign).order_by("pk").first()
    hand = moved(
        campaign, table, lambda: character_edit(campaign=campaign, character=person, changes={"given_name": "Ed"}, by=gm)
    )
    assert hand == EVERYONE  # a hand edit of what every member sees (its chronicle line is the GM's)


# --- undo and redo: seen by whoever saw what they take back --------------------------------------


def _act(campaign, gm, action) -> None:
    step_action(campaign=campaign, key=new_action_key(), label="Treasury", action=action, by=gm)


@pytest.mark.parametrize("copies", [False, True], ids=["change log", "whole copies"])
def test_an_undo_and_a_redo_of_a_private_write_move_only_whom_it_concerned(campaign, table, gm, settings, copies):
    settings.REGNAL_UNDO_SNAPSHOTS = copies
    england, france = house(campaign, "England"), house(campaign, "France")
    post(campaign, payer=None, payee=england, amount=50, kind=PostingKind.OTHER, reason="purse")
    births_roll_all(campaign=campaign, source=RandomSource(1), by=gm)  # the step's public work, before the checkpoint
    write = lambda c: treasury_transfer(campaign=c, payer=england, payee=france, amount=7, reason="Bribe", by=gm)  # noqa: E731
    assert moved(campaign, table, lambda: _act(campaign, gm, write)) == {"gm", "alice", "bob"}
    assert moved(campaign, table, lambda: undo_step(campaign=campaign, key=new_action_key(), by=gm)) == {"gm", "alice", "bob"}
    assert not Posting.objects.filter(campaign=campaign, reason="Bribe").exists()
    if not copies:  # a whole copy keeps no redo
        assert moved(campaign, table, lambda: redo(campaign=campaign, key=new_action_key(), by=gm)) == {"gm", "alice", "bob"}
        assert Posting.objects.filter(campaign=campaign, reason="Bribe").exists()


def test_an_undo_of_a_step_that_showed_things_moves_everyone(campaign, table, gm):
    _act(campaign, gm, lambda c: births_roll_all(campaign=c, source=RandomSource(1), by=gm))
    assert moved(campaign, table, lambda: undo_step(campaign=campaign, key=new_action_key(), by=gm)) == EVERYONE
    assert moved(campaign, table, lambda: redo(campaign=campaign, key=new_action_key(), by=gm)) == EVERYONE


# --- the desk ------------------------------------------------------------------------------------


def _desk_save(client, name: str, pk: int, **changes) -> None:
    change = reverse(f"admin:{name}_change", args=[pk])
    data = _form_data(client.get(change))
    data.update(changes)
    response = client.post(change, data)
    assert response.status_code == 302, response.content.decode()[:2000]


def test_a_desk_save_moves_whoever_sees_the_row(campaign, table, gm, admin_client):
    england, france = house(campaign, "England"), house(campaign, "France")
    deed = contract_draft(campaign=campaign, kind="agreement", title="Quiet deal", parties=[england, france], by=gm)
    person = Character.objects.filter(campaign=campaign).order_by("pk").first()
    title = moved(campaign, table, lambda: _desk_save(admin_client, "contracts_contract", deed.pk, title="Louder deal"))
    assert title == {"gm", "alice", "bob"}  # a contract's: its parties'
    assert Contract.objects.get(pk=deed.pk).title == "Louder deal"
    named = moved(campaign, table, lambda: _desk_save(admin_client, "dynasties_character", person.pk, given_name="Corrected"))
    assert named == EVERYONE


def test_a_seat_moved_at_the_desk_moves_everyone(campaign, table, admin_client, carol):
    seat = Membership.objects.get(campaign=campaign, user=carol)
    spain = (
        Dynasty.objects.filter(campaign=campaign, kind="player")
        .exclude(pk=member_house_id(seat))
        .exclude(crown__in=["England", "France"])[0]
    )
    assert moved(campaign, table, lambda: _desk_save(admin_client, "campaign_membership", seat.pk, dynasty=str(spain.pk))) >= {
        "gm",
        "alice",
        "bob",
        "observer",
    }  # who plays whom is on every member's dashboard (Carol's own count is now her new house's)


# --- the poll and the page --------------------------------------------------------------------------


def test_the_observer_s_poll_and_page_stay_while_the_gm_s_move_on_a_secret(client, campaign, gm, observer):
    page = reverse("pages:dashboard", args=[campaign.slug])
    client.force_login(observer)
    shown = int(re.search(r'data-version="(\d+)"', client.get(page).content.decode())[1])
    assert client.get(reverse("pages:live", args=[campaign.slug]), {"v": shown}).status_code == 204  # his own count
    note_write(campaign, audience="gm", text="The observer must not know.", by=gm)
    treasury_transfer(campaign=campaign, payer=None, payee=house(campaign, "England"), amount=3, reason="Hush", by=gm)
    answer = client.get(reverse("pages:live", args=[campaign.slug]), {"v": shown})
    assert answer.status_code == 204  # nothing he may see happened
    assert f'data-version="{shown}"' in client.get(page).content.decode()
    client.force_login(gm)
    everything = Campaign.objects.values_list("live_version", flat=True).get(pk=campaign.pk)
    assert client.get(reverse("pages:live", args=[campaign.slug]), {"v": shown}).json() == {"version": everything}
    assert f'data-version="{everything}"' in client.get(page).content.decode()


def test_a_member_s_version_counts_only_writes_he_sees(campaign, table, gm):
    """The number itself tells nothing of the secret writes between two public ones."""
    england = house(campaign, "England")
    before = versions(campaign, table)
    note_write(campaign, audience="public", text="One.", dynasty=england, by=gm)
    for n in range(3):
        note_write(campaign, audience="gm", text=f"Hidden {n}.", dynasty=england, by=gm)
    note_write(campaign, audience="public", text="Two.", dynasty=england, by=gm)
    after = versions(campaign, table)
    assert after["observer"] - before["observer"] == 2
    assert after["gm"] - before["gm"] == 5


# --- the lock --------------------------------------------------------------------------------------


@pytest.mark.parametrize("audience", ["GM", "ALL", "PLAYERS", "houses"])
def test_the_lock_is_one_statement_whoever_sees_the_write(campaign, audience):
    from campaign.permissions import Seen

    seen = Seen.by(1, 2) if audience == "houses" else getattr(Seen, audience)
    stored = Campaign.objects.get(pk=campaign.pk)
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        locked = live.lock_and_raise(campaign.pk, seen)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1 and statements[0].startswith("UPDATE"), statements
    assert locked.live_version == stored.live_version + 1
    for key in seen.counters():
        assert locked.live_seen[key] == stored.live_seen.get(key, 0) + 1
    assert {k: v for k, v in locked.live_seen.items() if k not in seen.counters()} == {
        k: v for k, v in stored.live_seen.items() if k not in seen.counters()
    }
    assert Campaign.objects.get(pk=campaign.pk).live_seen == locked.live_seen


def test_a_line_whose_readers_the_lock_named_costs_no_second_statement(campaign, gm):
    england = house(campaign, "England")
    with CaptureQueriesContext(connection) as queries:
        treasury_transfer(campaign=campaign, payer=None, payee=england, amount=1, reason="Alms", by=gm)
    updates = [q["sql"] for q in queries if re.match(r"\s*UPDATE", q["sql"]) and "campaign_campaign" in q["sql"]]
    assert len(updates) == 1, updates


def test_the_table_screen_follows_the_public_writes_whoever_opened_it(client, campaign, gm):
    """The table screen is for the whole table (a projector): opened by the GM, it must not move on
    his secret writes, which everyone in the room would see."""
    client.force_login(gm)
    html = client.get(reverse("pages:table", args=[campaign.slug])).content.decode()
    found = re.search(r'<main data-live="([^"]+)" data-version="(\d+)"', html)
    assert found is not None and found[1] == reverse("pages:live", args=[campaign.slug]) + "?as=public"
    poll, shown = found[1], int(found[2])
    assert client.get(f"{poll}&v={shown}").status_code == 204
    note_write(campaign, audience="gm", text="Behind the screen.", by=gm)
    assert client.get(f"{poll}&v={shown}").status_code == 204
    note_write(campaign, audience="public", text="For all.", by=gm)
    assert client.get(f"{poll}&v={shown}").json() == {"version": shown + 1}
    dashboard = client.get(reverse("pages:dashboard", args=[campaign.slug])).content.decode()
    everything = Campaign.objects.values_list("live_version", flat=True).get(pk=campaign.pk)
    assert f'data-version="{everything}"' in dashboard  # his own pages follow every write


def test_without_returning_the_lock_counts_its_audience_in_an_update_then_a_read(campaign, monkeypatch):
    from campaign.permissions import Seen

    monkeypatch.setattr(connection.features, "can_return_columns_from_insert", False)
    england = house(campaign, "England").pk
    stored = Campaign.objects.get(pk=campaign.pk)
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        locked = live.lock_and_raise(campaign.pk, Seen.by(england))
        live.reveal(locked, Seen.ALL)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert [s.split()[0] for s in statements] == ["UPDATE", "SELECT", "UPDATE", "SELECT"], statements
    now = Campaign.objects.get(pk=campaign.pk)
    assert now.live_version == stored.live_version + 1
    assert now.live_seen[str(england)] == stored.live_seen.get(str(england), 0) + 1
    assert now.live_seen["public"] == stored.live_seen.get("public", 0) + 1
    assert locked.live_seen == now.live_seen
