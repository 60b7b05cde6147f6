"""BloodLine A: a released heir "immediately makes a claim to the throne" of the crown an interim
monarch runs for him. Apart from the play's succession (``dynasties/play/bloodline/``) because the
recognised heir comes home as any new monarch does (``succession.bring_home``); a claim refused is
priced as the play prices a pass-over (``SuccessionPlay.passed_over``)."""

from __future__ import annotations

from django.db import transaction

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Character, Reign, Status
from dynasties.services import control, regnal
from dynasties.services.bloodline_titles import accession_loses_titles
from dynasties.services.common import World
from dynasties.services.play_registry import play_of
from dynasties.services.succession import bring_home
from rules.dice import DiceSource
from rules.errors import RuleError


def _interim_gives_back(world: World, crown: str, interim: Character, claimant: Character, chronicle: Chronicle) -> None:
    """An interim monarch who wore the crown with his own (its house held both, the crown's own house
    landless) gives it back as he steps down: the crown goes home, and the recognised heir comes to its
    player as any new monarch does (with his family; a monarch of another crown joins them again)."""
    record = world.crown(crown)
    home = world.dynasties.get(record.home_dynasty_id or 0)
    if record.union_with_id is None and home is not None and record.controlled_by_id != home.pk:
        holder = world.dynasties.get(record.controlled_by_id or 0)
        control.move(world.campaign, record, home, "house_restored")
        record.save(update_fields=["controlled_by"])
        chronicle.add(
            "return",
            f"{crown} goes back to the house of {home.name} with its throne"
            + (f"; {interim.display_name} keeps the house of {holder.name}'s own crown" if holder is not None else "")
            + ".",
            dynasty=home.pk,
            crown=crown,
        )
    bring_home(world, claimant, record, chronicle)


@transaction.atomic
def interim_claim_resolve(
    *,
    campaign: Campaign | int,
    crown: str,
    recognize: bool,
    source: DiceSource | None = None,
    by: Actor,
) -> Reign:
    """BloodLine A: a released heir claims the throne at once. Recognised, he reigns and the interim
    monarch steps down; refused, the interim monarch stays and it is a voluntary disputed succession.
    The crown's player decides, as he decided to pass the prisoner over ("The player may use the
    next-in-line heir to run the Dynasty"), or the GM (``require(.., "crown")``)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer decides nothing; whose crown, below
    world = World(campaign)
    reign = next((r for r in world.open_reigns() if r.crown == crown), None)
    player = world.crown_dynasty(crown)
    require(by, campaign, "crown", player=player.pk if player is not None else None, crown=crown)
    if reign is None or reign.interim_for_id is None:
        raise RuleError(
            f"{crown} has no interim monarch waiting on an imprisoned heir (BloodLine, Disputed Succession A).",
            code="no_interim",
            fields={"crown": "no_interim"},
        )
    claimant = world.characters[reign.interim_for_id]
    if claimant.status != Status.ALIVE:
        raise RuleError(f"{claimant.display_name} is dead: the interim monarch simply reigns.", code="invalid")
    if claimant.is_prisoner:
        raise RuleError(
            f"{claimant.display_name} is still a prisoner and cannot claim the throne yet: the next heir runs the dynasty "
            "until the heir dies or is released (BloodLine, Disputed Succession A).",
            code="prisoner",
        )
    chronicle = Chronicle(campaign)
    box = DiceBox(campaign, source=source, by=by)
    interim = world.characters[reign.holder_id]
    if recognize:
        reign.end_year = world.year
        reign.save(update_fields=["end_year"])
        reign = regnal.enthrone(campaign, crown, claimant, world.year, world=world)
        world.reigns.append(reign)
        chronicle.add(
            "succession",
            f"{regnal.crowned_name(claimant, reign)}, released, is recognised as "
            f"{'King' if claimant.sex == 'M' else 'Queen'} of {crown}; "
            f"{interim.display_name} steps down.",
            character=claimant.pk,
            crown=crown,
            claim="recognised",
        )
        _interim_gives_back(world, crown, interim, claimant, chronicle)
        accession_loses_titles(world, reign, chronicle)  # 'When a Monarch assumes the throne he loses ...'
    else:
        reign.interim_for = None
        reign.save(update_fields=["interim_for"])
        chronicle.add(
            "claim",
            f"{claimant.display_name}'s claim to {crown} is not recognised: {interim.display_name} keeps the throne, "
            "a voluntary disputed succession (BloodLine, Disputed Succession A).",
            character=claimant.pk,
            crown=crown,
            claim="refused",
        )
        # the price of a voluntary disputed succession, as the play charges a pass-over
        play_of(campaign).succession.passed_over(
            world, reign, interim, world.crown_dynasty(crown), [(claimant, None)], {}, box, chronicle, None
        )
    box.flush()
    chronicle.flush()
    return reign
