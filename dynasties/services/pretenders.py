"""Pretenders and bastards (event cards; RULES.md A9): a Pretender leaves his house for the player
on the left, who may be paid 50 Crowns to give him back; an unmarried King's bastard son is
controlled by the player on the right and never inherits, nor does anyone through him; while he
lives, a Queen's accession calls for a Rebellion check in every province (``queens_accession_rebellions``)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, load_tables, lock_campaign
from dynasties import treasury
from dynasties.models import Character, Dynasty, Origin, PostingKind, Reign, Status
from dynasties.services import control
from dynasties.services.characteristics import format_characteristics
from dynasties.services.common import World
from dynasties.services.play_registry import play_of
from dynasties.services.play_succession import PretenderTerms
from dynasties.services.succession import title as royal_title
from rules.dice import DiceSource
from rules.errors import InvalidDice, NotFound, RuleError
from rules.names import given_name as suggested_name


def _terms(campaign: Campaign) -> PretenderTerms:
    return play_of(campaign).succession.pretender_terms()


def _load(campaign: Campaign, value: Character | int, role: str) -> Character:
    pk = getattr(value, "pk", value)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not a character id.", code="invalid", fields={role: "invalid"})
    try:
        return Character.objects.select_for_update().get(pk=pk, campaign=campaign)
    except Character.DoesNotExist:
        raise NotFound(f"There is no character #{pk} in {campaign.name}.") from None


def _move(campaign: Campaign, characters: Sequence[Character], dynasty: Dynasty | None) -> None:
    for character in characters:
        control.move(campaign, character, dynasty, "pretender")
        character.prince_piece = ""
        character.save(update_fields=["controlled_by", "prince_piece"])


def _names(characters: Sequence[Character]) -> str:
    names = [c.display_name for c in characters]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _only_son_of(world: World, character: Character) -> str | None:
    """The monarch (a reigning parent) whose only legitimate son in play this character is."""
    reigning = world.reigning()
    for parent_id in (character.father_id, character.mother_id):
        if parent_id is None or parent_id not in reigning:
            continue
        sons = [c.pk for c in world.in_play() if c.sex == "M" and c.legitimate and parent_id in (c.father_id, c.mother_id)]
        if sons == [character.pk]:
            parent = world.characters[parent_id]
            return f"{royal_title(parent)} {parent.display_name} of {reigning[parent_id].crown}"
    return None


def event_cards_in_force(campaign: Campaign) -> bool:
    """Whether the campaign has Pretenders and bastards: its ruleset has them (the registry's
    ``pretenders``) and, where they come with an optional rule (Blood Royale's rule E, Event Cards),
    that rule is in force."""
    terms = _terms(campaign)
    if not terms.pretenders:
        return False
    return not terms.option or campaign.option(terms.option)


def _event_cards(campaign: Campaign, what: str) -> None:
    """Pretenders and bastards come from Blood Royale's event cards (optional rule E): the EU rulesets
    have none, and a Blood Royale campaign without rule E has none either."""
    terms = _terms(campaign)
    if not terms.pretenders:
        raise RuleError(
            f"{what} come from Blood Royale's event cards; a campaign of the {campaign.get_ruleset_display()} ruleset has none.",
            code="not_in_ruleset",
        )
    if not event_cards_in_force(campaign):
        raise RuleError(
            f"{what} come from the event cards: {terms.option_label} is not in force in {campaign.name}. The GM may turn "
            "it on in the campaign's settings.",
            code="option_off",
        )


def pretender_problems(world: World, character: Character, year: int) -> list[str]:
    """Everything that stops ``character`` becoming a Pretender (``rules.blood_royale.pretender_problems``),
    read from ``world``: the service's check, and what the table event offers."""
    home = world.dynasties.get(character.controlled_by_id or 0)
    alive = character.status == Status.ALIVE
    return _terms(world.campaign).pretender_problems(
        character.as_person(),
        year,
        name=character.display_name,
        reigning=character.pk in world.reigning(),
        already_pretender=character.pretender_of_id is not None,
        only_son_of=_only_son_of(world, character) if alive else None,
        born_to_house=home.name if alive and home is not None and character.birth_dynasty_id != home.pk else None,
    )


@transaction.atomic
def pretender_declare(*, campaign: Campaign | int, character: Character | int, by: Actor) -> Character:
    """Event cards 18-22: the character (15 or more, not the monarch's only son, born to the house
    controlling him) becomes a Pretender and passes to the player on the left of that house, with his
    wife and his children under 15 that house controls; a female Pretender's husband is returned to
    his house of birth instead. ``pretender_of`` records the house that lost him (it may buy him back).
    The GM records the card."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    _event_cards(campaign, "Pretenders")
    pretender = _load(campaign, character, "character")
    world = World(campaign, living_only=True)
    year = campaign.current_year
    reigning = world.reigning()
    problems = pretender_problems(world, pretender, year)
    if problems:
        raise RuleError(" ".join(problems), code="not_a_pretender", fields={"character": "not_a_pretender"})
    home = world.dynasties.get(pretender.controlled_by_id or 0)
    left = world.seat_left(home) if home is not None else None
    if home is None or left is None:
        raise RuleError(
            f"{pretender.display_name} is not controlled by a player with a player on the left: nobody can take "
            "the Pretender (Pretenders and Bastards).",
            code="no_player_left",
        )
    pretender = world.characters[pretender.pk]
    moved = [pretender]
    returned: Character | None = None
    spouse = world.spouse_of(pretender.pk)
    if spouse is not None and spouse.controlled_by_id == home.pk and spouse.pk not in reigning:
        if pretender.sex == "M":
            moved.append(spouse)
        elif spouse.birth_dynasty_id is not None and spouse.birth_dynasty_id != home.pk:
            returned = spouse
    moved += [
        c
        for c in world.in_play()
        if pretender.pk in (c.father_id, c.mother_id)
        and c.age(year) < _terms(campaign).children_under
        and c.controlled_by_id == home.pk
        and c.pk not in reigning
    ]
    _move(campaign, moved, left)
    pretender.pretender_of = home
    pretender.save(update_fields=["pretender_of"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "pretender",
        f"{pretender.display_name} leaves the house of {home.name} as a Pretender"
        + (f" to the crown of {home.crown}" if home.crown else "")
        + f": {_names(moved)} pass to the house of {left.name}, the player on the left. The house of {home.name} "
        f"may buy {'him' if pretender.sex == 'M' else 'her'} back for {_terms(campaign).buy_back} Crowns.",
        character=pretender.pk,
        dynasty=left.pk,
        pretender_of=home.pk,
        moved=[c.pk for c in moved],
    )
    if returned is not None:
        house = world.dynasties[returned.birth_dynasty_id or 0]
        _move(campaign, [returned], house)
        chronicle.add(
            "return",
            f"{returned.display_name}, husband of the Pretender {pretender.display_name}, is returned to the house "
            f"of {house.name}.",
            character=returned.pk,
            dynasty=house.pk,
        )
    chronicle.flush()
    return pretender


@transaction.atomic
def pretender_buy_back(*, campaign: Campaign | int, character: Character | int, by: Actor) -> Character:
    """For a 'bribe' of 50 Crowns the Pretender's original house buys back the Pretender, the
    spouse and the unmarried children the other house controls. All sins are forgiven. The house
    that lost him decides: its player (or the GM) records it; the house holding him is not asked,
    and the bribe goes to the Treasury, refused if it would overdraw the house (a payment it chooses)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # the GM, or the player of the house paying (below)
    _event_cards(campaign, "Pretenders")
    pretender = _load(campaign, character, "character")
    if pretender.pretender_of_id is None:
        raise RuleError(
            f"{pretender.display_name} is not a Pretender: there is nobody to buy back (Pretenders and Bastards).",
            code="not_pretender",
            fields={"character": "not_pretender"},
        )
    home_id = pretender.pretender_of_id
    require(by, campaign, "house", dynasty=home_id, what="only the house that lost a Pretender buys him back")
    if pretender.status != Status.ALIVE:
        raise RuleError(
            f"{pretender.display_name} is {pretender.get_status_display().lower()}: only a living Pretender can be bought back "
            "(Pretenders and Bastards).",
            code="not_in_play",
            fields={"character": "not_in_play"},
        )
    world = World(campaign, living_only=True)
    pretender = world.characters[pretender.pk]
    home = world.dynasties[home_id]
    holder = world.dynasties.get(pretender.controlled_by_id or 0)
    if holder is None or holder.pk == home.pk:
        raise RuleError(
            f"{pretender.display_name} is controlled by the house of {home.name} already: there is nothing to buy back "
            "(Pretenders and Bastards).",
            code="already_home",
            fields={"character": "already_home"},
        )
    reigning = world.reigning()
    moved = [pretender]
    spouse = world.spouse_of(pretender.pk)
    if spouse is not None and spouse.controlled_by_id == holder.pk and spouse.pk not in reigning:
        moved.append(spouse)
    moved += [
        c
        for c in world.in_play()
        if pretender.pk in (c.father_id, c.mother_id)
        and c.controlled_by_id == holder.pk
        and c.pk not in reigning
        and world.spouse_of(c.pk) is None
    ]
    treasury.post(
        campaign,
        payer=home,
        payee=None,
        amount=_terms(campaign).buy_back,
        kind=PostingKind.BUY_BACK,
        reason=f"buying back the Pretender {pretender.display_name}",
        check_funds=True,
        by=by,
        character=pretender,
    )
    _move(campaign, moved, home)
    pretender.pretender_of = None
    pretender.save(update_fields=["pretender_of"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "payment_owed",
        f"{_terms(campaign).buy_back} Crowns from the house of {home.name} to the Treasury: the bribe that buys "
        f"back the Pretender {pretender.display_name}.",
        readers=[home.pk],
        dynasty=home.pk,
        amount=-_terms(campaign).buy_back,
        character=pretender.pk,
    )
    chronicle.add(
        "pretender_return",
        f"The house of {home.name} buys back {_names(moved)} from the house of {holder.name}. All sins are forgiven.",
        character=pretender.pk,
        dynasty=home.pk,
        moved=[c.pk for c in moved],
    )
    chronicle.flush()
    return pretender


@transaction.atomic
def bastard_create(
    *,
    campaign: Campaign | int,
    father: Character | int,
    given_name: str | None = None,
    birth_year: int | None = None,
    source: DiceSource | None = None,
    entered: Sequence[Sequence[int] | None] | None = None,
    by: Actor,
) -> Character:
    """Event cards 38 and 39: a bastard son of an unmarried King (default born this year), with
    rolled characteristics (``entered``: three typed 3d6 rolls, Strength, Constitution, Charisma;
    one given as None is rolled by the server), controlled from now on by the player on the right
    of the King's house. He is never in any line of succession, nor is anyone descended from him.
    The GM records the card."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    _event_cards(campaign, "Bastards")
    king = _load(campaign, father, "father")
    world = World(campaign, living_only=True)
    year = campaign.current_year
    born = year if birth_year is None else birth_year
    reign = world.reigning().get(king.pk)
    problems = _terms(campaign).bastard_problems(
        king.as_person(),
        year,
        born,
        name=king.display_name,
        reigning=reign is not None,
        married=world.marriage_of(king.pk) is not None,
        turn_length=campaign.turn_length,
    )
    if problems:
        raise RuleError(" ".join(problems), code="no_bastard", fields={"father": "no_bastard"})
    assert reign is not None
    house = world.dynasties.get(king.controlled_by_id or 0)
    right = world.seat_right(house) if house is not None else None
    if right is None:
        raise RuleError(
            f"{king.display_name}'s house has no player on the right to take the bastard (Pretenders and Bastards).",
            code="no_player_right",
        )
    if entered is not None and len(entered) != len(_terms(campaign).characteristic_names("M")):
        raise InvalidDice(
            f"Type {len(_terms(campaign).characteristic_names('M'))} rolls of 3d6 for the bastard's characteristics "
            f"(Strength, Constitution, Charisma; a roll left blank: the server rolls it); {len(entered)} were given."
        )
    sons = Character.objects.filter(campaign=campaign, father=king, sex="M").count()
    name = (given_name or "").strip()[:60] or suggested_name(reign.crown, "M", sons + 1)
    order = 1 + Character.objects.filter(campaign=campaign, father=king, birth_year=born).count()
    child = Character.objects.create(
        campaign=campaign,
        given_name=name,
        sex="M",
        birth_year=born,
        birth_order=order,
        father=king,
        mother=None,
        dynastic_name=king.dynastic_name,
        birth_dynasty=right,
        controlled_by=right,
        characteristics={},
        origin=Origin.BORN,
        legitimate=False,
    )
    box = DiceBox(campaign, source=source, by=by)
    child.characteristics = play_of(campaign).births.roll_characteristics(
        box, child, load_tables(campaign)["characteristic_bands"], entered=entered
    )
    child.save(update_fields=["characteristics"])
    box.flush()
    chronicle = Chronicle(campaign)
    chronicle.add(
        "bastard",
        f"A bastard son, {child.display_name}, is born in {born} to {king.display_name}, {royal_title(king)} of "
        f"{reign.crown} ({format_characteristics(child.characteristics)}). The house of {right.name}, the player on "
        f"the right, controls him from now on. He never inherits, nor does anyone through him; wherever he lands in a "
        f"province of {reign.crown} there is an immediate Rebellion roll, and if a woman comes to the throne while he "
        "lives every province of the Kingdom is checked for Rebellion.",
        character=child.pk,
        father=king.pk,
        dynasty=right.pk,
        crown=reign.crown,
    )
    chronicle.flush()
    return child


def queens_accession_rebellions(world: World, reigns: Sequence[Reign], chronicle: Chronicle) -> list[Character]:
    """'If a female character ever comes to the throne while the bastard lives, every Province in
    the Kingdom must be checked for Rebellion.' For each new reign of a woman, the living bastards of
    past Kings of that crown; one chronicle line per crown. Not a transaction: call it after
    ``resolve_successions`` with the reigns it returned. Returns the bastards found."""
    found: list[Character] = []
    for reign in reigns:
        queen = world.characters.get(reign.holder_id)
        if queen is None or queen.sex != "F":
            continue
        kings = {r.holder_id for r in world.reigns if r.crown == reign.crown and r.pk != reign.pk}
        bastards = [c for c in world.in_play() if not c.legitimate and c.father_id in kings]
        if not bastards:
            continue
        chronicle.add(
            "rebellion_check",
            f"{queen.display_name} comes to the throne of {reign.crown} while {_names(bastards)}, "
            f"{'a bastard' if len(bastards) == 1 else 'bastards'} of its Kings, "
            f"{'lives' if len(bastards) == 1 else 'live'}: every province of {reign.crown} must be checked for "
            "Rebellion (Pretenders and Bastards).",
            character=queen.pk,
            crown=reign.crown,
            bastards=[c.pk for c in bastards],
        )
        found += bastards
    return found
