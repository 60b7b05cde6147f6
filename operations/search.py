"""Search a campaign by name: its people, houses, crowns, contracts, chronicle lines and notes.

Read-only. Every kind is filtered by the policy (:func:`campaign.permissions.visible`, the same
rule as the pages and the API), so a player never finds what he may not see: another house's
contract, a line written for other houses or the GM, a private ledger reason (told in its house's
chronicle line), a GM's note or the note for another house's player. Matching ignores case and
accents on every database: the query is folded ("León" and "leon" are both "leon") and each letter
matches any accented form of it (a regular expression, which SQLite and PostgreSQL both run). A
query ending in a regnal number ("Edward III") also finds the monarch by his number."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Concat

from campaign.models import Audience, Campaign, ChronicleEntry
from campaign.permissions import visible
from contracts.models import Contract
from dynasties.models import Character, Crown, Dynasty, Note
from dynasties.selectors import label
from rules.regnal import roman

MIN_LENGTH = 2
"""Fewer letters than this find too much to read: the page asks for more."""
MAX_LENGTH = 80
PER_KIND = 20
"""Each kind shows this many on the results page; a "more" link opens the kind alone."""
PER_PAGE = 100
"""The kind alone shows this many a page."""

KINDS: dict[str, str] = {
    "people": "People",
    "houses": "Houses",
    "crowns": "Crowns",
    "contracts": "Contracts",
    "chronicle": "Chronicle",
    "notes": "Notes",
}
"""The kinds searched, in the order the results show them, and their headings."""

_SPECIAL = {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ı": "i", "ħ": "h", "Ħ": "H"}
"""Letters Unicode does not decompose into a base letter and an accent."""


def fold(text: str) -> str:
    """The text without accents, in lower case: "Łódź" -> "lodz"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(_SPECIAL.get(ch, ch) for ch in decomposed if not unicodedata.combining(ch)).lower()


def _variants() -> dict[str, str]:
    """Each base letter -> every Latin letter that folds to it (both cases): "e" -> "eEéÉèÈ..."."""
    found: dict[str, set[str]] = {}
    for code in range(0x41, 0x250):
        ch = chr(code)
        base = fold(ch)
        if ch.isalpha() and len(base) == 1 and base.isascii() and base.isalpha():
            found.setdefault(base, set()).update({ch, ch.lower(), ch.upper()})
    return {base: "".join(sorted(chars)) for base, chars in found.items()}


_VARIANTS = _variants()
_REGEX_SPECIAL = frozenset(".^$*+?()[]{}|\\")


def pattern(query: str) -> str:
    """A regular expression finding ``query`` whatever the case and accents of either side: each
    letter is the class of its forms, a run of spaces any run of spaces, anything else itself. It
    is read alike by Python's ``re`` (SQLite's REGEXP) and PostgreSQL's ``~*``."""
    out: list[str] = []
    for ch in " ".join(fold(query).split()):
        if ch in _VARIANTS:
            out.append(f"[{_VARIANTS[ch]}]")
        elif ch == " ":
            out.append(r"\s+")
        elif ch in _REGEX_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


_NUMERALS = {roman(n): n for n in range(1, 40)}


def _regnal(query: str) -> tuple[str, int] | None:
    """("Edward", 3) for "Edward III": a name and a regnal number, or None."""
    words = query.split()
    if len(words) < 2 or words[-1].upper() not in _NUMERALS:
        return None
    return " ".join(words[:-1]), _NUMERALS[words[-1].upper()]


@dataclass
class Group:
    """One kind's results: ``rows`` (model rows, at most the page's bound) and whether there are more."""

    kind: str
    rows: list[Any]
    more: bool

    @property
    def heading(self) -> str:
        return KINDS[self.kind]


@dataclass
class Results:
    """What a search found, kind by kind; ``problem`` says what to type when the query cannot be
    searched (then nothing is looked up)."""

    query: str
    groups: list[Group] = field(default_factory=list)
    problem: str = ""
    kind: str = ""
    """The one kind shown alone (a "more" link), or "" for all of them."""
    page: int = 1

    @property
    def found(self) -> int:
        return sum(len(g.rows) for g in self.groups)


def clean(query: str) -> tuple[str, str]:
    """(the query, stripped and its spaces collapsed; what is wrong with it, or ""). A control
    character (a NUL byte, which PostgreSQL refuses in a text) is no part of a name: a space."""
    query = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in (query or ""))
    query = " ".join(query.split())
    if not query:
        return "", "Type a name to search for: a person, a house, a crown, a contract, words of the chronicle or of a note."
    if len(fold(query).replace(" ", "")) < MIN_LENGTH:
        return query, f"Type at least {MIN_LENGTH} letters of the name."
    if len(query) > MAX_LENGTH:
        return query[:MAX_LENGTH], f"Type at most {MAX_LENGTH} letters: a name, not a page."
    return query, ""


def _people(query: str, regex: str) -> QuerySet[Any]:
    people = Character.objects.annotate(full_name=Concat("given_name", Value(" "), "dynastic_name"))
    matches = Q(full_name__iregex=regex)
    regnal = _regnal(query)
    if regnal is not None:
        name, number = regnal
        matches |= Q(full_name__iregex=pattern(name), reigns__numeral=number)
    return people.filter(matches).select_related("controlled_by").order_by("-birth_year", "birth_order", "pk").distinct()


def _searched(kind: str, query: str, regex: str) -> QuerySet[Any]:
    """The rows of ``kind`` matching the query, newest first where time matters (unfiltered)."""
    if kind == "people":
        return _people(query, regex)
    if kind == "houses":
        return Dynasty.objects.filter(Q(name__iregex=regex) | Q(crown__iregex=regex)).order_by("seat", "pk")
    if kind == "crowns":
        return Crown.objects.filter(name__iregex=regex).select_related("controlled_by", "home_dynasty").order_by("name")
    if kind == "contracts":
        return Contract.objects.filter(title__iregex=regex).prefetch_related("parties").order_by("-start_year", "-pk")
    if kind == "notes":
        return Note.objects.filter(text__iregex=regex).select_related("character", "dynasty").order_by("-pk")
    return ChronicleEntry.objects.filter(text__iregex=regex).exclude(kind="announcements").order_by("-year", "-pk")


def search(campaign: Campaign, user: Any, query: str, *, kind: str = "", page: int = 1) -> Results:
    """What ``user`` may see of ``campaign`` that matches ``query``: every kind (at most
    :data:`PER_KIND` each), or ``kind`` alone (:data:`PER_PAGE` a page, from ``page``). A few
    queries per kind, whatever the size of the campaign."""
    query, problem = clean(query)
    kind = kind if kind in KINDS else ""
    page = max(1, page)
    results = Results(query=query, problem=problem, kind=kind, page=page if kind else 1)
    if problem:
        return results
    regex = pattern(query)
    bound, start = (PER_PAGE, (page - 1) * PER_PAGE) if kind else (PER_KIND, 0)
    for name in [kind] if kind else list(KINDS):
        rows = list(visible(user, campaign, _searched(name, query, regex))[start : start + bound + 1])
        results.groups.append(Group(kind=name, rows=rows[:bound], more=len(rows) > bound))
    for group in results.groups:
        if group.kind == "people" and group.rows:
            label(campaign, group.rows)  # "Edward III Plantagenet"
        if group.kind == "chronicle":
            for line in group.rows:
                line.private = line.audience != Audience.PUBLIC  # shown as private, as the Announcements do
    return results
