"""Step 4 of the Dynastic Sequence: Announcements (RULES.md A5, A7 and the rulebook's section 10),
and the advance to the next turn."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q

from campaign import audit, events
from campaign.dice import DiceBox
from campaign.models import Audience, Campaign, ChronicleEntry, Step
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, load_tables, lock_campaign, report_lines, require_step, set_step
from dynasties.models import Character, ControlChange, Dynasty, DynastyKind, Marriage, Modifier, Origin, Reign, Status
from dynasties.services import control
from dynasties.services import ending as game_ending
from dynasties.services.claims import claims_review
from dynasties.services.common import World
from dynasties.services.crowns import crowns_review
from dynasties.services.play_registry import play_of
from rules.dice import DiceSource
from rules.errors import RuleError
from rules.names import names_for

# Money is private (RULES.md E7): payment lines stay in the chronicle for the parties and the GM and
# are never part of the public announcement.
SECTIONS = [
    ("Births", {"birth"}),
    ("Deaths", {"death"}),
    ("Successions and regencies", {"succession", "regency", "created", "union", "union_ends", "regency_end"}),
    ("Marriages", {"wedding", "betrothal", "betrothal_end"}),
    ("Returns and retirements", {"return", "retirement"}),
    ("Disputed successions and claims", {"pass_over", "exile", "renunciation", "claim_end"}),
    ("Captures and releases", {"capture", "release"}),
    ("Prince pieces", {"piece"}),
    ("Parleys and the Church", {"parley", "excommunication", "readmission"}),
    ("Health and royal leaders", {"health", "leaders", "stability", "revolt"}),
]


@transaction.atomic
def announcements_make(*, campaign: Campaign | int, source: DiceSource | None = None, by: Actor) -> ChronicleEntry:
    """Widows and widowers return to their houses (in Blood Royale a King's widow retires), Prince
    pieces are handed out, and the turn's chronicle is gathered into one announcement. A house that
    died out is founded anew with dice from ``source`` (the simulator's seeded one)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    require_step(campaign, Step.ANNOUNCEMENTS)
    world = World(campaign, living_only=True)
    chronicle = Chronicle(campaign)
    return_widowed(world, chronicle)
    _restart_extinct(world, chronicle, source, by)
    play_of(campaign).announcements.hand_out(world, chronicle)  # Prince pieces, royal leaders
    if Modifier.objects.filter(campaign=campaign, end_year__isnull=True).exists():
        claims_review(World(campaign), chronicle)
    chronicle.flush()
    year = campaign.current_year
    entries = list(  # the public lines only: what is private to some houses is not announced to all
        ChronicleEntry.objects.filter(campaign=campaign, year=year, audience=Audience.PUBLIC).exclude(kind="announcements")
    )
    lines: list[str] = []
    sections: dict[str, list[str]] = {}
    told: set[str] = set()  # each line once, in the first section that has it (a fact told twice is told once)
    for title, kinds in SECTIONS:
        texts = []
        for entry in entries:
            if entry.kind in kinds and entry.text not in told:
                told.add(entry.text)
                texts.append(entry.text)
        if texts:
            sections[title] = texts
            lines.append(f"{title}:")
            lines.extend(f"- {t}" for t in texts)
    if not lines:
        lines.append("Nothing to announce: no births, deaths or marriages this turn.")
    announcement = ChronicleEntry.objects.create(
        campaign=campaign,
        year=year,
        step=Step.ANNOUNCEMENTS,
        kind="announcements",
        text=f"Announcements for {year}\n" + "\n".join(lines),
        data={"sections": sections},
        audience=Audience.PUBLIC,
    )
    report_lines([announcement])
    set_step(campaign, Step.INTERPHASE)
    return announcement


def _crown_house(world: World, crown: str) -> int | None:
    record = world.crowns.get(crown)
    return record.controlled_by_id if record is not None else None


def return_widowed(
    world: World, chronicle: Chronicle, dead: Sequence[int] | None = None, *, former_regents: Sequence[int] | None = None
) -> None:
    """Widowed spouses from another house go home; in Blood Royale a King's widow retires (A5), in
    BloodLine nobody does ("the wife is returned to her original family"). ``dead`` limits it to the
    marriages those deaths ended (deaths after this turn's Announcements are dealt with at once). A
    surviving spouse who is regent stays until the regency ends; ``former_regents``: those whose
    regency just ended, widowed by an earlier turn's death."""
    year = world.year
    ended = Marriage.objects.filter(campaign=world.campaign, wedding_year__isnull=False, end_cause__startswith="death").order_by(
        "pk"
    )
    if former_regents is not None:
        ended = ended.filter(Q(husband_id__in=list(former_regents)) | Q(wife_id__in=list(former_regents)))
    else:
        ended = ended.filter(ended_year=year)
    if dead is not None:
        ended = ended.filter(Q(husband_id__in=list(dead)) | Q(wife_id__in=list(dead)))
    kings_died: set[int] = set()  # whose widows retire: none in BloodLine, where she goes home like any other
    if play_of(world.campaign).announcements.widows_retire():
        kings_died = {
            r.holder_id
            for r in world.reigns
            if r.holder_id and r.end_year is not None and (r.end_year == year or former_regents is not None)
        }
    reigning = world.reigning()
    acting_regents = {r.regent_id for r in world.open_reigns() if r.regent_id and r.regency_end_year is None}
    changed: list[Character] = []
    moves: list[ControlChange] = []  # written in one statement below
    widowed = list(ended)
    if former_regents is not None:  # each former regent's latest widowhood only
        latest: dict[int, Marriage] = {}
        for m in sorted(widowed, key=lambda m: (m.ended_year or 0, m.pk)):
            for pk in (m.husband_id, m.wife_id):
                if pk in former_regents:
                    latest[pk] = m
        widowed = sorted(set(latest.values()), key=lambda m: m.pk)
    the_dead = {
        c.pk: c
        for c in Character.objects.filter(
            pk__in=[pk for m in widowed for pk in (m.husband_id, m.wife_id) if pk not in world.characters]
        )
    }
    for match in widowed:
        husband_died = match.end_cause == "death of the husband"
        dead_id, survivor_id = (match.husband_id, match.wife_id) if husband_died else (match.wife_id, match.husband_id)
        survivor = world.characters.get(survivor_id)
        if survivor is None or survivor.status != Status.ALIVE or world.spouse_of(survivor_id) is not None:
            continue  # died too, or already wed again
        if survivor_id in acting_regents:
            continue  # the surviving spouse as regent stays until the regency ends (then as any widow)
        late_spouse = world.characters.get(dead_id) or the_dead[dead_id]
        # "Monarchs may not abdicate, nor be deposed": a Queen regnant widowed by a King does not retire
        if husband_died and dead_id in kings_died and late_spouse.sex == "M" and survivor_id not in reigning:
            survivor.status = Status.RETIRED
            survivor.retired_year = year
            survivor.prince_piece = ""
            changed.append(survivor)
            audit.update(
                Marriage.objects.filter(campaign=world.campaign, ended_year__isnull=True, wife=survivor),
                ended_year=year,
                end_cause="betrothal void: the bride retired as a King's widow",
            )
            chronicle.add(
                "retirement",
                f"{survivor.display_name}, widow of King {late_spouse.display_name}, retires from the game "
                "(queen mothers never remarry).",
                character=survivor.pk,
            )
        elif (
            survivor.birth_dynasty_id
            and survivor.controlled_by_id != survivor.birth_dynasty_id
            and (survivor_id not in reigning or _crown_house(world, reigning[survivor_id].crown) == survivor.birth_dynasty_id)
        ):  # a reigning widow(er) goes only to the house of his own crown, never away from it
            home = world.dynasties[survivor.birth_dynasty_id]
            control.move(world.campaign, survivor, home, "widow_returns", into=moves)
            survivor.prince_piece = ""
            changed.append(survivor)
            chronicle.add(
                "return",
                f"{survivor.display_name}, widowed, returns to the house of {home.name}.",
                character=survivor.pk,
                dynasty=home.pk,
            )
    ControlChange.objects.bulk_create(moves)
    if changed:
        audit.bulk_update(Character, changed, ["status", "retired_year", "prince_piece", "controlled_by"])
        for c in changed:
            world.refresh_person(c)


def _restart_extinct(world: World, chronicle: Chronicle, source: DiceSource | None, by: Actor) -> None:
    """A player dynasty with nobody left in play starts anew as at the set-up, keeping its money and
    provinces (A5); it takes a new dynastic name from its country's suggestions."""
    play = play_of(world.campaign)
    if not play.births.keeps_families():
        return  # rolled monarchs, no families: an empty throne waits for its succession roll
    alive_houses = {c.controlled_by_id for c in world.characters.values() if c.status == Status.ALIVE}
    alive_houses |= play.announcements.houses_kept(world)
    tables = None
    for dynasty in list(world.dynasties.values()):
        if dynasty.kind != DynastyKind.PLAYER or dynasty.pk in alive_houses:
            continue
        if tables is None:
            tables = load_tables(world.campaign)
        used = set(Dynasty.objects.filter(campaign=world.campaign).values_list("name", flat=True))
        used |= set(Character.objects.filter(campaign=world.campaign).values_list("dynastic_name", flat=True))
        old = dynasty.name
        dynasty.name = next((n for n in names_for(dynasty.crown).dynastic if n not in used), f"{old} the Younger")
        dynasty.save(update_fields=["name"])
        crown_reigns = [r for r in world.open_reigns() if r.crown == dynasty.crown]
        box = DiceBox(world.campaign, source=source, by=by)
        king = play.announcements.found_anew(
            world, dynasty, box, chronicle, tables, reign=not crown_reigns and bool(dynasty.crown)
        )
        box.flush()
        chronicle.add(
            "created",
            f"The house of {old} has died out: its player founds the house of {dynasty.name} under "
            f"{king.display_name}, keeping the money and provinces of the old house.",
            dynasty=dynasty.pk,
        )


@transaction.atomic
def turn_advance(*, campaign: Campaign | int, to_year: int | None = None, by: Actor) -> Campaign:
    """Move to the next turn; regencies end when the monarch turns 15. Blood Royale's turns are five
    years; BloodLine's are what the GM says (``to_year``): characters age by the difference. When
    the game's end is due (the agreed last turn is over, or a house holds the money target after
    this turn's cashing-in: ``game_ending.close_if_due``) the game ends instead and the year stays."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    require_step(campaign, Step.INTERPHASE)
    if to_year is not None:
        if not play_of(campaign).announcements.turn_year_given() and to_year != campaign.current_year + campaign.turn_length:
            raise RuleError(
                f"A Blood Royale turn is {campaign.turn_length} years: the next turn is "
                f"{campaign.current_year + campaign.turn_length}, not {to_year}.",
                code="invalid_year",
            )
        if to_year <= campaign.current_year:
            raise RuleError(f"The next turn must come after {campaign.current_year}; {to_year} does not.", code="invalid_year")
        if to_year > campaign.current_year + 50:
            raise RuleError(f"{to_year} is more than 50 years on; give the next turn's year.", code="invalid_year")
    if game_ending.close_if_due(campaign, by=by):  # the game's end (section 22) comes instead of the next turn
        return campaign
    from_year = campaign.current_year
    campaign.current_year = to_year if to_year is not None else campaign.current_year + campaign.turn_length
    campaign.step = Step.BIRTHS
    campaign.save(update_fields=["current_year", "step"])
    chronicle = Chronicle(campaign)
    year = campaign.current_year
    ending = [
        reign
        for reign in Reign.objects.filter(
            campaign=campaign, end_year__isnull=True, regent__isnull=False, regency_end_year__isnull=True
        ).select_related("holder", "regent")
        if reign.holder.age(year) >= play_of(campaign).announcements.of_age()
    ]
    retiring: list[Character] = []
    widowed: list[int] = []
    for reign in ending:
        reign.regency_end_year = year
        regent = reign.regent
        assert regent is not None
        text = f"{reign.holder.display_name} comes of age; the regency of {regent.display_name} ends"
        if regent.origin == Origin.BARON and regent.status == Status.ALIVE:
            regent.status = Status.RETIRED
            regent.retired_year = year
            retiring.append(regent)
            text += " and the baron retires from the game"
        chronicle.add("regency_end", text + ".", character=reign.holder_id)
        if regent.origin != Origin.BARON and regent.status == Status.ALIVE:
            widowed.append(regent.pk)
    if ending:
        Reign.objects.bulk_update(ending, ["regency_end_year"])
    if retiring:
        audit.bulk_update(Character, retiring, ["status", "retired_year"])
    if widowed:  # a surviving spouse who was regent is now a widow like any other (returns, or retires)
        return_widowed(World(campaign), chronicle, former_regents=widowed)
    if ending:  # a King come of age rules in his regent's stead: a lost capital's -1 passes to him
        crowns_review(campaign, chronicle)
    advanced = events.TurnAdvanced(campaign=campaign.pk, year=year, step=campaign.step, from_year=from_year)
    events.publish(advanced, campaign=campaign, chronicle=chronicle)  # contracts expire, start and pay
    chronicle.flush()
    return campaign
