"""Creating a campaign with its starting dynasties (RULES.md A3): the default houses of a ruleset
(``default_dynasties``), ``campaign_create``, and Blood Royale's starting family
(``blood_royale_starting_family``; BloodLine's is ``bloodline_sequence.starting_family``, an EU
monarchs campaign starts with vacant thrones, ``eu_setup``). The characteristics are rolled by the
ruleset's play (``play_of(campaign).births.roll_characteristics``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from campaign import audit
from campaign.dice import DiceBox
from campaign.models import Campaign, DiceEntry, Membership, Role, RuleTable, Step
from campaign.permissions import Actor
from campaign.steps import Chronicle
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Marriage, Origin
from dynasties.services import bloodline_sequence, regnal
from dynasties.services.characteristics import format_characteristics, next_entered
from dynasties.services.play_registry import play_of
from dynasties.services.provinces import register_seed
from rules import blood_royale as br
from rules import get_ruleset
from rules.dice import DiceSource
from rules.ending import check_settings as check_end_settings
from rules.errors import RuleError
from rules.names import BLOOD_ROYALE_CROWNS, EU_CROWNS, given_name, names_for, spouse_dynastic_name
from rules.tables import defaults_for

PALETTE = ["#c0392b", "#2e6fbd", "#d4a017", "#2e8b57", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d"]


@dataclass(frozen=True)
class DynastySpec:
    name: str
    crown: str
    kind: str = DynastyKind.PLAYER


def default_dynasties(players: int, ruleset: str = br.NAME, countries: Sequence[str] | None = None) -> list[DynastySpec]:
    """The player houses (and, for three Blood Royale players, the aristocratic family): an EU
    ruleset's first ``players`` countries; Blood Royale's ``countries`` chosen by the table or the
    rulebook's default (``rules.blood_royale.player_countries``: four players leave England out)."""
    rules = get_ruleset(ruleset)
    if rules.europa_crowns:
        label = rules.label
        if not 2 <= players <= len(EU_CROWNS):
            raise RuleError(
                f"A {label} campaign takes 2 to {len(EU_CROWNS)} players; {players} were asked for.", code="invalid_players"
            )
        if countries:
            raise RuleError(
                f"A {label} campaign's countries are the first {players} of {', '.join(EU_CROWNS)}.",
                code="invalid_countries",
                fields={"countries": "invalid"},
            )
        return [DynastySpec(names_for(crown).dynastic[0], crown) for crown in EU_CROWNS[:players]]
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


def _unique_slug(base: str) -> str:
    root = slugify(base)[:60] or "campaign"
    slug, n = root, 2
    while Campaign.objects.filter(slug=slug).exists():
        slug = f"{root}-{n}"
        n += 1
    return slug


@transaction.atomic
def campaign_create(
    *,
    name: str,
    slug: str | None = None,
    ruleset: str = br.NAME,
    players: int = 5,
    dynasties: Sequence[DynastySpec] | None = None,
    start_year: int | None = None,
    optional_rules: dict[str, Any] | None = None,
    source: DiceSource | None = None,
    entered: Sequence[Sequence[int]] | None = None,
    dice_entry: str = DiceEntry.FACES,
    auto_pass_certain: bool = False,
    end_year: int | None = None,
    money_target: int | None = None,
    by: Actor | None = None,
) -> Campaign:
    """A new campaign, its tables copied from the defaults, and each dynasty's starting family.

    ``entered`` gives the faces of physical dice for the set-up rolls, in the order they are
    asked for (per dynasty: the child's sex, then Strength/Guile, Constitution, Charisma).
    ``dice_entry`` is how the table types its dice (faces, totals or each player's choice);
    ``auto_pass_certain`` passes survival rolls that cannot fail without rolling them.
    ``end_year`` and ``money_target`` are how the game ends (``rules.ending``; the GM may change them).
    """
    rules = get_ruleset(ruleset)
    options = rules.clean_options(optional_rules)
    if not name.strip():
        raise RuleError("A campaign needs a name.", code="invalid", fields={"name": "required"})
    year = rules.START_YEAR if start_year is None else start_year
    bloodline = rules.effective_ages
    specs = list(dynasties) if dynasties is not None else default_dynasties(players, ruleset)
    _check_specs(specs)
    if dice_entry not in DiceEntry.values:
        choices = ", ".join(f"{v!r} ({label.lower()})" for v, label in DiceEntry.choices)
        raise RuleError(
            f"How the table types its dice is one of {choices}; {dice_entry!r} is not.",
            code="invalid",
            fields={"dice_entry": "invalid"},
        )
    check_end_settings(
        end_year=end_year,
        money_target=money_target,
        current_year=year,
        start_year=year,
        money_wins=rules.money_wins,
        currency=rules.currency,
    )
    if slug and Campaign.objects.filter(slug=slug).exists():
        raise RuleError(f"The slug {slug!r} is taken; choose another.", code="slug_taken", fields={"slug": "taken"})
    campaign = Campaign(
        name=name.strip(),
        slug=slug or _unique_slug(name),
        ruleset=ruleset,
        start_year=year,
        current_year=year,
        turn_length=rules.TURN_LENGTH,
        optional_rules=options,
        step=Step.BIRTHS,
        dice_entry=dice_entry,
        auto_pass_certain=auto_pass_certain,
        end_year=end_year,
        money_target=money_target,
    )
    try:
        campaign.full_clean()
    except ValidationError as exc:
        raise RuleError(f"The campaign is not valid: {exc.message_dict}", code="invalid") from exc
    campaign.save()
    RuleTable.objects.bulk_create(
        [RuleTable(campaign=campaign, key=k, data=v) for k, v in defaults_for(rules.DEFAULT_TABLES).items()]
    )
    if isinstance(by, User) and audit.person(by) is not None:  # its creator is its GM (a command's campaign has none yet)
        Membership.objects.create(campaign=campaign, user=by, role=Role.GM)

    box = DiceBox(campaign, source=source, by=by, step="setup")
    queue = [list(f) for f in entered] if entered is not None else None
    chronicle = Chronicle(campaign)
    bands = rules.DEFAULT_TABLES.get("characteristic_bands")
    for i, spec in enumerate(specs):
        dynasty = Dynasty.objects.create(
            campaign=campaign, name=spec.name, crown=spec.crown, kind=spec.kind, color=PALETTE[i % len(PALETTE)], seat=i
        )
        if spec.crown:
            Crown.objects.create(campaign=campaign, name=spec.crown, home_dynasty=dynasty, controlled_by=dynasty)
        if bloodline:
            bloodline_sequence.starting_family(campaign, dynasty, box, chronicle, year=year)
        elif not rules.keeps_families:
            pass  # each throne starts vacant: a succession roll (or a named monarch) fills it
        else:
            blood_royale_starting_family(campaign, dynasty, options, box, queue, chronicle, bands)
    register_seed(campaign)  # the provinces the rulebook names (dynasties.services.provinces)
    if queue:
        raise RuleError(f"{len(queue)} typed set-up rolls were left over; give exactly one per roll.", code="invalid_dice")
    box.flush()
    chronicle.flush()
    return campaign


def _check_specs(specs: Sequence[DynastySpec]) -> None:
    if not specs:
        raise RuleError("A campaign needs at least one dynasty.", code="invalid")
    names = [s.name for s in specs]
    crowns = [s.crown for s in specs if s.crown]
    if len(set(names)) != len(names):
        raise RuleError("Two dynasties share a dynastic name; each needs its own.", code="invalid")
    if len(set(crowns)) != len(crowns):
        raise RuleError("Two dynasties share a crown; each country has one royal house.", code="invalid")
    for s in specs:
        if s.kind not in DynastyKind.values:
            raise RuleError(f"Unknown dynasty kind {s.kind!r}.", code="invalid")
        if s.kind == DynastyKind.PLAYER and not s.crown:
            raise RuleError(f"The player dynasty {s.name} needs a crown (country).", code="invalid")


def blood_royale_starting_family(
    campaign: Campaign,
    dynasty: Dynasty,
    options: dict[str, bool],
    box: DiceBox,
    queue: list[list[int]] | None,
    chronicle: Chronicle,
    bands: Any,
    *,
    year: int | None = None,
    reign: bool = True,
) -> Character:
    """Blood Royale's starting family (A3); also a dying-out player's new dynasty (A5), dated ``year``
    (BloodLine's: ``bloodline_sequence.starting_family``)."""
    start = campaign.start_year if year is None else year
    plan = br.setup_plan(options, start)
    roll_characteristics = play_of(campaign).births.roll_characteristics
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
