"""What happens to contracts when the dynasties' world changes (not transactions: the dynastic services call them
inside theirs): a wedding, a death, a marriage ended, the turn advanced (recurring payments, fixed terms)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from django.db.models import Count, Q

from campaign.models import Campaign
from campaign.steps import Chronicle
from contracts.models import ClauseKind, Contract, ContractKind, ContractPayment, ContractState, EndKind, Excommunication
from contracts.services.claims import obligations_turn_advance
from contracts.services.common import (
    BINDING,
    LIVE,
    _end,
    _house,
    _houses,
    _party_ids,
    _pk,
    died_heirless,
    excommunicated,
    leader_of,
)
from contracts.services.in_force import _come_into_force, _pay
from dynasties.models import Dynasty, Marriage, PostingKind, Reign
from dynasties.services.common import World
from dynasties.services.play_registry import play_of
from rules import contracts as rules

# hooks for the dynastic services (not transactions) -------------------------------------------


def contracts_on_wedding(campaign: Campaign, marriage: Marriage | int, chronicle: Chronicle) -> list[Contract]:
    """The wedding brings the match's signed marriage contract into force (A6). Call from the
    wedding service, in its transaction, once the couple is wed."""
    return contracts_on_weddings(campaign, [marriage], chronicle)


def contracts_on_weddings(campaign: Campaign, marriages: Iterable[Marriage | int], chronicle: Chronicle) -> list[Contract]:
    """``contracts_on_wedding`` for many weddings at once: one query when no contract waits."""
    pks = [_pk(m, "marriage") for m in marriages]
    waiting = list(
        Contract.objects.filter(campaign=campaign, marriage_id__in=pks, kind=ContractKind.MARRIAGE, state=ContractState.SIGNED)
        .select_related("marriage__husband", "marriage__wife")
        .order_by("pk")
    )
    for contract in waiting:
        _come_into_force(campaign, contract, chronicle, "at the wedding")
    return waiting


def _match_end_reason(match: Marriage, dead: Collection[int]) -> tuple[EndKind, str]:
    husband, wife = match.husband, match.wife
    gone = [c for c in (husband, wife) if c.pk in dead]
    if match.wedding_year is None:
        if gone:
            names = _houses(c.display_name for c in gone)
            return EndKind.BETROTHAL_VOID, f"betrothal void: {names} died before the wedding; no penalty"
        return EndKind.BETROTHAL_VOID, f"the betrothal ended ({match.end_cause or 'broken off'}); no penalty"
    if len(gone) == 2:
        return EndKind.DEATH, f"deaths of both spouses, {husband.display_name} and {wife.display_name}"
    if gone:
        role = "husband" if gone[0].pk == husband.pk else "wife"
        return EndKind.DEATH, f"death of the {role}, {gone[0].display_name}"
    return EndKind.DEATH, f"the marriage ended ({match.end_cause})"


def contracts_on_deaths(campaign: Campaign, character_ids: Iterable[int], chronicle: Chronicle | None = None) -> list[Contract]:
    """Deaths end contracts: a marriage contract when a spouse dies (A6; a betrothal's contract dies
    without penalty, B); a binding agreement when a leader party to it dies heirless, who also frees
    his house from excommunication (20.3, 22.14). Call from ``character_die`` once the dead are
    marked dead (before their successions are resolved)."""
    ids = set(character_ids)
    own = chronicle is None
    chronicle = chronicle or Chronicle(campaign)
    year = campaign.current_year
    ended: list[Contract] = []
    matches = (
        Contract.objects.filter(campaign=campaign, kind=ContractKind.MARRIAGE, state__in=LIVE)
        .filter(Q(marriage__husband_id__in=ids) | Q(marriage__wife_id__in=ids))
        .select_related("marriage__husband", "marriage__wife")
        .prefetch_related("parties")
    )
    for contract in matches:
        assert contract.marriage is not None
        kind, reason = _match_end_reason(contract.marriage, ids)
        _end(contract, year, kind, reason, chronicle, sorted(p.pk for p in contract.parties.all()))
        ended.append(contract)
    agreements = list(
        Contract.objects.filter(campaign=campaign, kind=ContractKind.AGREEMENT, state__in=BINDING).prefetch_related("parties")
    )
    banned = excommunicated(campaign)
    if (agreements or banned) and play_of(campaign).births.keeps_families():  # rolled monarchs: no heir on the records
        reigns = list(
            Reign.objects.filter(campaign=campaign, holder_id__in=ids).filter(Q(end_year__isnull=True) | Q(end_year=year))
        )
        if reigns:
            ended += _heirless_leaders(campaign, reigns, agreements, banned, chronicle)
    if own:
        chronicle.flush()
    return ended


def _heirless_leaders(
    campaign: Campaign,
    reigns: Sequence[Reign],
    agreements: Sequence[Contract],
    banned: Mapping[int, Excommunication],
    chronicle: Chronicle,
) -> list[Contract]:
    year = campaign.current_year
    world = World(campaign)
    freed: dict[int, str] = {}  # house -> its late leader's name
    for dynasty in world.dynasties.values():
        leader = leader_of(dynasty, reigns, year)
        if leader is not None and died_heirless(world, leader, dynasty.crown):
            freed[dynasty.pk] = world.characters[leader].display_name
    ended: list[Contract] = []
    for contract in agreements:
        parties = sorted(p.pk for p in contract.parties.all())
        hit = [pk for pk in parties if pk in freed]
        if hit:
            who = _houses(f"{freed[pk]}, leader of {_house(world.dynasties[pk])}," for pk in hit)
            _end(contract, year, EndKind.HEIRLESS, f"{who} died heirless; every party is freed (20.3)", chronicle, parties)
            ended.append(contract)
    for pk, excommunication in banned.items():
        if pk in freed:
            excommunication.ended_year = year
            excommunication.end_reason = f"{freed[pk]}, the leader, died heirless (22.14)"[:200]
            excommunication.save(update_fields=["ended_year", "end_reason"])
            chronicle.add(
                "readmission",
                f"The excommunication of {_house(world.dynasties[pk])} ends: its leader {freed[pk]} died heirless (22.14).",
                dynasty=pk,
                excommunication=excommunication.pk,
            )
    return ended


def contracts_on_marriage_end(campaign: Campaign, marriage: Marriage | int, chronicle: Chronicle) -> list[Contract]:
    """A match ended otherwise than by death (a betrothal broken off, a bride retired): its
    contracts end with it. Call from the service that ended it."""
    pk = _pk(marriage, "marriage")
    ended: list[Contract] = []
    for contract in Contract.objects.filter(
        campaign=campaign, marriage_id=pk, marriage__ended_year__isnull=False, state__in=LIVE
    ).select_related("marriage__husband", "marriage__wife"):
        assert contract.marriage is not None
        kind, reason = _match_end_reason(contract.marriage, ())
        _end(contract, campaign.current_year, kind, reason, chronicle, _party_ids(contract))
        ended.append(contract)
    return ended


def contracts_turn_advance(campaign: Campaign, chronicle: Chronicle) -> None:
    """At the turn advance (``campaign.current_year`` is the new turn): fixed terms expire, signed
    contracts whose start year has come into force, and recurring payments are posted (or recorded
    unpaid). A marriage contract whose match ended without a hook is closed here too. A parley's
    decision left open through its turn is flouted: the house is excommunicated (22.1)."""
    obligations_turn_advance(campaign, chronicle)
    year = campaign.current_year
    live = list(
        Contract.objects.filter(campaign=campaign, state__in=BINDING)
        .select_related("marriage__husband", "marriage__wife")
        .prefetch_related("parties", "clauses")
        .order_by("pk")
    )
    if not live:
        return
    due_before: dict[int, int] = {
        row["clause_id"]: row["n"]
        for row in ContractPayment.objects.filter(contract__in=live, breach__isnull=True, clause__isnull=False)
        .exclude(year=year)
        .values("clause_id")
        .annotate(n=Count("pk"))
    }
    done_now = set(
        ContractPayment.objects.filter(contract__in=live, breach__isnull=True, year=year).values_list("clause_id", flat=True)
    )
    houses: dict[int, Dynasty] = {}
    for contract in live:
        parties = sorted(p.pk for p in contract.parties.all())
        for party in contract.parties.all():
            houses[party.pk] = party
        match = contract.marriage
        if match is not None and match.ended_year is not None:
            kind, reason = _match_end_reason(match, ())
            _end(contract, max(match.ended_year, contract.in_force_year or match.ended_year), kind, reason, chronicle, parties)
            continue
        if contract.state == ContractState.IN_FORCE and rules.term_expired(contract.in_force_year, contract.term_years, year):
            _end(
                contract,
                year,
                EndKind.TERM,
                f"its term of {contract.term_years} years from {contract.in_force_year} has run",
                chronicle,
                parties,
            )
            continue
        if contract.state == ContractState.SIGNED:
            if contract.kind != ContractKind.MARRIAGE and contract.start_year <= year:
                _come_into_force(campaign, contract, chronicle, f"in {year}, as agreed")
            continue
        for clause in contract.clauses.all():
            if clause.kind != ClauseKind.RECURRING_PAYMENT or clause.pk in done_now:
                continue
            p = clause.params
            if rules.instalment_due(p, year, due_before.get(clause.pk, 0)):
                _pay(
                    campaign,
                    contract,
                    clause=clause,
                    payer=houses[p["payer"]],
                    payee=houses[p["payee"]],
                    amount=p["amount"],
                    kind=PostingKind.CONTRACT,
                    reason=f"recurring payment for {year}",
                    chronicle=chronicle,
                    parties=parties,
                )
