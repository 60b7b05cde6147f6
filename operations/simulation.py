"""An automatic player: plays whole turns through the services (the ``simulate`` command).

Policy: every eligible couple makes a birth roll, and up to two more while it has fewer than
three living children, the wife is 40 or younger and the extra attempt would not push her
Constitution below -1; every survival roll is made; betrothed couples of age are wed; unmatched
adults of different houses and dynastic names are matched, the eldest man first, with the
closest in age among the women aged 15-40 whom the rules let him marry; but no man of a house
that already has ``house_size`` living members (``HOUSE_SIZE`` by default) is matched, and no extra
birth roll is made for its couples: a table keeps its houses to a size its players can follow
(without the limit the houses grew about 2.5x every 10 turns from turn 30: 1,149 characters at 50
turns, so that 100- and 200-turn campaigns could not be built). A strategy, not a rule: a house's
daughters still marry out, its couples still roll their births, and the rules are untouched.

The rest of the law (``play_law``, with ``law=True``, as the ``simulate`` command plays), now and
then, each choice on the seeded source's dice: the player of a crown whose monarch died passes the
first heir over when the rules allow it (an heir held prisoner always); plague, battle (survivors
taken prisoner) and storm; royals on the map taken by the neutrals or another house, and released a
turn later (the neutrals' ransom, a ransom between houses, or for nothing; BloodLine holds an heir
apparent while his King lives, and decides the released heir's claim); marriage contracts (a dowry
the bride's house can afford, a gift, her renunciation), pacts of peace with a tribute, breaches put
to a parley (Blood Royale) or to the other players' majority (BloodLine), readmission parleys; Blood
Royale's Interphase every turn (taxes, two armies raised and then kept, a rebellion bought off when affordable),
governors (rule G), Pretenders (bought back now and then when their house can pay) and bastards, the three-player game's
auction of each aristocratic child of age; BloodLine's offers for a minor house's children (the
simulated campaign has one, Savoy), titles for a King's children and Stability shaken at the table;
EU monarchs' Doge (Venice), Poland's elective era, each new monarch's military skill and captured
monarchs ransomed. ``LAW`` names each ruleset's parts of the law and ``law_summary`` counts how
often a campaign played each.

Every play is made for ``by``, passed to every service as a person's door would: the ``simulate``
command, the demo and the benchmarks pass ``SYSTEM_ACTOR``; a campaign's prehistory, its GM.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from django.db import models

from campaign.models import Campaign, ChronicleEntry, Roll, Step
from campaign.permissions import Actor
from contracts import services as contract_services
from contracts.models import Breach, Contract, ContractKind, ContractState, Dispute, Excommunication, Parley
from dynasties import services, treasury
from dynasties.models import (
    FREE,
    Character,
    ControlChange,
    Dynasty,
    DynastyKind,
    Marriage,
    MarriageOffer,
    Posting,
    Reign,
    Status,
    Title,
)
from dynasties.selectors import living_children_counts
from dynasties.services import auction, event_deaths, events, interphase, pretenders, titles
from dynasties.services.births import CoupleTurn
from dynasties.services.common import World
from dynasties.services.marriages import marriage_checker, unmatched_adults
from dynasties.services.play_registry import play_named, play_of, plays, plays_interphase, step_of
from dynasties.services.setup import default_dynasties
from operations import simulation_corrections, simulation_end, simulation_provinces
from operations.simulation_diplomacy import diplomacy_played, play_diplomacy
from rules import crowns as crown_rules
from rules import interphase as ip_rules
from rules.dice import DiceSource, DiceSpec
from rules.errors import RuleError

_T = TypeVar("_T")

MAX_WIFE_AGE_FOR_EXTRA = 40
MAX_BRIDE_AGE = 40
HOUSE_SIZE = 20
"""Living members from which a house arranges no more matches for its men: about what one player
follows at a table (the rulebooks' starting families have 5 or 6; a family sheet a player can keep
in mind holds a monarch, his children and grandchildren, a few in-laws and cadets), and large enough
that every part of the law still comes up (heirs, regencies, pass-overs need families)."""


def house_sizes(campaign: Campaign) -> dict[int, int]:
    """House (dynasty id) -> its living members."""
    rows = (
        Character.objects.filter(campaign=campaign, status=Status.ALIVE, controlled_by__isnull=False)
        .values("controlled_by")
        .annotate(n=models.Count("id"))
        .order_by()
    )
    return {r["controlled_by"]: r["n"] for r in rows}


def wants_another_child(turn: CoupleTurn, children: dict[int, int], year: int, full: Container[int] = ()) -> bool:
    """Up to three living children while the wife is young and strong enough; none more for a house
    already at its size (``full``: the houses that are)."""
    m = turn.marriage
    return (
        children.get(m.pk, 0) + turn.children_this_turn < 3
        and m.wife.age(year) <= MAX_WIFE_AGE_FOR_EXTRA
        and turn.wife_constitution_after_next >= -1
        and m.husband.controlled_by_id not in full
    )


def play_births(campaign: Campaign, source: DiceSource, *, house_size: int = HOUSE_SIZE, by: Actor) -> None:
    children = living_children_counts(campaign)
    full = {house for house, n in house_sizes(campaign).items() if n >= house_size}
    year = campaign.current_year
    services.births_roll_all(
        campaign=campaign, source=source, extra=lambda turn: wants_another_child(turn, children, year, full), by=by
    )
    services.births_finish(campaign=campaign, by=by)


def wed_due(campaign: Campaign, *, by: Actor) -> None:
    """Wed every betrothed couple now of age (BloodLine: at the start of the Diplomacy phase)."""
    year = campaign.current_year
    play = play_of(campaign)
    bloodline = play.survival.effective_ages()
    adult = play.marriages.adult_age()
    betrothed = list(
        Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=True)
        .select_related("husband", "wife")
        .order_by("pk")  # the same order in any process and on any database
    )
    check = marriage_checker(campaign, [pk for m in betrothed for pk in (m.husband_id, m.wife_id)], wedding=True)
    due = [
        m.pk
        for m in betrothed
        if (m.husband.effective_age(year) if bloodline else m.husband.age(year)) >= adult
        and (m.wife.effective_age(year) if bloodline else m.wife.age(year)) >= adult
        and not (m.husband.prisoner_of_id or m.wife.prisoner_of_id)
        and check(m.husband, m.wife, m) == []
    ]
    if due:
        services.marriage_wed_many(campaign=campaign, marriages=due, by=by)


def play_marriages(campaign: Campaign, *, house_size: int = HOUSE_SIZE, by: Actor) -> None:
    year = campaign.current_year
    play = play_of(campaign).marriages
    if play.has_terms():  # betrothals now, weddings in the Diplomacy phase
        _match_adults(campaign, year, wed=False, house_size=house_size, by=by)
        services.marriages_finish(campaign=campaign, by=by)
        return
    due = [
        m.pk
        for m in Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=True)
        .select_related("husband", "wife")
        .order_by("pk")  # the same order in any process and on any database
        if m.husband.age(year) >= play.adult_age()
        and m.wife.age(year) >= play.adult_age()
        and not (m.husband.prisoner_of_id or m.wife.prisoner_of_id)
    ]
    if due:
        services.marriage_wed_many(campaign=campaign, marriages=due, by=by)
    _match_adults(campaign, year, wed=True, house_size=house_size, by=by)
    services.marriages_finish(campaign=campaign, by=by)


def _match_adults(campaign: Campaign, year: int, *, wed: bool, house_size: int = HOUSE_SIZE, by: Actor) -> None:
    adults = unmatched_adults(campaign)
    men = [c for c in adults if c.sex == "M"]
    women = [c for c in adults if c.sex == "F" and c.age(year) <= MAX_BRIDE_AGE]
    matches: list[services.Match] = []
    check = marriage_checker(campaign, [c.pk for c in adults], wedding=wed)
    sizes = house_sizes(campaign)
    for man in men:
        if man.controlled_by_id is not None and sizes.get(man.controlled_by_id, 0) >= house_size:
            continue  # his house is as large as its player keeps it
        choices = [w for w in women if w.dynastic_name != man.dynastic_name and w.controlled_by_id != man.controlled_by_id]
        choices.sort(key=lambda w: (abs(w.birth_year - man.birth_year), w.birth_year, w.pk))
        # the first the rules allow (a passed-over heir's line, for one, makes no new marriages)
        bride = next((w for w in choices if check(man, w, None) == []), None)
        if bride is None:
            continue
        women.remove(bride)
        if bride.controlled_by_id != man.controlled_by_id and man.controlled_by_id is not None:
            sizes[man.controlled_by_id] = sizes.get(man.controlled_by_id, 0) + 1  # she will join his house
        if play_of(campaign).marriages.has_terms():  # a monarch's family asks a dowry and a title: the policy offers them
            matches.append(services.Match(man.pk, bride.pk, dowry="100 ducats", alliance_title="Count of the Marches"))
        else:
            matches.append(services.Match(man.pk, bride.pk))
    services.marriage_arrange_many(campaign=campaign, matches=matches, wed=wed, by=by)


EU_CROWNS_IN_PLAY = (("Venice", {"doge": True}), ("Poland", {"poland_era": True}))
"""The crowns no player rules that the automatic player puts in play, with their settings: Venice's
Doges and Poland's elective era."""


def play_eu_crowns(campaign: Campaign, *, by: Actor) -> None:
    """EU monarchs: Venice's Doges and Poland's elective era are in play from the first turn, set up
    before its monarchs' rolls so that their first monarchs are rolled with the others' (a crown
    already in the campaign is left as it is)."""
    from dynasties.models import Crown
    from dynasties.services import eu_monarchs

    names = set(Crown.objects.filter(campaign=campaign).values_list("name", flat=True))
    for crown, settings in EU_CROWNS_IN_PLAY:
        if crown not in names:
            _try(functools.partial(eu_monarchs.monarch_crown_configure, campaign=campaign, crown=crown, settings=settings, by=by))


def play_monarchs(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """EU monarchs: each throne rolls for its monarch's survival; an empty throne rolls a successor."""
    from dynasties.models import Crown
    from dynasties.services import eu_monarchs

    for crown in Crown.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True):
        status = eu_monarchs.monarch_status(campaign=campaign, crown=crown)
        if status.monarch is not None and not status.survival_rolled:
            try:
                if not eu_monarchs.monarch_survival_roll(campaign=campaign, crown=crown, source=source, by=by).died:
                    continue
            except RuleError as exc:  # a named monarch who makes no survival roll yet (Friedrich II)
                if exc.code != "no_survival_roll":
                    raise
                continue
        elif status.monarch is not None:
            continue
        eu_monarchs.monarch_succession_roll(campaign=campaign, crown=crown, source=source, by=by)


# --- the rest of the law: events, prisoners, contracts, the Interphase, titles, Pretenders ----
#
# Each play below happens now and then, on the seeded source's dice (never ``random``), and picks
# among candidates listed in a fixed order (by pk). A play the rules refuse (a RuleError: not a
# Prince, no money, the wrong step ...) is simply not made: the table would choose otherwise.

CHANCE_PLAGUE = 12  # 1 in 12 turns a royal is caught by plague (Blood Royale A5)
CHANCE_BATTLE = 6  # 1 in 6 turns a royal piece's army is wiped out
CHANCE_STORM = 12  # 1 in 12 a royal is lost at sea
CHANCE_CAPTURE = 4  # 1 in 4 turns a royal on the map is taken (a surrender, a rout: no roll)
CHANCE_NEUTRALS = 2  # of those, 1 in 2 by the neutrals
CHANCE_FREED = 3  # of a house's prisoners, 1 in 3 freed for nothing; the others ransomed
RANSOM = 60  # a ransom between houses, or to BloodLine's neutrals: up to this, what the house can pay
HELD_TURNS = 2  # turns a hostage is held at most: an heir apparent (BloodLine), one whose house cannot pay the neutrals
FREE_HEIR = models.Q(interim_for__prisoner_of__isnull=True, interim_for__held_by_neutrals=False)
CHANCE_PRETENDER = 8
CHANCE_BASTARD = 3  # of the turns with an unmarried King
BUY_BACK_RESERVE = 2  # a house buys its Pretender back, a turn later, once it holds twice his bribe (no die)
BID_STEP = 5  # a sealed bid for an aristocratic child: 5 Crowns times a die
CHANCE_CONTRACT = 3  # of a match wed this turn, 1 in 3 is sealed by a contract
CHANCE_AGREEMENT = 4  # 1 in 4 turns two houses sign a pact
TRIBUTE = 10  # a pact's yearly payment
CHANCE_BREACH = 20  # of a contract in force, 1 in 20 a turn is broken
CHANCE_REVOLT = 8
CHANCE_PASS_OVER = 3  # of the crowns whose monarch died, 1 in 3 passes over the first heir if it may
PASS_OVER_LIMIT = 3
CHANCE_OFFER = 2  # BloodLine: 1 in 2 turns a player offers for a minor house's child
CHANCE_WITHDRAW = 3  # BloodLine: 1 in 3 offers is withdrawn before the minor houses answer
CHANCE_MINOR_ENTERS = 4  # BloodLine: 1 in 4 turns, while one is left, a minor house of the board enters play
MINOR_HOUSES_TO_ENTER = (("Gonzaga", "Mantua"), ("Este", "Ferrara"))
ROYAL_MARRIAGE_BOXES = 3  # BloodLine: a minor crown's Royal Marriage box rating, 1d3 (set once)
MINOR_DOWRY_LEAST = 25  # BloodLine: the least a house offers (above any minimum of a rating of 1d3)
MINOR_DOWRY = 100  # BloodLine: 1 in 8 a crown's Stability is shaken at the table
CHANCE_REGENT = 2  # of the regencies going on, 1 in 2 a turn the player names another regent
CHANCE_GIVE_BACK = 2  # of the crowns held by another house, 1 in 2 a turn is given back
CHANCE_CAPITAL = 6  # 1 in 6 turns a capital falls (Blood Royale 18)
CHANCE_RETAKE = 2  # of the capitals lost, 1 in 2 a turn is retaken
CHANCE_INTERVENTION = 8  # 1 in 8 turns a ruler enlists foreign military aid (Blood Royale 20)
TYPICAL_STABILITY = {"enhance_stability": 1}  # the change a cause the board rolls for gives (else a level lost)
PROVINCES = 6  # a house's taxed provinces in the Interphase
ARMIES_KEPT = 2


def _d(source: DiceSource, sides: int) -> int:
    return source.faces(DiceSpec(1, sides))[0]


def _pick(source: DiceSource, items: Sequence[_T]) -> _T:
    return items[_d(source, len(items)) - 1] if len(items) > 1 else items[0]


def _try(play: Callable[[], object]) -> bool:
    """Make one play; False if the rules refuse it (nothing was written: each service is atomic)."""
    try:
        play()
    except RuleError:
        return False
    return True


def _players(campaign: Campaign) -> list[Dynasty]:
    return list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "pk"))


def _royals(campaign: Campaign) -> list[Character]:
    """The players' houses' royals of age (the ruleset's adult age), alive and free."""
    year = campaign.current_year
    min_age = campaign.rules.adult_age
    return [
        c
        for c in Character.objects.filter(
            campaign=campaign, status=Status.ALIVE, controlled_by__kind=DynastyKind.PLAYER
        ).order_by("pk")
        if c.age(year) >= min_age and not c.prisoner_of_id
    ]


def _monarch_ids(campaign: Campaign) -> set[int]:
    return set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("holder_id", flat=True))


def play_events(campaign: Campaign, source: DiceSource, *, by: Actor, phase: int | None = None) -> None:
    """Plague, battle (its survivors taken prisoner) and storm (prisoners: ``play_releases``);
    ``phase``: the Event/Movement phase they are recorded in (rule H's third: simulation_options)."""
    players = _players(campaign)
    royals = _royals(campaign)
    if not royals:
        return
    rolls = play_of(campaign).events.rolls_events()  # plague and battle rolls are Blood Royale's (A5)
    if rolls and _d(source, CHANCE_PLAGUE) == 1:  # a royal piece in a plague province, or (rule G) a governed one
        struck = [("piece", c.pk) for c in event_deaths.exposed(campaign, "plague")]
        struck += [("title", t.pk) for f in event_deaths.families(campaign) for t in f.titles]
        if struck:
            kind, pk = _pick(source, struck)
            _try(
                lambda: events.survival_event(
                    campaign=campaign,
                    reason="plague",
                    characters=[pk] if kind == "piece" else [],
                    titles=[pk] if kind == "title" else [],
                    source=source,
                    phase=phase,
                    by=by,
                )
            )
    if rolls and _d(source, CHANCE_BATTLE) == 1:  # a royal piece whose army is wiped out
        fielded = event_deaths.exposed(campaign, "battle")
        if fielded:
            who = _pick(source, fielded)
            captors: list[int | str] = [d.pk for d in players if d.pk != who.controlled_by_id]
            captors.append(events.NEUTRALS)
            _try(
                lambda: events.survival_event(
                    campaign=campaign,
                    reason="battle",
                    characters=[who.pk],
                    captor=_pick(source, captors),
                    source=source,
                    phase=phase,
                    by=by,
                )
            )
    if _d(source, CHANCE_STORM) == 1:  # a royal aboard a fleet lost at sea (not the King: he seldom sails)
        monarchs = _monarch_ids(campaign)
        lost = [c for c in event_deaths.exposed(campaign, "storm") if c.pk not in monarchs]
        if lost:
            _try(
                lambda: events.survival_event(
                    campaign=campaign, reason="storm", characters=[_pick(source, lost).pk], source=source, phase=phase, by=by
                )
            )


def play_pretenders(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """Event cards 18-22 (a Pretender) and 38-39 (a King's bastard), now and then (with rule E)."""
    if not pretenders.event_cards_in_force(campaign):
        return
    if _d(source, CHANCE_PRETENDER) == 1:
        world = World(campaign, living_only=True)
        royals = [world.characters[c.pk] for c in _royals(campaign)]
        able = [c for c in royals if not pretenders.pretender_problems(world, c, campaign.current_year)]
        if able:
            _try(lambda: pretenders.pretender_declare(campaign=campaign, character=_pick(source, able).pk, by=by))
    if _d(source, CHANCE_BASTARD) == 1:
        kings = _monarch_ids(campaign)
        married = set(
            Marriage.objects.filter(campaign=campaign, ended_year__isnull=True, wedding_year__isnull=False).values_list(
                "husband_id", flat=True
            )
        )
        fathers = [c for c in _royals(campaign) if c.pk in kings and c.sex == "M" and c.pk not in married]
        if fathers:
            _try(lambda: pretenders.bastard_create(campaign=campaign, father=_pick(source, fathers).pk, source=source, by=by))
    buy_back = play_of(campaign).succession.pretender_terms().buy_back
    declared = ControlChange.objects.filter(campaign=campaign, cause="pretender", year=campaign.current_year)
    abroad = (
        Character.objects.filter(campaign=campaign, status=Status.ALIVE, pretender_of__isnull=False)
        .exclude(controlled_by=models.F("pretender_of"))
        .exclude(pk__in=declared.values("character_id"))  # abroad a turn first
        .order_by("pk")
    )
    for pretender in abroad:
        home = pretender.pretender_of_id
        if treasury.balance(campaign, home) >= BUY_BACK_RESERVE * buy_back:
            _try(functools.partial(pretenders.pretender_buy_back, campaign=campaign, character=pretender.pk, by=by))


def play_auctions(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """The three-player game: each child of the aristocratic family old enough to wed and not yet
    matched is auctioned before the marriages; every house that can pay the deposit and a bid bids
    5 Crowns times a die (a tie is bid again, up to three times)."""
    if not Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.ARISTOCRATIC).exists():
        return
    children = Character.objects.filter(
        campaign=campaign, status=Status.ALIVE, controlled_by__kind=DynastyKind.ARISTOCRATIC
    ).order_by("pk")
    for child in children:
        if auction.auction_problems(campaign, child):
            continue
        for _ in range(3):
            bids = {}
            for house in _players(campaign):
                bid = BID_STEP * _d(source, 6)
                if treasury.balance(campaign, house) >= auction.DEPOSIT + bid:
                    bids[house.pk] = bid
            if not bids or _try(functools.partial(auction.auction_run, campaign=campaign, character=child.pk, bids=bids, by=by)):
                break


def play_titles(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """Rule G: a house makes its eldest untitled Prince Governor of one of its provinces."""
    if not play_of(campaign).succession.title_terms().governors or not campaign.option("governing_provinces"):
        return
    held = set(Title.objects.filter(campaign=campaign).values_list("holder_id", flat=True))
    for house in _players(campaign):
        kings = _monarch_ids(campaign)
        princes = [
            c
            for c in _royals(campaign)
            if c.controlled_by_id == house.pk
            and c.birth_dynasty_id == house.pk
            and c.sex == "M"
            and c.pk not in held
            and c.pk not in kings
        ]
        if not princes or _d(source, 4) != 1:
            continue
        prince = min(princes, key=lambda c: (c.birth_year, c.pk))
        province = f"{house.crown or house.name} province {Title.objects.filter(campaign=campaign).count() + 1}"
        _try(functools.partial(titles.title_grant, campaign=campaign, character=prince.pk, province=province, by=by))


def _on_the_map(campaign: Campaign) -> list[Character]:
    """The free royals of the players' houses whom the rules put on the map, oldest house first."""
    people = list(
        Character.objects.filter(FREE, campaign=campaign, status=Status.ALIVE, controlled_by__kind=DynastyKind.PLAYER)
        .select_related("controlled_by")
        .order_by("pk")
    )
    return events.may_be_captured(campaign, people)


def _first_heirs(campaign: Campaign, among: Sequence[Character]) -> list[Character]:
    """Of ``among``, the heirs apparent (the first of each crown's royal leaders), the oldest
    monarch's first: the captures that make a disputed succession (BloodLine A) come up."""
    from dynasties.services.bloodline_sequence import royal_leaders
    from dynasties.services.common import World

    world = World(campaign, living_only=True)
    year = campaign.current_year
    reigns = sorted(world.open_reigns(), key=lambda r: (-world.characters[r.holder_id].age(year), r.crown))
    wanted = {c.pk for c in among}
    out = []
    for reign in reigns:
        leaders = royal_leaders(world, reign.crown)
        if leaders and leaders[0].pk in wanted:
            out.append(next(c for c in among if c.pk == leaders[0].pk))
    return out


def play_captures(campaign: Campaign, source: DiceSource, *, by: Actor, phase: int | None = None) -> None:
    """Now and then a royal on the map is taken (the capture itself, no battle roll: a surrender, a
    rout): by the neutrals (a country no player controls), or by another player's house. BloodLine
    takes the heir apparent of its oldest monarch first, the capture a disputed succession needs."""
    if _d(source, CHANCE_CAPTURE) != 1:
        return
    players = _players(campaign)
    taken = _on_the_map(campaign)
    if plays(campaign, "monarchs"):
        return  # the EU monarch tables take monarchs in battle (play_monarchs_law)
    if play_of(campaign).succession.crown_terms().royal_leaders:
        taken = _first_heirs(campaign, taken) or taken
    if not taken:
        return
    who = taken[0] if play_of(campaign).succession.crown_terms().royal_leaders else _pick(source, taken)
    captors = [d for d in players if d.pk != who.controlled_by_id]
    if _d(source, CHANCE_NEUTRALS) == 1 or not captors:
        _try(
            lambda: events.character_capture(
                campaign=campaign, characters=[who.pk], neutrals=True, reason="taken by a neutral army", phase=phase, by=by
            )
        )
        return
    _try(
        lambda: events.character_capture(
            campaign=campaign,
            characters=[who.pk],
            captor=_pick(source, captors).pk,
            reason="surrendered in battle",
            phase=phase,
            by=by,
        )
    )


def play_releases(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """Prisoners taken in an earlier turn go home: the neutrals' ransom paid by the prisoner's house
    (Blood Royale: 100; BloodLine: what it can, up to 100), a ransom between houses (what the house
    can pay, up to ``RANSOM``), or freed for nothing (1 in ``CHANCE_FREED``, or when his house cannot
    pay after ``HELD_TURNS`` turns). Then a released heir's claim on a throne held in the interim
    is recognised or refused (BloodLine A: the crown's player decides)."""
    year = campaign.current_year
    held = Character.objects.filter(campaign=campaign, status=Status.ALIVE).exclude(FREE).order_by("pk")
    interim_for = set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("interim_for_id", flat=True))
    for prisoner in held:
        taken = (
            ChronicleEntry.objects.filter(campaign=campaign, kind="capture", data__character=prisoner.pk)
            .order_by("-pk")
            .values_list("year", flat=True)
            .first()
        )
        if taken is not None and taken >= year:
            continue  # taken this turn: held at least until the next
        house = prisoner.controlled_by_id
        long_held = taken is None or year - taken >= HELD_TURNS * max(1, campaign.turn_length)
        if play_of(campaign).succession.crown_terms().royal_leaders and not long_held and prisoner.pk not in interim_for:
            continue  # the heir apparent is a hostage while his King lives (BloodLine A needs his King's death)
        cash = max(0, treasury.balance(campaign, house)) if house is not None else 0
        price = play_of(campaign).events.neutral_ransom() if prisoner.held_by_neutrals else 0
        if prisoner.held_by_neutrals:
            ransom = price if price else min(RANSOM, cash)
            freed = price > cash if price else ransom == 0
        else:
            ransom = min(RANSOM, cash) if house != prisoner.prisoner_of_id else 0
            freed = ransom == 0 or _d(source, CHANCE_FREED) == 1
        if freed and prisoner.held_by_neutrals and price and not long_held:
            continue  # his house gathers the neutrals' price
        _try(
            functools.partial(
                events.character_release, campaign=campaign, characters=[prisoner.pk], ransom=0 if freed else ransom, by=by
            )
        )
    play_interim_claims(campaign, source, by=by)


def play_interim_claims(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """BloodLine A: each released heir's claim, recognised or refused (an even chance)."""
    if not play_of(campaign).events.interim_claims():
        return
    from dynasties.services.interim import interim_claim_resolve

    waiting = Reign.objects.filter(
        FREE_HEIR, campaign=campaign, end_year__isnull=True, interim_for__status=Status.ALIVE
    ).order_by("crown")
    for crown in list(waiting.values_list("crown", flat=True)):
        _try(
            functools.partial(
                interim_claim_resolve, campaign=campaign, crown=crown, recognize=_d(source, 2) == 1, source=source, by=by
            )
        )


def play_minor_houses(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """BloodLine, Marriages step: each minor crown's Royal Marriage box rating is set once (1d3, as
    the board would show it), and now and then a minor house of the board enters play by the minor
    set-up (the server's dice)."""
    from dynasties.models import Crown
    from dynasties.services import minor_houses

    box_key = step_of(campaign, "minor_houses").terms().box_key
    for crown in Crown.objects.filter(campaign=campaign, home_dynasty__kind=DynastyKind.MINOR).order_by("name"):
        if box_key not in (crown.state or {}):
            rating = _d(source, ROYAL_MARRIAGE_BOXES)
            _try(
                functools.partial(minor_houses.royal_marriage_box_set, campaign=campaign, crown=crown.name, rating=rating, by=by)
            )
    taken = set(Dynasty.objects.filter(campaign=campaign).values_list("crown", flat=True))
    left = [(name, crown) for name, crown in MINOR_HOUSES_TO_ENTER if crown not in taken]
    if left and _d(source, CHANCE_MINOR_ENTERS) == 1:
        name, entering = left[0]
        _try(lambda: minor_houses.minor_house_create(campaign=campaign, name=name, crown=entering, source=source, by=by))


def play_minor_offers(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """BloodLine, Marriages step: a player's unmatched son or daughter is offered (with a dowry the
    house can afford) for a minor house's unmarried child of 15 or more now and then; the minor
    houses then answer every offer (their own seeded rolls)."""
    from dynasties.services import minor_houses

    kings = _monarch_ids(campaign)
    children = [c for c in minor_houses.answered_now(campaign) if c.pk not in kings]  # unmarried, 15 or more, free
    purses = {d.pk: treasury.balance(campaign, d.pk) for d in _players(campaign)}
    suitors = [c for c in unmatched_adults(campaign) if purses.get(c.controlled_by_id or 0, 0) >= MINOR_DOWRY_LEAST]
    if children and _d(source, CHANCE_OFFER) == 1:
        child = _pick(source, children)
        fits = [c for c in suitors if c.sex != child.sex and c.controlled_by_id != child.controlled_by_id]
        if fits:
            suitor = _pick(source, fits)
            cash = purses[suitor.controlled_by_id or 0]
            made: list[MarriageOffer] = []

            def offer(dowry: int) -> None:
                made.append(
                    minor_houses.offer_make(campaign=campaign, minor_character=child.pk, suitor=suitor.pk, dowry=dowry, by=by)
                )

            for dowry in (MINOR_DOWRY, 2 * MINOR_DOWRY, 4 * MINOR_DOWRY, MINOR_DOWRY_LEAST):  # a poorer house offers less
                if dowry <= max(cash, 0) and _try(functools.partial(offer, dowry)):
                    break
            if made and _d(source, CHANCE_WITHDRAW) == 1:  # the player thinks better of it
                _try(lambda: minor_houses.offer_withdraw(campaign=campaign, offer=made[0].pk, reason="a better match", by=by))
    if children:
        _try(lambda: minor_houses.offers_resolve(campaign=campaign, source=source, by=by))


def play_bloodline_titles(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """BloodLine: now and then a King titles his eldest untitled child (a county of value 1)."""
    from dynasties.services import bloodline_titles

    held = set(Title.objects.filter(campaign=campaign, holder__isnull=False).values_list("holder_id", flat=True))
    year = campaign.current_year
    for reign in Reign.objects.filter(campaign=campaign, end_year__isnull=True).select_related("holder").order_by("crown"):
        king = reign.holder
        house = king.controlled_by_id if king is not None else None
        if king is None or house is None or _d(source, 4) != 1:
            continue
        kids = [
            c
            for c in Character.objects.filter(campaign=campaign, status=Status.ALIVE)
            .filter(models.Q(father=king) | models.Q(mother=king))
            .order_by("birth_year", "pk")
            if c.pk not in held and c.age(year) >= campaign.rules.adult_age
        ]
        if kids:
            n = Title.objects.filter(campaign=campaign).count() + 1
            _try(
                functools.partial(
                    bloodline_titles.bloodline_title_grant,
                    campaign=campaign,
                    giver=house,
                    character=kids[0].pk,
                    name=f"Count of {reign.crown} {n}",
                    provinces=[{"name": f"{reign.crown} county {n}", "value": 1}],
                    by=by,
                )
            )


def play_title_income(campaign: Campaign, *, by: Actor) -> None:
    """BloodLine: every title draws its income of the turn (the least to the provinces' controller)."""
    from dynasties.services import bloodline_titles

    for title in bloodline_titles.titles_with_income_due(campaign):
        _try(functools.partial(bloodline_titles.title_income_pay, campaign=campaign, title=title.pk, by=by))


def play_stability(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """BloodLine and EU monarchs: now and then the board shakes a crown's Stability, for each cause the
    rulebook names in turn (a war lost, a bankruptcy, a peace, Enhance Stability, levies, another): the
    rule's own change, or a level lost (Enhance Stability: a level gained). One die a crown, as before
    the causes were told apart: the seeds play the rest of the law as they did."""
    from dynasties.models import Crown, CrownEvent
    from dynasties.services import bloodline

    causes = crown_rules.BOARD_CAUSES
    played = CrownEvent.objects.filter(campaign=campaign, cause__in=list(crown_rules.CAUSES)).count()
    for crown in Crown.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True):
        if _d(source, CHANCE_REVOLT) == 1:
            cause = causes[played % len(causes)]
            played += 1
            delta = cause.delta if cause.delta is not None else TYPICAL_STABILITY.get(cause.key, -1)
            _try(
                functools.partial(
                    bloodline.crown_stability_change,
                    campaign=campaign,
                    crown=crown,
                    cause=cause.key,
                    delta=delta,
                    reason="a war at sea" if cause.key == "table" else "",
                    by=by,
                )
            )


def _taken_in(campaign: Campaign) -> dict[int, int]:
    """Crown id -> the year its controller last changed."""
    from dynasties.models import ControlChange

    rows = ControlChange.objects.filter(campaign=campaign, crown__isnull=False).order_by("year", "pk")
    return {crown: year for crown, year in rows.values_list("crown_id", "year")}


def play_crowns(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """What the table decides about the crowns (Blood Royale): now and then a minor's player names
    another regent (the eldest of his house the rule allows; a baron created when none can act and his
    regent is taken), a crown another house has held since an earlier turn is given back (its house's
    eldest free adult who does not reign named, else a relative's family created), a capital falls and is retaken, and a ruler
    enlists foreign military aid."""
    from dynasties.models import Crown, Modifier, ModifierKind
    from dynasties.services import crowns

    play = play_of(campaign).succession
    records = {c.name: c for c in Crown.objects.filter(campaign=campaign).order_by("name")}
    if play.regents():
        regencies = Reign.objects.filter(
            campaign=campaign, end_year__isnull=True, regent__isnull=False, regency_end_year__isnull=True
        )
        for reign in regencies.select_related("holder", "regent").order_by("crown"):
            record = records.get(reign.crown)
            if record is None or _d(source, CHANCE_REGENT) != 1:
                continue
            allowed = events.regents_allowed(campaign, reign, record.controlled_by_id)
            if allowed:
                _try(
                    functools.partial(events.regent_appoint, campaign=campaign, crown=reign.crown, character=allowed[0].pk, by=by)
                )
            elif reign.regent is not None and reign.regent.is_prisoner:
                _try(
                    functools.partial(
                        events.regent_appoint, campaign=campaign, crown=reign.crown, baron=True, source=source, by=by
                    )
                )
    if play.gives_back_crowns():
        reigning = _monarch_ids(campaign)
        year = campaign.current_year
        taken = _taken_in(campaign)
        for record in [c for c in records.values() if c.annexed]:
            if taken.get(record.pk, year) >= year or _d(source, CHANCE_GIVE_BACK) != 1:
                continue  # held since this turn: its player sees how the country takes a foreign ruler first
            home = Character.objects.filter(FREE, campaign=campaign, controlled_by_id=record.home_dynasty_id, status=Status.ALIVE)
            home = home.order_by("birth_year", "birth_order", "pk")
            named = next((c for c in home if c.pk not in reigning and c.age(year) >= campaign.rules.adult_age), None)
            _try(
                functools.partial(
                    events.crown_give_back,
                    campaign=campaign,
                    crown=record.name,
                    monarch=named.pk if named else None,
                    source=source,
                    by=by,
                )
            )
    if not play.capitals():
        return
    lost = set(
        Modifier.objects.filter(campaign=campaign, kind=ModifierKind.CAPITAL_LOST, end_year__isnull=True).values_list(
            "crown", flat=True
        )
    )
    for name in sorted(lost):
        if _d(source, CHANCE_RETAKE) == 1:
            _try(functools.partial(crowns.capital_retake, campaign=campaign, crown=name, note="retaken by storm", by=by))
    ruled = sorted(set(Reign.objects.filter(campaign=campaign, end_year__isnull=True).values_list("crown", flat=True)))
    standing = [n for n in ruled if n not in lost]
    if standing and _d(source, CHANCE_CAPITAL) == 1:
        falls = _pick(source, standing)
        _try(lambda: crowns.capital_lose(campaign=campaign, crown=falls, note="taken by an enemy army", by=by))
    if ruled and _d(source, CHANCE_INTERVENTION) == 1:
        _try(
            lambda: crowns.foreign_intervention(
                campaign=campaign, crown=_pick(source, ruled), note="to put down a rebellion", by=by
            )
        )


def armies_on_the_map(campaign: Campaign, house: Dynasty) -> tuple[int, int]:
    """The house's armies on the map as its Interphase opens, and those lost since its last one: the
    armies it kept and raised in its last Interphase (the ledger's maintenance and raising lines of
    that run: 2 and 5 Crowns an army), less one for each battle since in which a royal of the house
    lost his army (``play_events``: "a royal piece whose army is wiped out"). The automatic player
    raises no fleets, so every such line is an army's."""
    last = (
        ChronicleEntry.objects.filter(
            campaign=campaign, kind=interphase.CHRONICLE_KIND, data__interphase=True, data__dynasty=house.pk
        )
        .filter(year__lt=campaign.current_year)
        .order_by("-year", "-pk")
        .first()
    )
    if last is None:
        return 0, 0
    lines = Posting.objects.filter(
        pk__in=last.data.get("postings", []), payer=house, kind__in=(ip_rules.MAINTENANCE, ip_rules.RAISING)
    )
    had = sum(
        p.amount // (ip_rules.MAINTENANCE_CROWNS if p.kind == ip_rules.MAINTENANCE else ip_rules.RAISING_CROWNS) for p in lines
    )
    lost = (
        Roll.objects.filter(campaign=campaign, purpose="battle", year__gt=last.year, characters__controlled_by=house)
        .distinct()
        .count()
    )
    return max(had - lost, 0), min(lost, had)


def play_interphase(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """Blood Royale's Interphase for every house: taxes at the normal rate (high now and then); the
    armies on the map kept, up to two, and raised to two ("13 Maintaining and Raising": none to
    maintain in the first turn, so the first Interphase raises them, 5 Crowns each, in the home
    provinces; each is then kept at 2 Crowns a turn, and one lost in battle raised again); the
    provinces, Famine and Rebellion markers and Home Provinces from the province register, a Rebellion
    bought off when the house can afford it; rule G's governed provinces
    (the titles of the house's crown held by a living Governor) bring their 2 Crowns extra."""
    if not plays_interphase(campaign):
        return
    for house in _players(campaign):
        # the high tax rate now and then (the markers are the register's: operations.simulation_provinces)
        unrest = _d(source, 6) == 1 and campaign.current_year != campaign.start_year
        cash = treasury.balance(campaign, house)
        on_map, lost = armies_on_the_map(campaign, house)
        kept = min(on_map, ARMIES_KEPT)
        raised = ARMIES_KEPT - kept
        upkeep = kept * ip_rules.MAINTENANCE_CROWNS + raised * ip_rules.RAISING_CROWNS
        buy_off = simulation_provinces.in_rebellion(campaign, house) and cash >= ip_rules.REBELLION_BUY_OFF_CROWNS + upkeep
        # rule G: the governed provinces of the countries it taxes, as the page proposes them (governed=None)
        governed = None
        entry = ip_rules.InterphaseEntry(
            # the province register's provinces, markers and Home Provinces (operations.simulation_provinces)
            **simulation_provinces.interphase_entry(campaign, house, buy_off=buy_off),
            tax_rate=ip_rules.HIGH_TAX if unrest else ip_rules.NORMAL_TAX,
            armies_on_track=lost,
            governed=governed,
        )
        run = functools.partial(interphase.interphase_run, campaign=campaign, dynasty=house.pk, by=by)
        # the armies wanted; else those on the map kept without raising; else none (disbanded); else
        # the taxes alone
        for keep, add in ((kept, raised), (kept, 0), (0, 0)):
            if _try(functools.partial(run, entry=replace(entry, armies_kept=keep, armies_raised=add))):
                break
        else:
            _try(functools.partial(run, entry=ip_rules.InterphaseEntry(governed=governed)))


def play_contracts(campaign: Campaign, source: DiceSource, wed: Sequence[int], *, by: Actor) -> None:
    """Now and then a match wed this turn is sealed by a marriage contract (a dowry, a gift and the
    bride's renunciation of her house's crown); now and then a party breaks one in force: the
    injured party calls a parley (all players vote) or the parties submit it to a majority."""
    for pk in wed:
        if _d(source, CHANCE_CONTRACT) != 1:
            continue
        match = Marriage.objects.select_related("husband", "wife").get(pk=pk)
        his, hers = match.husband.birth_dynasty_id, match.wife.birth_dynasty_id  # the spouses' houses
        if his is None or hers is None or his == hers:
            continue
        amount = min(100, treasury.balance(campaign, hers) // 2)
        crown = Dynasty.objects.get(pk=hers).crown
        clauses: list[dict[str, object]] = []
        if amount > 0:
            clauses.append({"kind": "dowry", "params": {"payer": hers, "payee": his, "amount": amount}})
            clauses.append({"kind": "payment", "params": {"payer": his, "payee": hers, "amount": max(1, amount // 10)}})
        if crown:
            clauses.append({"kind": "renunciation", "params": {"character": match.wife_id, "crown": crown}})
        if not clauses:
            continue

        def seal(m: Marriage = match, c: list[dict[str, object]] = clauses, a: int = his, b: int = hers) -> None:
            contract = contract_services.contract_draft(
                campaign=campaign,
                kind="marriage",
                title=f"The match of {m.husband.display_name}",
                parties=[a, b],
                marriage=m.pk,
                clauses=c,
                by=by,
            )
            contract_services.contract_sign(campaign=campaign, contract=contract, by=by)

        _try(seal)
    players = _players(campaign)
    if len(players) >= 2 and _d(source, CHANCE_AGREEMENT) == 1:  # a pact of peace, with a yearly tribute
        first = _pick(source, players)
        second = _pick(source, [d for d in players if d.pk != first.pk])
        pact: list[dict[str, object]] = [{"kind": "non_aggression", "params": {}}]
        if treasury.balance(campaign, first) >= 2 * TRIBUTE:
            pact.append(
                {
                    "kind": "recurring_payment",
                    "params": {
                        "payer": first.pk,
                        "payee": second.pk,
                        "amount": TRIBUTE,
                        "from_year": campaign.current_year,
                        "turns": 2,
                    },
                }
            )

        def agree(a: int = first.pk, b: int = second.pk, c: list[dict[str, object]] = pact) -> None:
            contract = contract_services.contract_draft(
                campaign=campaign, kind="agreement", title="A pact of peace", parties=[a, b], clauses=c, by=by
            )
            contract_services.contract_sign(campaign=campaign, contract=contract, by=by)

        _try(agree)
    for due in contract_services.unpaid_payments(campaign):
        _try(functools.partial(contract_services.payment_settle, campaign=campaign, payment=due.pk, by=by))
    for contract in Contract.objects.filter(campaign=campaign, state=ContractState.IN_FORCE).order_by("pk"):
        if _d(source, CHANCE_BREACH) != 1:
            continue
        parties = sorted(contract.parties.values_list("pk", flat=True))
        if len(parties) < 2:
            continue
        breaker = _pick(source, parties)
        injured = next(p for p in parties if p != breaker)
        breach = None

        def record(c: Contract = contract, who: int = breaker) -> None:
            nonlocal breach
            breach = contract_services.breach_record(campaign=campaign, contract=c, by_dynasty=who, text="broke faith", by=by)

        if not _try(record) or breach is None:
            continue
        found = breach
        if not play_of(campaign).disputes.by_majority() and contract.kind == ContractKind.AGREEMENT:
            votes = [
                {
                    "dynasty": d.pk,
                    "stature": _d(source, 6),
                    "church_cards": 0,
                    "christian": True,
                    "choice": "against" if d.pk == breaker else ("for" if d.pk == injured else _pick(source, CHOICES)),
                }
                for d in players
            ]
            _try(functools.partial(contract_services.parley_run, campaign=campaign, breach=found, votes=votes, by=by))
        elif play_of(campaign).disputes.by_majority():
            terms = list(contract.clauses.order_by("pk").values_list("pk", flat=True))
            ballots = {d.pk: {t: _d(source, 3) > 1 for t in terms} for d in players if d.pk not in parties}
            _try(functools.partial(contract_services.dispute_majority, campaign=campaign, breach=found, votes=ballots, by=by))
    for ban in Excommunication.objects.filter(campaign=campaign, ended_year__isnull=True).order_by("pk"):
        if ban.start_year >= campaign.current_year or _d(source, 3) != 1:
            continue
        votes = [
            {"dynasty": d.pk, "stature": _d(source, 6), "church_cards": 0, "christian": True, "choice": "for"} for d in players
        ]
        _try(
            functools.partial(contract_services.readmission_parley, campaign=campaign, dynasty=ban.dynasty_id, votes=votes, by=by)
        )
    if not play_of(campaign).disputes.by_majority():  # the medieval parleys' consequences: claims, contests (issue 33)
        play_diplomacy(campaign, source, by=by)


CHOICES = ("for", "against", "abstain")


def play_monarchs_law(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """EU monarchs (after the monarchs' rolls; Venice and Poland are in play from the first turn:
    ``play_eu_crowns``): each new monarch's military skill is rolled (the optional table); now and
    then a captured monarch is ransomed."""
    from dynasties.models import Crown
    from dynasties.services import eu_monarchs

    taken = Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder__prisoner_of__isnull=False)
    for reign in taken.order_by("crown"):
        _try(functools.partial(eu_monarchs.monarch_ransom, campaign=campaign, crown=reign.crown, by=by))
    players = _players(campaign)
    if _d(source, CHANCE_BATTLE) == 1 and len(players) >= 2:  # a monarch taken in battle, ransomed next turn
        held = list(
            Reign.objects.filter(
                campaign=campaign, end_year__isnull=True, holder__status=Status.ALIVE, holder__prisoner_of__isnull=True
            )
            .select_related("holder")
            .order_by("crown")
        )
        if held:
            king = _pick(source, held).holder
            captors = [d for d in players if d.pk != king.controlled_by_id]
            _try(
                lambda: events.character_capture(
                    campaign=campaign, character=king.pk, captor=_pick(source, captors).pk, reason="taken in battle", by=by
                )
            )
    for crown in Crown.objects.filter(campaign=campaign).order_by("name"):
        ruling = Reign.objects.filter(campaign=campaign, crown=crown.name, end_year__isnull=True).first()
        if ruling is not None and ruling.start_year == campaign.current_year and not (crown.state or {}).get("leader"):
            _try(functools.partial(eu_monarchs.monarch_military_skill, campaign=campaign, crown=crown.name, source=source, by=by))


def play_pass_overs(campaign: Campaign, source: DiceSource, *, by: Actor) -> dict[str, list[int]]:
    """Now and then the player of a crown whose monarch died passes over the first heir, when the
    rules let him (Blood Royale rule C; BloodLine's disputed succession, at its price); an heir held
    prisoner always (BloodLine A: the next heir runs the dynasty in the interim)."""
    from dynasties.services.succession_choices import pass_over_choices, pass_over_choose
    from dynasties.services.succession_view import succession_line

    dead = Reign.objects.filter(campaign=campaign, end_year__isnull=True, holder__status=Status.DEAD).order_by("crown")
    for crown in dead.values_list("crown", flat=True):
        line = succession_line(campaign=campaign, crown=crown, limit=PASS_OVER_LIMIT)
        first = line.entries[0] if line.entries else None
        held = first is not None and (first.character.prisoner_of_id is not None or first.character.held_by_neutrals)
        if not held and _d(source, CHANCE_PASS_OVER) != 1:
            continue
        if first is not None and first.pass_over is not None and first.pass_over.allowed:
            _try(
                functools.partial(
                    pass_over_choose, campaign=campaign, crown=crown, heirs=[first.character.pk], limit=PASS_OVER_LIMIT, by=by
                )
            )
    return {crown: heirs for crown, heirs in sorted(pass_over_choices(campaign).items()) if heirs}


def simulated_dynasties(ruleset: str, players: int, countries: Sequence[str] | None = None) -> list[services.DynastySpec] | None:
    """The houses of a simulated campaign: the ruleset's default players (Blood Royale's ``countries``
    if the table chose them), and in BloodLine a minor house (Savoy) too, so that its offers are
    played; None: the defaults."""
    if play_named(ruleset).minor_houses is None:  # the ruleset's minor houses play no rules of their own
        return default_dynasties(players, ruleset, countries) if countries else None
    return [*default_dynasties(players, ruleset, countries), services.DynastySpec("Savoia", "Savoy", kind=DynastyKind.MINOR)]


def play_law(campaign: Campaign, source: DiceSource, *, by: Actor) -> None:
    """After the Dynastic Sequence: the turn's events, Pretenders, titles, contracts and Interphase
    (the ruleset's law player, registered by its module of ``operations/play/``)."""
    player = _registered(LAW_PLAYERS, campaign.ruleset)
    wed = list(
        Marriage.objects.filter(campaign=campaign, wedding_year=campaign.current_year).order_by("pk").values_list("pk", flat=True)
    )
    player(campaign, source, wed, by=by)


class LawPlayer(Protocol):
    """A ruleset's law after the Dynastic Sequence, played for ``by``."""

    def __call__(self, campaign: Campaign, source: DiceSource, wed: list[int], *, by: Actor) -> None: ...


LAW_PLAYERS: dict[str, LawPlayer] = {}
"""Each ruleset's law after the Dynastic Sequence (``play_law``), registered by ``register_law``."""


def register_law(ruleset: str, *, player: LawPlayer, parts: tuple[LawPart, ...]) -> None:
    """A ruleset's law, called once by its module of ``operations/play/`` (``OperationsConfig.ready()``):
    how the automatic player plays it (``play_law``) and its parts the summary counts (``LAW``)."""
    if ruleset in LAW_PLAYERS:
        raise RuleError(f"The ruleset {ruleset!r} has its automatic player's law registered twice.", code="duplicate_law")
    LAW_PLAYERS[ruleset] = player
    LAW[ruleset] = parts


def _registered(table: dict[str, _T], ruleset: str) -> _T:
    try:
        return table[ruleset]
    except KeyError:
        raise RuleError(
            f"The ruleset {ruleset!r} has no automatic player's law registered (operations/play/, listed in "
            f"OperationsConfig.ready()); registered: {', '.join(table) or 'none'}.",
            code="unknown_ruleset",
        ) from None


def play_turn(campaign: Campaign, source: DiceSource, *, law: bool = False, house_size: int = HOUSE_SIZE, by: Actor) -> Campaign:
    """Play the rest of the current turn's Dynastic Sequence and advance to the next turn; with
    ``law`` the rest of the law too (``play_law``: the ``simulate`` command plays it); ``house_size``:
    the living members from which a house arranges no more matches for its men (``HOUSE_SIZE``)."""
    campaign.refresh_from_db()
    if campaign.step == Step.BIRTHS:
        play_births(campaign, source, house_size=house_size, by=by)
        campaign.refresh_from_db()
    if campaign.step == Step.SURVIVAL and plays(campaign, "monarchs"):
        if law:
            play_eu_crowns(campaign, by=by)
        play_monarchs(campaign, source, by=by)
    if campaign.step == Step.SURVIVAL:
        services.survival_roll(campaign=campaign, source=source, by=by)
        chosen = play_pass_overs(campaign, source, by=by) if law and play_of(campaign).births.keeps_families() else {}
        try:
            services.survival_finish(campaign=campaign, source=source, pass_over=chosen or None, by=by)
        except RuleError:
            if not chosen:
                raise
            # the line the choice was made on is not the one the succession reads (reported, issue
            # 15): the player lets the rightful heir succeed instead
            services.survival_finish(campaign=campaign, source=source, by=by)
        campaign.refresh_from_db()
    if campaign.step == Step.MARRIAGES:
        if law:  # a die misread at Survival, noticed now (issue 34)
            simulation_corrections.play_late_correction(campaign, by=by)
        if law and plays(campaign, "minor_houses"):
            play_minor_houses(campaign, source, by=by)
            play_minor_offers(campaign, source, by=by)
        if law and play_of(campaign).succession.pretender_terms().pretenders:
            play_auctions(campaign, source, by=by)
        play_marriages(campaign, house_size=house_size, by=by)
        if law and play_of(campaign).succession.title_terms().governors:
            play_titles(campaign, source, by=by)
        campaign.refresh_from_db()
    if campaign.step == Step.ANNOUNCEMENTS:
        services.announcements_make(campaign=campaign, source=source, by=by)
        campaign.refresh_from_db()
    if play_of(campaign).marriages.has_terms():
        wed_due(campaign, by=by)
    if law and campaign.step == Step.INTERPHASE:
        play_law(campaign, source, by=by)
    services.turn_advance(campaign=campaign, by=by)
    campaign.refresh_from_db()
    return campaign


def simulate(
    campaign: Campaign,
    *,
    turns: int,
    source: DiceSource,
    on_turn: Callable[[Campaign], None] | None = None,
    law: bool = False,
    house_size: int = HOUSE_SIZE,
    by: Actor,
) -> Campaign:
    """Play ``turns`` whole turns (``play_turn``), calling ``on_turn`` after each; a game that has
    ended (its agreed last turn or money target reached: ``simulation_end``) plays no more."""
    for _ in range(turns):
        if simulation_end.game_over(campaign):
            break
        campaign = play_turn(campaign, source, law=law, house_size=house_size, by=by)
        if on_turn is not None:
            on_turn(campaign)
    return campaign


# --- the parts of the law, and how often a campaign played each --------------------------------


@dataclass(frozen=True)
class LawPart:
    """A part of the law and where a campaign's records show it played: chronicle lines of these
    kinds, rolls of these purposes, postings of these kinds, deaths of these causes, or a count."""

    name: str
    kinds: tuple[str, ...] = ()
    rolls: tuple[str, ...] = ()
    postings: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()
    count: Callable[[Campaign], int] | None = None
    applies: Callable[[Campaign], bool] | None = None
    """Whether the campaign has this part at all (None: every campaign of the ruleset), e.g. the
    aristocratic auction only the three-player game."""


def _contracts(kind: str) -> Callable[[Campaign], int]:
    return lambda campaign: Contract.objects.filter(campaign=campaign, kind=kind).exclude(state=ContractState.DRAFT).count()


def count_of(
    model: type[Breach] | type[Parley] | type[Excommunication] | type[Dispute] | type[Title] | type[MarriageOffer],
) -> Callable[[Campaign], int]:
    return lambda campaign: model.objects.filter(campaign=campaign).count()


def diplomacy_count(part: str, campaign: Campaign) -> int:
    """How often the diplomacy's ``part`` was played."""
    return diplomacy_played(campaign)[part]


def aristocratic(campaign: Campaign) -> bool:
    """The three-player game (its aristocratic family)."""
    return Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.ARISTOCRATIC).exists()


SEQUENCE_PARTS = (
    LawPart("births", rolls=("birth",)),
    LawPart("survival rolls", rolls=("survival",)),
    LawPart("weddings", kinds=("wedding",)),
    LawPart("successions", kinds=("succession",)),
)
CONTRACT_PARTS = (
    LawPart("marriage contracts", count=_contracts(ContractKind.MARRIAGE)),
    LawPart("dowries", postings=("dowry",)),
    LawPart("contract payments", postings=("contract", "damages")),
    LawPart("renunciations", kinds=("renunciation",)),
    LawPart("breaches", count=count_of(Breach)),
)


def _captures(*, neutrals: bool) -> Callable[[Campaign], int]:
    lines = ChronicleEntry.objects.filter(kind="capture", data__neutrals=True)
    return lambda c: (
        (lines if neutrals else ChronicleEntry.objects.filter(kind="capture").exclude(pk__in=lines)).filter(campaign=c).count()
    )


def _ransoms(*, neutrals: bool) -> Callable[[Campaign], int]:
    return lambda c: Posting.objects.filter(campaign=c, kind="ransom", payee__isnull=neutrals).count()


def interim_claims_decided(campaign: Campaign) -> int:
    """Released heirs' claims decided: recognised (he reigns) or refused (the interim monarch stays)."""
    lines = ChronicleEntry.objects.filter(campaign=campaign, kind__in=("succession", "claim"))
    return lines.filter(data__claim__in=["recognised", "refused"]).count()


PRISONER_PARTS = (
    LawPart("prisoners of a house", count=_captures(neutrals=False)),
    LawPart("prisoners of the neutrals", count=_captures(neutrals=True)),
    LawPart("ransoms between houses", count=_ransoms(neutrals=False)),
    LawPart("the neutrals' ransoms", count=_ransoms(neutrals=True)),
    LawPart(
        "released without ransom",
        count=lambda c: ChronicleEntry.objects.filter(campaign=c, kind="release", data__ransomed=False).count(),
    ),
)
LAW: dict[str, tuple[LawPart, ...]] = {}
"""Every ruleset's parts of the law, in the order the summary prints them (``register_law``)."""


def crown_rolls(campaign: Campaign, crown: str) -> int:
    return ChronicleEntry.objects.filter(campaign=campaign, kind="succession", data__crown=crown).count()


def crown_lines(campaign: Campaign, crown: str, kind: str) -> int:
    return ChronicleEntry.objects.filter(campaign=campaign, kind=kind, data__crown=crown).count()


def board_stability(campaign: Campaign) -> int:
    from dynasties.models import CrownEvent

    return CrownEvent.objects.filter(campaign=campaign, cause__in=list(crown_rules.CAUSES)).count()


def lines_data(campaign: Campaign, kind: str, key: str) -> int:
    """The chronicle lines of ``kind`` whose data has ``key``."""
    return ChronicleEntry.objects.filter(campaign=campaign, kind=kind, data__has_key=key).count()


def postings_about(campaign: Campaign, kind: str, reason: str) -> int:
    return Posting.objects.filter(campaign=campaign, kind=kind, reason__startswith=reason).count()


def lines_with(campaign: Campaign, kind: str, text: str) -> int:
    return ChronicleEntry.objects.filter(campaign=campaign, kind=kind, text__icontains=text).count()


def law_summary(campaign: Campaign) -> list[tuple[str, int]]:
    """How many times the campaign played each part of its ruleset's law (``LAW``), in order."""
    kinds = _tally(ChronicleEntry.objects.filter(campaign=campaign).values_list("kind", flat=True))
    rolls = _tally(Roll.objects.filter(campaign=campaign).values_list("purpose", flat=True))
    postings = _tally(Posting.objects.filter(campaign=campaign).values_list("kind", flat=True))
    dead = Character.objects.filter(campaign=campaign, status=Status.DEAD).exclude(death_cause="")
    causes = list(dead.values_list("death_cause", flat=True))
    rows: list[tuple[str, int]] = []
    for part in LAW.get(campaign.ruleset, ()):
        if part.applies is not None and not part.applies(campaign):
            continue
        n = sum(kinds.get(k, 0) for k in part.kinds) + sum(rolls.get(p, 0) for p in part.rolls)
        n += sum(postings.get(k, 0) for k in part.postings)
        n += sum(1 for cause in causes if any(c in cause for c in part.causes))
        if part.count is not None:
            n += part.count(campaign)
        rows.append((part.name, n))
    return rows


def _tally(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


NEVER = "never played"


def law_table(rows: Sequence[tuple[str, int]]) -> str:
    """The summary as printed: one part a line, its count, and a part never played marked."""
    width = max((len(name) for name, _ in rows), default=0)
    return "\n".join(f"  {name:<{width}}  {n:>6}{'  <- ' + NEVER if n == 0 else ''}" for name, n in rows)
