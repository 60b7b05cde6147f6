"""The import refuses ledger links that do not add up (docs/export-format.md, issue 14): a paid
contract payment is the posting of that payment - same contract, payer, payee and amount, of the
kind the services post - its clause and breach belong to its contract, damages go from the party in
breach to the injured party, and a correction mirrors the one posting it reverses. A real campaign
(made through the services) is exported, each link tampered with in turn, and the import refused
with a message naming the row and what is wrong, leaving nothing behind."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from contracts.models import ClauseKind, Contract, PaymentStatus
from contracts.services import breach_record, contract_draft, contract_sign, dispute_majority, payment_settle
from dynasties import treasury
from dynasties.models import Dynasty, DynastyKind, PostingKind
from dynasties.services import campaign_create
from operations.exchange import campaign_export, campaign_import
from rules.dice import RandomSource
from tests.test_import_hostile import refused, without_slug


def the_books() -> Campaign:
    """A BloodLine campaign whose ledger went through the services: a gift from the Treasury, a
    treaty paying at once, an instalment left unpaid then settled, damages posted after a ruling,
    and two reversals (the gift, and the treaty's payment)."""
    campaign = campaign_create(name="Ledger", ruleset="eu-bloodline", players=4, source=RandomSource(11))
    a, b, c, d = Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat")
    gift = treasury.treasury_transfer(campaign=campaign, payer=None, payee=a, amount=100, reason="a gift", by=SYSTEM_ACTOR)
    year = campaign.current_year
    pact = contract_draft(
        campaign=campaign,
        kind="treaty",
        title="The treaty",
        parties=[a.pk, b.pk],
        clauses=[
            {"kind": ClauseKind.PAYMENT, "params": {"payer": a.pk, "payee": b.pk, "amount": 30}},
            {"kind": ClauseKind.RECURRING_PAYMENT, "params": {"payer": b.pk, "payee": a.pk, "amount": 40, "from_year": year}},
            {"kind": ClauseKind.DAMAGES, "params": {"amount": 25}},
        ],
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    contract_draft(campaign=campaign, kind="agreement", title="Another pact", parties=[c.pk, d.pk], by=SYSTEM_ACTOR)
    unpaid = pact.payments.get(status=PaymentStatus.UNPAID)  # b held 30 when the instalment of 40 fell due
    treasury.treasury_transfer(
        campaign=campaign, payer=None, payee=b, amount=40, reason="a loan", kind=PostingKind.LOAN, by=SYSTEM_ACTOR
    )
    payment_settle(campaign=campaign, payment=unpaid, by=SYSTEM_ACTOR)
    damages = pact.clauses.get(kind=ClauseKind.DAMAGES)
    breach = breach_record(
        campaign=campaign, contract=pact, by_dynasty=a, clause=damages, text="raided the coast", by=SYSTEM_ACTOR
    )
    dispute_majority(
        campaign=campaign, breach=breach, votes={c.pk: {damages.pk: True}, d.pk: {damages.pk: True}}, by=SYSTEM_ACTOR
    )
    treasury.posting_reverse(campaign=campaign, posting=gift, reason="given twice", by=SYSTEM_ACTOR)
    first = pact.payments.get(clause__kind=ClauseKind.PAYMENT)
    assert first.posting is not None
    treasury.posting_reverse(campaign=campaign, posting=first.posting, reason="paid in kind instead", by=SYSTEM_ACTOR)
    return campaign


@pytest.fixture(scope="module")
def books(django_db_setup, django_db_blocker) -> dict[str, Any]:
    """The export of ``the_books`` (built once, then rolled back)."""
    with django_db_blocker.unblock(), transaction.atomic():
        data = campaign_export(the_books())
        transaction.set_rollback(True)
    return data


@pytest.fixture
def doc(books) -> dict[str, Any]:
    return copy.deepcopy(books)


# finding rows in the export -----------------------------------------------------------------------


def payment(d: dict[str, Any], what: str) -> dict[str, Any]:
    """``first`` (the one-off payment), ``settled`` (the instalment paid late), ``damages``."""
    kinds = {c["id"]: c["kind"] for c in d["clauses"]}
    for p in d["contract_payments"]:
        if what == "damages" and p["breach"] is not None:
            return p
        if what == "settled" and p["settled_year"] is not None:
            return p
        if what == "first" and p["breach"] is None and kinds[p["clause"]] == ClauseKind.PAYMENT:
            return p
    raise AssertionError(what)


def posting(d: dict[str, Any], pid: int) -> dict[str, Any]:
    return next(p for p in d["postings"] if p["id"] == pid)


def correction(d: dict[str, Any], of: str) -> dict[str, Any]:
    """The reversal of the gift (``gift``) or of the treaty's first payment (``payment``)."""
    for p in d["postings"]:
        if p["reverses"] is not None and (posting(d, p["reverses"])["kind"] == "transfer") == (of == "gift"):
            return p
    raise AssertionError(of)


def at(d: dict[str, Any], row: dict[str, Any]) -> str:
    """The path of a row, e.g. ``contract_payments[2]``."""
    for section in ("postings", "contract_payments", "breaches"):
        for i, item in enumerate(d[section]):
            if item is row:
                return f"{section}[{i}]"
    raise AssertionError(row)


# the genuine export --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_books_made_by_the_services_import_and_round_trip(doc):
    statuses = sorted((p["status"], p["breach"] is not None, p["settled_year"] is not None) for p in doc["contract_payments"])
    assert statuses == [("paid", False, False), ("paid", False, True), ("paid", True, False)]
    assert sorted(posting(doc, p["reverses"])["kind"] for p in doc["postings"] if p["reverses"]) == ["contract", "transfer"]
    imported = campaign_import(doc)
    assert without_slug(campaign_export(imported)) == without_slug(doc)


# tampering, one link at a time ---------------------------------------------------------------------

Spoil = Callable[[dict[str, Any]], str]  # spoils the document; returns the message expected


def paid_with_an_unrelated_posting(d: dict[str, Any]) -> str:
    first, loan = payment(d, "first"), next(p for p in d["postings"] if p["kind"] == "loan")
    first["posting"] = loan["id"]
    return f"{at(d, first)}.posting: posting {loan['id']} is not a payment under contract {first['contract']}"


def posting_of_another_contract(d: dict[str, Any]) -> str:
    first = payment(d, "first")
    other = next(c["id"] for c in d["contracts"] if c["id"] != first["contract"])
    paid = posting(d, first["posting"])
    paid["contract"] = other
    return (
        f"{at(d, first)}.posting: posting {paid['id']} is not a payment under contract {first['contract']} "
        f"(it names contract {other})"
    )


def amount_differs(d: dict[str, Any]) -> str:
    first = payment(d, "first")
    first["amount"] += 1
    return f"{at(d, first)}.posting: posting {first['posting']} moves 30 from dynasty "


def payer_and_payee_swapped(d: dict[str, Any]) -> str:
    first = payment(d, "first")
    first["payer"], first["payee"] = first["payee"], first["payer"]
    return (
        f"{at(d, first)}.posting: posting {first['posting']} moves 30 from dynasty {first['payee']} to dynasty "
        f"{first['payer']}, not the payment's 30 from dynasty {first['payer']} to dynasty {first['payee']}"
    )


def postings_of_two_payments_swapped(d: dict[str, Any]) -> str:
    first, settled = payment(d, "first"), payment(d, "settled")
    first["posting"], settled["posting"] = settled["posting"], first["posting"]
    return f"{at(d, first)}.posting: posting {first['posting']} moves 40 "


def posted_as_a_transfer(d: dict[str, Any]) -> str:
    first = payment(d, "first")
    posting(d, first["posting"])["kind"] = "transfer"
    return (
        f"{at(d, first)}.posting: posting {first['posting']} is a 'transfer' posting; "
        "a contract payment is posted as 'contract' or 'dowry'"
    )


def damages_posted_as_a_payment(d: dict[str, Any]) -> str:
    damages = payment(d, "damages")
    posting(d, damages["posting"])["kind"] = "contract"
    return f"{at(d, damages)}.posting: posting {damages['posting']} is a 'contract' posting; damages are posted as 'damages'"


def damages_paid_the_wrong_way(d: dict[str, Any]) -> str:
    """The payment and its posting agree, but the money goes to the party in breach."""
    damages = payment(d, "damages")
    paid = posting(d, damages["posting"])
    damages["payer"], damages["payee"] = damages["payee"], damages["payer"]
    paid["payer"], paid["payee"] = paid["payee"], paid["payer"]
    return (
        f"{at(d, damages)}.payer: damages for breach {damages['breach']} go from the party in breach "
        f"(dynasty {damages['payee']}) to the injured party (dynasty {damages['payer']})"
    )


def damages_other_than_the_clause_says(d: dict[str, Any]) -> str:
    damages = payment(d, "damages")
    damages["amount"] = 26
    posting(d, damages["posting"])["amount"] = 26
    return f"{at(d, damages)}.amount: 26 is not the damages of clause {damages['clause']} (25)"


def clause_of_another_contract(d: dict[str, Any]) -> str:
    first = payment(d, "first")
    other = next(c["id"] for c in d["contracts"] if c["id"] != first["contract"])
    d["clauses"].append(
        {
            "id": 99,
            "contract": other,
            "position": 0,
            "kind": "payment",
            "text": "",
            "params": {"payer": first["payer"], "payee": first["payee"], "amount": 30},
        }
    )
    next(c for c in d["contracts"] if c["id"] == other)["parties"] = [first["payer"], first["payee"]]
    first["clause"] = 99
    return f"{at(d, first)}.clause: clause 99 is a term of contract {other}, not of contract {first['contract']}"


def paid_under_a_clause_that_pays_nothing(d: dict[str, Any]) -> str:
    first = payment(d, "first")
    damages = payment(d, "damages")
    first["clause"] = damages["clause"]
    return f"{at(d, first)}.clause: clause {damages['clause']} is the damages clause, paid only on a breach"


def paid_against_the_clause(d: dict[str, Any]) -> str:
    """The payment and its posting agree with each other, not with the clause's terms."""
    settled = payment(d, "settled")
    paid = posting(d, settled["posting"])
    settled["amount"] = paid["amount"] = 41
    return (
        f"{at(d, settled)}.clause: the payment of 41 from dynasty {settled['payer']} to dynasty {settled['payee']} "
        f"does not match clause {settled['clause']} (40 from dynasty {settled['payer']}"
    )


def breach_of_another_contract(d: dict[str, Any]) -> str:
    damages = payment(d, "damages")
    other = next(c["id"] for c in d["contracts"] if c["id"] != damages["contract"])
    breach = next(b for b in d["breaches"] if b["id"] == damages["breach"])
    breach["contract"], breach["clause"] = other, None
    next(c for c in d["contracts"] if c["id"] == other)["parties"] = [breach["by_dynasty"], breach["raised_by"]]
    return f"{at(d, damages)}.breach: breach {breach['id']} is of contract {other}, not of contract {damages['contract']}"


def breach_by_a_stranger(d: dict[str, Any]) -> str:
    breach = d["breaches"][0]
    stranger = next(c for c in d["contracts"] if c["id"] != breach["contract"])["parties"][0]
    breach["by_dynasty"] = stranger
    return f"{at(d, breach)}.by_dynasty: dynasty {stranger} is not a party to contract {breach['contract']}"


def breach_of_a_clause_of_another_contract(d: dict[str, Any]) -> str:
    breach = d["breaches"][0]
    other = next(c["id"] for c in d["contracts"] if c["id"] != breach["contract"])
    d["clauses"].append({"id": 99, "contract": other, "position": 0, "kind": "non_aggression", "params": {}, "text": ""})
    breach["clause"] = 99
    return f"{at(d, breach)}.clause: clause 99 is not a term of contract {breach['contract']}"


def settled_but_unpaid(d: dict[str, Any]) -> str:
    settled = payment(d, "settled")
    settled["status"], settled["posting"] = "unpaid", None
    return f"{at(d, settled)}.settled_year: an unpaid payment has not been settled"


def settled_before_due(d: dict[str, Any]) -> str:
    settled = payment(d, "settled")
    settled["settled_year"] = settled["year"] - 1
    return f"{at(d, settled)}.settled_year: {settled['year'] - 1} is before the payment fell due ({settled['year']})"


def settled_by_a_posting_of_another_year(d: dict[str, Any]) -> str:
    settled = payment(d, "settled")
    settled["year"] -= 5
    settled["settled_year"] -= 1
    return (
        f"{at(d, settled)}.posting: posting {settled['posting']} is of {settled['settled_year'] + 1}, "
        f"not of the year the payment was settled ({settled['settled_year']})"
    )


def paid_before_due(d: dict[str, Any]) -> str:
    first = payment(d, "first")
    first["year"] += 5
    due = first["year"]
    return f"{at(d, first)}.posting: posting {first['posting']} is of {due - 5}, before the payment fell due ({due})"


def correction_of_another_amount(d: dict[str, Any]) -> str:
    fix = correction(d, "gift")
    fix["amount"] = 99
    return (
        f"{at(d, fix)}.reverses: 99 from dynasty {fix['payer']} to the Treasury does not mirror posting {fix['reverses']} "
        f"(100 from the Treasury to dynasty {fix['payer']}): a correction pays the same amount back the other way"
    )


def correction_the_same_way(d: dict[str, Any]) -> str:
    fix = correction(d, "payment")
    fix["payer"], fix["payee"] = fix["payee"], fix["payer"]
    who = f"from dynasty {fix['payer']} to dynasty {fix['payee']}"
    return f"{at(d, fix)}.reverses: 30 {who} does not mirror posting {fix['reverses']} (30 {who})"


def correction_of_a_correction(d: dict[str, Any]) -> str:
    """The treaty payment's correction is re-pointed at the gift's correction (a mirror of it)."""
    fix, other = correction(d, "payment"), correction(d, "gift")
    fix["reverses"], fix["payer"], fix["payee"], fix["amount"] = other["id"], other["payee"], other["payer"], other["amount"]
    return f"{at(d, fix)}.reverses: posting {other['id']} is itself a correction; a correction is not reversed"


def correction_reversing_nothing(d: dict[str, Any]) -> str:
    fix = correction(d, "gift")
    fix["reverses"] = None
    return f"{at(d, fix)}.reverses: a correction names the posting it reverses"


def reversal_that_is_not_a_correction(d: dict[str, Any]) -> str:
    fix = correction(d, "gift")
    fix["kind"] = "transfer"
    return f"{at(d, fix)}.kind: only a correction reverses a posting; this one is a 'transfer' posting"


def correction_before_its_original(d: dict[str, Any]) -> str:
    fix = correction(d, "gift")
    fix["year"] -= 1
    return f"{at(d, fix)}.year: {fix['year']} is before the posting it reverses ({fix['year'] + 1})"


def correction_re_pointed(d: dict[str, Any]) -> str:
    """The gift's correction is made to reverse the loan instead (another amount, another house)."""
    fix, loan = correction(d, "gift"), next(p for p in d["postings"] if p["kind"] == "loan")
    fix["reverses"] = loan["id"]
    return (
        f"{at(d, fix)}.reverses: 100 from dynasty {fix['payer']} to the Treasury does not mirror posting {loan['id']} "
        f"(40 from the Treasury to dynasty {loan['payee']})"
    )


SPOILS = [
    paid_with_an_unrelated_posting,
    posting_of_another_contract,
    amount_differs,
    payer_and_payee_swapped,
    postings_of_two_payments_swapped,
    posted_as_a_transfer,
    damages_posted_as_a_payment,
    damages_paid_the_wrong_way,
    damages_other_than_the_clause_says,
    clause_of_another_contract,
    paid_under_a_clause_that_pays_nothing,
    paid_against_the_clause,
    breach_of_another_contract,
    breach_by_a_stranger,
    breach_of_a_clause_of_another_contract,
    settled_but_unpaid,
    settled_before_due,
    settled_by_a_posting_of_another_year,
    paid_before_due,
    correction_of_another_amount,
    correction_the_same_way,
    correction_of_a_correction,
    correction_reversing_nothing,
    reversal_that_is_not_a_correction,
    correction_before_its_original,
    correction_re_pointed,
]


@pytest.mark.django_db
@pytest.mark.parametrize("spoil", SPOILS, ids=[s.__name__ for s in SPOILS])
def test_a_ledger_link_that_does_not_add_up_is_refused_naming_the_row(doc, spoil):
    expected = spoil(doc)
    campaigns = Campaign.objects.count()
    message = refused(doc, expected)  # nothing written, in any table
    assert message.startswith(expected), message
    assert Campaign.objects.count() == campaigns and not Contract.objects.filter(title="The treaty").exists()
