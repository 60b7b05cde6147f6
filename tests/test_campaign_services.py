"""campaign.services: members, rule tables (RULES.md: tables are data, editable, defaults restorable)
and the demo campaign."""

from __future__ import annotations

import copy
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from campaign.models import Campaign, Membership, Role, RuleTable
from campaign.permissions import SYSTEM_ACTOR, may_use_desk
from campaign.services import membership_add, table_restore_defaults, table_update
from dynasties.models import Dynasty
from dynasties.services import campaign_create
from operations.services import demo_create
from rules.dice import RandomSource
from rules.errors import InvalidTable, RuleError
from rules.tables import DEFAULT_CHARACTERISTIC_BANDS, DEFAULT_SURVIVAL
from tests.factories import member_house

# Members --------------------------------------------------------------------------------------


def test_a_player_joins_with_a_dynasty_of_the_campaign(campaign, outsider):
    germany = Dynasty.objects.get(campaign=campaign, crown="Germany")
    m = membership_add(campaign=campaign, user=outsider, role=Role.PLAYER, dynasty=germany, by=SYSTEM_ACTOR)
    assert member_house(Membership.objects.get(pk=m.pk)) == germany
    assert m.role == Role.PLAYER


def test_a_player_without_a_dynasty_is_refused(campaign, outsider):
    with pytest.raises(RuleError, match="A player needs a dynasty"):
        membership_add(campaign=campaign, user=outsider, role=Role.PLAYER, by=SYSTEM_ACTOR)
    assert not Membership.objects.filter(user=outsider).exists()


def test_a_player_cannot_play_another_campaigns_dynasty(campaign, outsider, gm):
    other = campaign_create(name="Other", players=3, source=RandomSource(1), by=gm)
    foreign = Dynasty.objects.get(campaign=other, crown="England")
    with pytest.raises(RuleError, match="belongs to another campaign"):
        membership_add(campaign=campaign, user=outsider, role=Role.PLAYER, dynasty=foreign, by=SYSTEM_ACTOR)
    assert not Membership.objects.filter(user=outsider).exists()


def test_a_player_cannot_play_the_aristocratic_family(gm, outsider):
    three = campaign_create(name="Three", players=3, source=RandomSource(2), by=gm)
    family = Dynasty.objects.get(campaign=three, kind="aristocratic")
    with pytest.raises(RuleError, match="not a player dynasty"):
        membership_add(campaign=three, user=outsider, role=Role.PLAYER, dynasty=family, by=SYSTEM_ACTOR)


def test_a_user_joins_a_campaign_once(campaign, alice):
    with pytest.raises(RuleError, match="already a member") as info:
        membership_add(campaign=campaign, user=alice, role=Role.OBSERVER, by=SYSTEM_ACTOR)
    assert info.value.code == "already_member"
    assert Membership.objects.filter(campaign=campaign, user=alice).count() == 1


def test_an_observer_needs_no_dynasty(campaign, outsider):
    m = membership_add(campaign=campaign, user=outsider, role=Role.OBSERVER, by=SYSTEM_ACTOR)
    assert member_house(m) is None
    assert m.get_role_display() == "Observer"


def test_an_unknown_role_is_refused(campaign, outsider):
    with pytest.raises(RuleError, match="Unknown role 'king'"):
        membership_add(campaign=campaign, user=outsider, role="king", by=SYSTEM_ACTOR)


# Rule tables ----------------------------------------------------------------------------------


def test_table_update_saves_the_cleaned_table(campaign):
    edited = copy.deepcopy(DEFAULT_SURVIVAL)
    edited[0]["need"] = 2
    table = table_update(campaign=campaign, key="survival", data=edited, by=SYSTEM_ACTOR)
    assert RuleTable.objects.get(pk=table.pk).data[0] == {"age": 15, "need": 2}
    assert RuleTable.objects.filter(campaign=campaign, key="survival").count() == 1


def test_table_update_drops_unknown_columns(campaign):
    edited = copy.deepcopy(DEFAULT_SURVIVAL)
    edited[0]["note"] = "house rule"
    table_update(campaign=campaign, key="survival", data=edited, by=SYSTEM_ACTOR)
    assert RuleTable.objects.get(campaign=campaign, key="survival").data[0] == {"age": 15, "need": 3}


def test_table_update_refuses_a_bad_table_and_keeps_the_old_one(campaign):
    bad = [{"age": 20, "need": 3}, {"age": 15, "need": 3}]
    with pytest.raises(InvalidTable, match="ages must increase"):
        table_update(campaign=campaign, key="survival", data=bad, by=SYSTEM_ACTOR)
    assert RuleTable.objects.get(campaign=campaign, key="survival").data == DEFAULT_SURVIVAL


def test_table_update_refuses_an_unknown_table(campaign):
    with pytest.raises(InvalidTable, match="no table called 'gold'"):
        table_update(campaign=campaign, key="gold", data=[], by=SYSTEM_ACTOR)
    assert not RuleTable.objects.filter(campaign=campaign, key="gold").exists()


def test_table_update_creates_a_missing_table(campaign):
    RuleTable.objects.filter(campaign=campaign, key="characteristic_bands").delete()
    table_update(campaign=campaign, key="characteristic_bands", data=DEFAULT_CHARACTERISTIC_BANDS, by=SYSTEM_ACTOR)
    assert RuleTable.objects.get(campaign=campaign, key="characteristic_bands").data == DEFAULT_CHARACTERISTIC_BANDS


def test_restore_defaults_of_one_table_leaves_the_others(campaign):
    survival = RuleTable.objects.get(campaign=campaign, key="survival")
    survival.data = [{"age": 15, "need": 9}]
    survival.save()
    bands = copy.deepcopy(DEFAULT_CHARACTERISTIC_BANDS)
    bands[2]["value"] = 1
    table_update(campaign=campaign, key="characteristic_bands", data=bands, by=SYSTEM_ACTOR)

    restored = table_restore_defaults(campaign=campaign, keys=["survival"], by=SYSTEM_ACTOR)

    assert [t.key for t in restored] == ["survival"]
    assert RuleTable.objects.get(campaign=campaign, key="survival").data == DEFAULT_SURVIVAL
    assert RuleTable.objects.get(campaign=campaign, key="characteristic_bands").data[2]["value"] == 1


def test_restore_all_defaults_recreates_missing_tables(campaign):
    RuleTable.objects.filter(campaign=campaign).delete()
    restored = table_restore_defaults(campaign=campaign, by=SYSTEM_ACTOR)
    assert sorted(t.key for t in restored) == ["characteristic_bands", "survival"]
    tables = {t.key: t.data for t in RuleTable.objects.filter(campaign=campaign)}
    assert tables == {"survival": DEFAULT_SURVIVAL, "characteristic_bands": DEFAULT_CHARACTERISTIC_BANDS}


def test_restored_defaults_are_a_copy_not_the_shipped_objects(campaign):
    [table] = table_restore_defaults(campaign=campaign, keys=["survival"], by=SYSTEM_ACTOR)
    table.data[0]["need"] = 99
    assert DEFAULT_SURVIVAL[0]["need"] == 3


def test_restore_defaults_refuses_an_unknown_key(campaign):
    with pytest.raises(InvalidTable, match="no table called 'gold'"):
        table_restore_defaults(campaign=campaign, keys=["survival", "gold"], by=SYSTEM_ACTOR)


# The demo campaign ----------------------------------------------------------------------------

CROWNS = ["england", "france", "germany", "italy", "spain"]


def test_demo_creates_a_campaign_a_gm_and_five_players_whose_passwords_work(db):
    result = demo_create()
    assert result.created
    campaign = Campaign.objects.get(slug="demo")
    assert campaign.name == "Demo Campaign"
    assert [x.username for x in result.logins] == ["gm", *CROWNS]

    gm = get_user_model().objects.get(username="gm")
    assert not gm.is_staff and not gm.is_superuser  # an ordinary account: being the GM gives him the desk
    assert may_use_desk(gm)
    assert Membership.objects.get(campaign=campaign, user=gm).role == Role.GM
    for crown in CROWNS:
        m = Membership.objects.get(campaign=campaign, user__username=crown)
        assert m.role == Role.PLAYER
        assert member_house(m).crown.lower() == crown
        assert not m.user.is_staff

    for login in result.logins:
        assert login.password
        assert len(login.password) >= 12
        assert Client().login(username=login.username, password=login.password), login.username
    assert len({x.password for x in result.logins}) == 6


def test_demo_is_idempotent_and_keeps_the_passwords(db):
    first = demo_create()
    second = demo_create()
    assert not second.created
    assert second.campaign.pk == first.campaign.pk
    assert Campaign.objects.filter(slug="demo").count() == 1
    assert get_user_model().objects.count() == 6
    assert sorted(x.username for x in second.logins) == sorted(["gm", *CROWNS])
    assert all(x.password is None for x in second.logins)
    for login in first.logins:  # the old passwords still work
        assert Client().login(username=login.username, password=login.password)


def test_demo_reset_passwords_sets_new_working_passwords(db):
    first = demo_create()
    reset = demo_create(reset_passwords=True)
    old = {x.username: x.password for x in first.logins}
    for login in reset.logins:
        assert login.password
        assert login.password != old[login.username]
        assert Client().login(username=login.username, password=login.password)
        assert not Client().login(username=login.username, password=old[login.username])


def test_demo_command_prints_the_logins(db):
    out = StringIO()
    call_command("demo", stdout=out)
    text = out.getvalue()
    assert "http://127.0.0.1:8000" in text
    passwords = {}
    for line in text.splitlines():
        cells = line.split()
        if cells and cells[0] in ["gm", *CROWNS]:
            passwords[cells[0]] = cells[1]
    assert sorted(passwords) == sorted(["gm", *CROWNS])
    for username, password in passwords.items():
        assert Client().login(username=username, password=password)

    again = StringIO()
    call_command("demo", stdout=again)
    assert "exists already" in again.getvalue()
    assert "--reset-passwords" in again.getvalue()
    assert all(p not in again.getvalue() for p in passwords.values())
    assert "england" in again.getvalue()
