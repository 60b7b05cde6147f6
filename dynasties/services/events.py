"""What happens to royals outside the Dynastic Sequence (RULES.md A5, A7): survival rolls for
plague, battle and storm, capture, ransom and release, regents appointed by the player, and a
crown given back after a Dynastic Union."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction

from campaign import treasury
from campaign.dice import DiceBox
from campaign.models import Campaign, PostingKind, Step
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, load_tables, lock_campaign
from dynasties.models import Character, Crown, Dynasty, Origin, Reign, Status
from dynasties.services import control, regnal
from dynasties.services.announcements import return_widowed
from dynasties.services.common import World
from dynasties.services.crowns import crowns_review
from dynasties.services.pretenders import queens_accession_rebellions
from dynasties.services.succession import (
    create_baron,
    create_relative,
    default_regent,
    pay_monarch_match,
    resolve_successions,
    title,
)
from dynasties.services.survival import birth_penalties, character_die
from dynasties.services.titles import titles_pass_on
from rules import blood_royale as br
from rules.crowns import RegentCandidate, baron_refusal, regent_refusal
from rules.dice import DiceSource
from rules.errors import NotFound, RuleError


@dataclass(frozen=True)
class EventResult:
    character: Character
    faces: tuple[int, ...]
    modifier: int
    need: int | None
    survived: bool
    captured: bool = False


def _characters(campaign: Campaign, ids: Sequence[int]) -> list[Character]:
    found = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=list(ids))}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise NotFound(f"There is no character #{missing[0]} in {campaign.name}.")
    return [found[pk] for pk in ids]


def _dynasty(campaign: Campaign, value: Dynasty | int | None, role: str) -> Dynasty:
    if value is None:
        raise RuleError(f"Say which dynasty is the {role}.", code="invalid", fields={role: "required"})
    pk = value.pk if isinstance(value, Dynasty) else value
    try:
        return Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no dynasty #{pk} in {campaign.name}.") from None


@transaction.atomic
def survival_event(
    *,
    campaign: Campaign | int,
    reason: str,
    characters: Sequence[int],
    faces: Mapping[int, Sequence[int]] | None = None,
    captor: Dynasty | int | None = None,
    immune: Sequence[int] = (),
    modifier: int | None = None,
    note: str = "",
    pass_over: Mapping[str, Sequence[int]] | None = None,
    entered: Sequence[Sequence[int]] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> list[EventResult]:
    """A survival roll outside the Dynastic Sequence, for a reason (A5): ``plague`` (-1; those in
    their capital, listed in ``immune``, do not roll), ``battle`` (-1; survivors are captured by
    ``captor``), ``storm`` (no roll: all die), ``killed`` (a death decided at the table, any ruleset),
    ``other`` (the GM's ``modifier``). Deaths take effect
    at once and any crown left vacant passes (``pass_over`` and ``entered`` as for survival_finish).
    The GM records it (``require(.., "gm")``: running the turn)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    rolls = br.event_rolls(reason)
    if rolls and not campaign.rules.event_rolls:
        raise RuleError(
            f"Survival rolls for {reason} are Blood Royale's; in this ruleset record the death itself "
            "(reason 'killed' or 'storm').",
            code="ruleset",
        )
    if not characters:
        raise RuleError("Name at least one character.", code="invalid", fields={"characters": "required"})
    people = _characters(campaign, characters)
    for c in people:
        if c.status != Status.ALIVE:
            raise RuleError(f"{c.display_name} is {c.get_status_display().lower()}: no survival roll.", code="not_alive")
    taker = _dynasty(campaign, captor, "captor") if reason == "battle" else None
    typed = dict(faces or {})
    stray = [pk for pk in typed if pk not in characters or pk in immune]
    if stray:
        raise RuleError("Dice were typed for characters who do not roll in this event.", code="not_due")
    tables = load_tables(campaign)
    penalties = birth_penalties(campaign)
    extra = br.EVENT_MODIFIERS[reason] if modifier is None else modifier
    box = DiceBox(campaign, source=source, by=by, step=f"event:{reason}")
    chronicle = Chronicle(campaign)
    label = br.EVENT_LABELS[reason] + (f" ({note.strip()})" if note.strip() else "")
    results: list[EventResult] = []
    dead: list[int] = []
    captured: list[Character] = []
    for c in people:
        if c.pk in immune:
            chronicle.add("event", f"{c.display_name} is in the capital and immune to the {label}.", character=c.pk)
            continue
        if not rolls:
            results.append(EventResult(c, (), 0, None, False))
            dead.append(c.pk)
            chronicle.add("death", f"{c.display_name} dies: {label}.", character=c.pk, dynasty=c.controlled_by_id)
            continue
        check = br.survival_check(
            tables["survival"], c.as_person(), campaign.current_year, extra_modifier=extra + penalties.get(c.pk, 0)
        )
        roll = box.roll(
            br.SURVIVAL_DICE,
            purpose=reason,
            characters=[c],
            entered=typed.get(c.pk),
            modifier=check.modifier,
            target=check.need,
            detail=f"age {check.age}",
        )
        survived = br.survives(check, roll.faces)
        roll.outcome = "survived" if survived else "died"
        take = survived and taker is not None
        results.append(EventResult(c, tuple(roll.faces), check.modifier, check.need, survived, take))
        if not survived:
            dead.append(c.pk)
            chronicle.add(
                "death",
                f"{c.display_name} dies: {label} (rolled {sum(roll.faces)}{check.modifier:+d}, needed {check.need}).",
                character=c.pk,
                dynasty=c.controlled_by_id,
            )
        elif take:
            captured.append(c)
    box.flush()
    for c in captured:
        assert taker is not None
        _capture(c, taker, chronicle, why=label)
    if dead:
        character_die(campaign=campaign, character_ids=dead, cause=label[:120], chronicle=chronicle)
    world = World(campaign)
    successions_box = DiceBox(campaign, source=source, by=by, step=f"event:{reason}")
    new_reigns = resolve_successions(
        world,
        successions_box,
        chronicle,
        tables,
        entered=[list(f) for f in entered] if entered else None,
        pass_over=pass_over,
    )
    titles_pass_on(world, chronicle)
    queens_accession_rebellions(world, new_reigns, chronicle)
    successions_box.flush()
    if dead and campaign.step == Step.INTERPHASE:
        return_widowed(World(campaign), chronicle, dead)  # this turn's Announcements are past: at once
    chronicle.flush()
    return results


def _capture(character: Character, captor: Dynasty, chronicle: Chronicle, *, why: str) -> None:
    if character.controlled_by_id == captor.pk:
        raise RuleError(f"{character.display_name} cannot be captured by his own house.", code="invalid")
    character.prisoner_of = captor
    character.save(update_fields=["prisoner_of"])
    chronicle.add(
        "capture",
        f"{character.display_name} is taken prisoner by the house of {captor.name} ({why}).",
        character=character.pk,
        dynasty=captor.pk,
    )


@transaction.atomic
def character_capture(
    *,
    campaign: Campaign | int,
    character: Character | int,
    captor: Dynasty | int,
    reason: str = "",
    by: Actor,
) -> Character:
    """Record a capture (A5: a royal whose army is wiped out and who survives is captured)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    [who] = _characters(campaign, [character.pk if isinstance(character, Character) else character])
    taker = _dynasty(campaign, captor, "captor")
    if who.status != Status.ALIVE:
        raise RuleError(f"{who.display_name} is not alive to be captured.", code="not_alive")
    if who.prisoner_of_id is not None:
        raise RuleError(f"{who.display_name} is already a prisoner of {who.prisoner_of}.", code="already_prisoner")
    chronicle = Chronicle(campaign)
    _capture(who, taker, chronicle, why=reason.strip() or "captured")
    chronicle.flush()
    return who


@transaction.atomic
def character_release(
    *,
    campaign: Campaign | int,
    character: Character | int,
    ransom: int = 0,
    paid_by: Dynasty | int | None = None,
    by: Actor,
) -> Character:
    """Release a prisoner, for a ransom on any terms (A8; a neutral captor ransoms for 100). The
    ransom is recorded as money owed until the treasury keeps the books."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    [who] = _characters(campaign, [character.pk if isinstance(character, Character) else character])
    if who.prisoner_of_id is None:
        raise RuleError(f"{who.display_name} is not a prisoner.", code="not_prisoner")
    if ransom < 0:
        raise RuleError("A ransom cannot be negative.", code="invalid", fields={"ransom": "negative"})
    captor = who.prisoner_of
    assert captor is not None
    chronicle = Chronicle(campaign)
    text = f"{who.display_name} is released by the house of {captor.name}"
    if ransom:
        payer = _dynasty(campaign, paid_by, "payer")
        text += f" for a ransom paid by the house of {payer.name}"  # the amount: payer, captor and GM only
        what = f"ransom of {who.display_name}"
        money = treasury.currency(campaign)  # Crowns in Blood Royale, ducats in the EU games
        treasury.post(
            campaign,
            payer=payer,
            payee=captor,
            amount=ransom,
            kind=PostingKind.RANSOM,
            reason=what,
            character=who,
            check_funds=True,
        )
        chronicle.add(
            "payment_owed",
            f"{ransom} {money} from the house of {payer.name} to the house of {captor.name}: {what}.",
            readers=[payer.pk],
            dynasty=payer.pk,
            amount=-ransom,
            character=who.pk,
        )
        chronicle.add(
            "payment_owed",
            f"{ransom} {money} to the house of {captor.name} from the house of {payer.name}: {what}.",
            readers=[captor.pk],
            dynasty=captor.pk,
            amount=ransom,
            character=who.pk,
        )
    who.prisoner_of = None
    who.save(update_fields=["prisoner_of"])
    chronicle.add("release", text + ".", character=who.pk)
    chronicle.flush()
    return who


def _regent_candidate(c: Character, reign: Reign, house: int | None, year: int) -> RegentCandidate:
    return RegentCandidate(
        name=c.display_name,
        age=c.age(year),
        alive=c.status == Status.ALIVE,
        prisoner=c.prisoner_of_id is not None,
        of_the_house=house is not None and c.controlled_by_id == house,
        monarch=c.pk == reign.holder_id,
        regent=c.pk == reign.regent_id,
    )


def regents_allowed(campaign: Campaign, reign: Reign, house: int | None) -> list[Character]:
    """The characters who may act as regent of this regency now (A7: 'any other character ... if he
    or she is of age', of the crown's player's house; not the regent himself): one query."""
    year = campaign.current_year
    people = Character.objects.filter(campaign=campaign, controlled_by_id=house, status=Status.ALIVE).select_related(
        "controlled_by"
    )
    return [
        c
        for c in people.order_by("birth_year", "birth_order", "pk")
        if regent_refusal(_regent_candidate(c, reign, house, year), crown=reign.crown) is None
    ]


def _late_monarch(campaign: Campaign, crown: str) -> Character | None:
    """The crown's monarch before this one (a created baron is his cousin, 5 years younger)."""
    before = Reign.objects.filter(campaign=campaign, crown=crown, end_year__isnull=False).select_related("holder")
    last = before.order_by("-end_year", "-start_year", "-pk").first()
    return last.holder if last is not None else None


@transaction.atomic
def regent_appoint(
    *,
    campaign: Campaign | int,
    crown: str,
    character: Character | int | None = None,
    baron: bool = False,
    characteristics: Sequence[Sequence[int] | None] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> Reign:
    """The player of the crown names the regent of its minor monarch (A7: "The player can bring in any
    other character to act as Regent (if he or she is of age). If none are available, a baron or cousin
    of the late King is created"): one of his house's characters of age who is free, or, only when none
    can act, a created baron (``baron``), his characteristics rolled or typed (``characteristics``: the
    faces of each of the three, in the ruleset's order, None where the server rolls). A created baron who
    is replaced retires from the game. The crown's player or the GM records it (``require(.., "crown")``)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    record = Crown.objects.filter(campaign=campaign, name=crown).first()
    if record is None:
        raise NotFound(f"There is no crown called {crown!r} in {campaign.name}.", fields={"crown": "unknown"})
    require(by, campaign, "crown", player=record.controlled_by_id, crown=crown)  # his decision (campaign.permissions)
    if not campaign.rules.regents:
        raise RuleError(
            f"{campaign.rules.label} has no regents: a monarch under 15 costs his country Stability instead.", code="ruleset"
        )
    try:
        reign = Reign.objects.select_related("holder", "regent").get(campaign=campaign, crown=crown, end_year__isnull=True)
    except Reign.DoesNotExist:
        raise NotFound(f"Nobody reigns over {crown!r} in {campaign.name}.", fields={"crown": "no_reign"}) from None
    if reign.regent_id is None or reign.regency_end_year is not None:
        raise RuleError(
            f"{reign.holder.display_name} is of age: {crown} has no regency (a regent rules only for a monarch under "
            f"{br.REGENT_MIN_AGE}, A7).",
            code="no_regency",
            fields={"crown": "no_regency"},
        )
    year = campaign.current_year
    house = record.controlled_by_id
    if baron == (character is not None):
        raise RuleError(
            "Choose the regent among the characters offered, or (only when none can act) a baron created for it: one of the two.",
            code="invalid",
            fields={"character": "one"},
        )
    if not baron and characteristics and any(f for f in characteristics):
        raise RuleError(
            "Dice were typed for a created baron, but a character was chosen as regent: clear them.",
            code="invalid_dice",
            fields={"characteristics": "not_due"},
        )
    chronicle = Chronicle(campaign)
    world: World | None = None
    if baron:
        refusal = baron_refusal(len(regents_allowed(campaign, reign, house)), crown=crown)
        if refusal:
            raise RuleError(refusal, code="regent_available", fields={"baron": "available"})
        typed = list(characteristics or [])
        if typed and len(typed) != 3:
            raise RuleError("Type the dice of the baron's three characteristics, or none.", code="invalid_dice")
        world = World(campaign)
        box = DiceBox(campaign, source=source, by=by, step="event:regent")
        regent = create_baron(
            world,
            crown,
            _late_monarch(campaign, crown),
            world.dynasties.get(house or 0),
            box,
            chronicle,
            load_tables(campaign),
            typed=[list(f) if f else None for f in typed] if typed else None,
        )
        box.flush()
    else:
        assert character is not None
        [regent] = _characters(campaign, [character.pk if isinstance(character, Character) else character])
        refusal = regent_refusal(_regent_candidate(regent, reign, house, year), crown=crown)
        if refusal:
            raise RuleError(refusal, code="regent_refused", fields={"character": "refused"})
    old = reign.regent
    assert old is not None
    reign.regent = regent
    reign.save(update_fields=["regent"])
    text = f"{regent.display_name} replaces {old.display_name} as regent of {crown} for {reign.holder.display_name}"
    if old.origin == Origin.BARON and old.status == Status.ALIVE:
        old.status = Status.RETIRED
        old.retired_year = year
        old.save(update_fields=["status", "retired_year"])
        text += "; the baron retires from the game"
    chronicle.add("regency", text + ".", character=regent.pk, crown=crown)
    crowns_review(campaign, chronicle, world)  # a lost capital's Charisma follows the ruler
    chronicle.flush()
    return reign


@transaction.atomic
def crown_give_back(
    *,
    campaign: Campaign | int,
    crown: str,
    monarch: Character | int | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> Reign:
    """The player controlling an annexed crown abandons it (A7, Controlling Two Countries): the
    landless house sets up a new monarch — one of its own characters, or, if none is named, a
    family created as when no heir can be found."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    held = Crown.objects.filter(campaign=campaign, name=crown).first()
    if held is None:
        raise NotFound(f"There is no crown called {crown!r} in {campaign.name}.", fields={"crown": "unknown"})
    require(by, campaign, "crown", player=held.controlled_by_id, crown=crown)  # the holding player gives it up
    if not campaign.rules.gives_back_crowns:
        raise RuleError(
            f"{campaign.rules.label} gives no crown back: a country held by another house returns by its own rules.",
            code="ruleset",
        )
    world = World(campaign)
    record: Crown | None = world.crowns.get(crown)
    if record is None or not record.annexed:
        raise RuleError(
            f"{crown} is not held in a Dynastic Union; there is nothing to give back.",
            code="not_annexed",
            fields={"crown": "not_annexed"},
        )
    home = world.dynasties.get(record.home_dynasty_id or 0)
    if home is None:
        raise RuleError(f"{crown} has no home dynasty to give it back to.", code="invalid")
    reign = next(r for r in world.open_reigns() if r.crown == crown)
    late = world.characters[reign.holder_id]
    year = campaign.current_year
    chronicle = Chronicle(campaign)
    box = DiceBox(campaign, source=source, by=by)
    if monarch is not None:
        pk = monarch.pk if isinstance(monarch, Character) else monarch
        new_monarch = world.characters.get(pk)
        if new_monarch is None:
            raise NotFound(f"There is no character #{pk} in {campaign.name}.", fields={"monarch": "unknown"})
        if new_monarch.status != Status.ALIVE or new_monarch.controlled_by_id != home.pk:
            raise RuleError(
                f"{new_monarch.display_name} is not a living member of the house of {home.name}; the new monarch "
                "must be set up by the landless player (A7: 'allow a new Monarch to be established by the "
                "'landless' player').",
                code="invalid",
                fields={"monarch": "not_of_the_house"},
            )
        if new_monarch.pk in world.reigning():
            raise RuleError(f"{new_monarch.display_name} already reigns.", code="invalid", fields={"monarch": "reigns"})
    else:
        new_monarch = create_relative(world, late, home, box, chronicle, load_tables(campaign), None)
    reign.end_year = year
    reign.save(update_fields=["end_year"])
    new = regnal.enthrone(campaign, crown, new_monarch, year, world=world)
    pay_monarch_match(world, new_monarch, crown, chronicle)  # his wife's house: 100 Crowns, as at a succession (A6)
    partner = record.union_with
    control.move(campaign, record, home, "house_restored")
    record.union_with = None
    record.union_since = None
    record.save(update_fields=["controlled_by", "union_with", "union_since"])
    if partner is not None and partner.union_with_id == record.pk:
        partner.union_with = None
        partner.union_since = None
        partner.save(update_fields=["union_with", "union_since"])
    chronicle.add(
        "union_ends",
        f"The Dynastic Union ends: {crown} is given back to the house of {home.name}; "
        f"{regnal.crowned_name(new_monarch, new)} is its new {title(new_monarch)}.",
        crown=crown,
        dynasty=home.pk,
    )
    if br.needs_regent(new_monarch.as_person(), year) and campaign.rules.regents:  # a minor set up: a regent (A7)
        chosen, _ = default_regent(world, crown, new_monarch.pk, ())
        regent = (
            world.characters[chosen]
            if chosen is not None
            else create_baron(world, crown, late, home, box, chronicle, load_tables(campaign))
        )
        new.regent = regent
        new.save(update_fields=["regent"])
        chronicle.add(
            "regency",
            f"{new_monarch.display_name} is {new_monarch.age(year)}: {regent.display_name} is regent until the "
            f"{title(new_monarch)} is 15.",
            character=regent.pk,
            crown=crown,
        )
    box.flush()
    crowns_review(campaign, chronicle, world)  # a lost capital's Charisma follows the new ruler
    chronicle.flush()
    return new
