"""The GM's hand edit of a contract (issue 20): its title at any time, its free text and its term
while it is a draft (once signed, what was signed stands). As ``dynasties.services.editing``: the
GM's alone, one transaction, the audit trail and a GM-only chronicle line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from campaign import live
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Seen, lock_campaign
from contracts.models import Contract, ContractState
from contracts.services.common import _contract, _party_ids
from dynasties.services.editing import (
    Edited,
    EditRefused,
    chronicle_edit,
    clean_fields,
    recorded,
    refuse_owned,
    text_value,
    whole_value,
    write,
)

CONTRACT_FIELDS = ("title", "text", "term_years")
DRAFT_ONLY = ("text", "term_years")
_SERVICES = "follows from the contract's life (signing, coming into force, ending): not edited by hand."
CONTRACT_OWNED: dict[str, str] = {
    "kind": "A contract's kind is chosen when it is drafted: draft another.",
    "parties": "The parties are set when it is drafted: draft another.",
    "marriage": "The match a contract is for is set when it is drafted: draft another.",
    "clauses": "The clauses are set when it is drafted: draft another.",
    "start_year": "The start year is set when it is drafted: draft another.",
    "state": f"The state {_SERVICES}",
    "signed_year": f"The year of signing {_SERVICES}",
    "in_force_year": f"The year it came into force {_SERVICES}",
    "ended_year": f"The end {_SERVICES}",
    "end_kind": f"The end {_SERVICES}",
    "end_reason": f"The end {_SERVICES}",
}


def _term(value: Any) -> int | None:
    if value in (None, ""):
        return None
    years = whole_value(value, "term")
    if years < 1:
        raise EditRefused("A fixed term is at least 1 year (leave it empty for an open-ended contract).")
    return years


def contract_changes(deed: Contract, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The changes checked as the service checks them (the forms ask it too)."""
    refuse_owned(changes, CONTRACT_FIELDS, CONTRACT_OWNED, "a contract")
    if deed.state != ContractState.DRAFT:
        late = {
            name: f"The {name.replace('_years', '')} of a signed contract stands as signed."
            for name in changes
            if name in DRAFT_ONLY
        }
        if late:
            raise EditRefused(
                f"{deed.title} is {deed.get_state_display().lower()}: only its title may be edited now; "
                "its text and term stand as signed.",
                fields=late,
            )
    return clean_fields(
        changes,
        {
            "title": lambda v: text_value(v, "title", 200),
            "text": lambda v: str(v or "").strip(),
            "term_years": _term,
        },
    )


@transaction.atomic
def contract_edit(
    *,
    campaign: Campaign | int,
    contract: Contract | int,
    changes: Mapping[str, Any],
    by: Actor,
) -> Edited:
    """The GM's hand edit of a contract: the title; the text and the term while a draft."""
    campaign = lock_campaign(campaign)
    require(by, campaign, "edit")
    deed = _contract(campaign, contract)
    new = contract_changes(deed, changes)
    old_title = deed.title

    def show(field: str, value: Any) -> str:
        if field == "term_years":
            return f"{value} years" if value else "open-ended"
        return str(value)

    with recorded(campaign, by):
        lines = write(deed, new, {"title": "title", "text": "text", "term_years": "term"}, show)
    lines = ["the text rewritten" if line.startswith("text ") else line for line in lines]
    if lines:
        chronicle_edit(campaign, f"Edited by hand: the contract {old_title}: " + "; ".join(lines) + ".", contract=deed.pk)
        live.reveal(campaign, Seen.by(*_party_ids(deed)))  # its parties see the contract edited
    return Edited(deed, tuple(lines))
