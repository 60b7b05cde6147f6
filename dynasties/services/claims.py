"""Claims to crowns: renunciations, and the penalties that last while a passed-over heir's line
lives and has not renounced (RULES.md A6, A7)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from django.db import transaction

from campaign.models import Campaign, Roll
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Character, Modifier, ModifierKind, PassedOver, Renunciation, Status
from dynasties.services.common import World
from rules.errors import NotFound, RuleError
from rules.people import Person
from rules.succession import FamilyIndex, born_after_spurning, claim_head, spurned_line

# BloodLine's lasting prices of a pass-over: they last while the spurned bloodline lives, children
# born into it after the skip not counted (Voluntary Disputed Succession)
SPURNED_KINDS = (ModifierKind.ONGOING_DISPUTE, ModifierKind.COMBAT_MALUS)
VOLUNTARY = "voluntary"  # a BloodLine PassedOver's reason for a voluntary dispute (the dispute's kind)


def turn_after(campaign: Campaign, year: int) -> int | None:
    """The year of the turn that followed ``year``'s (None while that turn lasts): the first year
    after it in the roll log (every BloodLine turn rolls survival), else the present turn's."""
    if campaign.current_year <= year:
        return None
    later = Roll.objects.filter(campaign=campaign, year__gt=year).order_by("year").values_list("year", flat=True).first()
    return later if later is not None and later < campaign.current_year else campaign.current_year


def spurned_skips(campaign: Campaign, crown: str) -> dict[int, int]:
    """The claimants of ``crown`` voluntarily passed over (BloodLine), each with the year of his
    first skip: the ongoing roll's start, else the reign's that passed him over."""
    skips: dict[int, int] = {}
    rows = Modifier.objects.filter(campaign=campaign, kind=ModifierKind.ONGOING_DISPUTE, crown=crown, claimant__isnull=False)
    for claimant, year in rows.values_list("claimant_id", "start_year"):
        skips[claimant] = min(year, skips.get(claimant, year))
    passed = PassedOver.objects.filter(reign__campaign=campaign, reign__crown=crown, reason=VOLUNTARY)
    for claimant, year in passed.values_list("character_id", "reign__start_year"):
        skips.setdefault(claimant, year)
    return skips


def spurned_barred(campaign: Campaign, crown: str, people: Mapping[int, Person], index: FamilyIndex | None = None) -> set[int]:
    """BloodLine: everyone born into a line spurned for ``crown`` after its skip - "any children
    subsequently produced by these 'spurned' bloodlines ... [are not] eligible for making claims to
    the throne". The claimants themselves, and those of their lines born by then, keep their place."""
    skips = spurned_skips(campaign, crown)
    if not skips:
        return set()
    family = index or FamilyIndex(people)
    after: dict[int, int | None] = {}
    out: set[int] = set()
    for claimant, year in skips.items():
        if year not in after:
            after[year] = turn_after(campaign, year)
        out |= born_after_spurning(people, claimant, born_before=after[year], index=family)
    return out


def claims_review(world: World, chronicle: Chronicle, *, kinds: Collection[str] | None = None) -> list[Modifier]:
    """End the modifiers whose lasting condition has lapsed (only those of ``kinds``, if given).
    ``world`` must hold the dead too."""
    active = list(Modifier.objects.filter(campaign=world.campaign, end_year__isnull=True))
    if kinds is not None:
        active = [m for m in active if m.kind in kinds]
    if not active:
        return []
    index = FamilyIndex(world.people)
    after: dict[int, int | None] = {}
    skips: dict[str, dict[int, int]] = {}
    ended: list[Modifier] = []
    for modifier in active:
        why = ""
        if modifier.kind == ModifierKind.CHARISMA_LOSS and modifier.character_id:
            monarch = world.characters.get(modifier.character_id)
            if monarch is not None and monarch.status == Status.DEAD:
                why = f"death of {monarch.display_name}"
        elif modifier.claimant_id:
            claimant = world.characters[modifier.claimant_id]
            if modifier.kind in SPURNED_KINDS:  # BloodLine: the bloodline as it stood at its first skip
                if modifier.crown not in skips:
                    skips[modifier.crown] = spurned_skips(world.campaign, modifier.crown)
                skip = min(modifier.start_year, skips[modifier.crown].get(claimant.pk, modifier.start_year))
                if skip not in after:
                    after[skip] = turn_after(world.campaign, skip)
                born_before = after[skip]
                head = next(spurned_line(world.people, claimant.pk, born_before=born_before, index=index), None)
            else:
                head = claim_head(world.people, claimant.pk, index=index)
            renounced = world.renounced.get(modifier.crown, set())
            if head is None:
                why = f"the line of {claimant.display_name} is extinct"
            elif head in renounced or claimant.pk in renounced:
                who = world.characters[head if head in renounced else claimant.pk]
                why = f"{who.display_name} renounced the claim to {modifier.crown}"
        if why:
            modifier.end_year = world.year
            modifier.end_reason = why[:200]
            ended.append(modifier)
    if ended:
        Modifier.objects.bulk_update(ended, ["end_year", "end_reason"])
        for reason in sorted({m.end_reason for m in ended}):
            chronicle.add("claim_end", f"Penalties end: {reason}.")
    return ended


def reigns_over(world: World, character_id: int, crown: str) -> bool:
    """Whether the character is the monarch of ``crown`` now."""
    return any(r.crown == crown and r.holder_id == character_id for r in world.open_reigns())


@transaction.atomic
def claim_renounce(
    *, campaign: Campaign | int, character: Character | int, crown: str, source: str = "", by: Actor
) -> Renunciation:
    """A character renounces any claim to a crown (usually in a marriage contract). Neither he nor
    anyone through him will inherit it; the renunciation outlives the contract, and a passed-over
    heir's renunciation ends the penalties her claim kept alive."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    pk = character.pk if isinstance(character, Character) else character
    try:
        who = Character.objects.get(pk=pk, campaign=campaign)
    except Character.DoesNotExist:
        raise NotFound(f"There is no character #{pk} in {campaign.name}.") from None
    world = World(campaign)
    if crown not in world.crowns and not any(d.crown == crown for d in world.dynasties.values()):
        raise RuleError(f"There is no crown called {crown!r} in {campaign.name}.", code="unknown_crown")
    if pk in world.renounced.get(crown, set()):
        raise RuleError(f"{who.display_name} has already renounced the crown of {crown}.", code="already_renounced")
    if who.status == Status.DEAD:
        raise RuleError(f"{who.display_name} is dead and can renounce nothing.", code="dead")
    if reigns_over(world, pk, crown):
        raise RuleError(
            f"{who.display_name} reigns over {crown}: a monarch cannot renounce his own crown ('Monarchs may not "
            "abdicate, nor be deposed', A7).",
            code="reigning",
        )
    renunciation = Renunciation.objects.create(
        campaign=campaign, character=who, crown=crown, year=campaign.current_year, source=source.strip()[:200]
    )
    world.renounced.setdefault(crown, set()).add(pk)
    chronicle = Chronicle(campaign)
    chronicle.add(
        "renunciation",
        f"{who.display_name} renounces any claim to the crown of {crown}"
        + (f" ({source.strip()})" if source.strip() else "")
        + ".",
        character=pk,
        crown=crown,
    )
    claims_review(world, chronicle)
    chronicle.flush()
    return renunciation
