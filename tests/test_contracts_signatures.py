"""Each party signs its side of a contract (issue 7: a player acts for "his side of contracts").

``contract_sign_party`` records one house's signature; the contract stays a draft until every
party has signed, and the last signature signs it exactly as ``contract_sign`` (the GM's "every
party signed at the table") does: both go through one code path. Refusals write nothing; the
signatures are restored by undo and carried by the export (tests/test_exchange.py)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.urls import reverse

from campaign.models import Campaign, ChronicleEntry
from campaign.permissions import SYSTEM_ACTOR, visible
from campaign.undo import new_action_key, step_action, undo_step
from contracts.models import Contract, ContractSignature, ContractState, PaymentStatus
from contracts.services import (
    AlreadySigned,
    NotADraft,
    NotAParty,
    contract_draft,
    contract_end_by_consent,
    contract_sign,
    contract_sign_party,
    signatures,
)
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, Posting, PostingKind
from dynasties.services import campaign_create
from operations.exchange import campaign_export
from rules.dice import RandomSource
from rules.errors import NotFound, RuleError

pytestmark = pytest.mark.django_db


def house(campaign, crown):
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def fund(campaign, dynasty, amount):
    treasury.post(campaign, payer=None, payee=dynasty, amount=amount, kind=PostingKind.OTHER, reason="test funds")


def pact(campaign, *crowns, title="The Pact of Amiens", clauses=(), **kw):
    return contract_draft(
        campaign=campaign,
        kind=kw.pop("kind", "agreement"),
        title=title,
        parties=[house(campaign, c).pk for c in crowns],
        clauses=list(clauses),
        **{"by": SYSTEM_ACTOR, **kw},
    )


def pay(campaign, payer, payee, amount):
    return {
        "kind": "payment",
        "params": {"payer": house(campaign, payer).pk, "payee": house(campaign, payee).pk, "amount": amount},
    }


def lines(campaign, kind, contract):
    return list(
        ChronicleEntry.objects.filter(campaign=campaign, kind=kind, data__contract=contract.pk)
        .order_by("pk")
        .values_list("text", flat=True)
    )


def written(campaign):
    return (
        ContractSignature.objects.count(),
        ChronicleEntry.objects.filter(campaign=campaign).count(),
        Posting.objects.filter(campaign=campaign).count(),
        list(Contract.objects.order_by("pk").values_list("state", "signed_year", "in_force_year")),
    )


def betrothal(campaign):
    john = Character.objects.get(campaign=campaign, given_name="John", dynastic_name="Plantagenet")
    mary = Character.objects.get(campaign=campaign, given_name="Mary", dynastic_name="Hapsburg")
    return Marriage.objects.create(campaign=campaign, husband=john, wife=mary, arranged_year=1300)


# signing side by side ------------------------------------------------------------------------------


def test_each_party_signs_its_side_the_last_signature_brings_it_into_force(campaign, alice, bob):
    england, france = house(campaign, "England"), house(campaign, "France")
    fund(campaign, england, 30)
    contract = pact(campaign, "England", "France", clauses=[pay(campaign, "England", "France", 10)])

    contract_sign_party(campaign=campaign, contract=contract, dynasty=england, by=alice)
    contract.refresh_from_db()
    assert (contract.state, contract.signed_year, contract.in_force_year) == (ContractState.DRAFT, None, None)
    assert not contract.payments.exists() and not Posting.objects.filter(contract_link__contract=contract).exists()
    [first] = ContractSignature.objects.filter(contract=contract)
    assert (first.dynasty, first.year, first.signed_by) == (england, 1300, alice)
    assert lines(campaign, "contract_signed", contract) == [
        "The house of Plantagenet signs the binding agreement 'The Pact of Amiens'; the house of Anjou has yet to sign."
    ]
    line = ChronicleEntry.objects.get(kind="contract_signed", data__contract=contract.pk)
    assert line.data == {"contract": contract.pk, "parties": sorted([england.pk, france.pk]), "dynasty": england.pk}

    contract_sign_party(campaign=campaign, contract=contract.pk, dynasty=france.pk, by=bob)
    contract.refresh_from_db()
    assert (contract.state, contract.signed_year, contract.in_force_year) == (ContractState.IN_FORCE, 1300, 1300)
    assert {d: s.signed_by for d, s in signatures(contract).items()} == {england.pk: alice, france.pk: bob}
    payment = contract.payments.get()
    assert (payment.payer, payment.payee, payment.amount, payment.status) == (england, france, 10, PaymentStatus.PAID)
    assert treasury.balance(campaign, england) == 20
    assert lines(campaign, "contract_signed", contract)[1:] == [
        "The house of Anjou signs the binding agreement 'The Pact of Amiens', the last of its parties to sign.",
        "The binding agreement 'The Pact of Amiens' is signed by all its parties as binding (20.3).",
    ]
    assert lines(campaign, "contract_in_force", contract) == [
        "The binding agreement 'The Pact of Amiens' comes into force on signing."
    ]


def test_the_last_signature_does_exactly_what_the_gms_signing_at_the_table_does(campaign, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    fund(campaign, france, 100)
    terms = [
        pay(campaign, "France", "England", 10),
        {"kind": "recurring_payment", "params": {"payer": france.pk, "payee": england.pk, "amount": 5, "from_year": 1300}},
    ]
    table = pact(campaign, "England", "France", title="At the table", clauses=terms)
    sides = pact(campaign, "England", "France", title="Side by side", clauses=terms)
    contract_sign(campaign=campaign, contract=table, by=gm)
    contract_sign_party(campaign=campaign, contract=sides, dynasty=france, by=gm)
    contract_sign_party(campaign=campaign, contract=sides, dynasty=england, by=gm)

    def outcome(contract):
        contract.refresh_from_db()
        return (
            (contract.state, contract.signed_year, contract.in_force_year),
            sorted(signatures(contract)),
            [(p.payer_id, p.payee_id, p.amount, p.status) for p in contract.payments.order_by("pk")],
            [
                (p.payer_id, p.payee_id, p.amount, p.kind)
                for p in Posting.objects.filter(contract_link__contract=contract).order_by("pk")
            ],
            [t.replace(contract.title, "T") for t in lines(campaign, "contract_in_force", contract)],
            [t.replace(contract.title, "T") for t in lines(campaign, "contract_payment", contract)],
        )

    assert outcome(table) == outcome(sides)
    assert outcome(table)[0] == (ContractState.IN_FORCE, 1300, 1300) and len(outcome(table)[2]) == 2
    # at the table, every party signs at once: one line, not one per house
    assert lines(campaign, "contract_signed", table) == [
        "The binding agreement 'At the table' is signed by all its parties as binding (20.3)."
    ]


def test_partial_signatures_keep_the_draft_until_the_last_party_signs(campaign):
    england, france, spain = house(campaign, "England"), house(campaign, "France"), house(campaign, "Spain")
    treaty = pact(campaign, "England", "France", "Spain", title="The Three Crowns", kind="treaty")
    contract_sign_party(campaign=campaign, contract=treaty, dynasty=spain, by=SYSTEM_ACTOR)
    contract_sign_party(campaign=campaign, contract=treaty, dynasty=england, by=SYSTEM_ACTOR)
    treaty.refresh_from_db()
    assert treaty.state == ContractState.DRAFT and set(signatures(treaty)) == {spain.pk, england.pk}
    assert lines(campaign, "contract_signed", treaty) == [
        "The house of de Silva signs the treaty 'The Three Crowns'; the house of Plantagenet and the house of Anjou have yet "
        "to sign.",
        "The house of Plantagenet signs the treaty 'The Three Crowns'; the house of Anjou has yet to sign.",
    ]
    assert not lines(campaign, "contract_in_force", treaty)
    contract_sign_party(campaign=campaign, contract=treaty, dynasty=france, by=SYSTEM_ACTOR)
    treaty.refresh_from_db()
    assert treaty.state == ContractState.IN_FORCE and len(signatures(treaty)) == 3


def test_the_gm_signs_for_the_houses_that_have_not_signed_yet(campaign, alice, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    contract = pact(campaign, "England", "France")
    contract_sign_party(campaign=campaign, contract=contract, dynasty=england, by=alice)
    contract_sign(campaign=campaign, contract=contract, by=gm)
    contract.refresh_from_db()
    assert contract.state == ContractState.IN_FORCE
    assert {d: s.signed_by for d, s in signatures(contract).items()} == {england.pk: alice, france.pk: gm}
    assert ContractSignature.objects.filter(contract=contract).count() == 2  # England's is kept, not signed twice


def test_a_later_start_and_a_betrothal_wait_after_the_last_signature(campaign):
    england, france, germany = house(campaign, "England"), house(campaign, "France"), house(campaign, "Germany")
    later = pact(campaign, "England", "France", title="From 1305", start_year=1305)
    for side in (france, england):
        contract_sign_party(campaign=campaign, contract=later, dynasty=side, by=SYSTEM_ACTOR)
    later.refresh_from_db()
    assert (later.state, later.signed_year, later.in_force_year) == (ContractState.SIGNED, 1300, None)
    assert "comes into force in 1305" in lines(campaign, "contract_signed", later)[-1]

    match = betrothal(campaign)
    sealed = contract_draft(
        campaign=campaign,
        kind="marriage",
        title="The match",
        parties=[england.pk, germany.pk],
        marriage=match,
        clauses=[{"kind": "children_raised_by", "params": {"dynasty": germany.pk}}],
        by=SYSTEM_ACTOR,
    )
    contract_sign_party(campaign=campaign, contract=sealed, dynasty=germany, by=SYSTEM_ACTOR)
    match.refresh_from_db()
    assert match.children_raised_by is None  # the terms of the match are written once every party has signed
    contract_sign_party(campaign=campaign, contract=sealed, dynasty=england, by=SYSTEM_ACTOR)
    sealed.refresh_from_db()
    match.refresh_from_db()
    assert sealed.state == ContractState.SIGNED and match.children_raised_by == germany
    assert "binds from the wedding" in lines(campaign, "contract_signed", sealed)[-1]


def test_a_signature_line_is_private_to_the_parties_and_the_gm(campaign, alice, bob, gm):
    contract = pact(campaign, "England", "Spain", title="The Peace of Dover")
    contract_sign_party(campaign=campaign, contract=contract, dynasty=house(campaign, "England"), by=alice)
    line = ChronicleEntry.objects.filter(campaign=campaign, kind="contract_signed", data__contract=contract.pk)
    assert line.count() == 1
    assert visible(gm, campaign, line).count() == 1 and visible(alice, campaign, line).count() == 1
    assert visible(bob, campaign, line).count() == 0  # France is no party to it


# refusals ------------------------------------------------------------------------------------------


def test_a_house_not_party_to_the_contract_cannot_sign_it(campaign):
    contract = pact(campaign, "England", "France")
    before = written(campaign)
    with pytest.raises(NotAParty, match=r"The house of de Silva is not a party to 'The Pact of Amiens'") as refused:
        contract_sign_party(campaign=campaign, contract=contract, dynasty=house(campaign, "Spain"), by=SYSTEM_ACTOR)
    assert refused.value.code == "not_party" and isinstance(refused.value, RuleError)
    other = campaign_create(name="Elsewhere", players=3, source=RandomSource(2))
    stranger = Dynasty.objects.filter(campaign=other).first()
    with pytest.raises(NotFound, match=f"no dynasty #{stranger.pk} in Test Campaign to be the signatory"):
        contract_sign_party(campaign=campaign, contract=contract, dynasty=stranger, by=SYSTEM_ACTOR)
    with pytest.raises(NotFound, match="There is no contract"):
        contract_sign_party(campaign=other, contract=contract, dynasty=stranger, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="is not a dynasty id"):
        contract_sign_party(campaign=campaign, contract=contract, dynasty="England", by=SYSTEM_ACTOR)
    assert written(campaign) == before


def test_a_house_signs_once(campaign):
    england = house(campaign, "England")
    contract = pact(campaign, "England", "France")
    contract_sign_party(campaign=campaign, contract=contract, dynasty=england, by=SYSTEM_ACTOR)
    before = written(campaign)
    with pytest.raises(AlreadySigned, match=r"The house of Plantagenet has already signed 'The Pact of Amiens' \(in 1300\)") as e:
        contract_sign_party(campaign=campaign, contract=contract, dynasty=england, by=SYSTEM_ACTOR)
    assert e.value.code == "already_signed"
    assert written(campaign) == before


def test_only_a_draft_is_signed(campaign):
    england, france = house(campaign, "England"), house(campaign, "France")
    signed = pact(campaign, "England", "France")
    contract_sign(campaign=campaign, contract=signed, by=SYSTEM_ACTOR)
    abandoned = pact(campaign, "England", "France", title="Abandoned")
    contract_sign_party(campaign=campaign, contract=abandoned, dynasty=england, by=SYSTEM_ACTOR)
    contract_end_by_consent(campaign=campaign, contract=abandoned, reason="no longer wanted", by=SYSTEM_ACTOR)
    before = written(campaign)
    with pytest.raises(
        NotADraft, match=r"'The Pact of Amiens' is already in force \(signed in 1300\): only a draft is signed"
    ) as e:
        contract_sign_party(campaign=campaign, contract=signed, dynasty=france, by=SYSTEM_ACTOR)
    assert e.value.code == "not_draft"
    with pytest.raises(NotADraft, match="'Abandoned' is already ended: only a draft is signed"):
        contract_sign_party(campaign=campaign, contract=abandoned, dynasty=france, by=SYSTEM_ACTOR)
    with pytest.raises(NotADraft):
        contract_sign(campaign=campaign, contract=abandoned, by=SYSTEM_ACTOR)
    assert written(campaign) == before


def test_no_house_signs_what_could_not_come_into_force(campaign):
    """The checks of signing run at every signature: the first house is refused, not only the last."""
    england, germany = house(campaign, "England"), house(campaign, "Germany")
    match = betrothal(campaign)
    first = contract_draft(
        campaign=campaign, kind="marriage", title="First", parties=[england.pk, germany.pk], marriage=match, by=SYSTEM_ACTOR
    )
    second = contract_draft(
        campaign=campaign, kind="marriage", title="Second", parties=[england.pk, germany.pk], marriage=match, by=SYSTEM_ACTOR
    )
    contract_sign(campaign=campaign, contract=first, by=SYSTEM_ACTOR)
    before = written(campaign)
    with pytest.raises(RuleError, match="already sealed by the contract 'First'"):
        contract_sign_party(campaign=campaign, contract=second, dynasty=germany, by=SYSTEM_ACTOR)
    assert written(campaign) == before


# undo, the admin, the migration --------------------------------------------------------------------


def test_undo_restores_the_signatures_of_the_start_of_the_step(campaign, alice, bob, gm):
    england, france = house(campaign, "England"), house(campaign, "France")
    contract = pact(campaign, "England", "France")
    contract_sign_party(campaign=campaign, contract=contract, dynasty=england, by=alice)
    england_signed = list(ContractSignature.objects.values_list("pk", "dynasty", "year", "signed_by", "created_at"))
    before = campaign_export(Campaign.objects.get(pk=campaign.pk))
    assert before["contracts"][0]["signatures"] == [{"dynasty": 1, "year": 1300}]

    def france_signs(c):
        return contract_sign_party(campaign=c, contract=contract.pk, dynasty=france.pk, by=bob)

    step_action(campaign=campaign, key=new_action_key(), label="France signs", action=france_signs, by=bob)
    assert Contract.objects.get(pk=contract.pk).state == ContractState.IN_FORCE
    assert ContractSignature.objects.count() == 2

    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert campaign_export(Campaign.objects.get(pk=campaign.pk)) == before
    restored = list(ContractSignature.objects.values_list("pk", "dynasty", "year", "signed_by", "created_at"))
    assert [r[:4] for r in restored] == [r[:4] for r in england_signed]
    # the time it was recorded too (the checkpoint keeps times to the millisecond)
    assert abs(restored[0][4] - england_signed[0][4]).total_seconds() < 0.001
    assert Contract.objects.get(pk=contract.pk).state == ContractState.DRAFT
    # and France may sign again
    contract_sign_party(campaign=campaign, contract=contract, dynasty=france, by=bob)
    assert Contract.objects.get(pk=contract.pk).state == ContractState.IN_FORCE


def test_the_admin_shows_who_signed(admin_client, campaign, alice):
    contract = pact(campaign, "England", "France")
    contract_sign_party(campaign=campaign, contract=contract, dynasty=house(campaign, "England"), by=alice)
    page = admin_client.get(reverse("admin:contracts_contract_change", args=[contract.pk])).content.decode()
    assert "Contract signatures" in page and "alice" in page and "Plantagenet" in page
    assert 'name="signatures-0-year"' not in page  # read-only


def test_the_migration_gives_every_signed_contract_each_partys_signature(campaign):
    england, france = house(campaign, "England"), house(campaign, "France")
    old = pact(campaign, "England", "France", title="Signed long ago")
    contract_sign(campaign=campaign, contract=old, by=SYSTEM_ACTOR)
    draft = pact(campaign, "England", "France", title="Never signed")
    ContractSignature.objects.all().delete()  # as the books were before signatures were kept
    Contract.objects.filter(pk=old.pk).update(signed_year=1295)
    importlib.import_module("contracts.migrations.0003_contract_signatures").every_party_signed(apps, None)
    assert sorted(ContractSignature.objects.filter(contract=old).values_list("dynasty", "year")) == sorted(
        [(england.pk, 1295), (france.pk, 1295)]
    )
    assert not ContractSignature.objects.filter(contract=draft).exists()
