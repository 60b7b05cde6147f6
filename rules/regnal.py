"""Regnal numbers (docs/rulings.md, "Regnal numbers") and namesakes told apart.

A monarch's numeral counts, in one crown, the monarchs of his name and sex before him, from the
numeral the GM gives the crown's last pre-campaign monarch of that name: with ``{"Edward": 2}``
the campaign's first Edward of England is Edward III. A queen regnant counts among the queens of
her name; a monarch who comes back to a crown keeps the numeral he had; a regent is not numbered.
The numeral is written on the reign when the monarch is crowned and never recounted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

_ROMAN = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def roman(n: int) -> str:
    """``n`` (1 or more) in Roman numerals: 3 -> "III", 14 -> "XIV"."""
    if n < 1:
        raise ValueError(f"a regnal number is 1 or more, not {n}")
    out = []
    for value, letters in _ROMAN:
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


@dataclass(frozen=True)
class Crowned:
    """An earlier reign of the crown: who held it, his name and sex, and its numeral if it has one."""

    holder: int
    given_name: str
    sex: str
    numeral: int | None = None


def numeral(given_name: str, sex: str, holder: int, earlier: Sequence[Crowned], starting: Mapping[str, int] | None = None) -> int:
    """The numeral of ``holder`` crowned now, after the crown's ``earlier`` reigns (oldest first).

    ``starting`` maps a name to the numeral of the crown's last pre-campaign monarch of it. An earlier
    reign without a numeral counts as the next of its name."""
    count = max(0, (starting or {}).get(given_name, 0))
    seen: dict[int, int] = {}
    for reign in earlier:
        if reign.given_name != given_name or reign.sex != sex:
            continue
        if reign.holder in seen:
            continue
        number = reign.numeral if reign.numeral is not None else count + 1
        seen[reign.holder] = number
        count = max(count, number)
    return seen.get(holder, count + 1)


def regnal_name(given_name: str, numerals: Iterable[int], dynastic_name: str = "") -> str:
    """ "Edward III Plantagenet"; a monarch of two crowns with different numerals "James VI and I Stuart"
    (in the order he was crowned); no numeral, the plain name."""
    shown: list[str] = []
    for n in numerals:
        if roman(n) not in shown:
            shown.append(roman(n))
    return " ".join(part for part in (given_name, " and ".join(shown), dynastic_name) if part)


@dataclass(frozen=True)
class Named:
    """A living character as lists show him: his plain name, his numerals as a monarch, his birth."""

    id: int
    given_name: str
    dynastic_name: str
    birth_year: int
    birth_order: int = 1
    numerals: tuple[int, ...] = ()
    living: bool = True


def labels(people: Iterable[Named]) -> dict[int, str]:
    """What lists call each one: a monarch by his regnal name; a living non-monarch who shares his
    plain name with another living character by his name and birth year ("Jean Valois (b. 1301)", with
    the order of birth when two of the name were born the same year); the rest by the plain name."""
    people = list(people)
    by_name: dict[tuple[str, str], list[Named]] = {}
    for p in people:
        if p.living:
            by_name.setdefault((p.given_name, p.dynastic_name), []).append(p)
    out: dict[int, str] = {}
    for p in people:
        if p.numerals:
            out[p.id] = regnal_name(p.given_name, p.numerals, p.dynastic_name)
            continue
        plain = f"{p.given_name} {p.dynastic_name}".strip()
        others = [o for o in by_name.get((p.given_name, p.dynastic_name), []) if o.id != p.id] if p.living else []
        if not others:
            out[p.id] = plain
        elif any(o.birth_year == p.birth_year and not o.numerals for o in others):
            out[p.id] = f"{plain} (b. {p.birth_year}, {_ordinal(p.birth_order)} born)"
        else:
            out[p.id] = f"{plain} (b. {p.birth_year})"
    return out


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
