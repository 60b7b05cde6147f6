"""Step 2 of the Dynastic Sequence: Survival (RULES.md A5), then succession (A7).

These services lock, check the step, ask the policy and choose who rolls; who is due, the dice and
what they decide are the ruleset's play (``play_of(campaign).survival``:
``dynasties/play/<ruleset>/survival.py``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from django.db import transaction
from django.db.models import Count

from campaign.dice import DiceBox
from campaign.models import Campaign, Step
from campaign.permissions import Actor, Forbidden, has_own_house, may_act_for, require, require_act_for
from campaign.steps import Chronicle, Seen, load_tables, lock_campaign, require_step, set_step
from dynasties.models import BirthAttempt, Character, Reign, RollSubject, Status, Title
from dynasties.services.common import World
from dynasties.services.deaths import character_die
from dynasties.services.play_registry import SurvivalDue as SurvivalDue
from dynasties.services.play_registry import SurvivalResult as SurvivalResult
from dynasties.services.play_registry import play_of
from dynasties.services.pretenders import queens_accession_rebellions
from dynasties.services.succession import accessions_lose_titles, resolve_successions
from dynasties.services.succession_choices import pass_over_choices, pass_over_clear
from dynasties.services.titles import titles_pass_on
from rules.dice import DiceSource, Entered
from rules.errors import RuleError


def birth_penalties(campaign: Campaign) -> dict[int, int]:
    """Wife id -> this turn's Constitution penalty from additional birth attempts."""
    rows = (
        BirthAttempt.objects.filter(campaign=campaign, year=campaign.current_year)
        .values("marriage__wife_id")
        .annotate(n=Count("id"))
    )
    penalty = play_of(campaign).births.birth_penalty
    return {row["marriage__wife_id"]: penalty(row["n"]) for row in rows}


def rolled_this_turn(campaign: Campaign) -> set[int]:
    return set(
        RollSubject.objects.filter(
            roll__campaign=campaign, roll__year=campaign.current_year, roll__purpose="survival", roll__step=Step.SURVIVAL
        ).values_list("character_id", flat=True)
    )


def survival_due(campaign: Campaign, world: World, tables: Mapping[str, object]) -> list[SurvivalDue]:
    """Everyone who must roll this turn, with the number needed and the modifier (A5)."""
    return play_of(campaign).survival.due(campaign, world, tables)


Whose = Literal["all", "mine"]


@transaction.atomic
def survival_roll(
    *,
    campaign: Campaign | int,
    characters: Sequence[int] | None = None,
    whose: Whose | None = None,
    faces: Mapping[int, Entered] | None = None,
    source: DiceSource | None = None,
    by: Actor,
) -> list[SurvivalResult]:
    """Roll 2d6 + Constitution for the given characters (default: everyone still to roll the caller
    acts for: the GM's all, a player's his own house's).

    ``whose`` is what a door's button means instead of ``characters``: ``"all"`` (the GM's "roll
    all": everyone still to roll; anyone else is refused) or ``"mine"`` (a player's "roll mine": his
    own house's still to roll; the GM, who has no house, is refused). The policy is asked here, once,
    with ``by``; the door only draws the refusal. ``faces`` maps a character id to the two faces
    typed in from the table; the others are rolled by the server."""
    if whose is not None and characters is not None:
        raise ValueError("survival_roll: give 'characters' or 'whose', not both")
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    # who may roll for whom is asked before the step is looked at
    seat = require(by, campaign, "gm" if whose == "all" else "play")
    if whose == "mine" and not has_own_house(seat.role, seat.dynasty):
        raise Forbidden("Only a player rolls for his own dynasty.")
    if characters is not None and not seat.is_gm:  # the GM, or each character's player
        houses = dict(Character.objects.filter(campaign=campaign, pk__in=list(characters)).values_list("pk", "controlled_by_id"))
        for pk in characters:
            if pk in houses:
                require_act_for(seat.role, seat.dynasty, houses[pk], "roll only for your own characters")
    require_step(campaign, Step.SURVIVAL)
    world = World(campaign, living_only=True)
    tables = load_tables(campaign)
    done = rolled_this_turn(campaign)
    due = {d.character.pk: d for d in survival_due(campaign, world, tables) if d.character.pk not in done}
    typed = dict(faces or {})
    if characters is None and not seat.is_gm:  # a player's default: his own house's characters still to roll
        characters = [pk for pk, d in due.items() if may_act_for(seat.role, seat.dynasty, d.character.controlled_by_id)]
    if characters is None:  # everyone still to roll: the GM's (or the system's)
        chosen = list(due)
    else:
        chosen = []
        for pk in characters:
            if pk not in due:
                raise RuleError(_why_not_due(world, pk, done), code="not_due", fields={"characters": str(pk)})
            chosen.append(pk)
    stray = [pk for pk in typed if pk not in chosen]
    if stray:
        raise RuleError(
            "Dice were typed for characters who are not rolling now: " + ", ".join(_name(world, pk) for pk in stray) + ".",
            code="not_due",
        )
    box = DiceBox(campaign, source=source, by=by)
    chronicle = Chronicle(campaign)
    results, dead = play_of(campaign).survival.roll(
        campaign, world, box, chronicle, chosen=chosen, due=due, typed=typed, tables=tables
    )
    box.flush()
    if dead:
        character_die(campaign=campaign, character_ids=dead, cause="failed survival roll", chronicle=chronicle)
    chronicle.flush()
    return results


def survival_pass_certain(campaign: Campaign) -> list[SurvivalResult]:
    """When Survival opens, with the campaign's ``auto_pass_certain``: everyone due whose roll
    cannot change anything (Blood Royale: cannot fail; BloodLine: every total reads "nothing")
    passes without a die drawn, logged as certain. The others roll as usual."""
    if not campaign.auto_pass_certain:
        return []
    return play_of(campaign).survival.pass_certain(campaign)


def _name(world: World, pk: int) -> str:
    character = world.characters.get(pk)
    return character.display_name if character else f"character #{pk}"


def _why_not_due(world: World, pk: int, done: set[int]) -> str:
    character = world.characters.get(pk)
    if character is None:
        return f"There is no character #{pk} in this campaign."
    if pk in done:
        return f"{character.display_name} has already rolled for survival this turn."
    if character.status != Status.ALIVE:
        return f"{character.display_name} is {character.get_status_display().lower()}: no survival roll."
    age, adult = character.age(world.year), play_of(world.campaign).survival.adult_age()
    if age < adult:
        return f"{character.display_name} is {age}: no survival rolls before {adult} (Survival, A5)."
    return f"{character.display_name} is exempt from the survival roll this turn by the campaign's optional rules."


@transaction.atomic
def survival_finish(
    *,
    campaign: Campaign | int,
    source: DiceSource | None = None,
    entered: Sequence[Sequence[int]] | None = None,
    pass_over: Mapping[str, Sequence[int]] | None = None,
    by: Actor,
) -> Campaign:
    """Close Survival once everyone has rolled; crowns whose monarch died pass to the heir (A7).

    ``pass_over`` maps a crown to the heirs its player passes over (Disputed Succession: a prisoner
    or a woman married away, or anyone under optional rule C). ``entered`` gives typed faces for
    every roll the succession makes (the Charisma loss, a regent baron's characteristics, a created
    relative's children), in the order asked for."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    return _finish(campaign, source=source, entered=entered, pass_over=pass_over, by=by)


def _finish(
    campaign: Campaign,
    *,
    source: DiceSource | None,
    entered: Sequence[Sequence[int]] | None,
    pass_over: Mapping[str, Sequence[int]] | None,
    by: Actor,
) -> Campaign:
    """:func:`survival_finish` once the policy has let ``by`` through (the campaign locked)."""
    require_step(campaign, Step.SURVIVAL)
    world = World(campaign, living_only=True)
    tables = load_tables(campaign)
    done = rolled_this_turn(campaign)
    missing = [d.character for d in survival_due(campaign, world, tables) if d.character.pk not in done]
    if missing:
        names = ", ".join(c.display_name for c in missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise RuleError(f"{len(missing)} still to roll for survival: {names}.", code="survival_pending")
    play = play_of(campaign).survival
    play.before_close(campaign)  # the EU monarch tables: every crown's monarch rolled, every throne filled
    box = DiceBox(campaign, source=source, by=by)
    chronicle = Chronicle(campaign)
    crown_the_heirs(campaign, world, box, chronicle, tables, entered=entered, pass_over=pass_over)
    play.after_successions(campaign, box, chronicle)  # BloodLine: the turn's Stability effects
    box.flush()
    chronicle.flush()
    set_step(campaign, Step.MARRIAGES)
    return campaign


def crown_the_heirs(
    campaign: Campaign,
    world: World,
    box: DiceBox,
    chronicle: Chronicle,
    tables: dict[str, Any],
    *,
    entered: Sequence[Sequence[int]] | None = None,
    pass_over: Mapping[str, Sequence[int]] | None = None,
) -> list[Reign]:
    """The succession of Finish Survival (A7): every crown whose monarch died passes to the heir,
    a dead regent is replaced, a dead holder's titles pass on. ``world``: loaded living only is
    enough when nobody died (it is loaded whole otherwise). Also run by a survival die corrected
    after Survival closed (``corrections``): a death it now causes is succeeded as here."""
    vacant = [
        r
        for r in world.open_reigns()
        if r.holder_id not in world.characters
        or (r.regent_id and r.regency_end_year is None and r.regent_id not in world.characters)
    ]
    titles_vacant = Title.objects.filter(campaign=campaign, holder__isnull=False).exclude(holder__status=Status.ALIVE)
    if vacant or pass_over or titles_vacant.exists():  # a succession walks the whole family tree
        world = World(campaign)
    new_reigns = resolve_successions(
        world, box, chronicle, tables, entered=[list(f) for f in entered] if entered else None, pass_over=pass_over
    )
    if not world.living_only:
        titles_pass_on(world, chronicle)
    accessions_lose_titles(world, new_reigns, chronicle)  # BloodLine: the titles that just passed to him too
    queens_accession_rebellions(world, new_reigns, chronicle)
    return new_reigns


@dataclass(frozen=True)
class SurvivalClosed:
    campaign: Campaign
    pass_over: dict[str, list[int]]  # the heirs passed over, per crown (no repeats, no empty lists)


@transaction.atomic
def survival_close(
    *,
    campaign: Campaign | int,
    pass_over: Mapping[str, Sequence[int]] | None = None,
    entered: Sequence[Sequence[int]] | None = None,
    source: DiceSource | None = None,
    invalid: RuleError | None = None,
    by: Actor,
) -> SurvivalClosed:
    """The GM's finish of Survival as every door asks for it: the heirs passed over are those given
    (``{}``: nobody) or, when ``pass_over`` is None, the choices the crowns' players recorded; then
    :func:`survival_finish`, and the recorded choices are forgotten.

    The policy is asked first, once, with ``by``: only then is ``invalid`` raised, what the door
    found wrong in the form it was sent (a page's typed dice), so that anyone but the GM hears the
    refusal (403) and never what his form got wrong."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "gm")
    if invalid is not None:
        raise invalid
    chosen = pass_over_choices(campaign) if pass_over is None else pass_over
    applied = {crown: list(dict.fromkeys(ids)) for crown, ids in chosen.items() if ids}
    done = _finish(campaign, source=source, entered=entered, pass_over=applied or None, by=by)
    pass_over_clear(done)
    return SurvivalClosed(done, applied)
