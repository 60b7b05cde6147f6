"""The import's special cases: readers of the fields that are not a plain column or reference,
and the checks within and across rows that the spec's sections point at. Each refusal names
where it is and what to fix (docs/export-format.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.core.validators import slug_re
from django.db import models

from campaign import invariants
from campaign.models import Audience, Campaign, RollSource
from campaign.permissions import legacy_line_audience
from contracts.models import (
    Breach,
    Claim,
    ClauseKind,
    Contract,
    ContractKind,
    ContractPayment,
    ContractSignature,
    Excommunication,
    Obligation,
    PaymentStatus,
)
from dynasties import notes
from dynasties.models import Character, DynastyKind, Marriage, Modifier, PostingKind, Reign, TitleHolding
from operations.exchange import special
from operations.exchange.values import Item, Reading, got, is_int, kind_of, short
from rules import contracts as clause_rules
from rules import get_ruleset
from rules.dice import DiceSpec, validate_faces, validate_total
from rules.errors import InvalidImport, RuleError
from rules.stability import STABILITY_MAX, STABILITY_MIN, on_track
from rules.tables import validate_table

Row = dict[str, Any]
CHARACTERISTIC_LIMIT = 1000
COLOR = re.compile(r"#[0-9a-fA-F]{6}")
PAYING_CLAUSES = (ClauseKind.PAYMENT, ClauseKind.DOWRY, ClauseKind.RECURRING_PAYMENT)  # what they pay: params["amount"]


def objects(item: Item, key: str, model: Any = None) -> list[Item]:
    """The objects listed under ``key``, each an ``Item``."""
    out = []
    for j, raw in enumerate(item.list(key)):
        if not isinstance(raw, dict):
            raise item.fail(f"{key}[{j}]", f"must be an object, got {kind_of(raw)}")
        out.append(Item(raw, f"{item.path}.{key}[{j}]", model))
    return out


# --- special readers: (item, field key, row so far, index, reading) -> value ------------------------


def color(item: Item, key: str, row: Row, i: int, ctx: Reading) -> str:
    value = item.str(key, default="#888888")
    if not COLOR.fullmatch(value):
        raise item.fail(key, f"{short(value)} is not a colour written #rrggbb")
    return value


def note_text(item: Item, key: str, row: Row, i: int, ctx: Reading) -> str:
    """A note's Markdown, rendered as writing a note renders it (``dynasties.notes.render``, its
    length and bound included): the HTML goes in the row (``html``, not in the document)."""
    value = item.str(key)
    if len(value) > notes.MAX_LENGTH:
        raise item.fail(key, f"is {len(value)} characters long; a note is at most {notes.MAX_LENGTH}")
    try:
        row["html"] = notes.render(value).html
    except notes.NoteRefused as exc:
        raise item.fail(key, exc.message) from None
    return value


def stability(item: Item, key: str, row: Row, i: int, ctx: Reading) -> int:
    """A Stability level: on the track, -3..+3 (docs/rulings.md, The Stability track). An export of
    this format is refused beyond it; an older one, written before the track was bounded, is read at
    the track's end."""
    if ctx.current:
        return int(item.int(key, low=STABILITY_MIN, high=STABILITY_MAX))
    return on_track(int(item.int(key)))


def readers(item: Item, key: str, row: Row, i: int, ctx: Reading) -> list[int]:
    """Dynasty ids who may read a line or a dowry; absent: none (the GM alone)."""
    value = item.get(key, [])
    if not isinstance(value, list):
        raise item.fail(key, f"must be a list of dynasty ids, got {kind_of(value)}")
    for n, one in enumerate(value):
        if not is_int(one) or one not in ctx.ids["dynasties"]:
            raise item.fail(f"{key}[{n}]", f"no dynasty with id {short(one)}")
    return list(value)


def dynasty_list(item: Item, key: str, row: Row, i: int, ctx: Reading) -> list[int]:
    """A list of dynasty ids, each at most once (a contract's parties, a dispute's voters)."""
    out: list[int] = []
    for j, value in enumerate(item.list(key)):
        if not is_int(value):
            raise item.fail(f"{key}[{j}]", f"must be a dynasty id, got {got(value)}")
        if value not in ctx.ids["dynasties"]:
            raise item.fail(f"{key}[{j}]", f"no dynasty with id {value}")
        if value in out:
            raise item.fail(f"{key}[{j}]", f"dynasty {value} is listed twice")
        out.append(value)
    return out


def subjects(item: Item, key: str, row: Row, i: int, ctx: Reading) -> list[int]:
    """A roll's characters, in order, each at most once."""
    out: list[int] = []
    for j, value in enumerate(item.list(key)):
        where = f"{key}[{j}]"
        if not is_int(value):
            raise item.fail(where, f"must be a character id, got {got(value)}")
        if value not in ctx.ids["characters"]:
            raise item.fail(where, f"no character with id {value}")
        if value in out:
            raise item.fail(where, f"character {value} is listed twice")
        out.append(value)
    return out


def check_refs(item: Item, key: str, data: Mapping[str, Any], refs: Mapping[str, str], ctx: Reading) -> None:
    """The ids under the reference keys of a free-form object are export ids of their sections."""
    for name, section in refs.items():
        value = data.get(name)
        if value is None:
            continue
        what = special.singular(section)
        where = f"{key}.{name}" if key else name
        for j, one in enumerate(value) if isinstance(value, list) else [(None, value)]:
            at = where if j is None else f"{where}[{j}]"
            if not is_int(one):
                raise item.fail(at, f"must be a {what} id{'' if j is not None else ' or null'}, got {got(one)}")
            if one not in ctx.ids[section]:
                raise item.fail(at, f"no {what} with id {one}")


def provinces(item: Item, key: str, row: Row, i: int, ctx: Reading) -> list[dict[str, Any]]:
    if key not in item.obj:
        return []
    out = []
    for p in objects(item, key):
        check_refs(p, "", p.obj, {"controller": "dynasties"}, ctx)
        out.append(dict(p.obj))
    return out


def signatures(item: Item, key: str, row: Row, i: int, ctx: Reading) -> list[dict[str, Any]]:
    """A contract's signatures, one per party at most. The contract is signed (it has a
    ``signed_year``) exactly when every party has signed. A document from before signatures were
    kept has none: a signed contract was signed by every party in its signing year."""
    parties = row["parties"]
    if key not in item.obj:
        return [] if row["signed_year"] is None else [{"dynasty": d, "year": row["signed_year"]} for d in parties]
    out: list[dict[str, Any]] = []
    for s in objects(item, key, ContractSignature):
        sig = {"dynasty": s.int("dynasty"), "year": s.int("year")}
        if sig["dynasty"] not in parties:
            raise s.fail("dynasty", f"dynasty {sig['dynasty']} is not a party to the contract")
        if any(o["dynasty"] == sig["dynasty"] for o in out):
            raise s.fail("dynasty", f"dynasty {sig['dynasty']} has already signed the contract")
        out.append(sig)
    missing = [d for d in parties if d not in {o["dynasty"] for o in out}]
    if row["signed_year"] is not None and missing:
        raise item.fail(key, f"the contract was signed in {row['signed_year']}, but dynasty {missing[0]} has not signed it")
    if row["signed_year"] is None and not missing:
        raise item.fail("signed_year", "every party has signed the contract: it must have a signing year")
    return out


def entry_data(item: Item, key: str, row: Row, i: int, ctx: Reading) -> dict[str, Any]:
    """A chronicle entry's data: the values under its reference keys are export ids (or null)."""
    data = item.object(key)
    for name, value in data.items():
        section = special.CHRONICLE_REFS.get(name)
        if section is not None and value is not None:
            what = special.singular(section)
            if not is_int(value):
                raise item.fail(f"{key}.{name}", f"must be a {what} id or null, got {got(value)}")
            if value not in ctx.ids[section]:
                raise item.fail(f"{key}.{name}", f"no {what} with id {value}")
        section = special.CHRONICLE_LIST_REFS.get(name)
        if section is not None:
            _check_id_list(item, f"{key}.{name}", value, section, ctx)
    return data


def _check_id_list(item: Item, where: str, value: Any, section: str, ctx: Reading) -> None:
    what = special.singular(section)
    if not isinstance(value, list):
        raise item.fail(where, f"must be a list of {what} ids, got {kind_of(value)}")
    for n, one in enumerate(value):
        if one is not None and (not is_int(one) or one not in ctx.ids[section]):
            raise item.fail(f"{where}[{n}]", f"no {what} with id {short(one)}")


def audience(item: Item, key: str, row: Row, i: int, ctx: Reading) -> str:
    """Who may read a line; an older file has none: as the line's kind and data said then."""
    if key in item.obj:
        return item.choice(key, Audience.values)
    line_audience, row["legacy_readers"] = legacy_line_audience(row["kind"], row["data"])
    return str(line_audience)


def line_readers(item: Item, key: str, row: Row, i: int, ctx: Reading) -> list[int] | None:
    if "legacy_readers" in row:
        return None
    found = readers(item, key, row, i, ctx)
    if row["audience"] == Audience.PARTIES and not found:
        raise item.fail(key, "a line for its parties must name at least one dynasty")
    return found


def any_list(item: Item, key: str, row: Row, i: int, ctx: Reading) -> list[Any]:
    value = item.get(key)
    if not isinstance(value, list):
        raise item.fail(key, f"must be a list, got {kind_of(value)}")
    return value


# --- the campaign ---------------------------------------------------------------------------------


def check_campaign(c: Item, row: Row, i: int, ctx: Reading) -> None:
    try:
        rules = get_ruleset(row["ruleset"])
    except RuleError as exc:
        raise c.fail("ruleset", exc.message) from None
    if not slug_re.match(row["slug"]):
        raise c.fail("slug", f"{short(row['slug'])} is not a slug (letters, digits, hyphens and underscores)")
    check_invariants(c, row, Campaign)
    try:
        rules.clean_options(row["optional_rules"])
    except RuleError as exc:
        raise c.fail("optional_rules", exc.message) from None
    if (row.get("ended_year") is None) != (not row.get("ended_reason")):
        raise c.fail("ended_year", "a game that ended has both its year and its reason; one that goes on, neither")
    if row.get("ended_year") is not None and row["ended_year"] != row["current_year"]:
        raise c.fail("ended_year", f"the game ended in its current year ({row['current_year']}), not {row['ended_year']}")
    if row.get("money_target") is not None and not rules.money_wins:
        raise c.fail("money_target", "this ruleset's game is not won on money: it has no money target")
    for key, value in row["tables"].items():
        try:
            validate_table(key, value)
        except RuleError as exc:
            raise c.fail(f"tables.{key}", exc.message) from None
    for key in rules.DEFAULT_TABLES:
        if key not in row["tables"]:
            raise c.fail("tables", f"the {key!r} table is missing")
    row["name"] = row["name"].strip()


# --- checks within a row and across rows: (item, row, index, reading) -------------------------------


def check_dynasty(d: Item, row: Row, i: int, ctx: Reading) -> None:
    other = ctx.first("dynasty names", row["name"], i)
    if other is not None:
        raise d.fail("name", f"the dynastic name {row['name']!r} is already used by dynasties[{other}]")
    if row["crown"]:
        other = ctx.first("dynasty crowns", row["crown"], i)
        if other is not None:
            raise d.fail("crown", f"the crown {row['crown']!r} is already held by dynasties[{other}]")


def crowns_of_v1(ctx: Reading) -> list[Row]:
    """A regnal/1 document has no crowns: one per player dynasty's crown, held by it."""
    players = [d for d in ctx.rows["dynasties"] if d["kind"] == DynastyKind.PLAYER and d["crown"]]
    return [
        {
            "id": n,
            "name": d["crown"],
            "home_dynasty": d["id"],
            "controlled_by": d["id"],
            "union_with": None,
            "union_since": None,
            "stability": 0,
            "state": {},
            "numerals": {},
        }
        for n, d in enumerate(players, start=1)
    ]


def provinces_of_v1(ctx: Reading) -> list[Row]:
    """A regnal/1 document has no province register: a Blood Royale campaign gets what set-up makes
    (the ten provinces of optional rule F: neutral with rule F, else their country's house's)."""
    from rules import get_ruleset
    from rules.provinces import NEUTRAL_PROVINCES

    campaign = ctx.rows["campaign"][0]
    if not get_ruleset(campaign["ruleset"]).interphase:
        return []
    neutral = bool((campaign.get("optional_rules") or {}).get("neutral_provinces"))
    houses = {d["crown"]: d["id"] for d in ctx.rows["dynasties"] if d["crown"]}
    rows: list[Row] = []
    for country, names in NEUTRAL_PROVINCES.items():
        for name in names:
            rows.append(
                {
                    "id": len(rows) + 1,
                    "name": name,
                    "country": country,
                    "controlled_by": None if neutral else houses.get(country),
                    "neutral": neutral,
                    "original_capital": False,
                    "capital_of": "",
                    "castle": False,
                    "resource": "",
                    "famine_year": None,
                    "rebellion_year": None,
                }
            )
    return sorted(rows, key=lambda r: r["name"])


def check_invariants(item: Item, row: Row, model: type[models.Model]) -> None:
    """The model's own constraints on one row (campaign.invariants: the rule and its message stated
    once), asked before anything is written. The row's keys are the document's ids, so a constraint
    comparing a key with the row's own id is left to ``check_ancestry``, which names the cycle."""
    values = {key: value.strip() if isinstance(value, str) else value for key, value in row.items()}
    rule = invariants.broken(model, values, unknown={"id"})
    if rule is not None:
        raise item.fail(invariants.FIELDS[rule.name], invariants.message(rule, values))


def check_crown(c: Item, row: Row, i: int, ctx: Reading) -> None:
    other = ctx.first("crown names", row["name"], i)
    if other is not None:
        raise c.fail("name", f"the crown {row['name']!r} is already listed as crowns[{other}]")
    if row["union_with"] == row["id"]:
        raise c.fail("union_with", f"crown {row['id']} cannot be in union with itself")


def check_character(c: Item, row: Row, i: int, ctx: Reading) -> None:
    for name, value in row["characteristics"].items():
        if not is_int(value):
            raise c.fail(f"characteristics.{name}", f"must be a whole number, got {got(value)}")
        if not -CHARACTERISTIC_LIMIT <= value <= CHARACTERISTIC_LIMIT:
            raise c.fail(f"characteristics.{name}", f"{short(value)} is outside {-CHARACTERISTIC_LIMIT}..{CHARACTERISTIC_LIMIT}")
    check_invariants(c, row, Character)


def check_ancestry(items: list[Item], rows: list[Row], ctx: Reading) -> None:
    """Refuse a cycle in parentage: nobody may be their own ancestor."""
    parents = {row["id"]: (row["father"], row["mother"]) for row in rows}
    done: set[int] = set()
    for start in parents:
        if start not in done:
            _walk_ancestors(start, parents, done, items, ctx.ids["characters"])


def _walk_ancestors(
    start: int, parents: Mapping[int, tuple[int | None, int | None]], done: set[int], items: list[Item], ids: Mapping[int, int]
) -> None:
    def known(node: int) -> list[int]:
        return [p for p in parents[node] if p is not None]

    on_path: dict[int, int] = {start: 0}
    path: list[int] = [start]
    stack: list[tuple[int, list[int]]] = [(start, known(start))]
    while stack:
        node, todo = stack[-1]
        if not todo:
            stack.pop()
            path.pop()
            del on_path[node]
            done.add(node)
            continue
        parent = todo.pop()
        if parent in done:
            continue
        if parent in on_path:
            cycle = [node, *path[on_path[parent] :]]
            role = "father" if parents[node][0] == parent else "mother"
            raise items[ids[node]].fail(
                role,
                f"character {node} would be their own ancestor "
                f"(parentage cycle {' -> '.join(map(str, cycle))}, each the child of the next)",
            )
        on_path[parent] = len(path)
        path.append(parent)
        stack.append((parent, known(parent)))


def check_control_change(c: Item, row: Row, i: int, ctx: Reading) -> None:
    if (row["character"] is None) == (row["crown"] is None):
        raise c.fail("character", "a control change is of a character or of a crown: exactly one of the two")
    if row["from_dynasty"] == row["to_dynasty"]:
        raise c.fail("to_dynasty", "the same as from_dynasty: nothing changed hands")


def clash(item: Item, row: Row, model: type[models.Model], name: str, other: str) -> InvalidImport:
    """The refusal of a row that an earlier row of the document (``other``) already takes the
    place of, under the model's uniqueness constraint ``name``: the constraint's own message and
    field (campaign.invariants), then where the other row is."""
    rule = next(c for c in model._meta.constraints if c.name == name)
    return item.fail(invariants.FIELDS[name], f"{invariants.message(rule, row)} (the other: {other})")


def check_marriage(m: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(m, row, Marriage)
    if row["ended_year"] is None:  # marriage_one_open_per_husband, _per_wife: across the document's rows
        for role in ("husband", "wife"):
            other = ctx.first("open marriages", (role, row[role]), i)
            if other is not None:
                raise clash(m, row, Marriage, f"marriage_one_open_per_{role}", f"marriages[{other}]")


def check_reign(r: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(r, row, Reign)


def check_passed_over(p: Item, row: Row, seen: list[Row]) -> None:
    if any(o["character"] == row["character"] for o in seen):
        raise p.fail("character", f"character {row['character']} is already listed as passed over in this reign")


# An export written before Modifier.pass_over existed said how a claimant was passed over only at the
# end of the combat malus's reason (dynasties migration 0013 reads old rows the same way).
LEGACY_PASS_OVER = {"(prisoner)": "prisoner", "(married away)": "married_away", "(voluntary)": "voluntary"}


def check_modifier(m: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(m, row, Modifier)
    if "pass_over" not in m.obj and row["kind"] == "combat_malus":
        row["pass_over"] = next((k for end, k in LEGACY_PASS_OVER.items() if row["reason"].endswith(end)), "")


def check_renunciation(r: Item, row: Row, i: int, ctx: Reading) -> None:
    pair = (row["character"], row["crown"])
    other = ctx.first("renunciations", pair, i)
    if other is not None:
        raise r.fail("crown", f"character {pair[0]} has already renounced the crown of {pair[1]!r} (renunciations[{other}])")


def check_title(t: Item, row: Row, i: int, ctx: Reading) -> None:
    other = ctx.first("provinces", row["province"], i)
    if other is not None:
        raise t.fail("province", f"the province {row['province']!r} already has a title (titles[{other}])")


def check_holding(h: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(h, row, TitleHolding)


def check_roll(r: Item, row: Row, i: int, ctx: Reading) -> None:
    for name, value in row["values_used"].items():
        if not is_int(value) or not -CHARACTERISTIC_LIMIT <= value <= CHARACTERISTIC_LIMIT:
            raise r.fail(f"values_used.{name}", f"must be a whole number within -1000..1000, got {got(value)}")
    try:
        dice = DiceSpec.parse(row["dice"])
    except RuleError as exc:
        raise r.fail("dice", exc.message) from None
    if row["source"] == RollSource.CERTAIN:  # not rolled: no faces
        if row["faces"] != []:
            raise r.fail("faces", f"a roll passed as certain has no faces (`[]`), got {got(row['faces'])}")
        return
    if row["source"] == RollSource.TOTAL and not (isinstance(row["faces"], list) and len(row["faces"]) == 1):
        raise r.fail("faces", f"a roll typed as its total has one number, the total, got {got(row['faces'])}")
    try:
        if row["source"] == RollSource.TOTAL:  # typed as its total: the one "face" is the total
            validate_total(dice, row["faces"][0], purpose=f"{row['purpose']} roll")
        else:
            validate_faces(dice, row["faces"], purpose=f"{row['purpose']} roll")
    except RuleError as exc:
        raise r.fail("faces", exc.message) from None


def check_attempt(a: Item, row: Row, i: int, ctx: Reading) -> None:
    key = (row["marriage"], row["year"], row["attempt"])
    other = ctx.first("attempts", key, i)
    if other is not None:
        raise a.fail("attempt", f"marriage {key[0]} already has attempt {key[2]} in {key[1]} (birth_attempts[{other}])")
    if row["child"] is not None:
        if not row["success"]:
            raise a.fail("child", "only a successful attempt has a child")
        other = ctx.first("children", row["child"], i)
        if other is not None:
            raise a.fail("child", f"character {row['child']} is already the child of birth_attempts[{other}]")


def check_entry_year(g: Item, year: int, last: int | None) -> None:
    if last is not None and year <= last:
        raise g.fail("year", f"{year} must come after {last}: the chronicle is grouped by year in order")


# --- contracts and the ledger -------------------------------------------------------------------------


def check_contract(c: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(c, row, Contract)


def clause_refs_version(data: Mapping[str, Any]) -> int:
    version = data.get("clause_refs", 1)
    if version not in (1, special.CLAUSE_REFS_VERSION) or isinstance(version, bool):
        raise InvalidImport(
            f"clause_refs: {short(version)} is not a version this site reads (1 or {special.CLAUSE_REFS_VERSION})",
            fields={"clause_refs": "unsupported"},
        )
    return int(version)


def check_clause(c: Item, row: Row, i: int, ctx: Reading) -> None:
    if ctx.refs_version == 1:  # an older document: its "by" and "between" are database ids of another site
        row["params"] = {k: v for k, v in row["params"].items() if k not in special.CLAUSE_REFS_ADDED}
    check_refs(c, "params", row["params"], special.CLAUSE_REFS, ctx)
    contract = ctx.row("contracts", row["contract"])
    try:  # the terms the kind of clause takes, as a draft checks them (parties are export ids here)
        clause_rules.validate_clause(row["kind"], row["params"], parties=contract["parties"])
    except clause_rules.ClauseError as exc:
        raise c.fail("params", exc.message[0].lower() + exc.message[1:]) from exc


def check_contract_clauses(items: list[Item], rows: list[Row], ctx: Reading) -> None:
    """A contract's clauses obey the rules across clauses."""
    for contract in ctx.rows["contracts"]:
        kinds = [c["kind"] for c in rows if c["contract"] == contract["id"]]
        try:
            clause_rules.validate_clauses(kinds, marriage_contract=contract["kind"] == ContractKind.MARRIAGE)
        except clause_rules.ClauseError as exc:
            raise InvalidImport(
                f"contracts: contract {contract['id']}: {exc.message}", fields={f"contract {contract['id']}": exc.message}
            ) from exc


def movement(row: Mapping[str, Any]) -> str:
    """``30 from dynasty 1 to the Treasury``: a posting's or a payment's money, in export ids."""

    def account(dynasty: int | None) -> str:
        return "the Treasury" if dynasty is None else f"dynasty {dynasty}"

    return f"{row['amount']} from {account(row['payer'])} to {account(row['payee'])}"


def check_posting(p: Item, row: Row, i: int, ctx: Reading) -> None:
    if row["payer"] is None and row["payee"] is None:
        raise p.fail("payee", "the Treasury cannot pay itself: a payer or a payee must be a dynasty")
    if row["payer"] is not None and row["payer"] == row["payee"]:
        raise p.fail("payee", f"dynasty {row['payee']} cannot pay itself")
    if row["kind"] == PostingKind.CORRECTION and row["reverses"] is None:
        raise p.fail("reverses", "a correction names the posting it reverses")
    if row["kind"] != PostingKind.CORRECTION and row["reverses"] is not None:
        raise p.fail("kind", f"only a correction reverses a posting; this one is a '{row['kind']}' posting")
    if row["reverses"] is not None:
        if row["reverses"] == row["id"]:
            raise p.fail("reverses", f"posting {row['id']} cannot reverse itself")
        other = ctx.first("reversed", row["reverses"], i)
        if other is not None:
            raise p.fail("reverses", f"posting {row['reverses']} is already reversed by postings[{other}]")


def check_reversals(items: list[Item], rows: list[Row], ctx: Reading) -> None:
    """A correction is the mirror image of the one posting it reverses (``treasury.posting_reverse``);
    checked once every posting is read: originals may come after their corrections."""
    for p, row in zip(items, rows, strict=True):
        if row["reverses"] is None:
            continue
        original = ctx.row("postings", row["reverses"])
        if original["kind"] == PostingKind.CORRECTION:
            raise p.fail("reverses", f"posting {original['id']} is itself a correction; a correction is not reversed")
        if (row["payer"], row["payee"], row["amount"]) != (original["payee"], original["payer"], original["amount"]):
            raise p.fail(
                "reverses",
                f"{movement(row)} does not mirror posting {original['id']} ({movement(original)}): "
                "a correction pays the same amount back the other way",
            )
        if row["year"] < original["year"]:
            raise p.fail("year", f"{row['year']} is before the posting it reverses ({original['year']})")


def check_breach(b: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(b, row, Breach)
    contract = ctx.row("contracts", row["contract"])
    for key in ("by_dynasty", "raised_by"):
        if row[key] not in contract["parties"]:
            raise b.fail(key, f"dynasty {row[key]} is not a party to contract {contract['id']}")
    if row["clause"] is not None and ctx.row("clauses", row["clause"])["contract"] != row["contract"]:
        raise b.fail("clause", f"clause {row['clause']} is not a term of contract {row['contract']}")


def check_payment(p: Item, row: Row, i: int, ctx: Reading) -> None:
    """A contract payment adds up with its posting, clause and breach (``contracts.services._pay``,
    ``payment_settle``, ``_enforce``); each a checked row, in export ids."""
    check_invariants(p, row, ContractPayment)
    if row["posting"] is not None:
        other = ctx.first("paid", row["posting"], i)
        if other is not None:
            raise p.fail("posting", f"posting {row['posting']} already pays contract_payments[{other}]")
    settled = row["settled_year"]
    if settled is not None and row["status"] != PaymentStatus.PAID:
        raise p.fail("settled_year", "an unpaid payment has not been settled: its settled_year is null")
    if settled is not None and settled < row["year"]:
        raise p.fail("settled_year", f"{settled} is before the payment fell due ({row['year']})")
    breach = None if row["breach"] is None else ctx.row("breaches", row["breach"])
    if row["posting"] is not None:
        _check_paid_posting(p, row, ctx.row("postings", row["posting"]), breach)
    if row["clause"] is not None:
        _check_paid_clause(p, row, ctx.row("clauses", row["clause"]), breach)
    if breach is not None:
        _check_damages(p, row, breach)


def _check_paid_posting(p: Item, row: Row, posting: Row, breach: Row | None) -> None:
    pid, settled = posting["id"], row["settled_year"]
    if posting["contract"] != row["contract"]:
        names = "no contract" if posting["contract"] is None else f"contract {posting['contract']}"
        raise p.fail("posting", f"posting {pid} is not a payment under contract {row['contract']} (it names {names})")
    if (posting["payer"], posting["payee"], posting["amount"]) != (row["payer"], row["payee"], row["amount"]):
        raise p.fail("posting", f"posting {pid} moves {movement(posting)}, not the payment's {movement(row)}")
    kinds = (PostingKind.DAMAGES,) if breach is not None else (PostingKind.CONTRACT, PostingKind.DOWRY)
    if posting["kind"] not in kinds:
        should = "damages are posted as 'damages'" if breach else "a contract payment is posted as 'contract' or 'dowry'"
        raise p.fail("posting", f"posting {pid} is a '{posting['kind']}' posting; {should}")
    if settled is not None and posting["year"] != settled:
        raise p.fail("posting", f"posting {pid} is of {posting['year']}, not of the year the payment was settled ({settled})")
    if posting["year"] < row["year"]:
        raise p.fail("posting", f"posting {pid} is of {posting['year']}, before the payment fell due ({row['year']})")


def _check_paid_clause(p: Item, row: Row, clause: Row, breach: Row | None) -> None:
    cid, terms = clause["id"], clause["params"]
    if clause["contract"] != row["contract"]:
        raise p.fail("clause", f"clause {cid} is a term of contract {clause['contract']}, not of contract {row['contract']}")
    if breach is None and clause["kind"] == ClauseKind.DAMAGES:
        raise p.fail("clause", f"clause {cid} is the damages clause, paid only on a breach (the payment names none)")
    if breach is None and (clause["kind"] not in PAYING_CLAUSES or "amount" not in terms):
        raise p.fail("clause", f"clause {cid} is a '{clause['kind']}' clause, which sets no sum to pay")
    if breach is None and (terms["payer"], terms["payee"], terms["amount"]) != (row["payer"], row["payee"], row["amount"]):
        raise p.fail("clause", f"the payment of {movement(row)} does not match clause {cid} ({movement(terms)}, its terms)")
    if breach is not None and clause["kind"] == ClauseKind.DAMAGES and terms["amount"] != row["amount"]:
        raise p.fail("amount", f"{row['amount']} is not the damages of clause {cid} ({terms['amount']})")


def _check_damages(p: Item, row: Row, breach: Row) -> None:
    bid = breach["id"]
    if breach["contract"] != row["contract"]:
        raise p.fail("breach", f"breach {bid} is of contract {breach['contract']}, not of contract {row['contract']}")
    if (row["payer"], row["payee"]) != (breach["by_dynasty"], breach["raised_by"]):
        raise p.fail(
            "payer",
            f"damages for breach {bid} go from the party in breach (dynasty {breach['by_dynasty']}) to the injured party "
            f"(dynasty {breach['raised_by']}), not from dynasty {row['payer']} to dynasty {row['payee']}",
        )


def check_dispute(d: Item, row: Row, i: int, ctx: Reading) -> None:
    other = ctx.first("disputed", row["breach"], i)
    if other is not None:
        raise d.fail("breach", f"breach {row['breach']} is already disputed (disputes[{other}])")


def check_term(t: Item, row: Row, seen: list[Row]) -> None:
    if any(o["clause"] == row["clause"] for o in seen):
        raise t.fail("clause", f"clause {row['clause']} is already ruled on in this dispute")


def check_dispute_vote(v: Item, row: Row, seen: list[Row]) -> None:
    if any((o["dynasty"], o["clause"]) == (row["dynasty"], row["clause"]) for o in seen):
        raise v.fail("clause", f"dynasty {row['dynasty']} already voted on clause {row['clause']}")


def check_parley(p: Item, row: Row, i: int, ctx: Reading) -> None:
    if row["breach"] is not None:
        other = ctx.first("parley breaches", row["breach"], i)
        if other is not None:
            raise p.fail("breach", f"breach {row['breach']} already has a parley (parleys[{other}])")


def check_parley_vote(v: Item, row: Row, seen: list[Row]) -> None:
    if any(o["dynasty"] == row["dynasty"] for o in seen):
        raise v.fail("dynasty", f"dynasty {row['dynasty']} already voted in this parley")


def check_excommunication(e: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(e, row, Excommunication)
    if row["ended_year"] is None:
        other = ctx.first("excommunicated", row["dynasty"], i)
        if other is not None:
            raise e.fail("dynasty", f"dynasty {row['dynasty']} is already excommunicated (excommunications[{other}])")


def claim_area(item: Item, key: str, row: Row, i: int, ctx: Reading) -> str:
    """A claim's area, tidied as the register tidies it; its key goes in the row (``area_key``)."""
    try:
        name, row["area_key"] = clause_rules.area_name(item.str(key))
    except RuleError as exc:
        raise item.fail(key, exc.message) from None
    return name


def check_claim(c: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(c, row, Claim)
    if row["ended_year"] is None:
        other = ctx.first("claims held", (row["dynasty"], row["area_key"]), i)
        if other is not None:
            raise c.fail("area", f"dynasty {row['dynasty']} already holds a claim to {row['area']} (claims[{other}])")
    for key, what in (("parley", "claim parleys"), ("came_from", "claims given")):
        if row[key] is not None:
            other = ctx.first(what, row[key], i)
            if other is not None:
                raise c.fail(key, f"{row[key]} already gave a claim (claims[{other}])")


def check_obligation(o: Item, row: Row, i: int, ctx: Reading) -> None:
    check_invariants(o, row, Obligation)
    other = ctx.first("obligations", row["parley"], i)
    if other is not None:
        raise o.fail("parley", f"parley {row['parley']} already made an obligation (obligations[{other}])")
