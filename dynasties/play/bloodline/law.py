"""BloodLine's succession consequences (RULES.md B): the price of disputed successions (Stability,
revolts, the spurned heirs), the turn's Stability effects (minors on the throne, the spurned lines'
rolls, the union's first turns), the Dynastic Union's end, the Dynastic Crisis and the Turkish
options. Asked by BloodLine's succession and survival plays; the Stability track itself is
``dynasties.services.bloodline`` (shared with the EU monarch tables)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from campaign.dice import DiceBox
from campaign.steps import Chronicle
from dynasties.models import (
    Character,
    Crown,
    CrownEvent,
    CrownEventKind,
    Dynasty,
    DynastyKind,
    Marriage,
    Modifier,
    ModifierKind,
    Origin,
    PassedOver,
    Reign,
    Status,
)
from dynasties.play.bloodline import sequence
from dynasties.services import control
from dynasties.services.bloodline import open_reign, revolt, stability
from dynasties.services.claims import SPURNED_KINDS, claims_review
from dynasties.services.common import World
from dynasties.services.deaths import character_die
from rules import bloodline as bl
from rules.dice import DiceSpec
from rules.errors import RuleError


def pass_over(
    world: World,
    reign: Reign,
    heir: Character,
    player: Dynasty | None,
    skipped: list[Character],
    box: DiceBox,
    chronicle: Chronicle,
    lines: Mapping[int, Sequence[Character]] | None = None,
) -> None:
    """BloodLine's price of a disputed succession (RULES.md B). ``lines`` maps each named heir to
    the heirs of his line who stood ahead of the new monarch and are passed over with him."""
    first = skipped[0]
    record = world.crown(reign.crown)
    lines = lines or {}
    with_them = [c for claimant in skipped for c in lines.get(claimant.pk, ())]
    cost = bl.dispute_cost(
        sex=first.sex,
        # "The heir is a prisoner of another country": of another player's house, or of the neutrals
        prisoner_of_another=first.held_by_neutrals
        or (first.prisoner_of_id is not None and (player is None or first.prisoner_of_id != player.pk)),
        married_away=player is not None and first.controlled_by_id != player.pk and world.spouse_of(first.pk) is not None,
        skipped=len(skipped),
        line_heirs=len(with_them),
    )
    for claimant in [*skipped, *(with_them if cost.kind == "voluntary" else [])]:
        PassedOver.objects.update_or_create(
            reign=reign, character=claimant, defaults={"reason": cost.kind.replace("_", " ")[:200]}
        )
    named = ", ".join(c.display_name for c in skipped)
    if with_them and cost.kind == "voluntary":
        named += f" (and with them {', '.join(c.display_name for c in with_them)})"
    chronicle.add(
        "pass_over",
        f"{named} passed over for the crown of {reign.crown}: {cost.explanation}.",
        crown=reign.crown,
    )
    why = f"{cost.kind.replace('_', ' ')} succession"
    if cost.stability:
        stability(world, record, cost.stability, why, chronicle, cause="pass_over", reign=reign)
    if cost.revolts:
        revolt(world, record, cost.revolts, why, chronicle, cause="pass_over", reign=reign)
    modifiers: list[Modifier] = []
    for claimant in skipped:
        if cost.combat_malus and player is not None:
            modifiers.append(
                Modifier(
                    campaign=world.campaign,
                    kind=ModifierKind.COMBAT_MALUS,
                    value=cost.combat_malus,
                    crown=reign.crown,
                    dynasty=player,
                    claimant=claimant,
                    start_year=world.year,
                    pass_over=cost.kind,
                    reason=f"{claimant.display_name} passed over for {reign.crown} ({cost.kind.replace('_', ' ')})",
                )
            )
        if cost.ongoing_roll and player is not None:
            modifiers.append(
                Modifier(
                    campaign=world.campaign,
                    kind=ModifierKind.ONGOING_DISPUTE,
                    value=-1,
                    crown=reign.crown,
                    dynasty=player,
                    claimant=claimant,
                    start_year=world.year,
                    reason=f"the spurned line of {claimant.display_name}",
                )
            )
    Modifier.objects.bulk_create(modifiers)
    if cost.interim:
        reign.interim_for = first
        reign.save(update_fields=["interim_for"])
    if cost.kind == "voluntary":
        for claimant in skipped:
            head = _spurn(world, claimant, player, box, chronicle)
            for member in lines.get(claimant.pk, ()):
                _spurn(world, member, player, box, chronicle, follows=head)


def _spurn(
    world: World,
    claimant: Character,
    player: Dynasty | None,
    box: DiceBox,
    chronicle: Chronicle,
    follows: Dynasty | None = None,
) -> Dynasty | None:
    """A voluntarily skipped heir passes for good to the player controlling the spouse; if unmarried
    (or married to a minor house) to another player drawn at random (a logged roll). An heir of a
    skipped line passed over with its head (``follows``: the head's new house) goes with the head
    unless married to another player's character. Returns the house he now belongs to. A monarch of
    another crown stays with its player ('Monarchs may not abdicate, nor be deposed'; docs/rulings.md)."""
    worn = [r.crown for r in world.open_reigns() if r.holder_id == claimant.pk]
    if worn:
        house = world.dynasties.get(claimant.controlled_by_id or 0)
        chronicle.add(
            "exile",
            f"{claimant.display_name}, passed over, reigns over {', '.join(worn)} and stays with its house.",
            character=claimant.pk,
        )
        return house
    spouse = world.spouse_of(claimant.pk)
    target = world.dynasties.get(spouse.controlled_by_id or 0) if spouse is not None else None
    if target is not None and (target.kind != DynastyKind.PLAYER or target == player):
        target = None
    if target is None and follows is not None:
        target = follows
    if target is None:
        others = sorted(
            (d for d in world.dynasties.values() if d.kind == DynastyKind.PLAYER and d != player), key=lambda d: (d.seat, d.pk)
        )
        if not others:
            return None
        roll = box.roll(DiceSpec(1, max(2, len(others))), purpose="spurned_heir", characters=[claimant], detail="who takes him")
        pick = (roll.faces[0] - 1) % len(others)
        target = others[pick]
        roll.outcome = target.name
    control.move(world.campaign, claimant, target, "passed_over")
    claimant.prince_piece = ""
    claimant.save(update_fields=["controlled_by", "prince_piece"])
    world.refresh_person(claimant)
    chronicle.add("exile", f"{claimant.display_name}, passed over, now belongs to the house of {target.name}.", dynasty=target.pk)
    return target


def turn_effects(world: World, box: DiceBox, chronicle: Chronicle) -> None:
    """After the survival rolls: -1 Stability for each monarch under 15, the 50% roll of every living
    spurned line (-1 Stability or a revolt), and the Queen's country's -1 Stability in the first two
    turns of a union (if not already charged this turn, when it formed). A spurned line extinguished
    by this turn's survival rolls ends first and is not rolled for ("until those bloodlines are
    extinguished (test this after all Survival Rolls)"); ``world`` must hold the dead."""
    claims_review(world, chronicle, kinds=SPURNED_KINDS)
    for reign in world.open_reigns():
        holder = world.characters.get(reign.holder_id)
        if holder is not None and holder.status == Status.ALIVE and holder.age(world.year) < bl.ADULT_AGE:
            why = f"{holder.display_name} is a minor"
            stability(
                world,
                world.crown(reign.crown),
                bl.MINOR_STABILITY_PER_TURN,
                why,
                chronicle,
                cause="minor_monarch",
                reign=reign,
            )
    disputes = Modifier.objects.filter(
        campaign=world.campaign, kind=ModifierKind.ONGOING_DISPUTE, end_year__isnull=True
    ).order_by("pk")
    for modifier in disputes:
        roll = box.roll(
            bl.ONGOING_DISPUTE_DICE, purpose="disputed_line", characters=[modifier.claimant_id], detail=modifier.crown
        )
        which = None
        if bl.ongoing_dispute_strikes(roll.faces):  # "1 stability level is lost or a new revolt is generated"
            which = box.roll(
                bl.ONGOING_DISPUTE_WHICH_DICE,
                purpose="disputed_line_which",
                characters=[modifier.claimant_id],
                detail=f"{modifier.crown}: 1-5 Stability, 6-10 a revolt",
            )
        outcome = bl.ongoing_dispute_outcome(roll.faces, which.faces if which is not None else None)
        roll.outcome = {"quiet": "quiet", "stability": "-1 Stability", "revolt": "a revolt"}[outcome]
        if which is not None:
            which.outcome = roll.outcome
        if outcome == "stability":
            stability(
                world,
                world.crown(modifier.crown),
                -1,
                modifier.reason,
                chronicle,
                cause="disputed_line",
                reign=open_reign(world, modifier.crown),
            )
        elif outcome == "revolt":
            revolt(
                world,
                world.crown(modifier.crown),
                1,
                modifier.reason,
                chronicle,
                cause="disputed_line",
                reign=open_reign(world, modifier.crown),
            )
    for record in sorted(world.crowns.values(), key=lambda r: r.name):
        if is_union_queen_crown(world, record):
            union_turn_stability(world, record, chronicle)


UNION_LOSS_REASON = "a Dynastic Union's first turns"


def is_union_queen_crown(world: World, record: Crown) -> bool:
    """The Queen's crown of a Dynastic Union: in union, and its monarch is the wife."""
    if record.union_with_id is None:
        return False
    reign = next((r for r in world.open_reigns() if r.crown == record.name), None)
    holder = world.characters.get(reign.holder_id) if reign is not None else None
    return holder is not None and holder.sex == "F"


def union_turn_stability(world: World, record: Crown, chronicle: Chronicle) -> None:
    """'The Queen's country loses stability of 1 level per Turn for the first two Turns that this
    condition exists': counted from the turn the union forms (its first), once a turn, from the
    losses already in the crown's history since the union began."""
    charged = list(
        CrownEvent.objects.filter(
            crown=record, kind=CrownEventKind.STABILITY, reason=UNION_LOSS_REASON, year__gte=record.union_since or 0
        ).values_list("year", flat=True)
    )
    loss = bl.union_turn_loss(len(charged), charged_this_turn=world.year in charged)
    if loss:
        stability(world, record, loss, UNION_LOSS_REASON, chronicle, cause="union", reign=open_reign(world, record.name))


def union_ends(world: World, record: Crown, chronicle: Chronicle) -> None:
    """BloodLine: the union ends at the death of either spouse; the Queen's country (``record``)
    regains 1 Stability. A minor crown held in the player's Vassal box goes back to its house."""
    partner = next((c for c in world.crowns.values() if c.pk == record.union_with_id), None) or record.union_with
    control.move(world.campaign, record, record.home_dynasty_id, "union_ends")
    record.union_with = None
    record.union_since = None
    record.save(update_fields=["controlled_by", "union_with", "union_since"])
    if partner is not None:
        if partner.annexed:
            control.move(world.campaign, partner, partner.home_dynasty_id, "union_ends")
        partner.union_with = None
        partner.union_since = None
        partner.save(update_fields=["controlled_by", "union_with", "union_since"])
    stability(
        world,
        record,
        bl.UNION_END_STABILITY,
        "the Dynastic Union is over",
        chronicle,
        cause="union_ends",
        reign=open_reign(world, record.name),
    )


def union_children(world: World, queen_id: int, king_id: int) -> set[int]:
    """The children of a union's Queen and King: none of them may inherit her crown."""
    return {c.pk for c in world.characters.values() if {c.father_id, c.mother_id} == {queen_id, king_id}}


def crisis(
    world: World,
    late: Character,
    dynasty: Dynasty | None,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, object],
    entered: list[list[int]] | None,
) -> Character:
    """Dynastic Crisis: a new dynasty, 'a distant relation' - King 40, wife 35, children 20, 15, 10."""
    if dynasty is None:
        raise RuleError(f"{late.display_name} has no house to found a new dynasty for.", code="invalid")
    king = sequence.starting_family(world.campaign, dynasty, box, chronicle, year=world.year, reign=False)
    for c in Character.objects.filter(
        campaign=world.campaign, origin=Origin.SETUP, controlled_by=dynasty, birth_year__gte=king.birth_year
    ).exclude(pk__in=list(world.characters)):
        world.characters[c.pk] = c
        world.refresh_person(c)
    world.characters[king.pk] = king
    world.refresh_person(king)
    world.open_marriages += list(Marriage.objects.filter(husband=king))
    chronicle.add(
        "created",
        f"Dynastic Crisis: no one of the blood survives {late.display_name}. A distant relation, {king.display_name} (40), "
        "his wife and three children found a new dynasty.",
        character=king.pk,
    )
    return king


def turkish_heir(world: World, crown: str, heir: Character) -> Character | None:
    """Turkey #1: a princess cannot reign; her husband inherits her rights (None: skip her)."""
    if crown != "Turkey" or not world.campaign.option("turkish_princess_rights") or heir.sex != "F":
        return heir
    husband = world.spouse_of(heir.pk)
    return husband if husband is not None and husband.status == Status.ALIVE else None


def fratricide(world: World, crown: str, monarch: Character, chronicle: Chronicle) -> list[int]:
    """Turkey #2: a new Turkish monarch puts all his brothers to death (not sisters nor their children)."""
    if crown != "Turkey" or not bl.brothers_to_die(monarch.sex, turkish_fratricide=world.campaign.option("turkish_fratricide")):
        return []
    brothers = [
        c.pk
        for c in world.characters.values()
        if c.pk != monarch.pk
        and c.sex == "M"
        and c.status == Status.ALIVE
        and c.birth_year <= world.year  # a brother dated later in the turn is not born yet: none to put to death
        and ((monarch.father_id and c.father_id == monarch.father_id) or (monarch.mother_id and c.mother_id == monarch.mother_id))
    ]
    if brothers:
        moved = character_die(
            campaign=world.campaign, character_ids=brothers, cause="put to death by the new Sultan", chronicle=chronicle
        )
        for pk in brothers:
            c = world.characters[pk]
            c.status, c.death_year = Status.DEAD, world.year
            world.refresh_person(c)
        for pk, (born, order) in moved.items():  # their children dated within their lives (deaths.births_within_lives)
            if pk in world.characters:
                c = world.characters[pk]
                c.birth_year, c.birth_order = born, order
                world.refresh_person(c)
        chronicle.add("death", f"{monarch.display_name} puts his brothers to death ({len(brothers)}).", crown=crown)
    return brothers
