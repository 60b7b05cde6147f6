"""BloodLine's Marriages (RULES.md B, Marriage/Betrothal): matches are betrothed with terms and wed
at the start of the Diplomacy phase (the Interphase), by effective age; a match of a monarch or of a
monarch's child needs a standard dynastic alliance (a title and a dowry of 100 ducats or a province)
unless a minor house accepted the offer; the dowry changes hands at the wedding; the Treasury pays
nothing; a frozen line makes no new marriage."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from campaign.models import Campaign, Step
from campaign.steps import Chronicle
from dynasties import treasury
from dynasties.models import Character, Dynasty, Marriage, MarriageOffer, OfferStatus, Posting, PostingKind
from dynasties.selectors import frozen_lines, settled_by_offer
from dynasties.services.marriages import monarchs_family
from dynasties.services.play_marriages import Match, TreasuryPayment, Wedding, WeddingMoney, ruleset_problems
from rules import bloodline as bl
from rules.families import TERMS, Problem


def wedding_step() -> Step:
    """After the Dynastic Sequence, so a death in between cancels the match without penalty."""
    return Step.INTERPHASE


def has_terms() -> bool:
    return True


def terms_help() -> str | None:
    return f"'{bl.DOWRY_DUCATS} ducats' or 'province: <name>' (a match of a monarch or a monarch's child)."


def adult_age() -> int:
    return bl.ADULT_AGE


def wedding_age(campaign: Campaign, character: Character) -> int:
    return character.effective_age(campaign.current_year)


def rule_problems(campaign: Campaign, groom: Character, bride: Character, busy: Collection[int], *, wedding: bool) -> list[str]:
    return ruleset_problems(bl.marriage_problems, campaign, groom, bride, busy, wedding=wedding)


def frozen(campaign: Campaign) -> Collection[int]:
    return frozen_lines(campaign)


def alliance_problem(campaign: Campaign, match: Marriage | Match, needs_terms: bool) -> str | None:
    if not needs_terms:
        return None
    if settled_by_offer(campaign, match):
        return None  # a minor house's accepted offer is the alliance
    return _terms_problem(match)


def terms_problems(
    campaign: Campaign, matches: Sequence[Marriage], couples: Sequence[tuple[Character, Character]], *, wedding: bool
) -> list[str | None]:
    ids = [pk for pair in couples for pk in (pair[0].pk, pair[1].pk)]
    royal_family = monarchs_family(campaign, ids) if wedding else set()
    settled: set[frozenset[int]] = set()
    if royal_family:
        settled = {
            frozenset(pair)
            for pair in MarriageOffer.objects.filter(
                campaign=campaign, status=OfferStatus.ACCEPTED, minor_character_id__in=ids
            ).values_list("minor_character_id", "suitor_id")
        }
    return [
        _terms_problem(match) if {groom.pk, bride.pk} & royal_family and frozenset((groom.pk, bride.pk)) not in settled else None
        for match, (groom, bride) in zip(matches, couples, strict=True)
    ]


def _terms_problem(match: Marriage | Match) -> str | None:
    """The standard dynastic alliance's terms: a dowry and a title, or what is missing."""
    dowry = match.dowry.strip()
    good_dowry = dowry == f"{bl.DOWRY_DUCATS} ducats" or (dowry.startswith("province:") and dowry[9:].strip() != "")
    if good_dowry and match.alliance_title.strip():
        return None
    return Problem(
        "A match of a monarch or of a monarch's child needs a title for the giving dynasty and a dowry of 100 ducats "
        "or a province: record them (dowry '100 ducats' or 'province: <name>', and the title) (BloodLine, Marriage).",
        TERMS,
    )


def dowry(campaign: Campaign, wedding: Wedding, chronicle: Chronicle) -> list[Posting]:
    """Dowries change hands at the wedding: an accepted minor-house offer's dowry from the suitor's
    house to the minor house; a standard alliance's 100 ducats from the bride's house to the groom's
    (a province given as dowry is recorded, not posted)."""
    match, groom, bride = wedding.match, wedding.groom, wedding.bride
    offer = (
        MarriageOffer.objects.filter(
            campaign=campaign, status=OfferStatus.ACCEPTED, minor_character__in=[groom, bride], suitor__in=[groom, bride]
        )
        .select_related("suitor__controlled_by", "minor_character__controlled_by")
        .first()
    )
    terms = _dowry_terms(match, offer, wedding.groom_house, wedding.bride_house)
    if terms is None:
        return []
    payer, payee, amount = terms
    chronicle.add(
        "payment_owed",
        f"{amount} ducats of dowry from the house of {payer.name} to the house of {payee.name} for the match of "
        f"{groom.display_name} and {bride.display_name}.",
        readers=[payer.pk, payee.pk],
        dynasty=payer.pk,
        amount=-amount,
        marriage=match.pk,
    )
    posting = treasury.unsaved(
        campaign, payer=payer, payee=payee, amount=amount, kind=PostingKind.DOWRY, reason="dowry", marriage=match
    )
    return [posting] if posting is not None else []


def dowry_money(
    campaign: Campaign, matches: Sequence[Marriage], couples: Sequence[tuple[Character, Character]]
) -> list[WeddingMoney | None]:
    offers: dict[frozenset[int], MarriageOffer] = {}
    ids = [pk for pair in couples for pk in (pair[0].pk, pair[1].pk)]
    for offer in MarriageOffer.objects.filter(
        campaign=campaign, status=OfferStatus.ACCEPTED, minor_character_id__in=ids, suitor_id__in=ids
    ).select_related("suitor__controlled_by", "minor_character__controlled_by"):
        offers[frozenset((offer.minor_character_id, offer.suitor_id))] = offer
    out: list[WeddingMoney | None] = []
    for match, (groom, bride) in zip(matches, couples, strict=True):
        terms = _dowry_terms(match, offers.get(frozenset((groom.pk, bride.pk))), groom.controlled_by, bride.controlled_by)
        out.append(WeddingMoney(terms[0], terms[1], terms[2], PostingKind.DOWRY, "dowry") if terms is not None else None)
    return out


def _dowry_terms(
    match: Marriage, offer: MarriageOffer | None, groom_house: Dynasty | None, bride_house: Dynasty | None
) -> tuple[Dynasty, Dynasty, int] | None:
    """Who pays whom the dowry at the wedding (payer, payee, ducats), or None."""
    if offer is not None:
        payer = offer.suitor.controlled_by
        payee = offer.minor_character.controlled_by
        amount = offer.dowry
    elif match.dowry == f"{bl.DOWRY_DUCATS} ducats":
        payer, payee, amount = bride_house, groom_house, bl.DOWRY_DUCATS
    else:
        return None
    if payer is None or payee is None or payer == payee or not amount:
        return None
    return payer, payee, amount


def treasury_payments(
    campaign: Campaign, groom: Character, bride: Character, groom_house: Dynasty | None, reigning: Collection[int]
) -> list[TreasuryPayment]:
    return []  # the only money of a match is its dowry
