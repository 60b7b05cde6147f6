"""Claims to crowns: renunciations, and the penalties that last while a passed-over heir's line
lives and has not renounced (RULES.md A6, A7)."""

from __future__ import annotations

from django.db import transaction

from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Character, Modifier, ModifierKind, Renunciation, Status
from dynasties.services.common import World
from rules.errors import NotFound, RuleError
from rules.succession import FamilyIndex, claim_head


def claims_review(world: World, chronicle: Chronicle) -> list[Modifier]:
    """End the modifiers whose lasting condition has lapsed. ``world`` must hold the dead too."""
    active = list(Modifier.objects.filter(campaign=world.campaign, end_year__isnull=True))
    if not active:
        return []
    index = FamilyIndex(world.people)
    ended: list[Modifier] = []
    for modifier in active:
        why = ""
        if modifier.kind == ModifierKind.CHARISMA_LOSS and modifier.character_id:
            monarch = world.characters.get(modifier.character_id)
            if monarch is not None and monarch.status == Status.DEAD:
                why = f"death of {monarch.display_name}"
        elif modifier.claimant_id:
            claimant = world.characters[modifier.claimant_id]
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
