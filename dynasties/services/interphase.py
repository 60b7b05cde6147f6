"""The Blood Royale Interphase helper (RULES.md A8): a player or the GM enters one country's
Interphase (provinces, tax rate, famine and rebellion, forces kept and raised, rebellions bought
off, a rebellion in the capital in the Movement that follows) as one ``rules.interphase.InterphaseEntry``,
which the page's form and the API's request build; this service fills in what the province register
and the titles know, the pure rules in ``rules.interphase`` compute every line, and ``interphase_run``
posts them to the ledger in one transaction, Treasury <-> the dynasty, taxes first, then costs, then
the capital's rebellion.

The turn ends with its own phase, "D) CASHING IN RESOURCES" (``cash_in_run``): resource sets held
at the capital are cashed in after the house's Interphase (and the Movement) of the year, never
before it; the last turn's cashing-in is the final one of the game (section 22).

Each once per dynasty per year: a second run is refused, unless every posting of the earlier run
has been reversed (``posting_reverse``), which is how a mistaken run is put right. An Interphase
cannot be run again while the year's cashing-in stands (reverse that first)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from django.db import transaction

from campaign.models import Campaign, ChronicleEntry, Step
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign, require_step
from dynasties.models import Character, Crown, Dynasty, Posting, Status, Title
from dynasties.services.play_interphase import InterphasePlay
from dynasties.services.play_registry import step_of
from dynasties.services.provinces import interphase_markers, register_entry
from dynasties.services.titles import governed_provinces
from dynasties.treasury import InsufficientFunds, balance, currency, post
from rules import interphase as rules
from rules.errors import NotFound, RuleError, StepOrderError

# A money line: private to the dynasty and the GM (campaign.permissions.MONEY_KINDS); ``data``
# marks it as an Interphase run, which is how a second run in the year is found.
CHRONICLE_KIND = "payment"
ResultT = TypeVar("ResultT", rules.InterphaseResult, rules.CashInResult)


class InterphaseAlreadyRun(StepOrderError):
    code = "interphase_done"


@dataclass(frozen=True)
class Posted(Generic[ResultT]):
    """What a run (or a cashing-in) posted: the lines (with their postings, in order) and the
    exchequer after."""

    dynasty: Dynasty
    result: ResultT
    postings: tuple[Posting, ...]
    balance: int


class InterphaseRun(Posted[rules.InterphaseResult]):
    @property
    def lines(self) -> tuple[rules.Line, ...]:
        return self.result.lines

    @property
    def notes(self) -> tuple[str, ...]:
        return self.result.notes


def _dynasty(campaign: Campaign, value: Dynasty | int) -> Dynasty:
    pk = value.pk if isinstance(value, Dynasty) else value
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not a dynasty id.", code="invalid", fields={"dynasty": "invalid"})
    try:
        return Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no dynasty #{pk} in {campaign.name}.") from None


def _play(campaign: Campaign) -> InterphasePlay:
    """The ruleset's Interphase; refused (``wrong_ruleset``) when it plays none."""
    return step_of(campaign, "interphase")


def _house_asked(campaign: Campaign | int, dynasty: Dynasty | int, by: Actor, *, what: str) -> tuple[Campaign, Dynasty]:
    """A preview's campaign and house, for whom may act for the house (``what`` he does)."""
    if not isinstance(campaign, Campaign):
        try:
            campaign = Campaign.objects.get(pk=campaign)
        except Campaign.DoesNotExist:
            raise NotFound(f"There is no campaign #{campaign}.") from None
    _play(campaign)
    house = _dynasty(campaign, dynasty)
    require(by, campaign, "house", dynasty=house.pk, what=what)
    return campaign, house


def _house_locked(campaign: Campaign | int, dynasty: Dynasty | int, by: Actor, *, what: str) -> tuple[Campaign, Dynasty]:
    """A run's campaign, locked (the house's own books), and house, for whom may act for it, in
    the Interphase step."""
    campaign = lock_campaign(campaign, seen=Seen.by(dynasty))
    _play(campaign)
    house = _dynasty(campaign, dynasty)
    require(by, campaign, "house", dynasty=house.pk, what=what)
    require_step(campaign, Step.INTERPHASE)
    return campaign, house


def _earlier_runs(campaign: Campaign, dynasty: Dynasty, marker: str = "interphase") -> list[ChronicleEntry]:
    """This year's runs for the dynasty whose postings are not all reversed (``marker``:
    "interphase", or "cash_in" for the cashing-in)."""
    open_runs = []
    for entry in ChronicleEntry.objects.filter(
        campaign=campaign,
        year=campaign.current_year,
        kind=CHRONICLE_KIND,
        data__dynasty=dynasty.pk,
        **{f"data__{marker}": True},
    ).order_by("id"):
        ids = list(entry.data.get("postings", []))
        reversed_count = Posting.objects.filter(campaign=campaign, reverses_id__in=ids).count()
        if not ids or reversed_count < len(ids):
            open_runs.append(entry)
    return open_runs


def interphase_open_runs(campaign: Campaign, dynasty: Dynasty | int) -> list[ChronicleEntry]:
    """This year's Interphase runs of the dynasty that still stand (not every posting reversed),
    oldest first: while there is one, a second run is refused (a page says so up front)."""
    if isinstance(dynasty, Dynasty) and dynasty.campaign_id == campaign.pk:
        return _earlier_runs(campaign, dynasty)
    return _earlier_runs(campaign, _dynasty(campaign, dynasty))


def _ransomed(campaign: Campaign, house: Dynasty, ids: Sequence[int | str]) -> list[Character]:
    """The royals of the house captured by neutrals and ransomed for 100 ("If they capture a Royal
    character, Neutrals ransom him for 100 Crowns"): living, controlled by the house, and not a
    player's prisoner (a player ransoms on his own terms: the GM's release). One recorded as held
    by the neutrals (the capture event) is released by the run; one taken and ransomed within the
    Movement, never recorded as held, is only paid for."""
    numbers = [pk for pk in ids if isinstance(pk, int) and not isinstance(pk, bool)]
    found = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=numbers)}
    out: list[Character] = []
    for pk in ids:
        who = found.get(pk) if isinstance(pk, int) else None
        if who is None or who.controlled_by_id != house.pk or who.status != Status.ALIVE:
            raise RuleError(
                f"{rules.LABELS['neutral_ransoms']}: #{pk} is not a living member of the house of {house.name}.",
                code="invalid_interphase",
                fields={"neutral_ransoms": "not_of_the_house"},
            )
        if who.prisoner_of_id is not None:
            raise RuleError(
                f"{who.display_name} is a prisoner of the house of {who.prisoner_of}, not of the neutrals: his release "
                "and ransom are entered by the GM.",
                code="invalid_interphase",
                fields={"neutral_ransoms": "players_prisoner"},
            )
        out.append(who)
    return out


def _optional_payments(campaign: Campaign, entry: rules.InterphaseEntry) -> None:
    """The Movement's payments that only an optional rule makes: Crowns paid on trade interceptions
    (rule D, Movement of Trade Items), bids and investments on event cards (rule E, Event Cards).
    Refused when the rule is not in force (docs/rulings.md, "Rule D's money in the Interphase")."""
    for field, given, rule in (
        ("trade_defence_crowns", entry.trade_defence_crowns, "trade_item_movement"),
        ("trade_interception_crowns", entry.trade_interception_crowns, "trade_item_movement"),
        ("event_payments", bool(entry.event_payments), "event_cards"),
    ):
        if given and not campaign.option(rule):
            name = campaign.option_name(rule)
            raise RuleError(
                f"{rules.LABELS[field]}: {name} is not in force in {campaign.name}; leave it blank.",
                code="option_off",
                fields={field: "option_off"},
            )


def _governed(campaign: Campaign, house: Dynasty, governed: Sequence[rules.Governed] | None) -> tuple[rules.Governed, ...]:
    """Optional rule G: each governed province entered (``province``, ``withheld``, ``present``)
    completed as its title stands: the governor is the title's holder, his house the one
    controlling him."""
    if not governed:
        return ()
    if not campaign.option("governing_provinces"):
        raise RuleError(
            "Governed provinces are optional rule G (Governing Provinces), which this campaign does not use.",
            code="option_off",
            fields={"governed": "option_off"},
        )
    # the countries the house taxes: its own, and one whose crown its King wears in a Dynastic Union
    crowns = (
        {house.crown, *Crown.objects.filter(campaign=campaign, controlled_by=house).values_list("name", flat=True)}
        if house.crown
        else set()
    )
    out: list[rules.Governed] = []
    for item in governed:
        province = str(item.province).strip()
        title = (
            Title.objects.select_related("holder", "holder__controlled_by")
            .filter(campaign=campaign, province__iexact=province)
            .first()
        )
        if title is None or title.holder is None or title.holder.status != Status.ALIVE:
            raise RuleError(
                f"Governed provinces: {province or '(no name)'} has no living Governor (rule G: a title of the province, held).",
                code="invalid_interphase",
                fields={"governed": "no_governor"},
            )
        if crowns and title.crown not in crowns:
            raise RuleError(
                f"Governed provinces: {title.province} is a province of {title.crown}, not of {' or '.join(sorted(crowns))}.",
                code="invalid_interphase",
                fields={"governed": "not_of_the_country"},
            )
        holder = title.holder
        other = holder.controlled_by if holder.controlled_by_id not in (None, house.pk) else None
        present = bool(item.present)
        out.append(
            rules.Governed(
                province=title.province,
                governor=holder.given_name,
                house=other.pk if other is not None else None,
                house_name=other.name if other is not None else "",
                withheld=item.withheld,
                charisma=int((holder.characteristics or {}).get("charisma", 0)) if present else None,
                present=present,
            )
        )
    return tuple(out)


def _from_register(campaign: Campaign, house: Dynasty, entry: rules.InterphaseEntry) -> rules.InterphaseEntry:
    """The entry with its provinces, markers, home provinces, capital and governed provinces filled
    in from the province register and the titles where nothing is entered (``provinces`` None: the
    register; an entry typed for a correction wins over the register). Refused when neither says."""
    kept = register_entry(campaign, house) if entry.provinces is None else None
    governed = entry.governed
    if governed is None and house.crown and campaign.option("governing_provinces"):
        # the governed provinces of every country it taxes (its lord's in a Dynastic Union)
        crowns = kept["crowns"] if kept is not None else [house.crown]
        governed = tuple(rules.Governed(province=name) for name in governed_provinces(campaign, *crowns))
    entry = replace(entry, governed=governed)
    if entry.provinces is not None:
        return entry
    if kept is None:
        raise RuleError(
            f"The province register holds no province of the house of {house.name}: give the provinces it controls, or "
            "record them on the Provinces page.",
            code="invalid_interphase",
            fields={"provinces": "required"},
        )
    blanks = {"famine": 0, "rebellion": 0, "home_provinces": None, "capital": None}
    filled = {name: kept[name] for name, blank in blanks.items() if getattr(entry, name) in (blank, ())}
    return replace(entry, provinces=kept["provinces"], **filled)


def _as_data(value: rules.Provinces | None) -> int | list[str] | None:
    return value if value is None or isinstance(value, int) else list(value)


def _compute(campaign: Campaign, dynasty: Dynasty, entry: rules.InterphaseEntry) -> rules.InterphaseResult:
    return _play(campaign).interphase_lines(
        entry,
        cash=balance(campaign, dynasty),
        first_turn=campaign.current_year == campaign.start_year,
        currency=currency(campaign),
    )


def _prepared(campaign: Campaign, house: Dynasty, entry: rules.InterphaseEntry) -> tuple[list[Character], rules.InterphaseEntry]:
    """What a preview and a run both check and build: the royals ransomed from the neutrals, the
    optional rules' payments, and the entry as the rules read it (from the province register and
    the titles where nothing is typed; the governors and the royals' names looked up)."""
    ransomed = _ransomed(campaign, house, entry.neutral_ransoms)
    _optional_payments(campaign, entry)
    entry = _from_register(campaign, house, entry)
    return ransomed, replace(
        entry,
        governed=_governed(campaign, house, entry.governed),
        neutral_ransoms=tuple(who.display_name for who in ransomed),
    )


def interphase_preview(
    *, campaign: Campaign | int, dynasty: Dynasty | int, entry: rules.InterphaseEntry, by: Actor
) -> rules.InterphaseResult:
    """The lines a run would post, without posting anything (a form's confirmation page). Limits
    are checked; a shortfall is reported in ``shortfall``, not refused. It shows the house's
    exchequer: asked for ``by`` someone, it is refused as the run would be."""
    campaign, house = _house_asked(campaign, dynasty, by, what="a house runs its own Interphase")
    _, entry = _prepared(campaign, house, entry)
    return _compute(campaign, house, entry)


def _refuse_a_second_run(campaign: Campaign, house: Dynasty) -> None:
    """Once per dynasty per year, and before the year's cashing-in (the turn's last phase)."""
    if _earlier_runs(campaign, house):
        raise InterphaseAlreadyRun(
            f"The house of {house.name} has already run its Interphase of {campaign.current_year} (once per dynasty "
            "per year). To put a mistake right, reverse that run's postings and run it again.",
        )
    if _earlier_runs(campaign, house, "cash_in"):
        raise StepOrderError(
            f"The house of {house.name} has already cashed in its resource sets of {campaign.current_year}, the "
            "turn's last phase: the Interphase comes before it. Reverse the cashing-in first.",
            code="cash_in_done",
        )


def _refuse_a_shortfall(campaign: Campaign, house: Dynasty, result: rules.InterphaseResult) -> None:
    """Costs above the cash in hand plus this run's income, unless the campaign allows overdrafts."""
    money = currency(campaign)
    if result.shortfall and not campaign.allow_overdraft:
        raise InsufficientFunds(
            f"The house of {house.name} holds {result.cash_before} {money}; with {result.income} of taxes (counted "
            f"first) that is {result.cash_before + result.income}, and the costs come to {result.costs} (resource sets "
            f"are cashed in at the end of the turn and pay none of them): "
            f"{result.shortfall} {money} short. Keep or raise fewer forces or buy off fewer "
            "rebellions (the GM may allow overdrafts for the campaign).",
        )


def _post_lines(
    campaign: Campaign,
    house: Dynasty,
    houses: Mapping[int, Dynasty],
    result: rules.InterphaseResult,
    ransomed: Sequence[Character],
    by: Actor,
) -> list[Posting]:
    """One posting per line, in order: Treasury -> the house for income, the house -> Treasury for
    costs (a foreign governor's lines to or from his own house); a ransom names the royal."""
    postings: list[Posting] = []
    ransoms = iter(ransomed)  # the ransom lines, in the order of the royals entered
    for line in result.lines:
        whose = houses[line.house] if line.house is not None else house
        payer, payee = (None, whose) if line.direction == rules.IN else (whose, None)
        extra = {"character": next(ransoms)} if line.kind == rules.RANSOM else {}
        posting = post(
            campaign,
            payer=payer,
            payee=payee,
            amount=line.amount,
            kind=line.kind,
            reason=line.reason,
            check_funds=line.direction == rules.OUT,
            by=by,
            **extra,
        )
        assert posting is not None
        postings.append(posting)
    return postings


def _chronicle_run(
    chronicle: Chronicle,
    campaign: Campaign,
    house: Dynasty,
    entry: rules.InterphaseEntry,
    result: rules.InterphaseResult,
    postings: Sequence[Posting],
    held: int,
) -> None:
    """The run's chronicle line, private to the house (and the GM), with what it counted."""
    money = currency(campaign)
    summary = (
        "; ".join(
            f"{'+' if line.direction == rules.IN else '-'}{line.amount} {line.reason}"
            for line in result.lines
            if line.house is None
        )
        or "no money moved"
    )
    chronicle.add(
        CHRONICLE_KIND,
        f"The Interphase of the house of {house.name}"
        f"{' (' + house.crown + ')' if house.crown else ''}, {campaign.current_year}: {summary}. "
        f"Income {result.income} {money}, costs {result.costs} {money}." + "".join(" " + note for note in result.notes),
        interphase=True,
        readers=[house.pk],
        dynasty=house.pk,
        postings=[p.pk for p in postings],
        tax_rate=entry.tax_rate,
        # what the run counted (names or numbers): the export's cross-check reads the provinces, the
        # markers and the governed provinces of each Interphase here
        provinces=_as_data(entry.provinces),
        famine=_as_data(entry.famine),
        rebellion=_as_data(entry.rebellion),
        governed_provinces=[g.province for g in entry.governed or ()],
        # the forces and countries the run counted: next year's form starts from them (last_figures)
        armies_kept=entry.armies_kept,
        fleets_kept=entry.fleets_kept,
        armies_raised=entry.armies_raised,
        fleets_raised=entry.fleets_raised,
        armies_on_track=entry.armies_on_track,
        countries=entry.countries,
        fleet_ports=list(entry.fleet_ports),
        rebellion_modifier=result.rebellion_modifier,
        income=result.income,
        costs=result.costs,
        balance=held,
    )


def _chronicle_governors(
    chronicle: Chronicle,
    campaign: Campaign,
    house: Dynasty,
    houses: Mapping[int, Dynasty],
    result: rules.InterphaseResult,
    postings: Sequence[Posting],
) -> None:
    """A foreign governor's house reads its own lines (and nothing else of the country's books)."""
    for other in sorted({x.house for x in result.lines if x.house is not None}):
        theirs = [(x, p) for x, p in zip(result.lines, postings, strict=True) if x.house == other]
        chronicle.add(
            CHRONICLE_KIND,
            f"The Interphase of {house.crown or house.name}, {campaign.current_year}, for the house of "
            f"{houses[other].name}: "
            + "; ".join(f"{'+' if x.direction == rules.IN else '-'}{x.amount} {x.reason}" for x, _ in theirs)
            + ".",
            readers=[other],
            dynasty=other,
            governed=True,
            postings=[p.pk for _, p in theirs],
        )


@transaction.atomic
def interphase_run(*, campaign: Campaign | int, dynasty: Dynasty | int, entry: rules.InterphaseEntry, by: Actor) -> InterphaseRun:
    """Post one country's Interphase: taxes (income, first), rebellions bought off, maintenance and
    raising (costs), then a rebellion in the capital (half of what is then in hand; the sets are
    cashed in after it, ``cash_in_run``). Refused: outside the Interphase step, a second run in the year, a broken limit
    (InterphaseError naming every fault), or costs above the cash in hand plus this run's income
    (InsufficientFunds) unless the campaign allows overdrafts."""
    campaign, house = _house_locked(campaign, dynasty, by, what="a house runs its own Interphase")
    _refuse_a_second_run(campaign, house)
    ransomed, entry = _prepared(campaign, house, entry)
    result = _compute(campaign, house, entry)
    _refuse_a_shortfall(campaign, house, result)
    houses = {house.pk: house} | {
        d.pk: d for d in Dynasty.objects.filter(campaign=campaign, pk__in=[x.house for x in result.lines if x.house])
    }
    postings = _post_lines(campaign, house, houses, result, ransomed, by)
    held = balance(campaign, house)
    assert held == result.cash_after, (held, result.cash_after)
    chronicle = Chronicle(campaign)
    _chronicle_run(chronicle, campaign, house, entry, result, postings, held)
    interphase_markers(campaign, house, famine=entry.famine, bought_off=entry.rebellions_bought_off, chronicle=chronicle)
    freed = [who for who in ransomed if who.held_by_neutrals]  # recorded as taken (the capture event): now free
    for who in freed:
        who.held_by_neutrals = False
        who.save(update_fields=["held_by_neutrals"])
        chronicle.add("release", f"{who.display_name} is released by the neutrals for a ransom.", character=who.pk)
    _chronicle_governors(chronicle, campaign, house, houses, result, postings)
    chronicle.flush()
    return InterphaseRun(dynasty=house, result=result, postings=tuple(postings), balance=held)


def last_figures(campaign: Campaign, dynasty: Dynasty) -> dict[str, Any]:
    """What the house's latest Interphase before this year counted, as next year's starting figures
    (one query; empty before its first run): the same tax rate and countries; the armies and fleets
    it kept plus those it raised, kept again (the player corrects any lost since); nothing raised
    (nor its fleet ports), bought off or paid again. Read by the house's own Interphase form (its books)."""
    entry = (
        ChronicleEntry.objects.filter(campaign=campaign, kind=CHRONICLE_KIND, year__lt=campaign.current_year)
        .filter(data__dynasty=dynasty.pk, data__interphase=True)
        .order_by("-year", "-id")
        .only("data", "year")
        .first()
    )
    if entry is None:
        return {}
    data = entry.data
    out: dict[str, Any] = {"year": entry.year}
    if data.get("tax_rate") in (rules.NORMAL_TAX, rules.HIGH_TAX):
        out["tax_rate"] = data["tax_rate"]
    for kept, raised in (("armies_kept", "armies_raised"), ("fleets_kept", "fleets_raised")):
        if isinstance(data.get(kept), int):
            out[kept] = data[kept] + int(data.get(raised) or 0)
    for name in ("armies_on_track", "countries"):
        if isinstance(data.get(name), int):
            out[name] = data[name]
    return out


# --- D) Cashing in resources: the turn's last phase ------------------------------------------------


class CashInAlreadyRun(StepOrderError):
    code = "cash_in_done"


class CashInRun(Posted[rules.CashInResult]):
    pass


def _cash_in_lines(campaign: Campaign, house: Dynasty, basic: int, semi_luxury: int, luxury: int) -> rules.CashInResult:
    return _play(campaign).cash_in_lines(
        basic_sets=basic,
        semi_luxury_sets=semi_luxury,
        luxury_sets=luxury,
        cash=balance(campaign, house),
        currency=currency(campaign),
    )


def cash_in_open_runs(campaign: Campaign, dynasty: Dynasty | int) -> list[ChronicleEntry]:
    """This year's cashings-in of the dynasty that still stand, oldest first."""
    house = dynasty if isinstance(dynasty, Dynasty) and dynasty.campaign_id == campaign.pk else _dynasty(campaign, dynasty)
    return _earlier_runs(campaign, house, "cash_in")


def cash_in_preview(
    *,
    campaign: Campaign | int,
    dynasty: Dynasty | int,
    basic_sets: int = 0,
    semi_luxury_sets: int = 0,
    luxury_sets: int = 0,
    by: Actor,
) -> rules.CashInResult:
    """The lines a cashing-in would post, without posting anything (limits checked). It shows the
    house's exchequer: asked for ``by`` someone, it is refused as the run would be."""
    campaign, house = _house_asked(campaign, dynasty, by, what="a house cashes in its own resource sets")
    return _cash_in_lines(campaign, house, basic_sets, semi_luxury_sets, luxury_sets)


@transaction.atomic
def cash_in_run(
    *,
    campaign: Campaign | int,
    dynasty: Dynasty | int,
    basic_sets: int = 0,
    semi_luxury_sets: int = 0,
    luxury_sets: int = 0,
    by: Actor,
) -> CashInRun:
    """Post the house's cashing-in of the year (sequence of play D, after the Interphase and the
    Movement): one posting per kind of set, Treasury -> the house, and a chronicle line private to
    the house. Refused: outside the Interphase step, before the house's Interphase of the year has
    been posted (the sets pay none of its costs), a second cashing-in in the year, or more sets
    than the game's counters make (InterphaseError)."""
    campaign, house = _house_locked(campaign, dynasty, by, what="a house cashes in its own resource sets")
    if _earlier_runs(campaign, house, "cash_in"):
        raise CashInAlreadyRun(
            f"The house of {house.name} has already cashed in its resource sets of {campaign.current_year} (once per "
            "house per turn, at its end). To put a mistake right, reverse that cashing-in's postings and do it again.",
        )
    if not _earlier_runs(campaign, house):
        raise StepOrderError(
            f"The house of {house.name} has not posted its Interphase of {campaign.current_year}: the turn ends with "
            "cashing in resources, after the Interphase and the Movement (the sets pay none of the Interphase's "
            "costs). Post the Interphase first.",
            code="interphase_first",
        )
    result = _cash_in_lines(campaign, house, basic_sets, semi_luxury_sets, luxury_sets)
    postings: list[Posting] = []
    for line in result.lines:
        posting = post(
            campaign,
            payer=None,
            payee=house,
            amount=line.amount,
            kind=line.kind,
            reason=line.reason,
            by=by,
        )
        assert posting is not None
        postings.append(posting)
    held = balance(campaign, house)
    money = currency(campaign)
    summary = "; ".join(f"+{line.amount} {line.reason}" for line in result.lines) or "no sets cashed in"
    chronicle = Chronicle(campaign)
    chronicle.add(
        CHRONICLE_KIND,
        f"The cashing-in of the house of {house.name}{' (' + house.crown + ')' if house.crown else ''}, "
        f"{campaign.current_year}: {summary}. Income {result.income} {money}.",
        cash_in=True,
        readers=[house.pk],
        dynasty=house.pk,
        postings=[p.pk for p in postings],
        income=result.income,
        balance=held,
    )
    chronicle.flush()
    return CashInRun(dynasty=house, result=result, postings=tuple(postings), balance=held)
