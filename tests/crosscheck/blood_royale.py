"""Blood Royale cross-check: every roll, birth, survival, succession and wedding payment of an
export re-derived from the rulebook (../shared/seeds/blood-royale-rules.txt) and the tables the
export carries. Rule ids (the first word of each violation):

- BR-dice: every roll's faces fit its dice.
- BR-birth-roll: "If the result is 7 or more, a child has been born" (target 7, outcome).
- BR-birth-attempts: "up to two more additional die rolls for each married couple" (attempts 1..3,
  in order), only for a wedded couple "so long as the female partner is 50 years old or younger".
- BR-birth-year: "the second child ... one year later than the current turn ... a third child's Year
  of Birth should be two years later"; the child's parents are the couple.
- BR-sex: "On a result of 1-3, the new character is male, and on a 4-6 result, the character is female".
- BR-characteristics: "roll three dice three times" on the characteristic table (the export's
  ``characteristic_bands``); a born child's characteristics are its three rolls.
- BR-dynastic-name: a child carries the father's dynastic name, a reigning Queen's children hers.
- BR-survival-roll: 2d6 + Constitution (less 1 per additional birth roll this turn) against the
  survival number of the character's age (the export's ``survival`` table; the rulebook's own
  points: "A mother aged 30 needs 4"); a failure, and only a failure, is a death that year.
- BR-survival-who: every character of 15 or more in play rolls each turn (retired characters,
  the first-turn King and Queen under ``no_first_turn_royal_survival`` and the King before 1310
  under ``beginner_king_survival`` excepted).
- BR-wedding-money: "a bride with a +1 score confers a 30 Crown benefit on the player of the male
  character ... 60 Crowns for a -2 Charisma bride".
- BR-monarch-match: "If a bride marries a King or a Prince who later becomes a King, the player
  from whose Dynasty she came receives 100 Crowns ... The same applies to a male child who marries
  a Queen".
- BR-succession: "When a King dies, the next-in-line comes to the Throne" in the order of (9)
  Succession; passed-over heirs (and their lines) are skipped - a prisoner alone, as he is passed
  over for his captivity, which his free children do not share (issue 16: "a prisoner passed over
  leaves his free children in" the line; docs/rulings.md A7); "Monarchs may not abdicate nor be
  deposed" (a reign ends with its holder's death, or when the player holding a second country gives
  it back: "allow a new Monarch to be established by the 'landless' player"); with nobody of the
  blood, a created relative.
- BR-passed-over: the basic rules let pass only a prisoner or a woman controlled by another player
  through marriage; optional rule C, any heir.
- BR-regency: a monarch under 15 has an adult Regent until the first turn he is 15; an adult none.
- BR-regent-baron: "If none are available, a baron or cousin of the late King is created. He is 5
  years younger than the late King (or 30 years old, whichever is older)": the late King is the
  crown's monarch before the minor, also when the baron replaces a regent who died.
- BR-pretender-claim: "A Pretender character or any of his or her heirs may inherit the throne ...
  The player who has been controlling the disputed country up to that point may pass over the
  Pretender's claim": an heir passed over as a Pretender's line is, or descends from, a Pretender who
  left the house of that very crown.
- BR-pass-over-charisma: "if the passed-over character is one who could not have been passed over
  according to the basic rules of Succession, the new monarch also has a penalty to his or her
  Charisma score" (rule C), as for "a rightful male heir who is being held prisoner by another
  player": one Charisma roll for the new monarch then, none otherwise ("This additional penalty is
  only taken if the character is not one who could have been passed over according to the normal
  rules").
- BR-pretender-house: "Cards 18-22 allow for characters to leave the Dynasty of their birth ... the
  Pretender's original Dynasty may 'buy back' the character": the house a Pretender leaves is the
  one he was born to.
- BR-monarch-match-once: those 100 Crowns are paid "either at the time of the marriage or when
  the male character succeeds to the throne": once per match, not again for a second throne.
- BR-monarch-retired: "the widow of a King, who is retired" (RULES.md A5) is a Queen mother; a
  Queen regnant who is widowed still reigns and is not retired.
- BR-union: "If the new Queen is married to a King, or a character who becomes King, a Dynastic
  Union takes place, and the player of the male character takes control of both countries" (a
  chronicle line for her crown, naming his house, the year both reign while married).
- BR-king-control: a reigning King is controlled by the player of his crown (the player who
  controls a country plays its King; a Dynastic Union's King controls both crowns).
- BR-queen-control: "A female character who becomes Queen is always controlled by that country's
  player" (the crown's controller, a Dynastic Union's King's player included).
- BR-event-victims: a battle, a storm and a plague strike only the royals on the map: "All characters
  in a Dynasty other than those represented on the map by King/Prince pieces are assumed to be in the
  capital at all times" and "Characters in their capital are never affected by Plague"; a Queen "may
  not be moved from the capital, or lead armies"; a Prince's piece comes at 20 ("royal males aged 20
  or more"), the King's when he rules (15: no regent). So each victim of a battle or plague roll, and
  each death "lost at sea in a storm", is a man of 20, or a reigning King of 15 or more; except, under
  optional rule G, a plague in a governed province: "the Governor, his or her wife or husband, and any
  children aged 15 or younger, must make Survival Rolls" (a title holder that year, the spouse, their
  children of 15 or less, those born this turn included: "the second child ... one year later than
  the current turn").
- BR-armies: "13 Maintaining and Raising": maintenance is paid for armies on the map, and armies
  come on the map only by being raised; in the first turn "only Taxation, Placing Resources and
  Raising" apply. So a house maintains in an Interphase at most the armies it kept and raised in its
  previous one (the ledger's lines, read from their reasons: "Maintenance of 2 armies", "Raising 1
  army"), none in its first.
"""

from __future__ import annotations

import re
from collections import defaultdict
from itertools import pairwise
from typing import Any

from .common import STEPS, Export, Row, ancestors, check_faces, heir_of, total, turn_of, violation
from .options import check_options
from .provinces import check_provinces

CHARACTERISTICS = {"M": ("strength", "constitution", "charisma"), "F": ("guile", "constitution", "charisma")}


def band(ex: Export, score: int) -> int | None:
    for row in ex.campaign["tables"]["characteristic_bands"]:
        if row["low"] <= score <= row["high"]:
            return int(row["value"])
    return None


def survival_need(ex: Export, age: int) -> int | None:
    rows = sorted(ex.campaign["tables"]["survival"], key=lambda r: r["age"])
    need = None
    for row in rows:
        if row["age"] <= age:
            need = int(row["need"])
    return need


def check_blood_royale(export: dict[str, Any]) -> list[str]:
    ex = Export.of(export)
    out: list[str] = []
    out += _rolls(ex)
    out += _births(ex)
    out += _survival(ex)
    out += _money(ex)
    out += _armies(ex)
    out += _succession(ex)
    out += _pretenders(ex)
    out += _barons(ex)
    out += _event_victims(ex)
    out += check_options(ex)  # optional rules D, E and H (tests/crosscheck/options.py)
    out += check_provinces(ex)  # the province register's Interphase (issue 33: tests/crosscheck/provinces.py)
    return out


def _rolls(ex: Export) -> list[str]:
    out: list[str] = []
    for r in ex.doc["rolls"]:
        out += check_faces(r, "BR-dice")
        row = f"roll {r['id']} ({r['year']} {r['purpose']})"
        if r["purpose"] == "birth":
            child = total(r) >= 7
            if r["target"] != 7 or r["outcome"] != ("child" if child else "no child"):
                out.append(
                    violation(
                        "BR-birth-roll",
                        row,
                        f"target 7, {'child' if child else 'no child'}",
                        f"target {r['target']}, {r['outcome']}",
                    )
                )
        elif r["purpose"] == "sex":
            want = "boy" if r["faces"][0] <= 3 else "girl"
            if r["outcome"] != want:
                out.append(violation("BR-sex", row, want, r["outcome"]))
            for cid in r["characters"]:
                sex = "M" if want == "boy" else "F"
                if ex.chars[cid]["sex"] != sex:
                    out.append(violation("BR-sex", f"{row}, {ex.name(cid)}", sex, ex.chars[cid]["sex"]))
        elif r["purpose"] == "characteristic":
            value = band(ex, total(r))
            want = f"{r['detail']} {value:+d}" if value is not None else "a value of the table"
            found = r["outcome"]
            if value is None or found.split()[-1].lstrip("+") != str(value).lstrip("+") or not found.startswith(r["detail"]):
                out.append(violation("BR-characteristics", row, want, found))
    # A born or rolled character's characteristics are its last roll of each.
    rolled: dict[int, dict[str, int]] = defaultdict(dict)
    for r in ex.doc["rolls"]:
        if r["purpose"] == "characteristic":
            for cid in r["characters"]:
                value = band(ex, total(r))
                if value is not None:
                    rolled[cid][r["detail"]] = value
    # a usurper's Charisma loss, a Governor's +1, a lost capital's -1 and foreign aid's -1 change them
    changed = ("charisma_loss", "governor", "capital_lost", "foreign_intervention")
    touched = {m["character"] for m in ex.doc.get("modifiers", []) if m["kind"] in changed}
    for cid, values in rolled.items():
        c = ex.chars[cid]
        if cid in touched:
            continue
        names = CHARACTERISTICS[c["sex"]]
        if set(values) != set(names):
            out.append(violation("BR-characteristics", ex.name(cid), f"rolls for {sorted(names)}", sorted(values)))
            continue
        found = {k: c["characteristics"].get(k) for k in names}
        if found != values:
            out.append(violation("BR-characteristics", ex.name(cid), values, found))
    for c in ex.doc["characters"]:
        if c["origin"] == "born" and c["id"] not in rolled:
            out.append(violation("BR-characteristics", ex.name(c["id"]), "three characteristic rolls", "none"))
    return out


def _queen_regnant(ex: Export, cid: int, year: int) -> bool:
    """Reigning at the Births of ``year`` (a succession of that turn comes later, at Survival)."""
    return any(r["start_year"] < year and (r["end_year"] is None or r["end_year"] >= year) for r in ex.reigns_of.get(cid, []))


def _births(ex: Export) -> list[str]:
    out: list[str] = []
    by_couple: dict[tuple[int, int], list[Row]] = defaultdict(list)
    for a in ex.doc["birth_attempts"]:
        by_couple[(a["marriage"], a["year"])].append(a)
    aristocratic = {d["id"] for d in ex.doc["dynasties"] if d["kind"] == "aristocratic"}
    for (mid, year), attempts in sorted(by_couple.items()):
        m = ex.marriages[mid]
        row = f"marriage {mid} in {year}"
        husband, wife = ex.chars[m["husband"]], ex.chars[m["wife"]]
        numbers = [a["attempt"] for a in attempts]
        if numbers != list(range(1, len(numbers) + 1)) or len(numbers) > 3:
            out.append(violation("BR-birth-attempts", row, "attempts 1, 2, 3 at most, in order", numbers))
        if m["wedding_year"] is None or m["wedding_year"] > year:
            out.append(violation("BR-birth-attempts", row, "a wedded couple", f"wedding {m['wedding_year']}"))
        noble_parents = wife["controlled_by"] in aristocratic and husband["controlled_by"] in aristocratic
        if year - wife["birth_year"] > 50 and not noble_parents:
            out.append(violation("BR-birth-attempts", row, "a wife of 50 or younger", f"aged {year - wife['birth_year']}"))
        born = 0
        previous: tuple[int, int] | None = None
        for a in sorted(attempts, key=lambda a: a["attempt"]):
            roll = ex.rolls.get(a["roll"]) if a["roll"] is not None else None
            if roll is None:
                out.append(violation("BR-birth-roll", f"{row} attempt {a['attempt']}", "its roll", "none"))
                continue
            if roll["characters"] != [m["husband"], m["wife"]] or roll["year"] != year:
                out.append(
                    violation(
                        "BR-birth-roll",
                        f"{row} attempt {a['attempt']}",
                        "the couple's roll of the year",
                        f"roll {roll['id']} of {roll['characters']} in {roll['year']}",
                    )
                )
            success = total(roll) >= 7
            if a["success"] != success:
                out.append(violation("BR-birth-roll", f"{row} attempt {a['attempt']}", success, a["success"]))
            if not a["success"]:
                continue
            born += 1
            want_year = year + born - 1
            child = ex.chars.get(a["child"]) if a["child"] is not None else None
            if child is None:
                out.append(violation("BR-birth-year", f"{row} attempt {a['attempt']}", "a child", "none"))
                continue
            # A parent who dies in this turn's Survival: the child is not dated after that death
            # (the ruling on children born after a parent's death dates it so).
            capped = max(year, min([want_year, *death_caps(husband, wife)]))
            if a["child_birth_year"] != child["birth_year"] or child["birth_year"] not in (want_year, capped):
                out.append(
                    violation(
                        "BR-birth-year",
                        f"{row} attempt {a['attempt']}, {ex.name(child['id'])}",
                        want_year if capped == want_year else f"{want_year} (or {capped}, a parent's death)",
                        f"{a['child_birth_year']} / {child['birth_year']}",
                    )
                )
            order = (child["birth_year"], child["birth_order"])
            if previous is not None and order <= previous:
                out.append(
                    violation(
                        "BR-birth-year",
                        f"{row} attempt {a['attempt']}, {ex.name(child['id'])}",
                        f"born after the couple's previous child {previous}",
                        order,
                    )
                )
            previous = order
            if (child["father"], child["mother"]) != (m["husband"], m["wife"]):
                out.append(
                    violation(
                        "BR-birth-year",
                        ex.name(child["id"]),
                        f"parents {m['husband']}, {m['wife']}",
                        f"{child['father']}, {child['mother']}",
                    )
                )
            if not ex.rolls_of.get(("sex", child["id"])):
                out.append(violation("BR-sex", ex.name(child["id"]), "a sex roll", "none"))
            name = wife["dynastic_name"] if _queen_regnant(ex, wife["id"], year) else husband["dynastic_name"]
            if child["dynastic_name"] != name:
                out.append(violation("BR-dynastic-name", ex.name(child["id"]), name, child["dynastic_name"]))
    return out


def death_caps(father: Row, mother: Row) -> list[int]:
    """The latest years a child can be born: not after the mother's death, nor more than a year
    after the father's."""
    caps = []
    if mother["death_year"] is not None:
        caps.append(mother["death_year"])
    if father["death_year"] is not None:
        caps.append(father["death_year"] + 1)
    return caps


def _extra_attempts(ex: Export) -> dict[tuple[int, int], int]:
    extra: dict[tuple[int, int], int] = defaultdict(int)
    for a in ex.doc["birth_attempts"]:
        if a["attempt"] > 1:
            extra[(ex.marriages[a["marriage"]]["wife"], a["year"])] += 1
    return extra


def _survival(ex: Export) -> list[str]:
    out: list[str] = []
    extra = _extra_attempts(ex)
    rolled: dict[int, set[int]] = defaultdict(set)
    for r in ex.doc["rolls"]:
        if r["purpose"] != "survival" or r["step"] != "survival":
            continue
        [cid] = r["characters"]
        c = ex.chars[cid]
        year = r["year"]
        rolled[year].add(cid)
        row = f"roll {r['id']} ({year}, {ex.name(cid)})"
        age = year - c["birth_year"]
        need = survival_need(ex, age)
        if r["target"] != need or r["detail"] != f"age {age}":
            out.append(violation("BR-survival-roll", row, f"age {age} needs {need}", f"{r['detail']} needs {r['target']}"))
        modifier = c["characteristics"].get("constitution", 0) - extra.get((cid, year), 0)
        if r["modifier"] != modifier:
            out.append(
                violation("BR-survival-roll", row, f"modifier {modifier} (Constitution less extra birth rolls)", r["modifier"])
            )
        survives = total(r) >= r["target"]
        if r["outcome"] != ("survived" if survives else "died"):
            out.append(violation("BR-survival-roll", row, "survived" if survives else "died", r["outcome"]))
        dies_now = c["death_year"] == year and c["death_cause"] == "failed survival roll"
        if dies_now == survives:
            out.append(
                violation(
                    "BR-survival-roll",
                    row,
                    "a death that year" if not survives else "no death",
                    f"death {c['death_year']} ({c['death_cause'] or 'alive'})",
                )
            )
    for c in ex.doc["characters"]:
        if c["death_cause"] == "failed survival roll" and c["id"] not in rolled.get(c["death_year"], set()):
            out.append(violation("BR-survival-roll", ex.name(c["id"]), f"a failed roll in {c['death_year']}", "none"))
    # Who rolls.
    aristocratic = {d["id"] for d in ex.doc["dynasties"] if d["kind"] == "aristocratic"}
    start = ex.campaign["start_year"]
    done = [y for y in ex.turn_years() if y < ex.campaign["current_year"] or ex.campaign["step"] not in ("births", "survival")]
    for year in done:
        kings = {
            r["holder"] for r in ex.doc["reigns"] if r["start_year"] <= year and (r["end_year"] is None or r["end_year"] >= year)
        }
        for c in ex.doc["characters"]:
            cid = c["id"]
            if year - c["birth_year"] < 15 or not ex.alive_in(cid, year) or not _in_play_at_survival(ex, c, year):
                continue
            retired = c.get("retired_year")
            # Retired before this turn, or in it (a widow at the Announcements, after her roll; a
            # regent baron when his King comes of age, which may be before Survival).
            if retired is not None and (retired < year or (retired == year and cid not in rolled.get(year, set()))):
                continue
            if c["origin"] == "setup" and year == start and ex.option("no_first_turn_royal_survival") and c["father"] is None:
                continue
            if ex.option("beginner_king_survival") and year < 1310 and cid in kings and c["sex"] == "M":
                continue
            if c["origin"] == "setup" and c["controlled_by"] in aristocratic and c["father"] is None:
                continue
            if c["death_year"] == year and c["death_cause"] != "failed survival roll":
                continue
            if cid not in rolled.get(year, set()):
                out.append(violation("BR-survival-who", f"{year}, {ex.name(cid)}", "a survival roll", "none"))
    return out


def _in_play_at_survival(ex: Export, c: Row, year: int) -> bool:
    """Born by this turn's Survival, or (set up, created) first met before it: in a roll of an
    earlier turn or of this turn's set-up or Births, or in a chronicle line before this Survival."""
    if c["origin"] == "born":
        return turn_of(ex, c["birth_year"]) <= year
    first = min(ex.mentions.get(c["id"], [(ex.campaign["start_year"], STEPS["setup"])]))
    return first[0] < year or (first[0] == year and first[1] <= STEPS["births"])


def _reigning(ex: Export, cid: int, year: int) -> int | None:
    """The year ``cid`` first reigns at or after ``year`` while still reigning, else None."""
    starts = [r["start_year"] for r in ex.reigns_of.get(cid, []) if r["end_year"] is None or r["end_year"] >= year]
    return min(starts) if starts else None


def _money(ex: Export) -> list[str]:
    out: list[str] = []
    start = ex.campaign["start_year"]
    wedding: dict[int, list[Row]] = defaultdict(list)
    match: dict[int, list[Row]] = defaultdict(list)
    late_match: dict[int, list[Row]] = defaultdict(list)
    for p in ex.doc.get("postings", []):
        if p["kind"] == "wedding":
            wedding[p["marriage"]].append(p)
        elif p["kind"] == "monarch_match" and p["marriage"] is not None:
            match[p["marriage"]].append(p)
        elif p["kind"] == "monarch_match":
            late_match[p["character"]].append(p)
    for m in ex.doc["marriages"]:
        mid = m["id"]
        created = all(
            ex.chars[m[k]]["origin"] in ("setup", "relative") and ex.chars[m[k]]["father"] is None for k in ("husband", "wife")
        )
        if m["wedding_year"] is None or m["wedding_year"] < start or created:
            # A set-up (or re-founded, or created) couple was wed before play: its year is its first child's.
            for p in wedding.get(mid, []) + match.get(mid, []):
                out.append(violation("BR-wedding-money", f"posting {p['id']}", "no money before the wedding", p["reason"]))
            continue
        husband, wife = ex.chars[m["husband"]], ex.chars[m["wife"]]
        # Her Charisma at the wedding: a later loss (a usurper's 1d6 Charisma, a modifier) undone; one of
        # the wedding's year came before it (a succession's, at Survival; weddings at Marriages).
        charisma = wife["characteristics"].get("charisma", 0) + sum(
            abs(mod["value"])
            for mod in ex.doc.get("modifiers", [])
            if mod["kind"] == "charisma_loss" and mod["character"] == wife["id"] and mod["start_year"] > m["wedding_year"]
        )
        # What the board did to a ruling bride's Charisma (a lost capital's -1 until it is retaken, foreign
        # aid's -1 for life): as it stood at the wedding. The same year, the export does not say which came first.
        board = [
            mod
            for mod in ex.doc.get("modifiers", [])
            if mod["kind"] in ("capital_lost", "foreign_intervention") and mod["character"] == wife["id"]
        ]
        if any(m["wedding_year"] in (mod["start_year"], mod["end_year"]) for mod in board):
            continue
        if any(mod["kind"] == "capital_lost" and mod["end_year"] == wife["death_year"] for mod in board):
            continue  # given back at her fall and dead the same turn: the export does not say which came first
        for mod in board:
            # A lost capital's -1 comes back to a ruler who lives on when it ends (retaken, or passed to the
            # next ruler); one who died ruling keeps it (the penalty ends with her death, nothing to give back).
            restored = (
                mod["kind"] == "capital_lost"
                and mod["end_year"] is not None
                and (wife["death_year"] is None or wife["death_year"] > mod["end_year"])
            )
            now = 0 if restored else mod["value"]
            ended = mod["end_year"] is not None and mod["end_year"] <= m["wedding_year"]
            then = mod["value"] if mod["start_year"] < m["wedding_year"] and not ended else 0
            charisma += then - now
        got = [(p["payer"], p["payee"], p["amount"], p["year"]) for p in wedding.get(mid, [])]
        row = f"marriage {mid} ({m['wedding_year']}, bride {ex.name(wife['id'])})"
        if charisma == 0:
            if got:
                out.append(violation("BR-wedding-money", row, "no posting (Charisma 0)", got))
        elif len(got) != 1:
            out.append(violation("BR-wedding-money", row, f"one posting of {30 * abs(charisma)}", got))
        else:
            payer, payee, amount, year = got[0]
            house = payee if charisma > 0 else payer
            other = payer if charisma > 0 else payee
            grooms = ex.controllers(husband["id"], m["wedding_year"])  # his player's house at the wedding
            if amount != 30 * abs(charisma) or other is not None or house not in grooms or year != m["wedding_year"]:
                way = "from" if charisma > 0 else "to"
                want = f"{30 * abs(charisma)} {way} the Treasury, the groom's house, {m['wedding_year']}"
                out.append(violation("BR-wedding-money", row, want, got[0]))
        # 100 Crowns to the house of a monarch's spouse.
        want_match: list[tuple[int, int]] = []
        for spouse, monarch in ((wife, husband), (husband, wife)):
            since = _reigning(ex, monarch["id"], m["wedding_year"])
            if since is None or spouse["birth_dynasty"] is None:
                continue
            if ex.dynasties[spouse["birth_dynasty"]]["kind"] != "player":
                continue
            year = max(since, m["wedding_year"])
            if m["ended_year"] is not None and year > m["ended_year"]:
                continue
            if m["ended_year"] is not None and year == m["ended_year"] and year != m["wedding_year"]:
                continue  # succeeded in the turn the marriage ended: either reading stands
            want_match.append((spouse["birth_dynasty"], year))
        # Owed at the wedding the posting names the marriage; owed at a later succession, the spouse.
        paid = match.get(mid, []) + [
            p
            for p in late_match.get(wife["id"], []) + late_match.get(husband["id"], [])
            if p["year"] >= m["wedding_year"] and (m["ended_year"] is None or p["year"] <= m["ended_year"])
        ]
        # once per match and per spouse: a King and a Queen regnant who wed both bring their houses 100
        found = sorted((p["payee"], p["year"]) for p in paid if p["payer"] is None and p["amount"] == 100)
        bad = [p for p in paid if p["payer"] is not None or p["amount"] != 100]
        optional = sorted(
            (p["payee"], p["year"])
            for p in paid
            if p["payer"] is None
            and p["amount"] == 100
            and (p["payee"], p["year"]) not in want_match
            and m["ended_year"] == p["year"]
        )
        counted = [f for f in found if f not in optional]
        # "either at the time of the marriage or when the male character succeeds to the throne":
        # once per match; a spouse who comes to a second throne later is paid again (reported apart).
        firsts = sorted({min(y for h, y in counted if h == house) for house, _ in counted})
        if (
            sorted(want_match) != [(h, y) for h, y in counted if (h, y) in want_match]
            or bad
            or {h for h, _ in counted} != {h for h, _ in want_match}
        ):
            out.append(violation("BR-monarch-match", row, f"100 Crowns to (house, year) {sorted(want_match)}", found))
        elif len(counted) > len(want_match):
            out.append(
                violation(
                    "BR-monarch-match-once",
                    row,
                    f"100 Crowns once per match {sorted(want_match)}",
                    f"{found} (first in {firsts})",
                )
            )
    return out


_ARMY_LINE = re.compile(r"^(Maintenance of|Raising) (\d+) arm(?:y|ies)\b")


def _armies(ex: Export) -> list[str]:
    out: list[str] = []
    postings = ex.doc.get("postings", [])
    undone = {p["reverses"] for p in postings if p.get("reverses")}
    runs: dict[int, dict[int, list[int]]] = defaultdict(dict)  # house -> year -> [kept, raised]
    for p in postings:
        if p["id"] in undone or p.get("reverses"):
            continue
        # a house's own Interphase: its taxation, or a cost it pays (another's governor's lines are not its run)
        if p["kind"] == "tax" and p["payer"] is None and p["reason"].startswith("Taxation"):
            house = p["payee"]
        elif p["kind"] in ("maintenance", "raising", "rebellion") and p["payer"] is not None:
            house = p["payer"]
        else:
            continue
        year = runs[house].setdefault(p["year"], [0, 0])
        found = _ARMY_LINE.match(p["reason"]) if p["payer"] is not None else None
        if found:
            year[0 if found.group(1) == "Maintenance of" else 1] += int(found.group(2))
    for house, years in runs.items():
        had = 0  # on the map after the house's previous Interphase (none before its first)
        for year in sorted(years):
            kept, raised = years[year]
            if kept > had:
                out.append(
                    violation(
                        "BR-armies",
                        f"house {house} {year}",
                        f"at most {had} armies maintained (kept and raised in its previous Interphase)",
                        f"{kept} maintained",
                    )
                )
            had = kept + raised
    return out


def _succession(ex: Export) -> list[str]:
    out: list[str] = []
    by_crown: dict[str, list[Row]] = defaultdict(list)
    for r in ex.doc["reigns"]:
        by_crown[r["crown"]].append(r)
    rule_c = ex.option("disputed_succession")
    out += _unions(ex)
    given_back = {  # "a player in this position might prefer to abandon any rights to it" (Controlling Two Countries)
        (str(e["data"].get("crown")), int(year["year"]))
        for year in ex.doc["chronicle"]
        for e in year["entries"]
        if e["kind"] == "union_ends" and isinstance(e["data"], dict) and "given back" in e["text"]
    }
    for crown, reigns in by_crown.items():
        reigns.sort(key=lambda r: (r["start_year"], r["end_year"] is None, r["end_year"] or 0))
        for prev, nxt in pairwise(reigns):
            year = prev["end_year"]
            late = ex.chars[prev["holder"]]
            row = f"{crown} {year}, after {ex.name(late['id'])}"
            if year is not None and late["death_year"] != year and (crown, year) in given_back:
                if nxt["start_year"] != year:
                    out.append(violation("BR-succession", row, f"the landless house's monarch from {year}", nxt["start_year"]))
                continue  # given back: "allow a new Monarch to be established by the 'landless' player"
            if year is None or late["death_year"] != year:
                out.append(
                    violation(
                        "BR-succession",
                        row,
                        "a reign ends with its holder's death",
                        f"ended {year}, holder died {late['death_year']}",
                    )
                )
                continue
            if nxt["start_year"] != year:
                out.append(violation("BR-succession", row, f"the next reign from {year}", nxt["start_year"]))
            captives = {p["character"] for p in nxt["passed_over"] if p["reason"].startswith("a prisoner")}
            cut = {p["character"] for p in nxt["passed_over"]} - captives
            cut |= ex.renounced_before(crown, year)
            for p in nxt["passed_over"]:
                heir = ex.chars[p["character"]]
                if not rule_c and not (heir["prisoner_of"] is not None or (heir["sex"] == "F" and "marri" in p["reason"])):
                    out.append(
                        violation(
                            "BR-passed-over",
                            f"{row}, {ex.name(heir['id'])}",
                            "a prisoner or a woman married away (rule C off)",
                            p["reason"],
                        )
                    )

            def eligible(cid: int, year: int = year, late: int = late["id"], captives: set[int] = captives) -> bool:
                if cid in captives:
                    return False
                c = ex.chars[cid]
                dead = c["death_year"] is not None and c["death_year"] <= year
                if dead and not (c["death_year"] == year and ex.died_after(cid, late)):
                    return False
                if c.get("retired_year") is not None and c["retired_year"] < year:
                    return False
                return turn_of(ex, c["birth_year"]) <= year

            expected = heir_of(ex, late["id"], crown, year, cut, eligible)
            holder = ex.chars[nxt["holder"]]
            if expected is None:
                if holder["origin"] not in ("relative", "setup"):
                    out.append(violation("BR-succession", row, "a created relative (nobody of the blood)", ex.name(holder["id"])))
            elif expected != holder["id"]:
                out.append(violation("BR-succession", row, ex.name(expected), ex.name(holder["id"])))
        for reign in reigns:
            out += _regency(ex, reign)
        last = reigns[-1]
        if last["end_year"] is None:
            holder = ex.chars[last["holder"]]
            if holder["status"] == "retired":
                out.append(
                    violation(
                        "BR-monarch-retired",
                        f"{crown} now, {ex.name(holder['id'])}",
                        "a reigning monarch in play (only a King's widow retires)",
                        f"retired in {holder['retired_year']}",
                    )
                )
            elif holder["status"] != "alive":
                out.append(violation("BR-succession", f"{crown} now", "a living monarch", ex.name(holder["id"])))
            controller = ex.crowns[crown]["controlled_by"]
            if holder["sex"] == "F" and holder["controlled_by"] != controller and holder["status"] == "alive":
                out.append(
                    violation(
                        "BR-queen-control",
                        f"{crown} now, {ex.name(holder['id'])}",
                        f"controlled by the crown's player {controller}",
                        holder["controlled_by"],
                    )
                )
            if holder["sex"] == "M" and holder["controlled_by"] != controller and holder["status"] == "alive":
                out.append(
                    violation(
                        "BR-king-control",
                        f"{crown} now, {ex.name(holder['id'])}",
                        f"controlled by the crown's player {controller}",
                        holder["controlled_by"],
                    )
                )
    return out


def _unions(ex: Export) -> list[str]:
    """ "If the new Queen is married to a King, or a character who becomes King, a Dynastic Union
    takes place, and the player of the male character takes control of both countries": a union
    line in the chronicle for her crown the year both reign while married, naming his house - also
    when one of them dies later that turn, after the Succession (in a Movement phase's battle or
    plague): the union took place, and ended."""
    out: list[str] = []
    found: dict[tuple[int, str], Any] = {}
    death_step: dict[int, int] = {}
    for year in ex.doc["chronicle"]:
        for e in year["entries"]:
            if e["kind"] == "union" and isinstance(e["data"], dict):
                found[(int(year["year"]), str(e["data"].get("crown")))] = e["data"].get("dynasty")
            if e["kind"] == "death" and isinstance(e["data"], dict) and isinstance(e["data"].get("character"), int):
                death_step[e["data"]["character"]] = STEPS.get(e["step"], 9)

    def after_the_succession(year: int, *people: int) -> bool:
        """Whoever of them died in ``year`` died after its Succession (Survival's step)."""
        dying = [c for c in people if ex.chars[c]["death_year"] == year]
        return bool(dying) and all(death_step.get(c, 0) > STEPS["survival"] for c in dying)

    want: dict[tuple[int, str], set[int]] = {}
    for reign in ex.doc["reigns"]:
        queen = ex.chars[reign["holder"]]
        if queen["sex"] != "F":
            continue
        for m in ex.doc["marriages"]:
            if m["wife"] != queen["id"] or m["wedding_year"] is None:
                continue
            husband = ex.chars[m["husband"]]
            for his in ex.reigns_of.get(husband["id"], []):
                start = max(reign["start_year"], his["start_year"], m["wedding_year"])
                ends = [y for y in (reign["end_year"], his["end_year"], m["ended_year"]) if y is not None]
                ended_later = bool(ends) and start == min(ends) and after_the_succession(start, queen["id"], husband["id"])
                if not ends or start < min(ends) or ended_later:
                    houses = {ex.crowns[his["crown"]]["home_dynasty"], husband["controlled_by"]}
                    want.setdefault((start, reign["crown"]), set()).update(houses)
    for key, houses in sorted(want.items()):
        if key not in found or found[key] not in houses:
            out.append(
                violation(
                    "BR-union", f"{key[1]} {key[0]}", f"a Dynastic Union under house {sorted(houses)}", found.get(key, "none")
                )
            )
    for key in sorted(set(found) - set(want), key=str):
        out.append(violation("BR-union", f"{key[1]} {key[0]}", "no Dynastic Union (no reigning couple)", found[key]))
    return out


def _regency(ex: Export, reign: Row) -> list[str]:
    holder = ex.chars[reign["holder"]]
    start = reign["start_year"]
    row = f"{reign['crown']} {start}, {ex.name(holder['id'])}"
    age = start - holder["birth_year"]
    if age >= 15:
        if reign["regent"] is not None:
            return [violation("BR-regency", row, "no regent for an adult", ex.name(reign["regent"]))]
        return []
    if reign["regent"] is None:
        return [violation("BR-regency", row, f"a regent (aged {age})", "none")]
    regent = ex.chars[reign["regent"]]
    out = []
    # The regent may have been named later (his predecessor died): he must be of age when named.
    named = [y for y in ex.mentions.get(regent["id"], []) if y[0] >= start]
    when = min([y for y, _ in named if y - regent["birth_year"] >= 15], default=start)
    if when - regent["birth_year"] < 15:
        out.append(violation("BR-regency", row, "a regent of age when named", ex.name(regent["id"])))
    first = min(
        (
            t
            for t in range(start, holder["birth_year"] + 15 + ex.campaign["turn_length"], ex.campaign["turn_length"])
            if t - holder["birth_year"] >= 15
        ),
        default=None,
    )
    end = reign["regency_end_year"]
    if reign["end_year"] is not None and first is not None and reign["end_year"] < first:
        first = None if end is None else end
    if end is not None and end != first:
        out.append(violation("BR-regency", row, f"regency to {first}, the first turn he is 15", end))
    return out


# The reasons the basic rules give for passing an heir over (Succession (9); Pretenders and Bastards);
# any other is optional rule C's.
BASIC_PASS_OVER = (
    "a prisoner of another player",
    "a prisoner of the neutrals, in another country",
    "a woman controlled by another player through marriage",
    "a Pretender controlled by another player",
)


def _declared(ex: Export) -> list[tuple[int, int, int | None]]:
    """Every Pretender declared (a ``pretender`` chronicle line): (year, character, the house he left:
    his controller before the card, from the history of control)."""
    out: list[tuple[int, int, int | None]] = []
    for year in ex.doc["chronicle"]:
        for e in year["entries"]:
            if e["kind"] != "pretender" or not isinstance(e["data"], dict):
                continue
            cid = e["data"].get("character")
            if not isinstance(cid, int):
                continue
            moves = [
                c
                for c in ex.doc.get("control_changes", [])
                if c["character"] == cid and c["year"] == year["year"] and c["cause"] == "pretender"
            ]
            out.append((int(year["year"]), cid, moves[0]["from_dynasty"] if moves else None))
    return out


def _pretenders(ex: Export) -> list[str]:
    out: list[str] = []
    declared = _declared(ex)
    for year, cid, left in declared:
        born = ex.chars[cid]["birth_dynasty"]
        if left != born:
            out.append(
                violation(
                    "BR-pretender-house",
                    f"{year}, {ex.name(cid)}",
                    f"a Pretender leaving the house of his birth ({born})",
                    f"taken from house {left}",
                )
            )
    for reign in ex.doc["reigns"]:
        crown, year = reign["crown"], reign["start_year"]
        if not reign["passed_over"]:
            continue
        row = f"{crown} {year}, {ex.name(reign['holder'])}"
        for p in reign["passed_over"]:
            if "Pretender" not in p["reason"]:
                continue
            line = {p["character"]} | ancestors(ex, p["character"])
            claims = {
                ex.dynasties[left]["crown"] for y, cid, left in declared if cid in line and y <= year and left in ex.dynasties
            }
            if crown not in claims:
                out.append(
                    violation(
                        "BR-pretender-claim",
                        f"{row}, {ex.name(p['character'])}",
                        f"a Pretender to {crown} or his heir",
                        f"the line of Pretenders to {sorted(claims) or 'no crown'}",
                    )
                )
        due = any(
            p["reason"] not in BASIC_PASS_OVER
            or (p["reason"] == "a prisoner of another player" and ex.chars[p["character"]]["sex"] == "M")
            for p in reign["passed_over"]
        )
        rolls = [
            r
            for r in ex.rolls_of.get(("charisma_loss", reign["holder"]), [])
            if r["year"] == year and r["detail"] in (crown, "", None)
        ]
        if len(rolls) != int(due):
            out.append(
                violation(
                    "BR-pass-over-charisma",
                    row,
                    f"{int(due)} Charisma roll(s) for the new monarch (passed over: "
                    + "; ".join(p["reason"] for p in reign["passed_over"])
                    + ")",
                    len(rolls),
                )
            )
    return out


def _barons(ex: Export) -> list[str]:
    """Each created baron still on record as a regent: 5 years younger than the crown's monarch
    before the minor's reign, or 30, whichever is older, in the year he was created."""
    out: list[str] = []
    created: dict[int, int] = {}
    for year in ex.doc["chronicle"]:
        for e in year["entries"]:
            if e["kind"] == "created" and isinstance(e["data"], dict) and isinstance(e["data"].get("character"), int):
                created.setdefault(e["data"]["character"], int(year["year"]))
    for reign in ex.doc["reigns"]:
        baron = ex.chars.get(reign["regent"]) if reign["regent"] is not None else None
        if baron is None or baron["origin"] != "baron" or baron["id"] not in created:
            continue
        when = created[baron["id"]]
        before = [
            r
            for r in ex.doc["reigns"]
            if r["crown"] == reign["crown"]
            and r["id"] != reign["id"]
            and r["end_year"] is not None
            and r["end_year"] <= reign["start_year"]
        ]
        late = max(before, key=lambda r: (r["end_year"], r["start_year"], r["id"]), default=None)
        late_age = when - ex.chars[late["holder"]]["birth_year"] if late is not None else 0
        want = max(late_age - 5, 30)
        if when - baron["birth_year"] != want:
            out.append(
                violation(
                    "BR-regent-baron",
                    f"{reign['crown']} {when}, {ex.name(baron['id'])}",
                    f"aged {want} (the late King {ex.name(late['holder']) if late else 'unknown'} would be {late_age})",
                    when - baron["birth_year"],
                )
            )
    return out


EVENT_DEATHS = {"lost at sea in a storm": "storm"}  # a storm kills without a roll: its deaths name it


def _reigning_king(ex: Export, cid: int, year: int) -> bool:
    return any(r["start_year"] <= year and (r["end_year"] is None or r["end_year"] >= year) for r in ex.reigns_of.get(cid, []))


def _governors_household(ex: Export, year: int) -> set[int]:
    """Under optional rule G, those a plague in a governed province strikes in ``year``: each title
    holder then, his or her wife or husband, their children aged 15 or younger."""
    held = {
        h["holder"]
        for h in ex.doc.get("title_holdings", [])
        if h["holder"] is not None and h["start_year"] <= year and (h["end_year"] is None or h["end_year"] >= year)
    }
    out = set(held)
    for m in ex.doc["marriages"]:
        wed = m["wedding_year"]
        if wed is None or wed > year or (m["ended_year"] is not None and m["ended_year"] < year):
            continue
        if m["husband"] in held or m["wife"] in held:
            out |= {m["husband"], m["wife"]}
    born_by = year + ex.campaign["turn_length"]  # a turn's second or third child is dated a year or two later
    for governor in held:
        out |= {c["id"] for c in ex.children.get(governor, []) if year - c["birth_year"] <= 15 and c["birth_year"] < born_by}
    return out


def _event_victims(ex: Export) -> list[str]:
    """BR-event-victims: every victim of a battle, a storm or a plague holds a royal piece (rule G's
    household of a Governor in a plague-struck province excepted)."""
    struck: list[tuple[str, int, int, str]] = []  # (event, year, character, row)
    for r in ex.doc["rolls"]:
        if r["purpose"] in ("battle", "plague"):
            struck += [(r["purpose"], r["year"], cid, f"roll {r['id']} ({r['year']} {r['purpose']})") for cid in r["characters"]]
    for c in ex.doc["characters"]:
        cause = (c["death_cause"] or "").split(" (")[0]
        if cause in EVENT_DEATHS and c["death_year"] is not None:
            struck.append((EVENT_DEATHS[cause], c["death_year"], c["id"], f"death ({c['death_year']} {cause})"))
    rule_g = ex.option("governing_provinces")
    households: dict[int, set[int]] = {}
    out = []
    for event, year, cid, row in struck:
        c = ex.chars[cid]
        age = year - c["birth_year"]
        king = _reigning_king(ex, cid, year)
        if c["sex"] == "M" and (age >= 20 or (king and age >= 15)):
            continue
        if event == "plague" and rule_g and cid in households.setdefault(year, _governors_household(ex, year)):
            continue
        who = f"a {'reigning ' if king else ''}{'woman' if c['sex'] != 'M' else 'boy'} of {age}"
        out.append(violation("BR-event-victims", f"{row}, {ex.name(cid)}", "a King or a Prince with his piece (20+)", who))
    return out
