"""Blood Royale's Announcements (RULES.md A5, A8) and turns: a King's widow retires, the Prince
pieces are handed out, a died-out house is founded anew as at the set-up (A3: the King, the Queen and
their children, ``starting_family``; the default houses, ``default_houses``), a monarch is of age at
15, and a turn is five years."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campaign import audit
from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty, DynastyKind, Marriage, Origin, Status
from dynasties.play.blood_royale.births import roll_characteristics
from dynasties.services import regnal
from dynasties.services.characteristics import format_characteristics, next_entered
from dynasties.services.common import World
from dynasties.services.play_announcements import DynastySpec, no_houses_kept
from rules import blood_royale as br
from rules.errors import RuleError
from rules.names import BLOOD_ROYALE_CROWNS, given_name, names_for, spouse_dynastic_name

houses_kept = no_houses_kept  # a house with nobody in play has died out


def widows_retire() -> bool:
    return br.KINGS_WIDOWS_RETIRE


def hand_out(world: World, chronicle: Chronicle) -> None:
    """'K' for a reigning King, numbered pieces for royal males of 20 (A2, Using the Prince pieces)."""
    year = world.year
    reigns = {r.crown: r for r in world.open_reigns()}
    wanted: dict[int, str] = {}
    for dynasty in world.dynasties.values():
        if dynasty.kind != DynastyKind.PLAYER:
            continue
        members = [
            c
            for c in world.characters.values()
            if c.status == Status.ALIVE and c.controlled_by_id == dynasty.pk and c.origin != Origin.BARON
        ]
        reign = reigns.get(dynasty.crown)
        king = world.characters.get(reign.holder_id) if reign else None
        if king is not None and king.controlled_by_id != dynasty.pk:
            king = None
        assigned = br.assign_prince_pieces(
            {c.pk: c.prince_piece for c in members},
            [world.people[c.pk] for c in members],
            world.people[king.pk] if king else None,
            year,
        )
        wanted.update(assigned)
    changed: list[Character] = []
    for character in world.characters.values():
        piece = wanted.get(character.pk, "") if character.status == Status.ALIVE else ""
        if character.prince_piece != piece:
            character.prince_piece = piece
            changed.append(character)
            if piece:
                what = "the King piece" if piece == "K" else f"Prince piece {piece}"
                chronicle.add("piece", f"{character.display_name} takes {what}.", character=character.pk)
    if changed:
        audit.bulk_update(Character, changed, ["prince_piece"])


def found_anew(
    world: World, dynasty: Dynasty, box: DiceBox, chronicle: Chronicle, tables: dict[str, Any], *, reign: bool
) -> Character:
    return starting_family(
        world.campaign, dynasty, box, chronicle, queue=None, bands=tables["characteristic_bands"], year=world.year, reign=reign
    )


def default_houses(players: int, countries: Sequence[str] | None) -> list[DynastySpec]:
    """The countries chosen by the table or the rulebook's default (``rules.blood_royale.player_countries``:
    four players leave England out); three players add the aristocratic family (A9)."""
    try:
        crowns = br.player_countries(players, countries)
    except RuleError as exc:
        wrong = countries and br.MIN_PLAYERS <= players <= len(BLOOD_ROYALE_CROWNS)
        raise RuleError(
            exc.message,
            code="invalid_countries" if wrong else "invalid_players",
            fields={"countries": "invalid"} if wrong else {"players": "invalid"},
        ) from None
    specs = [DynastySpec(names_for(crown).dynastic[0], crown) for crown in crowns]
    if players == 3:
        specs.append(DynastySpec("de Montfort", "", DynastyKind.ARISTOCRATIC))
    return specs


def starting_family(
    campaign: Campaign,
    dynasty: Dynasty,
    box: DiceBox,
    chronicle: Chronicle,
    *,
    queue: list[list[int]] | None,
    bands: Any,
    year: int | None = None,
    reign: bool = True,
) -> Character:
    """Blood Royale's starting family (A3); also a dying-out player's new dynasty (A5), dated ``year``."""
    start = campaign.start_year if year is None else year
    plan = br.setup_plan(campaign.optional_rules or {}, start)
    crown = dynasty.crown or ""
    aristocratic = dynasty.kind == DynastyKind.ARISTOCRATIC
    king_spec = next(p for p in plan if p.role == "king")
    queen_spec = next(p for p in plan if p.role == "queen")
    children_specs = [p for p in plan if p.role == "child"]
    if aristocratic:
        children_specs = children_specs[-1:]  # A9: the aristocratic family starts with one child of 5
    king = Character.objects.create(
        campaign=campaign,
        given_name=given_name(crown, "M", 0),
        sex="M",
        birth_year=king_spec.birth_year,
        dynastic_name=dynasty.name,
        birth_dynasty=dynasty,
        controlled_by=dynasty,
        characteristics=br.normal_characteristics("M"),
        origin=Origin.SETUP,
        prince_piece="K" if reign and not aristocratic else "",
    )
    queen = Character.objects.create(
        campaign=campaign,
        given_name=given_name(crown, "F", 0),
        sex="F",
        birth_year=queen_spec.birth_year,
        dynastic_name=spouse_dynastic_name(crown, dynasty.name),
        birth_dynasty=None,
        controlled_by=dynasty,
        characteristics=br.normal_characteristics("F"),
        origin=Origin.SETUP,
    )
    if king_spec.rolled_characteristics:
        king.characteristics = roll_characteristics(box, king, bands, queue)
        queen.characteristics = roll_characteristics(box, queen, bands, queue)
        king.save(update_fields=["characteristics"])
        queen.save(update_fields=["characteristics"])
    first_child_year = min(p.birth_year for p in children_specs)
    Marriage.objects.create(
        campaign=campaign, husband=king, wife=queen, arranged_year=first_child_year, wedding_year=first_child_year
    )
    crowned = regnal.enthrone(campaign, crown, king, start) if reign and not aristocratic else None
    names_used = {"M": 1, "F": 1}
    lines = [
        f"{regnal.crowned_name(king, crowned) if crowned else king.display_name}, born {king.birth_year}"
        + (" (King)" if not aristocratic else ""),
        f"{queen.display_name}, born {queen.birth_year}",
    ]
    if not reign:
        lines[0] = f"{king.display_name}, born {king.birth_year}"
    for spec in children_specs:
        roll = box.roll(br.SEX_DICE, purpose="sex", entered=next_entered(queue))
        sex = br.sex_from_faces(roll.faces)
        roll.outcome = "boy" if sex == "M" else "girl"
        child = Character.objects.create(
            campaign=campaign,
            given_name=given_name(crown, sex, names_used[sex]),
            sex=sex,
            birth_year=spec.birth_year,
            father=king,
            mother=queen,
            dynastic_name=dynasty.name,
            birth_dynasty=dynasty,
            controlled_by=dynasty,
            characteristics={},
            origin=Origin.SETUP,
        )
        names_used[sex] += 1
        box.add_subject(roll, child)
        child.characteristics = roll_characteristics(box, child, bands, queue)
        child.save(update_fields=["characteristics"])
        lines.append(f"{child.display_name}, born {child.birth_year}: {format_characteristics(child.characteristics)}")
    chronicle.add(
        "setup",
        f"The house of {dynasty.name}" + (f" rules {crown}" if crown and reign else "") + ": " + "; ".join(lines) + ".",
        step="setup",
        dynasty=dynasty.pk,
    )
    return king


def of_age() -> int:
    return br.ADULT_AGE


def prince_pieces() -> tuple[int, int]:
    return br.PRINCE_AGE, br.PRINCE_PIECES


def turn_year_given() -> bool:
    return False  # five years a turn
