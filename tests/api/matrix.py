"""The secrecy matrix (Blood Royale chapter 24; RULES.md E7) as data, for every door.

``build_secrets`` puts one of each kind of secret (and of public thing) into the shared test
campaign; ``MATRIX`` says which role sees which. A door is a function ``sees(user, name, obj) ->
bool`` that answers through that door (the API here, the pages in their own test): the same table
must hold through every door, e.g.::

    for name, expected in MATRIX.items():
        assert tuple(sees(users[r], name, objects[name]) for r in ROLES) == expected

Alice plays England, Bob France; the observer watches; the outsider is no member."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign.models import Campaign, ChronicleEntry, Membership, Role
from contracts.models import Contract
from dynasties import treasury
from dynasties.models import Character, Dynasty

ROLES = ("gm", "alice", "bob", "observer", "outsider")

#                                 gm     alice  bob    observer outsider
MATRIX: dict[str, tuple[bool, bool, bool, bool, bool]] = {
    "campaign": (True, True, True, True, False),
    "character": (True, True, True, True, False),
    "england exchequer": (True, True, False, False, False),
    "france exchequer": (True, False, True, False, False),
    "england posting": (True, True, False, False, False),
    "france posting": (True, False, True, False, False),
    "england-spain contract": (True, True, False, False, False),
    "france-spain contract": (True, False, True, False, False),
    "england money line": (True, True, False, False, False),
    "england-spain contract line": (True, True, False, False, False),
    "birth line": (True, True, True, True, False),
}
"""Object name -> whether (gm, alice, bob, observer, outsider) may see it."""

KINDS = {
    "campaign": "campaign",
    "character": "character",
    "england exchequer": "exchequer",
    "france exchequer": "exchequer",
    "england posting": "posting",
    "france posting": "posting",
    "england-spain contract": "contract",
    "france-spain contract": "contract",
    "england money line": "chronicle",
    "england-spain contract line": "chronicle",
    "birth line": "chronicle",
}
"""What kind of object each row is (a door maps a kind to where it shows that kind)."""


@dataclass
class Cast:
    users: dict[str, Any]
    objects: dict[str, Any]
    houses: dict[str, Dynasty]


def build_secrets(campaign: Campaign, *, gm: Any, alice: Any, bob: Any, observer: Any, outsider: Any) -> Cast:
    """One of each secret in the campaign. ``observer`` must already be an observer (or is made one)."""
    Membership.objects.get_or_create(campaign=campaign, user=observer, defaults={"role": Role.OBSERVER})
    england, france, spain = (Dynasty.objects.get(campaign=campaign, crown=c) for c in ("England", "France", "Spain"))
    eng_post = treasury.post(campaign, payer=None, payee=england, amount=10, kind="tax", reason="English taxes")
    fra_post = treasury.post(campaign, payer=None, payee=france, amount=12, kind="tax", reason="French taxes")
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
    contract_line = ChronicleEntry.objects.create(
        campaign=campaign,
        year=1300,
        step="births",
        kind="contract_signed",
        text="England and Spain sign",
        data={"contract": eng_spa.pk, "parties": [england.pk, spain.pk]},
        audience="parties",
        readers=f",{england.pk},{spain.pk},",
    )
    public = ChronicleEntry.objects.create(
        campaign=campaign, year=1300, step="births", kind="birth", text="A son is born", audience="public"
    )
    users = {"gm": gm, "alice": alice, "bob": bob, "observer": observer, "outsider": outsider}
    objects = {
        "campaign": campaign,
        "character": Character.objects.filter(campaign=campaign, controlled_by=france).order_by("pk").first(),
        "england exchequer": england,
        "france exchequer": france,
        "england posting": eng_post,
        "france posting": fra_post,
        "england-spain contract": eng_spa,
        "france-spain contract": fra_spa,
        "england money line": money,
        "england-spain contract line": contract_line,
        "birth line": public,
    }
    return Cast(users=users, objects=objects, houses={"england": england, "france": france, "spain": spain})
