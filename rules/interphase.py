"""Blood Royale's Interphase money for one country, as pure functions (RULES.md A8; rulebook
sections 4 The Sequence of Play, 11 Taxation, 13 Maintaining and Raising, 15 Events: Rebellion,
21 Cashing-In, 22 Ending the Game, and optional rule E: a rebellion in the capital).

``interphase_lines`` takes what the player enters for one dynasty and the cash it holds, checks
every limit, and returns each movement of money (amount, direction, reason) in the order the
ledger posts them: taxes first, then costs in the rulebook's Interphase order (rebellions bought
off, maintenance, raising), and last the capital's rebellion (an Event of the Movement that
follows), which takes half of what is then in hand. ``cash_in_lines`` is the turn's last phase,
"D) CASHING IN RESOURCES", after the Movement: resource sets are not Interphase income, they pay
none of its costs and a rebellion in the capital does not halve them. Nothing here stores anything.

Rulings (where the rulebook leaves a choice):

- Provinces may be given as a number or as a list of names. With names on both sides, a province
  both in famine and in rebellion pays nothing once; with numbers, famine and rebellion are
  counted as different provinces (list a province in both under one of them only).
- Provinces in rebellion pay no tax even when their marker is bought off in the same Interphase:
  markers are removed "after Taxes have been raised".
- The raising cap (section 13) counts the home provinces the country controls, less those still
  in rebellion when forces are raised, i.e. after this Interphase's buy-offs. It is given by
  ``home_in_rebellion``; when it is not given it is worked out from the lists of names if all of
  them are names, otherwise every marker left after the buy-offs is assumed to be in a home
  province (the strictest reading; say otherwise with ``home_in_rebellion``). The cap binds only
  when armies are raised: a country already above it keeps its armies (section 13). It does not
  apply to fleets.
- A rebellion in the capital returns half the cash in hand after every other line of the run,
  rounded down (the odd Crown stays with the dynasty); nothing is returned from an empty or
  overdrawn exchequer. Sets cashed in at the end of the turn come after it and are not halved.
- In the first turn only Taxation, Placing Resources and Raising apply (section 5): no forces to
  maintain and no famine or rebellion markers yet. Resources placed in that Interphase may reach
  the capital in its Movement, so the first turn's cashing-in is open like any other's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.errors import RuleError

# --- the rulebook's amounts and limits --------------------------------------------------------

NORMAL_TAX = 5
HIGH_TAX = 7
TAX_RATES = (NORMAL_TAX, HIGH_TAX)
HIGH_TAX_REBELLION_MODIFIER = -2  # on every Rebellion roll of the turn's Events (section 15)
MAINTENANCE_CROWNS = 2  # per army and per fleet kept on the map
RAISING_CROWNS = 5  # per army or fleet raised
REBELLION_BUY_OFF_CROWNS = 15  # per Rebellion marker removed
BASIC_SET_CROWNS = 50  # metals + cloth + food
SEMI_LUXURY_SET_CROWNS = 80  # ... plus one semi-luxury
LUXURY_SET_CROWNS = 120  # ... plus one semi-luxury and one luxury
MAX_ARMIES = 20  # per country
MAX_FLEETS = 4  # per country
ARMIES_PER_HOME_PROVINCE = 2  # the raising cap
# The counters in the box (Components): no single cashing-in can use more than there are.
BASIC_COUNTERS = 15  # of each of metals, cloth and food
SEMI_LUXURY_COUNTERS = 10
LUXURY_COUNTERS = 5

# --- line kinds: the ledger's PostingKind values ------------------------------------------------

TAX = "tax"
CASH_IN = "cash_in"
REBELLION = "rebellion"
MAINTENANCE = "maintenance"
RAISING = "raising"
KINDS = (TAX, CASH_IN, REBELLION, MAINTENANCE, RAISING)
# the Movement's payments the helper posts with the Interphase (the ledger's kinds)
RANSOM = "ransom"
OTHER = "other"
MOVEMENT_KINDS = (RANSOM, OTHER)
NEUTRAL_RANSOM_CROWNS = 100  # "If they capture a Royal character, Neutrals ransom him for 100 Crowns."
TRADE_DEFENCE_STEP = 15  # optional rule D: -1 on the interception roll for each 15 Crowns the owner pays
TRADE_INTERCEPTION_STEP = 20  # ... +1 for each 20 Crowns the intercepting player pays

IN = "in"  # from the Treasury to the dynasty
OUT = "out"  # from the dynasty to the Treasury

Provinces = int | Sequence[str]

GOVERNED_EXTRA_CROWNS = 2  # optional rule G: a governed province "raises 2 Crowns extra"


class InterphaseError(RuleError):
    """What the player entered breaks a rule; ``fields`` names every entry at fault."""

    code = "invalid_interphase"


@dataclass(frozen=True)
class Governed:
    """Optional rule G: one governed province of the country. As entered: ``province``,
    ``withheld`` and ``present``; the service completes the rest from the province's title.

    ``house``: the governor's house when it is not the country's (a foreign governor keeps the 2
    Crowns extra and may withhold royal tax); None: the King's own dynasty. ``withheld``: the royal
    tax (0 to the rate) a foreign governor refuses the Crown. ``present``: the governor is in the
    province; then ``charisma`` is his Charisma (None: absent), added to the province's taxes for
    the governing player."""

    province: str
    governor: str = ""
    house: int | None = None
    house_name: str = ""
    withheld: int = 0
    charisma: int | None = None
    present: bool = False


@dataclass(frozen=True)
class InterphaseEntry:
    """What the player (or GM) enters for one country's Interphase: the one carrier of the entry,
    from the treasury page's form or the API's request through the service to ``interphase_lines``.

    ``provinces``: the provinces the country controls (a number or a list of names; None: the
    province register's, which the service reads); ``famine``/``rebellion``: those of them with a
    Famine or Rebellion marker (they pay nothing); ``home_provinces``: the home provinces (of the
    original country) it still controls, needed to raise armies; ``home_in_rebellion``: how many of
    those are still in rebellion after the buy-offs (see the module's rulings); ``countries``: more
    than 1 when the player controls several kingdoms (each brings 20 armies and 4 fleets);
    ``armies_on_track``: Army counters lost in combat or plague still on the Year Track after this
    Interphase's recovery (those lost in the previous turn's Movement): they cannot be raised, the
    pool beside the board is the rest. ``governed``: rule G's governed provinces (None: those whose
    titles are held, which the service reads). ``neutral_ransoms``: the royals captured by neutrals
    and ransomed for 100 each, entered as character ids; the service gives the rules their names.

    Lists given are kept as tuples (the frozen entry shares nothing with its caller)."""

    provinces: Provinces | None = None
    tax_rate: int = NORMAL_TAX
    famine: Provinces = 0
    rebellion: Provinces = 0
    home_provinces: Provinces | None = None
    home_in_rebellion: int | None = None
    armies_kept: int = 0
    fleets_kept: int = 0
    armies_raised: int = 0
    fleets_raised: int = 0
    rebellions_bought_off: Provinces = 0
    capital_rebellion: bool = False
    countries: int = 1
    governed: tuple[Governed, ...] | None = None
    armies_on_track: int = 0
    capital: str | None = None
    fleet_ports: tuple[str, ...] = ()
    neutral_ransoms: tuple[int | str, ...] = ()  # character ids as entered; their names for the rules
    trade_defence_crowns: int = 0  # optional rule D, a multiple of 15
    trade_interception_crowns: int = 0  # optional rule D, a multiple of 20
    event_payments: tuple[tuple[str, int], ...] = ()  # (the card, Crowns bid or invested) paid to the Treasury

    def __post_init__(self) -> None:
        for name in _LISTS:
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))


# the entry's fields that may be given as lists (kept as tuples)
_LISTS = (
    "provinces",
    "famine",
    "rebellion",
    "home_provinces",
    "rebellions_bought_off",
    "governed",
    "fleet_ports",
    "neutral_ransoms",
    "event_payments",
)


@dataclass(frozen=True)
class Line:
    """One movement of money between the dynasty and the Treasury."""

    kind: str  # one of KINDS
    direction: str  # IN (Treasury -> dynasty) or OUT (dynasty -> Treasury)
    amount: int  # above 0
    reason: str
    house: int | None = None  # None: the country's house; else another house's (a foreign governor's)

    @property
    def signed(self) -> int:
        """The change to the dynasty's exchequer."""
        return self.amount if self.direction == IN else -self.amount


@dataclass(frozen=True)
class InterphaseResult:
    lines: tuple[Line, ...]
    cash_before: int
    cash_after: int
    income: int  # the taxes
    costs: int  # rebellions bought off, maintenance, raising and the Movement's payments (not the capital's rebellion)
    shortfall: int  # how many Crowns the costs exceed the cash in hand plus income by (0: affordable)
    taxed_provinces: int
    rebellion_modifier: int  # 0, or -2 at the high tax rate
    raising_cap: int | None  # armies the country may have on the map after raising (None: none raised)
    notes: tuple[str, ...]


# --- reading the entries -------------------------------------------------------------------------

LABELS = {
    "provinces": "Provinces controlled",
    "famine": "Provinces in famine",
    "rebellion": "Provinces in rebellion",
    "home_provinces": "Home provinces controlled",
    "home_in_rebellion": "Home provinces still in rebellion",
    "armies_kept": "Armies kept",
    "fleets_kept": "Fleets kept",
    "armies_raised": "Armies raised",
    "fleets_raised": "Fleets raised",
    "rebellions_bought_off": "Rebellions bought off",
    "basic_sets": "Basic sets cashed in",
    "semi_luxury_sets": "Semi-luxury sets cashed in",
    "luxury_sets": "Luxury sets cashed in",
    "countries": "Countries controlled",
    "governed": "Governed provinces",
    "armies_on_track": "Armies on the Year Track",
    "capital": "The capital",
    "fleet_ports": "Fleet ports",
    "neutral_ransoms": "Royals ransomed from the neutrals",
    "trade_defence_crowns": "Crowns paid to protect trade items (rule D)",
    "trade_interception_crowns": "Crowns paid to intercept trade items (rule D)",
    "event_payments": "Event cards: bids and investments paid",
}


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


class _Problems:
    def __init__(self) -> None:
        self.messages: list[str] = []
        self.fields: dict[str, str] = {}

    def add(self, field: str, code: str, message: str) -> None:
        self.fields.setdefault(field, code)
        self.messages.append(message)

    def raise_if_any(self) -> None:
        if self.messages:
            raise InterphaseError(" ".join(self.messages), fields=self.fields)


def _number(value: object, field: str, problems: _Problems) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        problems.add(field, "invalid", f"{LABELS[field]} must be a whole number (got {value!r}).")
        return 0
    if value < 0:
        problems.add(field, "negative", f"{LABELS[field]} cannot be negative (got {value}).")
        return 0
    return value


def _provinces(value: object, field: str, problems: _Problems) -> tuple[int, dict[str, str] | None]:
    """A count, and the names (key -> name as entered) when a list was given."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        return _number(value, field, problems), None
    names: dict[str, str] = {}
    for item in value:
        if not isinstance(item, str) or not item.strip():
            problems.add(field, "invalid", f"{LABELS[field]}: {item!r} is not a province's name.")
            continue
        key = _key(item)
        if key in names:
            problems.add(field, "duplicate", f"{LABELS[field]}: {item.strip()} is listed twice.")
            continue
        names[key] = item.strip()
    return len(names), names


def _not_among(
    part: dict[str, str] | None, whole: dict[str, str] | None, field: str, whole_label: str, problems: _Problems
) -> None:
    if part is None or whole is None:
        return
    strays = [name for key, name in part.items() if key not in whole]
    if strays:
        verb = "is" if len(strays) == 1 else "are"
        problems.add(field, "not_controlled", f"{LABELS[field]}: {_join(strays)} {verb} not among the {whole_label}.")


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _plural(count: int, noun: str) -> str:
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"


# --- the computation -------------------------------------------------------------------------------


def interphase_lines(
    entry: InterphaseEntry, *, cash: int, first_turn: bool = False, currency: str = "Crowns"
) -> InterphaseResult:
    """Check ``entry`` against every limit (one InterphaseError naming all the faults) and return
    the lines, taxes first, then costs, then the capital's rebellion (no resource sets: they are
    cashed in at the end of the turn, ``cash_in_lines``). ``cash`` is what the
    exchequer holds before the run; ``first_turn``: the campaign's first turn (section 5)."""
    p = _Problems()
    if entry.provinces is None:  # the service fills them in from the province register
        p.add("provinces", "required", f"{LABELS['provinces']}: give them (a number or the provinces' names).")
    provinces, province_names = _provinces(0 if entry.provinces is None else entry.provinces, "provinces", p)
    famine, famine_names = _provinces(entry.famine, "famine", p)
    rebellion, rebellion_names = _provinces(entry.rebellion, "rebellion", p)
    bought_off, bought_off_names = _provinces(entry.rebellions_bought_off, "rebellions_bought_off", p)
    home: int | None = None
    home_names: dict[str, str] | None = None
    if entry.home_provinces is not None:
        home, home_names = _provinces(entry.home_provinces, "home_provinces", p)
    armies_kept = _number(entry.armies_kept, "armies_kept", p)
    armies_on_track = _number(entry.armies_on_track, "armies_on_track", p)
    fleets_kept = _number(entry.fleets_kept, "fleets_kept", p)
    armies_raised = _number(entry.armies_raised, "armies_raised", p)
    fleets_raised = _number(entry.fleets_raised, "fleets_raised", p)
    countries = _number(entry.countries, "countries", p)
    if countries < 1 and "countries" not in p.fields:
        p.add("countries", "invalid", "A player controls at least 1 country.")
    countries = max(countries, 1)
    if isinstance(entry.tax_rate, bool) or not isinstance(entry.tax_rate, int) or entry.tax_rate not in TAX_RATES:
        p.add(
            "tax_rate",
            "invalid",
            f"The tax rate is {NORMAL_TAX} or {HIGH_TAX} {currency} per province, one rate for the whole country "
            f"(got {entry.tax_rate!r}).",
        )
    if not isinstance(entry.capital_rebellion, bool):
        p.add("capital_rebellion", "invalid", "Say yes or no for a rebellion in the capital.")
    if isinstance(cash, bool) or not isinstance(cash, int):
        raise TypeError(f"cash must be a whole number of {currency}, got {cash!r}")

    # provinces: famine and rebellion are among those controlled
    _not_among(famine_names, province_names, "famine", "provinces controlled", p)
    _not_among(rebellion_names, province_names, "rebellion", "provinces controlled", p)
    _not_among(home_names, province_names, "home_provinces", "provinces controlled", p)
    _not_among(bought_off_names, rebellion_names, "rebellions_bought_off", "provinces in rebellion", p)
    if famine_names is not None and rebellion_names is not None:
        untaxed = len(famine_names.keys() | rebellion_names.keys())
    else:
        untaxed = famine + rebellion
    if untaxed > provinces:
        p.add(
            "famine" if famine else "rebellion",
            "too_many",
            f"{untaxed} provinces in famine or rebellion, but the country controls only {provinces}.",
        )
    if home is not None and home > provinces:
        p.add("home_provinces", "too_many", f"{home} home provinces, but the country controls only {provinces} provinces.")
    if bought_off > rebellion:
        p.add(
            "rebellions_bought_off",
            "too_many",
            f"{_plural(bought_off, 'rebellion marker')} bought off, but only {rebellion} of the country's provinces "
            f"{'is' if rebellion == 1 else 'are'} in rebellion.",
        )
    if first_turn:
        for field, value in (
            ("armies_kept", armies_kept),
            ("fleets_kept", fleets_kept),
            ("famine", famine),
            ("rebellion", rebellion),
            ("armies_on_track", armies_on_track),
            ("rebellions_bought_off", bought_off),
        ):
            if value:
                p.add(
                    field,
                    "first_turn",
                    f"{LABELS[field]}: none in the first turn, when only Taxation, Placing Resources and Raising "
                    "apply (no forces on the map and no markers yet).",
                )

    # forces: 20 armies and 4 fleets per country
    max_armies, max_fleets = MAX_ARMIES * countries, MAX_FLEETS * countries
    if armies_kept + armies_raised > max_armies:
        p.add(
            "armies_raised" if armies_raised else "armies_kept",
            "over_limit",
            f"At most {max_armies} armies on the map: {armies_kept} kept + {armies_raised} raised = "
            f"{armies_kept + armies_raised}.",
        )
    # the Year Track: "Players may not raise troops from the Army counters on the Year Track"
    if armies_on_track and armies_kept + armies_on_track > max_armies:
        p.add(
            "armies_on_track",
            "over_limit",
            f"{armies_kept} armies kept and {armies_on_track} on the Year Track, but the country has only {max_armies} "
            "Army counters.",
        )
    elif armies_raised and armies_kept + armies_raised <= max_armies < armies_kept + armies_raised + armies_on_track:
        pool = max_armies - armies_kept - armies_on_track
        p.add(
            "armies_raised",
            "over_pool",
            f"Raising {_plural(armies_raised, 'army')}: the pool beside the board holds {pool} ({max_armies} counters, "
            f"{armies_kept} on the map, {armies_on_track} on the Year Track): raise at most {pool}.",
        )
    if fleets_kept + fleets_raised > max_fleets:
        p.add(
            "fleets_raised" if fleets_raised else "fleets_kept",
            "over_limit",
            f"At most {max_fleets} fleets: {fleets_kept} kept + {fleets_raised} raised = {fleets_kept + fleets_raised}.",
        )

    movement = _movement_lines(entry, p, currency)

    # where new forces are placed (section 13): armies in the capital, fleets in coastal home provinces
    army_place, fleet_place = _placement(entry, armies_raised, fleets_raised, home_names, first_turn, p)

    # the raising cap: 2 x home provinces controlled and not in rebellion (after the buy-offs)
    notes: list[str] = []
    raising_cap: int | None = None
    given = None if entry.home_in_rebellion is None else _number(entry.home_in_rebellion, "home_in_rebellion", p)
    if home is None:
        if armies_raised:
            p.add(
                "home_provinces",
                "required",
                "Say how many home provinces the country controls: armies on the map after raising are capped at "
                f"{ARMIES_PER_HOME_PROVINCE} x the home provinces not in rebellion.",
            )
    else:
        still = max(rebellion - bought_off, 0)
        assumed = ""
        derived: int | None = None
        if home_names is not None and rebellion_names is not None and (bought_off_names is not None or not bought_off):
            derived = len((home_names.keys() & rebellion_names.keys()) - set(bought_off_names or ()))
        if given is not None:
            home_rebels = given
            if derived is not None and given != derived:
                p.add(
                    "home_in_rebellion",
                    "mismatch",
                    f"{LABELS['home_in_rebellion']}: {given} given, but the lists of names give {derived}.",
                )
            elif given > min(home, still):
                p.add(
                    "home_in_rebellion",
                    "too_many",
                    f"{given} home provinces still in rebellion, but the country has {home} home provinces and "
                    f"{_plural(still, 'rebellion marker')} left after the buy-offs.",
                )
        elif derived is not None:
            home_rebels = derived
        else:
            home_rebels = min(home, still)
            if home_rebels:
                assumed = (
                    f"the {_plural(home_rebels, 'rebellion marker')} left after the buy-offs "
                    f"{'is' if home_rebels == 1 else 'are'} taken to be in home provinces; give the home provinces "
                    "still in rebellion to say otherwise"
                )
                if armies_raised:
                    notes.append(f"Raising cap: {assumed}.")
        home_rebels = min(home_rebels, home)
        quiet = home - home_rebels
        raising_cap = ARMIES_PER_HOME_PROVINCE * quiet
        if armies_raised and armies_kept + armies_raised > raising_cap:
            p.add(
                "armies_raised",
                "over_cap",
                f"Raising {_plural(armies_raised, 'army')} would put {armies_kept + armies_raised} on the map, above "
                f"{ARMIES_PER_HOME_PROVINCE} x {quiet} home provinces not in rebellion ({home} controlled, "
                f"{home_rebels} still in rebellion after the buy-offs) = {raising_cap}: raise at most "
                f"{max(raising_cap - armies_kept, 0)}{' (' + assumed + ')' if assumed else ''}.",
            )
    governed = _governed(
        entry.governed or (),
        province_names,
        famine_names,
        rebellion_names,
        max(provinces - untaxed, 0),
        p,
        entry.tax_rate if entry.tax_rate in TAX_RATES else HIGH_TAX,
        currency,
    )
    p.raise_if_any()

    # the lines: taxes first, then costs in the rulebook's order, then the capital's rebellion
    lines: list[Line] = []
    rate = entry.tax_rate
    taxed = provinces - untaxed
    high = rate == HIGH_TAX
    withheld = sum(g.withheld for g in governed)
    if taxed * rate - withheld:
        untaxed_note = f"; {untaxed} in famine or rebellion pay nothing" if untaxed else ""
        high_note = f"; the high rate: {HIGH_TAX_REBELLION_MODIFIER} on Rebellion rolls this turn" if high else ""
        withheld_note = f"; {withheld} withheld by governors" if withheld else ""
        lines.append(
            Line(
                TAX,
                IN,
                taxed * rate - withheld,
                f"Taxation: {_plural(taxed, 'province')} at {rate} {currency}{untaxed_note}{withheld_note}{high_note}",
            )
        )
    lines.extend(_governed_lines(governed, currency))
    if bought_off:
        where = f" ({_join(list(bought_off_names.values()))})" if bought_off_names else ""
        lines.append(
            Line(
                REBELLION,
                OUT,
                bought_off * REBELLION_BUY_OFF_CROWNS,
                f"{_plural(bought_off, 'rebellion marker')} bought off at {REBELLION_BUY_OFF_CROWNS} {currency}{where}",
            )
        )
    for count, noun in ((armies_kept, "army"), (fleets_kept, "fleet")):
        if count:
            lines.append(
                Line(
                    MAINTENANCE,
                    OUT,
                    count * MAINTENANCE_CROWNS,
                    f"Maintenance of {_plural(count, noun)} at {MAINTENANCE_CROWNS} {currency}",
                )
            )
    for count, noun, where in ((armies_raised, "army", army_place), (fleets_raised, "fleet", fleet_place)):
        if count:
            lines.append(
                Line(
                    RAISING,
                    OUT,
                    count * RAISING_CROWNS,
                    f"Raising {_plural(count, noun)} at {RAISING_CROWNS} {currency}{where}",
                )
            )
    lines.extend(movement)
    income = sum(line.amount for line in lines if line.direction == IN and line.house is None)
    costs = sum(line.amount for line in lines if line.direction == OUT and line.house is None)
    in_hand = cash + income - costs
    shortfall = costs - (cash + income) if costs and in_hand < 0 else 0
    if entry.capital_rebellion:
        returned = in_hand // 2 if in_hand > 0 else 0
        if returned:
            rounded = " (rounded down)" if in_hand % 2 else ""
            lines.append(
                Line(
                    REBELLION,
                    OUT,
                    returned,
                    f"Rebellion in the capital: half of the {in_hand} {currency} in hand, {returned}{rounded}, returned to "
                    "the Treasury",
                )
            )
        else:
            notes.append(f"Rebellion in the capital: no cash in hand ({in_hand} {currency}), so nothing is returned.")
        in_hand -= returned
    if high:
        notes.append(
            f"Taxed at {HIGH_TAX} {currency} per province: apply {HIGH_TAX_REBELLION_MODIFIER} to every Rebellion roll "
            "in this turn's Events."
        )
    if bought_off and rebellion:
        notes.append("Provinces whose rebellion is bought off paid no tax this Interphase (markers go after taxation).")
    return InterphaseResult(
        lines=tuple(lines),
        cash_before=cash,
        cash_after=in_hand,
        income=income,
        costs=costs,
        shortfall=shortfall,
        taxed_provinces=taxed,
        rebellion_modifier=HIGH_TAX_REBELLION_MODIFIER if high else 0,
        raising_cap=raising_cap,
        notes=tuple(notes),
    )


def _movement_lines(entry: InterphaseEntry, p: _Problems, currency: str) -> list[Line]:
    """The Movement's payments to the Treasury, posted after the Interphase's costs and before a
    rebellion in the capital: ransoms to the neutrals, Crowns spent on trade interceptions
    (optional rule D), bids and investments on event cards (optional rule E)."""
    lines: list[Line] = []
    seen: set[str] = set()
    for name in entry.neutral_ransoms:
        if not isinstance(name, str) or not name.strip() or _key(name) in seen:
            p.add("neutral_ransoms", "invalid", f"{LABELS['neutral_ransoms']}: {name!r} is not one royal, once.")
            continue
        seen.add(_key(name))
        lines.append(
            Line(
                RANSOM,
                OUT,
                NEUTRAL_RANSOM_CROWNS,
                f"Ransom of {name.strip()} from the neutrals who captured him: {NEUTRAL_RANSOM_CROWNS} {currency} to the "
                "Treasury",
            )
        )
    for field, step, sign, who in (
        ("trade_defence_crowns", TRADE_DEFENCE_STEP, -1, "to protect trade items"),
        ("trade_interception_crowns", TRADE_INTERCEPTION_STEP, +1, "to intercept trade items"),
    ):
        amount = _number(getattr(entry, field), field, p)
        if amount % step:
            p.add(
                field, "step", f"{LABELS[field]}: {sign:+d} on the roll for each {step} {currency}; {amount} is not a multiple."
            )
        elif amount:
            lines.append(
                Line(
                    OTHER,
                    OUT,
                    amount,
                    f"Trade (rule D): {amount} {currency} paid {who}, {sign * (amount // step):+d} on the interception roll",
                )
            )
    for item in entry.event_payments:
        card, amount = item if isinstance(item, tuple) and len(item) == 2 else ("", 0)
        if (
            not isinstance(card, str)
            or not card.strip()
            or isinstance(amount, bool)
            or not isinstance(amount, int)
            or amount <= 0
        ):
            p.add("event_payments", "invalid", f"{LABELS['event_payments']}: {item!r} is not a card and a sum above 0.")
            continue
        lines.append(
            Line(
                OTHER,
                OUT,
                amount,
                f"Event card {card.strip()}: {amount} {currency} bid or invested, paid to the Treasury",
            )
        )
    return lines


def _placement(
    entry: InterphaseEntry, armies: int, fleets: int, home: dict[str, str] | None, first_turn: bool, p: _Problems
) -> tuple[str, str]:
    """Where the raised forces go (", placed in ..." for the raising lines). Section 13: "New armies
    are placed in the Capital and Fleets in any coastal Home Province (ie, a province of his original
    country that he still controls"; in the first turn "anywhere in their Home Provinces". The
    helper has no map: it checks that the places are controlled home provinces, not that a port is
    on the coast."""
    army_place = fleet_place = ""
    capital = entry.capital.strip() if isinstance(entry.capital, str) else None
    if entry.capital is not None and not capital:
        p.add("capital", "invalid", "The capital: give the province's name.")
    if capital:
        if home is not None and _key(capital) not in home:
            p.add("capital", "not_home", f"The capital, {capital}, is not among the home provinces controlled.")
        if armies:
            army_place = f", placed in {capital}" + (" (the first turn: anywhere at home)" if first_turn else " (the capital)")
    ports: list[str] = []
    for name in entry.fleet_ports:
        if not isinstance(name, str) or not name.strip():
            p.add("fleet_ports", "invalid", f"Fleet ports: {name!r} is not a province's name.")
            continue
        ports.append(name.strip())
        if home is not None and _key(name) not in home:
            p.add("fleet_ports", "not_home", f"Fleet ports: {name.strip()} is not among the home provinces controlled.")
    if ports and len(ports) != fleets:
        p.add(
            "fleet_ports",
            "count",
            f"Fleet ports: {len(ports)} given for {_plural(fleets, 'fleet')} raised (one coastal home province a fleet; "
            "a province may be named again).",
        )
    if ports and fleets:
        fleet_place = f", placed in {_join(ports)}"
    elif fleets:
        fleet_place = ", placed in the home provinces" if first_turn else ", placed in coastal home provinces"
    if armies and not army_place:
        army_place = ", placed in the home provinces" if first_turn else ", placed in the capital"
    return army_place, fleet_place


# --- optional rule G: governed provinces in the Interphase --------------------------------------------


def _governed(
    items: Sequence[Governed],
    names: dict[str, str] | None,
    famine: dict[str, str] | None,
    rebellion: dict[str, str] | None,
    taxed: int,
    p: _Problems,
    rate: int,
    currency: str,
) -> list[Governed]:
    """The governed provinces that pay this Interphase (one in famine or rebellion raises nothing,
    its extras included); every fault named."""
    seen: set[str] = set()
    paying: list[Governed] = []
    for g in items:
        key = _key(g.province)
        if key in seen:
            p.add("governed", "duplicate", f"Governed provinces: {g.province} is listed twice.")
            continue
        seen.add(key)
        if names is not None and key not in names:
            p.add("governed", "not_controlled", f"Governed provinces: {g.province} is not among the provinces controlled.")
            continue
        if isinstance(g.withheld, bool) or not isinstance(g.withheld, int) or g.withheld < 0:
            p.add("governed", "invalid", f"Governed provinces: the tax withheld in {g.province} is a whole number of 0 or more.")
            continue
        if g.withheld and g.house is None:
            p.add(
                "governed",
                "own_governor",
                f"Governed provinces: {g.governor}, Governor of {g.province}, is of the King's own dynasty: there is no "
                "royal tax to withhold from his own player.",
            )
            continue
        if g.withheld > rate:
            p.add(
                "governed",
                "too_much",
                f"Governed provinces: {g.governor} can withhold at most the royal tax of {g.province} "
                f"({rate} {currency}), not {g.withheld}.",
            )
            continue
        if (famine and key in famine) or (rebellion and key in rebellion):
            if g.withheld:
                p.add("governed", "untaxed", f"Governed provinces: {g.province} pays no tax this Interphase; none to withhold.")
            continue
        paying.append(g)
    if len(paying) > taxed:
        p.add(
            "governed",
            "too_many",
            f"{len(paying)} governed provinces pay taxes, but only {_plural(taxed, 'province')} of the country "
            f"{'pays' if taxed == 1 else 'pay'}.",
        )
    return paying


def _governed_lines(governed: Sequence[Governed], currency: str) -> list[Line]:
    """Rule G's lines: the 2 Crowns extra (the King's player's when the governor is of his dynasty,
    else the governor's house's), royal tax withheld (from the Treasury to the governor's house), and
    the governor's Charisma when present (profit or loss of the governing player)."""
    lines: list[Line] = []
    own = [g for g in governed if g.house is None]
    if own:
        lines.append(
            Line(
                TAX,
                IN,
                GOVERNED_EXTRA_CROWNS * len(own),
                f"Governed provinces (rule G): {_join([g.province for g in own])} at {GOVERNED_EXTRA_CROWNS} {currency} extra",
            )
        )
    for g in governed:
        of = f" of the house of {g.house_name}" if g.house_name else ""
        if g.house is not None:
            lines.append(
                Line(
                    TAX,
                    IN,
                    GOVERNED_EXTRA_CROWNS,
                    f"Governed province (rule G): {g.governor}{of}, Governor of {g.province}, keeps the "
                    f"{GOVERNED_EXTRA_CROWNS} {currency} extra",
                    house=g.house,
                )
            )
            if g.withheld:
                lines.append(
                    Line(
                        TAX,
                        IN,
                        g.withheld,
                        f"Governed province (rule G): {g.governor}{of} withholds {g.withheld} {currency} of "
                        f"{g.province}'s royal tax",
                        house=g.house,
                    )
                )
        if g.charisma:
            lines.append(
                Line(
                    TAX,
                    IN if g.charisma > 0 else OUT,
                    abs(g.charisma),
                    f"Governed province (rule G): {g.governor}{of} is present in {g.province}: Charisma "
                    f"{g.charisma:+d} on its taxes",
                    house=g.house,
                )
            )
    return lines


# --- cashing in: the turn's last phase -------------------------------------------------------------


@dataclass(frozen=True)
class CashInResult:
    lines: tuple[Line, ...]  # one per kind of set cashed in, basic first
    cash_before: int
    cash_after: int
    income: int


def cash_in_lines(
    *, basic_sets: int = 0, semi_luxury_sets: int = 0, luxury_sets: int = 0, cash: int, currency: str = "Crowns"
) -> CashInResult:
    """The sets a player cashes in at the capital "at the end of any 5-year Turn" (section 21;
    the sequence of play's "D) CASHING IN RESOURCES", after the Movement), one line per kind of
    set. Refused (one InterphaseError naming every fault): a count that is not a whole number of 0
    or more, or more sets than the game's counters can make."""
    if isinstance(cash, bool) or not isinstance(cash, int):
        raise TypeError(f"cash must be a whole number of {currency}, got {cash!r}")
    p = _Problems()
    basic = _number(basic_sets, "basic_sets", p)
    semi = _number(semi_luxury_sets, "semi_luxury_sets", p)
    lux = _number(luxury_sets, "luxury_sets", p)
    # only the counters in the box
    if basic + semi + lux > BASIC_COUNTERS:
        p.add(
            "basic_sets",
            "over_limit",
            f"{basic + semi + lux} sets need that many metals, cloth and food, but the game has only {BASIC_COUNTERS} of each.",
        )
    if semi + lux > SEMI_LUXURY_COUNTERS:
        p.add(
            "semi_luxury_sets",
            "over_limit",
            f"{semi + lux} sets need that many semi-luxury items, but the game has only {SEMI_LUXURY_COUNTERS}.",
        )
    if lux > LUXURY_COUNTERS:
        p.add("luxury_sets", "over_limit", f"{lux} luxury sets, but the game has only {LUXURY_COUNTERS} luxury items.")
    p.raise_if_any()
    lines: list[Line] = []
    for count, label, value in (
        (basic, "metals, cloth and food", BASIC_SET_CROWNS),
        (semi, "metals, cloth, food and a semi-luxury", SEMI_LUXURY_SET_CROWNS),
        (lux, "metals, cloth, food, a semi-luxury and a luxury", LUXURY_SET_CROWNS),
    ):
        if count:
            lines.append(
                Line(
                    CASH_IN,
                    IN,
                    count * value,
                    f"Cashing-in at the end of the turn: {_plural(count, 'set')} of {label} at {value} {currency}",
                )
            )
    income = sum(line.amount for line in lines)
    return CashInResult(lines=tuple(lines), cash_before=cash, cash_after=cash + income, income=income)
