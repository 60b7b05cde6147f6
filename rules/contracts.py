"""The rules of contracts, disputes and parleys as pure functions (no Django, no database).

- Clauses (RULES.md A6, B Marriage/Betrothal, D): each kind has its own parameters, checked here;
  terms must be precise (A6), so unknown or missing terms are refused.
- BloodLine disputes (B): a majority of the other players rules on each disputed term; the terms a
  majority upholds are enforced, the rest ignored.
- The medieval parley (D, sections 20.4-20.5): each player votes his leader's diplomatic stature
  plus 5 per "Influence in Church Hierarchy" card, in one block, most votes first; only players
  whose leaders are Christian vote, and an excommunicated player only on his own readmission
  (22.12). The caller's motion carries on a tie (a broken agreement's tie excommunicates, 20.44;
  the other parleys' ties favour the caller, 20.41-20.45).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.errors import RuleError

TRADE_ITEMS = ("metals", "cloth", "food", "semi-luxury", "luxury")
CHURCH_CARD_VOTES = 5  # medieval game 20.51
OPEN = "open"

MARRIAGE_ONLY = ("children_raised_by", "husband_joins_wife", "dowry")
ONCE_ONLY = ("children_raised_by", "husband_joins_wife", "dowry", "escape", "damages")

# Every kind's terms: required and optional parameter names.
CLAUSE_TERMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "payment": (("payer", "payee", "amount"), ()),
    "recurring_payment": (("payer", "payee", "amount", "from_year", "turns"), ()),
    "trade_item": (("from", "to", "item", "turns"), ()),
    "non_aggression": ((), ("between",)),
    "safe_passage": ((), ("between",)),
    "military_support": ((), ("by", "to", "exclusions")),
    "cession": (("province", "from", "to"), ()),
    "renunciation": (("character", "crown"), ()),
    "children_raised_by": (("dynasty",), ()),
    "husband_joins_wife": ((), ()),
    "dowry": (("payer", "payee"), ("amount", "province")),
    "escape": (("condition",), ()),
    "damages": (("amount",), ()),
}

CLAUSE_LABELS = {
    "payment": "one-off payment",
    "recurring_payment": "recurring payment",
    "trade_item": "trade item delivery",
    "non_aggression": "non-aggression",
    "safe_passage": "safe passage",
    "military_support": "military support",
    "cession": "cession of a province",
    "renunciation": "renunciation of a claim",
    "children_raised_by": "who raises the children",
    "husband_joins_wife": "the husband joins the wife's dynasty",
    "dowry": "dowry",
    "escape": "escape clause",
    "damages": "damages for breach",
}


class ClauseError(RuleError):
    code = "invalid_clause"


def _whole(value: Any, what: str, *, minimum: int, error: type[RuleError] = ClauseError) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise error(f"{what} must be a whole number of at least {minimum}, not {value!r}.")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ClauseError(f"{what} must be written out (A6: terms must be precise).")
    return value.strip()


def _party(value: Any, what: str, parties: Collection[int]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClauseError(f"{what} must be a dynasty id, not {value!r}.")
    if value not in parties:
        raise ClauseError(f"{what} (dynasty #{value}) is not a party to the contract.")
    return value


def _turns(value: Any, what: str) -> int | None:
    if value is None or value == OPEN:
        return None
    return _whole(value, what, minimum=1)


def validate_clause(kind: str, params: Mapping[str, Any] | None, *, parties: Collection[int], label: str = "") -> dict[str, Any]:
    """Check a clause's parameters against its kind; return them cleaned. ``parties`` are the
    contract's dynasty ids (payers, payees, givers and receivers must be among them)."""
    if kind not in CLAUSE_TERMS:
        raise ClauseError(f"Unknown kind of clause {kind!r}; one of: {', '.join(CLAUSE_TERMS)}.")
    name = label or f"The {CLAUSE_LABELS[kind]} clause"
    params = dict(params or {})
    required, optional = CLAUSE_TERMS[kind]
    unknown = sorted(set(params) - set(required) - set(optional))
    if unknown:
        raise ClauseError(
            f"{name}: unknown term(s) {', '.join(unknown)}; it takes " + (", ".join(required + optional) or "no terms") + "."
        )
    missing = [k for k in required if k not in params]
    if kind == "recurring_payment" or kind == "trade_item":
        missing = [k for k in missing if k != "turns"]  # omitted: open-ended
    if missing:
        raise ClauseError(f"{name} needs {', '.join(missing)} (A6: terms must be precise).")
    out: dict[str, Any] = {}
    if kind in ("payment", "recurring_payment"):
        out["payer"] = _party(params["payer"], f"{name}: the payer", parties)
        out["payee"] = _party(params["payee"], f"{name}: the payee", parties)
        if out["payer"] == out["payee"]:
            raise ClauseError(f"{name}: the payer and the payee must be two different houses.")
        out["amount"] = _whole(params["amount"], f"{name}: the amount", minimum=1)
        if kind == "recurring_payment":
            out["from_year"] = _whole(params["from_year"], f"{name}: the first year", minimum=0)
            out["turns"] = _turns(params.get("turns"), f"{name}: the number of turns")
    elif kind == "trade_item":
        out["from"] = _party(params["from"], f"{name}: the giver", parties)
        out["to"] = _party(params["to"], f"{name}: the receiver", parties)
        if out["from"] == out["to"]:
            raise ClauseError(f"{name}: the giver and the receiver must be two different houses.")
        item = params["item"]
        if item not in TRADE_ITEMS:
            raise ClauseError(f"{name}: the item must be one of {', '.join(TRADE_ITEMS)}, not {item!r}.")
        out["item"] = item
        out["turns"] = _turns(params.get("turns"), f"{name}: the number of turns")
    elif kind in ("non_aggression", "safe_passage"):
        if "between" in params:
            between = params["between"]
            if not isinstance(between, list) or len(between) < 2:
                raise ClauseError(f"{name}: 'between' lists at least two houses (or leave it out: all parties).")
            out["between"] = sorted({_party(p, f"{name}: a house", parties) for p in between})
    elif kind == "military_support":
        for role in ("by", "to"):
            if role in params:
                out[role] = _party(params[role], f"{name}: {'the supporter' if role == 'by' else 'the supported'}", parties)
        exclusions = params.get("exclusions", [])
        if not isinstance(exclusions, list) or not all(isinstance(e, str) and e.strip() for e in exclusions):
            raise ClauseError(f"{name}: the exclusions are a list of written exceptions (e.g. 'not against Spain').")
        out["exclusions"] = [e.strip() for e in exclusions]
    elif kind == "cession":
        out["province"] = _text(params["province"], f"{name}: the province")
        out["from"] = _party(params["from"], f"{name}: the giver", parties)
        out["to"] = _party(params["to"], f"{name}: the receiver", parties)
        if out["from"] == out["to"]:
            raise ClauseError(f"{name}: a province is ceded by one house to another.")
    elif kind == "renunciation":
        character = params["character"]
        if isinstance(character, bool) or not isinstance(character, int):
            raise ClauseError(f"{name}: the character must be a character id, not {character!r}.")
        out["character"] = character
        out["crown"] = _text(params["crown"], f"{name}: the crown")
    elif kind == "children_raised_by":
        out["dynasty"] = _party(params["dynasty"], f"{name}: the house", parties)
    elif kind == "dowry":
        out["payer"] = _party(params["payer"], f"{name}: the giver", parties)
        out["payee"] = _party(params["payee"], f"{name}: the receiver", parties)
        if out["payer"] == out["payee"]:
            raise ClauseError(f"{name}: the giver and the receiver must be two different houses.")
        if ("amount" in params) == ("province" in params):
            raise ClauseError(
                f"{name}: a dowry is either an amount of money or a province (BloodLine: 100 ducats or a province)."
            )
        if "amount" in params:
            out["amount"] = _whole(params["amount"], f"{name}: the amount", minimum=1)
        else:
            out["province"] = _text(params["province"], f"{name}: the province")
    elif kind == "escape":
        out["condition"] = _text(params["condition"], f"{name}: the condition")
    elif kind == "damages":
        out["amount"] = _whole(params["amount"], f"{name}: the amount", minimum=1)
    return out


def validate_clauses(kinds: Sequence[str], *, marriage_contract: bool) -> None:
    """Rules across a contract's clauses: marriage-only clauses, and clauses that appear once."""
    for kind in kinds:
        if kind in MARRIAGE_ONLY and not marriage_contract:
            raise ClauseError(f"A {CLAUSE_LABELS[kind]} clause belongs in a marriage contract (A6).")
    for kind in ONCE_ONLY:
        if list(kinds).count(kind) > 1:
            raise ClauseError(f"A contract has one {CLAUSE_LABELS[kind]} clause at most; merge them.")


def instalment_due(params: Mapping[str, Any], year: int, paid_turns: int) -> bool:
    """Is a recurring payment (or delivery) due in ``year``, with ``paid_turns`` already due before?"""
    if year < int(params.get("from_year", year)):
        return False
    turns = params.get("turns")
    return turns is None or paid_turns < int(turns)


def term_expired(in_force_year: int | None, term_years: int | None, year: int) -> bool:
    """A fixed term of N years from coming into force ends at the first turn on or after its end."""
    return in_force_year is not None and term_years is not None and year >= in_force_year + term_years


# BloodLine: the other players' majority ruling ---------------------------------------------------


@dataclass(frozen=True)
class TermRuling:
    clause: int
    upheld_by: int
    rejected_by: int
    upheld: bool


def majority_ruling(
    votes: Mapping[int, Mapping[int, bool]], *, voters: Collection[int], disputing: Collection[int], terms: Collection[int]
) -> list[TermRuling]:
    """BloodLine (Marriage/Betrothal): disputes are ruled by a majority of the other players. A term
    is upheld when more than half of the other players uphold it (a silent player upholds nothing);
    the rest are ignored. ``voters`` are the players entitled to rule."""
    for dynasty in votes:
        if dynasty in disputing:
            raise RuleError(
                f"Dynasty #{dynasty} is a party to the dispute: disputes are ruled by a majority of the other players "
                "(BloodLine, Marriage/Betrothal).",
                code="not_a_voter",
            )
        if dynasty not in voters:
            raise RuleError(
                f"Dynasty #{dynasty} is not one of the other players who rule on the dispute (BloodLine, Marriage/Betrothal).",
                code="not_a_voter",
            )
    if not voters:
        raise RuleError(
            "There are no other players to rule on the dispute (BloodLine: a majority of the other players).",
            code="no_voters",
        )
    if not terms:
        raise RuleError("Say which terms are disputed: each player votes on each disputed term.", code="invalid")
    out: list[TermRuling] = []
    for clause in terms:
        upheld_by = 0
        rejected_by = 0
        for dynasty in voters:
            vote = votes.get(dynasty, {}).get(clause)
            if vote is None:
                continue
            if not isinstance(vote, bool):
                raise RuleError(f"A vote on a term is true (uphold) or false (reject), not {vote!r}.", code="invalid")
            if vote:
                upheld_by += 1
            else:
                rejected_by += 1
        out.append(TermRuling(clause, upheld_by, rejected_by, upheld_by * 2 > len(voters)))
    return out


# The medieval parley ------------------------------------------------------------------------------


@dataclass(frozen=True)
class VoteIn:
    dynasty: int
    stature: int
    church_cards: int = 0
    christian: bool = True
    choice: str = "abstain"  # "for" (the caller's motion), "against" or "abstain"
    excommunicated: bool = False
    seat: int = 0


@dataclass(frozen=True)
class VoteCast:
    dynasty: int
    votes: int
    choice: str
    position: int | None  # None: may not vote
    excluded: str = ""


@dataclass(frozen=True)
class ParleyResult:
    order: tuple[VoteCast, ...]  # voters in the order they cast, then the players who may not vote
    votes_for: int
    votes_against: int

    @property
    def carried(self) -> bool:
        """The caller's motion carries on a tie (20.41-20.45)."""
        return self.votes_for >= self.votes_against

    @property
    def tie(self) -> bool:
        return self.votes_for == self.votes_against


CHOICES = {"for": "for", "against": "against", "abstain": "abstain", True: "for", False: "against", None: "abstain"}


def parse_choice(value: Any) -> str:
    try:
        return CHOICES[value]
    except (KeyError, TypeError):
        raise RuleError(
            f"A parley vote is 'for' the caller's motion, 'against' it or 'abstain', not {value!r}.", code="invalid"
        ) from None


def vote_weight(stature: int, church_cards: int) -> int:
    """A player's block: his leader's diplomatic stature, +5 per church influence card (20.4, 20.51)."""
    stature = _whole(stature, "A leader's diplomatic stature", minimum=0, error=RuleError)
    return stature + CHURCH_CARD_VOTES * _whole(church_cards, "The number of church influence cards", minimum=0, error=RuleError)


def parley_tally(votes: Iterable[VoteIn], *, readmission_of: int | None = None) -> ParleyResult:
    """Count a parley: who may vote, in which order they cast (most votes first; equal blocks in
    seat order round the table), and the totals."""
    voting: list[tuple[VoteIn, int]] = []
    barred: list[VoteCast] = []
    seen: set[int] = set()
    for v in votes:
        if v.dynasty in seen:
            raise RuleError(f"Dynasty #{v.dynasty} is listed twice: each player casts one block (20.4).", code="invalid")
        seen.add(v.dynasty)
        weight = vote_weight(v.stature, v.church_cards)
        choice = parse_choice(v.choice)
        if not v.christian:
            barred.append(VoteCast(v.dynasty, 0, choice, None, "the leader is not Christian (20.4)"))
        elif v.excommunicated and v.dynasty != readmission_of:
            barred.append(VoteCast(v.dynasty, 0, choice, None, "excommunicated: votes only on his own readmission (22.12)"))
        else:
            voting.append((v, weight))
    voting.sort(key=lambda pair: (-pair[1], pair[0].seat, pair[0].dynasty))
    cast = tuple(VoteCast(v.dynasty, w, parse_choice(v.choice), n) for n, (v, w) in enumerate(voting, 1))
    votes_for = sum(c.votes for c in cast if c.choice == "for")
    votes_against = sum(c.votes for c in cast if c.choice == "against")
    return ParleyResult(cast + tuple(barred), votes_for, votes_against)


# What a parley's decision makes due (20.41-20.43), and claims to areas (20.1, 20.42, 21) -----------

AREA_MAX = 100

CONTESTS = ("conquest", "inheritance")
"""The parleys that decide an area's rightful owner (20.41, 20.43)."""


def area_name(text: Any) -> tuple[str, str]:
    """An area as the table names it: the name with its spaces tidied, and the key two spellings of
    one area share (case and spacing ignored)."""
    if not isinstance(text, str) or not text.strip():
        raise RuleError("Name the area (as the board names it).", code="invalid", fields={"area": "required"})
    name = " ".join(text.split())
    if len(name) > AREA_MAX:
        raise RuleError(
            f"An area's name is at most {AREA_MAX} characters, not {len(name)}.", code="invalid", fields={"area": "too long"}
        )
    return name, name.casefold()


def claim_obtained(carried: bool) -> bool:
    """20.42: "Agreement, or a tie, means the player obtains the claim" (a tie carries the motion)."""
    return carried


def may_call_claim_parley(calls_this_round: int) -> bool:
    """20.42: a player may call a parley for a claim "once per round" (a round is a turn here)."""
    return calls_this_round == 0


@dataclass(frozen=True)
class Obliged:
    """What a contest's decision makes due: who must hand the area to whom, in which words."""

    loser: str  # "caller" or "opponent"
    action: str  # "return" (a conquest's area handed back) or "relinquish" (an inheritance given up)


def contest_obligation(kind: str, carried: bool) -> Obliged | None:
    """The decision of a parley that contests a diplomatic conquest (20.41) or a dynastic inheritance
    (20.43), the caller's motion being that he is the rightful owner (a tie carries it: "the player
    who called the parley retains control of the area"). The loser must give the area to the
    winner or be excommunicated (22.1); only who holds the area when the parley sits differs (ruling,
    docs/rulings.md): a conquest has already taken it, so a caller who prevails is owed its return;
    an inheritance card is only attempted, so a caller who loses must relinquish it. Nothing is due
    when the winner holds the area already."""
    if kind not in CONTESTS:
        return None
    if kind == "conquest":
        return Obliged("opponent", "return") if carried else None
    return None if carried else Obliged("caller", "relinquish")


def obligation_overdue(due_year: int, current_year: int) -> bool:
    """A parley's decision is complied with by the end of the turn it was held in (ruling): at the
    next turn's advance an obligation still open is flouted (22.1)."""
    return current_year > due_year
