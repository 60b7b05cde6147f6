"""The 3-player game's aristocratic family (RULES.md A8, A9): its marriageable children are
auctioned. Every bidder pays a 10-Crown deposit to the Treasury as a sign of serious intent; then
the sealed bids are revealed and the highest pays his bid and takes the character."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from campaign import treasury
from campaign.models import Campaign, Posting, PostingKind
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Character, Dynasty, DynastyKind, Status
from dynasties.services import control
from rules.errors import NotFound, RuleError

DEPOSIT = 10


@transaction.atomic
def auction_run(
    *,
    campaign: Campaign | int,
    character: Character | int,
    bids: Mapping[int, int],
    by: Actor,
) -> Dynasty:
    """``bids`` maps each bidding dynasty to its sealed bid. Ties are refused: the tied players bid
    again (the rulebook names no tie-break)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    pk = character.pk if isinstance(character, Character) else character
    try:
        child = Character.objects.select_related("controlled_by").get(pk=pk, campaign=campaign)
    except Character.DoesNotExist:
        raise NotFound(f"There is no character #{pk} in {campaign.name}.") from None
    house = child.controlled_by
    if house is None or house.kind != DynastyKind.ARISTOCRATIC:
        raise RuleError(
            f"{child.display_name} is not of the aristocratic family: only its children are auctioned.", code="not_aristocratic"
        )
    if child.status != Status.ALIVE or child.age(campaign.current_year) < 15:
        raise RuleError(f"{child.display_name} must be alive and 15 or older to be auctioned.", code="invalid")
    if not bids:
        raise RuleError("No bids: nobody has paid the deposit.", code="invalid", fields={"bids": "required"})
    bidders = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign, pk__in=list(bids), kind=DynastyKind.PLAYER)}
    for dynasty_id, amount in bids.items():
        if dynasty_id not in bidders:
            raise RuleError(f"Dynasty #{dynasty_id} is not a player of this campaign.", code="invalid")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise RuleError("Bids are whole numbers of Crowns, 0 or more.", code="invalid", fields={"bids": "invalid"})
    best = max(bids.values())
    winners = [d for d, a in bids.items() if a == best]
    if len(winners) > 1:
        names = " and ".join(bidders[d].name for d in winners)
        raise RuleError(f"{names} bid {best} each: the tied players bid again.", code="tied")
    postings: list[Posting | None] = []
    for dynasty_id in bids:
        postings.append(
            treasury.post(
                campaign,
                payer=dynasty_id,
                payee=None,
                amount=DEPOSIT,
                kind=PostingKind.AUCTION,
                reason=f"deposit to bid for {child.display_name}",
                character=child,
                check_funds=True,
            )
        )
    winner = bidders[winners[0]]
    treasury.post(
        campaign,
        payer=winner,
        payee=None,
        amount=best,
        kind=PostingKind.AUCTION,
        reason=f"winning bid for {child.display_name}",
        character=child,
        check_funds=True,
    )
    control.move(campaign, child, winner, "auction")
    child.save(update_fields=["controlled_by"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "auction",
        f"The house of {winner.name} wins {child.display_name} of the aristocratic family ({len(bids)} bids).",
        character=child.pk,
        dynasty=winner.pk,
    )
    chronicle.flush()
    return winner
