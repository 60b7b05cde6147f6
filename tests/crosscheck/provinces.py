"""Blood Royale's provinces in the Interphase, re-derived from an export (issue 33), written from the
rulebook and the export format only:

- Famine and Rebellion (section 11): "each player receives 5 Crowns for each province he controls ...
  that is not affected by Famine or Rebellion": the run's Taxation line counts its provinces less
  those with a Famine or Rebellion marker (the Interphase entry's lists, ``data.provinces``,
  ``data.famine`` and ``data.rebellion`` of its chronicle line).
- Optional rule G: "any Province governed by a character raises 2 Crowns extra"; "A Provincial
  Governor from a foreign Dynasty would keep those 2 Crowns for his or her own Dynasty". The titles
  held at the Interphase (``title_holdings``) whose provinces the house taxes (its country's, and in
  a Dynastic Union the annexed country's: "the player controlling the 'annexed' country ... can
  therefore tax") are its governed provinces (``data.governed_provinces``); each one that pays brings 2 Crowns, to the
  house (its own governors: one line) or to the foreign governor's house.

A year in which a title changes hands, or its holder dies, or his controlling house changes, is
skipped (the export does not say whether it came before the Interphase); a holder retired in an
earlier turn is out of play, no Governor."""

from __future__ import annotations

import re
from typing import Any

from .common import Export, Row, violation

_TAXED = re.compile(r"^Taxation: (\d+) provinces?\b")


def _fold(names: Any) -> set[str] | None:
    return {str(n).strip().casefold() for n in names} if isinstance(names, list) else None


def _held(ex: Export, crown: str, year: int) -> tuple[dict[str, int], set[str]]:
    """The rule G titles of ``crown`` held at ``year``'s Interphase: province -> holder; and the
    provinces whose title changed this year (skipped)."""
    titles = {t["id"]: t for t in ex.doc.get("titles", []) if t["crown"] == crown and not t.get("provinces")}
    held: dict[str, int] = {}
    unsure: set[str] = set()
    for h in ex.doc.get("title_holdings", []):
        t = titles.get(h["title"])
        if t is None:
            continue
        key = t["province"].strip().casefold()
        holder = ex.chars[h["holder"]]
        retired = holder.get("retired_year")
        if year in (h["start_year"], h["end_year"], holder.get("death_year"), retired):
            unsure.add(key)
        if retired is not None and retired < year:
            continue  # out of play: no Governor (his title passes at the next Survival)
        if h["start_year"] <= year and (h["end_year"] is None or h["end_year"] > year):
            held[key] = h["holder"]
    return held, unsure


def check_provinces(ex: Export) -> list[str]:
    out: list[str] = []
    # a run's postings: those of its year paid by or to its house, and the foreign governors' lines of
    # its year (the chronicle's ``postings`` are database ids, not export ids); the simulated
    # prehistory reverses no run
    by_year: dict[int, list[Row]] = {}
    for p in ex.doc.get("postings", []):
        if p["step"] == "interphase" and p["kind"] == "tax":
            by_year.setdefault(p["year"], []).append(p)
    for year_row in ex.doc["chronicle"]:
        year = year_row["year"]
        for entry in year_row["entries"]:
            data = entry["data"] if isinstance(entry["data"], dict) else {}
            if entry["kind"] != "payment" or not data.get("interphase"):
                continue
            provinces, famine, rebellion = _fold(data.get("provinces")), _fold(data.get("famine")), _fold(data.get("rebellion"))
            if provinces is None or famine is None or rebellion is None:
                continue  # numbers typed: nothing to re-derive by name
            house = data["dynasty"]
            run = [p for p in by_year.get(year, []) if p["payee"] == house or "keeps the 2" in p["reason"]]
            row = f"the Interphase of house {house}, {year}"
            out += _taxation(row, house, run, provinces, famine, rebellion)
            if ex.option("governing_provinces"):
                out += _governed(ex, row, year, house, run, data, provinces, famine | rebellion)
    return out


def _taxation(row: str, house: int, run: list[Row], provinces: set[str], famine: set[str], rebellion: set[str]) -> list[str]:
    want = len(provinces - famine - rebellion)
    found = [int(m.group(1)) for p in run if p["payee"] == house and (m := _TAXED.match(p["reason"]))]
    got = found[0] if found else 0
    if got != want or len(found) > 1:
        return [
            violation(
                "BR-famine-tax",
                row,
                f"{want} provinces taxed ({len(provinces)} less those in famine or rebellion)",
                found,
            )
        ]
    return []


def _governed(
    ex: Export, row: str, year: int, house: int, run: list[Row], data: dict[str, Any], provinces: set[str], untaxed: set[str]
) -> list[str]:
    out: list[str] = []
    if not ex.dynasties[house]["crown"]:
        return out
    # the titles held of every country whose province the house taxes: its own, and in a Dynastic
    # Union the annexed country ("the player controlling the 'annexed' country ... can therefore tax")
    held: dict[str, int] = {}
    unsure: set[str] = set()
    for crown in sorted({t["crown"] for t in ex.doc.get("titles", []) if not t.get("provinces")}):
        these, doubt = _held(ex, crown, year)
        held.update(these)
        unsure |= doubt
    listed = _fold(data.get("governed_provinces")) or set()
    want = {p for p in held if p in provinces}
    if {p for p in listed if p not in unsure} != {p for p in want if p not in unsure}:
        out.append(violation("BR-governed-provinces", row, f"the titles held: {sorted(want)}", sorted(listed)))
        return out
    own_extra = sum(p["amount"] for p in run if p["payee"] == house and p["reason"].startswith("Governed provinces (rule G):"))
    own = 0
    for province, holder in sorted(held.items()):
        if province not in want or province in untaxed or province in unsure:
            continue
        houses = ex.controllers(holder, year)
        if len(houses) != 1:
            own = -1  # his house changed this year: the own line's total is not re-derived
            continue
        (controller,) = houses
        if controller == house:
            if own >= 0:
                own += 2
            continue
        found = [p for p in run if f"governor of {province}, keeps the 2" in p["reason"].casefold()]
        if len(found) != 1 or found[0]["payee"] != controller or found[0]["amount"] != 2:
            out.append(
                violation(
                    "BR-governor-money",
                    f"{row}, {province}",
                    f"2 Crowns to the foreign governor's house {controller}",
                    [(p["payee"], p["amount"]) for p in found],
                )
            )
    if own >= 0 and not (unsure & want) and own_extra != own:
        out.append(violation("BR-governor-money", row, f"{own} Crowns extra for the house's own governors", own_extra))
    return out
