"""Secrecy (RULES.md E7): the role x object matrix through the one permission layer."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Membership, Role
from campaign.permissions import can_view, can_view_exchequer, visible
from contracts.models import Contract
from dynasties import treasury
from dynasties.models import Character, Dynasty, Posting

ROLES = ["gm", "alice", "bob", "observer", "outsider"]  # alice plays England, bob France


@pytest.fixture
def cast(campaign, gm, alice, bob, outsider, django_user_model):
    watcher = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=watcher, role=Role.OBSERVER)
    england, france, spain = (Dynasty.objects.get(campaign=campaign, crown=c) for c in ("England", "France", "Spain"))
    eng_post = treasury.post(campaign, payer=None, payee=england, amount=10, kind="tax", reason="English taxes")
    fra_post = treasury.post(campaign, payer=None, payee=france, amount=10, kind="tax", reason="French taxes")
    eng_spa = Contract.objects.create(campaign=campaign, kind="agreement", title="England-Spain", start_year=1300)
    eng_spa.parties.set([england, spain])
    fra_spa = Contract.objects.create(campaign=campaign, kind="agreement", title="France-Spain", start_year=1300)
    fra_spa.parties.set([france, spain])
    money = ChronicleEntry.objects.create(
        campaign=campaign,
        year=1300,
        step="births",
        kind="payment_owed",
        text="30 Crowns to England",
        data={"dynasty": england.pk},
        audience="parties",
        readers=f",{england.pk},",
    )
    public = ChronicleEntry.objects.create(
        campaign=campaign, year=1300, step="births", kind="birth", text="A son is born", audience="public"
    )
    users = {"gm": gm, "alice": alice, "bob": bob, "observer": watcher, "outsider": outsider}
    objects = {
        "campaign": campaign,
        "character": Character.objects.filter(campaign=campaign, controlled_by=france).first(),
        "england posting": eng_post,
        "france posting": fra_post,
        "england-spain contract": eng_spa,
        "france-spain contract": fra_spa,
        "england money line": money,
        "birth line": public,
    }
    return users, objects, {"england": england, "france": france}


#                        gm     alice  bob    observer outsider
MATRIX = {
    "campaign": (True, True, True, True, False),
    "character": (True, True, True, True, False),
    "england posting": (True, True, False, False, False),
    "france posting": (True, False, True, False, False),
    "england-spain contract": (True, True, False, False, False),
    "france-spain contract": (True, False, True, False, False),
    "england money line": (True, True, False, False, False),
    "birth line": (True, True, True, True, False),
}


@pytest.mark.django_db
@pytest.mark.parametrize("thing", list(MATRIX))
def test_the_role_by_object_matrix(cast, thing):
    users, objects, _ = cast
    seen = tuple(can_view(users[r], objects[thing]) for r in ROLES)
    assert seen == MATRIX[thing], dict(zip(ROLES, seen, strict=True))


@pytest.mark.django_db
def test_querysets_agree_with_the_matrix(cast, campaign):
    users, objects, houses = cast
    for role in ROLES:
        user = users[role]
        postings = set(visible(user, campaign, Posting.objects.all()))
        contracts = set(visible(user, campaign, Contract.objects.all()))
        lines = set(visible(user, campaign, ChronicleEntry.objects.all()))
        for name, obj in objects.items():
            if isinstance(obj, Posting):
                assert (obj in postings) == can_view(user, obj), (role, name)
            if isinstance(obj, Contract):
                assert (obj in contracts) == can_view(user, obj), (role, name)
            if isinstance(obj, ChronicleEntry):
                assert (obj in lines) == can_view(user, obj), (role, name)
    assert [can_view_exchequer(users[r], houses["england"]) for r in ROLES] == [True, True, False, False, False]


@pytest.mark.django_db
def test_contract_lines_of_the_chronicle_are_private_to_the_parties(cast, campaign):
    users, _objects, houses = cast
    line = ChronicleEntry.objects.create(
        campaign=campaign,
        year=1300,
        step="births",
        kind="contract_end",
        text="The treaty ends",
        data={"contract": 1, "parties": [houses["england"].pk]},
        audience="parties",
        readers=f",{houses['england'].pk},",
    )
    assert [can_view(users[r], line) for r in ROLES] == [True, True, False, False, False]
    for role in ROLES:
        assert (line in set(visible(users[role], campaign, ChronicleEntry.objects.all()))) == can_view(users[role], line)
