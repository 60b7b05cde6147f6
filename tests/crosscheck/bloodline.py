"""BloodLine (eu-bloodline) cross-check: rolls, births, effective ages, survival, Stability, money
and succession re-derived from ../shared/seeds/eu-bloodline-variant.txt and the survival table the
export carries. Rule ids:

- BL-dice: every roll's faces fit its dice.
- BL-birth-roll: "Players roll 2 10-sided dice; a child is produced on a roll greater than 10"
  (target 11); at most "2 more attempts", numbered in order.
- BL-birth-year: children "receive a year of birth sequentially based on the Turn Year" (the turn
  year plus the attempt's index less one: "in 1520 ... 1522"); the child's parents are the couple.
- BL-sex: "an equal chance of male or female" (1d10: 1-5 a boy, 6-10 a girl, docs/rulings.md).
- BL-characteristics: "Modify die roll by result of the Parents Characteristics table (a child's
  stats can never be less than 3 nor greater than 9)"; the table is floor((father + mother - 10) / 2).
- BL-effective-age: "each subsequent attempt, increases the wife's effective age by 2 years
  (permanent)"; ill health "+X" and good health "-X" move it; the survival column is the highest
  listed age not above it; the character's recorded offset is the sum.
- BL-survival-roll: 2d10 less 1 per additional birth attempt this turn, read on the table ("U" dies);
  a "U", and only a "U", is a death that year.
- BL-dowry: "Marriages involving a player's monarch or the monarch's children need a title for the
  giving dynasty and a standard EU dynastic alliance (100 ducats dowry or a province)"; 100 ducats
  are posted from the bride's house to the groom's at the wedding.
- BL-minor-stability: "Under-15 monarch: -1 Stability per turn", each turn of such a reign.
- BL-stability-chain: each Stability event's level after = the level before + delta; the crown's
  Stability is its history's last.
- BL-stability-bounds: Stability within the board game's -3..+3.
- BL-no-retirement: "The wife ... returns to her family if he dies first": nobody retires in
  BloodLine.
- BL-no-br-money: BloodLine has no bride's Charisma money nor Blood Royale's 100 Crowns for a
  monarch's match.
- BL-posthumous: no child born after its mother's death or more than a year after its father's
  (the ruling in docs/rulings.md).
- BL-succession: "male-preference primogeniture", then "the monarch's eldest sibling and down";
  passed-over heirs and their lines are skipped (Turkey under "Turkey #1" apart).
- BL-turkish-succession: the same under "Turkey #1" in Turkey: a princess's rights go to the
  husband she has at the Succession (wedded in an earlier turn) and alive; without one she is
  passed by and her line goes on (docs/rulings.md).
- BL-union-children: "When the Queen or King dies the dynastic union is over and none of her
  children may inherit", whichever spouse died first (found by this check when the King died first
  and the Queen reigned on).
- BL-reign-end: "Happens immediately after all survival rolls": a reign ends in the year of its
  holder's death (an interim reign aside), the heir succeeding at once (found: a King put to death
  by a new Sultan under "Turkey #2" reigned, dead, until the next turn).
- BL-spurned-roll: "for as along as any of the skipped claimants, there is a 50% chance ... each
  Turn until those bloodlines are extinguished (test this after all Survival Rolls) ... any children
  subsequently produced by these 'spurned' bloodlines do not perpetuate the ongoing instability
  roll": a turn's roll for a skipped claimant's line (``disputed_line``) needs one of that line born
  by the skip's turn alive after the turn's survival rolls (found: a line extinct by 1562 rolled
  until 1627 through children born after the skip, issue 33).
- BL-spurned-heir: the same passage, "nor are they eligible for making claims to the throne": a
  child born into a spurned line in a turn after the skip, or anyone through him, never succeeds to
  that crown (found: a son born 20 years after the skip succeeded, issue 33).
- BL-minor-no-issue: "If the monarch dies without issue, then a randomly rolled monarch 5 years
  younger than the previous one takes the throne": a minor house's monarch leaving no legitimate
  descendant alive is followed by a rolled monarch (no family), 5 years younger (never born after
  the turn), not by a brother or a cousin (issue 33).
- BL-accession-titles: "When a Monarch assumes the throne he loses all in-country titles he
  presently owns ... but retains titles that are in part or completely outside the realm": after
  his accession step the new monarch holds no title with a province his crown's house controls,
  those that came to him in that very step included (found: a King kept his father's county, issue 33).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise
from typing import Any

from .blood_royale import death_caps
from .common import Export, Row, check_faces, heir_of, line_of, total, turn_of, violation
from .eu_monarchs import check_stability


def column_of(ex: Export, effective: int) -> int:
    columns = ex.campaign["tables"]["bloodline_survival"]["columns"]
    chosen = columns[0]
    for c in columns:
        if c <= effective:
            chosen = c
    return int(chosen)


def table_result(ex: Export, score: int, column: int) -> str:
    table = ex.campaign["tables"]["bloodline_survival"]
    rows = table["rows"]
    keys = sorted(int(k) for k in rows)
    row = rows[str(min(max(score, keys[0]), keys[-1]))]
    return str(row[table["columns"].index(column)])


def parents_modifier(father: int, mother: int) -> int:
    return (father + mother - 10) // 2


def check_bloodline(export: dict[str, Any]) -> list[str]:
    ex = Export.of(export)
    out: list[str] = []
    out += _rolls_and_births(ex)
    out += _survival(ex)
    out += check_stability(ex, "BL-stability-chain", "BL-stability-bounds")
    for c in ex.doc["characters"]:
        if c["status"] == "retired":
            out.append(
                violation(
                    "BL-no-retirement", ex.name(c["id"]), "no retirement in BloodLine", f"retired in {c.get('retired_year')}"
                )
            )
        if c["father"] is not None and c["mother"] is not None:
            caps = death_caps(ex.chars[c["father"]], ex.chars[c["mother"]])
            if caps and c["birth_year"] > min(caps):
                out.append(
                    violation(
                        "BL-posthumous",
                        ex.name(c["id"]),
                        f"born by {min(caps)} (not after the mother's death, nor a year after the father's)",
                        c["birth_year"],
                    )
                )
    for p in ex.doc.get("postings", []):
        if p["kind"] in ("wedding", "monarch_match"):
            out.append(
                violation(
                    "BL-no-br-money",
                    f"posting {p['id']} ({p['year']})",
                    "no Blood Royale wedding money",
                    f"{p['kind']} {p['amount']}: {p['reason']}",
                )
            )
    out += _succession(ex)
    out += _dowries(ex)
    out += _minor_stability(ex)
    out += _spurned_rolls(ex)
    out += _accession_titles(ex)
    return out


def _spurned_skips(ex: Export) -> dict[tuple[str, int], int]:
    """(crown, claimant) -> the year of the claimant's first voluntary skip for that crown: his
    ongoing roll's start (``ongoing_dispute`` modifiers), else the reign that passed him over."""
    skips: dict[tuple[str, int], int] = {}
    for m in ex.doc.get("modifiers", []):
        if m["kind"] == "ongoing_dispute" and m["claimant"] is not None:
            key = (m["crown"], m["claimant"])
            skips[key] = min(skips.get(key, m["start_year"]), m["start_year"])
    for r in ex.doc["reigns"]:
        for p in r["passed_over"]:
            if p["reason"] == "voluntary":
                skips.setdefault((r["crown"], p["character"]), r["start_year"])
    return skips


def _born_after_skip(ex: Export, claimant: int, skip: int) -> set[int]:
    """Those of the claimant's line born in a turn after the skip ("children subsequently produced")."""
    return {d for d in line_of(ex, claimant, set()) if turn_of(ex, ex.chars[d]["birth_year"]) > skip}


def _alive_after_survival(ex: Export, cid: int, year: int) -> bool:
    """Alive once the survival rolls of ``year`` are made: not dead before it, nor by a roll of
    that turn's Births or Survival (a death later in the turn, or without a roll, counts as after)."""
    c = ex.chars[cid]
    died = c["death_year"]
    if died is None or died > year:
        return True
    if died < year:
        return False
    fatal = ex.fatal.get(cid)
    return fatal is None or ex.rolls[fatal]["year"] != year or ex.rolls[fatal]["step"] not in ("births", "survival")


def _spurned_rolls(ex: Export) -> list[str]:
    out: list[str] = []
    skips = _spurned_skips(ex)
    for r in ex.doc["rolls"]:
        if r["purpose"] != "disputed_line" or not r["characters"]:
            continue
        claimant, year = r["characters"][0], r["year"]
        skip = skips.get((r["detail"], claimant))
        if skip is None:
            out.append(violation("BL-spurned-roll", f"roll {r['id']} ({year})", "a skipped claimant's line", ex.name(claimant)))
            continue
        late = _born_after_skip(ex, claimant, skip)
        line = [claimant, *(d for d in line_of(ex, claimant, set()) if d not in late)]
        if not any(turn_of(ex, ex.chars[d]["birth_year"]) <= year and _alive_after_survival(ex, d, year) for d in line):
            born_later = sorted(d for d in late if _alive_after_survival(ex, d, year) and ex.chars[d]["birth_year"] <= year + 2)
            found = "rolled" + (f", only children born after the skip alive: {ex.name(born_later[0])}" if born_later else "")
            out.append(
                violation(
                    "BL-spurned-roll",
                    f"{r['detail']} {year}, the line of {ex.name(claimant)} skipped in {skip}",
                    "no roll: the spurned bloodline is extinguished",
                    found,
                )
            )
    return out


def _accession_titles(ex: Export) -> list[str]:
    out: list[str] = []
    titles = {t["id"]: t for t in ex.doc.get("titles", [])}
    for r in ex.doc["reigns"]:
        if r["interim_for"] is not None:
            continue
        record = ex.crowns.get(r["crown"])
        if record is None:
            continue
        # his realm: the provinces of his country's own house (the crown's controller if it has none)
        houses = {record["home_dynasty"] if record["home_dynasty"] is not None else record["controlled_by"]} - {None}
        year = r["start_year"]
        for h in ex.doc.get("title_holdings", []):
            if h["holder"] != r["holder"] or h["start_year"] > year or (h["end_year"] is not None and h["end_year"] <= year):
                continue
            if r["end_year"] is not None and r["end_year"] <= year:
                continue  # a reign of one step (the monarch killed in it)
            title = titles[h["title"]]
            inside = [p["name"] for p in title.get("provinces") or [] if p.get("controller") in houses]
            if inside:
                out.append(
                    violation(
                        "BL-accession-titles",
                        f"{r['crown']} {year}, {ex.name(r['holder'])}",
                        "no in-country title kept on his accession",
                        f"{title['name']} ({', '.join(inside)})",
                    )
                )
    return out


def _dowries(ex: Export) -> list[str]:
    """ "Marriages involving a player's monarch or the monarch's children need a title for the giving
    dynasty and a standard EU dynastic alliance (100 ducats dowry or a province)"; the 100 ducats go
    from the bride's house to the groom's at the wedding (docs/rulings.md); a minor house's accepted
    offer carries its own dowry, from the suitor's house to the minor's. Houses are those that
    controlled the spouses at the wedding (the export's control history)."""
    out: list[str] = []
    dowries: dict[int, list[Row]] = defaultdict(list)
    for p in ex.doc.get("postings", []):
        if p["kind"] == "dowry":
            dowries[p["marriage"]].append(p)

    def reigns_in(cid: int | None, year: int) -> bool:
        return cid is not None and any(
            r["start_year"] <= year and (r["end_year"] is None or r["end_year"] >= year) for r in ex.reigns_of.get(cid, [])
        )

    offers = {
        (o["suitor"], o["minor_character"], o["year"]): o for o in ex.doc.get("marriage_offers", []) if o["status"] == "accepted"
    }
    for m in ex.doc["marriages"]:
        year = m["wedding_year"]
        if year is None:
            continue
        row = f"marriage {m['id']} ({year})"
        husband, wife = ex.chars[m["husband"]], ex.chars[m["wife"]]
        # who controlled each spouse at the wedding (the Interphase), before the wedding moved anyone
        house = {c["id"]: ex.controller_at(c["id"], year, "interphase") for c in (husband, wife)}
        royal = [
            c
            for c in (husband, wife)
            if house[c["id"]] is not None
            and ex.dynasties[house[c["id"]]]["kind"] == "player"
            and (reigns_in(c["id"], year) or reigns_in(c["father"], year) or reigns_in(c["mother"], year))
        ]
        offer = next(
            (
                offers[k]
                for when in (m["arranged_year"], year)  # accepted at the betrothal, the wedding a turn later
                for k in ((husband["id"], wife["id"], when), (wife["id"], husband["id"], when))
                if k in offers
            ),
            None,
        )
        if royal and not offer and not (m["dowry"] and m["alliance_title"]):
            out.append(
                violation(
                    "BL-dowry",
                    row,
                    "a dowry and a title for a monarch's or his child's match",
                    f"dowry {m['dowry']!r}, title {m['alliance_title']!r}",
                )
            )
        paid = [(p["payer"], p["payee"], p["amount"], p["year"]) for p in dowries.get(m["id"], [])]
        if offer is not None:
            # a minor house's accepted offer: its dowry from the suitor's house to the minor's
            payer, payee = house[offer["suitor"]], house[offer["minor_character"]]
            want = [(payer, payee, offer["dowry"], year)] if payer != payee and offer["dowry"] else []
            if paid != want:
                out.append(violation("BL-dowry", row, f"the accepted offer's dowry {want}", paid))
            continue
        bride_house, groom_house = house[wife["id"]], house[husband["id"]]
        owed = m["dowry"] == "100 ducats" and bride_house != groom_house
        want = [(bride_house, groom_house, 100, year)] if owed else []
        if paid != want:
            out.append(violation("BL-dowry", row, f"100 ducats from the bride's house to the groom's {want}", paid))
    return out


def _minor_stability(ex: Export) -> list[str]:
    """ "Under-15 monarch: -1 Stability per turn" (the BloodLine sequence; no regents).

    A reign that begins and ends within one turn (an interim monarch set aside once the released heir's
    claim is recognised, later in the turn) still reigned when the turn's loss was counted: its loss,
    named on the reign it fell on, is the turn's, if that reign's monarch was under 15 that year."""
    out: list[str] = []
    crown_ids = {c["name"]: c["id"] for c in ex.doc["crowns"]}
    reigns = {r["id"]: r for r in ex.doc["reigns"]}

    def brief_minor(e: dict[str, Any]) -> bool:
        r = reigns.get(e.get("reign"))
        return (
            r is not None
            and r["start_year"] == e["year"] == r["end_year"]
            and e["year"] - ex.chars[r["holder"]]["birth_year"] < 15
        )

    losses = [
        e for e in ex.doc.get("crown_events", []) if e["kind"] == "stability" and e["delta"] == -1 and "minor" in e["reason"]
    ]
    events = {(e["crown"], e["year"]) for e in losses}
    brief = {(e["crown"], e["year"]) for e in losses if brief_minor(e)}
    done = [y for y in ex.turn_years() if y < ex.campaign["current_year"] or ex.campaign["step"] not in ("births", "survival")]
    want: set[tuple[int, int]] = set()
    for r in ex.doc["reigns"]:
        holder = ex.chars[r["holder"]]
        for year in done:
            if r["start_year"] <= year and (r["end_year"] is None or r["end_year"] > year) and year - holder["birth_year"] < 15:
                want.add((crown_ids[r["crown"]], year))
    for crown, year in sorted(want - events):
        out.append(violation("BL-minor-stability", f"crown {crown} in {year}", "-1 Stability for a monarch under 15", "none"))
    for crown, year in sorted(events - want - brief):
        out.append(violation("BL-minor-stability", f"crown {crown} in {year}", "no minor's Stability loss", "-1"))
    return out


def _rolls_and_births(ex: Export) -> list[str]:
    out: list[str] = []
    for r in ex.doc["rolls"]:
        out += check_faces(r, "BL-dice")
        row = f"roll {r['id']} ({r['year']} {r['purpose']})"
        if r["purpose"] == "birth":
            born = total(r) > 10
            if r["target"] != 11 or r["outcome"] != ("child" if born else "no child") or r["modifier"] != 0:
                out.append(
                    violation(
                        "BL-birth-roll",
                        row,
                        f"2d10 > 10: {'child' if born else 'no child'}",
                        f"modifier {r['modifier']}, target {r['target']}, {r['outcome']}",
                    )
                )
        elif r["purpose"] == "sex":
            want = "boy" if r["faces"][0] <= 5 else "girl"
            if r["outcome"] != want:
                out.append(violation("BL-sex", row, want, r["outcome"]))
            for cid in r["characters"]:
                if ex.chars[cid]["sex"] != ("M" if want == "boy" else "F"):
                    out.append(violation("BL-sex", f"{row}, {ex.name(cid)}", want, ex.chars[cid]["sex"]))
        elif r["purpose"] == "characteristic":
            [cid] = r["characters"]
            c = ex.chars[cid]
            value = min(max(total(r), 3), 9)
            if r["outcome"] != f"{r['detail']} {value}":
                out.append(violation("BL-characteristics", row, f"{r['detail']} {value}", r["outcome"]))
            if c["characteristics"].get(r["detail"]) != value:
                found = c["characteristics"].get(r["detail"])
                out.append(violation("BL-characteristics", f"{row}, {ex.name(cid)}", value, found))
            if r["step"] == "births" and c["father"] is not None and c["mother"] is not None:
                f, m = ex.chars[c["father"]], ex.chars[c["mother"]]
                # "unmodified die rolls as long as both parents are of minor stock": born in a minor house,
                # or of its country's nobility (no house of birth) and living with a minor house
                minors = {d["id"] for d in ex.doc["dynasties"] if d["kind"] != "player"}

                def minor_stock(p: Row, year: int = r["year"], minors: set[int] = minors) -> bool:
                    if p["birth_dynasty"] is not None:
                        return p["birth_dynasty"] in minors
                    return ex.controller_at(p["id"], year, "births") in minors

                if minor_stock(f) and minor_stock(m):
                    want_mod = 0
                else:
                    want_mod = parents_modifier(f["characteristics"][r["detail"]], m["characteristics"][r["detail"]])
                if r["modifier"] != want_mod:
                    out.append(
                        violation(
                            "BL-characteristics", f"{row}, {ex.name(cid)}", f"the Parents table's {want_mod:+d}", r["modifier"]
                        )
                    )
    by_couple: dict[tuple[int, int], list[Row]] = defaultdict(list)
    for a in ex.doc["birth_attempts"]:
        by_couple[(a["marriage"], a["year"])].append(a)
    for (mid, year), attempts in sorted(by_couple.items()):
        m = ex.marriages[mid]
        row = f"marriage {mid} in {year}"
        numbers = [a["attempt"] for a in attempts]
        if numbers != list(range(1, len(numbers) + 1)) or len(numbers) > 3:
            out.append(violation("BL-birth-roll", row, "attempts 1, 2, 3 at most, in order", numbers))
        for a in attempts:
            roll = ex.rolls.get(a["roll"]) if a["roll"] is not None else None
            if roll is None or a["success"] != (total(roll) > 10):
                out.append(violation("BL-birth-roll", f"{row} attempt {a['attempt']}", "its roll's result", a["success"]))
            if not a["success"] or a["child"] is None:
                continue
            child = ex.chars[a["child"]]
            want = year + a["attempt"] - 1
            # The ruling on children born after a parent's death dates such a child no
            # later than its mother's death, nor more than a year after its father's.
            capped = max(year, min([want, *death_caps(ex.chars[m["husband"]], ex.chars[m["wife"]])]))
            if child["birth_year"] not in (want, capped) or a["child_birth_year"] != child["birth_year"]:
                out.append(
                    violation("BL-birth-year", f"{row} attempt {a['attempt']}, {ex.name(child['id'])}", want, child["birth_year"])
                )
            if (child["father"], child["mother"]) != (m["husband"], m["wife"]):
                out.append(
                    violation(
                        "BL-birth-year",
                        ex.name(child["id"]),
                        f"parents {m['husband']}, {m['wife']}",
                        f"{child['father']}, {child['mother']}",
                    )
                )
    return out


def _survival(ex: Export) -> list[str]:
    out: list[str] = []
    extra: dict[tuple[int, int], int] = defaultdict(int)
    for a in ex.doc["birth_attempts"]:
        if a["attempt"] > 1:
            extra[(ex.marriages[a["marriage"]]["wife"], a["year"])] += 1
    # Effective-age changes in the order they happen: a year's birth attempts, then its survival roll.
    events: dict[int, list[tuple[int, int, str, Row | None]]] = defaultdict(list)
    for wife, year in extra:
        events[wife].append((year, 0, "births", None))
    for r in ex.doc["rolls"]:
        if r["purpose"] == "survival" and r["id"] not in ex.superseded:
            events[r["characters"][0]].append((r["year"], 1, "survival", r))
    for cid, evs in events.items():
        c = ex.chars[cid]
        offset = 0
        for year, _, kind, r in sorted(evs, key=lambda e: (e[0], e[1], e[3]["id"] if e[3] else 0)):
            if kind == "births":
                offset += 2 * extra[(cid, year)]
                continue
            assert r is not None
            row = f"roll {r['id']} ({year}, {ex.name(cid)})"
            effective = max(0, year - c["birth_year"] + offset)
            column = column_of(ex, effective)
            want_detail = f"effective age {effective} (column {column})"
            if r["detail"] != want_detail:
                out.append(violation("BL-effective-age", row, want_detail, r["detail"]))
            if r["modifier"] != -extra.get((cid, year), 0):
                out.append(violation("BL-survival-roll", row, f"modifier {-extra.get((cid, year), 0)}", r["modifier"]))
            result = table_result(ex, total(r), column)
            if result == "U":
                want = "died"
            elif result == ".":
                want = "survived"
            else:
                years = int(result)
                want = f"ill health ({years:+d} years)" if years > 0 else f"good health ({years:+d} years)"
                offset += years
            if r["outcome"] != want:
                out.append(violation("BL-survival-roll", row, want, r["outcome"]))
            died = c["death_year"] == year and "survival" in c["death_cause"]
            if died != (want == "died"):
                out.append(
                    violation(
                        "BL-survival-roll",
                        row,
                        "a death that year" if want == "died" else "no death",
                        f"death {c['death_year']} ({c['death_cause'] or 'alive'})",
                    )
                )
        if c["effective_age_offset"] != offset:
            out.append(violation("BL-effective-age", ex.name(cid), f"offset {offset}", c["effective_age_offset"]))
    return out


def _reigned_while_married(ex: Export, m: Row, her_reign: Row) -> bool:
    """A Dynastic Union: a moment when the husband reigned another crown while married to her and
    she reigned. Within a turn deaths come first (Survival), then reigns begin (Succession), then
    weddings (Interphase): a King who succeeds in the turn his Queen died never reigned with her."""
    if m["wedding_year"] is None:
        return False
    inf = float("inf")

    def span(start: int, end: int | None, begins: float) -> tuple[float, float]:
        return start + begins, (end + 0.2 if end is not None else inf)

    spans = [span(m["wedding_year"], m["ended_year"], 0.8), span(her_reign["start_year"], her_reign["end_year"], 0.5)]
    for r in ex.reigns_of.get(m["husband"], []):
        if r["crown"] == her_reign["crown"]:
            continue
        his = span(r["start_year"], r["end_year"], 0.5)
        if max(a for a, _ in [*spans, his]) < min(b for _, b in [*spans, his]):
            return True
    return False


def _husbands(ex: Export, year: int) -> dict[int, int]:
    """Each wife's living husband at the Succession of turn ``year``: a marriage wedded in an earlier
    turn (a turn's weddings come after its Succession, in the Interphase) and not ended before it."""
    out: dict[int, int] = {}
    for m in ex.doc["marriages"]:
        if m["wedding_year"] is not None and m["wedding_year"] < year and (m["ended_year"] is None or m["ended_year"] > year):
            h = ex.chars[m["husband"]]
            if h["death_year"] is None or h["death_year"] > year:
                out[m["wife"]] = m["husband"]
    return out


def _succession(ex: Export) -> list[str]:
    out: list[str] = []
    by_crown: dict[str, list[Row]] = defaultdict(list)
    for r in ex.doc["reigns"]:
        by_crown[r["crown"]].append(r)
    skips = _spurned_skips(ex)
    for crown, reigns in by_crown.items():
        reigns.sort(key=lambda r: (r["start_year"], r["end_year"] is None, r["end_year"] or 0))
        for prev, nxt in pairwise(reigns):
            year = prev["end_year"]
            late = ex.chars[prev["holder"]]
            row = f"{crown} {year}, after {ex.name(late['id'])}"
            if prev["interim_for"] is not None or nxt["interim_for"] is not None:
                continue  # an interim reign: the prisoner's return, not a death, may end it
            if year is None or late["death_year"] != year:
                out.append(
                    violation(
                        "BL-reign-end",
                        row,
                        "a reign ends with its holder's death, the heir succeeding at once",
                        f"ended {year}, holder died {late['death_year']} ({late['death_cause']})",
                    )
                )
                continue
            cut = {p["character"] for p in nxt["passed_over"]} | ex.renounced_before(crown, year)
            # "When the Queen or King dies the dynastic union is over and none of her children may
            # inherit": a reigning Queen's children by a husband who reigned while they were married.
            union_children: set[int] = set()
            if late["sex"] == "F":
                for m in ex.doc["marriages"]:
                    if m["wife"] == late["id"] and _reigned_while_married(ex, m, prev):
                        union_children |= {k["id"] for k in ex.children.get(late["id"], []) if k["father"] == m["husband"]}

            victims_alive = [True]  # the Sultan's victims of this Succession: alive when it began, or not

            def eligible(cid: int, year: int = year, late: Row = late, alive: list[bool] = victims_alive) -> bool:
                c = ex.chars[cid]
                # put to death by a new Sultan in this Succession (Turkey #2): alive when it began
                later = (
                    alive[0]
                    and c["death_year"] == year
                    and c["death_cause"] == "put to death by the new Sultan"
                    and cid != late["id"]
                )
                if c["death_year"] is not None and c["death_year"] <= year and not later:
                    return False
                if c.get("retired_year") is not None and c["retired_year"] < year:
                    return False
                return turn_of(ex, c["birth_year"]) <= year

            turkish = crown == "Turkey" and ex.option("turkish_princess_rights")
            husbands = _husbands(ex, year) if turkish else {}

            def may_reign(
                cid: int, eligible: Any = eligible, turkish: bool = turkish, husbands: dict[int, int] = husbands
            ) -> bool:
                # "a Turkish princess cannot reign but her husband inherits her rights"
                if turkish and ex.chars[cid]["sex"] == "F":
                    return eligible(cid) and husbands.get(cid) is not None
                return bool(eligible(cid))

            def heir_without(
                cut: set[int],
                may_reign: Any = may_reign,
                late: Row = late,
                year: int = year,
                crown: str = crown,
                turkish: bool = turkish,
                husbands: dict[int, int] = husbands,
            ) -> int | None:
                heir = heir_of(ex, late["id"], crown, year, cut, may_reign)
                if heir is not None and turkish and ex.chars[heir]["sex"] == "F":
                    heir = husbands[heir]
                return heir

            spurned = set().union(
                *(_born_after_skip(ex, claimant, skip) for (c, claimant), skip in skips.items() if c == crown and skip <= year)
            )
            holder = ex.chars[nxt["holder"]]
            home = ex.dynasties.get(ex.crowns[crown]["home_dynasty"]) if crown in ex.crowns else None
            if home is not None and home["kind"] == "minor" and not any(eligible(d) for d in line_of(ex, late["id"], set())):
                # "If the monarch dies without issue, then a randomly rolled monarch 5 years younger
                # than the previous one takes the throne"
                born = min(late["birth_year"] + 5, year)
                if holder["origin"] != "relative" or holder["birth_year"] != born or holder["father"] is not None:
                    out.append(violation("BL-minor-no-issue", row, f"a monarch rolled, born {born}", ex.name(holder["id"])))
                continue
            heir = heir_without(cut | union_children | spurned)
            if spurned and heir != holder["id"] and heir_without(cut | union_children) == holder["id"]:
                out.append(
                    violation("BL-spurned-heir", row, f"{ex.name(heir)} (none born into a spurned line)", ex.name(holder["id"]))
                )
                continue
            if union_children and heir != holder["id"] and heir_without(cut | spurned) == holder["id"]:
                out.append(
                    violation("BL-union-children", row, f"{ex.name(heir)} (none of the union's children)", ex.name(holder["id"]))
                )
                continue
            if heir is None:
                if holder["origin"] not in ("relative", "setup", "created"):
                    out.append(violation("BL-succession", row, "a new dynasty (Dynastic Crisis)", ex.name(holder["id"])))
            elif heir != holder["id"]:
                victims_alive[0] = False
                if heir_without(cut | union_children | spurned) == holder["id"]:
                    continue  # the crowns pass one after the other: the Sultan's came first and put this heir to death
                # "a Turkish princess cannot reign but her husband inherits her rights": read here as
                # the first princess in line with a living husband; that husband reigns.
                rule = "BL-turkish-succession" if turkish else "BL-succession"
                out.append(violation(rule, row, ex.name(heir), ex.name(holder["id"])))
    return out
