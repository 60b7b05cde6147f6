"""The export format, declared once: one ``Section`` per model, one ``Field`` per JSON key.

The spec drives the export (``export.py``) and the field tables of docs/export-format.md
(``doc.py``). A field is a column copied as it is, a reference to another section (its export
id), or a special case a small named function handles (``special.py``). Versions: a field or
section with ``since=V2`` is absent from ``regnal/1`` documents and takes its default there;
one with ``since=LATER`` or ``since=V3`` (added to ``regnal/2`` later, or by ``regnal/3``) is
optional in every document and takes its default when absent; any other field with a default
is optional in every document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import models

from campaign.models import STEP_ORDER, Audience, Campaign, ChronicleEntry, DiceEntry, Roll, RollSource
from contracts.models import (
    Breach,
    Claim,
    ClaimEnd,
    ClaimHow,
    Clause,
    ClauseKind,
    Contract,
    ContractKind,
    ContractPayment,
    ContractSignature,
    ContractState,
    Dispute,
    DisputeTerm,
    DisputeVote,
    EndKind,
    Excommunication,
    Obligation,
    ObligationState,
    Parley,
    ParleyKind,
    ParleyVote,
    PaymentStatus,
    VoteChoice,
)
from dynasties.models import (
    PIECES,
    BirthAttempt,
    Character,
    ControlChange,
    Crown,
    CrownEvent,
    CrownEventKind,
    Dynasty,
    DynastyKind,
    Marriage,
    MarriageOffer,
    Modifier,
    ModifierKind,
    Note,
    NoteAudience,
    OfferStatus,
    Origin,
    PassedOver,
    PassOverKind,
    Posting,
    PostingKind,
    Province,
    Reign,
    Renunciation,
    ResourceKind,
    RollSubject,
    Sex,
    Status,
    Title,
    TitleHolding,
)
from dynasties.notes import MAX_LENGTH as NOTE_MAX_LENGTH
from operations.exchange import checks, special

FORMAT = "regnal/3"
FORMAT_V2 = "regnal/2"
FORMAT_V1 = "regnal/1"
FORMATS = (FORMAT, FORMAT_V2, FORMAT_V1)
V2, LATER, V3 = "regnal/2", "regnal/2 later", "regnal/3"
SMALL_MAX = 32767


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Position:
    """A default that is the object's position in its list, counted from ``start``."""

    start: int


@dataclass(frozen=True)
class Field:
    """One key of an exported object.

    ``kind``: ``int``, ``text``, ``bool``, ``choice``, ``object`` (a JSON object copied as it is),
    ``json`` (any JSON value), ``ref`` (an export id in section ``ref``, or null when ``null``),
    ``refs`` (a list of them), ``objects`` (a list of objects read from ``rows``).
    ``column`` is the model field read (default: the key, or ``key_id`` for a reference);
    ``export`` a special function ``(value, numberings) -> value`` used instead of the kind's.
    """

    key: str
    kind: str
    column: str = ""
    ref: str = ""
    null: bool = False
    blank: bool = True
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    since: str = ""
    default: Any = REQUIRED
    note: str = ""
    export: Callable[[Any, special.Numberings], Any] | None = None
    rows: Rows | None = None
    read: Callable[..., Any] | None = None  # a special reader (checks.py) instead of the kind's
    late: bool = False  # read after the row's own fields are checked (it needs them)
    load: Callable[[Any, special.Numberings, dict[str, Any]], Any] | None = None  # to the column, on import
    kept: Callable[[str, list[dict[str, Any]], list[models.Model], special.Numberings], None] | None = None
    """A value another app keeps in its own table (``column``: the lookup to it, read by the export):
    on import, written by this ``(key, rows, their new objects, numberings)`` once the rows exist."""

    @property
    def source(self) -> str:
        if self.column:
            return self.column
        return f"{self.key}_id" if self.kind == "ref" else self.key


@dataclass(frozen=True)
class Rows:
    """The objects (or, with one field and ``flat``, the ids) listed under a field, read from a
    child table in one query: ``parent`` is its column pointing to the section's row."""

    model: type[models.Model]
    parent: str
    scope: str
    order_by: tuple[str, ...]
    fields: tuple[Field, ...]
    owner: str  # names the parent in an export refusal: formatted with ``parent``
    flat: bool = False
    check: Callable[..., None] | None = None  # (item, row, the rows before it) on import
    position: str = ""  # the column holding each one's position in the list


@dataclass(frozen=True)
class Section:
    """One list of the document: the rows of ``model`` in the campaign (reached by ``scope``), in
    ``order_by`` order, numbered 1..n. ``numbered``: each carries its export ``id``."""

    name: str
    model: type[models.Model]
    fields: tuple[Field, ...]
    owner: str  # names a row in an export refusal: formatted with ``pk``
    numbered: bool = True
    scope: str = "campaign"
    order_by: tuple[str, ...] = ("pk",)
    since: str = ""
    note: str = ""
    layout: Callable[[list[dict[str, Any]], list[dict[str, Any]]], Any] | None = None
    extra: tuple[str, ...] = ()  # columns the layout needs besides the fields'
    derived: tuple[str, ...] = ()  # columns not in the document: the import puts in the row what a reader made
    check: Callable[..., None] | None = None  # (item, row, index, reading): a row's checks on import
    finish: Callable[..., None] | None = None  # (items, rows, reading): checks once every row is read
    absent: Callable[..., list[dict[str, Any]]] | None = None  # the rows a regnal/1 document gets

    @property
    def optional(self) -> bool:
        """Optional in every document (a regnal/1 one also lacks the sections since regnal/2)."""
        return self.since in (LATER, V3)

    def field(self, key: str) -> Field:
        return next(f for f in self.fields if f.key == key)


def i(key: str, **kw: Any) -> Field:
    return Field(key, "int", **kw)


def year(key: str, *, null: bool = False, **kw: Any) -> Field:
    return Field(key, "int", null=null, **kw)


def text(key: str, **kw: Any) -> Field:
    return Field(key, "text", **kw)


def choice(key: str, choices: Any, **kw: Any) -> Field:
    return Field(key, "choice", choices=tuple(choices), **kw)


def ref(key: str, section: str, *, null: bool = True, **kw: Any) -> Field:
    return Field(key, "ref", ref=section, null=null, **kw)


def flag(key: str, **kw: Any) -> Field:
    return Field(key, "bool", **kw)


ID = i("id", note="export id, 1..n")

CAMPAIGN = Section(
    "campaign",
    Campaign,
    (
        text("name", blank=False),
        text("slug", blank=False, note="a slug; the import takes a free one"),
        text("ruleset", blank=False, note="a ruleset the site has implemented, e.g. `blood-royale`, `eu-bloodline`"),
        year("start_year"),
        year("current_year", note="not before `start_year`"),
        i("turn_length", low=1, high=SMALL_MAX),
        choice("step", (s.value for s in STEP_ORDER), default=STEP_ORDER[0].value),
        flag("allow_overdraft", since=LATER, default=False, note="gifts and loans may take an exchequer below zero"),
        choice(
            "dice_entry",
            DiceEntry.values,
            since=LATER,
            default=DiceEntry.FACES.value,
            note="how typed dice are entered: `faces`, `totals` or `player` (each player's choice)",
        ),
        flag("auto_pass_certain", since=LATER, default=False, note="survival rolls that cannot fail are passed, not rolled"),
        Field("optional_rules", "object", note="name → bool, checked by the ruleset"),
        year("end_year", null=True, since=LATER, default=None, note="the agreed last turn (the end of the game); null: none"),
        i(
            "money_target",
            null=True,
            low=1,
            high=10**9,
            since=LATER,
            default=None,
            note="Blood Royale's money target; null: none",
        ),
        year(
            "ended_year",
            null=True,
            since=LATER,
            default=None,
            note="the year the game ended in (its `current_year`); null: it goes on",
        ),
        choice(
            "ended_reason",
            ("", "agreed", "target", "agreement"),
            since=LATER,
            default="",
            note='why it ended: the agreed last turn, the money target, or by agreement; `""` while it goes on',
        ),
        Field("tables", "object", note="key → table data; every table of the ruleset, each checked as the admin checks it"),
    ),
    owner="The campaign",
    check=checks.check_campaign,
    numbered=False,
    scope="",
)

DYNASTIES = Section(
    "dynasties",
    Dynasty,
    (
        ID,
        text("name", blank=False, note="unique"),
        text("crown", note='`""` for none; unique'),
        choice("kind", DynastyKind.values),
        text("color", default="#888888", note="`#rrggbb`", read=checks.color),
        i("seat", low=0, high=SMALL_MAX, since=V2, default=Position(0), note="order round the table"),
    ),
    owner="Dynasty #{pk}",
    check=checks.check_dynasty,
)

CROWNS = Section(
    "crowns",
    Crown,
    (
        ID,
        text("name", blank=False, note="unique"),
        ref("home_dynasty", "dynasties"),
        ref("controlled_by", "dynasties", note="differs from `home_dynasty` while annexed"),
        ref("union_with", "crowns", note="not itself: a Dynastic Union"),
        year("union_since", null=True),
        i("stability", note="on the track, -3..+3 (an older document's level is brought back to it)", read=checks.stability),
        Field(
            "state",
            "object",
            since=LATER,
            default={},
            note="ruleset-specific per-crown state, e.g. EU monarchs' base column, fragile health, crisis turns; copied as it is",
        ),
        Field(
            "numerals",
            "object",
            since=LATER,
            default={},
            note='numerals of the last pre-campaign monarch of each name, e.g. `{"Edward": 2}`: the next Edward is III',
        ),
    ),
    owner="Crown #{pk}",
    check=checks.check_crown,
    absent=checks.crowns_of_v1,
    since=V2,
    note="`regnal/1` has none: it gets one crown per player dynasty with a `crown`, its `home_dynasty` and `controlled_by` "
    "that dynasty (no union, stability 0)",
)

CROWN_EVENTS = Section(
    "crown_events",
    CrownEvent,
    (
        ref("crown", "crowns", null=False),
        year("year"),
        choice("kind", CrownEventKind.values),
        i("delta", note="Stability levels gained or lost; for a revolt, the number of revolts"),
        i("stability_after", note="the crown's Stability after it", read=checks.stability),
        text("reason", blank=False),
        text(
            "cause",
            since=V3,
            default="",
            note="a code: `minor_monarch`, `pass_over`, `disputed_line`, `union`, `union_ends`, `dynastic_crisis`, `ransom`,"
            " `turkish_survival`, `title_claim`, `claim_given_up`, `table` - entered by the GM; the board's causes the GM"
            " records (rules/crowns.py): `war_lost`, `bankruptcy`, `peace`, `enhance_stability`, `levies`; `track` - an"
            " older version's level beyond -3..+3 brought back to the track",
        ),
        ref(
            "reign",
            "reigns",
            since=V3,
            default=None,
            note="the reign the change belongs to: the minor's, the disputed succession's, the union Queen's, the crisis "
            "monarch's, the crown's reign at the time",
        ),
    ),
    owner="Crown event #{pk}",
    numbered=False,
    since=LATER,
    note="BloodLine's Stability history, in creation order",
)

CHARACTERS = Section(
    "characters",
    Character,
    (
        ID,
        text("given_name", blank=False),
        choice("sex", Sex.values),
        year("birth_year"),
        i("birth_order", low=1, high=SMALL_MAX),
        ref("father", "characters", note="no one is their own ancestor"),
        ref("mother", "characters"),
        text("dynastic_name", blank=False),
        ref("birth_dynasty", "dynasties"),
        ref("controlled_by", "dynasties"),
        Field("characteristics", "object", note="name → whole number within -1000..1000"),
        choice("status", Status.values),
        year("death_year", null=True, note="set iff dead, not before `birth_year`"),
        text("death_cause"),
        year("retired_year", null=True, default=None),
        ref("prisoner_of", "dynasties"),
        choice("prince_piece", PIECES, default=""),
        choice("origin", Origin.values, default=Origin.BORN.value),
        i(
            "effective_age_offset",
            since=LATER,
            default=0,
            note="BloodLine: effective age minus real age, from ill health, good health and extra birth attempts; may be "
            "negative",
        ),
        flag("legitimate", since=V2, default=True, note="`false`: a bastard"),
        ref("pretender_of", "dynasties", since=V2, default=None),
        flag(
            "held_by_neutrals",
            since=LATER,
            default=False,
            note="a prisoner of the neutrals (a country no player controls); never with `prisoner_of`",
        ),
    ),
    owner="Character #{pk}",
    check=checks.check_character,
    finish=checks.check_ancestry,
)

CONTROL_CHANGES = Section(
    "control_changes",
    ControlChange,
    (
        year("year"),
        text("step"),
        ref("character", "characters", note="exactly one of `character` and `crown`"),
        ref("crown", "crowns"),
        ref("from_dynasty", "dynasties"),
        ref("to_dynasty", "dynasties", note="not `from_dynasty`"),
        text(
            "cause",
            blank=False,
            note="`wedding`, `widow_returns`, `succession`, `union`, `union_ends`, `passed_over`, `left_house`, `pretender`,"
            " `auction`, `house_restored`",
        ),
    ),
    owner="Control change #{pk}",
    check=checks.check_control_change,
    numbered=False,
    since=V3,
    note="who controlled each character and crown over time, one row per change of `controlled_by`, in creation order; the "
    "first controller is the first change's `from_dynasty` (with no change, the present one)",
)

MARRIAGES = Section(
    "marriages",
    Marriage,
    (
        ID,
        ref("husband", "characters", null=False),
        ref("wife", "characters", null=False, note="not the husband"),
        year("arranged_year"),
        year("wedding_year", null=True, note="null: a betrothal"),
        year("ended_year", null=True),
        text("end_cause", note="required once ended"),
        flag("husband_joins_wife"),
        text("dowry", since=LATER, default="", note='BloodLine: e.g. `"100 ducats"` or `"province: <name>"`'),
        Field(
            "dowry_readers",
            "refs",
            read=checks.readers,
            load=special.load_readers,
            ref="dynasties",
            column="money_readers",
            default=[],
            export=special.readers,
            note="the dynasties who may read the dowry; `[]`: the GM alone",
        ),
        text("alliance_title", since=LATER, default="", note="BloodLine: the title given to the giving dynasty"),
        ref("children_raised_by", "dynasties", default=None),
    ),
    owner="Marriage #{pk}",
    check=checks.check_marriage,
)

REIGNS = Section(
    "reigns",
    Reign,
    (
        Field("id", "int", low=1, since=V3, default=Position(1), note="export id"),
        text("crown", blank=False, note="a crown's name"),
        ref("holder", "characters", null=False),
        year("start_year"),
        year("end_year", null=True),
        ref("regent", "characters", note="not the holder"),
        year("regency_end_year", null=True, default=None),
        year("planned_end_year", null=True, since=LATER, default=None, note="EU monarchs: the year the rolled reign length ends"),
        Field(
            "numeral",
            "int",
            null=True,
            low=1,
            high=SMALL_MAX,
            since=LATER,
            default=None,
            note="the holder's regnal number in this crown (3: Edward III), written at the crowning; null: not numbered",
        ),
        ref(
            "interim_for",
            "characters",
            since=LATER,
            default=None,
            note="BloodLine: the imprisoned heir, for whom the holder reigns in the interim",
        ),
        Field(
            "passed_over",
            "objects",
            rows=Rows(
                PassedOver,
                parent="reign_id",
                scope="reign__campaign",
                order_by=("pk",),
                fields=(ref("character", "characters", null=False, note="at most once per reign"), text("reason")),
                owner="A passed-over heir",
                check=checks.check_passed_over,
            ),
        ),
    ),
    owner="Reign #{pk}",
    check=checks.check_reign,
)

MODIFIERS = Section(
    "modifiers",
    Modifier,
    (
        choice("kind", ModifierKind.values),
        i("value"),
        text("crown", note='a crown\'s name, may be `""`'),
        ref("dynasty", "dynasties"),
        ref("against", "dynasties"),
        ref("character", "characters"),
        ref("claimant", "characters"),
        text("reason", blank=False),
        year("start_year"),
        year("end_year", null=True, note="null: active"),
        text("end_reason"),
        choice(
            "pass_over",
            ("", *PassOverKind.values),
            since=V3,
            default="",
            note="BloodLine's combat malus: how its claimant was passed over (`married_away` freezes the line); "
            "a document without it reads it from the reason's end, `(married away)` and the like",
        ),
    ),
    owner="Modifier #{pk}",
    check=checks.check_modifier,
    numbered=False,
    since=V2,
)

RENUNCIATIONS = Section(
    "renunciations",
    Renunciation,
    (
        ref("character", "characters", null=False),
        text("crown", blank=False, note="a crown's name; renounced at most once by a character"),
        year("year"),
        text("source"),
    ),
    owner="A renunciation",
    check=checks.check_renunciation,
    numbered=False,
    since=V2,
)

TITLES = Section(
    "titles",
    Title,
    (
        ID,
        text("name", blank=False),
        text("province", blank=False, note="one title per province"),
        text("crown", blank=False, note="a crown's name"),
        ref("holder", "characters"),
        year("granted_year"),
        ref("granted_to", "characters", null=False),
        ref("granted_by", "dynasties", since=LATER, default=None, note="BloodLine: the dynasty that gave it"),
        Field(
            "provinces",
            "json",
            read=checks.provinces,
            load=special.load_provinces,
            since=LATER,
            default=[],
            export=special.provinces,
            note="BloodLine: a list of `{name, value, controller}`, `controller` a dynasty id or null, other keys copied",
        ),
    ),
    owner="Title #{pk}",
    check=checks.check_title,
    since=V2,
)

TITLE_HOLDINGS = Section(
    "title_holdings",
    TitleHolding,
    (
        ref("title", "titles", null=False),
        ref("holder", "characters", null=False),
        year("start_year"),
        year("end_year", null=True, note="null: held now"),
        text("how", blank=False),
        flag("disputed"),
    ),
    owner="Title holding #{pk}",
    check=checks.check_holding,
    numbered=False,
    scope="title__campaign",
    since=V2,
)

PROVINCES = Section(
    "provinces",
    Province,
    (
        text("name", blank=False, note="unique in the campaign"),
        text("country", note="the crown it belongs to in the Basic Game; blank: none"),
        ref("controlled_by", "dynasties", note="null: no player (neutral under rule F, or a country nobody plays)"),
        flag("neutral", note="a Neutral Province (optional rule F); never with `controlled_by`"),
        flag("original_capital", note="its country's capital at the start"),
        text("capital_of", note="the crown whose Capital Marker stands here now; blank: none"),
        flag("castle", note="the capital's castle stands"),
        choice("resource", ResourceKind.values, note="its Resource Area; blank: none"),
        year("famine_year", null=True, note="the year a Famine marker was placed; null: none"),
        year("rebellion_year", null=True, note="the year a Rebellion marker was placed; null: none"),
    ),
    owner="Province #{pk}",
    numbered=False,
    order_by=("name", "pk"),
    absent=checks.provinces_of_v1,
    since=LATER,
    note="Blood Royale's province register as it stands (control, capitals, Resource Areas, Famine and Rebellion markers)",
)

BIRTH_ATTEMPTS = Section(
    "birth_attempts",
    BirthAttempt,
    (
        ref("marriage", "marriages", null=False),
        year("year"),
        i("attempt", low=1, high=3),
        flag("success"),
        year("child_birth_year", null=True),
        ref("child", "characters", note="only on success"),
        ref("roll", "rolls"),
    ),
    owner="A birth attempt",
    check=checks.check_attempt,
    numbered=False,
)

ROLLS = Section(
    "rolls",
    Roll,
    (
        ID,
        year("year"),
        text("step"),
        text("purpose", blank=False),
        text("detail"),
        Field(
            "characters",
            "refs",
            read=checks.subjects,
            late=True,
            ref="characters",
            note="in order, each at most once",
            rows=Rows(
                RollSubject,
                parent="roll_id",
                scope="roll__campaign",
                order_by=("roll_id", "position", "pk"),
                fields=(ref("character", "characters"),),
                owner="Roll #{parent}",
                flat=True,
                position="position",
            ),
        ),
        text("dice", blank=False, note='e.g. `"2d6"`'),
        Field("faces", "json", note="the dice's faces, checked against `dice`"),
        i("modifier", note="added to the faces' sum"),
        i("target", null=True),
        text("outcome"),
        choice("source", RollSource.values),
        i(
            "effective_age",
            null=True,
            low=0,
            since=V3,
            default=None,
            note="BloodLine: the effective age the roll was read at - the subject's on a survival roll, the wife's on a "
            "birth roll",
        ),
        Field(
            "values_used",
            "object",
            since=V3,
            default={},
            note="EU monarchs: the monarch's `adm`, `dip`, `mil` as used that turn, after the Dynastic Crisis's halving and "
            "the minority penalty - on each turn's `monarch_survival` roll and, for the accession turn, the "
            "`monarch_reign` roll; whole numbers within -1000..1000",
        ),
        ref(
            "corrects",
            "rolls",
            since=LATER,
            default=None,
            note="the roll this one corrects: the GM changed its faces, the wrong roll stays in the log before it",
        ),
    ),
    owner="Roll #{pk}",
    check=checks.check_roll,
)

CHRONICLE = Section(
    "chronicle",
    ChronicleEntry,
    (
        text("step"),
        text("kind", blank=False),
        text("text"),
        Field(
            "data",
            "object",
            read=checks.entry_data,
            load=special.load_entry_data,
            export=special.entry_data,
            note="the ids under the reference keys (below) are export ids, the rest copied",
        ),
        choice(
            "audience",
            Audience.values,
            default=special.LEGACY,
            note="`parties`: the dynasties in `readers` and the GM",
            read=checks.audience,
        ),
        Field(
            "readers",
            "refs",
            read=checks.line_readers,
            load=special.load_line_readers,
            ref="dynasties",
            default=[],
            export=special.readers,
            note="at least one when the audience is `parties`",
        ),
    ),
    owner="A chronicle entry",
    numbered=False,
    order_by=("year", "pk"),
    note="a list of `{year, entries}` in increasing year; these are the fields of an entry",
    layout=special.by_year,
    extra=("year",),
)

POSTINGS = Section(
    "postings",
    Posting,
    (
        ID,
        year("year"),
        text("step"),
        ref("payer", "dynasties", note="null: the Treasury"),
        ref("payee", "dynasties", note="null: the Treasury; not both null, not the payer"),
        i("amount", low=1),
        choice("kind", PostingKind.values),
        text("reason"),
        ref("marriage", "marriages"),
        ref("character", "characters"),
        ref("contract", "contracts", column="contract_link__contract", kept=special.write_posting_contracts),
        ref("reverses", "postings", note="the posting a `correction` undoes"),
    ),
    owner="Posting #{pk}",
    check=checks.check_posting,
    finish=checks.check_reversals,
    since=LATER,
    note="the ledger, in creation order; see *The ledger adds up*",
)

_SIGNATURES = Rows(
    ContractSignature,
    parent="contract_id",
    scope="contract__campaign",
    order_by=("contract_id", "pk"),
    fields=(ref("dynasty", "dynasties", null=False, note="a party, at most once"), year("year")),
    owner="A signature of contract #{parent}",
)

CONTRACTS = Section(
    "contracts",
    Contract,
    (
        ID,
        choice("kind", ContractKind.values),
        text("title", blank=False),
        Field(
            "parties",
            "refs",
            read=checks.dynasty_list,
            ref="dynasties",
            rows=Rows(
                Contract.parties.through,
                parent="contract_id",
                scope="contract__campaign",
                order_by=("contract_id", "dynasty_id"),
                fields=(ref("dynasty", "dynasties"),),
                owner="Contract #{parent}",
                flat=True,
            ),
        ),
        Field(
            "signatures",
            "objects",
            read=checks.signatures,
            late=True,
            default=special.SIGNED_BY_ALL,
            rows=_SIGNATURES,
            note="in the order the parties signed; all signed iff `signed_year` is set",
        ),
        ref("marriage", "marriages"),
        year("start_year"),
        i("term_years", null=True, low=0, note="null: open-ended"),
        choice("state", ContractState.values),
        year("signed_year", null=True),
        year("in_force_year", null=True),
        year("ended_year", null=True, note="set iff ended"),
        choice("end_kind", ["", *EndKind.values]),
        text("end_reason"),
        text("text"),
    ),
    owner="Contract #{pk}",
    check=checks.check_contract,
    since=LATER,
)

CLAUSES = Section(
    "clauses",
    Clause,
    (
        ID,
        ref("contract", "contracts", null=False),
        i("position", low=0, high=SMALL_MAX),
        choice("kind", ClauseKind.values),
        Field(
            "params",
            "object",
            load=special.load_clause_params,
            export=special.clause_params,
            note="the terms the kind takes, checked as a draft checks them - required terms present, amounts at least 1, "
            "payer and payee two parties of the contract; the dynasty ids under `payer`, `payee`, `from`, `to`, `by`, "
            "`dynasty`, the list under `between` and the character id under `character` are export ids, the rest copied",
        ),
        text("text"),
    ),
    owner="Clause #{pk}",
    check=checks.check_clause,
    finish=checks.check_contract_clauses,
    note="a contract's clauses obey the rules across clauses (marriage-only clauses in a marriage contract, at "
    "most one of each once-only kind)",
    scope="contract__campaign",
    since=LATER,
)

CONTRACT_PAYMENTS = Section(
    "contract_payments",
    ContractPayment,
    (
        ID,
        ref("contract", "contracts", null=False),
        ref("clause", "clauses"),
        ref("breach", "breaches"),
        year("year"),
        ref("payer", "dynasties", null=False),
        ref("payee", "dynasties", null=False, note="not the payer"),
        i("amount", low=1),
        choice("status", PaymentStatus.values),
        ref("posting", "postings", note="set iff paid"),
        year("settled_year", null=True, note="null unless paid late"),
        text("note"),
    ),
    owner="Contract payment #{pk}",
    check=checks.check_payment,
    since=LATER,
    note="see *The ledger adds up*",
)

BREACHES = Section(
    "breaches",
    Breach,
    (
        ID,
        ref("contract", "contracts", null=False),
        ref("clause", "clauses"),
        ref("by_dynasty", "dynasties", null=False, note="a party of the contract"),
        ref("raised_by", "dynasties", null=False, note="another party of the contract"),
        year("year"),
        text("text"),
        text("resolution"),
        year("resolved_year", null=True),
    ),
    owner="Breach #{pk}",
    check=checks.check_breach,
    since=LATER,
)

DISPUTES = Section(
    "disputes",
    Dispute,
    (
        ID,
        ref("breach", "breaches", null=False, note="one dispute per breach"),
        year("year"),
        Field("voters", "refs", ref="dynasties", export=special.id_list, read=checks.dynasty_list, load=special.load_id_list),
        text("outcome"),
        Field(
            "terms",
            "objects",
            rows=Rows(
                DisputeTerm,
                parent="dispute_id",
                scope="dispute__campaign",
                order_by=("pk",),
                fields=(
                    ref("clause", "clauses", null=False),
                    i("upheld_by", low=0, high=SMALL_MAX),
                    i("rejected_by", low=0, high=SMALL_MAX),
                    flag("upheld"),
                    text("enforcement"),
                ),
                owner="Dispute #{parent}",
                check=checks.check_term,
            ),
        ),
        Field(
            "votes",
            "objects",
            rows=Rows(
                DisputeVote,
                parent="dispute_id",
                scope="dispute__campaign",
                order_by=("pk",),
                fields=(ref("dynasty", "dynasties", null=False), ref("clause", "clauses", null=False), flag("upholds")),
                owner="Dispute #{parent}",
                check=checks.check_dispute_vote,
            ),
        ),
    ),
    owner="Dispute #{pk}",
    check=checks.check_dispute,
    since=LATER,
)

PARLEYS = Section(
    "parleys",
    Parley,
    (
        ID,
        year("year"),
        text("step"),
        choice("kind", ParleyKind.values),
        text("subject"),
        ref("caller", "dynasties", null=False),
        ref("breach", "breaches", note="one parley per breach"),
        ref("excommunication", "excommunications"),
        ref(
            "opponent",
            "dynasties",
            since=V3,
            default=None,
            note="a contested conquest or inheritance: the conqueror, or the player of the Dynastic Inheritance card",
        ),
        text("area", since=V3, default="", note="a claim, conquest or inheritance: the area decided"),
        i("votes_for", low=0),
        i("votes_against", low=0),
        flag("carried"),
        text("outcome"),
        Field(
            "votes",
            "objects",
            rows=Rows(
                ParleyVote,
                parent="parley_id",
                scope="parley__campaign",
                order_by=("pk",),
                fields=(
                    ref("dynasty", "dynasties", null=False),
                    i("stature", low=0, high=SMALL_MAX),
                    i("church_cards", low=0, high=SMALL_MAX),
                    flag("christian"),
                    i("votes", low=0, high=SMALL_MAX),
                    choice("choice", VoteChoice.values),
                    i("position", null=True, low=0, high=SMALL_MAX),
                    text("excluded"),
                ),
                owner="Parley #{parent}",
                check=checks.check_parley_vote,
            ),
        ),
    ),
    owner="Parley #{pk}",
    check=checks.check_parley,
    since=LATER,
)

EXCOMMUNICATIONS = Section(
    "excommunications",
    Excommunication,
    (
        ID,
        ref("dynasty", "dynasties", null=False),
        ref("leader", "characters"),
        ref("breach", "breaches"),
        ref("parley", "parleys"),
        year("start_year"),
        text("reason"),
        year("ended_year", null=True, note="null: in force; one in force per house"),
        text("end_reason"),
    ),
    owner="Excommunication #{pk}",
    check=checks.check_excommunication,
    since=LATER,
)

CLAIMS = Section(
    "claims",
    Claim,
    (
        ID,
        ref("dynasty", "dynasties", null=False),
        text(
            "area",
            blank=False,
            read=checks.claim_area,
            note="as the board names it; two spellings differing in case or spacing are one area",
        ),
        year("since_year"),
        choice("how", ClaimHow.values, note="`parley` (20.42), `exchange` (20.1), `recorded` by the GM"),
        ref("parley", "parleys", note="the claim parley that granted it; one claim per parley"),
        ref("came_from", "claims", note="exchanged: the claim (earlier in the list) the other house gave"),
        year("ended_year", null=True, note="null: held; one held per house and area"),
        choice("end", ("", *ClaimEnd.values), note="`given` or `renounced` when ended, else empty"),
        text("note"),
    ),
    owner="Claim #{pk}",
    check=checks.check_claim,
    since=V3,
    note="the claims register (the medieval game 20.1, 20.42)",
    derived=("area_key",),
)

OBLIGATIONS = Section(
    "obligations",
    Obligation,
    (
        ref("parley", "parleys", null=False, note="one per parley"),
        ref("obliged", "dynasties", null=False),
        ref("owed_to", "dynasties", null=False),
        text("area", blank=False),
        choice("action", ("return", "relinquish")),
        year("due_year"),
        choice("state", ObligationState.values),
        year("resolved_year", null=True, note="null while open"),
        ref("excommunication", "excommunications", note="refused or flouted: the excommunication"),
    ),
    owner="Obligation #{pk}",
    numbered=False,
    check=checks.check_obligation,
    since=V3,
    note="what a contested conquest's or inheritance's decision made due (20.41, 20.43)",
)

MARRIAGE_OFFERS = Section(
    "marriage_offers",
    MarriageOffer,
    (
        year("year"),
        ref("minor_character", "characters", null=False),
        ref("suitor", "characters", null=False),
        i("dowry", low=0),
        flag("with_title"),
        flag("stays_in_minor"),
        Field("factors", "json", note="a list, copied", read=checks.any_list),
        choice("status", OfferStatus.values),
        text("note"),
    ),
    owner="Marriage offer #{pk}",
    numbered=False,
    since=LATER,
    note="BloodLine",
)

NOTES = Section(
    "notes",
    Note,
    (
        ref("character", "characters", note="the character it is about; with no `dynasty` either: the campaign's note"),
        ref("dynasty", "dynasties", note="the dynasty it is about"),
        choice("audience", NoteAudience.values, note="who reads it: everyone, its house's players, the GM"),
        text(
            "text",
            read=checks.note_text,
            note=f"Markdown as written, at most {NOTE_MAX_LENGTH:,} characters; the import renders it again, as "
            "writing a note does, and refuses a note the renderer refuses",
        ),
    ),
    owner="Note #{pk}",
    numbered=False,
    since=V3,
    note="the notes of characters, dynasties and the campaign, GM-only notes too (the export is the GM's); "
    "a note's HTML is not exported",
    derived=("html",),
)

# In the order the export writes them.
SPEC: tuple[Section, ...] = (
    CAMPAIGN,
    DYNASTIES,
    CROWNS,
    CROWN_EVENTS,
    CHARACTERS,
    CONTROL_CHANGES,
    MARRIAGES,
    REIGNS,
    MODIFIERS,
    RENUNCIATIONS,
    TITLES,
    TITLE_HOLDINGS,
    PROVINCES,
    BIRTH_ATTEMPTS,
    ROLLS,
    CHRONICLE,
    POSTINGS,
    CONTRACTS,
    CLAUSES,
    CONTRACT_PAYMENTS,
    BREACHES,
    DISPUTES,
    PARLEYS,
    EXCOMMUNICATIONS,
    CLAIMS,
    OBLIGATIONS,
    MARRIAGE_OFFERS,
    NOTES,
)
BY_NAME = {s.name: s for s in SPEC}
# The order the import reads and writes the sections in: each after those its required references
# point into (the chronicle, whose data points anywhere, last).
ORDER: tuple[str, ...] = (
    "dynasties",
    "crowns",
    "characters",
    "control_changes",
    "marriages",
    "reigns",
    "crown_events",
    "modifiers",
    "renunciations",
    "titles",
    "title_holdings",
    "provinces",
    "rolls",
    "birth_attempts",
    "contracts",
    "clauses",
    "postings",
    "breaches",
    "contract_payments",
    "disputes",
    "parleys",
    "excommunications",
    "claims",
    "obligations",
    "marriage_offers",
    "notes",
    "chronicle",
)
# What older documents lack (tests/test_exchange.py rebuilds them from these).
SECTIONS = tuple(s.name for s in SPEC)
SECTIONS_V2 = tuple(s.name for s in SPEC if s.since == V2)
SECTIONS_LATER = tuple(s.name for s in SPEC if s.optional)
FIELDS_LATER: dict[str, dict[str, Any]] = {
    s.name: fields
    for s in SPEC
    if s is not CAMPAIGN
    and (fields := {f.key: f.default for f in s.fields if f.since in (LATER, V3) and not isinstance(f.default, Position)})
}
CAMPAIGN_FIELDS_LATER = {f.key: f.default for f in CAMPAIGN.fields if f.since in (LATER, V3)}

# Campaign-scoped models (campaign.registry.scoped_models()) exported other than as a section or as
# the objects listed under a section's field, and where.
ELSEWHERE: dict[str, str] = {"campaign.RuleTable": "campaign.tables", "contracts.ContractPosting": "postings.contract"}
# Campaign-scoped models the export leaves out, and why (the registry's exempt models, e.g.
# memberships and the audit trail, are not campaign state and are left out too).
NOT_EXPORTED: dict[str, str] = {
    "dynasties.Portrait": "the images are files in the site's storage, not data of the document: portraits and arms "
    "are uploaded again after an import",
}
