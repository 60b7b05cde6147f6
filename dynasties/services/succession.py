"""Succession when a monarch dies (RULES.md A7): the heir, a regent for a minor, a created
relative when nobody of the blood is left, and the 100 Crowns owed for a match with a monarch."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from campaign.dice import DiceBox
from dynasties.models import Character, Dynasty, Marriage, Origin, Reign, Status
from dynasties.rules import blood_royale as br
from dynasties.rules.errors import RuleError
from dynasties.rules.names import given_name, spouse_dynastic_name
from dynasties.rules.succession import FamilyIndex, iter_succession
from dynasties.services.common import Chronicle, World
from dynasties.services.setup import format_characteristics, roll_characteristics


def title(character: Character) -> str:
    return "King" if character.sex == "M" else "Queen"


def resolve_successions(
    world: World, box: DiceBox, chronicle: Chronicle, tables: dict[str, Any], *, entered: list[list[int]] | None
) -> list[Reign]:
    """Every crown whose monarch is dead passes on; every regency whose regent died gets a new one."""
    new_reigns: list[Reign] = []
    for reign in list(world.open_reigns()):
        holder = world.characters[reign.holder_id]
        if holder.status == Status.DEAD:
            new_reigns.append(_succeed(world, reign, box, chronicle, tables, entered))
        elif (
            reign.regent_id
            and reign.regency_end_year is None
            and world.characters[reign.regent_id].status != Status.ALIVE
        ):
            regent = _choose_regent(world, reign, holder, holder, box, chronicle, tables, entered)
            reign.regent = regent
            reign.save(update_fields=["regent"])
            chronicle.add("regency", f"{regent.display_name} becomes regent for {holder.display_name}.", character=regent.pk)
    if entered:
        raise RuleError(f"{len(entered)} typed rolls were left over after the succession.", code="invalid_dice")
    return new_reigns


def _succeed(
    world: World, reign: Reign, box: DiceBox, chronicle: Chronicle, tables: dict[str, Any], entered: list[list[int]] | None
) -> Reign:
    year = world.year
    late = world.characters[reign.holder_id]
    crown = reign.crown
    dynasty = world.crown_dynasty(crown)
    heir_id = next(iter(iter_succession(world.people, late.pk, royal=world.past_holders(crown))), None)
    reign.end_year = year
    reign.save(update_fields=["end_year"])
    if heir_id is None:
        heir = _create_relative(world, late, dynasty, box, chronicle, tables, entered)
        how = "a relative of the late monarch, as no heir of the blood is left"
    else:
        heir = world.characters[heir_id]
        how = "the rightful heir"
    new = Reign.objects.create(campaign=world.campaign, crown=crown, holder=heir, start_year=year)
    world.reigns.append(new)
    if dynasty is not None:
        _bring_home(world, heir, dynasty, chronicle)
    text = (
        f"{heir.display_name} succeeds {late.display_name} as {title(heir)} of {crown}, aged {heir.age(year)} ({how})."
    )
    chronicle.add("succession", text, character=heir.pk, crown=crown, late=late.pk)
    spouse = world.spouse_of(heir.pk)
    if spouse is not None and spouse.birth_dynasty_id is not None:
        chronicle.add(
            "payment_owed",
            f"100 Crowns from the Treasury to the house of {world.dynasties[spouse.birth_dynasty_id].name}: "
            f"{spouse.display_name} is married to the new {title(heir)} of {crown}.",
            dynasty=spouse.birth_dynasty_id,
            amount=br.MONARCH_MATCH_CROWNS,
            character=spouse.pk,
        )
    if br.needs_regent(heir.as_person(), year):
        regent = _choose_regent(world, new, heir, late, box, chronicle, tables, entered)
        new.regent = regent
        new.save(update_fields=["regent"])
        chronicle.add(
            "regency",
            f"{heir.display_name} is {heir.age(year)}: {regent.display_name} is regent until the {title(heir)} is 15.",
            character=regent.pk,
            crown=crown,
        )
    return new


def _bring_home(world: World, heir: Character, dynasty: Dynasty, chronicle: Chronicle) -> None:
    """A new monarch is controlled by the crown's player (A7, Female Succession); the spouse and
    the couple's unmarried children come too, unless the heir is a woman married to a reigning
    King, whose player then controls both crowns (Dynastic Union)."""
    if heir.controlled_by_id == dynasty.pk:
        return
    spouse = world.spouse_of(heir.pk)
    reigning = world.reigning()
    if heir.sex == "F" and spouse is not None and spouse.pk in reigning:
        chronicle.add(
            "union",
            f"Dynastic Union: {heir.display_name} is married to {spouse.display_name}, "
            f"{title(spouse)} of {reigning[spouse.pk].crown}; his player controls both crowns.",
            character=heir.pk,
        )
        return
    moved = [heir]
    if spouse is not None:
        moved.append(spouse)
        children = [
            c for c in world.characters.values()
            if c.status == Status.ALIVE and {c.father_id, c.mother_id} == {heir.pk, spouse.pk}
            and world.spouse_of(c.pk, wed_only=True) is None
        ]
        moved += children
    for character in moved:
        character.controlled_by = dynasty
        character.prince_piece = ""
        character.save(update_fields=["controlled_by", "prince_piece"])
        world.refresh_person(character)
    chronicle.add(
        "return",
        f"{', '.join(c.display_name for c in moved)} return to {dynasty.crown} with the new {title(heir)}.",
        dynasty=dynasty.pk,
    )


def _choose_regent(
    world: World,
    reign: Reign,
    heir: Character,
    late: Character,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: list[list[int]] | None,
) -> Character:
    """Any adult of the house may be regent (the GM may change the choice); by default the first
    adult in the line of succession, else the oldest adult of the house who is neither a prisoner
    nor the late monarch's widow; if there is none, a baron or cousin is created (A7)."""
    year = world.year
    dynasty = world.crown_dynasty(reign.crown)
    partners = Marriage.objects.filter(campaign=world.campaign, ended_year=year).filter(
        Q(husband=late) | Q(wife=late)
    ).values_list("husband_id", "wife_id")
    widow_ids = {pk for pair in partners for pk in pair} - {late.pk}

    def fit(c: Character) -> bool:
        return (
            c.status == Status.ALIVE
            and c.pk != heir.pk
            and c.pk not in widow_ids
            and c.age(year) >= br.REGENT_MIN_AGE
            and c.prisoner_of_id is None
            and (dynasty is None or c.controlled_by_id == dynasty.pk)
            and c.origin != Origin.BARON
        )

    index = FamilyIndex(world.people)
    for pid in iter_succession(world.people, heir.pk, royal=world.past_holders(reign.crown), index=index):
        candidate = world.characters[pid]
        if fit(candidate):
            return candidate
    others = sorted((c for c in world.characters.values() if fit(c)), key=lambda c: (c.birth_year, c.birth_order, c.pk))
    if others:
        return others[0]
    born = br.baron_birth_year(late.as_person(), year)
    crown = reign.crown
    baron = Character.objects.create(
        campaign=world.campaign, given_name=given_name(crown, "M", 3), sex="M", birth_year=born,
        dynastic_name=late.dynastic_name, birth_dynasty=dynasty, controlled_by=dynasty,
        characteristics={}, origin=Origin.BARON,
    )
    baron.characteristics = roll_characteristics(box, baron, tables["characteristic_bands"], entered)
    baron.save(update_fields=["characteristics"])
    world.characters[baron.pk] = baron
    world.refresh_person(baron)
    chronicle.add(
        "created",
        f"No adult can act as regent: {baron.display_name}, a baron and cousin of the late {title(late)}, "
        f"aged {baron.age(year)}, is created ({format_characteristics(baron.characteristics)}).",
        character=baron.pk,
    )
    return baron


def _create_relative(
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
        campaign=world.campaign, given_name=given_name(crown, "M", 1), sex="M", birth_year=plan.relative_birth_year,
        dynastic_name=late.dynastic_name, birth_dynasty=dynasty, controlled_by=dynasty,
        characteristics=br.normal_characteristics("M"), origin=Origin.RELATIVE,
    )
    wife = Character.objects.create(
        campaign=world.campaign, given_name=given_name(crown, "F", 1), sex="F", birth_year=plan.wife_birth_year,
        dynastic_name=spouse_dynastic_name(crown, late.dynastic_name), birth_dynasty=None, controlled_by=dynasty,
        characteristics=br.normal_characteristics("F"), origin=Origin.RELATIVE,
    )
    marriage = Marriage.objects.create(
        campaign=world.campaign, husband=relative, wife=wife, arranged_year=plan.marriage_year,
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
            campaign=world.campaign, given_name=given_name(crown, sex, counts[sex] + 1), sex=sex, birth_year=born,
            father=relative, mother=wife, dynastic_name=late.dynastic_name, birth_dynasty=dynasty,
            controlled_by=dynasty, characteristics={}, origin=Origin.RELATIVE,
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
