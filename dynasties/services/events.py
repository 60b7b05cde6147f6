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
from dynasties.services import control, event_deaths, regnal
from dynasties.services.announcements import return_widowed
from dynasties.services.common import World
from dynasties.services.pretenders import queens_accession_rebellions
from dynasties.services.succession import create_relative, resolve_successions, title
from dynasties.services.survival import birth_penalties, character_die
from dynasties.services.titles import titles_pass_on
from rules import blood_royale as br
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


NEUTRALS = "neutrals"
"""``captor`` of a battle lost to a neutral army: the neutrals ransom a royal for 100 (A8)."""


@transaction.atomic
def survival_event(
    *,
    campaign: Campaign | int,
    reason: str,
    characters: Sequence[int],
    faces: Mapping[int, Sequence[int]] | None = None,
    captor: Dynasty | int | str | None = None,
    immune: Sequence[int] = (),
    titles: Sequence[int] = (),
    governed: Sequence[int] | None = None,
    modifier: int | None = None,
    note: str = "",
    pass_over: Mapping[str, Sequence[int]] | None = None,
    entered: Sequence[Sequence[int]] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> list[EventResult]:
    """A survival roll outside the Dynastic Sequence, for a reason (A5): ``plague`` (-1; those in
    their capital, listed in ``immune``, do not roll), ``battle`` (-1; survivors are captured by
    ``captor``: a house, or ``NEUTRALS``), ``storm`` (no roll: all die), ``killed`` (a death decided at
    the table, any ruleset), ``other`` (the GM's ``modifier``).

    Who may be struck follows the rulebook (``event_deaths.check_struck``): nobody held prisoner
    ("Captured characters may not be killed"); in Blood Royale a battle, a storm or a plague only a
    royal piece on the map (the King, a Prince with his piece). Under optional rule G a plague in the
    governed provinces ``titles`` strikes each Governor's household (the Governor, spouse, children up
    to 15) at -1, +1 for each other province he governs not struck; ``governed`` lists them as the GM
    ticked them (None: as the rule finds them) and must be exactly those the rule finds, less the
    immune and those already rolling for their piece (one roll each).

    Deaths take effect at once and any crown left vacant passes. ``pass_over`` (crown -> heirs) is
    decided before the dice, for a monarch the event may kill: it is checked now as the succession
    would walk it, and applied to the crowns left vacant without the heirs who died too; ``entered``
    as for survival_finish. The GM records it (``require(.., "gm")``: running the turn)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    rolls = br.event_rolls(reason)
    if rolls and not campaign.rules.event_rolls:
        raise RuleError(
            f"Survival rolls for {reason} are Blood Royale's; in this ruleset record the death itself (reason 'killed').",
            code="ruleset",
        )
    if reason == "storm" and not (campaign.rules.prince_pieces or campaign.rules.royal_leaders):
        raise RuleError(
            "A storm takes the royal pieces or leaders aboard a fleet; this ruleset has neither: record the death "
            "itself (reason 'killed').",
            code="ruleset",
        )
    people = _characters(campaign, list(dict.fromkeys([*characters, *immune])))
    for c in people:
        if c.status != Status.ALIVE:
            raise RuleError(f"{c.display_name} is {c.get_status_display().lower()}: no survival roll.", code="not_alive")
    event_deaths.check_struck(campaign, reason, people)
    if titles and reason != "plague":
        raise RuleError(
            "Only a plague strikes a governed province (optional rule G).", code="invalid", fields={"titles": "plague"}
        )
    household = event_deaths.rule_g_rollers(campaign, titles)
    due_g = {pk: r for pk, r in household.items() if pk not in immune and pk not in characters}
    if governed is not None:
        ticked = {pk for pk in governed if pk not in characters}
        missing = [r.character.display_name for pk, r in due_g.items() if pk not in ticked]
        stray_g = _characters(campaign, sorted(ticked - set(due_g)))
        if missing:
            raise RuleError(
                f"{br.RULE_G_PLAGUE}: {', '.join(missing)} must roll too (or be listed as immune, in the capital).",
                code="rule_g",
                fields={"governed": "missing"},
            )
        if stray_g:
            event_deaths.check_struck(campaign, "other", stray_g)  # a prisoner is refused for that first
            raise RuleError(
                f"{br.RULE_G_PLAGUE}: {stray_g[0].display_name} is of no household of a Governor whose province is struck.",
                code="rule_g",
                fields={"governed": "not_struck"},
            )
    rolling = [c for c in people if c.pk not in immune] + [r.character for r in due_g.values()]
    if not rolling and not people:
        raise RuleError("Name at least one character.", code="invalid", fields={"characters": "required"})
    taker: Dynasty | None = None
    neutral = reason == "battle" and captor == NEUTRALS
    if reason == "battle" and not neutral:
        taker = _dynasty(campaign, captor if not isinstance(captor, str) else _house_id(captor), "captor")
        own = [c for c in rolling if c.controlled_by_id == taker.pk]
        if own:
            raise RuleError(
                f"{own[0].display_name} cannot be captured by his own house.", code="invalid", fields={"captor": "own"}
            )
    typed = dict(faces or {})
    stray = [pk for pk in typed if pk not in {c.pk for c in rolling}]
    if stray:
        raise RuleError("Dice were typed for characters who do not roll in this event.", code="not_due")
    decided = event_deaths.check_pass_over(campaign, pass_over or {}, {c.pk for c in rolling})
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
    for c in rolling:
        if not rolls:
            results.append(EventResult(c, (), 0, None, False))
            dead.append(c.pk)
            chronicle.add("death", f"{c.display_name} dies: {label}.", character=c.pk, dynasty=c.controlled_by_id)
            continue
        g = due_g.get(c.pk)
        check = br.survival_check(
            tables["survival"],
            c.as_person(),
            campaign.current_year,
            extra_modifier=(g.modifier if g is not None else extra) + penalties.get(c.pk, 0),
        )
        roll = box.roll(
            br.SURVIVAL_DICE,
            purpose=reason,
            characters=[c],
            entered=typed.get(c.pk),
            modifier=check.modifier,
            target=check.need,
            detail=f"age {check.age}" + (f"; {g.why}" if g is not None else ""),
        )
        survived = br.survives(check, roll.faces)
        roll.outcome = "survived" if survived else "died"
        take = survived and reason == "battle"
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
        if taker is not None:
            _capture(c, taker, chronicle, why=label)
        else:
            _capture_by_neutrals(campaign, c, chronicle, why=label)
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
        pass_over=event_deaths.pass_over_applied(campaign, decided),
    )
    titles_pass_on(world, chronicle)
    queens_accession_rebellions(world, new_reigns, chronicle)
    successions_box.flush()
    if dead and campaign.step == Step.INTERPHASE:
        return_widowed(World(campaign), chronicle, dead)  # this turn's Announcements are past: at once
    chronicle.flush()
    return results


def _house_id(value: str) -> int:
    """A captor typed as a house's id ("12"); anything else is no house."""
    if not value.strip().isdigit():
        raise RuleError(
            f"{value!r} is no captor: name a house, or the neutrals ({NEUTRALS!r}).", code="invalid", fields={"captor": "invalid"}
        )
    return int(value)


def _capture_by_neutrals(campaign: Campaign, character: Character, chronicle: Chronicle, *, why: str) -> None:
    """Taken by a neutral army (A8, optional rules 'Fighting Neutrals': "If they capture a Royal
    character, Neutrals ransom him for 100 Crowns"): no house holds him; his house pays the ransom at
    the Interphase (its neutral ransoms), and he comes home."""
    money = treasury.currency(campaign)
    chronicle.add(
        "capture",
        f"{character.display_name} is taken prisoner by the neutrals ({why}): they ransom him for {br.NEUTRAL_RANSOM} {money}.",
        character=character.pk,
        dynasty=character.controlled_by_id,
        neutrals=True,
    )


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


@transaction.atomic
def regent_appoint(*, campaign: Campaign | int, crown: str, character: Character | int, by: Actor) -> Reign:
    """The player names another adult as regent for a minor monarch (A7: "any other character ...
    if he or she is of age"); a baron created only to be regent retires when replaced."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    try:
        reign = Reign.objects.select_related("holder", "regent").get(campaign=campaign, crown=crown, end_year__isnull=True)
    except Reign.DoesNotExist:
        raise NotFound(f"Nobody reigns over {crown!r} in {campaign.name}.") from None
    if reign.regent_id is None or reign.regency_end_year is not None:
        raise RuleError(f"{reign.holder.display_name} is of age: {crown} has no regency.", code="no_regency")
    [regent] = _characters(campaign, [character.pk if isinstance(character, Character) else character])
    year = campaign.current_year
    if regent.pk == reign.holder_id:
        raise RuleError("The monarch cannot be his own regent.", code="invalid")
    if regent.status != Status.ALIVE:
        raise RuleError(f"{regent.display_name} is not in play and cannot be regent.", code="not_alive")
    if regent.age(year) < br.REGENT_MIN_AGE:
        raise RuleError(f"{regent.display_name} is {regent.age(year)}: a regent must be of age (15).", code="too_young")
    if regent.prisoner_of_id is not None:
        raise RuleError(f"{regent.display_name} is a prisoner and cannot act as regent.", code="prisoner")
    old = reign.regent
    assert old is not None
    if old.pk == regent.pk:
        raise RuleError(f"{regent.display_name} is already the regent.", code="invalid")
    reign.regent = regent
    reign.save(update_fields=["regent"])
    chronicle = Chronicle(campaign)
    text = f"{regent.display_name} replaces {old.display_name} as regent of {crown} for {reign.holder.display_name}"
    if old.origin == Origin.BARON and old.status == Status.ALIVE:
        old.status = Status.RETIRED
        old.retired_year = year
        old.save(update_fields=["status", "retired_year"])
        text += "; the baron retires from the game"
    chronicle.add("regency", text + ".", character=regent.pk, crown=crown)
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
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    world = World(campaign)
    record: Crown | None = world.crowns.get(crown)
    if record is None or not record.annexed:
        raise RuleError(f"{crown} is not held in a Dynastic Union; there is nothing to give back.", code="not_annexed")
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
            raise NotFound(f"There is no character #{pk} in {campaign.name}.")
        if new_monarch.status != Status.ALIVE or new_monarch.controlled_by_id != home.pk:
            raise RuleError(
                f"{new_monarch.display_name} is not a living member of the house of {home.name}; the new monarch "
                "must be set up by the landless player.",
                code="invalid",
            )
        if new_monarch.pk in world.reigning():
            raise RuleError(f"{new_monarch.display_name} already reigns.", code="invalid")
    else:
        new_monarch = create_relative(world, late, home, box, chronicle, load_tables(campaign), None)
    reign.end_year = year
    reign.save(update_fields=["end_year"])
    new = regnal.enthrone(campaign, crown, new_monarch, year, world=world)
    partner = record.union_with
    control.move(campaign, record, home, "house_restored")
    record.union_with = None
    record.union_since = None
    record.save(update_fields=["controlled_by", "union_with", "union_since"])
    if partner is not None and partner.union_with_id == record.pk:
        partner.union_with = None
        partner.union_since = None
        partner.save(update_fields=["union_with", "union_since"])
    box.flush()
    chronicle.add(
        "union_ends",
        f"The Dynastic Union ends: {crown} is given back to the house of {home.name}; "
        f"{regnal.crowned_name(new_monarch, new)} is its new {title(new_monarch)}.",
        crown=crown,
        dynasty=home.pk,
    )
    chronicle.flush()
    return new
