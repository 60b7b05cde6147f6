"""Diplomacy's consequences (the medieval game's Grand Diplomacy, sections 20-22;
/work/shared/seeds/medieval-grand-diplomacy.txt), re-derived from an export's ``parleys``,
``claims``, ``obligations`` and ``excommunications`` (docs/export-format.md) only.

- DIP-claim-granted: 20.42 "Agreement, or a tie, means the player obtains the claim": a claim parley
  whose votes for are at least those against granted its caller a claim to its area (a claim naming
  it); one lost granted none.
- DIP-claim-once: 20.42 "A player may, once per round, call for a parley in order to obtain a claim".
- DIP-claim-held-once: a house holds at most one claim to an area at a time (case and spacing ignored).
- DIP-claim-exchanged: 20.1 "players may freely exchange existing claims": a claim exchanged came from
  another house's claim to that area, ended ("given") the year the new one began.
- DIP-decision: 20.41, 20.43: the parley decides the rightful owner, a tie for the caller; the loser
  must give the area to the winner or be excommunicated. A conquest the caller wins obliges the
  conqueror to return it; an inheritance the caller loses obliges him to relinquish it (the winner
  holding it already, nothing is due otherwise; docs/rulings.md).
- DIP-flouted: 22.1 "A Christian leader may be excommunicated as a result of flouting a parley
  decision": every decision refused or flouted has the obliged house's excommunication in force that
  year; none still open after the turn it was due in.
- DIP-excommunicated-parley: 22.12 "An excommunicated player may not participate in any parleys,
  except those in which the players are considering their readmission"; 22.13 "They may only call a
  parley to consider their readmission" (checked for the turns wholly within an excommunication).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .common import Row, violation


def _key(area: str) -> str:
    return " ".join(area.split()).casefold()


def _banned(excommunications: list[Row], dynasty: int, year: int) -> bool:
    """Excommunicated through the whole of that turn (begun before it, not ended in or before it)."""
    return any(
        e["dynasty"] == dynasty and e["start_year"] < year and (e["ended_year"] is None or e["ended_year"] > year)
        for e in excommunications
    )


def check_diplomacy(doc: dict[str, Any]) -> list[str]:
    parleys: list[Row] = doc.get("parleys", [])
    claims: list[Row] = doc.get("claims", [])
    dues: list[Row] = doc.get("obligations", [])
    bans: list[Row] = doc.get("excommunications", [])
    now = doc["campaign"]["current_year"]
    out: list[str] = []
    by_parley = {c["parley"]: c for c in claims if c["parley"] is not None}
    due_of = {o["parley"]: o for o in dues}
    calls = Counter((p["caller"], p["year"]) for p in parleys if p["kind"] == "claim")
    for (caller, year), n in calls.items():
        if n > 1:
            out.append(violation("DIP-claim-once", f"dynasty {caller} in {year}", "one claim parley", n))
    for p in parleys:
        row = f"parley {p['id']} ({p['kind']}, {p['year']})"
        won = p["votes_for"] >= p["votes_against"]
        if p["kind"] == "claim" and p.get("area"):
            got = by_parley.get(p["id"])
            if won and (got is None or got["dynasty"] != p["caller"] or _key(got["area"]) != _key(p["area"])):
                out.append(violation("DIP-claim-granted", row, f"a claim to {p['area']} for dynasty {p['caller']}", got))
            if not won and got is not None:
                out.append(violation("DIP-claim-granted", row, "no claim (lost)", got["id"]))
        if p["kind"] in ("conquest", "inheritance") and p.get("opponent") is not None:
            if p["kind"] == "conquest":
                expected = (p["opponent"], p["caller"], "return") if won else None
            else:
                expected = None if won else (p["caller"], p["opponent"], "relinquish")
            due = due_of.get(p["id"])
            found = None if due is None else (due["obliged"], due["owed_to"], due["action"])
            if found != expected:
                out.append(violation("DIP-decision", row, expected, found))
        if p["kind"] != "readmission" and _banned(bans, p["caller"], p["year"]):
            out.append(violation("DIP-excommunicated-parley", row, "no parley called by an excommunicated house", p["caller"]))
        for v in p.get("votes", []):
            readmitting = p["kind"] == "readmission" and v["dynasty"] == p["caller"]
            if v["position"] is not None and not readmitting and _banned(bans, v["dynasty"], p["year"]):
                out.append(violation("DIP-excommunicated-parley", row, "no vote from an excommunicated house", v["dynasty"]))
    held: Counter[tuple[int, str]] = Counter()
    for c in claims:
        if c["ended_year"] is None:
            held[(c["dynasty"], _key(c["area"]))] += 1
        if c["how"] == "exchange":
            given = next((o for o in claims if o["id"] == c["came_from"]), None)
            ok = (
                given is not None
                and given["dynasty"] != c["dynasty"]
                and _key(given["area"]) == _key(c["area"])
                and given["end"] == "given"
                and given["ended_year"] == c["since_year"]
            )
            if not ok:
                out.append(violation("DIP-claim-exchanged", f"claim {c['id']}", "another house's claim given that year", given))
    for (dynasty, area), n in held.items():
        if n > 1:
            out.append(violation("DIP-claim-held-once", f"dynasty {dynasty}, {area}", "one claim held", n))
    for o in dues:
        row = f"obligation of parley {o['parley']}"
        if o["state"] in ("refused", "flouted"):
            year = o["resolved_year"]
            ok = any(
                e["dynasty"] == o["obliged"] and e["start_year"] <= year and (e["ended_year"] is None or e["ended_year"] >= year)
                for e in bans
            )
            if not ok:
                out.append(violation("DIP-flouted", row, f"dynasty {o['obliged']} excommunicated in {year}", "none"))
        if o["state"] == "open" and o["due_year"] < now:
            out.append(violation("DIP-flouted", row, f"settled by the end of {o['due_year']}", "still open"))
    return out
