"""Blood Royale's optional rules D, E and H cross-checked from an export (docs/export-format.md) and
the rulebook's words only (../shared/seeds/blood-royale-rules.txt, Optional Rules). Rule ids:

- BR-rule-e: "Cards 18-22 allow for characters to leave the Dynasty of their birth ... Cards 38 and
  39 allow for the creation of bastard sons of unmarried Kings" (E, Event Cards): a campaign without
  optional rule E (``event_cards``) has no Pretender (``pretender_of``), no bastard (``legitimate``
  false) and no chronicle line of a Pretender, a buy-back or a bastard.
- BR-rule-h: "With this Option, a third Event/Movement Phase is introduced" (H): a board event that
  says its Event/Movement phase (``data.phase``) says 1 or 2, or 3 only under optional rule H
  (``extra_movement_phase``).
- BR-rule-d: "the owning player must throw one die, adding ... +1 for each intercepting Army counter;
  +2 for each intercepting Fleet counter (... in excess ...); -1 for each 15 Crowns the owning player
  pays ...; +1 for each 20 Crowns the intercepting player pays ... If the modified result is 6 or
  more, possession of the Trade Item passes to the intercepting player" (D): an interception only
  under optional rule D (``trade_item_movement``); each one's line of the two houses adds up as the
  rule says (the Crowns in whole steps), and the roll log has the owner's one die with that outcome.
"""

from __future__ import annotations

from typing import Any

from .common import Export, violation

CARD_LINES = ("pretender", "pretender_return", "bastard")


def check_options(ex: Export) -> list[str]:
    return _rule_e(ex) + _rule_h(ex) + _rule_d(ex)


def _lines(ex: Export) -> list[tuple[int, dict[str, Any]]]:
    return [(y["year"], e) for y in ex.doc["chronicle"] for e in y["entries"]]


def _rule_e(ex: Export) -> list[str]:
    if ex.option("event_cards"):
        return []
    out = []
    for c in ex.doc["characters"]:
        if c.get("pretender_of") is not None:
            out.append(
                violation(
                    "BR-rule-e", ex.name(c["id"]), "no Pretender without rule E", f"a Pretender of house {c['pretender_of']}"
                )
            )
        if c.get("legitimate") is False:
            out.append(violation("BR-rule-e", ex.name(c["id"]), "no bastard without rule E", "a bastard"))
    for year, e in _lines(ex):
        if e["kind"] in CARD_LINES:
            out.append(violation("BR-rule-e", f"{year}, a {e['kind']} line", "no event card without rule E", e["text"][:80]))
    return out


def _rule_h(ex: Export) -> list[str]:
    last = 3 if ex.option("extra_movement_phase") else 2
    out = []
    for year, e in _lines(ex):
        data = e["data"] if isinstance(e["data"], dict) else {}
        if "phase" in data and data["phase"] not in range(1, last + 1):
            out.append(
                violation("BR-rule-h", f"{year}, a {e['kind']} line", f"an Event/Movement phase from 1 to {last}", data["phase"])
            )
    return out


def _rule_d(ex: Export) -> list[str]:
    rolls = sorted((r for r in ex.doc["rolls"] if r["purpose"] == "interception"), key=lambda r: r["id"])
    lines = [(y, e) for y, e in _lines(ex) if e["kind"] == "interception" and "face" in (e["data"] or {})]
    out = []
    if not ex.option("trade_item_movement") and (rolls or lines):
        out.append(violation("BR-rule-d", "the campaign", "no interception without rule D", f"{len(rolls)} interception roll(s)"))
    if len(rolls) != len(lines):
        out.append(
            violation("BR-rule-d", "the campaign", "one roll for each interception", f"{len(rolls)} rolls, {len(lines)} lines")
        )
    for roll, (year, e) in zip(rolls, lines, strict=False):
        d = e["data"]
        row = f"{year}, interception roll {roll['id']}"
        if roll["dice"] != "1d6" or len(roll["faces"]) != 1 or roll["year"] != year:
            out.append(
                violation("BR-rule-d", row, "the owner's one die that year", f"{roll['dice']} {roll['faces']} in {roll['year']}")
            )
            continue
        if d["owner_crowns"] % 15 or d["interceptor_crowns"] % 20:
            out.append(
                violation(
                    "BR-rule-d",
                    row,
                    "Crowns in steps of 15 (owner) and 20 (interceptor)",
                    (d["owner_crowns"], d["interceptor_crowns"]),
                )
            )
        if d["armies"] < 0 or d["fleets_in_excess"] < 0 or d["armies"] + d["fleets_in_excess"] == 0:
            out.append(
                violation("BR-rule-d", row, "an intercepting army, or fleets in excess", (d["armies"], d["fleets_in_excess"]))
            )
        total = (
            roll["faces"][0] + d["armies"] + 2 * d["fleets_in_excess"] - d["owner_crowns"] // 15 + d["interceptor_crowns"] // 20
        )
        taken = total >= 6
        if (
            d["face"] != roll["faces"][0]
            or d["total"] != total
            or d["taken"] != taken
            or roll["outcome"] != ("taken" if taken else "passes")
        ):
            out.append(
                violation("BR-rule-d", row, f"{total}, {'taken' if taken else 'not taken'}", f"{d['total']}, {roll['outcome']}")
            )
    return out
