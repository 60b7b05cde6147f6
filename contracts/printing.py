"""A printable contract to sign at the table: a plain A4 with the parties, the clauses in words,
the dates and a signature line for each party."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from campaign.printing import render_pdf
from contracts.models import Clause, Contract
from dynasties import treasury
from dynasties.models import Character, Dynasty

DYNASTY_KEYS = {"payer", "payee", "from", "to", "dynasty", "by"}
CHARACTER_KEYS = {"character"}


@dataclass(frozen=True)
class ClauseText:
    label: str
    terms: str
    text: str


def describe(clause: Clause, houses: dict[int, Dynasty], people: dict[int, Character], currency: str) -> ClauseText:
    """The clause in words: its kind, then its terms as a sentence with houses and people named
    ("The house of Plantagenet pays the house of Anjou 20 Crowns each turn for 3 turns from 1305.")."""
    params = dict(clause.params or {})

    def shown(key: str) -> str:
        value = params.get(key)
        if key in DYNASTY_KEYS and isinstance(value, int) and value in houses:
            return f"the house of {houses[value].name}"
        if key in CHARACTER_KEYS and isinstance(value, int) and value in people:
            return people[value].display_name
        if key == "amount" and isinstance(value, int):
            return f"{value} {currency}"
        if isinstance(value, list):
            names = [f"the house of {houses[v].name}" if isinstance(v, int) and v in houses else str(v) for v in value]
            return _and(names)
        return str(value)

    sentence = _SENTENCES.get(clause.kind)
    terms = sentence(params, shown) if sentence else ""
    if not terms and params:  # a kind without its sentence: every term by name
        terms = "; ".join(f"{key.replace('_', ' ')}: {shown(key)}" for key in params) + "."
    return ClauseText(clause.get_kind_display(), terms[:1].upper() + terms[1:], clause.text)


def _and(names: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _for_turns(params: dict[str, Any]) -> str:
    turns = params.get("turns")
    start = f" from {params['from_year']}" if params.get("from_year") is not None else ""
    if turns is None:
        return f" each turn{start}, with no end set"
    return f" each turn for {turns} turn{'' if turns == 1 else 's'}{start}"


def _between(params: dict[str, Any], shown: Callable[[str], str]) -> str:
    return shown("between") if params.get("between") else "the parties"


def _support(params: dict[str, Any], shown: Callable[[str], str]) -> str:
    by = shown("by") if params.get("by") else "each party"
    to = shown("to") if params.get("to") else "the others"
    exclusions = [str(x) for x in params.get("exclusions") or []]
    return f"{by} supports {to} in war" + (f", except: {_and(exclusions)}" if exclusions else "") + "."


def _dowry(params: dict[str, Any], shown: Callable[[str], str]) -> str:
    given = [shown(key) for key in ("amount", "province") if params.get(key) not in (None, "")]
    return f"{shown('payer')} gives {shown('payee')} a dowry of {_and(given) or 'nothing named'}."


Sentence = Callable[[dict[str, Any], Callable[[str], str]], str]

_SENTENCES: dict[str, Sentence] = {
    "payment": lambda p, s: f"{s('payer')} pays {s('payee')} {s('amount')}.",
    "recurring_payment": lambda p, s: f"{s('payer')} pays {s('payee')} {s('amount')}{_for_turns(p)}.",
    "trade_item": lambda p, s: f"{s('from')} delivers {s('item')} to {s('to')}{_for_turns(p)}.",
    "non_aggression": lambda p, s: f"{_between(p, s)} do not attack one another.",
    "safe_passage": lambda p, s: f"{_between(p, s)} let one another's armies pass freely.",
    "military_support": _support,
    "cession": lambda p, s: f"{s('from')} cedes {s('province')} to {s('to')}.",
    "renunciation": lambda p, s: f"{s('character')} renounces any claim to the crown of {s('crown')}.",
    "children_raised_by": lambda p, s: f"the children of the marriage are raised by {s('dynasty')}.",
    "husband_joins_wife": lambda p, s: "the husband joins his wife's house.",
    "dowry": _dowry,
    "escape": lambda p, s: f"a party may leave the contract if {s('condition')}.",
    "damages": lambda p, s: f"a party in breach pays {s('amount')} in damages.",
}
"""Each kind's terms as a sentence (``p``: the terms, ``s``: a term shown in words)."""


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
