"""Contracts between dynasties (RULES.md A6, B Marriage/Betrothal, D; issue 5 "Contracts").

Public services are keyword-only transactions on the locked campaign; each writes a chronicle line
for what it did. The ``contracts_on_*`` and ``contracts_turn_advance`` hooks are not transactions:
the dynastic services call them inside theirs, with their chronicle.

- A contract is drafted with its parties and structured clauses, then signed: each party signs its
  side (``contract_sign_party``), or the GM records every party's signature at once
  (``contract_sign``); both take one path, and the contract is signed when the last party signs.
  A marriage contract signed before the wedding waits and comes into force at the wedding (A6:
  "the contract binds only from the wedding"); other contracts come into force when signed, or at
  their start year.
- Coming into force applies the clauses the companion can apply: one-off payments and dowries are
  posted to the ledger, a renunciation is recorded (it outlives the contract), who raises the
  children and whether the husband joins the wife's house are written on the match.
- Recurring payments are posted at each turn advance while the contract is in force. A payment the
  payer cannot cover is kept as unpaid (``ContractPayment``), in the chronicle for both parties
  and the GM, until ``payment_settle`` makes it good.
- A marriage contract ends by itself when a spouse dies (a betrothal's contract dies without
  penalty); a binding agreement by mutual consent or when a leader party to it dies heirless; any
  contract when its fixed term expires or a party invokes its escape clause.
- Breaches: BloodLine's ruling by a majority of the other players, term by term; the medieval
  parley, whose tie excommunicates the breaker of a binding agreement; excommunication ends when
  the leader dies heirless or a readmission parley (once per round) readmits the player.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Q

from campaign import audit, treasury
from campaign.models import Campaign, PostingKind
from campaign.permissions import consequence, readers_text, require
from campaign.steps import Chronicle, lock_campaign
from contracts.models import (
    Breach,
    Clause,
    ClauseKind,
    Contract,
    ContractKind,
    ContractPayment,
    ContractSignature,
    ContractState,
    Dispute,
    DisputeTerm,
    DisputeVote,
    EndKind,
    Excommunication,
    Parley,
    ParleyKind,
    ParleyVote,
    PaymentStatus,
)
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Marriage, Reign, Renunciation, Status
from dynasties.services.claims import claim_renounce
from dynasties.services.common import World
from rules import contracts as rules
from rules.errors import NotFound, RuleError
from rules.succession import iter_succession

LIVE = (ContractState.DRAFT, ContractState.SIGNED, ContractState.IN_FORCE)
BINDING = (ContractState.SIGNED, ContractState.IN_FORCE)
BLOODLINE = "eu-bloodline"
NO_FAMILIES = "eu-monarchs"  # rolled monarchs: no families kept, so no heir can be read off the records


# helpers ------------------------------------------------------------------------------------------


def _pk(value: Any, what: str) -> int:
    pk = getattr(value, "pk", value)
    if isinstance(pk, str) and pk.strip().isdigit():
        pk = int(pk)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not a {what} id.", code="invalid")
    return pk


def _contract(campaign: Campaign, contract: Contract | int) -> Contract:
    pk = _pk(contract, "contract")
    try:
        return Contract.objects.select_related("marriage__husband", "marriage__wife").get(pk=pk, campaign=campaign)
    except Contract.DoesNotExist:
        raise NotFound(f"There is no contract #{pk} in {campaign.name}.") from None


def _dynasty(campaign: Campaign, value: Dynasty | int, role: str) -> Dynasty:
    pk = _pk(value, "dynasty")
    try:
        return Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no dynasty #{pk} in {campaign.name} to be the {role}.") from None


def _house(d: Dynasty) -> str:
    return f"the house of {d.name}"


def _House(d: Dynasty) -> str:
    return f"The house of {d.name}"


def _houses(names: Iterable[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _party_ids(contract: Contract) -> list[int]:
    return sorted(contract.parties.values_list("pk", flat=True))


def _data(contract: Contract, parties: Sequence[int], **extra: Any) -> dict[str, Any]:
    """What every chronicle line of a contract carries: its readers are the contract's parties (the
    policy shows the line to them and the GM, no one else)."""
    return {"contract": contract.pk, "parties": list(parties), "readers": list(parties), **extra}


def leader_of(dynasty: Dynasty, reigns: Iterable[Reign], year: int) -> int | None:
    """A house's leader: the monarch of its crown (his reign open, or ended this very year)."""
    if not dynasty.crown:
        return None
    for reign in reigns:
        if reign.crown == dynasty.crown and (reign.end_year is None or reign.end_year == year):
            return reign.holder_id
    return None


def died_heirless(world: World, leader: int, crown: str) -> bool:
    """Nobody in the late leader's line of succession (the world must hold the dead)."""
    barred = world.renounced.get(crown, set())
    return next(iter_succession(world.people, leader, royal=world.past_holders(crown), barred=barred), None) is None


def excommunicated(campaign: Campaign) -> dict[int, Excommunication]:
    """The houses excommunicated now."""
    return {e.dynasty_id: e for e in Excommunication.objects.filter(campaign=campaign, ended_year__isnull=True)}


def unpaid_payments(campaign: Campaign, dynasty: Dynasty | int | None = None) -> list[ContractPayment]:
    """Contract payments still unpaid; for a house, those it owes or is owed (the GM: all)."""
    qs = ContractPayment.objects.filter(campaign=campaign, status=PaymentStatus.UNPAID)
    if dynasty is not None:
        pk = _pk(dynasty, "dynasty")
        qs = qs.filter(Q(payer_id=pk) | Q(payee_id=pk))
    return list(qs.select_related("contract", "clause", "payer", "payee").order_by("year", "pk"))


def _end(contract: Contract, year: int, kind: EndKind, reason: str, chronicle: Chronicle, parties: Sequence[int]) -> None:
    contract.state = ContractState.ENDED
    contract.ended_year = year
    contract.end_kind = kind
    contract.end_reason = reason[:200]
    contract.save(update_fields=["state", "ended_year", "end_kind", "end_reason"])
    chronicle.add(
        "contract_end", f"The {contract.get_kind_display().lower()} '{contract.title}' ends: {reason}.",
        **_data(contract, parties, end_kind=str(kind)),
    )


def _pay(
    campaign: Campaign,
    contract: Contract,
    *,
    clause: Clause | None,
    payer: Dynasty,
    payee: Dynasty,
    amount: int,
    kind: str,
    reason: str,
    chronicle: Chronicle,
    parties: Sequence[int],
    breach: Breach | None = None,
) -> ContractPayment:
    """Post a payment the contract makes due, or record it as unpaid when the payer cannot cover it
    (unless the GM allows overdrafts): never skipped silently."""
    money = treasury.currency(campaign)
    held = treasury.balance(campaign, payer)
    common = dict(
        campaign=campaign, contract=contract, clause=clause, breach=breach, year=campaign.current_year,
        payer=payer, payee=payee, amount=amount,
    )
    if held < amount and not campaign.allow_overdraft:
        payment = ContractPayment.objects.create(
            status=PaymentStatus.UNPAID, note="unpaid: the payer could not cover it", **common
        )  # the payer's balance is his and the GM's: his exchequer shows it, this note does not
        chronicle.add(
            "contract_unpaid",
            f"UNPAID: {_house(payer)} owes {_house(payee)} {amount} {money} ({reason}) under '{contract.title}'; "
            "the debt stands until it is settled.",
            **_data(contract, parties, payment=payment.pk, payer=payer.pk, payee=payee.pk, amount=amount),
        )
        return payment
    posting = treasury.post(
        campaign, payer=payer, payee=payee, amount=amount, kind=kind, reason=f"{contract.title}: {reason}", contract=contract
    )
    payment = ContractPayment.objects.create(status=PaymentStatus.PAID, posting=posting, **common)
    chronicle.add(
        "contract_payment",
        f"{amount} {money} from {_house(payer)} to {_house(payee)} ({reason}) under '{contract.title}'.",
        **_data(contract, parties, payment=payment.pk, payer=payer.pk, payee=payee.pk, amount=amount),
    )
    return payment


# drafting and signing -----------------------------------------------------------------------------


def _check_renunciation(campaign: Campaign, params: Mapping[str, Any], name: str) -> Character:
    try:
        who = Character.objects.get(pk=params["character"], campaign=campaign)
    except Character.DoesNotExist:
        raise RuleError(
            f"{name}: there is no character #{params['character']} in {campaign.name}.", code="invalid_clause"
        ) from None
    crown = params["crown"]
    known = Crown.objects.filter(campaign=campaign, name=crown).exists() or Dynasty.objects.filter(
        campaign=campaign, crown=crown
    ).exists()
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
            "A marriage contract seals a marriage or a betrothal: name the match (A6).", code="invalid",
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
            house = Dynasty.objects.get(pk=spouse.controlled_by_id or spouse.birth_dynasty_id)
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
    by: AbstractBaseUser | None = None,
) -> Contract:
    """Draft a contract: its kind, parties (two houses or more), the match a marriage contract seals,
    its start, an optional fixed term, and its clauses, each checked against its kind."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "party", parties=[p.pk if isinstance(p, Dynasty) else p for p in parties])
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
    contract = Contract.objects.create(
        campaign=campaign, kind=kind, title=title.strip()[:200], marriage=match, start_year=start_year,
        term_years=term_years, text=text.strip(),
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


def _write_match_terms(campaign: Campaign, contract: Contract, clauses: Sequence[Clause]) -> None:
    """Who raises the children, whether the husband joins the wife, and the dowry are terms of the
    match: written on it so the wedding and the births read them."""
    match = contract.marriage
    if match is None:
        return
    changed: list[str] = []
    for clause in clauses:
        if clause.kind == ClauseKind.HUSBAND_JOINS_WIFE and not match.husband_joins_wife:
            match.husband_joins_wife = True
            changed.append("husband_joins_wife")
        elif clause.kind == ClauseKind.CHILDREN_RAISED_BY and match.children_raised_by_id != clause.params["dynasty"]:
            match.children_raised_by_id = clause.params["dynasty"]
            changed.append("children_raised_by")
        elif clause.kind == ClauseKind.DOWRY and not match.dowry:
            p = clause.params
            dowry = f"{p['amount']} {treasury.currency(campaign)}" if "amount" in p else f"province: {p['province']}"
            match.dowry = dowry[:120]
            match.money_readers = readers_text(contract.parties.values_list("pk", flat=True))  # the contract's parties
            changed += ["dowry", "money_readers"]
    if changed:
        match.save(update_fields=changed)


def _come_into_force(campaign: Campaign, contract: Contract, chronicle: Chronicle, why: str) -> None:
    year = campaign.current_year
    parties = _party_ids(contract)
    houses = {d.pk: d for d in Dynasty.objects.filter(pk__in=parties)}
    contract.state = ContractState.IN_FORCE
    contract.in_force_year = year
    contract.save(update_fields=["state", "in_force_year"])
    chronicle.add(
        "contract_in_force", f"The {contract.get_kind_display().lower()} '{contract.title}' comes into force {why}.",
        **_data(contract, parties),
    )
    clauses = list(contract.clauses.all())
    _write_match_terms(campaign, contract, clauses)
    for clause in clauses:
        p = clause.params
        if clause.kind == ClauseKind.PAYMENT:
            _pay(
                campaign, contract, clause=clause, payer=houses[p["payer"]], payee=houses[p["payee"]], amount=p["amount"],
                kind=PostingKind.CONTRACT, reason="one-off payment", chronicle=chronicle, parties=parties,
            )
        elif clause.kind == ClauseKind.DOWRY and "amount" in p:
            _pay(
                campaign, contract, clause=clause, payer=houses[p["payer"]], payee=houses[p["payee"]], amount=p["amount"],
                kind=PostingKind.DOWRY, reason="dowry", chronicle=chronicle, parties=parties,
            )
        elif clause.kind == ClauseKind.RECURRING_PAYMENT and rules.instalment_due(p, year, 0):
            _pay(
                campaign, contract, clause=clause, payer=houses[p["payer"]], payee=houses[p["payee"]], amount=p["amount"],
                kind=PostingKind.CONTRACT, reason=f"recurring payment for {year}", chronicle=chronicle, parties=parties,
            )
        elif clause.kind == ClauseKind.CESSION or (clause.kind == ClauseKind.DOWRY and "province" in p):
            giver, taker = (p["from"], p["to"]) if clause.kind == ClauseKind.CESSION else (p["payer"], p["payee"])
            chronicle.add(
                "contract_cession",
                f"{houses[giver].name} cedes the province of {p['province']} to {_house(houses[taker])}"
                + (" as a dowry" if clause.kind == ClauseKind.DOWRY else "")
                + f" ('{contract.title}').",
                **_data(contract, parties, province=p["province"], giver=giver, taker=taker),
            )
        elif clause.kind == ClauseKind.RENUNCIATION:
            _renounce(campaign, contract, p, chronicle, parties)


def _renounce(campaign: Campaign, contract: Contract, p: Mapping[str, Any], chronicle: Chronicle, parties: Sequence[int]) -> None:
    """A renunciation in force; it outlives the contract (A6). One that cannot be made any more
    (the character died, or had renounced already) is noted, not fatal to a wedding."""
    who = Character.objects.filter(pk=p["character"], campaign=campaign).first()
    if who is None or who.status == Status.DEAD:
        chronicle.add(
            "contract_note",
            f"The renunciation of the crown of {p['crown']} in '{contract.title}' lapses: the character is dead.",
            **_data(contract, parties),
        )
        return
    if Renunciation.objects.filter(character=who, crown=p["crown"]).exists():
        return
    if Reign.objects.filter(campaign=campaign, crown=p["crown"], holder=who, end_year__isnull=True).exists():
        chronicle.add(
            "contract_note",
            f"The renunciation of the crown of {p['crown']} in '{contract.title}' lapses: {who.display_name} reigns "
            "over it now, and a monarch cannot renounce his own crown.",
            **_data(contract, parties),
        )
        return
    with consequence():  # the contract's term, signed by its parties: not the GM's entry
        claim_renounce(campaign=campaign, character=who, crown=p["crown"], source=f"contract '{contract.title}'")


class NotAParty(RuleError):
    """A house signs (or acts on) only a contract it is party to."""

    code = "not_party"


class NotADraft(RuleError):
    """Only a draft is signed."""

    code = "not_draft"


class AlreadySigned(RuleError):
    """A house signs a contract once."""

    code = "already_signed"


def _require_draft(contract: Contract) -> None:
    if contract.state != ContractState.DRAFT:
        raise NotADraft(
            f"'{contract.title}' is already {contract.get_state_display().lower()}"
            + (f" (signed in {contract.signed_year})" if contract.signed_year else "")
            + ": only a draft is signed."
        )


def _check_signable(campaign: Campaign, contract: Contract, parties: Sequence[int], clauses: Sequence[Clause]) -> Marriage | None:
    """What must still hold for the draft to be signed (checked at every signature, so that no
    house signs what could not come into force): its renunciations can still be made, a marriage
    contract's match is open, its terms fit the match and no other contract seals it."""
    for clause in clauses:
        if clause.kind == ClauseKind.RENUNCIATION:
            _check_renunciation(campaign, clause.params, f"Clause {clause.position} (renunciation of a claim)")
    if contract.kind != ContractKind.MARRIAGE:
        return None
    match = _check_marriage(campaign, contract.kind, contract.marriage_id, parties)
    assert match is not None
    _check_marriage_terms(match, [(c.kind, c.params) for c in clauses])
    other = (
        Contract.objects.filter(campaign=campaign, marriage=match, kind=ContractKind.MARRIAGE, state__in=BINDING)
        .exclude(pk=contract.pk)
        .first()
    )
    if other is not None:
        raise RuleError(
            f"The match of {match} is already sealed by the contract '{other.title}'; draft changes into one contract.",
            code="already_sealed",
        )
    return match


def _record_signatures(campaign: Campaign, contract: Contract, houses: Sequence[int], by: AbstractBaseUser | None) -> None:
    signed_by = by if by is not None and getattr(by, "pk", None) is not None else None
    audit.bulk_create(
        ContractSignature,
        [ContractSignature(contract=contract, dynasty_id=pk, year=campaign.current_year, signed_by=signed_by) for pk in houses],
        by=signed_by,
    )


def _signed_by_all(
    campaign: Campaign,
    contract: Contract,
    parties: Sequence[int],
    clauses: Sequence[Clause],
    match: Marriage | None,
    chronicle: Chronicle,
) -> None:
    """Every party has signed: the contract is signed. A marriage contract on a betrothal waits for
    the wedding (A6); one on a wedded couple, and every other contract, comes into force now (or
    at its start year)."""
    year = campaign.current_year
    contract.signed_year = year
    if match is not None:
        contract.marriage = match
        if match.wedding_year is None:
            contract.state = ContractState.SIGNED
            contract.save(update_fields=["state", "signed_year"])
            _write_match_terms(campaign, contract, clauses)
            chronicle.add(
                "contract_signed",
                f"The marriage contract '{contract.title}' is signed; it binds from the wedding of {match} (A6).",
                **_data(contract, parties, marriage=match.pk),
            )
        else:
            contract.save(update_fields=["signed_year"])
            chronicle.add("contract_signed", f"The marriage contract '{contract.title}' is signed.", **_data(contract, parties))
            _come_into_force(campaign, contract, chronicle, "at once (the couple is wed)")
    elif contract.start_year > year:
        contract.state = ContractState.SIGNED
        contract.save(update_fields=["state", "signed_year"])
        chronicle.add(
            "contract_signed",
            f"The {contract.get_kind_display().lower()} '{contract.title}' is signed; it comes into force in "
            f"{contract.start_year}.",
            **_data(contract, parties),
        )
    else:
        contract.save(update_fields=["signed_year"])
        chronicle.add(
            "contract_signed",
            f"The {contract.get_kind_display().lower()} '{contract.title}' is signed"
            + (" by all its parties as binding (20.3)" if contract.kind == ContractKind.AGREEMENT else "")
            + ".",
            **_data(contract, parties),
        )
        _come_into_force(campaign, contract, chronicle, "on signing")


def _sign(
    campaign: Campaign,
    contract: Contract,
    houses: Sequence[int],
    by: AbstractBaseUser | None,
    chronicle: Chronicle,
    *,
    alone: Dynasty | None = None,
) -> Contract:
    """The one path of signing: ``houses`` sign the draft (``alone``: one house signing its side,
    told in the chronicle); once every party has signed, the contract is signed and comes into
    force as due."""
    parties = _party_ids(contract)
    clauses = list(contract.clauses.all())
    match = _check_signable(campaign, contract, parties, clauses)
    _record_signatures(campaign, contract, houses, by)
    signed = set(ContractSignature.objects.filter(contract=contract).values_list("dynasty_id", flat=True))
    waiting = [pk for pk in parties if pk not in signed]
    if alone is not None:
        what = f"the {contract.get_kind_display().lower()} '{contract.title}'"
        if waiting:
            names = {d.pk: d for d in Dynasty.objects.filter(pk__in=waiting)}
            rest = _houses(_house(names[pk]) for pk in waiting)
            text = f"{_House(alone)} signs {what}; {rest} {'has' if len(waiting) == 1 else 'have'} yet to sign."
        else:
            text = f"{_House(alone)} signs {what}, the last of its parties to sign."
        chronicle.add("contract_signed", text, **_data(contract, parties, dynasty=alone.pk))
    if not waiting:
        _signed_by_all(campaign, contract, parties, clauses, match, chronicle)
    return contract


@transaction.atomic
def contract_sign(*, campaign: Campaign | int, contract: Contract | int, by: AbstractBaseUser | None = None) -> Contract:
    """Every party signs at once (the printed contract signed at the table, recorded by the GM): the
    houses that have not signed yet sign now. A marriage contract on a betrothal waits for the
    wedding (A6); one on a wedded couple, and every other contract, comes into force now (or at
    its start year)."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "gm")  # every party's signature at once: the GM records the table's
    contract = _contract(campaign, contract)
    _require_draft(contract)
    signed = set(contract.signatures.values_list("dynasty_id", flat=True))
    chronicle = Chronicle(campaign)
    _sign(campaign, contract, [pk for pk in _party_ids(contract) if pk not in signed], by, chronicle)
    chronicle.flush()
    return contract


@transaction.atomic
def contract_sign_party(
    *, campaign: Campaign | int, contract: Contract | int, dynasty: Dynasty | int, by: AbstractBaseUser | None = None
) -> Contract:
    """One party signs its side of a draft. The contract stays a draft until every party has
    signed; the last signature signs it, exactly as ``contract_sign`` does (it comes into force
    now, at its start year, or at the wedding)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    house = _dynasty(campaign, dynasty, "signatory")
    require(by, campaign, "house", dynasty=house.pk, what="a house signs its own side")
    if house.pk not in _party_ids(contract):
        raise NotAParty(f"{_House(house)} is not a party to '{contract.title}': only its parties sign it.")
    _require_draft(contract)
    earlier = ContractSignature.objects.filter(contract=contract, dynasty=house).first()
    if earlier is not None:
        raise AlreadySigned(f"{_House(house)} has already signed '{contract.title}' (in {earlier.year}): a house signs once.")
    chronicle = Chronicle(campaign)
    _sign(campaign, contract, [house.pk], by, chronicle, alone=house)
    chronicle.flush()
    return contract


def signatures(contract: Contract) -> dict[int, ContractSignature]:
    """The houses that have signed a contract, with their signatures."""
    return {s.dynasty_id: s for s in contract.signatures.all()}


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
    if (agreements or banned) and campaign.ruleset != NO_FAMILIES:
        reigns = list(
            Reign.objects.filter(campaign=campaign, holder_id__in=ids).filter(Q(end_year__isnull=True) | Q(end_year=year))
        )
        if reigns:
            ended += _heirless_leaders(campaign, reigns, agreements, banned, chronicle)
    if own:
        chronicle.flush()
    return ended


def _heirless_leaders(
    campaign: Campaign, reigns: Sequence[Reign], agreements: Sequence[Contract], banned: Mapping[int, Excommunication],
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
                dynasty=pk, excommunication=excommunication.pk,
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
    unpaid). A marriage contract whose match ended without a hook is closed here too."""
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
                contract, year, EndKind.TERM,
                f"its term of {contract.term_years} years from {contract.in_force_year} has run", chronicle, parties,
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
                    campaign, contract, clause=clause, payer=houses[p["payer"]], payee=houses[p["payee"]], amount=p["amount"],
                    kind=PostingKind.CONTRACT, reason=f"recurring payment for {year}", chronicle=chronicle, parties=parties,
                )


# ending by the parties ----------------------------------------------------------------------------


@transaction.atomic
def contract_end_by_consent(
    *, campaign: Campaign | int, contract: Contract | int, reason: str = "", by: AbstractBaseUser | None = None
) -> Contract:
    """The parties cancel a contract by mutual consent (20.3). A marriage contract in force cannot be
    broken: it lasts while both spouses live (A6)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    require(by, campaign, "party", parties=_party_ids(contract))
    if contract.state == ContractState.ENDED:
        raise RuleError(f"'{contract.title}' already ended in {contract.ended_year} ({contract.end_reason}).", code="ended")
    if contract.kind == ContractKind.MARRIAGE and contract.state == ContractState.IN_FORCE:
        raise RuleError(
            f"'{contract.title}' cannot be broken: a marriage contract lasts while both spouses live (A6).",
            code="unbreakable",
        )
    chronicle = Chronicle(campaign)
    why = "cancelled by mutual consent of the parties" + (f": {reason.strip()}" if reason.strip() else "")
    _end(contract, campaign.current_year, EndKind.CONSENT, why, chronicle, _party_ids(contract))
    chronicle.flush()
    return contract


@transaction.atomic
def contract_escape(
    *,
    campaign: Campaign | int,
    contract: Contract | int,
    by_dynasty: Dynasty | int,
    reason: str,
    by: AbstractBaseUser | None = None,
) -> Contract:
    """A party invokes the contract's escape clause, saying how its condition is met (BloodLine
    allows escape clauses)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    if contract.state not in BINDING:
        raise RuleError(
            f"'{contract.title}' is {contract.get_state_display().lower()}: there is nothing to escape.", code="not_in_force"
        )
    escape = contract.clauses.filter(kind=ClauseKind.ESCAPE).first()
    if escape is None:
        raise RuleError(f"'{contract.title}' has no escape clause: it ends only as its kind of contract ends.", code="no_escape")
    house = _dynasty(campaign, by_dynasty, "party invoking the escape clause")
    require(by, campaign, "house", dynasty=house.pk)
    parties = _party_ids(contract)
    if house.pk not in parties:
        raise RuleError(f"{_House(house)} is not a party to '{contract.title}'.", code="not_a_party")
    if not reason.strip():
        raise RuleError(
            f"Say how the escape condition is met ({escape.params['condition']}).", code="invalid", fields={"reason": "required"}
        )
    chronicle = Chronicle(campaign)
    _end(
        contract, max(campaign.current_year, contract.in_force_year or campaign.current_year), EndKind.ESCAPE,
        f"{_house(house)} invokes the escape clause ({escape.params['condition']}): {reason.strip()}", chronicle, parties,
    )
    chronicle.flush()
    return contract


@transaction.atomic
def payment_settle(
    *, campaign: Campaign | int, payment: ContractPayment | int, by: AbstractBaseUser | None = None
) -> ContractPayment:
    """Make good an unpaid contract payment now (refused if the payer still cannot cover it)."""
    campaign = lock_campaign(campaign)
    pk = _pk(payment, "payment")
    try:
        due = ContractPayment.objects.select_related("contract", "payer", "payee").get(pk=pk, campaign=campaign)
    except ContractPayment.DoesNotExist:
        raise NotFound(f"There is no contract payment #{pk} in {campaign.name}.") from None
    require(by, campaign, "house", dynasty=due.payer_id, what="the payer settles what it owes")
    if due.status == PaymentStatus.PAID:
        raise RuleError(f"Payment #{pk} was already paid.", code="already_paid")
    kind = PostingKind.DAMAGES if due.breach_id else PostingKind.CONTRACT
    posting = treasury.post(
        campaign, payer=due.payer, payee=due.payee, amount=due.amount, kind=kind,
        reason=f"{due.contract.title}: settles the unpaid payment of {due.year}", check_funds=True, by=by, contract=due.contract,
    )
    due.status = PaymentStatus.PAID
    due.posting = posting
    due.settled_year = campaign.current_year
    due.save(update_fields=["status", "posting", "settled_year"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "contract_payment",
        f"{_House(due.payer)} settles the {due.amount} {treasury.currency(campaign)} owed to "
        f"{_house(due.payee)} since {due.year} under '{due.contract.title}'.",
        **_data(
            due.contract, _party_ids(due.contract), payment=due.pk, payer=due.payer_id, payee=due.payee_id, amount=due.amount
        ),
    )
    chronicle.flush()
    return due


# breaches and disputes ------------------------------------------------------------------------


@transaction.atomic
def breach_record(
    *,
    campaign: Campaign | int,
    contract: Contract | int,
    by_dynasty: Dynasty | int,
    text: str,
    clause: Clause | int | None = None,
    raised_by: Dynasty | int | None = None,
    by: AbstractBaseUser | None = None,
) -> Breach:
    """A party records that another party broke the contract (``by_dynasty`` is the one in breach,
    ``raised_by`` the injured party: by default the other party of a two-party contract)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    require(by, campaign, "party", parties=_party_ids(contract))
    if contract.state != ContractState.IN_FORCE:
        raise RuleError(
            f"'{contract.title}' is {contract.get_state_display().lower()}, not in force: nothing in it can be broken"
            + (" (a marriage contract binds only from the wedding, A6)" if contract.kind == ContractKind.MARRIAGE else "")
            + ".",
            code="not_in_force",
        )
    parties = _party_ids(contract)
    breaker = _dynasty(campaign, by_dynasty, "party in breach")
    if breaker.pk not in parties:
        raise RuleError(f"{_House(breaker)} is not a party to '{contract.title}' and cannot break it.", code="not_a_party")
    if raised_by is None:
        others = [pk for pk in parties if pk != breaker.pk]
        if len(others) != 1:
            raise RuleError("Say which party raises the breach: the contract has more than two parties.", code="invalid")
        injured = Dynasty.objects.get(pk=others[0])
    else:
        injured = _dynasty(campaign, raised_by, "injured party")
        if injured.pk not in parties or injured.pk == breaker.pk:
            raise RuleError(f"The breach is raised by another party to '{contract.title}'.", code="not_a_party")
    term: Clause | None = None
    if clause is not None:
        term = contract.clauses.filter(pk=_pk(clause, "clause")).first()
        if term is None:
            raise NotFound(f"Clause #{_pk(clause, 'clause')} is not a term of '{contract.title}'.")
    if not text.strip():
        raise RuleError("Say what was broken.", code="invalid", fields={"text": "required"})
    breach = Breach.objects.create(
        campaign=campaign, contract=contract, clause=term, by_dynasty=breaker, raised_by=injured,
        year=campaign.current_year, text=text.strip(),
    )
    chronicle = Chronicle(campaign)
    chronicle.add(
        "contract_breach",
        f"{_House(injured)} accuses {_house(breaker)} of breaking '{contract.title}'"
        + (f" (clause {term.position}, {term.get_kind_display().lower()})" if term else "")
        + f": {text.strip()}.",
        **_data(contract, parties, breach=breach.pk, by_dynasty=breaker.pk, raised_by=injured.pk),
    )
    chronicle.flush()
    return breach


def _breach(campaign: Campaign, breach: Breach | int) -> Breach:
    pk = _pk(breach, "breach")
    try:
        return Breach.objects.select_related("contract", "by_dynasty", "raised_by", "clause").get(pk=pk, campaign=campaign)
    except Breach.DoesNotExist:
        raise NotFound(f"There is no breach #{pk} in {campaign.name}.") from None


def _unsettled(breach: Breach) -> None:
    if breach.resolved_year is not None:
        raise RuleError(f"This breach was settled in {breach.resolved_year}: {breach.resolution}.", code="settled")


@transaction.atomic
def dispute_majority(
    *,
    campaign: Campaign | int,
    breach: Breach | int,
    votes: Mapping[Any, Mapping[Any, bool]],
    by: AbstractBaseUser | None = None,
) -> Dispute:
    """BloodLine: the other players (not the disputing parties) read the contract and vote on each
    disputed term (``votes = {dynasty: {clause: uphold?}}``); the terms a majority of them upholds
    are enforced (damages are posted), the rest ignored."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    if campaign.ruleset != BLOODLINE:
        raise RuleError(
            "A ruling by a majority of the other players is BloodLine's way of settling disputes (B, Marriage/Betrothal); "
            "in this campaign put a broken binding agreement to a parley.",
            code="wrong_ruleset",
        )
    breach = _breach(campaign, breach)
    _unsettled(breach)
    contract = breach.contract
    clauses = {c.pk: c for c in contract.clauses.all()}
    disputing = {breach.by_dynasty_id, breach.raised_by_id}
    players = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER)}
    voters = sorted(pk for pk in players if pk not in disputing)
    cleaned: dict[int, dict[int, bool]] = {}
    for dynasty, terms in votes.items():
        dpk = _pk(dynasty, "dynasty")
        if dpk in disputing:
            name = (breach.by_dynasty if dpk == breach.by_dynasty_id else breach.raised_by).name
            raise RuleError(
                f"The house of {name} is a party to the dispute: disputes are ruled by a majority of the other players "
                "(BloodLine, Marriage/Betrothal).",
                code="not_a_voter",
            )
        cleaned[dpk] = {}
        for clause, vote in terms.items():
            cpk = _pk(clause, "clause")
            if cpk not in clauses:
                raise RuleError(f"Clause #{cpk} is not a term of '{contract.title}'.", code="invalid")
            cleaned[dpk][cpk] = vote
    terms = sorted({c for t in cleaned.values() for c in t} | ({breach.clause_id} if breach.clause_id else set()))
    rulings = rules.majority_ruling(cleaned, voters=voters, disputing=disputing, terms=terms)
    chronicle = Chronicle(campaign)
    parties = _party_ids(contract)
    dispute = Dispute.objects.create(campaign=campaign, breach=breach, year=campaign.current_year, voters=voters)
    DisputeVote.objects.bulk_create(
        [
            DisputeVote(dispute=dispute, dynasty_id=d, clause_id=c, upholds=v)
            for d, t in sorted(cleaned.items())
            for c, v in sorted(t.items())
        ]
    )
    upheld: list[str] = []
    ignored: list[str] = []
    term_rows: list[DisputeTerm] = []
    for ruling in rulings:
        clause = clauses[ruling.clause]
        label = f"clause {clause.position} ({clause.get_kind_display().lower()})"
        enforcement = ""
        if ruling.upheld:
            upheld.append(label)
            enforcement = _enforce(campaign, breach, clause, chronicle, parties)
        else:
            ignored.append(label)
        term_rows.append(
            DisputeTerm(
                dispute=dispute, clause=clause, upheld_by=ruling.upheld_by, rejected_by=ruling.rejected_by,
                upheld=ruling.upheld, enforcement=enforcement[:200],
            )
        )
    DisputeTerm.objects.bulk_create(term_rows)
    outcome = (
        f"of {len(voters)} other players, a majority upholds " + (", ".join(upheld) if upheld else "no term")
        + ("; ignored: " + ", ".join(ignored) if ignored else "")
    )
    dispute.outcome = outcome
    dispute.save(update_fields=["outcome"])
    breach.resolution = f"BloodLine ruling: {outcome}"[:300]
    breach.resolved_year = campaign.current_year
    breach.save(update_fields=["resolution", "resolved_year"])
    chronicle.add(
        "dispute_ruling",
        f"The dispute over '{contract.title}' between {_house(breach.raised_by)} and {_house(breach.by_dynasty)} is ruled: "
        f"{outcome}.",
        **_data(contract, parties, breach=breach.pk, dispute=dispute.pk),
    )
    chronicle.flush()
    return dispute


def _enforce(campaign: Campaign, breach: Breach, clause: Clause, chronicle: Chronicle, parties: Sequence[int]) -> str:
    """What the companion can do to enforce an upheld term: post the damages; point at unpaid
    payments still owed. Other terms are honoured at the table."""
    if clause.kind == ClauseKind.DAMAGES:
        payment = _pay(
            campaign, breach.contract, clause=clause, payer=breach.by_dynasty, payee=breach.raised_by,
            amount=clause.params["amount"], kind=PostingKind.DAMAGES, reason="damages for breach", chronicle=chronicle,
            parties=parties, breach=breach,
        )
        return f"damages of {payment.amount} {treasury.currency(campaign)} " + (
            "posted" if payment.status == PaymentStatus.PAID else "owed (unpaid)"
        )
    owed = clause.payments.filter(status=PaymentStatus.UNPAID).count()
    if owed:
        return f"{owed} unpaid payment{'s' if owed != 1 else ''} under it remain owed"
    return "to be honoured at the table"


# parleys and excommunication ------------------------------------------------------------------


def _votes_in(
    campaign: Campaign, votes: Sequence[Mapping[str, Any]], banned: Mapping[int, Excommunication]
) -> tuple[list[rules.VoteIn], dict[int, Dynasty]]:
    houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
    out: list[rules.VoteIn] = []
    for entry in votes:
        unknown = sorted(set(entry) - {"dynasty", "stature", "church_cards", "christian", "choice"})
        if unknown:
            raise RuleError(f"Unknown part(s) of a parley vote: {', '.join(unknown)}.", code="invalid")
        if "dynasty" not in entry or "stature" not in entry:
            raise RuleError("Each parley vote names the dynasty and its leader's diplomatic stature.", code="invalid")
        pk = _pk(entry["dynasty"], "dynasty")
        if pk not in houses:
            raise NotFound(f"There is no dynasty #{pk} in {campaign.name} to vote.")
        christian = entry.get("christian", True)
        if not isinstance(christian, bool):
            raise RuleError("Say whether the leader is Christian (true or false).", code="invalid")
        out.append(
            rules.VoteIn(
                dynasty=pk, stature=entry["stature"], church_cards=entry.get("church_cards", 0), christian=christian,
                choice=rules.parse_choice(entry.get("choice")), excommunicated=pk in banned, seat=houses[pk].seat,
            )
        )
    return out, houses


def _parley(
    campaign: Campaign,
    *,
    kind: str,
    subject: str,
    caller: Dynasty,
    votes: Sequence[Mapping[str, Any]],
    banned: Mapping[int, Excommunication],
    breach: Breach | None = None,
    excommunication: Excommunication | None = None,
) -> tuple[Parley, rules.ParleyResult, dict[int, Dynasty]]:
    entries, houses = _votes_in(campaign, votes, banned)
    mine = next((v for v in entries if v.dynasty == caller.pk), None)
    if mine is None:
        raise RuleError(
            f"List the votes of {_house(caller)}, who calls the parley, with the others' (20.4).", code="invalid"
        )
    if not mine.christian:
        raise RuleError(
            f"A parley may be called only by a player whose leader is Christian (20.4); {_house(caller)}'s is not.",
            code="not_christian",
        )
    if caller.pk in banned and kind != ParleyKind.READMISSION:
        raise RuleError(
            f"{_House(caller)} is excommunicated: it may call a parley only on its own readmission (22.13).",
            code="excommunicated",
        )
    result = rules.parley_tally(entries, readmission_of=caller.pk if kind == ParleyKind.READMISSION else None)
    parley = Parley.objects.create(
        campaign=campaign, year=campaign.current_year, step=campaign.step, kind=kind, subject=subject[:200], caller=caller,
        breach=breach, excommunication=excommunication, votes_for=result.votes_for, votes_against=result.votes_against,
        carried=result.carried, outcome="",
    )
    weights = {v.dynasty: v for v in entries}
    ParleyVote.objects.bulk_create(
        [
            ParleyVote(
                parley=parley, dynasty_id=c.dynasty, stature=weights[c.dynasty].stature,
                church_cards=weights[c.dynasty].church_cards, christian=weights[c.dynasty].christian, votes=c.votes,
                choice=c.choice, position=c.position, excluded=c.excluded,
            )
            for c in result.order
        ]
    )
    return parley, result, houses


def _order_text(result: rules.ParleyResult, houses: Mapping[int, Dynasty]) -> str:
    cast = [f"{houses[c.dynasty].name} {c.votes} {c.choice}" for c in result.order if c.position is not None]
    barred = [f"{houses[c.dynasty].name} ({c.excluded})" for c in result.order if c.position is None]
    text = "votes cast " + (", ".join(cast) if cast else "by nobody")
    if barred:
        text += "; not voting: " + ", ".join(barred)
    return text


@transaction.atomic
def parley_run(
    *,
    campaign: Campaign | int,
    votes: Sequence[Mapping[str, Any]],
    breach: Breach | int | None = None,
    caller: Dynasty | int | None = None,
    kind: str | None = None,
    subject: str = "",
    by: AbstractBaseUser | None = None,
) -> Parley:
    """The medieval parley (20.4): ``votes = [{dynasty, stature, church_cards, christian, choice}]``,
    ``choice`` "for" the caller's motion, "against" or "abstain". On a broken binding agreement the
    injured party calls it and the motion is to excommunicate the breaker: a tie excommunicates
    (20.44). Other parleys (a conquest, a claim, an inheritance, a crusade) record the vote, a tie
    favouring the caller."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    banned = excommunicated(campaign)
    if breach is not None:
        found = _breach(campaign, breach)
        if kind not in (None, ParleyKind.BREACH):
            raise RuleError("A parley on a breach decides whether to excommunicate the breaker (20.44).", code="invalid")
        contract = found.contract
        if contract.kind != ContractKind.AGREEMENT:
            raise RuleError(
                f"'{contract.title}' is a {contract.get_kind_display().lower()}, not a binding agreement: only breaking a "
                "binding agreement is put to a parley (20.3, 20.44)"
                + ("; in BloodLine the other players rule by majority" if campaign.ruleset == BLOODLINE else "")
                + ".",
                code="not_binding",
            )
        if Parley.objects.filter(breach=found).exists():
            raise RuleError(
                "A parley on this breach was already held: it is called at the moment the agreement is broken (20.44).",
                code="settled",
            )
        _unsettled(found)
        who = found.raised_by if caller is None else _dynasty(campaign, caller, "caller")
        if who.pk == found.by_dynasty_id or who.pk not in _party_ids(contract):
            raise RuleError(f"The injured party to '{contract.title}' calls the parley (20.44).", code="not_a_party")
        if found.by_dynasty_id in banned:
            raise RuleError(
                f"{_House(found.by_dynasty)} is already excommunicated (since {banned[found.by_dynasty_id].start_year}).",
                code="excommunicated",
            )
        parley, result, houses = _parley(
            campaign, kind=ParleyKind.BREACH, subject=f"excommunicate {_house(found.by_dynasty)} for breaking '{contract.title}'",
            caller=who, votes=votes, banned=banned, breach=found,
        )
        tally = f"{result.votes_for} to {result.votes_against}" + (", a tie" if result.tie else "")
        chronicle = Chronicle(campaign)
        parties = _party_ids(contract)
        if result.carried:
            reigns = Reign.objects.filter(campaign=campaign, end_year__isnull=True)
            leader = leader_of(found.by_dynasty, reigns, campaign.current_year)
            excommunication = Excommunication.objects.create(
                campaign=campaign, dynasty=found.by_dynasty, leader_id=leader, breach=found, parley=parley,
                start_year=campaign.current_year, reason=f"broke the binding agreement '{contract.title}'"[:200],
            )
            parley.outcome = f"excommunicated ({tally})"
            chronicle.add(
                "excommunication",
                f"The parley called by {_house(who)} excommunicates {_house(found.by_dynasty)} for breaking '{contract.title}' "
                f"({tally}; {_order_text(result, houses)}).",
                **_data(contract, parties, parley=parley.pk, excommunication=excommunication.pk, dynasty=found.by_dynasty_id),
            )
        else:
            parley.outcome = f"not excommunicated ({tally})"
            chronicle.add(
                "parley",
                f"The parley called by {_house(who)} does not excommunicate {_house(found.by_dynasty)} for breaking "
                f"'{contract.title}' ({tally}; {_order_text(result, houses)}).",
                **_data(contract, parties, parley=parley.pk),
            )
        parley.save(update_fields=["outcome"])
        found.resolution = f"parley: {parley.outcome}"
        found.resolved_year = campaign.current_year
        found.save(update_fields=["resolution", "resolved_year"])
        chronicle.flush()
        return parley
    if kind in (None, ParleyKind.BREACH):
        raise RuleError("A parley on a broken agreement names the breach; other parleys say their kind.", code="invalid")
    if kind == ParleyKind.READMISSION:
        raise RuleError("A readmission parley is called with readmission_parley.", code="invalid")
    if kind not in ParleyKind.values:
        raise RuleError(f"Unknown kind of parley {kind!r}; one of: {', '.join(ParleyKind.values)}.", code="invalid")
    if caller is None:
        raise RuleError("Say which player calls the parley.", code="invalid", fields={"caller": "required"})
    if not subject.strip():
        raise RuleError("Say what the parley decides (the area, the claim, the inheritance ...).", code="invalid")
    who = _dynasty(campaign, caller, "caller")
    if kind == ParleyKind.CLAIM and Parley.objects.filter(
        campaign=campaign, kind=kind, caller=who, year=campaign.current_year
    ).exists():
        raise RuleError(
            f"{_House(who)} already called a parley for a claim this round: once per round (20.42).",
            code="once_per_round",
        )
    parley, result, houses = _parley(campaign, kind=kind, subject=subject.strip(), caller=who, votes=votes, banned=banned)
    tally = f"{result.votes_for} to {result.votes_against}" + (", a tie: the caller prevails" if result.tie else "")
    parley.outcome = ("the caller prevails" if result.carried else "the caller loses") + f" ({tally})"
    parley.save(update_fields=["outcome"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "parley",
        f"Parley called by {_house(who)} on {subject.strip()} ({parley.get_kind_display()}): {parley.outcome}; "
        f"{_order_text(result, houses)}.",
        parley=parley.pk, dynasty=who.pk,
    )
    chronicle.flush()
    return parley


@transaction.atomic
def readmission_parley(
    *, campaign: Campaign | int, dynasty: Dynasty | int, votes: Sequence[Mapping[str, Any]], by: AbstractBaseUser | None = None
) -> Parley:
    """An excommunicated player calls, once per round, a parley on his readmission; he votes in it
    (other excommunicated players do not) and a tie readmits him (20.45, 22.12, 22.14)."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    house = _dynasty(campaign, dynasty, "excommunicated player")
    banned = excommunicated(campaign)
    excommunication = banned.get(house.pk)
    if excommunication is None:
        raise RuleError(f"{_House(house)} is not excommunicated: there is nothing to readmit.", code="not_excommunicated")
    if Parley.objects.filter(
        campaign=campaign, kind=ParleyKind.READMISSION, caller=house, year=campaign.current_year
    ).exists():
        raise RuleError(
            f"{_House(house)} already called a readmission parley this round: once per round (20.45); "
            "call again next turn.",
            code="once_per_round",
        )
    parley, result, houses = _parley(
        campaign, kind=ParleyKind.READMISSION, subject=f"readmit {_house(house)} to the Church", caller=house, votes=votes,
        banned=banned, excommunication=excommunication,
    )
    tally = f"{result.votes_for} to {result.votes_against}" + (", a tie" if result.tie else "")
    chronicle = Chronicle(campaign)
    if result.carried:
        excommunication.ended_year = campaign.current_year
        excommunication.end_reason = f"readmitted by parley ({tally})"[:200]
        excommunication.save(update_fields=["ended_year", "end_reason"])
        parley.outcome = f"readmitted ({tally})"
        chronicle.add(
            "readmission",
            f"A parley readmits {_house(house)} to the Church ({tally}; {_order_text(result, houses)}).",
            parley=parley.pk, dynasty=house.pk, excommunication=excommunication.pk,
        )
    else:
        parley.outcome = f"not readmitted ({tally})"
        chronicle.add(
            "parley",
            f"A parley refuses to readmit {_house(house)} to the Church ({tally}; {_order_text(result, houses)}).",
            parley=parley.pk, dynasty=house.pk, excommunication=excommunication.pk,
        )
    parley.save(update_fields=["outcome"])
    chronicle.flush()
    return parley
