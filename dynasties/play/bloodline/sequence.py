"""BloodLine's Dynastic Sequence (RULES.md B): the set-up's families (a player house's, a minor
house's), who may try for a child and who rolls for survival (read by the sequence's page too).
Asked by BloodLine's births, survival, announcements, succession and minor houses' plays; the royal
leaders and the diplomacy bonus a marriage gives on a minor are ``dynasties.services.bloodline_sequence``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty, DynastyKind, Marriage, Origin
from dynasties.services import regnal
from dynasties.services.common import World
from dynasties.services.play_minor_houses import SetupDice
from rules import bloodline as bl
from rules.errors import RuleError
from rules.names import given_name, spouse_dynastic_name


def roll_values(
    box: DiceBox, character: Character, faces: Sequence[Sequence[int]] | None, modifiers: Mapping[str, int]
) -> dict[str, int]:
    values: dict[str, int] = {}
    for n, name in enumerate(bl.CHARACTERISTICS):
        roll = box.roll(
            bl.CHARACTERISTIC_DICE,
            purpose="characteristic",
            characters=[character],
            entered=faces[n] if faces is not None else None,
            modifier=modifiers.get(name, 0),
            detail=name,
        )
        values[name] = bl.child_value(roll.faces[0], modifiers.get(name, 0))
        roll.outcome = f"{name} {values[name]}"
    return values


def _each(faces: Sequence[int] | None) -> list[list[int]] | None:
    return [[f] for f in faces] if faces is not None else None


def starting_family(
    campaign: Campaign,
    dynasty: Dynasty,
    box: DiceBox,
    chronicle: Chronicle,
    *,
    year: int,
    reign: bool = True,
    typed: SetupDice | None = None,
) -> Character:
    """A player house starts as the variant's new dynasty does (King 40, wife 35, children 20, 15 and
    10 of random sex); a minor house by the minor set-up (a King of 2d10 x 4 years ...). ``typed``:
    the table's dice, refused if it gives dice for more children than the King's age allows."""
    crown = dynasty.crown
    dice = typed or SetupDice()
    if dynasty.kind == DynastyKind.MINOR:
        age_roll = box.roll(bl.MINOR_KING_AGE_DICE, purpose="minor_setup", entered=dice.king_age, detail="King's age (2d10 x 4)")
        king_born, wife_born, children = bl.minor_house_setup(age_roll.faces, year)
        age_roll.outcome = f"King aged {year - king_born}"
    else:
        king_born, wife_born, children = bl.crisis_family(year)
    extra = [n for n, faces in enumerate(dice.children) if faces is not None and n >= len(children)]
    if extra:
        ages = f"the King's age ({year - king_born}) gives {len(children)} {'child' if len(children) == 1 else 'children'}"
        raise RuleError(
            f"Dice were typed for child {extra[0] + 1}, but {ages} ({bl.MINOR_SETUP_RULE}: one for each 20 years of "
            "his life, fractions lost): clear them.",
            code="not_due",
            fields={f"child_{extra[0] + 1}": "not due"},
        )
    king = Character.objects.create(
        campaign=campaign,
        given_name=given_name(crown, "M", 0),
        sex="M",
        birth_year=king_born,
        dynastic_name=dynasty.name,
        birth_dynasty=dynasty,
        controlled_by=dynasty,
        characteristics={},
        origin=Origin.SETUP,
    )
    if dynasty.kind == DynastyKind.MINOR:
        box.add_subject(age_roll, king)
    wife = Character.objects.create(
        campaign=campaign,
        given_name=given_name(crown, "F", 0),
        sex="F",
        birth_year=wife_born,
        dynastic_name=spouse_dynastic_name(crown, dynasty.name),
        birth_dynasty=None,
        controlled_by=dynasty,
        characteristics={},
        origin=Origin.SETUP,
    )
    for person, faces in ((king, dice.king), (wife, dice.wife)):
        person.characteristics = roll_values(box, person, _each(faces), {})
        person.save(update_fields=["characteristics"])
    wed = min(children) if children else max(king_born + 20, wife_born + 15)
    Marriage.objects.create(campaign=campaign, husband=king, wife=wife, arranged_year=wed, wedding_year=wed)
    if crown and reign:
        regnal.enthrone(campaign, crown, king, year)
    lines = [f"{king.display_name} ({year - king_born})", f"{wife.display_name} ({year - wife_born})"]
    counts = {"M": 1, "F": 1}
    for n, born in enumerate(children):
        child_dice = dice.children[n] if n < len(dice.children) else None
        roll = box.roll(bl.SEX_DICE, purpose="sex", entered=child_dice[:1] if child_dice is not None else None)
        sex = bl.sex_from_faces(roll.faces)
        roll.outcome = "boy" if sex == "M" else "girl"
        child = Character.objects.create(
            campaign=campaign,
            given_name=given_name(crown, sex, counts[sex]),
            sex=sex,
            birth_year=born,
            father=king,
            mother=wife,
            dynastic_name=dynasty.name,
            birth_dynasty=dynasty,
            controlled_by=dynasty,
            characteristics={},
            origin=Origin.SETUP,
        )
        counts[sex] += 1
        box.add_subject(roll, child)
        child.characteristics = roll_values(
            box,
            child,
            _each(child_dice[1:]) if child_dice is not None else None,
            parent_modifiers(king, wife, minor=dynasty.kind == DynastyKind.MINOR),
        )
        child.save(update_fields=["characteristics"])
        lines.append(f"{child.display_name} ({year - born}): {values_text(child)}")
    chronicle.add(
        "setup",
        f"The house of {dynasty.name}" + (f" rules {crown}" if crown else "") + ": " + "; ".join(lines) + ".",
        step="setup",
        dynasty=dynasty.pk,
    )
    return king


def values_text(c: Character) -> str:
    return "/".join(str(c.characteristics.get(n, "?")) for n in bl.CHARACTERISTICS) + " (ADM/DIP/MIL)"


def parent_modifiers(father: Character | None, mother: Character | None, *, minor: bool) -> dict[str, int]:
    if minor or father is None or mother is None:
        return {}
    return {
        n: bl.parents_modifier(int(father.characteristics.get(n, 6)), int(mother.characteristics.get(n, 6)))
        for n in bl.CHARACTERISTICS
    }


def minor_stock(*people: Character | None, dynasties: Mapping[int, Dynasty]) -> bool:
    """Both parents of minor stock: born into (or, for the nobility, controlled by) a minor house."""
    for p in people:
        if p is None:
            return False
        house = dynasties.get(p.birth_dynasty_id or p.controlled_by_id or 0)
        if house is None or house.kind != DynastyKind.MINOR:
            return False
    return True


def in_line(world: World, pk: int) -> bool:
    """The monarch or one of his direct-line descendants (of any reigning monarch)."""
    monarchs = {r.holder_id for r in world.open_reigns()}
    seen: set[int] = set()
    stack = [pk]
    while stack:
        current = stack.pop()
        if current in monarchs:
            return True
        if current in seen or current not in world.characters:
            continue
        seen.add(current)
        c = world.characters[current]
        stack += [p for p in (c.father_id, c.mother_id) if p is not None]
    return False


def couple_problem(world: World, match: Marriage, attempts_made: int) -> str | None:
    husband, wife = world.characters[match.husband_id], world.characters[match.wife_id]
    house = world.dynasties.get(husband.controlled_by_id or 0)
    minor = bool(house and house.kind == DynastyKind.MINOR)
    monarchs = {r.holder_id for r in world.open_reigns()}
    line = (husband.pk in monarchs or wife.pk in monarchs) if minor else (in_line(world, husband.pk) or in_line(world, wife.pk))
    return bl.couple_problem(husband.as_person(), wife.as_person(), world.year, attempts_made, in_line=line, minor_house=minor)


@dataclass(frozen=True)
class Due:
    character: Character
    age: int
    effective_age: int
    modifier: int
    column: int


def bloodline_due(world: World, penalties: Mapping[int, int], table: Mapping[str, Any]) -> list[Due]:
    """BloodLine: every character in play rolls, every turn, by effective age."""
    out = []
    for c in world.in_play():
        eff = c.effective_age(world.year)
        out.append(Due(c, c.age(world.year), eff, penalties.get(c.pk, 0), bl.survival_column(table["columns"], eff)))
    return out
