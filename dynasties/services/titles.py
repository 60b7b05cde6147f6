"""Optional rule G, Governing Provinces (RULES.md A9): a Prince made Governor of a province holds a
noble title ("Duke of Liguria"), gains +1 Strength/Guile once, and the title is inherited like the
crown - so it may leave the dynasty, and the King of the province may dispute that inheritance."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from django.db import transaction

from campaign.models import Campaign, Step
from campaign.permissions import Actor, require
from campaign.steps import STEP_LABELS, Chronicle, Seen, lock_campaign
from dynasties.models import Character, Crown, Dynasty, Modifier, ModifierKind, Origin, Status, Title, TitleHolding
from dynasties.services.common import World
from dynasties.services.play_registry import play_of
from dynasties.services.play_succession import TitleTerms
from dynasties.services.succession import title as royal_title
from rules.errors import NotFound, RuleError, StepOrderError
from rules.succession import FamilyIndex, iter_succession, line_of

RULE_G = "governing_provinces"
PROVINCE_MAX = 80  # Title.province
DYNASTIC_SEQUENCE = (Step.BIRTHS, Step.SURVIVAL, Step.MARRIAGES, Step.ANNOUNCEMENTS)


def _terms(campaign: Campaign) -> TitleTerms:
    return play_of(campaign).succession.title_terms()


def require_rule_g(campaign: Campaign) -> None:
    if not campaign.option(RULE_G):
        raise RuleError(
            f"{_terms(campaign).rule_label} is not in force in {campaign.name}: there are no titles nor Governors.",
            code="option_off",
        )


def _pk(value: object, what: str) -> int:
    pk = getattr(value, "pk", value)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not a {what} id.", code="invalid")
    return pk


def monarch_of(world: World, crown: str) -> Character | None:
    reign = next((r for r in world.open_reigns() if r.crown == crown), None)
    return world.characters.get(reign.holder_id) if reign is not None else None


def _house(world: World, dynasty_id: int | None) -> str:
    house = world.dynasties.get(dynasty_id or 0)
    return f"the house of {house.name}" if house is not None else "no house"


def _of_the_blood(world: World, prince: Character, house: Dynasty | None, crown: str, index: FamilyIndex | None = None) -> bool:
    """A Prince of the house that rules ``crown``: born into it, or descended from a past monarch of
    the crown or of the house's own crown; a Pretender its player controls counts as one of its own
    ("as if he were a member of his own Dynasty", Pretenders and Bastards)."""
    if house is None or prince.origin == Origin.BARON:
        return False
    if prince.birth_dynasty_id == house.pk:
        return True
    if prince.pretender_of_id is not None and prince.controlled_by_id == house.pk:
        return True
    royal = world.past_holders(crown) | (world.past_holders(house.crown) if house.crown else set())
    return bool(royal) and (index or FamilyIndex(world.people)).is_of_blood(prince.pk, royal)


def _problems(world: World, prince: Character, crown: str, index: FamilyIndex | None = None) -> list[str]:
    """Everything that stops ``prince`` being created Governor of a province of ``crown`` (rule G)."""
    player = world.crown_dynasty(crown)
    return _terms(world.campaign).governor_problems(
        world.people[prince.pk],
        world.year,
        name=prince.display_name,
        crown=crown,
        reigning=prince.pk in world.reigning(),
        of_the_blood=_of_the_blood(world, prince, player, crown, index),
        controlled_by_crown_player=player is not None and prince.controlled_by_id == player.pk,
    )


def _ruled_crowns(world: World) -> list[str]:
    """Every crown of the campaign that a house rules now (its player may grant its provinces)."""
    names = set(world.crowns) | {d.crown for d in world.dynasties.values() if d.crown}
    return sorted(name for name in names if world.crown_dynasty(name) is not None)


@dataclass(frozen=True)
class GovernorChoice:
    """A Prince the player of ``crowns`` may create Governor now (rule G), with his bonus in words."""

    prince: Character
    crowns: tuple[str, ...]
    bonus: str


def grantable_crowns(campaign: Campaign, houses: Collection[int] | None = None) -> list[str]:
    """The crowns whose provinces the players of ``houses`` may grant (None: every house: the GM): the
    crowns those houses control now (two queries)."""
    controlled: dict[str, int | None] = {}
    for name, controller in Crown.objects.filter(campaign=campaign).values_list("name", "controlled_by_id"):
        controlled[name] = controller
    for pk, name in Dynasty.objects.filter(campaign=campaign).exclude(crown="").values_list("pk", "crown"):
        if controlled.get(name) is None:  # no record, or none controls it: the house whose crown it is
            controlled[name] = pk
    return sorted(n for n, h in controlled.items() if h is not None and (houses is None or h in houses))


def _controller(world: World, crown: str) -> int | None:
    house = world.crown_dynasty(crown)
    return house.pk if house is not None else None


def governor_choices(campaign: Campaign, houses: Collection[int] | None = None) -> list[GovernorChoice]:
    """Rule G: the Princes the players of ``houses`` (None: every house, as the GM sees them) may create
    Governor now, each with the crowns whose provinces he may govern; oldest first. A form's choices:
    the service decides again when the grant is made."""
    terms = _terms(campaign)
    if not terms.governors or not campaign.option(RULE_G):
        return []
    world = World(campaign)
    index = FamilyIndex(world.people)
    crowns = [c for c in _ruled_crowns(world) if houses is None or _controller(world, c) in houses]
    governors = set(Modifier.objects.filter(campaign=campaign, kind=ModifierKind.GOVERNOR).values_list("character_id", flat=True))
    out: list[GovernorChoice] = []
    for prince in sorted(world.in_play(), key=lambda c: (c.birth_year, c.pk)):
        if prince.sex != "M" or prince.controlled_by_id is None:
            continue
        fits = tuple(c for c in crowns if not _problems(world, prince, c, index))
        if not fits:
            continue
        prince.controlled_by = world.dynasties[prince.controlled_by_id]  # the house, as the form names it (no query)
        trait = terms.governor_characteristic(prince.sex).capitalize()
        bonus = f"already a Governor: no further {trait}" if prince.pk in governors else f"+{terms.governor_bonus} {trait}"
        out.append(GovernorChoice(prince, fits, bonus))
    return out


def _governor_bonus(world: World, character: Character, title: Title) -> str:
    """The +1 Strength/Guile, taken once in a lifetime; returns the words for the chronicle."""
    terms = _terms(world.campaign)
    trait = terms.governor_characteristic(character.sex).capitalize()
    if Modifier.objects.filter(campaign=world.campaign, kind=ModifierKind.GOVERNOR, character=character).exists():
        return f"no further {trait} bonus (a Governor takes the +{terms.governor_bonus} once, however many provinces)"
    character.characteristics = terms.with_governor_bonus(character.characteristics or {}, character.sex)
    character.save(update_fields=["characteristics"])
    world.refresh_person(character)
    Modifier.objects.create(
        campaign=world.campaign,
        kind=ModifierKind.GOVERNOR,
        value=terms.governor_bonus,
        crown=title.crown,
        character=character,
        reason=f"{character.display_name}, {title.name}"[:200],
        start_year=world.year,
    )
    value = character.characteristics[terms.governor_characteristic(character.sex)]
    return f"+{terms.governor_bonus} {trait} (now {value:+d})"


@transaction.atomic
def title_grant(
    *,
    campaign: Campaign | int,
    character: Character | int,
    province: str,
    crown: str | None = None,
    name: str | None = None,
    by: Actor,
) -> Title:
    """Rule G: during the Dynastic Sequence the player makes one of his Princes (15 or more) Governor
    of a province he controls. ``crown`` is the country the province lies in (default: the crown of
    the Prince's house); ``name`` defaults to "Duke of <province>". One title per province; a lapsed
    title is granted again. The Prince gains +1 Strength once (may exceed +2)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer grants nothing; whose grant, below
    require_rule_g(campaign)
    province = (province or "").strip()
    if not province:
        raise RuleError("Name the province the new Governor is to govern.", code="invalid", fields={"province": "required"})
    if len(province) > PROVINCE_MAX:
        raise RuleError(
            f"A province's name has at most {PROVINCE_MAX} characters.", code="invalid", fields={"province": "too_long"}
        )
    pk = _pk(character, "character")
    world = World(campaign)
    prince = world.characters.get(pk)
    if prince is None:
        raise NotFound(f"There is no character #{pk} in {campaign.name}.")
    house = world.dynasties.get(prince.controlled_by_id or 0)
    crown_name = (crown or "").strip() or (house.crown if house is not None else "")
    if not crown_name:
        raise RuleError(
            f"{prince.display_name}'s house has no crown: say in which crown's country {province} lies.",
            code="unknown_crown",
            fields={"crown": "required"},
        )
    if crown_name not in world.crowns and not any(d.crown == crown_name for d in world.dynasties.values()):
        raise RuleError(f"There is no crown called {crown_name!r} in {campaign.name}.", code="unknown_crown")
    player = world.crown_dynasty(crown_name)
    require(  # the King's player grants ("a player may choose to ... [make] a Prince the 'Governor'"), or the GM
        by,
        campaign,
        "house",
        dynasty=player.pk if player is not None else None,
        what=f"the player who rules {crown_name} makes his own Princes Governor of its provinces (rule G)",
    )
    if campaign.step not in DYNASTIC_SEQUENCE:
        raise StepOrderError(
            f"A Governor is created only during the Dynastic Sequence (Births to Announcements); "
            f"{campaign.current_year} is at {STEP_LABELS[campaign.step]}. Wait for the next turn's Births (rule G: "
            "'At any time during the Dynastic Phase').",
            code="not_dynastic_sequence",
        )
    existing = Title.objects.select_for_update().filter(campaign=campaign, province__iexact=province).first()
    if existing is not None and existing.holder_id is not None:
        holder = world.characters[existing.holder_id]
        raise RuleError(
            f"{existing.province} already has a Governor: {holder.display_name}, {existing.name}. "
            "A province has one title (rule G).",
            code="province_governed",
            fields={"province": "governed"},
        )
    problems = _problems(world, prince, crown_name)
    if problems:
        raise RuleError(" ".join(problems), code="not_a_prince", fields={"character": "not_a_prince"})
    title_name = (name or "").strip()[:120] or _terms(campaign).default_title_name(province)
    if existing is not None:  # a lapsed title is granted anew
        existing.name, existing.crown, existing.holder = title_name, crown_name, prince
        existing.granted_year, existing.granted_to = world.year, prince
        existing.save(update_fields=["name", "crown", "holder", "granted_year", "granted_to"])
        granted = existing
    else:
        granted = Title.objects.create(
            campaign=campaign,
            name=title_name,
            province=province,
            crown=crown_name,
            holder=prince,
            granted_year=world.year,
            granted_to=prince,
        )
    king = monarch_of(world, crown_name)
    granter = f"{royal_title(king)} {king.display_name} of {crown_name}" if king else f"the crown of {crown_name}"
    how = f"granted by {granter}"
    TitleHolding.objects.create(title=granted, holder=prince, start_year=world.year, how=how[:200])
    bonus = _governor_bonus(world, prince, granted)
    chronicle = Chronicle(campaign)
    chronicle.add(
        "title_granted",
        f"{prince.display_name} is created {granted.name}, Governor of {granted.province} in {crown_name} ({how}): "
        f"{bonus}. {granted.province} raises {_terms(campaign).governed_tax_extra} Crowns more in taxes (7 or 9), kept by the "
        "Governor's house if it is not the King's.",
        character=prince.pk,
        title=granted.pk,
        province=granted.province,
        crown=crown_name,
        dynasty=prince.controlled_by_id,
    )
    chronicle.flush()
    return granted


def governed_provinces(campaign: Campaign, *crowns: str) -> list[str]:
    """Rule G: the provinces of the ``crowns`` that a living Governor holds now, by name (what the
    Interphase entry of the crowns' player lists: each raises 2 Crowns more)."""
    if not campaign.option(RULE_G) or not crowns:
        return []
    return list(
        Title.objects.filter(campaign=campaign, crown__in=crowns, holder__status=Status.ALIVE, provinces=[])
        .order_by("province")
        .values_list("province", flat=True)
    )


def titles_pass_on(world: World, chronicle: Chronicle) -> list[TitleHolding]:
    """Every title whose holder is out of play passes like the crown (rule G): to the first in play
    in the holder's line of succession (bastards and renounced claims skipped), whoever controls him
    or her - so a title may leave the dynasty. With nobody left the title lapses. A minor heir
    holds the title with the monarch as 'Regent'; no new character is created.

    Not a transaction: call it inside one (``survival_finish``, after the deaths and the crowns),
    with ``World(campaign)`` loaded after the deaths - it must hold the dead. Writes the chronicle
    lines to ``chronicle``; the caller flushes. Returns the new holdings."""
    titles = list(
        Title.objects.filter(campaign=world.campaign, holder__isnull=False).exclude(holder__status=Status.ALIVE).order_by("pk")
    )
    if not titles:
        return []
    holdings: dict[int, list[TitleHolding]] = {}
    for h in TitleHolding.objects.filter(title__in=titles).order_by("start_year", "pk"):
        holdings.setdefault(h.title_id, []).append(h)
    index = FamilyIndex(world.people)
    year = world.year
    play = play_of(world.campaign).succession
    new: list[TitleHolding] = []
    for title in titles:
        late = world.characters.get(title.holder_id or 0)
        if late is None or late.status == Status.ALIVE:
            raise ValueError("titles_pass_on needs World(campaign) loaded after the deaths, the dead included.")
        past = holdings.get(title.pk, [])
        for h in past:
            if h.end_year is None:
                h.end_year = year
                h.save(update_fields=["end_year"])
        gone = "death" if late.status == Status.DEAD else "retirement"
        royal = {h.holder_id for h in past} | {late.pk}
        barred = world.renounced.get(title.name, set())
        if play.titles_descend():  # BloodLine: titles pass down to descendants only
            heir_id = next(iter(line_of(world.people, late.pk, index=index)), None)
        else:
            heir_id = next(iter(iter_succession(world.people, late.pk, royal=royal, barred=barred, index=index)), None)
        king = monarch_of(world, title.crown)
        if heir_id is None:
            title.holder = None
            title.save(update_fields=["holder"])
            chronicle.add(
                "title_lapsed",
                f"On the {gone} of {late.display_name} nobody of the blood is left to inherit {title.name}: the title "
                f"lapses and {title.province} is again under the direct control of the "
                + (f"{royal_title(king)} of {title.crown}." if king else f"crown of {title.crown}."),
                title=title.pk,
                late=late.pk,
                province=title.province,
                crown=title.crown,
            )
            continue
        heir = world.characters[heir_id]
        old, to = late.controlled_by_id, heir.controlled_by_id
        how = f"inherited from {late.display_name}"
        if old != to:
            how += f"; the title passes from {_house(world, old)} to {_house(world, to)}"
        holding = TitleHolding.objects.create(title=title, holder=heir, start_year=year, how=how[:200])
        title.holder = heir
        title.save(update_fields=["holder"])
        new.append(holding)
        bonus = "+1 on battle rolls in its lands" if play.titles_descend() else _governor_bonus(world, heir, title)
        text = (
            f"On the {gone} of {late.display_name}, {heir.display_name} (aged {heir.age(year)}) inherits {title.name}"
            + (f", and the title leaves {_house(world, old)} for {_house(world, to)}" if old != to else "")
            + f": {bonus}."
        )
        if play.minor(heir.as_person(), year):
            pronoun = "she" if heir.sex == "F" else "he"
            text += (
                f" Until {pronoun} is {play.title_terms().regency_until} the 'Regent' of {title.province} is the monarch"
                + (f", {royal_title(king)} {king.display_name} of {title.crown}" if king else "")
                + "; no new character is created (rule G)."
            )
        if king is not None:  # within his dynasty too: "a Rebellion marker ... but otherwise the King's wishes"
            text += f" The {royal_title(king)} of {title.crown} may dispute the inheritance."
        chronicle.add(
            "title_inherited",
            text,
            title=title.pk,
            holding=holding.pk,
            character=heir.pk,
            late=late.pk,
            province=title.province,
            crown=title.crown,
            from_dynasty=old,
            to_dynasty=to,
        )
    return new


@dataclass(frozen=True)
class DisputeChoice:
    """A title whose inheritance this turn the King may dispute (rule G), and whom he may name."""

    title: Title
    holding: TitleHolding
    late: Character
    heir: Character
    king: Character
    candidates: tuple[Character, ...]


def _dispute_candidates(world: World, title: Title, late: Character, heir: Character, king: Character) -> list[Character]:
    """Whom the King may name to hold a disputed title: the late holder's other heirs, in their order
    of succession, then the Princes the crown's player could create Governor (rule G); never the heir
    whose inheritance is disputed nor the King himself. ``world`` must hold the dead."""
    royal = set(TitleHolding.objects.filter(title=title).values_list("holder_id", flat=True)) | {late.pk}
    barred = world.renounced.get(title.name, set())
    index = FamilyIndex(world.people)
    found: list[int] = list(iter_succession(world.people, late.pk, royal=royal, barred=barred, index=index))
    for c in sorted(world.in_play(), key=lambda c: (c.birth_year, c.pk)):
        if c.pk not in found and not _problems(world, c, title.crown, index):
            found.append(c.pk)
    return [world.characters[pk] for pk in found if pk not in (heir.pk, king.pk) and world.characters[pk].status == Status.ALIVE]


def _disputable(world: World, current: TitleHolding) -> tuple[Character, Character]:
    """The late holder and the King of the province's country, if ``current`` (a holding loaded with
    its title and holder) is an inheritance the King may dispute now; else a RuleError."""
    title, heir, year = current.title, current.holder, world.year
    if current.end_year is not None:
        raise RuleError(
            f"{heir.display_name} no longer holds {title.name} (until {current.end_year}): only the present "
            "holder's inheritance can be disputed.",
            code="not_current",
        )
    if TitleHolding.objects.filter(title=title, start_year=year, disputed=True).exists():
        raise RuleError(
            f"The inheritance of {title.name} has already been disputed in {year}: the King's wishes were followed.",
            code="already_disputed",
        )
    previous = (
        TitleHolding.objects.filter(title=title, pk__lt=current.pk)
        .select_related("holder")
        .order_by("-start_year", "-pk")
        .first()
    )
    if previous is None:
        raise RuleError(
            f"{heir.display_name} was granted {title.name}, not left it: there is no inheritance to dispute.",
            code="not_inherited",
        )
    if current.start_year != year:
        raise RuleError(
            f"{heir.display_name} inherited {title.name} in {current.start_year}: the King may dispute an inheritance "
            f"only in the turn it happens (now {year}).",
            code="too_late",
        )
    king = monarch_of(world, title.crown)
    if king is None:
        raise RuleError(f"{title.crown} has no monarch to dispute the inheritance of {title.name}.", code="no_monarch")
    return world.characters[previous.holder_id], king


def title_disputes(campaign: Campaign) -> list[DisputeChoice]:
    """Rule G: the inheritances of this turn the King of each province's country may dispute, with
    whom he may name (for the pages and the API)."""
    if not _terms(campaign).governors or not campaign.option(RULE_G):
        return []
    world = World(campaign)
    out: list[DisputeChoice] = []
    for current in (
        TitleHolding.objects.filter(title__campaign=campaign, end_year__isnull=True, start_year=world.year)
        .select_related("title", "holder")
        .order_by("title__name", "pk")
    ):
        try:
            late, king = _disputable(world, current)
        except RuleError:
            continue
        heir = world.characters[current.holder_id]
        candidates = tuple(_dispute_candidates(world, current.title, late, heir, king))
        out.append(DisputeChoice(current.title, current, late, heir, king, candidates))
    return out


def _take_back_bonus(world: World, heir: Character, current: TitleHolding) -> str:
    """The heir set aside never governed by this title: the +1 he took with it is taken back, unless
    he holds or held another title (then the bonus is his by that one). Returns the chronicle words."""
    if TitleHolding.objects.filter(holder=heir).exclude(pk=current.pk).exists():
        return ""
    modifiers = Modifier.objects.filter(
        campaign=world.campaign, kind=ModifierKind.GOVERNOR, character=heir, start_year=world.year
    )
    if not modifiers.exists():
        return ""
    modifiers.delete()
    terms = _terms(world.campaign)
    key = terms.governor_characteristic(heir.sex)
    characteristics = dict(heir.characteristics or {})
    characteristics[key] = int(characteristics.get(key, 0)) - terms.governor_bonus
    heir.characteristics = characteristics
    heir.save(update_fields=["characteristics"])
    world.refresh_person(heir)
    return (
        f" {heir.display_name} loses the Governor's +{terms.governor_bonus} {key.capitalize()} (now {characteristics[key]:+d})."
    )


@transaction.atomic
def title_dispute(
    *,
    campaign: Campaign | int,
    holding: TitleHolding | int | None = None,
    title: Title | int | None = None,
    holder: Character | int | None = None,
    by: Actor,
) -> TitleHolding:
    """Rule G: in the turn a title is inherited, the King of the province's country disputes the
    inheritance and names who holds it ("the King's wishes are followed"). ``holding`` is the heir's
    holding (or give ``title``: its present one); ``holder`` one of the candidates (the late holder's
    other heirs, or a Prince the crown's player could create Governor). The heir's holding ends this
    year, marked disputed; the named holder's begins. The chronicle records the Rebellion marker in
    the province and, when the dispute involves another player's dynasty, the Rebellion rolls in the
    whole Kingdom. Returns the named holder's holding."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    require_rule_g(campaign)
    found = TitleHolding.objects.select_for_update(of=("self",)).select_related("title", "holder")
    if holding is None and title is not None:
        title_pk = _pk(title, "title")
        current = found.filter(title__campaign=campaign, title_id=title_pk, end_year__isnull=True).first()
        if current is None:
            raise NotFound(f"There is no title #{title_pk} held in {campaign.name}.")
    else:
        pk = _pk(holding, "title holding")
        try:
            current = found.get(pk=pk, title__campaign=campaign)
        except TitleHolding.DoesNotExist:
            raise NotFound(f"There is no title holding #{pk} in {campaign.name}.") from None
    the_title, heir = current.title, current.holder
    world = World(campaign)
    late, king = _disputable(world, current)
    candidates = _dispute_candidates(world, the_title, late, heir, king)
    names = ", ".join(c.display_name for c in candidates) or "nobody"
    if not candidates:
        raise RuleError(
            f"Nobody but {heir.display_name} may hold {the_title.name}: {late.display_name} left no other heir and "
            f"the player of {the_title.crown} has no Prince to name (rule G).",
            code="no_candidate",
        )
    if holder is None:
        raise RuleError(
            f"Say whom {royal_title(king)} {king.display_name} names to hold {the_title.name}: one of {names}.",
            code="invalid",
            fields={"holder": "required"},
        )
    named_pk = _pk(holder, "character")
    named = next((c for c in candidates if c.pk == named_pk), None)
    if named is None:
        who = world.characters.get(named_pk)
        label = who.display_name if who is not None else f"Character #{named_pk}"
        why = (
            "is the heir whose inheritance is disputed"
            if named_pk == heir.pk
            else "is the King himself (the provinces nobody governs are his already)"
            if named_pk == king.pk
            else "is no longer in play"
            if who is not None and who.status != Status.ALIVE
            else "is neither an heir of " + late.display_name + " nor a Prince the King's player could create Governor"
        )
        raise RuleError(
            f"{label} {why}: the King names one of {names} (rule G).", code="not_eligible", fields={"holder": "invalid"}
        )
    year = world.year
    player = world.crown_dynasty(the_title.crown)
    king_house = player.pk if player is not None else king.controlled_by_id
    houses = (late.controlled_by_id, heir.controlled_by_id, named.controlled_by_id)
    other = any(h != king_house for h in houses)
    consequence = _terms(campaign).dispute_consequence(the_title.province, the_title.crown, other_dynasty=other)
    current.end_year, current.disputed = year, True
    current.save(update_fields=["end_year", "disputed"])
    taken_back = _take_back_bonus(world, heir, current)
    how = f"named by {royal_title(king)} {king.display_name} of {the_title.crown}, disputing {heir.display_name}'s inheritance"
    new = TitleHolding.objects.create(title=the_title, holder=named, start_year=year, how=how[:200])
    the_title.holder = named
    the_title.save(update_fields=["holder"])
    bonus = _governor_bonus(world, named, the_title)
    text = (
        f"{royal_title(king)} {king.display_name} of {the_title.crown} disputes the inheritance of {the_title.name} by "
        f"{heir.display_name} of {_house(world, heir.controlled_by_id)} (from {late.display_name} of "
        f"{_house(world, late.controlled_by_id)}) and names {named.display_name} of "
        f"{_house(world, named.controlled_by_id)} to hold it: {consequence}.{taken_back} "
        f"{named.display_name} is {the_title.name}: {bonus}."
    )
    if play_of(campaign).succession.minor(named.as_person(), year):
        until = _terms(campaign).regency_until
        text += f" Until {'she' if named.sex == 'F' else 'he'} is {until} the 'Regent' is the monarch (rule G)."
    chronicle = Chronicle(campaign)
    chronicle.add(
        "title_disputed",
        text,
        title=the_title.pk,
        holding=new.pk,
        disputed_holding=current.pk,
        character=named.pk,
        heir=heir.pk,
        province=the_title.province,
        crown=the_title.crown,
        rebellion_marker=the_title.province,
        kingdom_rebellion_rolls=other,
    )
    chronicle.flush()
    return new
