"""The 3-player game's aristocratic family (RULES.md A8, A9): its marriageable children are
auctioned. Every bidder pays a 10-Crown deposit to the Treasury as a sign of serious intent; then
the sealed bids are revealed and the highest pays his bid and takes the character.

The rulebook (Three Players, Dynastic Sequence): "When the children become old enough to be
considered as marriage partners, players may make bids to secure the match. Interested players
announce their wish ..., and pay the Treasury 10 Crowns as a sign of serious intent. They then write
the amount of their bid on paper. When this is completed, all players reveal their offers and the
highest bid secures the match. That player pays the Treasury the amount bid, and takes the character
from this additional family into his or her own Dynasty." """

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.db.models import Q

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties import treasury
from dynasties.models import Character, Dynasty, DynastyKind, Marriage, PostingKind, Status
from dynasties.services import control
from rules.errors import NotFound, RuleError
from rules.families import ADULT_AGE

DEPOSIT = 10
RULE = "Three Players, Dynastic Sequence; RULES.md A8"
"""Where the rulebook says it, as the refusals cite it."""


def auction_problems(campaign: Campaign, child: Character) -> list[str]:
    """Everything that keeps ``child`` from being auctioned now; empty when he may be (the service's
    check, and what the table event offers)."""
    name = child.display_name
    house = child.controlled_by
    if house is None or house.kind != DynastyKind.ARISTOCRATIC:
        return [f"{name} is not of the aristocratic family: only its children are auctioned ({RULE})."]
    if child.status != Status.ALIVE:
        return [f"{name} is {child.get_status_display().lower()}: only a living child is auctioned ({RULE})."]
    problems = []
    if child.age(campaign.current_year) < ADULT_AGE:
        problems.append(
            f"{name} is {child.age(campaign.current_year)}: the children are auctioned when old enough to be marriage "
            f"partners, {ADULT_AGE} (A6: characters may wed at {ADULT_AGE} or older; {RULE})."
        )
    if Marriage.objects.filter(Q(husband=child) | Q(wife=child), campaign=campaign, ended_year__isnull=True).exists():
        problems.append(f"{name} is married or betrothed already: the auction secures a match for one not yet matched ({RULE}).")
    return problems


@transaction.atomic
def auction_run(
    *,
    campaign: Campaign | int,
    character: Character | int,
    bids: Mapping[int, int],
    by: Actor,
) -> Dynasty:
    """``bids`` maps each bidding (player) dynasty to its sealed bid, as revealed at the table; each
    bidder pays the deposit, the highest bid pays its amount and takes the character. Ties are
    refused: the tied players bid again (the rulebook names no tie-break). The GM records it; the
    money lines are read by the house paying (and the GM) only."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    pk = character.pk if isinstance(character, Character) else character
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{character!r} is not a character id.", code="invalid", fields={"character": "invalid"})
    try:
        child = Character.objects.select_for_update(of=("self",)).select_related("controlled_by").get(pk=pk, campaign=campaign)
    except Character.DoesNotExist:
        raise NotFound(f"There is no character #{pk} in {campaign.name}.") from None
    problems = auction_problems(campaign, child)
    if problems:
        raise RuleError(" ".join(problems), code="not_auctioned", fields={"character": "not_auctioned"})
    if not bids:
        raise RuleError(
            f"No bids: a player who wants {child.display_name} pays the {DEPOSIT}-Crown deposit and writes his bid ({RULE}).",
            code="invalid",
            fields={"bids": "required"},
        )
    bidders = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign, pk__in=list(bids), kind=DynastyKind.PLAYER)}
    for dynasty_id, amount in bids.items():
        if dynasty_id not in bidders:
            raise RuleError(
                f"Dynasty #{dynasty_id} is not a player of this campaign: the players bid ({RULE}).",
                code="invalid",
                fields={"bids": "invalid"},
            )
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise RuleError("Bids are whole numbers of Crowns, 0 or more.", code="invalid", fields={"bids": "invalid"})
    best = max(bids.values())
    winners = [d for d, a in bids.items() if a == best]
    if len(winners) > 1:
        names = " and ".join(bidders[d].name for d in winners)
        raise RuleError(
            f"{names} bid {best} each: the tied players bid again (the rulebook names no tie-break).",
            code="tied",
            fields={"bids": "tied"},
        )
    chronicle = Chronicle(campaign)
    for dynasty_id in sorted(bids):
        house = bidders[dynasty_id]
        paid = DEPOSIT + (best if dynasty_id == winners[0] else 0)
        treasury.post(
            campaign,
            payer=house,
            payee=None,
            amount=DEPOSIT,
            kind=PostingKind.AUCTION,
            reason=f"deposit to bid for {child.display_name}",
            check_funds=True,
            by=by,
            character=child,
        )
        if dynasty_id == winners[0]:
            treasury.post(
                campaign,
                payer=house,
                payee=None,
                amount=best,
                kind=PostingKind.AUCTION,
                reason=f"winning bid for {child.display_name}",
                check_funds=True,
                by=by,
                character=child,
            )
        chronicle.add(
            "payment_owed",
            f"{paid} Crowns from the house of {house.name} to the Treasury: "
            + (
                f"the deposit and the winning bid ({best}) for {child.display_name}."
                if dynasty_id == winners[0]
                else f"the deposit to bid for {child.display_name} (not returned)."
            ),
            readers=[house.pk],
            dynasty=house.pk,
            amount=-paid,
            character=child.pk,
        )
    winner = bidders[winners[0]]
    control.move(campaign, child, winner, "auction")
    child.save(update_fields=["controlled_by"])
    chronicle.add(
        "auction",
        f"The house of {winner.name} wins {child.display_name} of the aristocratic family at auction "
        f"({len(bids)} {'bid' if len(bids) == 1 else 'bids'}) and takes {'him' if child.sex == 'M' else 'her'} into its "
        "Dynasty.",
        character=child.pk,
        dynasty=winner.pk,
    )
    chronicle.flush()
    return winner
