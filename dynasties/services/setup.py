"""Creating a campaign with its starting dynasties (RULES.md A3): the default houses of a ruleset
(``default_dynasties``) and ``campaign_create``. What differs by ruleset is its play's
(``AnnouncementsPlay.default_houses`` and ``starting_family``: Blood Royale's King, Queen and
children, BloodLine's ``sequence.starting_family`` (its play's); an EU monarchs campaign starts with
vacant thrones, ``eu_setup``)."""

from __future__ import annotations

from collections.abc import Sequence
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
from dynasties.models import Crown, Dynasty, DynastyKind
from dynasties.services.play_announcements import DynastySpec as DynastySpec
from dynasties.services.play_registry import play_named, play_of
from dynasties.services.provinces import register_seed
from rules import default_ruleset, get_ruleset
from rules.dice import DiceSource
from rules.ending import check_settings as check_end_settings
from rules.errors import RuleError
from rules.tables import defaults_for

PALETTE = ["#c0392b", "#2e6fbd", "#d4a017", "#2e8b57", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d"]


DEFAULT_RULESET = default_ruleset().name
"""The ruleset a campaign plays unless told otherwise (Blood Royale)."""


def default_dynasties(players: int, ruleset: str = DEFAULT_RULESET, countries: Sequence[str] | None = None) -> list[DynastySpec]:
    """The player houses (and, for three Blood Royale players, the aristocratic family): the ruleset's
    play says which (``AnnouncementsPlay.default_houses``: an EU ruleset's first ``players``
    countries; Blood Royale's ``countries`` chosen by the table or the rulebook's default)."""
    get_ruleset(ruleset)  # an unknown ruleset says so
    return play_named(ruleset).announcements.default_houses(players, countries)


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
    ruleset: str = DEFAULT_RULESET,
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
    play = play_of(campaign).announcements  # each house's starting family (an EU throne starts vacant)
    for i, spec in enumerate(specs):
        dynasty = Dynasty.objects.create(
            campaign=campaign, name=spec.name, crown=spec.crown, kind=spec.kind, color=PALETTE[i % len(PALETTE)], seat=i
        )
        if spec.crown:
            Crown.objects.create(campaign=campaign, name=spec.crown, home_dynasty=dynasty, controlled_by=dynasty)
        play.starting_family(campaign, dynasty, box, chronicle, queue=queue, bands=bands)
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
