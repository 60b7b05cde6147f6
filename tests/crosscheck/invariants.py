"""Invariants every ruleset keeps (issue 16), checked on an export:

- INV-reign-holder: no open reign is held by a dead or retired character.
- INV-reign-end: a reign ends only with its holder's death, or the ways the rules allow: an interim
  reign ends when the prisoner comes back (``interim_for``); a crown given back by the house that
  annexed it (a ``house_restored`` change of the crown's control that year).
- INV-crown-control: every crown is controlled by its home house unless a rule says otherwise: a
  Dynastic Union (``union_with``), its monarch wearing another crown for the same player (one
  monarch, two crowns), or a house without a crown of its own (a crown whose home house is gone).

Every living character of 15 or more rolling survival every turn is each ruleset's own check
(BR-survival-who; BloodLine's and the EU monarchs' survival rules in their modules).
"""

from __future__ import annotations

from typing import Any

from .common import Export, violation


def check_invariants(doc: dict[str, Any]) -> list[str]:
    ex = Export.of(doc)
    out: list[str] = []
    restored = {
        (c["crown"], c["year"])
        for c in doc.get("control_changes", [])
        if c["crown"] is not None and c["cause"] == "house_restored"
    }
    crown_ids = {c["name"]: c["id"] for c in doc["crowns"]}
    open_reigns: dict[str, dict[str, Any]] = {}
    for r in doc["reigns"]:
        holder = ex.chars[r["holder"]]
        row = f"{r['crown']} {r['start_year']}, {ex.name(holder['id'])}"
        if r["end_year"] is None:
            open_reigns[r["crown"]] = r
            if holder["status"] != "alive":
                out.append(violation("INV-reign-holder", row, "a living monarch", holder["status"]))
            continue
        if holder["death_year"] == r["end_year"] or r["interim_for"] is not None:
            continue
        if (crown_ids.get(r["crown"]), r["end_year"]) in restored:
            continue
        out.append(
            violation(
                "INV-reign-end",
                row,
                "the reign ends with its holder's death",
                f"ended {r['end_year']}, holder died {holder['death_year']}",
            )
        )
    for crown in doc["crowns"]:
        home, controller = crown["home_dynasty"], crown["controlled_by"]
        if controller == home or crown["union_with"] is not None or home is None:
            continue
        reign = open_reigns.get(crown["name"])
        if reign is not None:
            holder = ex.chars[reign["holder"]]
            others = [r for r in open_reigns.values() if r["holder"] == holder["id"] and r["crown"] != crown["name"]]
            if others and holder["controlled_by"] == controller:
                continue  # one monarch, two crowns, one player
        out.append(violation("INV-crown-control", f"{crown['name']} now", f"controlled by its home house {home}", controller))
    return out
