"""Setting up an ``eu-monarchs`` campaign (RULES.md C; issue 32): its countries, the EU turn it starts
at, each country's crown settings (Poland's era, France's and Russia's event, Spain's dynastic
alliances, Venice's Doges ...) and each throne's first monarch: rolled on the tables, a historical
monarch of the aid (the campaign's ``eu_named_monarchs`` table), or typed by the GM.

The majors are player houses (a player may be seated for each); the minors are minor houses (no
player: the GM runs them, and a minor's ransom is a minor's). Everything is checked before anything
is written (:func:`eu_check`), and :func:`eu_campaign_setup` writes it all in one transaction through
the monarchs' own services (``monarch_crown_configure``, ``monarch_succession_roll``,
``monarch_place_named``). Error ``fields`` are named ``"<country>:<what>"`` (``first``, ``named``,
``given_name``, ``adm``, ``dip``, ``mil``, ``reign_turns``, ``settings``) and ``first_turn``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Seen, lock_campaign
from dynasties.models import Crown, DynastyKind, Reign
from dynasties.services import eu_monarchs as monarchs
from dynasties.services.play_monarchs import FIRST_WAYS as FIRST_WAYS
from dynasties.services.play_monarchs import HISTORICAL as HISTORICAL
from dynasties.services.play_monarchs import ROLL as ROLL
from dynasties.services.play_monarchs import TYPED as TYPED
from dynasties.services.play_monarchs import EuCountry as EuCountry
from dynasties.services.play_monarchs import MonarchsPlay, setup_field
from dynasties.services.play_registry import plays, registered_plays, step_of
from dynasties.services.setup import DynastySpec
from rules.dice import DiceSource
from rules.errors import RuleError
from rules.names import COUNTRIES as NAMES

MAX_FIRST_TURN = 70
SETUP_SETTINGS = ("poland_era", "base_column_event_passed", "dynastic_alliances", "doge")


def default_tables() -> dict[str, Any]:
    """The shipped tables (a campaign not yet made reads these; its own copy is made from them)."""
    return monarchs.tables_play().default_tables()


def house_name(country: str) -> str:
    """The dynastic name of a country's house: the first of its suggested names, else the country's."""
    names = NAMES.get(country)
    return names.dynastic[0] if names else country


def eu_dynasties(countries: Sequence[EuCountry], tables: Mapping[str, Any] | None = None) -> list[DynastySpec]:
    """The houses of the chosen countries: a player's house for each major, a minor house for each minor."""
    play = monarchs.tables_play()
    tables = tables or play.default_tables()
    specs = []
    for c in countries:
        kind = DynastyKind.PLAYER if play.is_major(tables, c.country) else DynastyKind.MINOR
        specs.append(DynastySpec(house_name(c.country), c.country, kind))
    return specs


def eu_ruleset() -> str:
    """The name of the ruleset whose monarchs roll on the tables (the one an EU set-up is for)."""
    return next(name for name, play in registered_plays().items() if play.monarchs is not None)


def eu_start_year(first_turn: int) -> int:
    """The year a campaign set up from this EU turn starts, unless its own is typed."""
    return monarchs.tables_play().start_year_of_turn(first_turn)


def eu_check(countries: Sequence[EuCountry], *, first_turn: int, tables: Mapping[str, Any] | None = None) -> None:
    """Refuse a set-up that cannot be made, naming every field to fix (nothing is written)."""
    play = monarchs.tables_play()
    tables = tables or play.default_tables()
    problems: dict[str, str] = {}
    if isinstance(first_turn, bool) or not isinstance(first_turn, int) or not 1 <= first_turn <= MAX_FIRST_TURN:
        problems["first_turn"] = f"The campaign starts at an EU turn from 1 to {MAX_FIRST_TURN}; {first_turn!r} is not one."
        period = None
    else:
        period = play.period_at(tables, first_turn)
    if len(countries) < 2:
        problems["countries"] = "Tick at least two countries: a campaign is played between crowns."
    seen: set[str] = set()
    for c in countries:
        name = c.country.strip()
        known = play.known_country(tables, name)
        if known is None:
            problems[setup_field(name, "country")] = "Name the country."
            continue
        if name.casefold() in seen:
            problems[setup_field(name, "country")] = f"{name} is chosen twice."
        seen.add(name.casefold())
        if not known:
            problems[setup_field(name, "country")] = f"{name} is not in the countries table; choose one of its countries."
        play.check_first_monarch(c, tables, period, first_turn, problems)
    if problems:
        first = next(iter(problems.values()))
        more = f" ({len(problems) - 1} more below)" if len(problems) > 1 else ""
        raise RuleError(f"The campaign was not set up: {first}{more}", code="invalid", fields=problems)


@transaction.atomic
def eu_campaign_setup(
    *,
    campaign: Campaign | int,
    countries: Sequence[EuCountry],
    first_turn: int = 1,
    source: DiceSource | None = None,
    by: Actor,
) -> list[Reign]:
    """Set up a new ``eu-monarchs`` campaign whose houses are ``eu_dynasties(countries)``: the EU turn
    it starts at (its periods count from there), each country's crown settings, and a first monarch on
    every throne. All or nothing. Returns the reigns, in the countries' order."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    if not plays(campaign, "monarchs"):
        raise RuleError(f"{campaign.name} does not play the EU monarch tables: there is no EU set-up.", code="wrong_ruleset")
    play = step_of(campaign, "monarchs")
    tables = play.tables(campaign)
    eu_check(countries, first_turn=first_turn, tables=tables)
    crowns = set(Crown.objects.filter(campaign=campaign).values_list("name", flat=True))
    missing = [c.country for c in countries if c.country not in crowns]
    if missing:
        raise RuleError(f"{campaign.name} has no crown for {', '.join(missing)}.", code="invalid")
    if Reign.objects.filter(campaign=campaign, crown__in=[c.country for c in countries]).exists():
        raise RuleError(f"{campaign.name} is set up already: its thrones have monarchs.", code="already_done")
    started = play.start_at(campaign, tables, first_turn)
    reigns = []
    for c in countries:
        settings = {k: v for k, v in dict(c.settings).items() if v is not None}
        if settings:
            monarchs.monarch_crown_configure(campaign=campaign, crown=c.country, settings=settings, by=by)
        turn = play.turn_of(started, campaign.turn_number)
        reigns.append(_first_monarch(play, campaign, tables, c, turn=turn, source=source, by=by))
    return reigns


@transaction.atomic
def eu_monarch_crowned(
    *,
    campaign: Campaign | int,
    crown: str,
    how: str,
    named: str = "",
    given_name: str = "",
    adm: int | None = None,
    dip: int | None = None,
    mil: int | None = None,
    reign_turns: int | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> Reign:
    """During play, a vacant throne the board fills itself instead of the succession roll: one of the
    aid's historical monarchs whose condition the table has met ("successor of João II", "during II-4",
    Peter the Great's values), checked as at the set-up (his periods, the values he needs; his fixed
    values, or rolled under his name), or a monarch typed by the GM. The throne must be vacant (its
    monarch died, or his reign ran out): a living monarch is not deposed here."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    if not plays(campaign, "monarchs"):
        raise RuleError(f"{campaign.name} does not play the EU monarch tables.", code="wrong_ruleset")
    play = step_of(campaign, "monarchs")
    if how not in (HISTORICAL, TYPED):
        raise RuleError(
            f"Choose how the monarch is found: {HISTORICAL} (the aid's list) or {TYPED}.",
            code="invalid",
            fields={"how": "invalid"},
        )
    tables = play.tables(campaign)
    turn = play.turn_of(tables, campaign.turn_number)
    c = EuCountry(
        country=crown, first=how, named=named, given_name=given_name, adm=adm, dip=dip, mil=mil, reign_turns=reign_turns
    )
    problems: dict[str, str] = {}
    play.check_first_monarch(c, tables, play.period_at(tables, turn), turn, problems)
    if problems:
        fields = {key.split(":", 1)[1]: message for key, message in problems.items()}
        raise RuleError(next(iter(problems.values())), code="invalid", fields=fields)
    return _first_monarch(play, campaign, tables, c, turn=turn, source=source, by=by)


def _first_monarch(
    play: MonarchsPlay,
    campaign: Campaign,
    tables: Mapping[str, Any],
    c: EuCountry,
    *,
    turn: int,
    source: DiceSource | None,
    by: Actor,
) -> Reign:
    """The first monarch of a throne; ``turn`` is the campaign's EU turn now."""
    if c.first == ROLL:
        return monarchs.monarch_succession_roll(
            campaign=campaign, crown=c.country, given_name=c.given_name.strip() or None, source=source, by=by
        ).reign
    if c.first == TYPED:
        typed = c.values() or {}
        given, numeral = play.split_numeral(c.given_name)
        if numeral is not None:
            _count_earlier(campaign, c.country, given, numeral)
        return monarchs.monarch_place_named(
            campaign=campaign,
            crown=c.country,
            given_name=given,
            adm=typed["adm"],
            dip=typed["dip"],
            mil=typed["mil"],
            reign_turns=c.reign_turns,
            numbered=numeral is not None,  # "Henri III" counts the crown's Henris; "Báthory" has no numeral
            by=by,
        )
    row = play.named_row(tables, c)
    assert row is not None  # eu_check refused it otherwise
    given, numeral = play.split_numeral(row.get("given") or row["name"])
    if numeral is not None:
        _count_earlier(campaign, c.country, given, numeral)
    values = row.get("values") or c.values()
    sex = str(row.get("sex", "M"))
    dynastic = row.get("dynastic")
    if values is None:
        reign = monarchs.monarch_succession_roll(
            campaign=campaign,
            crown=c.country,
            given_name=given,
            dynastic_name=dynastic,
            sex=sex,
            numbered=numeral is not None,
            source=source,
            by=by,
        ).reign
    else:
        reign_turns = row.get("reign_turns")
        if row.get("until_turn") is not None:
            reign_turns = int(row["until_turn"]) - turn  # he dies (or leaves) at that turn
        reign = monarchs.monarch_place_named(
            campaign=campaign,
            crown=c.country,
            given_name=given,
            dynastic_name=dynastic,
            adm=values["adm"],
            dip=values["dip"],
            mil=values["mil"],
            no_survival_turns=int(row.get("no_survival_turns", 0)),
            reign_turns=reign_turns,
            sex=sex,
            numbered=numeral is not None,
            by=by,
        )
    if row.get("sets"):
        monarchs.monarch_crown_configure(campaign=campaign, crown=c.country, settings=dict(row["sets"]), by=by)
    return reign


def _count_earlier(campaign: Campaign, crown: str, given: str, numeral: int) -> None:
    """A historical 'Friedrich II' is the crown's second of the name: one earlier counted before the campaign."""
    record = Crown.objects.get(campaign=campaign, name=crown)
    numerals = dict(record.numerals or {})
    if numeral > 1 and numerals.get(given, 0) < numeral - 1:
        numerals[given] = numeral - 1
        record.numerals = numerals
        record.save(update_fields=["numerals"])
