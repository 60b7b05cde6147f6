"""Blood Royale's optional rule D, Movement of Trade Items: a trade item's interception, as the table
resolved it (the roll's law: ``rules.interception``).

"If an interception is possible, the owning player must throw one die ... -1 for each 15 Crowns the
owning player pays to the Treasury before the die roll; +1 for each 20 Crowns the intercepting player
pays to the Treasury before the die roll. ... If the modified result is 6 or more, possession of the
Trade Item passes to the intercepting player." The books keep no map: the GM types the counters the
route meets, the Crowns each side paid and the owner's die (or the server rolls it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.permissions import Actor, require
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties import treasury
from dynasties.models import Dynasty, DynastyKind, PostingKind
from dynasties.services import phases
from rules import interception as law
from rules.dice import DiceSource
from rules.errors import NotFound, RuleError

ITEM_MAX = 80
NOTE_MAX = 120


@dataclass(frozen=True)
class InterceptionRecord:
    owner: Dynasty
    interceptor: Dynasty
    item: str
    result: law.Interception
    phase: int | None


def rule_d_in_force(campaign: Campaign) -> bool:
    """Whether optional rule D (Movement of Trade Items) is in force (a key of the ruleset's options)."""
    return law.RULE_D in campaign.rules.optional_rules and campaign.option(law.RULE_D)


def _rule_d(campaign: Campaign) -> None:
    if not rule_d_in_force(campaign):
        name = campaign.rules.optional_rules.get(law.RULE_D, "Optional Rule D: Movement of Trade Items")
        raise RuleError(
            f"A trade item's interception is {name}, which is not in force in {campaign.name}: without it the trade "
            "items move on the board and no interception roll is made.",
            code="option_off",
        )


def _house(campaign: Campaign, value: Dynasty | int | None, role: str) -> Dynasty:
    pk = value.pk if isinstance(value, Dynasty) else value
    if pk is None:
        raise RuleError(f"Say which house is the {role.replace('_', ' ')}.", code="invalid", fields={role: "required"})
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise RuleError(f"{value!r} is not a house's id.", code="invalid", fields={role: "invalid"})
    try:
        house = Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no house #{pk} in {campaign.name}.") from None
    if house.kind != DynastyKind.PLAYER:
        raise RuleError(
            f"The house of {house.name} is no player's: trade items are the players' (Optional Rule D).",
            code="invalid",
            fields={role: "not_a_player"},
        )
    return house


@transaction.atomic
def trade_interception(
    *,
    campaign: Campaign | int,
    owner: Dynasty | int,
    interceptor: Dynasty | int,
    item: str,
    armies: int = 0,
    intercepting_fleets: int = 0,
    owner_fleets: int = 0,
    owner_crowns: int = 0,
    interceptor_crowns: int = 0,
    die: Sequence[int] | None = None,
    phase: int | None = None,
    note: str = "",
    source: DiceSource | None = None,
    by: Actor,
) -> InterceptionRecord:
    """One interception attempt on ``owner``'s trade ``item`` by ``interceptor``: the counters its
    route meets (``armies`` of the interceptor in a province it passes; fleets of each side in a sea
    area), the Crowns each side paid to the Treasury before the roll (15 a -1 for the owner, 20 a +1
    for the interceptor: posted now, refused beyond what a house holds unless the campaign allows
    overdrafts), and the owner's die (``die``: the face typed at the table; None: the server rolls; the
    roll log keeps it). 6 or more: the item passes to the interceptor. ``phase``: the Event/Movement
    phase (3 only under rule H). The chronicle says the outcome to all; the Crowns and the roll's
    make-up only to the two houses (and the GM). The GM records it."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters what the board decided (campaign.permissions)
    _rule_d(campaign)
    holder = _house(campaign, owner, "owner")
    taker = _house(campaign, interceptor, "interceptor")
    if holder.pk == taker.pk:
        raise RuleError(
            "A house does not intercept its own trade item: name another house.", code="invalid", fields={"interceptor": "own"}
        )
    what = " ".join(str(item or "").split())
    if not what or len(what) > ITEM_MAX:
        raise RuleError(
            f"Name the trade item and its route in a few words (e.g. 'Cloth from Flanders to London'; at most {ITEM_MAX} "
            "characters).",
            code="invalid",
            fields={"item": "required" if not what else "too_long"},
        )
    phase = phases.check_phase(campaign, phase)
    problems = law.interception_problems(
        armies=armies,
        intercepting_fleets=intercepting_fleets,
        owner_fleets=owner_fleets,
        owner_crowns=owner_crowns,
        interceptor_crowns=interceptor_crowns,
    )
    if problems:
        raise RuleError(" ".join(problems.values()), code="invalid", fields=dict.fromkeys(problems, "invalid"))
    money = treasury.currency(campaign)
    for house, amount, side in ((holder, owner_crowns, "to protect"), (taker, interceptor_crowns, "to intercept")):
        treasury.post(
            campaign,
            payer=house,
            payee=None,
            amount=amount,
            kind=PostingKind.OTHER,
            reason=f"Trade (rule D): paid {side} {what}, before the interception roll",
            check_funds=True,
            by=by,
        )
    excess = law.fleets_in_excess(intercepting_fleets, owner_fleets)
    box = DiceBox(campaign, source=source, by=by, step="event:interception")
    board = law.PER_ARMY * armies + law.PER_FLEET_IN_EXCESS * excess
    modifier = board - owner_crowns // law.OWNER_STEP + interceptor_crowns // law.INTERCEPTOR_STEP
    roll = box.roll(
        law.INTERCEPTION_DICE,
        purpose="interception",
        entered=list(die) if die is not None else None,
        modifier=modifier,
        target=law.TAKEN_AT,
        detail=f"the house of {holder.name}'s trade item",
    )
    result = law.interception(
        roll.faces[0],
        armies=armies,
        intercepting_fleets=intercepting_fleets,
        owner_fleets=owner_fleets,
        owner_crowns=owner_crowns,
        interceptor_crowns=interceptor_crowns,
    )
    roll.outcome = "taken" if result.taken else "passes"
    box.flush()
    where = f" ({' '.join(note.split())[:NOTE_MAX]})" if note.strip() else ""
    chronicle = Chronicle(campaign)
    chronicle.add(
        "interception",
        f"The house of {taker.name} tries to intercept {what} of the house of {holder.name}{where}: "
        + (f"the trade item passes to the house of {taker.name}." if result.taken else "it gets through."),
        dynasty=taker.pk,
        owner=holder.pk,
        interceptor=taker.pk,
        taken=result.taken,
    )
    chronicle.add(
        "interception",
        f"The interception of {what}: the house of {holder.name} rolled {result.face}, "
        f"{result.armies:+d} for the intercepting armies, {law.PER_FLEET_IN_EXCESS * result.fleets_in_excess:+d} for "
        f"{result.fleets_in_excess} fleet(s) in excess, {result.owner_modifier:+d} for the {owner_crowns} {money} the house "
        f"of {holder.name} paid, {result.interceptor_modifier:+d} for the {interceptor_crowns} {money} the house of "
        f"{taker.name} paid: {result.total}, " + ("6 or more: taken." if result.taken else "under 6: not taken."),
        readers=[holder.pk, taker.pk],
        dynasty=taker.pk,
        owner=holder.pk,
        interceptor=taker.pk,
        owner_crowns=owner_crowns,
        interceptor_crowns=interceptor_crowns,
        armies=result.armies,
        fleets_in_excess=result.fleets_in_excess,
        face=result.face,
        total=result.total,
        taken=result.taken,
    )
    phases.stamp(chronicle, phase)
    chronicle.flush()
    return InterceptionRecord(owner=holder, interceptor=taker, item=what, result=result, phase=phase)
