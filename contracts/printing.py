"""A printable contract to sign at the table: a plain A4 with the parties, the clauses in words,
the dates and a signature line for each party."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign import treasury
from campaign.printing import render_pdf
from contracts.models import Clause, Contract
from dynasties.models import Character, Dynasty

DYNASTY_KEYS = {"payer", "payee", "from", "to", "dynasty", "by"}
CHARACTER_KEYS = {"character"}


@dataclass(frozen=True)
class ClauseText:
    label: str
    terms: str
    text: str


def describe(clause: Clause, houses: dict[int, Dynasty], people: dict[int, Character], currency: str) -> ClauseText:
    """The clause in words: its kind, then each term with houses and people named."""
    parts = []
    for key, value in (clause.params or {}).items():
        shown: Any = value
        if key in DYNASTY_KEYS and isinstance(value, int) and value in houses:
            shown = f"the house of {houses[value].name}"
        elif key in CHARACTER_KEYS and isinstance(value, int) and value in people:
            shown = people[value].display_name
        elif key == "amount" and isinstance(value, int):
            shown = f"{value} {currency}"
        elif isinstance(value, bool):
            shown = "yes" if value else "no"
        elif isinstance(value, list):
            shown = ", ".join(str(v) for v in value) or "none"
        parts.append(f"{key.replace('_', ' ')}: {shown}")
    return ClauseText(clause.get_kind_display(), "; ".join(parts) + ("." if parts else ""), clause.text)


def contract_pdf(contract: Contract) -> bytes:
    campaign = contract.campaign
    parties = list(contract.parties.order_by("seat", "pk"))
    houses = {d.pk: d for d in Dynasty.objects.filter(campaign=campaign)}
    clauses = list(contract.clauses.all())
    ids = {v for c in clauses for k, v in (c.params or {}).items() if k in CHARACTER_KEYS and isinstance(v, int)}
    people = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=ids)}
    currency = treasury.currency(campaign)
    return render_pdf(
        "print/contract.html",
        {
            "campaign": campaign,
            "contract": contract,
            "parties": parties,
            "clauses": [describe(c, houses, people, currency) for c in clauses],
        },
    )
