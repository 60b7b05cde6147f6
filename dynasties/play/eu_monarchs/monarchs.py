"""The EU monarch tables' monarchs phase (``MonarchsPlay`` of ``dynasties.services.play_monarchs``;
RULES.md C) for the ``eu-monarchs`` ruleset: survival rolls,
successions (Dynastic Crisis, Fragile Health, minority, successor's values, reign length), named
monarchs, Venetian Doges, ransoms, the optional military skill, and per-crown settings.

Each function is called by ``dynasties.services.eu_monarchs`` (the public doors) in one transaction,
on the campaign it locked for the GM; every die goes through a
``DiceBox`` (typed faces allowed). The tables are read from the campaign's ``RuleTable`` rows under
the ``eu_*`` keys, falling back to the shipped defaults, so nothing here needs ``get_ruleset``.

A crown's settings and its monarch's standing live in ``Crown.state``:

- settings (``monarch_crown_configure``): ``country``, ``base_column``, ``base_column_event_passed``,
  ``habsburg_modifier``, ``dynastic_alliances``, ``doge``, ``turkey``, ``poland_era``, ``fragile_health``;
- the monarch's standing (reset at each new monarch): ``monarch_id``, ``fragile_health``,
  ``crisis_year``, ``minority``, ``named``, ``no_survival_until_year``, ``leader``;
- the crown's: ``survival_year`` (one survival roll a turn), ``pending_crisis`` (Turkey's 11+).

A death on the survival roll (or a reign whose rolled length is spent) leaves the throne vacant:
the GM then calls ``monarch_succession_roll`` (``succession_roll`` here) (or places a named monarch), so typed dice for the
succession can be entered once the death is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from campaign.dice import DiceBox
from campaign.models import Campaign, Roll, RuleTable
from campaign.permissions import Actor
from campaign.steps import Chronicle
from dynasties import treasury
from dynasties.models import Character, Crown, DynastyKind, Origin, PostingKind, Reign, Status
from dynasties.services import regnal
from dynasties.services.bloodline import revolt, stability
from dynasties.services.common import World
from dynasties.services.deaths import character_die
from dynasties.services.play_monarchs import (
    FIRST_WAYS,
    LOOK_UP,
    ROLL,
    SUCCESSION_FACES,
    TYPED,
    Chance,
    EuCountry,
    MonarchStatus,
    MonarchSuccession,
    MonarchSurvival,
    Period,
    SuccessionTerms,
    SurvivalTerms,
    setup_field,
)
from rules import eu_crowns as words
from rules import eu_monarchs as eu
from rules.dice import TWO_D10, DiceSource, DiceSpec, validate_faces
from rules.errors import IllegalOption, InvalidTable, NotFound, RuleError
from rules.names import given_name as suggested_name
from rules.odds import Odds

MONARCH_KEYS = ("monarch_id", "fragile_health", "crisis_year", "minority", "named", "no_survival_until_year", "leader")
# the dice of each succession roll, by the name its typed faces go under (SUCCESSION_FACES)
SUCCESSION_DICE: Mapping[str, DiceSpec] = {
    "succession": eu.SUCCESSION_DICE,
    "age": eu.AGE_DICE,
    **dict.fromkeys(eu.CHARACTERISTICS, eu.VALUE_DICE),
    "reign": eu.REIGN_DICE,
}
MILITARY_FACES = ("average", *eu.LEADER_VALUES, eu.SIEGE)


# --- reading the campaign -----------------------------------------------------------------------


def load_eu_tables(campaign: Campaign) -> dict[str, Any]:
    """The campaign's EU monarch tables: its own copies where it has them, else the defaults."""
    stored = {t.key: t.data for t in RuleTable.objects.filter(campaign=campaign, key__in=list(eu.DEFAULT_TABLES))}
    tables: dict[str, Any] = {}
    for key in eu.DEFAULT_TABLES:
        data = stored.get(key, eu.DEFAULT_TABLES[key])
        try:
            tables[key] = eu.validate_table(key, data)
        except InvalidTable as exc:
            raise InvalidTable(
                f"The campaign's {key!r} table is not valid: {exc.message} Fix it or restore the defaults."
            ) from None
    eu.check_together(tables)
    return tables


def _crown(world: World, crown: Crown | str, *, create: bool = False) -> Crown:
    name = crown.name if isinstance(crown, Crown) else str(crown).strip()
    if not name:
        raise RuleError("Name the crown.", code="invalid", fields={"crown": "required"})
    if name in world.crowns:
        return world.crowns[name]
    if create or any(d.crown == name for d in world.dynasties.values()):
        return world.crown(name)
    raise NotFound(
        f"There is no crown called {name!r} in {world.campaign.name}; create it with its settings first "
        "(monarch_crown_configure)."
    )


def _open_reign(campaign: Campaign, crown: str) -> Reign | None:
    return Reign.objects.select_related("holder").filter(campaign=campaign, crown=crown, end_year__isnull=True).first()


def _last_reign(campaign: Campaign, crown: str) -> Reign | None:
    return Reign.objects.select_related("holder").filter(campaign=campaign, crown=crown).order_by("-start_year", "-pk").first()


def _period(campaign: Campaign, tables: Mapping[str, Any]) -> eu.Period:
    periods = tables[eu.PERIODS]
    return eu.period_of_turn(periods, eu.eu_turn(periods, campaign.turn_number))


def _turns_since(campaign: Campaign, year: int | None) -> int | None:
    if year is None:
        return None
    return (campaign.current_year - int(year)) // max(1, campaign.turn_length)


def _values(character: Character) -> dict[str, int]:
    raw = character.characteristics or {}
    return {k: int(raw[k]) for k in eu.CHARACTERISTICS if isinstance(raw.get(k), int) and not isinstance(raw.get(k), bool)}


def _title(character: Character, doge: bool) -> str:
    if doge:
        return "Doge"
    return "King" if character.sex == "M" else "Queen"


def tables(campaign: Campaign) -> dict[str, Any]:
    return load_eu_tables(campaign)


def values(character: Character) -> dict[str, int]:
    return _values(character)


def succession_dice() -> Mapping[str, DiceSpec]:
    return SUCCESSION_DICE


def _check_sex(sex: str) -> None:
    if sex not in ("M", "F"):
        raise RuleError(f"A monarch's sex is 'M' or 'F', not {sex!r}.", code="invalid", fields={"sex": "invalid"})


def _typed(spec: DiceSpec, faces: Sequence[int] | None, label: str) -> list[int] | None:
    """Check typed faces with a message naming the roll (the box checks again, harmlessly)."""
    if faces is None:
        return None
    return list(validate_faces(spec, faces, purpose=label))


class _Faces:
    """Typed faces for several named rolls: each roll needed must be given, none may be left over."""

    def __init__(self, faces: Mapping[str, Sequence[int]] | None, known: Sequence[str], what: str) -> None:
        if faces is not None and not isinstance(faces, Mapping):
            raise RuleError(
                f"Typed faces for the {what} are given by roll, e.g. {{'{known[0]}': [7]}}; known rolls: {', '.join(known)}.",
                code="invalid_dice",
            )
        self.faces = dict(faces) if faces is not None else None
        self.what = what
        self.used: set[str] = set()
        unknown = sorted(set(self.faces or {}) - set(known))
        if unknown:
            raise RuleError(f"The {what} has no roll called {unknown[0]!r}; known: {', '.join(known)}.", code="invalid_dice")

    def take(self, key: str, spec: DiceSpec, label: str) -> list[int] | None:
        if self.faces is None:
            return None
        if key not in self.faces:
            raise RuleError(
                f"The {label} is due: type its faces as {key!r} too (or let the server roll every die).",
                code="invalid_dice",
                fields={key: "required"},
            )
        self.used.add(key)
        return _typed(spec, self.faces[key], label)

    def finish(self) -> None:
        left = sorted(set(self.faces or {}) - self.used)
        if left:
            raise RuleError(
                f"Faces were typed for {', '.join(repr(k) for k in left)}, but no such roll was due in this {self.what}.",
                code="invalid_dice",
            )


# --- standing of a crown's monarch -------------------------------------------------------------


def _status(campaign: Campaign, tables: Mapping[str, Any], record: Crown, reign: Reign | None = LOOK_UP) -> MonarchStatus:
    """``reign``: the crown's reign going on, when the caller has read it (a page of crowns reads them at once)."""
    state = dict(record.state or {})
    period = _period(campaign, tables)
    rules = eu.crown_rules(tables, record.name, state, period.name)
    reign = _open_reign(campaign, record.name) if reign is LOOK_UP else reign
    monarch = reign.holder if reign is not None else None
    values = _values(monarch) if monarch is not None else {}
    stage = eu.stage_at(tables[eu.MINORITY], monarch.age(campaign.current_year)) if monarch is not None else eu.ADULT_STAGE
    since = _turns_since(campaign, state.get("crisis_year"))
    halved = since == 0
    effective = eu.effective_values(values, penalty=stage.penalty, halved=halved) if values else {}
    mods = eu.survival_modifiers(
        tables[eu.MODIFIERS],
        fragile_health=rules.fragile_health,
        turns_since_crisis=since,
        stability=record.stability,
        turkey=rules.turkey,
        mil=effective.get("mil"),
    )
    return MonarchStatus(
        crown=record.name,
        monarch=monarch,
        rules=rules,
        period=period,
        values=values,
        effective=effective,
        stage=stage,
        halved=halved,
        survival_modifiers=mods,
        planned_end_year=reign.planned_end_year if reign is not None else None,
        survival_rolled=state.get("survival_year") == campaign.current_year,
    )


def status_of(campaign: Campaign, tables: Mapping[str, Any], record: Crown, reign: Reign | None = LOOK_UP) -> MonarchStatus:
    return _status(campaign, tables, record, reign)


def status(campaign: Campaign, crown: Crown | str) -> MonarchStatus:
    """A crown's monarch now: values as rolled and in play, minority, crisis, survival modifiers."""
    tables = load_eu_tables(campaign)
    world = World(campaign, living_only=True)
    return _status(campaign, tables, _crown(world, crown))


def period(campaign: Campaign) -> eu.Period:
    """The EU period of the campaign's current turn (I turns 1-6, II 7-14, ... VII 53+)."""
    return _period(campaign, load_eu_tables(campaign))


# --- settings -------------------------------------------------------------------------------------


def configure(campaign: Campaign, crown: str, settings: Mapping[str, Any]) -> Crown:
    """Set a crown's EU settings (a setting given as None goes back to the country's default). The
    crown's record is created if the campaign has none (a country no player rules, e.g. Venice)."""
    if not settings:
        raise RuleError(f"Give at least one setting; known: {', '.join(eu.SETTINGS)}.", code="invalid")
    cleaned = eu.clean_settings(settings)
    tables = load_eu_tables(campaign)
    world = World(campaign, living_only=True)
    record = _crown(world, crown, create=True)
    state = dict(record.state or {})
    for key, value in cleaned.items():
        if value is None:
            state.pop(key, None)
        else:
            state[key] = value
    rules = eu.crown_rules(tables, record.name, state, _period(campaign, tables).name)  # refuses what cannot be read
    record.state = state
    record.save(update_fields=["state"])
    chronicle = Chronicle(campaign)
    shown = ", ".join(f"{k} = {'default' if v is None else v}" for k, v in cleaned.items())
    chronicle.add(
        "crown_settings",
        f"{record.name}: {shown} ({rules.country}, {rules.column_note}"
        + (", a Doge" if rules.doge else "")
        + (", the Turkish column" if rules.turkey else "")
        + (", Poland's era" if rules.poland_era else "")
        + ").",
        crown=record.name,
    )
    chronicle.flush()
    return record


# --- survival -------------------------------------------------------------------------------------


def survival_roll(
    campaign: Campaign, crown: Crown | str, *, faces: Sequence[int] | None, source: DiceSource | None, by: Actor
) -> MonarchSurvival:
    """The monarch's survival roll of the turn: 1d10 + Fragile Health, the turns after a Dynastic
    Crisis, Stability below 0 and (Turkey) MIL below 7. "+1 turn" lengthens the reign by a turn;
    "dead" ends it; Turkey also reads its column (Pasha, revolt, revolt and Dynastic Crisis). A
    monarch whose rolled reign length is spent after the roll dies too. The succession is left to
    ``monarch_succession_roll``."""
    tables = load_eu_tables(campaign)
    world = World(campaign, living_only=True)
    record = _crown(world, crown)
    reign = _open_reign(campaign, record.name)
    if reign is None:
        raise RuleError(f"{record.name} has no monarch: roll the succession (or place a named monarch) first.", code="no_monarch")
    monarch = reign.holder
    if monarch.status != Status.ALIVE:
        raise RuleError(
            f"{monarch.display_name} is {monarch.get_status_display().lower()}: roll the succession for {record.name}.",
            code="not_alive",
        )
    state = dict(record.state or {})
    year = campaign.current_year
    if state.get("survival_year") == year:
        raise RuleError(f"{record.name} has already made its monarch's survival roll in {year}.", code="already_rolled")
    exempt = state.get("no_survival_until_year")
    if exempt is not None and year < int(exempt):
        raise RuleError(
            f"{monarch.display_name} makes no survival roll before {exempt} (a named monarch).", code="no_survival_roll"
        )
    status = _status(campaign, tables, record)
    modifier = sum(m for m, _ in status.survival_modifiers)
    title = _title(monarch, status.rules.doge)
    label = f"survival roll of {monarch.display_name} ({record.name})"
    box = DiceBox(campaign, source=source, by=by)
    roll = box.roll(
        eu.SURVIVAL_DICE,
        purpose="monarch_survival",
        characters=[monarch],
        entered=_typed(eu.SURVIVAL_DICE, faces, label),
        modifier=modifier,
        detail=record.name[:60],
    )
    result = eu.survival_result(tables[eu.MONARCH_TABLE], roll.faces, modifier, turkey=status.rules.turkey)
    roll.outcome = result.label[:60]
    roll.values_used = status.effective  # this turn's values: halved in a crisis's first turn, minus the minority penalty
    chronicle = Chronicle(campaign)
    why = "".join(f", {m:+d} {text}" for m, text in status.survival_modifiers)
    chronicle.add(
        "monarch_survival",
        f"{title} {monarch.display_name} of {record.name}: survival roll {result.die}{why} = {result.total}: {result.label}.",
        character=monarch.pk,
        crown=record.name,
        total=result.total,
        outcome=result.outcome,
        turkish=result.turkish,
    )
    planned = reign.planned_end_year
    if result.extra_turn and planned is not None:
        planned += campaign.turn_length
        reign.planned_end_year = planned
        reign.save(update_fields=["planned_end_year"])
        chronicle.add(
            "reign",
            f"The reign of {monarch.display_name} over {record.name} lasts a turn longer (to {planned}).",
            character=monarch.pk,
            crown=record.name,
        )
    if result.turkish == eu.PASHA:
        chronicle.add("pasha", f"{record.name}: Pasha (the Turkish survival column).", crown=record.name)
    if result.revolts:
        revolt(world, record, result.revolts, "the Turkish survival column", chronicle, cause="turkish_survival", reign=reign)
    if result.crisis:
        state["pending_crisis"] = True
        chronicle.add(
            "dynastic_crisis",
            f"{record.name}: the next succession is a Dynastic Crisis (the Turkish survival column).",
            crown=record.name,
        )
    spent = not result.dies and planned is not None and year >= planned
    died = result.dies or spent
    state["survival_year"] = year
    record.state = state
    record.save(update_fields=["state"])
    if died:
        cause = "the survival roll" if result.dies else "the end of his rolled reign"
        character_die(campaign=campaign, character_ids=[monarch.pk], cause=cause[:120], chronicle=chronicle)
        reign.end_year = year
        reign.save(update_fields=["end_year"])
        chronicle.add(
            "death",
            f"{title} {monarch.display_name} of {record.name} dies ({cause}); the succession roll is due.",
            character=monarch.pk,
            crown=record.name,
            dynasty=monarch.controlled_by_id,
        )
        monarch.refresh_from_db()
    box.flush()
    chronicle.flush()
    return MonarchSurvival(record.name, monarch, result, status.survival_modifiers, died, spent, planned, roll)


# --- succession -----------------------------------------------------------------------------------


def _vacate(campaign: Campaign, record: Crown, *, replace: bool, chronicle: Chronicle) -> Reign | None:
    """Close the reign of a dead monarch (or, with ``replace``, of a living one who steps down);
    refuse a living monarch otherwise. Returns the former reign."""
    reign = _open_reign(campaign, record.name)
    if reign is None:
        return _last_reign(campaign, record.name)
    holder = reign.holder
    year = campaign.current_year
    if holder.status == Status.ALIVE and not replace:
        raise RuleError(
            f"{holder.display_name} still reigns over {record.name}: a new monarch follows his death "
            "(monarch_survival_roll), or a named monarch replaces him (replace=True).",
            code="throne_occupied",
        )
    reign.end_year = max(reign.start_year, min(year, holder.death_year or year))
    reign.save(update_fields=["end_year"])
    if holder.status == Status.ALIVE:
        chronicle.add(
            "succession",
            f"{holder.display_name} steps down from the throne of {record.name}.",
            character=holder.pk,
            crown=record.name,
        )
    return reign


def _new_state(state: Mapping[str, Any], monarch: Character, **values: Any) -> dict[str, Any]:
    out = {k: v for k, v in state.items() if k not in MONARCH_KEYS and k != "pending_crisis"}
    out["monarch_id"] = monarch.pk
    out.update({k: v for k, v in values.items() if v is not None and v is not False})
    return out


def _names(
    world: World, record: Crown, former: Character | None, given: str | None, dynastic: str | None, doge: bool
) -> tuple[str, str]:
    given = (given or "").strip() or suggested_name(record.name, "M", len(world.past_holders(record.name)))
    if dynastic and dynastic.strip():
        return given, dynastic.strip()
    if doge:
        return given, record.name
    if former is not None and former.dynastic_name:
        return given, former.dynastic_name
    home = world.crown_dynasty(record.name)
    return given, home.name if home is not None else record.name


def succession_roll(
    campaign: Campaign,
    crown: Crown | str,
    *,
    faces: Mapping[str, Sequence[int]] | None,
    given_name: str | None,
    dynastic_name: str | None,
    sex: str,
    numbered: bool,
    source: DiceSource | None,
    by: Actor,
) -> MonarchSuccession:
    """A new monarch for a vacant throne (RULES.md C). The succession roll (1d10, Poland's era -2)
    gives a Dynastic Crisis (values halved for the first turn, -2 Stability, roll again for age),
    Fragile Health (roll again for age) or neither, and the minority on the same line; then 1d10
    for each of ADM, DIP and MIL on the successor table (the crown's base column, moved by the former
    monarch's value), and 1d10 for the reign length. A Doge: no crisis, never a minor, +1 to each
    value die with a minimum of 4, reign -2. Typed ``faces`` name each roll: ``succession``, ``age``
    (only after a crisis or Fragile Health), ``adm``, ``dip``, ``mil``, ``reign``."""
    typed = _Faces(faces, SUCCESSION_FACES, "succession")
    _check_sex(sex)
    tables = load_eu_tables(campaign)
    mods = tables[eu.MODIFIERS]
    world = World(campaign, living_only=True)
    record = _crown(world, crown)
    chronicle = Chronicle(campaign)
    former_reign = _vacate(campaign, record, replace=False, chronicle=chronicle)
    former = former_reign.holder if former_reign is not None else None
    state = dict(record.state or {})
    rules = eu.crown_rules(tables, record.name, state, _period(campaign, tables).name)
    year = campaign.current_year
    box = DiceBox(campaign, source=source, by=by)
    rolls: list[Roll] = []

    # the succession roll
    s_mod = sum(m for m, _ in eu.succession_modifier(mods, poland_era=rules.poland_era))
    roll = box.roll(
        eu.SUCCESSION_DICE,
        purpose="monarch_succession",
        modifier=s_mod,
        detail=record.name[:60],
        entered=typed.take("succession", eu.SUCCESSION_DICE, f"succession roll ({record.name})"),
    )
    rolls.append(roll)
    reading = eu.succession_reading(tables[eu.MONARCH_TABLE], roll.faces, s_mod, no_crisis=rules.doge)
    forced = bool(state.get("pending_crisis")) and not rules.doge
    crisis = reading.crisis or forced
    fragile = reading.fragile
    roll.outcome = (eu.SUCCESSION_RESULTS[reading.outcome] + (" (Dynastic Crisis from the Turkish roll)" if forced else ""))[:60]

    # the age
    if rules.doge:
        stage = eu.ADULT
    elif reading.reroll_for_age:
        age_roll = box.roll(
            eu.AGE_DICE,
            purpose="monarch_age",
            detail=record.name[:60],
            entered=typed.take("age", eu.AGE_DICE, f"roll again for age ({record.name})"),
        )
        rolls.append(age_roll)
        stage = eu.age_reroll(tables[eu.MONARCH_TABLE], age_roll.faces)
        age_roll.outcome = stage or "adult"
    else:
        stage = reading.minority
    if not rules.doge and not reading.reroll_for_age:
        roll.outcome = f"{roll.outcome}; {stage or 'adult'}"[:60]

    # the values, then the reign length
    former_values = _values(former) if former is not None else {}
    values, columns = _roll_values(box, typed, tables, rules, record, former_values, rolls)
    reign_roll, turns = _roll_reign(box, typed, tables, rules, record)
    rolls.append(reign_roll)
    typed.finish()

    # the new monarch
    given, dynastic = _names(world, record, former, given_name, dynastic_name, rules.doge)
    house = world.crown_dynasty(record.name)
    monarch = Character.objects.create(
        campaign=campaign,
        given_name=given[:60],
        sex=sex,
        birth_year=year - eu.accession_age(tables[eu.MINORITY], stage),
        dynastic_name=dynastic[:80],
        birth_dynasty=house,
        controlled_by=house,
        characteristics=values,
        origin=Origin.CREATED,
    )
    for r in rolls:
        box.add_subject(r, monarch)
    end = year + turns * campaign.turn_length
    reign = regnal.enthrone(campaign, record.name, monarch, year, planned_end_year=end, numbered=numbered and not rules.doge)
    record.state = _new_state(
        state, monarch, fragile_health=fragile, crisis_year=year if crisis else None, minority=stage or None
    )
    record.save(update_fields=["state"])
    reign_roll.values_used = _status(campaign, tables, record).effective  # the accession turn's, as used
    text = _accession_text(tables, rules, record, monarch, reign, former, former_values, stage, turns)
    chronicle.add("succession", text, character=monarch.pk, crown=record.name, values=values, reign_turns=turns)
    if crisis:
        chronicle.add(
            "dynastic_crisis",
            f"Dynastic Crisis in {record.name}: {monarch.display_name}'s values are halved for this turn"
            + "".join(
                f"; {m:+d} to his survival roll {n} turn{'s' if n > 1 else ''} from now"
                for n, m in enumerate(mods["after_crisis"], start=1)
                if m
            )
            + ".",
            character=monarch.pk,
            crown=record.name,
        )
        if mods["crisis_stability"]:
            stability(world, record, mods["crisis_stability"], "Dynastic Crisis", chronicle, cause="dynastic_crisis", reign=reign)
    if fragile:
        chronicle.add(
            "fragile_health",
            f"{monarch.display_name} has Fragile Health (+{mods['fragile_health']} to his survival rolls).",
            character=monarch.pk,
            crown=record.name,
        )
    box.flush()
    chronicle.flush()
    outcome = eu.SUCCESSION_RESULTS[reading.outcome]
    return MonarchSuccession(record.name, monarch, reign, reading, crisis, fragile, stage, values, columns, turns, outcome, rolls)


def _roll_values(
    box: DiceBox,
    typed: _Faces,
    tables: Mapping[str, Any],
    rules: eu.CrownRules,
    record: Crown,
    former_values: Mapping[str, int],
    rolls: list[Roll],
) -> tuple[dict[str, int], dict[str, int]]:
    """1d10 for each of ADM, DIP and MIL on the successor table: the crown's base column, moved by
    the former monarch's value (a Doge: + the die bonus, with a minimum). The values and columns."""
    die_bonus, minimum = eu.doge_value_rules(tables[eu.MODIFIERS]) if rules.doge else (0, None)
    values: dict[str, int] = {}
    columns: dict[str, int] = {}
    for name in eu.CHARACTERISTICS:
        column = eu.successor_column(tables[eu.SUCCESSOR_VALUES], rules.base_column, former_values.get(name))
        value_roll = box.roll(
            eu.VALUE_DICE,
            purpose="monarch_value",
            modifier=die_bonus,
            detail=f"{name.upper()} column {column}",
            entered=typed.take(name, eu.VALUE_DICE, f"{name.upper()} roll ({record.name})"),
        )
        rolls.append(value_roll)
        values[name] = eu.successor_value(
            tables[eu.SUCCESSOR_VALUES], column, value_roll.faces, die_bonus=die_bonus, minimum=minimum
        )
        columns[name] = column
        value_roll.outcome = f"{name.upper()} {values[name]}"
    return values, columns


def _roll_reign(box: DiceBox, typed: _Faces, tables: Mapping[str, Any], rules: eu.CrownRules, record: Crown) -> tuple[Roll, int]:
    """1d10 for the reign length (a Doge's and Poland's era modified): the roll and the turns."""
    r_mods = eu.reign_modifier(tables[eu.MODIFIERS], doge=rules.doge, poland_era=rules.poland_era)
    r_mod = sum(m for m, _ in r_mods)
    reign_roll = box.roll(
        eu.REIGN_DICE,
        purpose="monarch_reign",
        modifier=r_mod,
        detail=record.name[:60],
        entered=typed.take("reign", eu.REIGN_DICE, f"reign length roll ({record.name})"),
    )
    turns = eu.reign_turns(tables[eu.MONARCH_TABLE], reign_roll.faces, r_mod)
    reign_roll.outcome = f"{turns} turns"
    return reign_roll, turns


def _accession_text(
    tables: Mapping[str, Any],
    rules: eu.CrownRules,
    record: Crown,
    monarch: Character,
    reign: Reign,
    former: Character | None,
    former_values: Mapping[str, int],
    stage: str | None,
    turns: int,
) -> str:
    """The chronicle's line for the new monarch: his values (and whence), a Doge's rule, a
    minority, the reign's length."""
    values = monarch.characteristics
    shown = ", ".join(f"{n.upper()} {values[n]}" for n in eu.CHARACTERISTICS)
    title = _title(monarch, rules.doge)
    text = f"{regnal.crowned_name(monarch, reign)} becomes {title} of {record.name}: {shown} ({rules.column_note}"
    if former_values:
        text += f"; after {former.display_name if former else 'the former monarch'}'s " + ", ".join(
            f"{n.upper()} {former_values[n]}" for n in eu.CHARACTERISTICS if n in former_values
        )
    text += ")"
    if rules.doge:
        die_bonus, minimum = eu.doge_value_rules(tables[eu.MODIFIERS])
        text += f"; a Doge: +{die_bonus} to each value die, minimum {minimum}"
    if stage:
        row = eu.stage_at(tables[eu.MINORITY], monarch.age(reign.start_year))
        text += f"; a {stage} ({row.penalty:+d} to each value" + ("" if row.can_lead else ", cannot lead") + ")"
    text += f"; a reign of {turns} turns (to {reign.planned_end_year})."
    return text


# --- named monarchs -------------------------------------------------------------------------------


def place_named(
    campaign: Campaign,
    crown: Crown | str,
    *,
    given_name: str,
    adm: int,
    dip: int,
    mil: int,
    no_survival_turns: int,
    reign_turns: int | None,
    dynastic_name: str | None,
    replace: bool,
    sex: str,
    numbered: bool,
) -> Reign:
    """A named monarch with fixed values instead of a roll (Poland's Báthory 8/7/9, Prussia's
    Friedrich II 9/9/9 with no survival roll for 6 turns ...). The throne must be vacant, unless
    ``replace`` has the living monarch step down. ``no_survival_turns`` exempts this turn and the
    next ones; ``reign_turns`` gives a planned end (none by default: the survival rolls decide).
    ``sex`` "F" seats a queen; ``numbered=False`` gives no numeral (a name such as "Báthory")."""
    name = (given_name or "").strip()
    if not name:
        raise RuleError("A named monarch needs a name.", code="invalid", fields={"given_name": "required"})
    _check_sex(sex)
    values = {"adm": adm, "dip": dip, "mil": mil}
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 12:
            raise RuleError(
                f"{key.upper()} must be a whole number from 0 to 12, got {value!r}.", code="invalid", fields={key: "invalid"}
            )
    if isinstance(no_survival_turns, bool) or not isinstance(no_survival_turns, int) or not 0 <= no_survival_turns <= 30:
        raise RuleError(
            f"no_survival_turns must be a whole number from 0 to 30, got {no_survival_turns!r}.",
            code="invalid",
            fields={"no_survival_turns": "invalid"},
        )
    bad_reign = isinstance(reign_turns, bool) or not isinstance(reign_turns, int) or not 1 <= reign_turns <= 40
    if reign_turns is not None and bad_reign:
        raise RuleError(
            f"reign_turns must be a whole number from 1 to 40 (or none), got {reign_turns!r}.",
            code="invalid",
            fields={"reign_turns": "invalid"},
        )
    tables = load_eu_tables(campaign)
    world = World(campaign, living_only=True)
    record = _crown(world, crown)
    chronicle = Chronicle(campaign)
    former_reign = _vacate(campaign, record, replace=replace, chronicle=chronicle)
    former = former_reign.holder if former_reign is not None else None
    state = dict(record.state or {})
    rules = eu.crown_rules(tables, record.name, state, _period(campaign, tables).name)
    year = campaign.current_year
    given, dynastic = _names(world, record, former, name, dynastic_name, rules.doge)
    house = world.crown_dynasty(record.name)
    monarch = Character.objects.create(
        campaign=campaign,
        given_name=given[:60],
        sex=sex,
        birth_year=year - tables[eu.MINORITY]["adult_accession_age"],
        dynastic_name=dynastic[:80],
        birth_dynasty=house,
        controlled_by=house,
        characteristics=values,
        origin=Origin.CREATED,
    )
    end = year + reign_turns * campaign.turn_length if reign_turns else None
    reign = regnal.enthrone(campaign, record.name, monarch, year, planned_end_year=end, numbered=numbered and not rules.doge)
    exempt_until = year + no_survival_turns * campaign.turn_length if no_survival_turns else None
    record.state = _new_state(state, monarch, named=True, no_survival_until_year=exempt_until)
    record.save(update_fields=["state"])
    text = (
        f"{regnal.crowned_name(monarch, reign)} becomes "
        f"{_title(monarch, rules.doge)} of {record.name}, a named monarch: "
        f"ADM {adm}, DIP {dip}, MIL {mil}"
    )
    if exempt_until:
        text += f"; no survival roll before {exempt_until}"
    if end:
        text += f"; his reign ends in {end}"
    chronicle.add("succession", text + ".", character=monarch.pk, crown=record.name, values=values, named=True)
    chronicle.flush()
    return reign


# --- ransom ---------------------------------------------------------------------------------------


def ransom(campaign: Campaign, crown: Crown | str, *, major: bool | None) -> Character:
    """Ransom a crown's captured monarch: a major power pays 200 ducats and loses 2 Stability, a
    minor 50 ducats (the tables). ``major`` defaults to whether a player's house holds the crown.
    The ducats are posted to the ledger (kind ``ransom``) from the crown's house (the Treasury for a
    crown with none) to its captor's (the Treasury when the neutrals hold him), with a line each side
    reads."""
    tables = load_eu_tables(campaign)
    world = World(campaign, living_only=True)
    record = _crown(world, crown)
    reign = _open_reign(campaign, record.name)
    if reign is None or reign.holder.status != Status.ALIVE:
        raise RuleError(f"{record.name} has no living monarch to ransom.", code="no_monarch")
    monarch = reign.holder
    captor = monarch.prisoner_of  # None with held_by_neutrals: the ransom goes to the Treasury
    if not monarch.is_prisoner:
        raise RuleError(f"{monarch.display_name} is not a prisoner: there is nothing to ransom.", code="not_prisoner")
    held = f"the house of {captor.name}" if captor is not None else "the neutrals"
    payer = world.crown_dynasty(record.name)
    if major is None:
        major = payer is not None and payer.kind == DynastyKind.PLAYER
    ducats, change = eu.ransom(tables[eu.RANSOM], major=major)
    chronicle = Chronicle(campaign)
    what = f"ransom of {monarch.display_name} of {record.name}"
    if ducats and (payer is not None or captor is not None):  # a minor's monarch freed by the neutrals: no exchequer
        treasury.post(
            campaign,
            payer=payer,
            payee=captor,
            amount=ducats,
            kind=PostingKind.RANSOM,
            reason=what,
            character=monarch,
        )
        chronicle.add(
            "payment_owed",
            f"{ducats} ducats from {payer.name if payer else record.name} to {held}: {what}.",
            readers=[payer.pk if payer else None],
            dynasty=payer.pk if payer else None,
            amount=-ducats,
            character=monarch.pk,
            crown=record.name,
        )
        if captor is not None:
            chronicle.add(
                "payment_owed",
                f"{ducats} ducats to the house of {captor.name} from {payer.name if payer else record.name}: {what}.",
                readers=[captor.pk],
                dynasty=captor.pk,
                amount=ducats,
                character=monarch.pk,
                crown=record.name,
            )
    if change:
        stability(world, record, change, f"the {what}", chronicle, cause="ransom", reign=reign)
    monarch.prisoner_of = None
    monarch.held_by_neutrals = False
    monarch.save(update_fields=["prisoner_of", "held_by_neutrals"])
    chronicle.add(
        "release",
        f"{monarch.display_name} of {record.name} is released by {held} "
        f"({'a major power' if major else 'a minor'}{': ransomed' if ducats else ''}"
        f"{f', {change:+d} Stability' if change else ''}).",  # the ransom's amount: payer, captor and GM only
        character=monarch.pk,
        crown=record.name,
    )
    chronicle.flush()
    return monarch


# --- military skill (optional table) ------------------------------------------------------------


def military_skill(
    campaign: Campaign, crown: Crown | str, *, faces: Mapping[str, Sequence[int]] | None, source: DiceSource | None, by: Actor
) -> dict[str, int]:
    """The monarch as a leader (the optional table): 1d10 on his MIL row for the average value, then
    1d10 (+ the country's die bonus) for each of manoeuvre, fire and shock, and for siege when the
    average is starred. Typed ``faces`` name each roll: ``average``, ``manoeuvre``, ``fire``,
    ``shock``, ``siege``. Kept in the crown's state as ``leader``."""
    typed = _Faces(faces, MILITARY_FACES, "military skill roll")
    tables = load_eu_tables(campaign)
    military = tables[eu.MILITARY]
    world = World(campaign, living_only=True)
    record = _crown(world, crown)
    status = _status(campaign, tables, record)
    monarch = status.monarch
    if monarch is None or monarch.status != Status.ALIVE:
        raise RuleError(f"{record.name} has no living monarch to lead its armies.", code="no_monarch")
    if not status.stage.can_lead:
        raise RuleError(
            f"{monarch.display_name} is a {status.stage.name} and cannot lead (the aid's age penalties: "
            "'2 child (not a leader)'; a baby neither).",
            code="cannot_lead",
        )
    if "mil" not in status.effective:
        raise RuleError(f"{monarch.display_name} has no MIL value to read.", code="invalid")
    mil = status.effective["mil"]
    box = DiceBox(campaign, source=source, by=by)
    avg_roll = box.roll(
        eu.MILITARY_DICE,
        purpose="monarch_military",
        characters=[monarch],
        detail=f"MIL {mil}",
        entered=typed.take("average", eu.MILITARY_DICE, f"military skill roll of {monarch.display_name}"),
    )
    average, star = eu.military_average(military, mil, avg_roll.faces)
    avg_roll.outcome = f"average {average}{'*' if star else ''}"
    bonus = status.rules.leader_die_bonus
    rolled: dict[str, Sequence[int]] = {}
    for name in (*eu.LEADER_VALUES, *((eu.SIEGE,) if star else ())):
        r = box.roll(
            eu.MILITARY_DICE,
            purpose="monarch_leader",
            characters=[monarch],
            modifier=bonus.get(name, 0),
            detail=name,
            entered=typed.take(name, eu.MILITARY_DICE, f"{name} roll of {monarch.display_name}"),
        )
        rolled[name] = r.faces
        r.outcome = f"{name} {eu.leader_modifier(military, sum(r.faces) + bonus.get(name, 0)):+d}"
    typed.finish()
    values = eu.leader_values(military, average, star, rolled, bonus)
    state = dict(record.state or {})
    state["leader"] = {**values, "year": campaign.current_year}
    record.state = state
    record.save(update_fields=["state"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "leader",
        f"{monarch.display_name} of {record.name} as a leader: " + ", ".join(f"{k} {v}" for k, v in values.items()) + ".",
        character=monarch.pk,
        crown=record.name,
        values=values,
    )
    box.flush()
    chronicle.flush()
    return values


# --- the board: each crown's roll before it is made ----------------------------------------------

BOARD: dict[str, str] = {
    eu.PASHA: "Pasha: the board applies the Turkish column's Pasha result.",
    eu.REVOLT: "Revolt: one revolt to roll in Turkey.",
    eu.REVOLT_CRISIS: "Revolt and Dynastic Crisis: one revolt to roll in Turkey, and the next succession is a Dynastic Crisis.",
}


def _odds(chance: Fraction) -> Odds:
    return Odds(chance, eu.SURVIVAL_DICE)


def survival_terms(tables: Mapping[str, Any], status: MonarchStatus, year: int) -> SurvivalTerms:
    table = tables[eu.MONARCH_TABLE]
    modifier = sum(m for m, _ in status.survival_modifiers)
    odds = eu.survival_odds(table, modifier)
    planned = status.planned_end_year
    spent = planned is not None and year >= planned
    chances = [Chance("dies", _odds(odds[eu.DEAD])), Chance("+1 turn", _odds(odds[eu.EXTRA_TURN]))]
    chances.append(Chance("nothing" if not spent else "nothing (the reign is spent: he dies)", _odds(odds[""])))
    turkish = []
    if status.rules.turkey:
        t = eu.turkish_odds(table, modifier)
        turkish = [Chance(eu.TURKISH_RESULTS[k], _odds(t[k])) for k in (eu.PASHA, eu.REVOLT, eu.REVOLT_CRISIS) if t[k]]
    ends = []
    for face in range(1, eu.SURVIVAL_DICE.sides + 1):
        result = eu.survival_result(table, [face], modifier, turkey=status.rules.turkey)
        if result.dies or (spent and not result.extra_turn):
            ends.append(face)
    return SurvivalTerms(
        modifiers=list(status.survival_modifiers),
        modifier=modifier,
        chances=chances,
        turkish=turkish,
        spent=spent,
        ends=_odds(Fraction(len(ends), eu.SURVIVAL_DICE.sides)),
        end_faces=tuple(ends),
    )


def succession_terms(
    tables: Mapping[str, Any], status: MonarchStatus, state: Mapping[str, Any], former: Character | None
) -> SuccessionTerms:
    table, mods = tables[eu.MONARCH_TABLE], tables[eu.MODIFIERS]
    rules = status.rules
    s_mods = eu.succession_modifier(mods, poland_era=rules.poland_era)
    s_mod = sum(m for m, _ in s_mods)
    odds = eu.succession_odds(table, s_mod, no_crisis=rules.doge)
    forced = bool(state.get("pending_crisis")) and not rules.doge
    chances = [Chance(eu.SUCCESSION_RESULTS[k], _odds(odds[k])) for k in (eu.CRISIS, eu.FRAGILE, "") if odds[k]]
    if rules.doge:
        minority = [Chance("adult (a Doge is never a minor)", _odds(Fraction(1)))]
        age_faces: tuple[int, ...] = ()
    else:
        m = eu.minority_odds(table, s_mod, no_crisis=rules.doge)
        order = ["", *(s["name"] for s in tables[eu.MINORITY]["stages"])]
        minority = [Chance(k or "adult", Odds(m[k], TWO_D10)) for k in order if m.get(k)]  # the age die may follow
        age_faces = tuple(
            f
            for f in range(1, eu.SUCCESSION_DICE.sides + 1)
            if eu.succession_reading(table, [f], s_mod, no_crisis=rules.doge).reroll_for_age
        )
    former_values = _values(former) if former is not None else {}
    columns = {
        n: eu.successor_column(tables[eu.SUCCESSOR_VALUES], rules.base_column, former_values.get(n)) for n in eu.CHARACTERISTICS
    }
    die_bonus, minimum = eu.doge_value_rules(mods) if rules.doge else (0, None)
    r_mods = eu.reign_modifier(mods, doge=rules.doge, poland_era=rules.poland_era)
    r_mod = sum(m for m, _ in r_mods)
    reign = eu.reign_odds(table, r_mod)
    return SuccessionTerms(
        former=former,
        former_values=former_values,
        modifiers=s_mods,
        modifier=s_mod,
        forced_crisis=forced,
        doge=rules.doge,
        chances=chances,
        minority=minority,
        age_faces=age_faces,
        base_column=rules.base_column,
        column_note=rules.column_note,
        columns=columns,
        die_bonus=die_bonus,
        minimum=minimum,
        reign_modifiers=r_mods,
        reign_modifier=r_mod,
        reign=[Chance(f"{turns} turns", _odds(p)) for turns, p in sorted(reign.items())],
        crisis_stability=int(mods["crisis_stability"]),
    )


def board_line(tables: Mapping[str, Any], status: MonarchStatus, roll: Roll) -> str:
    result = eu.survival_result(tables[eu.MONARCH_TABLE], roll.faces, roll.modifier, turkey=status.rules.turkey)
    return BOARD.get(result.turkish, "")


def turkish_line(turkish: str) -> str:
    return BOARD.get(turkish, "")


def dice() -> DiceSpec:
    return eu.SURVIVAL_DICE


def characteristics() -> tuple[str, ...]:
    return eu.CHARACTERISTICS


# --- a crown's standing and history (``services.eu_crowns_view``) ----------------------------------


def leader_order() -> tuple[str, ...]:
    return (*eu.LEADER_VALUES, eu.SIEGE)


def after_crisis(tables: Mapping[str, Any]) -> Sequence[int]:
    return list(tables[eu.MODIFIERS]["after_crisis"])


def doge(tables: Mapping[str, Any], crown: str, state: Mapping[str, Any]) -> bool:
    country = eu.country_row(tables[eu.COUNTRIES], state.get("country") or crown)
    return bool(state["doge"]) if state.get("doge") is not None else bool(country.get("doge"))


def minority_at(tables: Mapping[str, Any], age: int) -> str:
    return eu.stage_at(tables[eu.MINORITY], age).name


# --- the set-up's first monarchs (``services.eu_setup``) --------------------------------------------


_field = setup_field


def default_tables() -> dict[str, Any]:
    return eu.defaults()


def is_major(tables: Mapping[str, Any], country: str) -> bool:
    return bool(eu.country_row(tables[eu.COUNTRIES], country).get("major"))


def known_country(tables: Mapping[str, Any], country: str) -> bool | None:
    if not country or country == eu.OTHERS:
        return None
    return country in {r["country"] for r in tables[eu.COUNTRIES]}


def period_at(tables: Mapping[str, Any], turn: int) -> eu.Period:
    return eu.period_of_turn(tables[eu.PERIODS], turn)


def turn_of(tables: Mapping[str, Any], campaign_turn: int) -> int:
    return eu.eu_turn(tables[eu.PERIODS], campaign_turn)


def start_year_of_turn(turn: int) -> int:
    return eu.start_year_of_turn(turn)


def start_at(campaign: Campaign, tables: Mapping[str, Any], first_turn: int) -> dict[str, Any]:
    periods = eu.validate_periods(dict(tables[eu.PERIODS], campaign_first_turn=first_turn))
    RuleTable.objects.update_or_create(campaign=campaign, key=eu.PERIODS, defaults={"data": periods})
    return {**tables, eu.PERIODS: periods}


def split_numeral(name: str) -> tuple[str, int | None]:
    return eu.split_numeral(name)


def named_row(tables: Mapping[str, Any], c: EuCountry) -> Mapping[str, Any] | None:
    wanted = c.named.strip().casefold()
    return next(
        (m for m in eu.named_of(tables[eu.NAMED], tables[eu.COUNTRIES], c.country) if m["name"].casefold() == wanted), None
    )


def check_first_monarch(
    c: EuCountry, tables: Mapping[str, Any], period: Period | None, turn: int, problems: dict[str, str]
) -> None:
    where = c.country
    try:
        eu.clean_settings(dict(c.settings))
    except IllegalOption as exc:
        problems[_field(where, "settings")] = exc.message
    values = c.values()
    low, high = eu.VALUE_RANGE
    for key in eu.CHARACTERISTICS:
        v = getattr(c, key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high):
            problems[_field(where, key)] = f"{key.upper()} is a whole number from {low} to {high}."
    if c.first not in FIRST_WAYS:
        problems[_field(where, "first")] = f"Choose how {where}'s first monarch is found: {', '.join(FIRST_WAYS)}."
        return
    if c.first == ROLL:
        if values is not None:
            problems[_field(where, "adm")] = "A rolled monarch's values come from the dice: leave them empty, or choose 'typed'."
        return
    if c.first == TYPED:
        if not c.given_name.strip():
            problems[_field(where, "given_name")] = f"Name {where}'s first monarch."
        for key in eu.CHARACTERISTICS:
            if getattr(c, key) is None and _field(where, key) not in problems:
                problems[_field(where, key)] = f"Give his {key.upper()} ({low} to {high})."
        if c.reign_turns is not None and (isinstance(c.reign_turns, bool) or not 1 <= c.reign_turns <= 40):
            problems[_field(where, "reign_turns")] = "A reign of 1 to 40 turns, or leave it empty (the survival rolls decide)."
        return
    row = named_row(tables, c)
    if row is None:
        choices = [m["name"] for m in eu.named_of(tables[eu.NAMED], tables[eu.COUNTRIES], where)]
        problems[_field(where, "named")] = (
            f"Choose one of {where}'s historical monarchs: {', '.join(choices)}."
            if choices
            else f"The aid names no historical monarch for {where}: roll his successor or type one."
        )
        return
    if "values" in row and values is not None:
        problems[_field(where, "adm")] = f"{row['name']}'s values are the aid's ({_shown(row['values'])}): leave them empty."
        return
    if values is not None and len(values) < 3:
        missing = next(k for k in eu.CHARACTERISTICS if getattr(c, k) is None)
        problems[_field(where, missing)] = f"Give all three values for {row['name']}, or none (they are rolled)."
        return
    if period is None:
        return
    for problem in eu.named_problems(row, period=period.name, turn=turn, values=row.get("values") or values):
        key = "adm" if "needs" in problem else "named"
        problems.setdefault(_field(where, key), problem + ".")


def _shown(values: Mapping[str, int]) -> str:
    return "/".join(str(values[k]) for k in eu.CHARACTERISTICS)


# --- what the table events and the set-up form show ----------------------------------------------


def value_range() -> tuple[int, int]:
    return eu.VALUE_RANGE


def military_dice() -> DiceSpec:
    return eu.MILITARY_DICE


def military_note(tables: Mapping[str, Any], mil: int, bonus: Mapping[str, int]) -> str:
    return words.military_note(tables[eu.MILITARY], mil, bonus)


def ransom_words(tables: Mapping[str, Any], *, major: bool, currency: str) -> str:
    return words.ransom_words(tables[eu.RANSOM], major=major, currency=currency)


def named_monarchs(tables: Mapping[str, Any], country: str) -> list[Mapping[str, Any]]:
    return eu.named_of(tables[eu.NAMED], tables[eu.COUNTRIES], country)


def setup_countries(tables: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    return eu.setup_countries(tables[eu.COUNTRIES])


def period_rows(tables: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(tables[eu.PERIODS]["periods"])
