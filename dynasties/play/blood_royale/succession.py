"""Blood Royale's succession (RULES.md A7): the rightful heir may be passed over only if a prisoner
or a woman married away (any heir under optional rule C), at a price in Strength and the new
monarch's Charisma; a minor monarch rules through a regent; nobody of the blood left, a relative
is created; a Dynastic Union ends with the King or the Queen; the Treasury pays 100 Crowns to a new
monarch's spouse's house."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from campaign.dice import DiceBox
from campaign.steps import Chronicle
from dynasties.models import Character, Crown, Dynasty, Marriage, Modifier, ModifierKind, Origin, PassedOver, Reign, Status
from dynasties.play.blood_royale.births import roll_characteristics
from dynasties.services import control
from dynasties.services.common import World
from dynasties.services.play_succession import (
    CrownTerms,
    PassOverCost,
    PassOverView,
    PretenderTerms,
    RelativePlan,
    TitleTerms,
    always_issue,
    no_one_barred,
    unbarred_by_unions,
)
from dynasties.services.succession import heir_standing, move_family
from rules import blood_royale as br
from rules.characteristics import Characteristic
from rules.dice import DiceSpec
from rules.errors import IllegalPassOver
from rules.names import given_name, spouse_dynastic_name
from rules.people import Person

# --- the deaths and the line ------------------------------------------------------------------------


def unions_end(world: World, chronicle: Chronicle) -> dict[str, set[int]]:
    """Blood Royale: a Dynastic Union lasts 'as long as the country is ruled by a "foreign" monarch'
    (Controlling Two Countries). When the King or the Queen dies it ends: the Queen's crown goes back
    to its home house, whose player is again 'that country's player' ('A female character who becomes
    Queen is always controlled by that country's player'); a widowed Queen reigns on ('Monarchs may not
    abdicate, nor be deposed') in her own house. Read from the Queen's crown."""
    reigning = {r.crown: r for r in world.open_reigns()}
    for record in sorted(world.crowns.values(), key=lambda c: c.name):
        reign = reigning.get(record.name)
        if record.union_with_id is None or reign is None:
            continue
        queen = world.characters[reign.holder_id]
        if queen.sex != "F":
            continue
        partner = next((c for c in world.crowns.values() if c.pk == record.union_with_id), None)
        king_reign = reigning.get(partner.name) if partner is not None else None
        king = world.characters.get(king_reign.holder_id) if king_reign is not None else None
        if queen.status != Status.DEAD and king is not None and king.status != Status.DEAD:
            continue
        home = world.dynasties.get(record.home_dynasty_id or 0)
        if home is not None:
            control.move(world.campaign, record, home, "union_ends")
        record.union_with = None
        record.union_since = None
        record.save(update_fields=["controlled_by", "union_with", "union_since"])
        if partner is not None and partner.union_with_id == record.pk:
            partner.union_with = None
            partner.union_since = None
            partner.save(update_fields=["union_with", "union_since"])
        who = queen if queen.status == Status.DEAD else king
        text = (
            f"The Dynastic Union of {record.name} and {partner.name if partner else '?'} ends with the death of "
            f"{who.display_name if who else 'the King'}: {record.name} goes back to the house of {home.name if home else '?'}"
        )
        if queen.status != Status.DEAD and home is not None:
            if queen.controlled_by_id != home.pk:
                control.move(world.campaign, queen, home, "union_ends")
                queen.save(update_fields=["controlled_by"])
                world.refresh_person(queen)
            text += f", and {queen.display_name} reigns on in her own house"
        chronicle.add("union_ends", text + ".", crown=record.name, dynasty=home.pk if home else None)
    return {}  # a Blood Royale union bars no heir


def successions_kill() -> bool:
    return False


union_barred = unbarred_by_unions
barred = no_one_barred
leaves_no_issue = always_issue


def pass_over_cost(world: World, candidate: Character, player: Dynasty | None, *, crown: str, rule_c: bool) -> PassOverCost:
    return br.pass_over_cost(heir_standing(world, candidate, player, crown=crown), rule_c=rule_c)


def heir_of(world: World, crown: str, candidate: Character) -> Character | None:
    return candidate


# --- the new reign -----------------------------------------------------------------------------------


def no_heir(
    world: World,
    late: Character,
    player: Dynasty | None,
    crown: str,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: list[list[int]] | None,
) -> tuple[Character, str]:
    heir = create_relative(world, late, player, box, chronicle, tables, entered)
    return heir, "a relative of the late monarch, as no heir of the blood is left"


def passed_over(
    world: World,
    reign: Reign,
    heir: Character,
    player: Dynasty | None,
    skipped: Sequence[tuple[Character, PassOverCost | None]],
    lines: Mapping[int, list[Character]],
    box: DiceBox,
    chronicle: Chronicle,
    entered: list[list[int]] | None,
) -> None:
    _pass_over(world, reign, heir, player, [(c, cost) for c, cost in skipped if cost is not None], box, chronicle, entered)


def crowned(world: World, crown: str, heir: Character, chronicle: Chronicle) -> None:
    """Nothing follows the enthronement."""


def minor(heir: Person, year: int) -> bool:
    return br.needs_regent(heir, year)


needs_regent = minor  # a minor monarch rules through a regent (A7)


def regent_min_age() -> int:
    return br.REGENT_MIN_AGE


def widows_retire() -> bool:
    return br.KINGS_WIDOWS_RETIRE


def baron_birth_year(late: Person | None, year: int) -> int:
    return br.baron_birth_year(late, year) if late is not None else year - br.BARON_MIN_AGE


def charisma_loss_dice() -> DiceSpec:
    return br.CHARISMA_LOSS_DICE


def baron_characteristics() -> tuple[Characteristic, ...]:
    return br.characteristics("M")


def relative_plan(late: Person, year: int) -> RelativePlan:
    return br.relative_plan(late, year)


def accession(world: World, reign: Reign, chronicle: Chronicle) -> None:
    """A new monarch keeps his titles."""


def match_crowns() -> int:
    return br.MONARCH_MATCH_CROWNS


def whole_family_moves() -> bool:
    return False


def join(
    world: World,
    *,
    queen_crown: Crown,
    king_crown: Crown,
    queen: Character,
    king: Character,
    king_player: Dynasty | None,
    chronicle: Chronicle,
) -> None:
    """The Queen's crown, the Queen and the couple's unmarried children go to the King's player."""
    if king_player is not None:
        move_family(world, king, queen, king_player, cause="union")
    control.move(world.campaign, queen_crown, king_player, "union")
    queen_crown.union_with = king_crown
    queen_crown.union_since = world.year
    king_crown.union_with = queen_crown
    king_crown.union_since = world.year
    queen_crown.save(update_fields=["controlled_by", "union_with", "union_since"])
    king_crown.save(update_fields=["union_with", "union_since"])
    home = world.dynasties.get(queen_crown.home_dynasty_id or 0)
    chronicle.add(
        "union",
        f"Dynastic Union: {queen.display_name}, Queen of {queen_crown.name}, is married to {king.display_name}, "
        f"King of {king_crown.name}; the house of {king_player.name if king_player else '?'} controls both crowns"
        + (f" and the house of {home.name} is landless" if home is not None and home != king_player else "")
        + ".",
        crown=queen_crown.name,
        dynasty=king_player.pk if king_player else None,
    )


CROWN_TERMS = CrownTerms.of(br.RULESET)


def crown_terms() -> CrownTerms:
    return CROWN_TERMS


TITLE_TERMS = TitleTerms(
    governors=True,
    rule_label=br.OPTIONAL_RULES["governing_provinces"],  # optional rule G
    governor_bonus=br.GOVERNOR_BONUS,
    regency_until=br.TITLE_REGENCY_UNTIL,
    governed_tax_extra=br.GOVERNED_TAX_EXTRA,
    governor_characteristic=br.governor_characteristic,
    with_governor_bonus=br.with_governor_bonus,
    governor_problems=br.governor_problems,
    default_title_name=br.default_title_name,
    dispute_consequence=br.title_dispute_consequence,
)


PRETENDER_TERMS = PretenderTerms(
    pretenders=br.RULESET.pretenders,
    option=br.RULESET.pretenders_option,
    option_label=br.OPTIONAL_RULES.get(br.RULESET.pretenders_option, br.RULESET.pretenders_option),
    children_under=br.PRETENDER_CHILDREN_UNDER,
    buy_back=br.PRETENDER_BUY_BACK_CROWNS,
    adult_age=br.ADULT_AGE,
    characteristic_dice=br.CHARACTERISTIC_DICE,
    characteristic_names=br.characteristic_names,
    pretender_problems=br.pretender_problems,
    bastard_problems=br.bastard_problems,
)


def pretender_terms() -> PretenderTerms:
    return PRETENDER_TERMS


def title_terms() -> TitleTerms:
    return TITLE_TERMS


def regents() -> bool:
    return True


def gives_back_crowns() -> bool:
    return True


def capitals() -> bool:
    return True


def minor_note(monarch: Character, regent: Character | None, year: int) -> tuple[str | None, int | None]:
    age = monarch.age(year)
    if regent is not None:
        until = monarch.birth_year + br.REGENT_MIN_AGE
        title = "Queen" if monarch.sex == "F" else "King"
        return (
            f"A minor, aged {age}: {regent.display_name} rules as regent until the {title} is "
            f"{br.REGENT_MIN_AGE} (the turn of {until} or the first after it).",
            until,
        )
    return (f"A minor, aged {age}." if age < br.ADULT_AGE else None), None


# --- the line of succession's page -------------------------------------------------------------------


def priced_pass_overs() -> bool:
    return True


def titles_descend() -> bool:
    return False


def charisma_odds() -> str:
    """The new monarch's Charisma roll spelt out from the rule itself: '1-3 (3 in 6): -1 Charisma; ...'."""
    dice = br.CHARISMA_LOSS_DICE
    faces: dict[int, list[int]] = {}
    for face in range(1, dice.sides + 1):
        faces.setdefault(br.charisma_loss([face]), []).append(face)
    parts = []
    for loss, f in faces.items():
        span = f"{f[0]}-{f[-1]}" if len(f) > 1 else f"{f[0]}"
        parts.append(f"{span} ({len(f)} in {dice.sides}): {loss:+d} Charisma")
    return "; ".join(parts)


CHARISMA_ODDS = charisma_odds()


def pass_over_view(world: World, character: Character, crown: str, player: Dynasty | None, rule_c: bool) -> PassOverView:
    """The answer the succession service would give if the GM passed this heir over now, and the
    penalties it would record (mirrors ``_pass_over``)."""
    try:
        cost = br.pass_over_cost(heir_standing(world, character, player, crown=crown), rule_c=rule_c)
    except IllegalPassOver as exc:
        return PassOverView(allowed=False, text=exc.message)
    name = character.display_name
    costs: list[str] = []
    exile_to = world.seat_left(player) if cost.exile_left and player is not None else None
    # the house holding the heir: the player on the left after an exile, his captor if a prisoner
    holder = exile_to or world.dynasties.get(character.prisoner_of_id or character.controlled_by_id or 0)
    usurper = player
    if usurper is not None:
        costs.append(
            f"{cost.usurper_strength:+d} Strength for every man of the house of {usurper.name} while {name}'s claim "
            "lives (it passes to the heirs of the body; a renunciation ends it)"
        )
    rival = holder if holder is not None and holder != player else None
    if rival is not None:
        foe = f"the house of {usurper.name}" if usurper is not None else "the usurper"
        costs.append(
            f"{cost.rival_strength:+d} Strength for the house of {rival.name} when fighting {foe}, as long as the claim lives"
        )
    if cost.charisma_roll:
        costs.append(
            f"the new monarch rolls {br.CHARISMA_LOSS_DICE} for Charisma: {CHARISMA_ODDS} (it may fall below -2; not inherited)"
        )
    pronoun = "her" if character.sex == "F" else "him"
    costs.append(f"{name}'s descendants are passed over with {pronoun}: they carry the same claim")
    if cost.exile_left:
        if exile_to is not None:
            costs.append(f"{name}, with spouse and children, goes into exile with the house of {exile_to.name} (rule C)")
        else:
            costs.append("no player sits on the left: nobody goes into exile (rule C)")
    why = cost.reason if cost.basic_allowed else "under optional rule C"  # not "passed over under ..." twice
    return PassOverView(allowed=True, text=why, costs=tuple(costs), cost=cost, usurper=usurper, rival=rival, exile_to=exile_to)


# --- the succession's own writes ------------------------------------------------------------------


def _pass_over(
    world: World,
    reign: Reign,
    heir: Character,
    player: Dynasty | None,
    skipped: list[tuple[Character, PassOverCost]],
    box: DiceBox,
    chronicle: Chronicle,
    entered: list[list[int]] | None,
) -> None:
    """Record the passed-over heirs and the penalties that last while their claims live (A7)."""
    year = world.year
    crown = reign.crown
    modifiers: list[Modifier] = []
    for claimant, cost in skipped:
        PassedOver.objects.create(reign=reign, character=claimant, reason=cost.reason)
        label = f"{claimant.display_name} passed over for the crown of {crown} ({cost.reason})"
        if cost.exile_left and player is not None:
            left = world.seat_left(player)
            if left is not None:
                _exile(world, claimant, left, chronicle)
        # the dynasty holding the rightful heir: his captor if he is a prisoner
        holder = world.dynasties.get(claimant.prisoner_of_id or claimant.controlled_by_id or 0)
        if player is not None:
            modifiers.append(
                Modifier(
                    campaign=world.campaign,
                    kind=ModifierKind.USURPER_STRENGTH,
                    value=cost.usurper_strength,
                    crown=crown,
                    dynasty=player,
                    claimant=claimant,
                    reason=label,
                    start_year=year,
                )
            )
        if holder is not None and holder != player:
            modifiers.append(
                Modifier(
                    campaign=world.campaign,
                    kind=ModifierKind.RIVAL_STRENGTH,
                    value=cost.rival_strength,
                    crown=crown,
                    dynasty=holder,
                    against=player,
                    claimant=claimant,
                    reason=label,
                    start_year=year,
                )
            )
        chronicle.add(
            "pass_over",
            f"{label}: the men of {player.name if player else crown} fight at -1 Strength"
            + (f", and {holder.name} at +1 against them," if holder is not None and holder != player else "")
            + " while the claim lives.",
            character=claimant.pk,
            crown=crown,
        )
    if any(cost.charisma_roll for _, cost in skipped):
        faces = entered.pop(0) if entered else None
        roll = box.roll(br.CHARISMA_LOSS_DICE, purpose="charisma_loss", characters=[heir], entered=faces, detail=crown)
        loss = br.charisma_loss(roll.faces)
        roll.outcome = f"charisma {loss:+d}"
        heir.characteristics = {**heir.characteristics, "charisma": int(heir.characteristics.get("charisma", 0)) + loss}
        heir.save(update_fields=["characteristics"])
        world.refresh_person(heir)
        modifiers.append(
            Modifier(
                campaign=world.campaign,
                kind=ModifierKind.CHARISMA_LOSS,
                value=loss,
                crown=crown,
                character=heir,
                reason=f"{heir.display_name} took the crown of {crown} over a rightful heir",
                start_year=year,
            )
        )
        chronicle.add(
            "pass_over",
            f"{heir.display_name} loses {-loss} Charisma (rolled {roll.faces[0]}): factions gather round the rightful heir.",
            character=heir.pk,
        )
    Modifier.objects.bulk_create(modifiers)


def _exile(world: World, claimant: Character, left: Dynasty, chronicle: Chronicle) -> None:
    """Rule C: the deposed heir, spouse and children pass to the player on the left, in exile."""
    spouse = world.spouse_of(claimant.pk)
    moved = [claimant] + ([spouse] if spouse else [])
    moved += [c for c in world.characters.values() if c.status == Status.ALIVE and claimant.pk in (c.father_id, c.mother_id)]
    for character in moved:
        control.move(world.campaign, character, left, "left_house")
        character.prince_piece = ""
        character.save(update_fields=["controlled_by", "prince_piece"])
        world.refresh_person(character)
    chronicle.add(
        "exile",
        f"{', '.join(c.display_name for c in moved)} go into exile with the house of {left.name} (optional rule C).",
        character=claimant.pk,
        dynasty=left.pk,
    )


def create_relative(
    world: World,
    late: Character,
    dynasty: Dynasty | None,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: list[list[int]] | None,
) -> Character:
    year = world.year
    plan = br.relative_plan(late.as_person(), year)
    crown = dynasty.crown if dynasty else ""
    relative = Character.objects.create(
        campaign=world.campaign,
        given_name=given_name(crown, "M", 1),
        sex="M",
        birth_year=plan.relative_birth_year,
        dynastic_name=late.dynastic_name,
        birth_dynasty=dynasty,
        controlled_by=dynasty,
        characteristics=br.normal_characteristics("M"),
        origin=Origin.RELATIVE,
    )
    wife = Character.objects.create(
        campaign=world.campaign,
        given_name=given_name(crown, "F", 1),
        sex="F",
        birth_year=plan.wife_birth_year,
        dynastic_name=spouse_dynastic_name(crown, late.dynastic_name),
        birth_dynasty=None,
        controlled_by=dynasty,
        characteristics=br.normal_characteristics("F"),
        origin=Origin.RELATIVE,
    )
    marriage = Marriage.objects.create(
        campaign=world.campaign,
        husband=relative,
        wife=wife,
        arranged_year=plan.marriage_year,
        wedding_year=plan.marriage_year,
    )
    world.open_marriages.append(marriage)
    family = [relative, wife]
    counts = {"M": 0, "F": 0}
    for born in plan.children_birth_years:
        faces = entered.pop(0) if entered else None
        roll = box.roll(br.SEX_DICE, purpose="sex", entered=faces)
        sex = br.sex_from_faces(roll.faces)
        roll.outcome = "boy" if sex == "M" else "girl"
        counts[sex] += 1
        child = Character.objects.create(
            campaign=world.campaign,
            given_name=given_name(crown, sex, counts[sex] + 1),
            sex=sex,
            birth_year=born,
            father=relative,
            mother=wife,
            dynastic_name=late.dynastic_name,
            birth_dynasty=dynasty,
            controlled_by=dynasty,
            characteristics={},
            origin=Origin.RELATIVE,
        )
        box.add_subject(roll, child)
        child_entered = [entered.pop(0) for _ in range(3)] if entered else None
        child.characteristics = roll_characteristics(box, child, tables["characteristic_bands"], entered=child_entered)
        child.save(update_fields=["characteristics"])
        family.append(child)
    for c in family:
        world.characters[c.pk] = c
        world.refresh_person(c)
    chronicle.add(
        "created",
        f"No heir of the blood survives {late.display_name}: a relative, {relative.display_name} (born "
        f"{relative.birth_year}), his wife {wife.display_name} and {len(family) - 2} children are created.",
        character=relative.pk,
    )
    return relative
