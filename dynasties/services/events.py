"""What happens to royals outside the Dynastic Sequence (RULES.md A5, A7): survival rolls for
plague, battle and storm, capture, ransom and release, regents appointed by the player, and a
crown given back after a Dynastic Union."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from campaign.dice import DiceBox
from campaign.models import Campaign, Step
from campaign.permissions import Actor, Forbidden, require
from campaign.steps import Chronicle, Seen, load_tables, lock_campaign
from dynasties import treasury
from dynasties.models import Character, Crown, Dynasty, DynastyKind, Origin, PostingKind, Reign, Status
from dynasties.services import control, event_deaths, phases, regnal
from dynasties.services.announcements import return_widowed
from dynasties.services.common import World
from dynasties.services.crowns import crowns_review
from dynasties.services.deaths import character_die
from dynasties.services.play_events import EventDue
from dynasties.services.play_registry import play_of
from dynasties.services.pretenders import queens_accession_rebellions
from dynasties.services.succession import (
    accessions_lose_titles,
    create_baron,
    create_relative,
    default_regent,
    pay_monarch_match,
    resolve_successions,
    title,
)
from dynasties.services.survival import birth_penalties
from dynasties.services.titles import titles_pass_on
from rules import captures as caps
from rules.crowns import RegentCandidate, baron_refusal, regent_refusal
from rules.dice import DiceSource
from rules.errors import NotFound, RuleError


@dataclass(frozen=True)
class EventResult:
    character: Character
    faces: tuple[int, ...]
    modifier: int
    need: int | None
    survived: bool
    captured: bool = False


def _characters(campaign: Campaign, ids: Sequence[int]) -> list[Character]:
    found = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=list(ids))}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise NotFound(f"There is no character #{missing[0]} in {campaign.name}.")
    return [found[pk] for pk in ids]


def _dynasty(campaign: Campaign, value: Dynasty | int | None, role: str) -> Dynasty:
    if value is None:
        raise RuleError(f"Say which dynasty is the {role}.", code="invalid", fields={role: "required"})
    pk = value.pk if isinstance(value, Dynasty) else value
    try:
        return Dynasty.objects.get(pk=pk, campaign=campaign)
    except Dynasty.DoesNotExist:
        raise NotFound(f"There is no dynasty #{pk} in {campaign.name}.") from None


NEUTRALS = "neutrals"
"""``captor`` of a battle lost to a neutral army: the neutrals ransom a royal for 100 (A8)."""


@transaction.atomic
def survival_event(
    *,
    campaign: Campaign | int,
    reason: str,
    characters: Sequence[int],
    faces: Mapping[int, Sequence[int]] | None = None,
    captor: Dynasty | int | str | None = None,
    immune: Sequence[int] = (),
    titles: Sequence[int] = (),
    governed: Sequence[int] | None = None,
    modifier: int | None = None,
    note: str = "",
    pass_over: Mapping[str, Sequence[int]] | None = None,
    entered: Sequence[Sequence[int]] | None = None,
    source: DiceSource | None = None,
    phase: int | None = None,
    by: Actor,
) -> list[EventResult]:
    """A survival roll outside the Dynastic Sequence, for a reason (A5): ``plague`` (-1; those in
    their capital, listed in ``immune``, do not roll), ``battle`` (-1; survivors are captured by
    ``captor``: a house, or ``NEUTRALS``), ``storm`` (no roll: all die), ``killed`` (a death decided at
    the table, any ruleset), ``other`` (the GM's ``modifier``).

    Who may be struck follows the rulebook (``event_deaths.check_struck``): nobody held prisoner
    ("Captured characters may not be killed"); in Blood Royale a battle, a storm or a plague only a
    royal piece on the map (the King, a Prince with his piece). Under optional rule G a plague in the
    governed provinces ``titles`` strikes each Governor's household (the Governor, spouse, children up
    to 15) at -1, +1 for each other province he governs not struck; ``governed`` lists them as the GM
    ticked them (None: as the rule finds them) and must be exactly those the rule finds, less the
    immune and those already rolling for their piece (one roll each).

    Deaths take effect at once and any crown left vacant passes. ``pass_over`` (crown -> heirs) is
    decided before the dice, for a monarch the event may kill: it is checked now as the succession
    would walk it, and applied to the crowns left vacant without the heirs who died too; ``entered``
    as for survival_finish. ``phase``: the Event/Movement phase it happened in (``phases.check_phase``:
    1 or 2, 3 only under Blood Royale's rule H), kept on its chronicle lines. The GM records it
    (``require(.., "gm")``: running the turn)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters it (campaign.permissions)
    phase = phases.check_phase(campaign, phase)
    play = play_of(campaign).events
    event = play.terms(reason)  # refused where the ruleset plays no such event
    rolls = event.rolls
    people = _characters(campaign, list(dict.fromkeys([*characters, *immune])))
    for c in people:
        if c.status != Status.ALIVE:
            raise RuleError(f"{c.display_name} is {c.get_status_display().lower()}: no survival roll.", code="not_alive")
    event_deaths.check_struck(campaign, reason, people)
    if titles and reason != "plague":
        raise RuleError(
            "Only a plague strikes a governed province (optional rule G).", code="invalid", fields={"titles": "plague"}
        )
    due_g = _rule_g_due(campaign, characters, immune, titles, governed, event.rule_g)
    rolling = [c for c in people if c.pk not in immune] + [r.character for r in due_g.values()]
    if not rolling and not people:
        raise RuleError("Name at least one character.", code="invalid", fields={"characters": "required"})
    taker = _battle_captor(campaign, reason, captor, rolling)
    typed = dict(faces or {})
    stray = [pk for pk in typed if pk not in {c.pk for c in rolling}]
    if stray:
        raise RuleError("Dice were typed for characters who do not roll in this event.", code="not_due")
    decided = event_deaths.check_pass_over(campaign, pass_over or {}, {c.pk for c in rolling})
    tables = load_tables(campaign)
    penalties = birth_penalties(campaign)
    extra = event.modifier if modifier is None else modifier
    box = DiceBox(campaign, source=source, by=by, step=f"event:{reason}")
    chronicle = Chronicle(campaign)
    label = event.label + (f" ({note.strip()})" if note.strip() else "")
    results: list[EventResult] = []
    dead: list[int] = []
    captured: list[Character] = []
    for c in people:
        if c.pk in immune:
            chronicle.add("event", f"{c.display_name} is in the capital and immune to the {label}.", character=c.pk)
    for c in rolling:
        if not rolls:
            results.append(EventResult(c, (), 0, None, False))
            dead.append(c.pk)
            chronicle.add("death", f"{c.display_name} dies: {label}.", character=c.pk, dynasty=c.controlled_by_id)
            continue
        g = due_g.get(c.pk)
        bonus = (g.modifier if g is not None else extra) + penalties.get(c.pk, 0)
        roll = play.roll(campaign, box, tables, c, EventDue(reason, bonus, typed.get(c.pk), g.why if g is not None else None))
        survived = roll.survived
        take = survived and reason == "battle"
        results.append(EventResult(c, roll.faces, roll.modifier, roll.need, survived, take))
        if not survived:
            dead.append(c.pk)
            chronicle.add(
                "death",
                f"{c.display_name} dies: {label} (rolled {sum(roll.faces)}{roll.modifier:+d}, needed {roll.need}).",
                character=c.pk,
                dynasty=c.controlled_by_id,
            )
        elif take:
            captured.append(c)
    box.flush()
    for c in captured:  # by the house chosen, or (``taker`` None) by the neutrals, who ransom for 100 (A8)
        _capture(c, taker, chronicle, why=label)
    if dead:
        character_die(campaign=campaign, character_ids=dead, cause=label[:120], chronicle=chronicle)
    pass_on = event_deaths.pass_over_applied(campaign, decided)
    _crowns_pass(campaign, chronicle, tables, entered, pass_on, source=source, by=by, step=f"event:{reason}")
    if dead and campaign.step == Step.INTERPHASE:
        return_widowed(World(campaign), chronicle, dead)  # this turn's Announcements are past: at once
    phases.stamp(chronicle, phase)
    chronicle.flush()
    return results


def _rule_g_due(
    campaign: Campaign,
    characters: Sequence[int],
    immune: Sequence[int],
    titles: Sequence[int],
    governed: Sequence[int] | None,
    rule_g: str,
) -> dict[int, event_deaths.Roller]:
    """Optional rule G: the Governors' households a plague in ``titles`` strikes, less the immune and
    those already rolling; ``governed`` (as the GM ticked them) must be exactly those."""
    household = event_deaths.rule_g_rollers(campaign, titles)
    due_g = {pk: r for pk, r in household.items() if pk not in immune and pk not in characters}
    if governed is None:
        return due_g
    ticked = {pk for pk in governed if pk not in characters}
    missing = [r.character.display_name for pk, r in due_g.items() if pk not in ticked]
    stray_g = _characters(campaign, sorted(ticked - set(due_g)))
    if missing:
        raise RuleError(
            f"{rule_g}: {', '.join(missing)} must roll too (or be listed as immune, in the capital).",
            code="rule_g",
            fields={"governed": "missing"},
        )
    if stray_g:
        event_deaths.check_struck(campaign, "other", stray_g)  # a prisoner is refused for that first
        raise RuleError(
            f"{rule_g}: {stray_g[0].display_name} is of no household of a Governor whose province is struck.",
            code="rule_g",
            fields={"governed": "not_struck"},
        )
    return due_g


def _battle_captor(
    campaign: Campaign, reason: str, captor: Dynasty | int | str | None, rolling: Sequence[Character]
) -> Dynasty | None:
    """The house that takes a battle's survivors (None: no battle, or the neutrals); never their own."""
    if reason != "battle" or captor == NEUTRALS:
        return None
    taker = _dynasty(campaign, captor if not isinstance(captor, str) else _house_id(captor), "captor")
    own = [c for c in rolling if c.controlled_by_id == taker.pk]
    if own:
        raise RuleError(f"{own[0].display_name} cannot be captured by his own house.", code="invalid", fields={"captor": "own"})
    return taker


def _crowns_pass(
    campaign: Campaign,
    chronicle: Chronicle,
    tables: dict[str, Any],
    entered: Sequence[Sequence[int]] | None,
    pass_over: Mapping[str, Sequence[int]],
    *,
    source: DiceSource | None,
    by: Actor,
    step: str,
) -> None:
    """After the deaths: the crowns left vacant pass (with the heirs passed over as decided), the
    titles pass on, and what an accession brings follows."""
    world = World(campaign)
    box = DiceBox(campaign, source=source, by=by, step=step)
    new_reigns = resolve_successions(
        world, box, chronicle, tables, entered=[list(f) for f in entered] if entered else None, pass_over=pass_over
    )
    titles_pass_on(world, chronicle)
    accessions_lose_titles(world, new_reigns, chronicle)  # BloodLine: the titles that just passed to him too
    queens_accession_rebellions(world, new_reigns, chronicle)
    box.flush()


def _house_id(value: str) -> int:
    """A captor typed as a house's id ("12"); anything else is no house."""
    if not value.strip().isdigit():
        raise RuleError(
            f"{value!r} is no captor: name a house, or the neutrals ({NEUTRALS!r}).", code="invalid", fields={"captor": "invalid"}
        )
    return int(value)


def _capture(character: Character, captor: Dynasty | None, chronicle: Chronicle, *, why: str) -> None:
    """Take ``character`` prisoner: of ``captor``'s house, or of the neutrals (``None``)."""
    if captor is not None and character.controlled_by_id == captor.pk:
        raise RuleError(f"{character.display_name} cannot be captured by his own house.", code="invalid")
    character.prisoner_of = captor
    character.held_by_neutrals = captor is None
    character.save(update_fields=["prisoner_of", "held_by_neutrals"])
    taker = f"the house of {captor.name}" if captor is not None else "the neutrals"
    campaign = chronicle.campaign
    price = play_of(campaign).events.neutral_ransom() if captor is None else 0
    terms = f": they ransom him for {price} {treasury.currency(campaign)}" if price else ""  # A8, Fighting Neutrals
    chronicle.add(
        "capture",
        f"{character.display_name} is taken prisoner by {taker} ({why}){terms}.",
        character=character.pk,
        dynasty=captor.pk if captor is not None else None,
        neutrals=captor is None,
    )


def held_by(character: Character) -> str:
    """Who holds a prisoner, in words ("" when nobody does)."""
    if character.prisoner_of_id is not None:
        return f"the house of {character.prisoner_of.name}" if character.prisoner_of is not None else "another house"
    return "the neutrals" if character.held_by_neutrals else ""


def on_the_map(campaign: Campaign) -> caps.OnTheMap:
    """Who the campaign's ruleset puts on the map, where a battle or a surrender can take him."""
    return play_of(campaign).events.on_the_map()


def captives(campaign: Campaign, people: Sequence[Character], captor: Dynasty | None) -> list[caps.Captive]:
    """What the rules need to know of each character someone would record as taken by ``captor``
    (``None``: the neutrals): his piece, whether he is a King, a royal leader, a monarch."""
    year = campaign.current_year
    play = play_of(campaign).events
    reigns = {r.holder_id: r for r in Reign.objects.filter(campaign=campaign, end_year__isnull=True)}
    leaders: set[int] = set()
    if play.on_the_map() == caps.OnTheMap.LEADERS:
        from dynasties.services.bloodline_sequence import royal_leaders

        world = World(campaign)
        leaders = {c.pk for crown in sorted(world.crowns) for c in royal_leaders(world, crown)}
    return [
        caps.Captive(
            name=c.display_name,
            in_play=c.status == Status.ALIVE,
            held_by=held_by(c),
            piece=c.prince_piece,
            king=c.pk in reigns and c.sex == "M" and c.age(year) >= play.king_age(),
            leader=c.pk in leaders,
            monarch=c.pk in reigns,
            own_house=captor is not None and c.controlled_by_id == captor.pk,
        )
        for c in people
    ]


def may_be_captured(campaign: Campaign, people: Sequence[Character]) -> list[Character]:
    """Those of ``people`` the rules let a battle or a surrender take (by some house or the neutrals)."""
    where = on_the_map(campaign)
    return [
        c for c, facts in zip(people, captives(campaign, people, None), strict=True) if not caps.capture_problems(facts, where)
    ]


def _captor(campaign: Campaign, captor: Dynasty | int | None, neutrals: bool) -> Dynasty | None:
    """The house that takes the prisoners, or None for the neutrals; exactly one of them is named."""
    if neutrals and captor is not None:
        raise RuleError(
            "Name the house that took them, or tick the neutrals: not both.", code="invalid", fields={"neutrals": "both"}
        )
    if neutrals:
        return None
    if captor is None:
        raise RuleError(
            "Say who took them: a house, or the neutrals (a country no player controls).",
            code="invalid",
            fields={"captor": "required"},
        )
    return _dynasty(campaign, captor, "captor")


@transaction.atomic
def character_capture(
    *,
    campaign: Campaign | int,
    character: Character | int | None = None,
    characters: Sequence[Character | int] = (),
    captor: Dynasty | int | None = None,
    neutrals: bool = False,
    reason: str = "",
    phase: int | None = None,
    by: Actor,
) -> list[Character]:
    """Record royals taken on the board (A5, "Captured Royal Characters"; A8): by ``captor``'s house,
    or by the neutrals (``neutrals``). Who can be taken is who is on the map (``rules.captures``):
    Blood Royale's King and Princes with a piece, BloodLine's royal leaders, the EU tables' monarch;
    the service refuses anyone else with the rule. ``phase``: the Event/Movement phase (as
    ``survival_event``). The GM records it (the board decided)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")  # the GM enters what the board decided (campaign.permissions)
    phase = phases.check_phase(campaign, phase)
    ids = [c.pk if isinstance(c, Character) else c for c in ([character] if character is not None else [])]
    ids += [c.pk if isinstance(c, Character) else c for c in characters]
    if not ids:
        raise RuleError("Name at least one character taken prisoner.", code="invalid", fields={"characters": "required"})
    if len(set(ids)) != len(ids):
        raise RuleError("A character is named twice.", code="invalid", fields={"characters": "twice"})
    taker = _captor(campaign, captor, neutrals)
    people = list(Character.objects.filter(campaign=campaign, pk__in=ids).select_related("prisoner_of"))
    found = {c.pk: c for c in people}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise NotFound(f"There is no character #{missing[0]} in {campaign.name}.")
    people = [found[pk] for pk in ids]
    fights = taker is None or taker.kind != DynastyKind.ARISTOCRATIC
    where = on_the_map(campaign)
    problems = [
        p for facts in captives(campaign, people, taker) for p in caps.capture_problems(facts, where, captor_fights=fights)
    ]
    if problems:
        field = "captor" if not fights or any("own house" in p for p in problems) else "characters"
        raise RuleError(" ".join(dict.fromkeys(problems)), code="not_capturable", fields={field: "not_capturable"})
    chronicle = Chronicle(campaign)
    for who in people:
        _capture(who, taker, chronicle, why=reason.strip()[:120] or "captured")
    phases.stamp(chronicle, phase)
    chronicle.flush()
    return people


@transaction.atomic
def character_release(
    *,
    campaign: Campaign | int,
    character: Character | int | None = None,
    characters: Sequence[Character | int] = (),
    ransom: int = 0,
    paid_by: Dynasty | int | None = None,
    terms: str = "",
    by: Actor,
) -> list[Character]:
    """Release prisoners of one captor, for a ransom or for nothing (A8: "ransom of captured royals:
    any terms; neutrals ransom for 100"). ``ransom`` is the whole price, paid by ``paid_by`` (the
    prisoners' own house if not named) to the captor's exchequer, or to the Treasury for the
    neutrals (Blood Royale's fixed price a head, ``rules.captures``); ``terms``: what else was
    agreed, read by the houses concerned and the GM as the money is.

    Who records it (docs/rulings.md, "Captures and ransoms"): the GM, always; the player of the
    paying house a ransom to the neutrals (his own money, at their price); the captor's player a
    release for nothing. A ransom between two houses moves one player's money and frees the other's
    prisoner: the GM records it once both have agreed at the table."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "play")  # an observer records nothing; whose release it is, below
    ids = [c.pk if isinstance(c, Character) else c for c in ([character] if character is not None else [])]
    ids += [c.pk if isinstance(c, Character) else c for c in characters]
    if not ids:
        raise RuleError("Name at least one prisoner to release.", code="invalid", fields={"characters": "required"})
    if len(set(ids)) != len(ids):
        raise RuleError("A prisoner is named twice.", code="invalid", fields={"characters": "twice"})
    people = _characters(campaign, ids)
    for who in people:
        if not who.is_prisoner:
            raise RuleError(f"{who.display_name} is not a prisoner.", code="not_prisoner", fields={"characters": "not_prisoner"})
    captors = {(who.prisoner_of_id, who.held_by_neutrals) for who in people}
    if len(captors) > 1:
        raise RuleError(
            "Release the prisoners of one captor at a time (each captor is paid his own ransom).",
            code="invalid",
            fields={"characters": "captors"},
        )
    captor = people[0].prisoner_of
    neutrals = people[0].held_by_neutrals
    money = treasury.currency(campaign)  # Crowns in Blood Royale, ducats in the EU games
    wrong = caps.ransom_problems(
        neutrals=neutrals,
        ransom=ransom,
        count=len(people),
        neutral_price=play_of(campaign).events.neutral_ransom(),
        currency=money,
        monarch_ransom=play_of(campaign).events.monarch_ransom(campaign, money),
    )
    if wrong:
        raise RuleError(wrong[0], code="ransom", fields={"ransom": "invalid"})
    kind = caps.release_kind(neutrals=neutrals, ransom=ransom)
    payer: Dynasty | None = None
    if kind != caps.Release.FREED:
        house = paid_by if paid_by is not None else people[0].controlled_by_id
        payer = _dynasty(campaign, house, "payer")
        if captor is not None and payer.pk == captor.pk:
            raise RuleError(
                f"The house of {payer.name} holds the prisoner: it cannot pay itself his ransom.",
                code="invalid",
                fields={"paid_by": "captor"},
            )
    elif paid_by is not None:
        raise RuleError(
            "A release without ransom has nobody paying: clear the payer.", code="invalid", fields={"paid_by": "no_ransom"}
        )
    _may_release(campaign, by, kind, payer=payer, captor=captor)
    names = " and ".join(who.display_name for who in people)
    holder = f"the house of {captor.name}" if captor is not None else "the neutrals"
    chronicle = Chronicle(campaign)
    text = f"{names} {'is' if len(people) == 1 else 'are'} released by {holder}"
    if payer is not None:
        text += f" for a ransom paid by the house of {payer.name}"  # the amount: payer, captor and GM only
        _post_ransom(campaign, people, payer, captor, ransom, terms.strip(), chronicle, by=by)
    elif terms.strip() and captor is not None:
        chronicle.add(
            "payment_owed",
            f"The terms of the release of {names} by the house of {captor.name}: {terms.strip()[:200]}.",
            readers=[captor.pk, *{who.controlled_by_id for who in people}],
            dynasty=captor.pk,
            amount=0,
        )
    for who in people:
        who.prisoner_of = None
        who.held_by_neutrals = False
        who.save(update_fields=["prisoner_of", "held_by_neutrals"])
    chronicle.add(
        "release", text + ".", character=people[0].pk, characters=[who.pk for who in people], ransomed=payer is not None
    )
    _claims_at_once(campaign, people, chronicle)
    chronicle.flush()
    return people


def _may_release(campaign: Campaign, by: Actor, kind: caps.Release, *, payer: Dynasty | None, captor: Dynasty | None) -> None:
    """The policy's checks for each kind of release (docs/rulings.md, "Captures and ransoms")."""
    if kind == caps.Release.NEUTRAL_RANSOM:
        assert payer is not None
        require(by, campaign, "house", dynasty=payer.pk, what="a house pays the neutrals' ransom from its own exchequer")
        return
    if kind == caps.Release.FREED and captor is not None:
        require(by, campaign, "house", dynasty=captor.pk, what="the captor's player frees his own prisoners")
        return
    try:
        require(by, campaign, "gm")
    except Forbidden:
        what = (
            "a ransom between two houses moves one player's money and frees the other's prisoner: the GM records it "
            "once both have agreed at the table"
            if kind == caps.Release.RANSOM
            else "a prisoner of the neutrals is freed for nothing only by the GM (by arms, or a card)"
        )
        raise Forbidden(f"Only the GM records this release: {what} (docs/rulings.md, 'Captures and ransoms').") from None


def _post_ransom(
    campaign: Campaign,
    people: Sequence[Character],
    payer: Dynasty,
    captor: Dynasty | None,
    ransom: int,
    terms: str,
    chronicle: Chronicle,
    *,
    by: Actor,
) -> None:
    """The ransom posted to both exchequers (the Treasury's for the neutrals), one posting a head when
    the price is a head's (the neutrals'), else one for the whole; the private lines of the payer and
    the captor say how much."""
    money = treasury.currency(campaign)
    names = " and ".join(who.display_name for who in people)
    what = f"ransom of {names}" + (f" ({terms[:120]})" if terms else "")
    shares = (
        [(who, ransom // len(people)) for who in people]
        if captor is None
        else [(people[0] if len(people) == 1 else None, ransom)]
    )
    try:
        for who, amount in shares:
            treasury.post(
                campaign,
                payer=payer,
                payee=captor,
                amount=amount,
                kind=PostingKind.RANSOM,
                reason=f"ransom of {who.display_name}" if who is not None and captor is None else what,
                character=who,
                check_funds=True,
                by=by,
            )
    except treasury.InsufficientFunds as exc:  # the amount is what to change: say so next to it
        raise treasury.InsufficientFunds(exc.message, fields={"ransom": "insufficient_funds"}) from exc
    to = f"the house of {captor.name}" if captor is not None else "the Treasury (the neutrals)"
    chronicle.add(
        "payment_owed",
        f"{ransom} {money} from the house of {payer.name} to {to}: {what}.",
        readers=[payer.pk],
        dynasty=payer.pk,
        amount=-ransom,
        character=people[0].pk,
    )
    if captor is not None:
        chronicle.add(
            "payment_owed",
            f"{ransom} {money} to the house of {captor.name} from the house of {payer.name}: {what}.",
            readers=[captor.pk],
            dynasty=captor.pk,
            amount=ransom,
            character=people[0].pk,
        )


def _claims_at_once(campaign: Campaign, released: Sequence[Character], chronicle: Chronicle) -> None:
    """BloodLine, Disputed Succession A: "If released, the legitimate heir immediately makes a claim
    to the throne": the chronicle says so, and the crown's player (or the GM) records whether he is
    recognised (``interim_claim_resolve``, the event "A released heir's claim")."""
    waiting = Reign.objects.filter(
        campaign=campaign, end_year__isnull=True, interim_for__in=[who.pk for who in released]
    ).select_related("interim_for", "holder")
    for reign in waiting.order_by("crown"):
        claimant = reign.interim_for
        assert claimant is not None
        chronicle.add(
            "claim",
            f"{claimant.display_name}, released, claims the throne of {reign.crown} at once: the player of "
            f"{reign.crown} recognises him or keeps {reign.holder.display_name}, the interim monarch.",
            character=claimant.pk,
            crown=reign.crown,
        )


def _regent_candidate(c: Character, reign: Reign, house: int | None, year: int) -> RegentCandidate:
    return RegentCandidate(
        name=c.display_name,
        age=c.age(year),
        alive=c.status == Status.ALIVE,
        prisoner=c.is_prisoner,
        of_the_house=house is not None and c.controlled_by_id == house,
        monarch=c.pk == reign.holder_id,
        regent=c.pk == reign.regent_id,
    )


def regents_allowed(campaign: Campaign, reign: Reign, house: int | None) -> list[Character]:
    """The characters who may act as regent of this regency now (A7: 'any other character ... if he
    or she is of age', of the crown's player's house; not the regent himself): one query."""
    year = campaign.current_year
    people = Character.objects.filter(campaign=campaign, controlled_by_id=house, status=Status.ALIVE).select_related(
        "controlled_by"
    )
    return [
        c
        for c in people.order_by("birth_year", "birth_order", "pk")
        if regent_refusal(_regent_candidate(c, reign, house, year), crown=reign.crown) is None
    ]


def _late_monarch(campaign: Campaign, crown: str) -> Character | None:
    """The crown's monarch before this one (a created baron is his cousin, 5 years younger)."""
    before = Reign.objects.filter(campaign=campaign, crown=crown, end_year__isnull=False).select_related("holder")
    last = before.order_by("-end_year", "-start_year", "-pk").first()
    return last.holder if last is not None else None


@transaction.atomic
def regent_appoint(
    *,
    campaign: Campaign | int,
    crown: str,
    character: Character | int | None = None,
    baron: bool = False,
    characteristics: Sequence[Sequence[int] | None] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> Reign:
    """The player of the crown names the regent of its minor monarch (A7: "The player can bring in any
    other character to act as Regent (if he or she is of age). If none are available, a baron or cousin
    of the late King is created"): one of his house's characters of age who is free, or, only when none
    can act, a created baron (``baron``), his characteristics rolled or typed (``characteristics``: the
    faces of each of the three, in the ruleset's order, None where the server rolls). A created baron who
    is replaced retires from the game. The crown's player or the GM records it (``require(.., "crown")``)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    record = Crown.objects.filter(campaign=campaign, name=crown).first()
    if record is None:
        raise NotFound(f"There is no crown called {crown!r} in {campaign.name}.", fields={"crown": "unknown"})
    require(by, campaign, "crown", player=record.controlled_by_id, crown=crown)  # his decision (campaign.permissions)
    minor_until = play_of(campaign).events.regency_age()  # refused where the ruleset has no regents
    try:
        reign = Reign.objects.select_related("holder", "regent").get(campaign=campaign, crown=crown, end_year__isnull=True)
    except Reign.DoesNotExist:
        raise NotFound(f"Nobody reigns over {crown!r} in {campaign.name}.", fields={"crown": "no_reign"}) from None
    if reign.regent_id is None or reign.regency_end_year is not None:
        raise RuleError(
            f"{reign.holder.display_name} is of age: {crown} has no regency (a regent rules only for a monarch under "
            f"{minor_until}, A7).",
            code="no_regency",
            fields={"crown": "no_regency"},
        )
    year = campaign.current_year
    house = record.controlled_by_id
    if baron == (character is not None):
        raise RuleError(
            "Choose the regent among the characters offered, or (only when none can act) a baron created for it: one of the two.",
            code="invalid",
            fields={"character": "one"},
        )
    if not baron and characteristics and any(f for f in characteristics):
        raise RuleError(
            "Dice were typed for a created baron, but a character was chosen as regent: clear them.",
            code="invalid_dice",
            fields={"characteristics": "not_due"},
        )
    chronicle = Chronicle(campaign)
    world: World | None = None
    if baron:
        refusal = baron_refusal(len(regents_allowed(campaign, reign, house)), crown=crown)
        if refusal:
            raise RuleError(refusal, code="regent_available", fields={"baron": "available"})
        typed = list(characteristics or [])
        if typed and len(typed) != 3:
            raise RuleError("Type the dice of the baron's three characteristics, or none.", code="invalid_dice")
        world = World(campaign)
        box = DiceBox(campaign, source=source, by=by, step="event:regent")
        regent = create_baron(
            world,
            crown,
            _late_monarch(campaign, crown),
            world.dynasties.get(house or 0),
            box,
            chronicle,
            load_tables(campaign),
            typed=[list(f) if f else None for f in typed] if typed else None,
        )
        box.flush()
    else:
        assert character is not None
        [regent] = _characters(campaign, [character.pk if isinstance(character, Character) else character])
        refusal = regent_refusal(_regent_candidate(regent, reign, house, year), crown=crown)
        if refusal:
            raise RuleError(refusal, code="regent_refused", fields={"character": "refused"})
    old = reign.regent
    assert old is not None
    reign.regent = regent
    reign.save(update_fields=["regent"])
    text = f"{regent.display_name} replaces {old.display_name} as regent of {crown} for {reign.holder.display_name}"
    if old.origin == Origin.BARON and old.status == Status.ALIVE:
        old.status = Status.RETIRED
        old.retired_year = year
        old.save(update_fields=["status", "retired_year"])
        text += "; the baron retires from the game"
    chronicle.add("regency", text + ".", character=regent.pk, crown=crown)
    crowns_review(campaign, chronicle, world)  # a lost capital's Charisma follows the ruler
    chronicle.flush()
    return reign


@transaction.atomic
def crown_give_back(
    *,
    campaign: Campaign | int,
    crown: str,
    monarch: Character | int | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> Reign:
    """The player controlling an annexed crown abandons it (A7, Controlling Two Countries): the
    landless house sets up a new monarch — one of its own characters, or, if none is named, a
    family created as when no heir can be found."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    held = Crown.objects.filter(campaign=campaign, name=crown).first()
    if held is None:
        raise NotFound(f"There is no crown called {crown!r} in {campaign.name}.", fields={"crown": "unknown"})
    require(by, campaign, "crown", player=held.controlled_by_id, crown=crown)  # the holding player gives it up
    play_of(campaign).events.may_give_back_crowns()  # refused where the ruleset gives no crown back
    world = World(campaign)
    record: Crown | None = world.crowns.get(crown)
    if record is None or not record.annexed:
        raise RuleError(
            f"{crown} is not held in a Dynastic Union; there is nothing to give back.",
            code="not_annexed",
            fields={"crown": "not_annexed"},
        )
    home = world.dynasties.get(record.home_dynasty_id or 0)
    if home is None:
        raise RuleError(f"{crown} has no home dynasty to give it back to.", code="invalid")
    reign = next(r for r in world.open_reigns() if r.crown == crown)
    late = world.characters[reign.holder_id]
    year = campaign.current_year
    chronicle = Chronicle(campaign)
    box = DiceBox(campaign, source=source, by=by)
    if monarch is not None:
        pk = monarch.pk if isinstance(monarch, Character) else monarch
        new_monarch = world.characters.get(pk)
        if new_monarch is None:
            raise NotFound(f"There is no character #{pk} in {campaign.name}.", fields={"monarch": "unknown"})
        if new_monarch.status != Status.ALIVE or new_monarch.controlled_by_id != home.pk:
            raise RuleError(
                f"{new_monarch.display_name} is not a living member of the house of {home.name}; the new monarch "
                "must be set up by the landless player (A7: 'allow a new Monarch to be established by the "
                "'landless' player').",
                code="invalid",
                fields={"monarch": "not_of_the_house"},
            )
        if new_monarch.pk in world.reigning():
            raise RuleError(f"{new_monarch.display_name} already reigns.", code="invalid", fields={"monarch": "reigns"})
    else:
        new_monarch = create_relative(world, late, home, box, chronicle, load_tables(campaign), None)
    reign.end_year = year
    reign.save(update_fields=["end_year"])
    new = regnal.enthrone(campaign, crown, new_monarch, year, world=world)
    pay_monarch_match(world, new_monarch, crown, chronicle)  # his wife's house: 100 Crowns, as at a succession (A6)
    partner = record.union_with
    control.move(campaign, record, home, "house_restored")
    record.union_with = None
    record.union_since = None
    record.save(update_fields=["controlled_by", "union_with", "union_since"])
    if partner is not None and partner.union_with_id == record.pk:
        partner.union_with = None
        partner.union_since = None
        partner.save(update_fields=["union_with", "union_since"])
    chronicle.add(
        "union_ends",
        f"The Dynastic Union ends: {crown} is given back to the house of {home.name}; "
        f"{regnal.crowned_name(new_monarch, new)} is its new {title(new_monarch)}.",
        crown=crown,
        dynasty=home.pk,
    )
    if play_of(campaign).events.needs_regent(new_monarch.as_person(), year):  # a minor set up: a regent (A7)
        chosen, _ = default_regent(world, crown, new_monarch.pk, ())
        regent = (
            world.characters[chosen]
            if chosen is not None
            # no late King: the crown's former monarch lives on (he gave it back), so the baron is 30, of the house
            else create_baron(world, crown, None, home, box, chronicle, load_tables(campaign))
        )
        new.regent = regent
        new.save(update_fields=["regent"])
        chronicle.add(
            "regency",
            f"{new_monarch.display_name} is {new_monarch.age(year)}: {regent.display_name} is regent until the "
            f"{title(new_monarch)} is 15.",
            character=regent.pk,
            crown=crown,
        )
    box.flush()
    crowns_review(campaign, chronicle, world)  # a lost capital's Charisma follows the new ruler
    chronicle.flush()
    return new
