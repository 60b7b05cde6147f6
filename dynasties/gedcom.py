"""GEDCOM 5.5.1 export of a campaign's family record, or of one dynasty's (issue 6).

The family record is public to every member of a campaign (campaign/permissions.py: characters
and families are visible to anyone who may view the campaign), so nothing is filtered out here;
a view serving this text should check ``can_view(user, campaign)`` first.

What is written:

* ``HEAD`` (SOUR Regnal, GEDC VERS 5.5.1 FORM LINEAGE-LINKED, CHAR UTF-8, SUBM), a ``SUBM``
  record, one ``INDI`` per person, one ``FAM`` per union, ``TRLR``.
* INDI: ``NAME Given /Dynastic/`` (with GIVN/SURN; a monarch's regnal numbers follow as NSFX,
  ``Edward /Plantagenet/ III``), ``SEX M|F``, ``BIRT DATE year``, ``DEAT DATE
  year`` (and ``CAUS``) for the dead, one ``TITL`` per title held now or once (optional rule G
  titles: current holder, first grantee and every recorded holding; and a crown reigned as "King
  of X" / "Queen of X"), ``FAMC`` and ``FAMS`` links.
* FAM: one per ``Marriage`` row (a betrothal never wed is a FAM with ``ENGA DATE arranged year``
  and no MARR; a wedding gives ``MARR DATE wedding year``), plus one per couple that has children
  but no match on record, plus one per single known parent for the children whose other parent
  is unknown (that FAM has only the one parent). ``CHIL`` for every child of the couple; a child
  whose parents married more than once is put in the latest match wed by his birth year.

Ids are stable: ``@I1@``, ``@I2@`` ... in character pk order, ``@F1@`` ... in marriage pk order,
then the families without a match (ordered by their parents' pks), all numbered within the export.

A dynasty export (rule): its **members** are the characters born into it (``birth_dynasty``) or
controlled by it (``controlled_by``); added to them are the members' parents, spouses (every
match) and children, and the other parent of each such child, so every union and parent/child
link of a member is complete. Beyond the members, a FAM is written only when every known parent
of it is in the export (a spouse's match with an outsider is left out, never half drawn); CHIL,
FAMC and FAMS lines are written only between people in the export.

Lines stay within the 255-character limit of GEDCOM 5.5.1: a long value is cut into ``CONC``
lines (never at a space), a value with line breaks into ``CONT`` lines; ``@`` is written ``@@``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypedDict

from dynasties.models import Character, Dynasty, Marriage, Reign, Sex, Status, Title, TitleHolding
from rules.regnal import roman

MAX_LINE = 255  # GEDCOM 5.5.1: a line, level to terminator, is at most 255 characters
SOURCE = "Regnal"


class _Match(TypedDict):
    """A marriage (or betrothal) as written: the columns of it a family shows."""

    id: int
    husband_id: int
    wife_id: int
    arranged_year: int
    wedding_year: int | None
    ended_year: int | None
    end_cause: str


@dataclass
class _Family:
    key: tuple[Any, ...]  # ("m", marriage pk) or ("p", father pk or 0, mother pk or 0)
    husband: int | None
    wife: int | None
    marriage: _Match | None = None
    children: list[int] = field(default_factory=list)
    xref: str = ""


# Lines --------------------------------------------------------------------------------------------


def _escape(value: str) -> str:
    return value.replace("@", "@@")


def _split(text: str, first_room: int, room: int) -> list[str]:
    """Cut raw ``text`` into pieces whose escaped length fits ``first_room`` (the first) and ``room``
    (the others), never next to a space: a reader may drop a CONC line's leading or trailing space."""
    pieces: list[str] = []
    budget = first_room
    while len(_escape(text)) > budget:
        cut, used = 0, 0
        while cut < len(text) and used + len(_escape(text[cut])) <= budget:
            used += len(_escape(text[cut]))
            cut += 1
        safe = cut
        while safe > 1 and (text[safe - 1] == " " or text[safe] == " "):
            safe -= 1
        cut = safe if safe > 1 else cut  # a run of spaces as long as a line: cut anyway
        pieces.append(text[:cut])
        text = text[cut:]
        budget = room
    pieces.append(text)
    return pieces


def _line(level: int, tag: str, value: str | None = None, xref: str | None = None) -> Iterator[str]:
    """One GEDCOM line, continued with CONC/CONT lines when the value is long or has line breaks."""
    head = f"{level} {xref + ' ' if xref else ''}{tag}"
    if not value:
        yield head
        return
    cont, conc = f"{level + 1} CONT", f"{level + 1} CONC"
    for n, part in enumerate(str(value).replace("\r\n", "\n").replace("\r", "\n").split("\n")):
        prefix = head if n == 0 else cont
        pieces = _split(part, MAX_LINE - len(prefix) - 1, MAX_LINE - len(conc) - 1)
        yield f"{prefix} {_escape(pieces[0])}" if pieces[0] else prefix
        for piece in pieces[1:]:
            yield f"{conc} {_escape(piece)}"


def _name_part(text: str) -> str:
    return " ".join(text.replace("/", " ").split())


# Data ---------------------------------------------------------------------------------------------


def _select(campaign: Any, dynasty: Dynasty | None) -> tuple[dict[int, dict[str, Any]], list[_Match]]:
    """The people and matches to write: everyone of the campaign, or a dynasty's (module docstring)."""
    fields = (
        "id",
        "given_name",
        "dynastic_name",
        "sex",
        "birth_year",
        "death_year",
        "death_cause",
        "status",
        "father_id",
        "mother_id",
        "birth_dynasty_id",
        "controlled_by_id",
    )
    people = {row["id"]: row for row in Character.objects.filter(campaign=campaign).order_by("pk").values(*fields)}
    matches: list[_Match] = list(
        Marriage.objects.filter(campaign=campaign)
        .order_by("pk")
        .values("id", "husband_id", "wife_id", "arranged_year", "wedding_year", "ended_year", "end_cause")
    )
    if dynasty is None:
        return people, matches
    members = {pk for pk, p in people.items() if dynasty.pk in (p["birth_dynasty_id"], p["controlled_by_id"])}
    chosen = set(members)
    for m in matches:
        if m["husband_id"] in members or m["wife_id"] in members:
            chosen.update((m["husband_id"], m["wife_id"]))
    for p in people.values():
        if p["id"] in members or p["father_id"] in members or p["mother_id"] in members:
            chosen.add(p["id"])
            chosen.update(pk for pk in (p["father_id"], p["mother_id"]) if pk is not None)
    return {pk: p for pk, p in people.items() if pk in chosen}, matches


def _titles(campaign: Any, people: dict[int, dict[str, Any]]) -> tuple[dict[int, list[str]], dict[int, str]]:
    """Each person's titles held now or once (rule G titles, then crowns reigned, in order), and
    each monarch's regnal numbers as a name suffix ("III"; of two crowns "VI and I")."""
    held: dict[int, list[str]] = defaultdict(list)
    numerals: dict[int, list[str]] = defaultdict(list)

    def add(pk: int | None, name: str) -> None:
        if pk in people and name and name not in held[pk]:
            held[pk].append(name)

    for t in Title.objects.filter(campaign=campaign).order_by("name", "pk").values("name", "holder_id", "granted_to_id"):
        add(t["granted_to_id"], t["name"])
        add(t["holder_id"], t["name"])
    for h in (
        TitleHolding.objects.filter(title__campaign=campaign).order_by("start_year", "pk").values("title__name", "holder_id")
    ):
        add(h["holder_id"], h["title__name"])
    for r in Reign.objects.filter(campaign=campaign).order_by("start_year", "pk").values("holder_id", "crown", "numeral"):
        pk = r["holder_id"]
        if pk in people:
            add(pk, f"{'Queen' if people[pk]['sex'] == Sex.FEMALE else 'King'} of {r['crown']}")
            if r["numeral"] and roman(r["numeral"]) not in numerals[pk]:
                numerals[pk].append(roman(r["numeral"]))
    return held, {pk: " and ".join(found) for pk, found in numerals.items() if found}


def _union_year(match: _Match) -> int:
    return match["wedding_year"] if match["wedding_year"] is not None else match["arranged_year"]


def _families(people: dict[int, dict[str, Any]], matches: list[_Match]) -> list[_Family]:
    """Every union among the people written: the matches, then couples and single parents."""
    families: list[_Family] = []
    by_couple: dict[tuple[int, int], list[_Family]] = defaultdict(list)
    for m in matches:
        if m["husband_id"] in people and m["wife_id"] in people:
            union = _Family(("m", m["id"]), m["husband_id"], m["wife_id"], marriage=m)
            families.append(union)
            by_couple[(m["husband_id"], m["wife_id"])].append(union)
    others: dict[tuple[Any, ...], _Family] = {}
    for child in people.values():  # in pk order, so CHIL lines come in pk order too
        father, mother = child["father_id"], child["mother_id"]
        if (father is None and mother is None) or any(p is not None and p not in people for p in (father, mother)):
            continue  # no parent known, or one of them is not in this export: no half-drawn family
        fam: _Family | None = None
        if father is not None and mother is not None and by_couple.get((father, mother)):
            unions = by_couple[(father, mother)]
            wed = [f for f in unions if f.marriage and _union_year(f.marriage) <= child["birth_year"]]
            fam = wed[-1] if wed else unions[0]
        if fam is None:
            key = ("p", father or 0, mother or 0)
            fam = others.get(key)
            if fam is None:
                fam = others[key] = _Family(key, father, mother)
        fam.children.append(child["id"])
    families.extend(others[k] for k in sorted(others, key=lambda k: (min(pk for pk in k[1:] if pk), k[1], k[2])))
    for n, fam in enumerate(families, 1):
        fam.xref = f"@F{n}@"
    return families


# Export -------------------------------------------------------------------------------------------


def export_lines(campaign: Any, dynasty: Dynasty | None = None) -> Iterator[str]:
    """The GEDCOM 5.5.1 lines (without terminators) of the campaign, or of one of its dynasties."""
    if dynasty is not None and dynasty.campaign_id != campaign.pk:
        raise ValueError(f"{dynasty} is not a dynasty of {campaign}.")
    people, matches = _select(campaign, dynasty)
    titles, suffixes = _titles(campaign, people)
    families = _families(people, matches)
    ids = {pk: f"@I{n}@" for n, pk in enumerate(people, 1)}  # people is in pk order
    famc: dict[int, list[str]] = defaultdict(list)
    fams: dict[int, list[str]] = defaultdict(list)
    for fam in families:
        for parent in (fam.husband, fam.wife):
            if parent is not None:
                fams[parent].append(fam.xref)
        for child in fam.children:
            famc[child].append(fam.xref)

    yield "0 HEAD"
    yield f"1 SOUR {SOURCE}"
    yield f"2 NAME {SOURCE}"
    yield "1 SUBM @U1@"
    yield "1 GEDC"
    yield "2 VERS 5.5.1"
    yield "2 FORM LINEAGE-LINKED"
    yield "1 CHAR UTF-8"
    what = f"{campaign.name}: the {dynasty.name} dynasty" if dynasty is not None else f"{campaign.name}: all dynasties"
    yield from _line(1, "NOTE", what)
    yield "0 @U1@ SUBM"
    yield f"1 NAME {SOURCE}"

    for pk, p in people.items():
        given, surname = _name_part(p["given_name"]), _name_part(p["dynastic_name"])
        yield f"0 {ids[pk]} INDI"
        suffix = suffixes.get(pk, "")
        yield from _line(1, "NAME", f"{given} /{surname}/ {suffix}".strip())
        if given:
            yield from _line(2, "GIVN", given)
        if surname:
            yield from _line(2, "SURN", surname)
        if suffix:
            yield from _line(2, "NSFX", suffix)
        yield f"1 SEX {'F' if p['sex'] == Sex.FEMALE else 'M'}"
        yield "1 BIRT"
        yield f"2 DATE {p['birth_year']}"
        if p["status"] == Status.DEAD or p["death_year"] is not None:  # the two go together (model check)
            yield "1 DEAT" if p["death_year"] is not None else "1 DEAT Y"
            if p["death_year"] is not None:
                yield f"2 DATE {p['death_year']}"
            if p["death_cause"]:
                yield from _line(2, "CAUS", p["death_cause"])
        for title in titles.get(pk, []):
            yield from _line(1, "TITL", title)
        for xref in famc.get(pk, []):
            yield f"1 FAMC {xref}"
        for xref in fams.get(pk, []):
            yield f"1 FAMS {xref}"

    for fam in families:
        yield f"0 {fam.xref} FAM"
        if fam.husband is not None:
            yield f"1 HUSB {ids[fam.husband]}"
        if fam.wife is not None:
            yield f"1 WIFE {ids[fam.wife]}"
        m = fam.marriage
        if m is not None:
            if m["wedding_year"] is None:
                yield "1 ENGA"
                yield f"2 DATE {m['arranged_year']}"
            else:
                yield "1 MARR"
                yield f"2 DATE {m['wedding_year']}"
            if m["ended_year"] is not None:
                yield from _line(1, "NOTE", f"Ended {m['ended_year']}: {m['end_cause']}".rstrip(": "))
        for child in fam.children:
            yield f"1 CHIL {ids[child]}"
    yield "0 TRLR"


def export_gedcom(campaign: Any, dynasty: Dynasty | None = None, *, newline: str = "\n") -> str:
    """The GEDCOM 5.5.1 text of the campaign, or of one of its dynasties (module docstring)."""
    return newline.join(export_lines(campaign, dynasty)) + newline


def export_campaign(campaign: Any) -> str:
    return export_gedcom(campaign)


def export_dynasty(dynasty: Dynasty) -> str:
    return export_gedcom(dynasty.campaign, dynasty)


def write_gedcom(campaign: Any, stream: Any, dynasty: Dynasty | None = None) -> None:
    """Write the export to a binary stream, UTF-8 encoded."""
    for line in export_lines(campaign, dynasty):
        stream.write(line.encode("utf-8") + b"\n")


__all__ = ["export_campaign", "export_dynasty", "export_gedcom", "export_lines", "write_gedcom"]
