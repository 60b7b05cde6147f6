"""The treasury: a double-entry ledger of every exchequer against the bank ("the Treasury").

Every posting moves a positive amount from one account to another; a balance is the sum of what
an account received less what it paid, so all accounts together always sum to zero. The rules'
own payments are posted by the services that apply them; gifts and loans go through
``treasury_transfer``; a mistake is undone by ``posting_reverse``, never by an edit."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Q, Sum

from campaign import audit
from campaign.models import Campaign
from campaign.permissions import Actor
from dynasties.models import Dynasty, Posting, PostingKind
from rules.errors import NotFound, RuleError

TREASURY = "the Treasury"


class InsufficientFunds(RuleError):
    code = "insufficient_funds"


def currency(campaign: Campaign) -> str:
    return campaign.rules.currency


def _pk(value: Dynasty | int | None) -> int | None:
    if value is None or isinstance(value, int):
        return value
    pk: int | None = value.pk
    return pk


def balance(campaign: Campaign, dynasty: Dynasty | int | None) -> int:
    """What an exchequer holds (for the Treasury, None: minus everything paid out)."""
    pk = _pk(dynasty)
    postings = Posting.objects.filter(campaign=campaign)
    received = postings.filter(payee_id=pk) if pk is not None else postings.filter(payee__isnull=True)
    paid = postings.filter(payer_id=pk) if pk is not None else postings.filter(payer__isnull=True)
    return int(received.aggregate(s=Sum("amount"))["s"] or 0) - int(paid.aggregate(s=Sum("amount"))["s"] or 0)


def balances(campaign: Campaign) -> dict[int | None, int]:
    """Every account's balance in two queries (None is the Treasury); they sum to zero."""
    out: dict[int | None, int] = {}
    for row in Posting.objects.filter(campaign=campaign).values("payee_id").annotate(s=Sum("amount")):
        out[row["payee_id"]] = out.get(row["payee_id"], 0) + int(row["s"])
    for paid in Posting.objects.filter(campaign=campaign).values("payer_id").annotate(s=Sum("amount")):
        out[paid["payer_id"]] = out.get(paid["payer_id"], 0) - int(paid["s"])
    return out


def ledger(campaign: Campaign, dynasty: Dynasty | int) -> Iterable[Posting]:
    pk = _pk(dynasty)
    return (
        Posting.objects.filter(Q(payer_id=pk) | Q(payee_id=pk), campaign=campaign).select_related("payer", "payee").order_by("id")
    )


def unsaved(
    campaign: Campaign,
    *,
    payer: Dynasty | int | None,
    payee: Dynasty | int | None,
    amount: int,
    kind: str,
    reason: str,
    **links: Any,
) -> Posting | None:
    """A posting for the rules' own payments, to be bulk-created by the caller (no funds check)."""
    if amount == 0:
        return None
    if amount < 0:
        payer, payee, amount = payee, payer, -amount
    return Posting(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        payer_id=_pk(payer),
        payee_id=_pk(payee),
        amount=amount,
        kind=kind,
        reason=reason.strip()[:200] or kind,
        entered_by=audit.acting_user(),  # who acted (the posting is bulk-created by the caller)
        **links,
    )


def post(
    campaign: Campaign,
    *,
    payer: Dynasty | int | None,
    payee: Dynasty | int | None,
    amount: int,
    kind: str,
    reason: str,
    check_funds: bool = False,
    by: Actor | None = None,
    **links: Any,
) -> Posting | None:
    """Post a movement inside the caller's transaction. A negative amount reverses the direction;
    nothing is posted for 0. ``check_funds`` refuses to overdraw the payer (unless the campaign
    allows overdrafts); the rules' own payments are always posted, a debt if need be."""
    if amount == 0:
        return None
    if amount < 0:
        payer, payee, amount = payee, payer, -amount
    payer_pk, payee_pk = _pk(payer), _pk(payee)
    if payer_pk == payee_pk:
        raise RuleError("A payment needs two different accounts.", code="invalid")
    if kind not in PostingKind.values:
        raise RuleError(f"Unknown kind of posting {kind!r}.", code="invalid")
    if check_funds and payer_pk is not None and not campaign.allow_overdraft:
        held = balance(campaign, payer_pk)
        if held < amount:
            name = Dynasty.objects.get(pk=payer_pk).name
            raise InsufficientFunds(
                f"The house of {name} holds {held} {currency(campaign)} and cannot pay {amount}; the GM may allow "
                "overdrafts for the campaign."
            )
    posting = Posting(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        payer_id=payer_pk,
        payee_id=payee_pk,
        amount=amount,
        kind=kind,
        reason=reason.strip()[:200] or kind,
        entered_by=audit.acting_user(by),  # the ledger's audit trail: who, and created_at when
        **links,
    )
    for field, house in (("payer", payer), ("payee", payee)):  # houses given loaded: the save's check needs no query
        if house is not None and not isinstance(house, int):
            setattr(posting, field, house)
    posting.save(force_insert=True)
    return posting


def _dynasty(campaign: Campaign, value: Dynasty | int | None, role: str) -> Dynasty | None:
    if value is None:
        return None
    pk = value if isinstance(value, int) else value.pk
    try:
        return Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no dynasty #{pk} in {campaign.name} to be the {role}.") from None


@transaction.atomic
def treasury_transfer(
    *,
    campaign: Campaign | int,
    payer: Dynasty | int | None,
    payee: Dynasty | int | None,
    amount: int,
    reason: str,
    kind: str = PostingKind.TRANSFER,
    by: Actor,
) -> Posting:
    """A gift, a loan or any payment agreed at the table (A8: loans and gifts are free transfers).
    Overdrafts are refused unless the campaign allows them."""
    from campaign.permissions import require
    from campaign.steps import Chronicle, Seen, lock_campaign

    campaign = lock_campaign(campaign, seen=Seen.by(payer, payee))  # the payer, the payee and the GM
    require(by, campaign, "play")  # an observer touches no money; whose money, below
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise RuleError("The amount must be a whole number above 0.", code="invalid", fields={"amount": "positive"})
    if kind not in (PostingKind.TRANSFER, PostingKind.LOAN, PostingKind.OTHER, PostingKind.DAMAGES, PostingKind.CONTRACT):
        raise RuleError(f"{kind!r} postings are made by the rules, not by hand.", code="invalid", fields={"kind": "invalid"})
    if not reason.strip():
        raise RuleError("Say what the payment is for.", code="invalid", fields={"reason": "required"})
    source, target = _dynasty(campaign, payer, "payer"), _dynasty(campaign, payee, "payee")
    if source is None or target is None:  # the Treasury pays and is paid only by the GM's hand
        require(by, campaign, "gm")
    if source is not None:
        require(by, campaign, "house", dynasty=source.pk, what="a house gives only its own money")
    try:
        posting = post(campaign, payer=source, payee=target, amount=amount, kind=kind, reason=reason, check_funds=True, by=by)
    except InsufficientFunds as exc:  # the amount is what to change: say so next to it, through every door
        raise InsufficientFunds(exc.message, fields={"amount": "insufficient_funds"}) from exc
    assert posting is not None
    chronicle = Chronicle(campaign)
    chronicle.add(
        "payment",
        f"{amount} {currency(campaign)} from {source.name if source else TREASURY} to "
        f"{target.name if target else TREASURY}: {reason.strip()}.",
        readers=[posting.payer_id, posting.payee_id],  # the payer, the payee and the GM: no one else
        posting=posting.pk,
    )
    chronicle.flush()
    return posting


@transaction.atomic
def posting_reverse(*, campaign: Campaign | int, posting: Posting | int, reason: str, by: Actor) -> Posting:
    """Undo a posting with its mirror image (nothing is edited or deleted in place)."""
    from campaign import live
    from campaign.permissions import require
    from campaign.steps import Seen, lock_campaign

    campaign = lock_campaign(campaign)
    require(by, campaign, "gm")  # corrections are the GM's
    pk = posting.pk if isinstance(posting, Posting) else posting
    try:
        original = Posting.objects.get(pk=pk, campaign=campaign)
    except Posting.DoesNotExist:
        raise NotFound(f"There is no posting #{pk} in {campaign.name}.") from None
    if original.kind == PostingKind.CORRECTION:
        raise RuleError("A correction is not itself corrected; post the right amount instead.", code="invalid")
    if Posting.objects.filter(reverses=original).exists():
        raise RuleError(f"Posting #{pk} was already reversed.", code="already_reversed")
    if not reason.strip():
        raise RuleError("Say why the posting is reversed.", code="invalid", fields={"reason": "required"})
    reversal = post(
        campaign,
        payer=original.payee_id,
        payee=original.payer_id,
        amount=original.amount,
        kind=PostingKind.CORRECTION,
        reason=f"reverses #{original.pk}: {reason.strip()}",
        by=by,
        reverses=original,
    )
    assert reversal is not None
    live.reveal(campaign, Seen.by(reversal.payer_id, reversal.payee_id))  # the houses of the posting, as for it
    return reversal
