"""Drafting: a contract with its parties and structured clauses, checked against the rules (a marriage contract
against its match, a renunciation against the line)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from django.db import transaction

from campaign import audit
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from contracts.models import Clause, ClauseKind, Contract, ContractKind
from contracts.services.common import BINDING, _data, _house, _houses, _pk
from dynasties.models import Character, Crown, Dynasty, Marriage, Reign, Renunciation, Status
from rules import contracts as rules
from rules.errors import NotFound, RuleError

# drafting and signing -----------------------------------------------------------------------------


def _check_renunciation(campaign: Campaign, params: Mapping[str, Any], name: str) -> Character:
    try:
        who = Character.objects.get(pk=params["character"], campaign=campaign)
    except Character.DoesNotExist:
        raise RuleError(
            f"{name}: there is no character #{params['character']} in {campaign.name}.", code="invalid_clause"
        ) from None
    crown = params["crown"]
    known = (
        Crown.objects.filter(campaign=campaign, name=crown).exists()
        or Dynasty.objects.filter(campaign=campaign, crown=crown).exists()
    )
    if not known:
        raise RuleError(f"{name}: there is no crown called {crown!r} in {campaign.name}.", code="invalid_clause")
    if who.status == Status.DEAD:
        raise RuleError(f"{name}: {who.display_name} is dead and can renounce nothing.", code="invalid_clause")
    if Renunciation.objects.filter(character=who, crown=crown).exists():
        raise RuleError(f"{name}: {who.display_name} has already renounced the crown of {crown}.", code="invalid_clause")
    if Reign.objects.filter(campaign=campaign, crown=crown, holder=who, end_year__isnull=True).exists():
        raise RuleError(
            f"{name}: {who.display_name} reigns over {crown}; a monarch cannot renounce his own crown ('Monarchs may "
            "not abdicate, nor be deposed', A7).",
            code="invalid_clause",
        )
    return who


def _check_marriage_terms(match: Marriage, clauses: Sequence[tuple[str, dict[str, Any]]]) -> None:
    kinds = [k for k, _ in clauses]
    wife_houses = {match.wife.birth_dynasty_id, match.wife.controlled_by_id} - {None}
    if ClauseKind.HUSBAND_JOINS_WIFE in kinds:
        if match.wedding_year is not None and not match.husband_joins_wife:
            raise RuleError(
                f"The husband joins the wife's dynasty at the wedding (A6), and {match} were wed in {match.wedding_year}: "
                "the clause comes too late.",
                code="invalid_clause",
            )
        raised = next((p["dynasty"] for k, p in clauses if k == ClauseKind.CHILDREN_RAISED_BY), None)
        if raised is not None and raised not in wife_houses:
            raise RuleError(
                "When the husband joins the wife's dynasty the children are raised in her dynasty (A6): the children "
                "clause names another house.",
                code="invalid_clause",
            )


def _check_marriage(
    campaign: Campaign, contract_kind: str, marriage: Marriage | int | None, parties: Collection[int]
) -> Marriage | None:
    if contract_kind != ContractKind.MARRIAGE:
        if marriage is not None:
            raise RuleError(
                "Only a marriage contract seals a marriage or betrothal; draft it as a marriage contract.", code="invalid"
            )
        return None
    if marriage is None:
        raise RuleError(
            "A marriage contract seals a marriage or a betrothal: name the match (A6).",
            code="invalid",
            fields={"marriage": "required"},
        )
    pk = _pk(marriage, "marriage")
    try:
        match = Marriage.objects.select_related("husband", "wife").get(pk=pk, campaign=campaign)
    except Marriage.DoesNotExist:
        raise NotFound(f"There is no marriage or betrothal #{pk} in {campaign.name}.") from None
    if match.ended_year is not None:
        raise RuleError(
            f"The match of {match} ended in {match.ended_year} ({match.end_cause}): no contract can seal it.", code="ended"
        )
    for spouse in (match.husband, match.wife):
        houses = {spouse.birth_dynasty_id, spouse.controlled_by_id} - {None}
        if houses and not houses & set(parties):
            house_pk = spouse.controlled_by_id or spouse.birth_dynasty_id
            assert house_pk is not None  # one of the two: houses is not empty
            house = Dynasty.objects.get(pk=house_pk)
            raise RuleError(
                f"A marriage contract is made between the spouses' houses: {_house(house)} ({spouse.display_name}) "
                "must be a party (A6).",
                code="invalid",
                fields={"parties": "spouses"},
            )
    return match


@transaction.atomic
def contract_draft(
    *,
    campaign: Campaign | int,
    kind: str,
    title: str,
    parties: Sequence[Dynasty | int],
    marriage: Marriage | int | None = None,
    start_year: int | None = None,
    term_years: int | None = None,
    clauses: Sequence[Mapping[str, Any]] = (),
    text: str = "",
    by: Actor,
) -> Contract:
    """Draft a contract: its kind, parties (two houses or more), the match a marriage contract seals,
    its start, an optional fixed term, and its clauses, each checked against its kind."""
    campaign = lock_campaign(campaign, seen=Seen.by(*parties))  # its parties and the GM
    require(by, campaign, "draft", parties=[p.pk if isinstance(p, Dynasty) else p for p in parties])
    if kind not in ContractKind.values:
        raise RuleError(f"Unknown kind of contract {kind!r}; one of: {', '.join(ContractKind.values)}.", code="invalid")
    if not title.strip():
        raise RuleError("Give the contract a title.", code="invalid", fields={"title": "required"})
    ids = list(dict.fromkeys(_pk(p, "dynasty") for p in parties))
    houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign, pk__in=ids)}
    missing = [pk for pk in ids if pk not in houses]
    if missing:
        raise NotFound(f"There is no dynasty #{missing[0]} in {campaign.name} to be a party.")
    if len(ids) < 2:
        raise RuleError("A contract binds two houses or more: name the parties.", code="invalid", fields={"parties": "two"})
    match = _check_marriage(campaign, kind, marriage, ids)
    if start_year is None:
        start_year = campaign.current_year
    if isinstance(start_year, bool) or not isinstance(start_year, int) or start_year < campaign.start_year:
        raise RuleError(f"The start year must be a year of the campaign (from {campaign.start_year}).", code="invalid")
    if term_years is not None:
        if kind == ContractKind.MARRIAGE:
            raise RuleError(
                "A marriage contract lasts while the marriage lasts (A6): put fixed terms on its clauses instead "
                "(e.g. a recurring payment's number of turns).",
                code="invalid",
                fields={"term_years": "marriage"},
            )
        if isinstance(term_years, bool) or not isinstance(term_years, int) or term_years < 1:
            raise RuleError(
                "A fixed term is a whole number of years (1 or more).", code="invalid", fields={"term_years": "invalid"}
            )
    cleaned: list[tuple[str, dict[str, Any], str]] = []
    for n, spec in enumerate(clauses, 1):
        clause_kind = spec.get("kind", "")
        name = f"Clause {n} ({rules.CLAUSE_LABELS.get(clause_kind, clause_kind)})"
        params = rules.validate_clause(clause_kind, spec.get("params"), parties=ids, label=name)
        if clause_kind == ClauseKind.RENUNCIATION:
            _check_renunciation(campaign, params, name)
        cleaned.append((clause_kind, params, str(spec.get("text", "")).strip()))
    rules.validate_clauses([k for k, _, _ in cleaned], marriage_contract=kind == ContractKind.MARRIAGE)
    if match is not None:
        _check_marriage_terms(match, [(k, p) for k, p, _ in cleaned])
    if match is not None:
        sealed = Contract.objects.filter(campaign=campaign, marriage=match, kind=ContractKind.MARRIAGE, state__in=BINDING).first()
        if sealed is not None:
            raise RuleError(
                f"The match of {match} is already sealed by the contract '{sealed.title}' "
                f"({sealed.state.replace('_', ' ')}): one contract seals a match: edit that one, or end it by consent first.",
                code="already_sealed",
                fields={"marriage": "sealed"},
            )
    contract = Contract.objects.create(
        campaign=campaign,
        kind=kind,
        title=title.strip()[:200],
        marriage=match,
        start_year=start_year,
        term_years=term_years,
        text=text.strip(),
    )
    contract.parties.set(ids)
    audit.bulk_create(
        Clause, [Clause(contract=contract, position=n, kind=k, params=p, text=t) for n, (k, p, t) in enumerate(cleaned, 1)]
    )
    chronicle = Chronicle(campaign)
    chronicle.add(
        "contract_draft",
        f"{contract.get_kind_display()} '{contract.title}' drafted between "
        f"{_houses(_house(houses[pk]) for pk in ids)} ({len(cleaned)} clause{'s' if len(cleaned) != 1 else ''}).",
        **_data(contract, sorted(ids)),
    )
    chronicle.flush()
    return contract
