"""Signing: each party signs its side, or the GM records every signature at once; the contract is signed when the
last party signs."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import transaction

from campaign import audit
from campaign.models import Campaign
from campaign.permissions import Actor, acting_house, require
from campaign.steps import Chronicle, lock_campaign
from contracts.models import Clause, ClauseKind, Contract, ContractKind, ContractSignature, ContractState
from contracts.services.common import BINDING, _contract, _data, _dynasty, _House, _house, _houses, _party_ids
from contracts.services.drafting import _check_marriage, _check_marriage_terms, _check_renunciation
from contracts.services.in_force import _come_into_force, _write_match_terms
from dynasties.models import Dynasty, Marriage
from rules.errors import RuleError


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


def _record_signatures(campaign: Campaign, contract: Contract, houses: Sequence[int], by: Actor) -> None:
    signed_by = by if isinstance(by, User) and by.pk is not None else None  # a person (not the system)
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
    by: Actor,
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
def contract_sign(*, campaign: Campaign | int, contract: Contract | int, by: Actor) -> Contract:
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
    *,
    campaign: Campaign | int,
    contract: Contract | int,
    dynasty: Dynasty | int | None = None,
    by: Actor,
) -> Contract:
    """One party signs its side of a draft. The contract stays a draft until every party has
    signed; the last signature signs it, exactly as ``contract_sign`` does (it comes into force
    now, at its start year, or at the wedding). ``dynasty`` names the party; none: the acting
    player's own house (the GM says which)."""
    campaign = lock_campaign(campaign)
    contract = _contract(campaign, contract)
    if dynasty is None:
        dynasty = acting_house(campaign, by)
    if dynasty is None:
        require(by, campaign, "play")  # an observer hears 403, the GM what to say
        raise RuleError("Say which party signs.", code="invalid", fields={"dynasty": "Name the party (a dynasty id)."})
    house = _dynasty(campaign, dynasty, "signatory")
    require(by, campaign, "house", dynasty=house.pk, what="a house signs its own side")
    if house.pk not in _party_ids(contract):
        message = f"{_House(house)} is not a party to '{contract.title}': only its parties sign it."
        raise NotAParty(message, fields={"dynasty": message})
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
