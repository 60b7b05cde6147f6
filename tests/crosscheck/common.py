"""What every cross-check shares: reading an export (docs/export-format.md) and naming violations.

Written from the export format and the rulebooks only, never from ``dynasties/services`` or
``rules``: these checks re-derive the books of a campaign independently.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

Row = dict[str, Any]
STEPS = {"setup": 0, "births": 1, "survival": 2, "marriages": 3, "announcements": 4, "interphase": 5}


def violation(rule: str, row: str, expected: object, found: object) -> str:
    """One violation: ``"<rule>: <row>: expected <x>, found <y>"`` (the rule first, so it can be counted)."""
    return f"{rule}: {row}: expected {expected}, found {found}"


def rule_of(message: str) -> str:
    return message.split(":", 1)[0]


@dataclass
class Export:
    """An export document with the indexes the checks need."""

    doc: dict[str, Any]
    chars: dict[int, Row] = field(default_factory=dict)
    marriages: dict[int, Row] = field(default_factory=dict)
    rolls: dict[int, Row] = field(default_factory=dict)
    dynasties: dict[int, Row] = field(default_factory=dict)
    crowns: dict[str, Row] = field(default_factory=dict)
    children: dict[int, list[Row]] = field(default_factory=lambda: defaultdict(list))
    rolls_of: dict[tuple[str, int], list[Row]] = field(default_factory=lambda: defaultdict(list))
    reigns_of: dict[int, list[Row]] = field(default_factory=lambda: defaultdict(list))
    mentions: dict[int, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    fatal: dict[int, int] = field(default_factory=dict)  # a character's fatal roll's id
    superseded: set[int] = field(default_factory=set)  # rolls a later roll corrects (the wrong faces, kept in the log)

    @classmethod
    def of(cls, doc: dict[str, Any]) -> Export:
        ex = cls(doc)
        ex.chars = {c["id"]: c for c in doc["characters"]}
        ex.marriages = {m["id"]: m for m in doc["marriages"]}
        ex.rolls = {r["id"]: r for r in doc["rolls"]}
        ex.dynasties = {d["id"]: d for d in doc["dynasties"]}
        ex.crowns = {c["name"]: c for c in doc["crowns"]}
        # a corrected roll stays in the log before its correction ("corrects"); the correction is the roll that stands
        ex.superseded = {r["corrects"] for r in doc["rolls"] if r.get("corrects") is not None}
        for c in doc["characters"]:
            for parent in (c["father"], c["mother"]):
                if parent is not None:
                    ex.children[parent].append(c)
        for r in doc["rolls"]:
            if r["id"] in ex.superseded:
                continue
            for cid in r["characters"]:
                ex.rolls_of[(r["purpose"], cid)].append(r)
        for reign in doc["reigns"]:
            ex.reigns_of[reign["holder"]].append(reign)
        for r in doc["rolls"]:
            if r["outcome"] == "died" and r["id"] not in ex.superseded:
                for cid in r["characters"]:
                    ex.fatal.setdefault(cid, r["id"])
        for r in doc["rolls"]:
            for cid in r["characters"]:
                ex.mentions[cid].append((r["year"], STEPS.get(r["step"], 9)))
        for year in doc["chronicle"]:
            for entry in year["entries"]:
                cid = entry["data"].get("character") if isinstance(entry["data"], dict) else None
                if isinstance(cid, int):
                    ex.mentions[cid].append((year["year"], STEPS.get(entry["step"], 9)))
        return ex

    def controllers(self, cid: int, year: int) -> set[int | None]:
        """The houses that controlled the character at some time in ``year``, from the export's
        history of control (``control_changes``): the one at the year's start and every one he
        passed to within it."""
        changes = [c for c in self.doc.get("control_changes", []) if c["character"] == cid]
        if not changes:
            return {self.chars[cid]["controlled_by"]}
        before = [c for c in changes if c["year"] < year]
        out: set[int | None] = {before[-1]["to_dynasty"] if before else changes[0]["from_dynasty"]}
        out |= {c["to_dynasty"] for c in changes if c["year"] == year}
        return out

    def controller_at(self, cid: int, year: int, step: str) -> int | None:
        """The house that controlled the character just before ``step`` of turn ``year``, from the
        export's history of control (``control_changes``, each stamped with its year and step)."""
        changes = [c for c in self.doc.get("control_changes", []) if c["character"] == cid]
        if not changes:
            return self.chars[cid]["controlled_by"]  # type: ignore[no-any-return]
        moment = (year, STEPS[step])
        before = [c for c in changes if (c["year"], STEPS.get(c["step"], 9)) < moment]
        return before[-1]["to_dynasty"] if before else changes[0]["from_dynasty"]  # type: ignore[no-any-return]

    def renounced_before(self, crown: str, year: int) -> set[int]:
        """Who had renounced ``crown`` before the Succession of turn ``year``: a renunciation of an
        earlier turn, or of this one at an earlier step (its chronicle line's step; a contract's
        renunciation comes with the wedding, after the Succession). A renouncer who wore the crown
        after renouncing it (given back to her house: "allow a new Monarch to be established by the
        'landless' player") reigned, and her line inherits from her as from any monarch."""
        wore = {(r["crown"], r["holder"]): r["start_year"] for r in self.doc["reigns"] if r["start_year"] <= year}
        steps = {
            (e["data"].get("character"), e["data"].get("crown")): STEPS.get(e["step"], 9)
            for y in self.doc["chronicle"]
            for e in y["entries"]
            if e["kind"] == "renunciation" and isinstance(e["data"], dict)
        }
        return {
            r["character"]
            for r in self.doc.get("renunciations", [])
            if r["crown"] == crown
            and wore.get((crown, r["character"]), r["year"] - 1) < r["year"]
            and (r["year"] < year or (r["year"] == year and steps.get((r["character"], crown), 9) < STEPS["survival"]))
        }

    @property
    def campaign(self) -> Row:
        return self.doc["campaign"]  # type: ignore[no-any-return]

    def option(self, name: str) -> bool:
        return bool(self.campaign["optional_rules"].get(name, False))

    def turn_years(self) -> list[int]:
        """The turns played so far, from the years in the roll log and the campaign's span."""
        years = {r["year"] for r in self.doc["rolls"]}
        years.add(self.campaign["start_year"])
        return sorted(y for y in years if y <= self.campaign["current_year"])

    def name(self, cid: int | None) -> str:
        if cid is None:
            return "nobody"
        c = self.chars[cid]
        return f"character {cid} ({c['given_name']} {c['dynastic_name']}, b. {c['birth_year']})"

    def died_after(self, cid: int, other: int) -> bool:
        """Whether ``cid`` died after ``other`` within the turn they both died in: by a roll of a later
        step, as the roll log orders them (a King dead at Survival, his heir crowned, then killed in a
        battle between the steps). The deaths of one step are one moment (Survival's rolls are all made
        before the successions). False when either died without a roll (a storm, a death decided at the
        table)."""
        mine, theirs = self.fatal.get(cid), self.fatal.get(other)
        if mine is None or theirs is None:
            return False
        return mine > theirs and self.rolls[mine]["step"] != self.rolls[theirs]["step"]

    def alive_in(self, cid: int, year: int) -> bool:
        """Alive (not dead, not retired) through the survival step of ``year``: a death or retirement
        in ``year`` itself counts as after it."""
        c = self.chars[cid]
        if c["death_year"] is not None and c["death_year"] < year:
            return False
        retired = c.get("retired_year")
        return not (retired is not None and retired < year)


def dice_faces(spec: str) -> tuple[int, int]:
    count, sides = spec.split("d")
    return int(count), int(sides)


def check_faces(roll: Row, rule: str) -> list[str]:
    count, sides = dice_faces(roll["dice"])
    faces = roll["faces"]
    if len(faces) != count or any(not 1 <= f <= sides for f in faces):
        return [violation(rule, f"roll {roll['id']}", f"{count} faces of 1..{sides} ({roll['dice']})", faces)]
    return []


def total(roll: Row) -> int:
    return int(sum(roll["faces"])) + int(roll["modifier"])


def postings_by(doc: dict[str, Any], key: str) -> dict[Any, list[Row]]:
    out: dict[Any, list[Row]] = defaultdict(list)
    for p in doc.get("postings", []):
        out[p[key]].append(p)
    return out


def sort_rows(rows: Iterable[Row], key: Callable[[Row], Any]) -> list[Row]:
    return sorted(rows, key=key)


def turn_of(ex: Export, year: int) -> int:
    """The turn a year belongs to: the latest turn year not after it (a child born in 1322 came in 1320)."""
    turns = [t for t in ex.turn_years() if t <= year]
    return turns[-1] if turns else year


def line_of(ex: Export, pid: int, cut: set[int]) -> list[int]:
    """Rulebook order below one person: "The eldest son then down through his family, boys and then
    girls; The second son ...; The eldest daughter and down through ... her family": sons by age,
    each followed by his whole line, then daughters likewise. Bastards and anyone in ``cut`` are
    left out with their lines."""
    kids = [k for k in ex.children.get(pid, []) if k["legitimate"] and k["id"] not in cut]
    kids.sort(key=lambda k: (k["sex"] != "M", k["birth_year"], k["birth_order"], k["id"]))
    out: list[int] = []
    for k in kids:
        out.append(k["id"])
        out.extend(line_of(ex, k["id"], cut))
    return out


def ancestors(ex: Export, cid: int) -> set[int]:
    seen: set[int] = set()
    todo = [cid]
    while todo:
        c = ex.chars[todo.pop()]
        for p in (c["father"], c["mother"]):
            if p is not None and p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def heir_of(ex: Export, late: int, crown: str, year: int, cut: set[int], eligible: Callable[[int], bool]) -> int | None:
    """The first eligible person in the late monarch's line; when it is exhausted, "search wider"
    from the parent of the royal blood (the one who is or descends from a past holder of the crown),
    who comes first, then his line, and so on up. When both parents are of the blood the climb goes
    back up the way the crown came (docs/rulings.md A7, issue 16 item 5): the one who held the crown,
    else the one descended from the later-born holder, then the one fewer generations below him,
    else the father; the father too when neither is of the blood."""
    for cid in line_of(ex, late, cut):
        if eligible(cid):
            return cid
    holders = {r["holder"] for r in ex.doc["reigns"] if r["crown"] == crown and r["start_year"] <= year}

    def age_key(cid: int) -> tuple[int, int, int]:
        ch = ex.chars[cid]
        return (ch["birth_year"], ch["birth_order"], cid)

    def claim(pid: int) -> tuple[bool, tuple[int, int, int], int] | None:
        """How near pid stands to the last holders: (held the crown, the latest-born holder he is or
        descends from, minus the generations down from that holder); None if not of the blood."""
        depth: dict[int, int] = {}
        level, gen = [pid], 0
        while level:
            for q in level:
                depth.setdefault(q, gen)
            level = [p for q in level for p in (ex.chars[q]["father"], ex.chars[q]["mother"]) if p is not None]
            gen += 1
        mine = [h for h in depth if h in holders]
        if not mine:
            return None
        last = max(mine, key=age_key)
        return (pid in holders, age_key(last), -depth[last])

    current = late
    while True:
        c = ex.chars[current]
        father, mother = c["father"], c["mother"]
        parent: int | None = father
        claims = {p: claim(p) for p in (father, mother) if p is not None}
        of_blood = [p for p in (father, mother) if p is not None and claims[p] is not None]
        if len(of_blood) == 1:
            parent = of_blood[0]
        elif len(of_blood) == 2 and mother is not None and father is not None:
            fc, mc = claims[father], claims[mother]
            parent = mother if fc is not None and mc is not None and mc > fc else father
        if parent is None:
            return None
        if parent not in cut and ex.chars[parent]["legitimate"] and eligible(parent):
            return parent
        for cid in line_of(ex, parent, cut):
            if eligible(cid):
                return cid
        current = parent
