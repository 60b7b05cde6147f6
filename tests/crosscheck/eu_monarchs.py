"""EU monarchs cross-check: every roll of the rolled monarchs re-read from the player aid's table
(../shared/seeds/eu-boardgame-aid.txt, "Monarch Survival": one 1d10 table read as the survival
roll, the succession roll with its age column, and the reign length; "Successor's Values").
Rule ids:

- EM-dice: every roll's faces fit its dice (1d10).
- EM-survival: "≤1 +1T ... 10 dead ... ≥11 dead"; Turkey's column "5-7 Pasha, 9-10 R, ≥11 R+DC";
  a "dead" result ends the reign with its holder's death that year.
- EM-succession: "≤1 DC ... 10 Fragile ... ≥11 health", the same line's age ("8 teen, 9 child,
  10 baby"); after DC or Fragile Health a fresh roll for the age ("Reroll for age"); the new
  monarch's age (adult 20, teenager 10, child 5, baby 0, docs/rulings.md).
- EM-reign: "reign length" 3T at ≤1 up to 12T at 10; the reign's planned end is its start plus
  those turns and one more for each "+1T" survival result; a reign that runs out ends then.
- EM-values: the Successor's Values table, by die and column (3..7); the monarch's values.
- Venice's Doges ("Specific rules for the Doges"): values rolled with +1, minimum 4; reign length
  -2; no Dynastic Crisis; never a minor (checked under EM-succession, EM-values and EM-reign).
- EM-values-column: "read the country's column, moved one column right if the former monarch's
  value was above the base column, one left if below" (base columns: Turkey 4, Poland, Russia and
  France 5, the others 6; crowns whose state sets another are left out).
- EM-survival-modifier: "+1 if Fragile Health; +2 turn 1 after a DC; +1 turn 2 after a DC; +1 if
  Stability < 0"; Turkey "+1 ... if MIL < 7" (MIL after the minority penalty: teenage -1, child -2,
  baby -3, by the monarch's age now).
- EM-stability-chain: a crown's Stability history is a chain (each step's Stability after = the
  one before + delta; the crown's Stability its last).
- EM-stability-bounds: Stability within the board game's -3..+3.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise
from typing import Any

from .common import Export, Row, check_faces, total, violation

VALUES = {  # die -> values in columns 3, 4, 5, 6, 7
    1: (3, 3, 3, 3, 3),
    2: (3, 3, 3, 3, 4),
    3: (3, 3, 3, 4, 5),
    4: (3, 4, 4, 5, 6),
    5: (4, 4, 5, 5, 6),
    6: (4, 5, 5, 6, 7),
    7: (4, 5, 6, 6, 7),
    8: (5, 6, 7, 7, 8),
    9: (6, 7, 8, 8, 8),
    10: (7, 8, 9, 9, 9),
}
AGES = {"adult": 20, "teenager": 10, "child": 5, "baby": 0}
BASE_COLUMNS = {"Turkey": 4, "Poland": 5, "Russia": 5, "France": 5}


def minority_penalty(age: int) -> int:
    return 0 if age >= 15 else 1 if age >= 10 else 2 if age >= 5 else 3


def age_of(score: int) -> str:
    return {8: "teenager", 9: "child", 10: "baby"}.get(score, "adult")


def check_eu_monarchs(export: dict[str, Any]) -> list[str]:
    ex = Export.of(export)
    out: list[str] = []
    reign_of: dict[tuple[int, int], Row] = {(r["holder"], r["start_year"]): r for r in ex.doc["reigns"]}
    ages: dict[int, str] = {}
    crown_of = {reign["holder"]: reign["crown"] for reign in ex.doc["reigns"]}
    former: dict[int, int] = {}
    by_crown: dict[str, list[Row]] = defaultdict(list)
    for reign in ex.doc["reigns"]:
        by_crown[reign["crown"]].append(reign)
    for reigns in by_crown.values():
        for a, b in pairwise(reigns):
            former[b["holder"]] = a["holder"]
    crown_names = {c["id"]: c["name"] for c in ex.doc["crowns"]}
    stability: dict[str, list[Row]] = defaultdict(list)
    for e in ex.doc.get("crown_events", []):
        stability[crown_names[e["crown"]]].append(e)
    fragile: set[int] = set()
    crisis: dict[int, int] = {}
    for r in ex.doc["rolls"]:
        out += check_faces(r, "EM-dice")
        row = f"roll {r['id']} ({r['year']} {r['purpose']} {r['detail']})"
        score = total(r)
        purpose = r["purpose"]
        if purpose == "monarch_survival":
            base = "+1 turn" if score <= 1 else "dead" if score >= 10 else "nothing"
            if r["detail"] == "Turkey":
                extra = (
                    "Pasha"
                    if 5 <= score <= 7
                    else "revolt"
                    if 9 <= score <= 10
                    else ("revolt and Dynastic Crisis" if score >= 11 else "")
                )
                want = f"{base}; {extra}" if extra else base
            else:
                want = base
            if r["outcome"] != want:
                out.append(violation("EM-survival", row, want, r["outcome"]))
            [cid] = r["characters"]
            c = ex.chars[cid]
            modifier = int(cid in fragile)
            if cid in crisis:
                modifier += {1: 2, 2: 1}.get((r["year"] - crisis[cid]) // ex.campaign["turn_length"], 0)
            before = [e["stability_after"] for e in stability[r["detail"]] if e["year"] < r["year"]]
            modifier += 1 if before and before[-1] < 0 else 0
            if r["detail"] == "Turkey" and c["characteristics"]["mil"] - minority_penalty(r["year"] - c["birth_year"]) < 7:
                modifier += 1
            if r["modifier"] != modifier:
                out.append(violation("EM-survival-modifier", f"{row}, {ex.name(cid)}", modifier, r["modifier"]))
            died = c["death_year"] == r["year"] and "survival" in c["death_cause"]
            if (base == "dead") != died and (base == "dead" or c["death_year"] == r["year"]):
                want = "a death" if base == "dead" else "no death"
                out.append(
                    violation("EM-survival", f"{row}, {ex.name(cid)}", want, f"death {c['death_year']} ({c['death_cause']})")
                )
        elif purpose == "monarch_succession":
            if "Fragile Health" in r["outcome"]:
                fragile.add(r["characters"][0])
            if "Dynastic Crisis" in r["outcome"]:
                crisis[r["characters"][0]] = r["year"]
            doge = _doge(ex, r["detail"])
            head = "Dynastic Crisis" if score <= 1 and not doge else "Fragile Health" if score >= 10 else "normal"
            found = r["outcome"]
            ok = found.startswith(head)
            if doge:  # "no Dynastic Crisis" for the Doges, never a minor (docs/rulings.md)
                ok = found == head
                if head == "normal":
                    ages[r["characters"][0]] = "adult"
            elif head == "normal":
                ok = ok and found.endswith("; " + age_of(score))
                ages[r["characters"][0]] = age_of(score)
            if not ok:
                want = f"{head}; {age_of(score)}" if head == "normal" else head
                out.append(violation("EM-succession", row, want, found))
        elif purpose == "monarch_age":
            if r["outcome"] != age_of(score):
                out.append(violation("EM-succession", row, age_of(score), r["outcome"]))
            ages[r["characters"][0]] = age_of(score)
        elif purpose == "monarch_reign":
            want = f"{min(max(score + 2, 3), 12)} turns"
            if _doge(ex, r["detail"]) and r["modifier"] != -2:
                out.append(violation("EM-reign", row, "a Doge's reign length -2", r["modifier"]))
            if r["outcome"] != want:
                out.append(violation("EM-reign", row, want, r["outcome"]))
        elif purpose == "monarch_value":
            name, _, column = r["detail"].split()
            col = int(column)
            die = min(max(score, 1), 10)
            if not 3 <= col <= 7:
                out.append(violation("EM-values", row, "a column 3..7", col))
                continue
            cid = r["characters"][0]
            crown = crown_of.get(cid, "")
            if crown in ex.crowns and not ex.crowns[crown].get("state", {}).keys() - {
                "survival_year",
                "monarch_id",
                "minority",
                "fragile_health",
                "crisis_year",
                "doge",
                "leader",
            }:
                base_col = BASE_COLUMNS.get(crown, 6)
                want_col = base_col
                if cid in former:
                    prior: int = ex.chars[former[cid]]["characteristics"][name.lower()]
                    want_col = base_col + 1 if prior > base_col else base_col - 1 if prior < base_col else base_col
                want_col = min(max(want_col, 3), 7)
                if col != want_col:
                    out.append(violation("EM-values-column", row, f"column {want_col}", col))
            value = VALUES[die][col - 3]
            if _doge(ex, crown):  # "Venetian Doges: characteristics rolled with +1, minimum 4"
                value = max(value, 4)
                if r["modifier"] != 1:
                    out.append(violation("EM-values", row, "a Doge's +1", r["modifier"]))
            want = f"{name} {value}"
            if r["outcome"] != want:
                out.append(violation("EM-values", row, want, r["outcome"]))
    # "reign length": the rolled turns, a turn more for each "+1T" survival result.
    rolled: dict[int, int] = {}
    more: dict[int, int] = defaultdict(int)
    for r in ex.doc["rolls"]:
        if r["purpose"] == "monarch_reign":
            rolled[r["characters"][0]] = min(max(total(r) + 2, 3), 12)
        elif r["purpose"] == "monarch_survival" and total(r) <= 1:
            more[r["characters"][0]] += 1
    for reign in ex.doc["reigns"]:
        cid = reign["holder"]
        if cid not in rolled:
            continue
        row = f"{reign['crown']} {reign['start_year']}, {ex.name(cid)}"
        planned = reign["start_year"] + ex.campaign["turn_length"] * (rolled[cid] + more[cid])
        if reign["planned_end_year"] != planned:
            out.append(
                violation(
                    "EM-reign", row, f"planned end {planned} ({rolled[cid]} turns + {more[cid]})", reign["planned_end_year"]
                )
            )
        if reign["end_year"] is not None and reign["end_year"] > planned:
            out.append(violation("EM-reign", row, f"ended by {planned}", reign["end_year"]))
        c = ex.chars[cid]
        if "rolled reign" in c["death_cause"] and c["death_year"] != planned:
            out.append(violation("EM-reign", row, f"the reign's end in {planned}", c["death_year"]))
    # The new monarch's age.
    for cid, age in ages.items():
        c = ex.chars[cid]
        starts = [reign["start_year"] for (holder, _), reign in reign_of.items() if holder == cid]
        if starts and starts[0] - c["birth_year"] != AGES[age]:
            out.append(
                violation(
                    "EM-succession",
                    ex.name(cid),
                    f"aged {AGES[age]} ({age}) at {starts[0]}",
                    f"aged {starts[0] - c['birth_year']}",
                )
            )
    out += check_stability(ex, "EM-stability-chain", "EM-stability-bounds")
    return out


def _doge(ex: Export, crown: str) -> bool:
    return bool(ex.crowns.get(crown, {}).get("state", {}).get("doge"))


def check_stability(ex: Export, rule: str, bounds_rule: str) -> list[str]:
    out: list[str] = []
    by_crown: dict[int, list[Row]] = defaultdict(list)
    for e in ex.doc.get("crown_events", []):
        by_crown[e["crown"]].append(e)
    crowns = {c["id"]: c for c in ex.doc["crowns"]}
    for cid, events in by_crown.items():
        level = 0
        for i, e in enumerate(events):
            row = f"crown {crowns[cid]['name']} event {i} ({e['year']}, {e['kind']}: {e['reason']})"
            if not -3 <= e["stability_after"] <= 3:
                out.append(violation(bounds_rule, row, "Stability within -3..+3", e["stability_after"]))
            if e["kind"] == "stability":
                want = max(-3, min(3, level + e["delta"]))
                if e["stability_after"] not in (want, level + e["delta"]):
                    out.append(violation(rule, row, f"{level} {e['delta']:+d} = {want}", e["stability_after"]))
            elif e["stability_after"] != level:
                out.append(violation(rule, row, f"Stability unchanged at {level}", e["stability_after"]))
            level = e["stability_after"]
        if crowns[cid]["stability"] != level:
            name = crowns[cid]["name"]
            out.append(violation(rule, f"crown {name}", f"Stability {level} (its history)", crowns[cid]["stability"]))
    return out
