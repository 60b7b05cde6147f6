"""Blood Royale: the end of the game, re-derived from the export (docs/export-format.md) and the
rulebook's words only.

Rulebook (22) Ending The Game: "At the end of the agreed time, the game is terminated. Players may
cash in any sets of Resource items they have in their Capitals ... The player with the most money is
the winner. Alternatively, at the beginning of the game players could set a monetary victory target
(eg, 800 Crowns). A player with this sum or more after the 'Cashing-In' Phase of a turn is declared
the winner. If more than one player has more than 800 Crowns, the player with the most wins."

- BR-end-winner: a game that ended names as its winners (the `game_end` line's `data.winners`)
  exactly the player houses with the most money in the ledger (`postings`) at the end.
- BR-end-due: the game ended when it was due and not before: at the agreed last turn (`end_year`),
  or after the first turn whose cashing-in left a player house with `money_target` or more (the
  money of a turn's end is every posting of that year and before: the Cashing-In is the turn's
  last phase); a game past its agreed last turn, or past a turn that reached the target, has ended.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .common import violation


def _money_by_year(doc: dict[str, Any], houses: set[int]) -> tuple[list[int], dict[int, dict[int, int]]]:
    """Each player house's money at the end of each year that has postings (cumulative)."""
    flows: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for p in doc.get("postings", []):
        if p["payee"] in houses:
            flows[p["year"]][p["payee"]] += p["amount"]
        if p["payer"] in houses:
            flows[p["year"]][p["payer"]] -= p["amount"]
    years = sorted(flows)
    held = dict.fromkeys(houses, 0)
    out: dict[int, dict[int, int]] = {}
    for year in years:
        for house, change in flows[year].items():
            held[house] += change
        out[year] = dict(held)
    return years, out


def check_game_end(doc: dict[str, Any]) -> list[str]:
    campaign = doc["campaign"]
    houses = {d["id"] for d in doc["dynasties"] if d["kind"] == "player"}
    ended = campaign.get("ended_year")
    end_year, target = campaign.get("end_year"), campaign.get("money_target")
    out: list[str] = []
    years, money = _money_by_year(doc, houses)
    final = dict.fromkeys(houses, 0)
    if years:
        final = money[years[-1]]
    lines = [e for y in doc["chronicle"] for e in y["entries"] if e["kind"] == "game_end"]
    if ended is not None:
        top = max(final.values(), default=0)
        richest = sorted(h for h, m in final.items() if m == top)
        found = sorted(lines[-1]["data"].get("winners", [])) if lines else None
        if found != richest:
            out.append(violation("BR-end-winner", f"the end of {ended}", f"winners {richest} (the most money, {top})", found))
    # when was the end due?
    due: int | None = None
    if target:
        for year in years:
            if any(m >= target for m in money[year].values()):
                due = year
                break
    if end_year is not None and (due is None or end_year < due):
        due = end_year
    last_played = ended if ended is not None else campaign["current_year"]
    if ended is not None and due is not None and ended != due:
        out.append(violation("BR-end-due", f"the end of {ended}", f"the end in {due}", ended))
    if ended is not None and due is None and campaign.get("ended_reason") != "agreement":
        out.append(
            violation(
                "BR-end-due", f"the end of {ended}", "an end by agreement (nothing made it due)", campaign.get("ended_reason")
            )
        )
    if ended is None and due is not None and last_played > due:
        out.append(violation("BR-end-due", f"the campaign in {last_played}", f"the game ended in {due}", "it went on"))
    return out
