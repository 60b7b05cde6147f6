"""Who the board's deaths strike, at what odds, and the successions decided before the dice
(RULES.md A5, A7; issue 31). Read by the table events' forms (``dynasties.table_events.deaths``) and
checked by ``services.events.survival_event``: the form offers what this module allows, and the
service refuses anything else with the rule it breaks.

- Who an event may strike (:func:`exposed`, :func:`check_struck`): in Blood Royale a battle, a storm
  and a plague take the royal pieces on the map (the King, the Princes with pieces); in BloodLine a
  storm takes a royal leader; a prisoner is never struck ("Captured characters may not be killed").
- Optional rule G (:func:`families`, :func:`rule_g_rollers`): a plague in a governed province strikes
  its Governor, his or her spouse and their children up to 15, at -1 and +1 for each other province he
  governs that the plague spared.
- The odds beside each (:func:`odds_note`): the survival check the service makes, spelt out.
- Successions decided before the roll (:func:`pass_overs_if_dies`, :func:`check_pass_over`,
  :func:`pass_over_applied`): the heirs the crown's player may pass over if the monarch dies, as the
  succession view computes them ("what if he dies"); applied only to the crowns the event leaves
  vacant, without the heirs who died with him.

Nothing here writes."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from campaign.models import Campaign
from campaign.steps import load_tables
from dynasties.models import FREE, Character, Marriage, Reign, Status, Title
from dynasties.services.bloodline_sequence import royal_leaders
from dynasties.services.common import World
from dynasties.services.play_registry import play_of
from dynasties.services.succession import line_with_pass_over
from dynasties.services.succession_view import PassOverView, succession_what_if
from dynasties.services.survival import birth_penalties
from rules.captures import OnTheMap
from rules.dice import DiceSpec
from rules.errors import RuleError

PASS_OVER_LIMIT = 3
"""How far down each line the form offers heirs to pass over: the first three (the one who would
succeed, and those a player passing him over would most likely let succeed instead); the service takes
any heir the rules allow, and the house's page shows the whole line ("what if he dies")."""


# --- who an event may strike -------------------------------------------------------------------


def _free_living(campaign: Campaign) -> Iterable[Character]:
    return Character.objects.filter(FREE, campaign=campaign, status=Status.ALIVE).select_related("controlled_by")


def _leaders(campaign: Campaign) -> set[int]:
    """BloodLine: every crown's royal leaders now (the heirs of 15 or more of the present dynasty)."""
    world = World(campaign)
    return {c.pk for crown in sorted(world.crowns) for c in royal_leaders(world, crown)}


def exposed(campaign: Campaign, reason: str) -> list[Character]:
    """Who the event may strike (free and alive): Blood Royale's battle, storm and plague the royal
    pieces on the map; BloodLine's storm a royal leader; a death decided at the table anybody."""
    people = list(_free_living(campaign))
    play = play_of(campaign).events
    on_the_map = play.on_the_map()
    if play.strikes_pieces(reason) and on_the_map == OnTheMap.PIECES:
        return [c for c in people if c.prince_piece]
    if reason == "storm" and on_the_map == OnTheMap.LEADERS:
        leaders = _leaders(campaign)
        return [c for c in people if c.pk in leaders]
    return people


def check_struck(campaign: Campaign, reason: str, people: Sequence[Character], *, by_piece: bool = True) -> None:
    """Refuse, with the rule, anyone the event may not strike. ``by_piece``: whether these are
    struck for where their piece is (False: a Governor's family under rule G)."""
    play = play_of(campaign).events
    on_the_map = play.on_the_map()
    leaders = _leaders(campaign) if reason == "storm" and on_the_map == OnTheMap.LEADERS else None
    for c in people:
        captor = None
        if c.is_prisoner:
            captor = f"the house of {c.prisoner_of.name}" if c.prisoner_of is not None else "the neutrals"
        piece = c.prince_piece if on_the_map == OnTheMap.PIECES and by_piece else "-"
        problem = play.struck_problem(reason, name=c.display_name, piece=piece, captor=captor)
        if problem is None and leaders is not None and c.pk not in leaders:
            problem = f"{play.at_sea_rule()}. {c.display_name} is not one of them."
        if problem is not None:
            raise RuleError(problem, code="not_struck", fields={"characters": "not_struck"})


# --- optional rule G: a Governor's family --------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """A Governor's household, which a plague in one of his provinces strikes (optional rule G)."""

    governor: Character
    titles: tuple[Title, ...]  # every title he holds now
    members: tuple[Character, ...]  # the Governor, his or her spouse, their children up to 15 (alive, free)


def families(campaign: Campaign) -> list[Family]:
    """Every living Governor's household, by the first title he holds (empty without rule G)."""
    if not campaign.option("governing_provinces"):
        return []
    titles = list(
        Title.objects.filter(campaign=campaign, holder__status=Status.ALIVE)
        .select_related("holder__controlled_by")
        .order_by("name", "pk")
    )
    held: dict[int, list[Title]] = {}
    for t in titles:
        assert t.holder_id is not None
        held.setdefault(t.holder_id, []).append(t)
    if not held:
        return []
    year = campaign.current_year
    spouses: dict[int, set[int]] = {}
    for husband, wife in Marriage.objects.filter(
        campaign=campaign, ended_year__isnull=True, wedding_year__isnull=False
    ).values_list("husband_id", "wife_id"):
        spouses.setdefault(husband, set()).add(wife)
        spouses.setdefault(wife, set()).add(husband)
    wanted = set(held) | {s for g in held for s in spouses.get(g, ())}
    # up to 15, and born by now: a child the turn's births date later is not yet born to be struck
    up_to = play_of(campaign).events.household_children_up_to()
    young = Character.objects.filter(campaign=campaign, status=Status.ALIVE, birth_year__gte=year - up_to, birth_year__lte=year)
    people = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=wanted).select_related("controlled_by")}
    children: dict[int, list[Character]] = {}
    for child in young.select_related("controlled_by").order_by("birth_year", "birth_order", "pk"):
        for parent in held.keys() & {child.father_id, child.mother_id}:
            children.setdefault(parent, []).append(child)
    out = []
    for governor_id, his in held.items():
        governor = his[0].holder
        assert governor is not None
        members = [governor, *(people[s] for s in sorted(spouses.get(governor_id, ())) if s in people)]
        members += children.get(governor_id, [])
        alive = tuple(c for c in members if c.status == Status.ALIVE and not c.is_prisoner)
        out.append(Family(governor, tuple(his), alive))
    return out


@dataclass(frozen=True)
class Roller:
    """One who rolls under rule G, and why."""

    character: Character
    modifier: int  # the event's part: -1, +1 for each other governed province spared
    why: str


def rule_g_rollers(campaign: Campaign, titles: Sequence[int]) -> dict[int, Roller]:
    """Who a plague in these governed provinces strikes (optional rule G), each with the best
    modifier his households give him. Refuses a title that is not a living Governor's."""
    if not titles:
        return {}
    if not campaign.option("governing_provinces"):
        raise RuleError(
            "Optional rule G (Governing Provinces) is not played in this campaign: no province is governed.",
            code="rule_g_off",
            fields={"titles": "rule_g_off"},
        )
    struck = set(titles)
    households = families(campaign)
    known = {t.pk for f in households for t in f.titles}
    unknown = sorted(struck - known)
    if unknown:
        raise RuleError(
            f"Title #{unknown[0]} is not a province governed by a living Governor of this campaign.",
            code="not_governed",
            fields={"titles": "not_governed"},
        )
    out: dict[int, Roller] = {}
    play = play_of(campaign).events
    for f in households:
        hit = [t for t in f.titles if t.pk in struck]
        if not hit:
            continue
        modifier = play.plague_modifier(len(f.titles), len(hit))
        where = ", ".join(t.province for t in hit)
        spared = len(f.titles) - len(hit)
        for c in f.members:
            role = "Governor" if c.pk == f.governor.pk else f"of the household of {f.governor.display_name}, Governor"
            why = f"{role} of {where} (optional rule G; {spared} other governed province{'s' if spared != 1 else ''} spared)"
            if c.pk not in out or out[c.pk].modifier < modifier:
                out[c.pk] = Roller(c, modifier, why)
    return out


# --- the odds --------------------------------------------------------------------------------------


def odds_notes(campaign: Campaign, people: Iterable[Character], extra: int | Mapping[int, int]) -> dict[int, str]:
    """The odds each would survive this event's roll, as the service will check it (the survival
    table, his Constitution, this turn's birth penalty and the event's ``extra``)."""
    tables = load_tables(campaign)
    penalties = birth_penalties(campaign)
    play = play_of(campaign).events
    out = {}
    for c in people:
        more = extra.get(c.pk, 0) if isinstance(extra, Mapping) else extra
        out[c.pk] = play.survival_odds(tables, c.as_person(), campaign.current_year, more + penalties.get(c.pk, 0))
    return out


# --- successions decided before the dice -----------------------------------------------------------


@dataclass(frozen=True)
class IfDies:
    """An heir the crown's player may pass over if the monarch dies in the event."""

    heir: Character
    crowns: tuple[str, ...]
    monarchs: tuple[Character, ...]
    kin: str
    age: int
    cost: str  # what passing him over would cost, in the succession view's words


def reigning(campaign: Campaign, among: Collection[int] | None = None) -> list[Reign]:
    """The open reigns (of these monarchs), by crown."""
    reigns = Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder__status=Status.ALIVE)
    if among is not None:
        reigns = reigns.filter(holder_id__in=list(among))
    return list(reigns.select_related("holder").order_by("crown"))


def pass_overs_if_dies(campaign: Campaign, among: Collection[int] | None = None) -> list[IfDies]:
    """For each monarch (of ``among``; None: every one) the event may kill, the heirs his crown's
    player may pass over if he dies, with the cost (``succession_what_if``: as if he died now). An
    heir offered by two crowns is one entry."""
    found: dict[int, IfDies] = {}
    charisma_dice = play_of(campaign).succession.charisma_loss_dice()
    for reign in reigning(campaign, among):
        try:
            line = succession_what_if(campaign=campaign, crown=reign.crown, dies=[reign.holder_id], limit=PASS_OVER_LIMIT)
        except RuleError:
            continue  # the line cannot be read now; the succession service will say why
        for e in line.entries:
            if e.pass_over is None or not e.pass_over.allowed:
                continue
            cost = short_cost(e.pass_over, charisma_dice)
            known = found.get(e.character.pk)
            if known is None:
                found[e.character.pk] = IfDies(e.character, (reign.crown,), (reign.holder,), e.kin, e.age, cost)
            else:
                found[e.character.pk] = IfDies(
                    e.character,
                    (*known.crowns, reign.crown),
                    (*known.monarchs, reign.holder),
                    known.kin,
                    known.age,
                    f"{known.cost} / {reign.crown}: {cost}",
                )
    return list(found.values())


def short_cost(view: PassOverView, charisma_dice: DiceSpec) -> str:
    """What passing an heir over costs, in a line (the succession view's sentences, shortened):
    'under optional rule C: -1 Strength for the house of Valois; the new monarch's Charisma roll
    (1d6); exile with the house of Anjou' (``charisma_dice``: the ruleset's). BloodLine's price is
    short already."""
    if view.cost is None:
        return f"{view.text}: " + "; ".join(view.costs[:3]) if view.costs else view.text
    parts = []
    if view.usurper is not None:
        parts.append(f"{view.cost.usurper_strength:+d} Strength for the house of {view.usurper.name}")
    if view.rival is not None:
        parts.append(f"{view.cost.rival_strength:+d} for the house of {view.rival.name} against it")
    if view.cost.charisma_roll:
        parts.append(f"the new monarch's Charisma roll ({charisma_dice})")
    if view.exile_to is not None:
        parts.append(f"exile with the house of {view.exile_to.name}")
    return f"{view.text}: " + "; ".join(parts) if parts else view.text


def crowns_of_heirs(campaign: Campaign, heirs: Sequence[int], among: Collection[int] | None = None) -> dict[str, list[int]]:
    """The pass-over decisions as the succession service takes them (crown -> heirs) from heirs picked
    in the form: each in every crown (of ``among``'s monarchs) whose line lets him be passed over."""
    chosen = set(heirs)
    out: dict[str, list[int]] = {}
    for entry in pass_overs_if_dies(campaign, among):
        if entry.heir.pk in chosen:
            for crown in entry.crowns:
                out.setdefault(crown, []).append(entry.heir.pk)
    missing = chosen - {pk for heirs in out.values() for pk in heirs}
    if missing:
        raise RuleError(
            f"Character #{min(missing)} is not an heir who may be passed over if a monarch struck by this event dies.",
            code="not_in_line",
            fields={"pass_over": "not_in_line"},
        )
    return out


def check_pass_over(campaign: Campaign, pass_over: Mapping[str, Sequence[int]], dying: Collection[int]) -> dict[str, list[int]]:
    """The successions decided before the dice, checked as the succession will walk them: each crown's
    monarch must be among those the event may kill (``dying``) or dead already, and its heirs must be
    ones the rules let pass over, ahead of the one who would then succeed (the walk made dry, as if
    the monarch had died)."""
    out: dict[str, list[int]] = {}
    for crown, heirs in pass_over.items():
        chosen = list(dict.fromkeys(int(pk) for pk in heirs))
        if not chosen:
            continue
        reign = Reign.objects.filter(campaign=campaign, crown=crown, end_year__isnull=True).select_related("holder").first()
        if reign is None:
            raise RuleError(f"{crown} has no reigning monarch: nobody to pass over.", code="no_succession")
        if reign.holder_id not in dying and reign.holder.status != Status.DEAD:
            raise RuleError(
                f"{reign.holder.display_name} of {crown} is not among those this event may kill: there is no "
                "succession in which to pass anyone over.",
                code="no_succession",
                fields={"pass_over": "no_succession"},
            )
        world = World(campaign)
        late = world.characters[reign.holder_id]
        late.status = Status.DEAD  # as if he died (in memory only: nothing is saved)
        world.refresh_person(late)
        try:
            line_with_pass_over(world, crown, chosen)
        except RuleError as exc:
            raise RuleError(
                f"If {late.display_name} dies: {exc.message}", code=exc.code, fields={"pass_over": exc.code}
            ) from None
        out[crown] = chosen
    return out


def pass_over_applied(campaign: Campaign, decided: Mapping[str, Sequence[int]]) -> dict[str, list[int]]:
    """What the succession takes of the decisions made before the dice: the crowns whose monarch now
    lies dead, without the heirs who died too."""
    if not decided:
        return {}
    vacant = set(
        Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder__status=Status.DEAD).values_list("crown", flat=True)
    )
    ids = {pk for heirs in decided.values() for pk in heirs}
    dead = set(Character.objects.filter(campaign=campaign, pk__in=ids, status=Status.DEAD).values_list("pk", flat=True))
    out = {}
    for crown, heirs in decided.items():
        left = [pk for pk in heirs if pk not in dead]
        if crown in vacant and left:
            out[crown] = left
    return out
