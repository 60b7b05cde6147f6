"""Correcting a die (issues 19, 34): the GM changes the faces of a roll of the current turn, at
whatever step the turn is now, and what the roll decided is derived again forward, or the
correction is refused naming exactly what depends on it.

The wrong roll stays in the log; the correction is a new roll (typed in, by the GM) that
``corrects`` it, with the same purpose, subjects, modifier and target. What can be corrected:

- a birth attempt: the child comes (its sex is then due) or goes (refused while anything depends
  on the child; its sex and characteristic rolls stay in the log, marked "withdrawn");
- a newborn's sex die: the child's sex (its name too, if it was the house's suggestion) and, in
  Blood Royale, the name of its first characteristic (Strength for a son, Guile for a daughter);
- a newborn's characteristic roll: the characteristic;
- a survival roll: the death recorded or reversed (refused when a contract or a child's year of
  birth followed from it), BloodLine's ill or good health derived again. After Survival closed,
  a death reversed takes back the succession it caused at Finish Survival (the heir's reign, its
  chronicle line; refused when that succession did more: a roll, a regent, a payment, a title);
  a death newly caused is succeeded at once as Finish Survival would (``survival.crown_the_heirs``).

After the roll's step closed, anything done at a later step of the turn that stands on the
characters concerned (a match made or wedded, a roll made for them) refuses the correction, named.
A roll of an earlier turn, and any other roll, is refused: undo back to it instead. One transaction; through the doors it runs
inside ``step_action``, so undoing the step takes a correction back with the rest.
docs/rulings.md, "Correcting a die"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.db import transaction
from django.db.models import ProtectedError, Q, QuerySet, RestrictedError
from django.db.models.deletion import Collector

from campaign import audit
from campaign.dice import PURPOSE_LABELS, DiceBox
from campaign.models import STEP_ORDER, Campaign, ChronicleEntry, Roll, RollSource, Step
from campaign.permissions import Actor, require
from campaign.steps import STEP_LABELS, Chronicle, Seen, load_tables, lock_campaign
from dynasties.models import (
    BirthAttempt,
    Character,
    ControlChange,
    Crown,
    Marriage,
    Modifier,
    Origin,
    Reign,
    RollSubject,
    Status,
    TitleHolding,
)
from dynasties.services.common import World
from dynasties.services.deaths import character_die
from dynasties.services.play_registry import play_of
from dynasties.services.succession_choices import CHOICE_KEY
from dynasties.services.survival import crown_the_heirs
from rules.dice import DiceSpec, TypedTotal
from rules.errors import InvalidDice, NotFound, RuleError
from rules.names import given_name as suggested_name

CORRECTABLE = {"birth": Step.BIRTHS, "sex": Step.BIRTHS, "characteristic": Step.BIRTHS, "survival": Step.SURVIVAL}
"""The purposes a correction re-derives, each with the step its rolls are made at."""

WITHDRAWN = "withdrawn birth: "
WITHDRAWN_REGENT = "withdrawn regent: "
"""Put before the outcome of a sex or characteristic roll whose birth a correction took away."""

DEATH_CAUSE = "failed survival roll"

DeathCheck = Callable[[Campaign, Character], list[str]]
_death_checks: list[DeathCheck] = []


def on_death_reversal(check: DeathCheck) -> None:
    """Register what an app above the dynasties says depends on a death of this step (contracts: a
    contract it ended): each sentence names one thing, and the reversal is refused."""
    if check not in _death_checks:
        _death_checks.append(check)


class CorrectionRefused(RuleError):
    """Something depends on what the roll decided, or the roll cannot be corrected."""

    code = "correction_refused"
    status = 409


@dataclass(frozen=True)
class Correction:
    corrected: Roll  # the wrong roll, kept in the log
    roll: Roll  # the correction
    what: str  # "Attempt 1 of Edward and Mary"
    changes: tuple[str, ...]  # what followed, in words ("now a child; roll its sex on Births")

    @property
    def message(self) -> str:
        head = f"{self.what}: {dice_text(self.corrected)} -> {dice_text(self.roll)}"
        return head + (": " + "; ".join(self.changes) if self.changes else "") + "."


def dice_text(roll: Roll) -> str:
    """The faces as a sum with the modifier and total: "3 + 4 = 7", "5 + 2 -1 = 6", "4", "total 7"."""
    text = " + ".join(str(f) for f in roll.faces)
    if roll.source == RollSource.TOTAL:
        return f"total {text}" + (f" {roll.modifier:+d} = {roll.total}" if roll.modifier else "")
    if roll.modifier:
        text += f" {roll.modifier:+d}"
    return text + (f" = {roll.total}" if len(roll.faces) > 1 or roll.modifier else "")


def _label(roll: Roll) -> str:
    label = PURPOSE_LABELS.get(roll.purpose, f"{roll.purpose.replace('_', ' ')} roll")
    return f"{label} ({roll.detail})" if roll.detail else label


def _index(step: str) -> int:
    return STEP_ORDER.index(Step(step)) if step in Step.values else len(STEP_ORDER)


def closed(campaign: Campaign, roll: Roll) -> bool:
    """Whether the roll's step has closed: the turn is at a later step now."""
    return _index(campaign.step) > _index(roll.step)


def _at(campaign: Campaign, step: str) -> str:
    return f"at {STEP_LABELS.get(step, step)} (turn {campaign.turn_number})"


def later_dependents(campaign: Campaign, step: str, people: Sequence[int]) -> list[str]:
    """What was done at a step after ``step`` this turn that stands on these characters: a match
    made, wedded or ended for one of them, a roll made for one of them. Each names one thing."""
    later = STEP_ORDER[_index(step) + 1 :]
    if not later or not people:
        return []
    year = campaign.current_year
    problems: list[str] = []
    touched = (
        Marriage.history.filter(campaign_id=campaign.pk, history_year=year, history_step__in=later)
        .filter(Q(husband_id__in=people) | Q(wife_id__in=people))
        .exclude(history_change_reason__startswith="Correct roll")
        .order_by("history_date")
        .values_list("id", "history_step", "history_type")
    )
    seen: dict[int, tuple[str, str]] = {}
    for pk, at, kind in touched:
        seen.setdefault(pk, (at, kind))
    matches = Marriage.objects.filter(pk__in=list(seen)).select_related("husband", "wife")
    for match in sorted(matches, key=lambda m: m.pk):
        at, kind = seen[match.pk]
        husband, wife = match.husband.display_name, match.wife.display_name
        if kind == "+" and match.wedding_year == year:
            what = f"{husband} married {wife}"
        elif kind == "+":
            what = f"{husband} was betrothed to {wife}"
        elif match.wedding_year == year:
            what = f"the wedding of {husband} and {wife}"
        else:
            what = f"the match of {husband} and {wife} changed"
        problems.append(f"{what} {_at(campaign, at)}; undo that first")
    rolls = (
        Roll.objects.filter(campaign=campaign, year=year, step__in=later, subjects__character_id__in=people)
        .distinct()
        .prefetch_related("subjects__character")
        .order_by("pk")
    )
    for r in rolls:
        names = " and ".join(s.character.display_name for s in r.subjects.all())
        problems.append(f"the {_label(r)} for {names} {_at(campaign, r.step)} (roll #{r.pk}); undo that first")
    return problems


def _refuse(head: str, problems: Sequence[str]) -> None:
    if problems:
        raise CorrectionRefused(f"{head}: " + "; ".join(problems) + ".", code="depends")


def refusal(campaign: Campaign, roll: Roll) -> RuleError | None:
    """Why this roll cannot be corrected now (None: it can), from the roll alone and its
    corrections (prefetch ``corrections`` for a list): the doors offer the form only where it can."""
    newer = max(roll.corrections.all(), key=lambda r: r.pk, default=None)
    if newer is not None:
        return CorrectionRefused(
            f"This roll was corrected already (roll #{newer.pk}, {dice_text(newer)}): correct that one instead.",
            code="already_corrected",
        )
    if roll.year != campaign.current_year or _index(roll.step) > _index(campaign.step):
        return CorrectionRefused(
            f"This roll belongs to {STEP_LABELS.get(roll.step, roll.step)} {roll.year}: only a roll of this turn "
            "can be corrected; undo back to it instead.",
            code="not_current_turn",
        )
    if CORRECTABLE.get(roll.purpose) != roll.step:
        kind = PURPOSE_LABELS.get(roll.purpose, f"{roll.purpose.replace('_', ' ')} roll")
        return RuleError(f"{kind[:1].upper()}{kind[1:]}s cannot be corrected; undo the step instead.", code="not_correctable")
    if not roll.faces:
        return RuleError(
            f"This {_label(roll)} was not rolled (its outcome was certain): there is no die to correct.", code="unchanged"
        )
    return None


def turn_rolls(campaign: Campaign) -> list[Roll]:
    """This turn's rolls the GM may still correct, in the order they were made (three queries,
    bounded by one turn's dice): the turn page lists them."""
    rolls = (
        Roll.objects.filter(campaign=campaign, year=campaign.current_year)
        .filter(reduce(or_, (Q(purpose=purpose, step=step) for purpose, step in CORRECTABLE.items())))
        .exclude(faces=[])
        .exclude(outcome__startswith="withdrawn")
        .filter(corrections__isnull=True)
        .prefetch_related("corrections", "subjects__character")
        .order_by("pk")
    )
    return [r for r in rolls if refusal(campaign, r) is None]


@transaction.atomic
def correct_roll(
    *,
    campaign: Campaign | int,
    roll: Roll | int,
    faces: Sequence[int] | None = None,
    total: int | None = None,
    by: Actor,
) -> Correction:
    """The GM's correction of a roll of the current turn: a new roll with ``faces`` (or typed as
    its ``total``) that corrects it, and what the roll decided derived again forward, at the steps
    since too (or a refusal naming what depends on it)."""
    campaign = lock_campaign(campaign, seen=Seen.ALL)
    require(by, campaign, "correct_roll")
    pk = roll.pk if isinstance(roll, Roll) else roll
    old = Roll.objects.filter(campaign=campaign, pk=pk).first()
    if old is None:
        raise NotFound(f"There is no roll #{pk} in {campaign.name}.")
    refused = refusal(campaign, old)
    if refused is not None:
        raise refused
    if (faces is None) == (total is None):
        raise InvalidDice(f"Give the faces of the {_label(old)}, or its total.", fields={"faces": "required"})
    subjects = list(RollSubject.objects.filter(roll=old).order_by("position", "pk").values_list("character_id", flat=True))
    box = DiceBox(campaign, by=audit.acting_user(by), step=old.step)  # in the log at the step it corrects
    new = box.roll(
        DiceSpec.parse(old.dice),
        purpose=old.purpose,
        characters=subjects,
        entered=TypedTotal(total) if total is not None else list(faces or []),
        modifier=old.modifier,
        target=old.target,
        detail=old.detail,
    )
    if list(new.faces) == list(old.faces):
        raise RuleError(f"The {_label(old)} already shows {dice_text(old)}: nothing to correct.", code="unchanged")
    new.effective_age, new.values_used, new.corrects = old.effective_age, old.values_used, old
    rederive = {"birth": _birth, "sex": _sex, "characteristic": _characteristic, "survival": _survival}[old.purpose]
    what, changes = rederive(campaign, old, new, subjects, box)
    return Correction(corrected=old, roll=new, what=what, changes=tuple(changes))


# --- Births ----------------------------------------------------------------------------------------


def _attempt_of(campaign: Campaign, roll: Roll) -> BirthAttempt:
    attempt = (
        BirthAttempt.objects.filter(campaign=campaign, roll=roll)
        .select_related("marriage__husband", "marriage__wife", "child")
        .first()
    )
    if attempt is None:
        raise RuleError(
            "This birth roll belongs to no birth attempt of this turn: undo the step instead.", code="not_correctable"
        )
    return attempt


def _couple(attempt: BirthAttempt) -> str:
    return f"{attempt.marriage.husband.display_name} and {attempt.marriage.wife.display_name}"


def _birth(campaign: Campaign, old: Roll, new: Roll, subjects: list[int], box: DiceBox) -> tuple[str, list[str]]:
    attempt = _attempt_of(campaign, old)
    what = f"Attempt {attempt.attempt} of {_couple(attempt)}"
    births = play_of(campaign).births
    success = births.succeeds(new.faces)
    new.outcome = "child" if success else "no child"
    if success != attempt.success:
        later = BirthAttempt.objects.filter(marriage=attempt.marriage, year=attempt.year, attempt__gt=attempt.attempt)
        if later.exists():
            raise CorrectionRefused(
                f"Attempt {later.order_by('attempt').first().attempt} of {_couple(attempt)} was made after this one and "  # type: ignore[union-attr]
                "depends on it: undo the step to change this attempt's result.",
                code="depends",
            )
    changes: list[str] = []
    fields = ["roll"]
    removed: Character | None = None
    if success and not attempt.success and closed(campaign, old):
        raise CorrectionRefused(
            f"Attempt {attempt.attempt} of {_couple(attempt)} would now give a child, whose sex and characteristics are "
            "rolled on Births, which has closed: undo back to Births instead.",
            code="depends",
        )
    if success and not attempt.success:
        earlier = BirthAttempt.objects.filter(
            marriage=attempt.marriage, year=attempt.year, attempt__lt=attempt.attempt, success=True
        ).count()
        attempt.success = True
        attempt.child_birth_year = births.child_birth_year(attempt.year, attempt=attempt.attempt, children_before=earlier)
        fields += ["success", "child_birth_year"]
        changes.append("now a child; roll its sex on Births")
    elif attempt.success and not success:
        if attempt.child is not None:
            removed = attempt.child
            _refuse_if_depended_on(campaign, attempt, removed)
            _withdraw(campaign, removed)
            attempt.child = None
            fields.append("child")
            changes.append(
                f"no child now: {removed.display_name} is removed (the sex and characteristic rolls stay in the log, withdrawn)"
            )
        else:
            changes.append("no child now")
        attempt.success, attempt.child_birth_year = False, None
        fields += ["success", "child_birth_year"]
    else:
        changes.append("still a child" if success else "still no child")
    box.flush()
    attempt.roll = new
    attempt.save(update_fields=fields)
    if removed is not None:
        removed.delete()  # its roll subjects go with it; the audit trail records the deletion
    return what, changes


def _refuse_if_depended_on(campaign: Campaign, attempt: BirthAttempt, child: Character) -> None:
    """Refuse to take the child away while anything but its own birth's rolls stands on it."""
    name = child.display_name
    problems: list[str] = []
    for purpose, detail in (
        RollSubject.objects.filter(character=child)
        .exclude(roll__step=Step.BIRTHS, roll__year=attempt.year, roll__purpose__in=["sex", "characteristic"])
        .values_list("roll__purpose", "roll__detail")
    ):
        label = PURPOSE_LABELS.get(purpose, f"{purpose.replace('_', ' ')} roll")
        problems.append(f"{name}'s {label}{f' ({detail})' if detail else ''} depends on this birth: correct or undo that first")
    for match in Marriage.objects.filter(Q(husband=child) | Q(wife=child)).select_related("husband", "wife"):
        other = match.wife if match.husband_id == child.pk else match.husband
        kind = "marriage" if match.wedding_year is not None else "betrothal"
        problems.append(f"{name}'s {kind} to {other.display_name} depends on this birth: undo that first")
    if not problems:
        collector = Collector(using=Character.objects.db)
        try:
            collector.collect([child])
        except (ProtectedError, RestrictedError) as exc:
            problems.append(f"{name} is held by other records ({exc.args[0]}): undo the step instead")
        else:
            held = sorted(
                {
                    str(model._meta.verbose_name)
                    for model, rows in collector.data.items()
                    if rows and model not in (Character, RollSubject)
                }
                | {
                    str(field.model._meta.verbose_name)
                    for (field, _), found in collector.field_updates.items()
                    if field.model is not BirthAttempt and any(f.exists() if hasattr(f, "exists") else f for f in found)
                }
            )
            if held:
                problems.append(f"{name} is named by other records ({', '.join(map(str, held))}): undo the step instead")
    if problems:
        raise CorrectionRefused(problems[0][:1].upper() + problems[0][1:] + ".", code="depends")


def _withdraw(campaign: Campaign, child: Character) -> None:
    """The child's own rolls stay in the log, marked withdrawn; its birth line goes."""
    rolls = list(Roll.objects.filter(subjects__character=child, step=Step.BIRTHS, year=campaign.current_year))
    for r in rolls:
        r.outcome = (WITHDRAWN + r.outcome)[:60]
    Roll.objects.bulk_update(rolls, ["outcome"])
    _birth_lines(campaign, child).delete()


def _birth_lines(campaign: Campaign, child: Character) -> QuerySet[ChronicleEntry]:
    return ChronicleEntry.objects.filter(
        campaign=campaign, year=campaign.current_year, step=Step.BIRTHS, kind="birth", data__character=child.pk
    )


def _newborn(campaign: Campaign, roll: Roll, subjects: list[int]) -> tuple[Character, BirthAttempt]:
    """The child of this turn's Births a sex or characteristic roll was made for."""
    attempt = (
        BirthAttempt.objects.filter(campaign=campaign, year=campaign.current_year, child_id__in=subjects)
        .select_related("child", "marriage__husband", "marriage__wife")
        .first()
    )
    if attempt is None or attempt.child is None:
        raise RuleError(f"This {_label(roll)} is for no child born this turn: undo the step instead.", code="not_correctable")
    return attempt.child, attempt


def _announce_again(campaign: Campaign, child: Character) -> None:
    """The birth line says again what the child is (its place in the chronicle kept)."""
    said = Chronicle(campaign)
    play_of(campaign).births.announce(said, child)
    _birth_lines(campaign, child).update(text=said.entries[0].text)


def _suggestion(campaign: Campaign, child: Character, sex: str) -> str:
    """The name the house would suggest for a child of this sex, its siblings' names taken (as
    the ruleset's births choose it: ``play_of(campaign).births.name_kin``)."""
    parents = [p for p in (child.father_id, child.mother_id) if p is not None]
    kin = Character.objects.filter(Q(father_id__in=parents) | Q(mother_id__in=parents), sex=sex).exclude(pk=child.pk)
    kin = play_of(campaign).births.name_kin(kin, child)  # BloodLine: the father's of any state; Blood Royale: the living
    used = set(kin.values_list("given_name", flat=True))
    crown = child.birth_dynasty.crown if child.birth_dynasty is not None else ""
    index = 0
    while suggested_name(crown, sex, index) in used and index < 12:
        index += 1
    return suggested_name(crown, sex, index)


def _sex(campaign: Campaign, old: Roll, new: Roll, subjects: list[int], box: DiceBox) -> tuple[str, list[str]]:
    child, _ = _newborn(campaign, old, subjects)
    what = f"The sex of {child.display_name}"
    births = play_of(campaign).births
    sex = births.sex_of(new.faces)
    new.outcome = "boy" if sex == "M" else "girl"
    box.flush()
    if sex == child.sex:
        return what, [f"still a {'son' if sex == 'M' else 'daughter'}"]
    if closed(campaign, old) and _index(campaign.step) > _index(Step.SURVIVAL):
        crowned = Reign.objects.filter(campaign=campaign, start_year=campaign.current_year).select_related("holder")
        _refuse(
            f"The sex of {child.display_name} cannot change now",
            [
                f"the line of succession that made {r.holder.display_name} ruler of {r.crown} "
                f"{_at(campaign, Step.SURVIVAL)} counted it; undo back to Births instead"
                for r in crowned.order_by("pk")
            ],
        )
    changes = [f"now a {'son' if sex == 'M' else 'daughter'}"]
    was_suggested = child.given_name == _suggestion(campaign, child, child.sex)
    fields = ["sex"]
    if was_suggested:
        child.given_name = _suggestion(campaign, child, sex)
        fields.append("given_name")
        changes.append(f"named {child.given_name} (the house's suggestion for a {'son' if sex == 'M' else 'daughter'})")
    else:
        changes.append(f"the name {child.given_name} stays (it was not the house's suggestion)")
    renamed = births.renamed_characteristic(child.sex, sex)  # Blood Royale: a son's Strength is a daughter's Guile
    if renamed is not None and renamed[0] in child.characteristics:
        before, after = renamed
        value = child.characteristics.pop(before, 0)
        child.characteristics = {after: value, **child.characteristics}
        fields.append("characteristics")
        first = Roll.objects.filter(
            subjects__character=child, purpose="characteristic", step=Step.BIRTHS, year=campaign.current_year, detail=before
        )
        for r in first:
            r.detail, r.outcome = after, f"{after} {value:+d}"
            r.save(update_fields=["detail", "outcome"])
        changes.append(f"{before.capitalize()} {value:+d} is now {after.capitalize()} {value:+d}")
    child.sex = sex
    audit.bulk_update(Character, [child], fields)
    _announce_again(campaign, child)
    return what, changes


def _characteristic(campaign: Campaign, old: Roll, new: Roll, subjects: list[int], box: DiceBox) -> tuple[str, list[str]]:
    child, _ = _newborn(campaign, old, subjects)
    trait = old.detail
    what = f"{child.display_name}'s {trait}"
    was = child.characteristics.get(trait)
    read = play_of(campaign).births.trait_value(campaign, trait, new, was)
    value, shown, was_shown = read.value, read.shown, read.was_shown
    new.outcome = read.outcome
    box.flush()
    if value == was:
        return what, [f"still {shown}"]
    child.characteristics = {**child.characteristics, trait: value}
    audit.bulk_update(Character, [child], ["characteristics"])
    _announce_again(campaign, child)
    return what, [f"now {shown} (was {was_shown})"]


# --- Survival --------------------------------------------------------------------------------------


def _survival(campaign: Campaign, old: Roll, new: Roll, subjects: list[int], box: DiceBox) -> tuple[str, list[str]]:
    character = Character.objects.select_related("controlled_by").get(pk=subjects[0])
    name = character.display_name
    what = f"{name}'s survival roll"
    year = campaign.current_year
    play = play_of(campaign).survival
    before, now = play.reading(campaign, character, old), play.reading(campaign, character, new)
    new.outcome = now.outcome
    died, dies, years_before, years_after = before.dies, now.dies, before.years, now.years
    box.flush()
    changes: list[str] = []
    chronicle = Chronicle(campaign)
    after = closed(campaign, old)  # Survival closed: the succession ran at Finish Survival
    if died and not dies:
        depends = _revival_dependents(campaign, character) if after else []  # read before the succession goes
        _refuse(f"{name}'s death cannot be reversed", depends)
        undone = _succession_undo(campaign, character) if after else []
        _revive(campaign, character)
        changes.append(f"{name} survives now: the death is reversed")
        changes += undone
    if years_before != years_after and not dies:
        _health(campaign, character, old, years_before, years_after, new.outcome, chronicle)
        changes.append(f"{new.outcome}; effective age now {character.effective_age(year)}")
    if dies and not died:
        _refuse(f"{name}'s death cannot be recorded now", later_dependents(campaign, old.step, [character.pk]))
        if years_before:
            _health(campaign, character, old, years_before, 0, "", chronicle)
        chronicle.add(
            "death", play.death_line(character, year, old, new), character=character.pk, dynasty=character.controlled_by_id
        )
        character_die(campaign=campaign, character_ids=[character.pk], cause=DEATH_CAUSE, chronicle=chronicle)
        if not after:
            changes.append(
                f"{name} dies now" + ("; the succession is decided when Survival closes" if _reigns(character) else "")
            )
        else:  # Finish Survival has crowned the heirs: this death's heir is crowned as it would have been
            changes.append(f"{name} dies now")
            crown_the_heirs(campaign, World(campaign, living_only=True), box, chronicle, load_tables(campaign))
            box.flush()
            changes += [e.text.rstrip(".") for e in chronicle.entries if e.kind in ("succession", "regency")]
    if not changes:
        changes.append(f"still {new.outcome}" if new.outcome != "died" else "still dies")
    for entry in chronicle.entries:  # the turn's chronicle reads as if the die had been right at its step
        entry.step = old.step
    chronicle.flush()
    return what, changes


def _revival_dependents(campaign: Campaign, character: Character) -> list[str]:
    """After Survival closed: what was done at a later step of the turn with the people a reversed
    death concerns (him, the spouses his death widowed, the heirs it crowned)."""
    year = campaign.current_year
    people = {character.pk}
    for match in Marriage.objects.filter(campaign=campaign, ended_year=year).filter(Q(husband=character) | Q(wife=character)):
        people.add(match.wife_id if match.husband_id == character.pk else match.husband_id)
    for reign in Reign.objects.filter(campaign=campaign, holder=character, end_year=year):
        people.update(
            Reign.objects.filter(campaign=campaign, crown=reign.crown, start_year=year, pk__gt=reign.pk).values_list(
                "holder_id", flat=True
            )
        )
    # a regent who died is replaced at Finish Survival ("X becomes regent for Y", no crown named):
    # the reigns carry no trail of their regents, so any such new regent of his house refuses it
    replaced = ChronicleEntry.objects.filter(campaign=campaign, year=year, step=Step.SURVIVAL, kind="regency").exclude(
        data__has_key="crown"
    )
    regents = {line.data.get("character"): line.text for line in replaced if isinstance(line.data, dict)}
    house_reigns = Reign.objects.filter(
        campaign=campaign, regent_id__in=[pk for pk in regents if pk], holder__controlled_by_id=character.controlled_by_id
    )
    problems = [
        f"if he was the regent, '{regents[r.regent_id].rstrip('.')}' at Finish Survival follows from his death; "
        "undo back to Survival instead"
        for r in house_reigns
        if character.controlled_by_id is not None
    ]
    problems += [
        f"his title {h.title.name} passed on at Finish Survival; undo back to Survival instead"
        for h in TitleHolding.objects.filter(title__campaign=campaign, holder=character, end_year=year).select_related("title")
    ]
    return problems + later_dependents(campaign, Step.SURVIVAL, sorted(people))


HANDLED = ("death", "health", "birth", "betrothal_end", "succession")
"""The kinds of the turn's Survival lines a reversed death takes back itself (or refuses on)."""


def _succession_undo(campaign: Campaign, character: Character) -> list[str]:
    """After Survival closed: the succession a reversed death caused at Finish Survival taken
    back (the heir's reign deleted, the late monarch's reopened, its chronicle line removed), or
    refused when it did more than crown the heir (named: a roll, a regent, a payment, a title...)."""
    year = campaign.current_year
    name = character.display_name
    ended = list(Reign.objects.filter(campaign=campaign, holder=character, end_year=year).order_by("pk"))
    if not ended:
        return []
    crowns = [r.crown for r in ended]
    successors = list(
        Reign.objects.filter(campaign=campaign, crown__in=crowns, start_year=year)
        .exclude(pk__in=[r.pk for r in ended])
        .select_related("holder", "regent")
        .order_by("pk")
    )
    people = {character.pk} | {r.holder_id for r in successors} | {r.regent_id for r in successors if r.regent_id}
    problems: list[str] = []
    lines = ChronicleEntry.objects.filter(campaign=campaign, year=year, step=Step.SURVIVAL).exclude(kind__in=HANDLED)
    # a regent named for the heir goes with the heir's reign: one chosen from the family, or a baron
    # created for it ('characteristic die rolls are made for him': they stay in the log, withdrawn)
    barons = {
        r.regent.pk: r.regent
        for r in successors
        if r.regent is not None and r.regent.origin == Origin.BARON and r.regent.birth_year <= year
    }
    barons = {
        pk: baron
        for pk, baron in barons.items()
        if lines.filter(kind="created", data__character=pk).exists()
        and not Reign.objects.filter(regent_id=pk).exclude(pk__in=[r.pk for r in successors]).exists()
    }
    removed: list[int] = []
    for line in lines.order_by("pk"):
        data = line.data or {}
        if (line.kind == "regency" and data.get("crown") in crowns) or (
            line.kind == "created" and data.get("character") in barons
        ):
            removed.append(line.pk)
        elif (
            data.get("character") in people
            or data.get("late") in people
            or data.get("crown") in crowns
            or any(f" of {crown}" in line.text for crown in crowns)
        ):
            problems.append(
                f"the succession also wrote '{line.text.rstrip('.')}' at Finish Survival; undo back to Survival instead"
            )
    for reign in successors:
        if Reign.objects.filter(campaign=campaign, crown=reign.crown, start_year__gte=year, pk__gt=reign.pk).exists():
            problems.append(f"{reign.crown} passed on again after {reign.holder.display_name}; undo back to Survival instead")
    rolled = (
        Roll.objects.filter(campaign=campaign, year=year, step=Step.SURVIVAL, subjects__character_id__in=people)
        .exclude(purpose="survival")
        .exclude(purpose="characteristic", subjects__character_id__in=list(barons))
        .distinct()
        .order_by("pk")
    )
    problems += [f"the {_label(r)} (roll #{r.pk}) was made for the succession; undo back to Survival instead" for r in rolled]
    moved = (
        ControlChange.objects.filter(campaign=campaign, year=year, step=Step.SURVIVAL)
        .filter(Q(character_id__in=people) | Q(crown__name__in=crowns))
        .select_related("character", "crown", "to_dynasty")
        .order_by("pk")
    )
    for change in moved:
        whom = change.character.display_name if change.character else f"the crown of {change.crown.name if change.crown else '?'}"
        to = change.to_dynasty.name if change.to_dynasty else "nobody"
        problems.append(f"{whom} passed to the house of {to} with the succession; undo back to Survival instead")
    modifiers = Modifier.objects.filter(campaign=campaign, character_id__in=people).filter(Q(start_year=year) | Q(end_year=year))
    problems += [f"the modifier '{m.reason}' changed with the succession; undo back to Survival instead" for m in modifiers]
    _refuse(f"{name}'s death cannot be reversed", problems)
    changes: list[str] = []
    for reign in successors:
        heir = reign.holder
        try:
            reign.delete()
        except (ProtectedError, RestrictedError) as exc:
            _refuse(
                f"{name}'s death cannot be reversed", [f"{heir.display_name}'s reign is held by other records ({exc.args[0]})"]
            )
        changes.append(
            f"{heir.display_name} no longer reigns over {reign.crown}"
            + (f" (nor {reign.regent.display_name} as regent)" if reign.regent is not None else "")
        )
    for reign in ended:
        reign.end_year = None
        reign.save(update_fields=["end_year"])
        changes.append(f"{name} reigns over {reign.crown} again")
    ChronicleEntry.objects.filter(
        campaign=campaign, year=year, step=Step.SURVIVAL, kind="succession", data__late=character.pk
    ).delete()
    ChronicleEntry.objects.filter(pk__in=removed).delete()
    for pk, baron in barons.items():
        rolls = list(Roll.objects.filter(campaign=campaign, year=year, purpose="characteristic", subjects__character_id=pk))
        for r in rolls:
            r.outcome = (WITHDRAWN_REGENT + r.outcome)[:60]
        Roll.objects.bulk_update(rolls, ["outcome"])
        try:
            baron.delete()  # his roll subjects go with him; the audit trail records the deletion
        except (ProtectedError, RestrictedError) as exc:
            held = f"{baron.display_name}, created as regent, is held by other records ({exc.args[0]})"
            _refuse(f"{name}'s death cannot be reversed", [held])
        changes.append(f"{baron.display_name}, created as regent, is removed (his rolls stay in the log, withdrawn)")
    return changes


def _reigns(character: Character) -> bool:
    return Reign.objects.filter(holder=character, end_year__isnull=True).exists()


def _health(
    campaign: Campaign, character: Character, old: Roll, years_before: int, years_after: int, label: str, chronicle: Chronicle
) -> None:
    """BloodLine: the effective years of the old outcome taken back, the new one's added (its line
    in the chronicle written again)."""
    year = campaign.current_year
    age = character.age(year)
    if old.effective_age:  # the offset when the roll was made, exactly
        offset = old.effective_age - age
    elif age + character.effective_age_offset > 0:
        offset = character.effective_age_offset - years_before
    else:  # held at 0 by good health: any offset reaching 0 reads the same
        offset = -age
    offset += years_after
    character.effective_age_offset = max(offset, -age)
    audit.bulk_update(Character, [character], ["effective_age_offset"])
    ChronicleEntry.objects.filter(
        campaign=campaign, year=year, step=Step.SURVIVAL, kind="health", data__character=character.pk
    ).delete()
    if years_after:
        chronicle.add(
            "health",
            f"{character.display_name}: {label}; effective age now {character.effective_age(year)}.",
            character=character.pk,
        )


DEATH_ENDS = {"M": "death of the husband", "F": "death of the wife"}
BETROTHAL_VOID = "betrothal void: death before the wedding"


def _revive(campaign: Campaign, character: Character, *, problems: Sequence[str] = ()) -> None:
    """A death of this step reversed, or refused when something beyond the family followed from it."""
    year = campaign.current_year
    name = character.display_name
    children = list(Character.objects.filter(Q(father=character) | Q(mother=character)).values_list("pk", flat=True))
    moved = ChronicleEntry.objects.filter(
        campaign=campaign, year=year, step=Step.SURVIVAL, kind="birth", data__character__in=children
    ).first()
    problems = [*problems, *([f"{moved.text.split(':')[0]} because of this death: undo the step instead"] if moved else [])]
    for check in _death_checks:
        problems += check(campaign, character)
    if problems:
        raise CorrectionRefused(f"{name}'s death cannot be reversed: " + "; ".join(problems) + ".", code="depends")
    history = Character.history.filter(id=character.pk, status=Status.ALIVE).order_by("-history_date", "-history_id")
    piece = history.values_list("prince_piece", flat=True).first() or ""
    audit.update(
        Character.objects.filter(pk=character.pk), status=Status.ALIVE, death_year=None, death_cause="", prince_piece=piece
    )
    character.status, character.death_year, character.death_cause, character.prince_piece = Status.ALIVE, None, "", piece
    ended = Marriage.objects.filter(campaign=campaign, ended_year=year).filter(Q(husband=character) | Q(wife=character))
    reopened: list[Marriage] = []
    for match in ended.select_related("husband", "wife"):
        other = match.wife if match.husband_id == character.pk else match.husband
        mine = DEATH_ENDS[character.sex] if match.wedding_year is not None else BETROTHAL_VOID
        if match.end_cause != mine:
            continue
        if other.status == Status.DEAD and other.death_year == year and other.death_cause == DEATH_CAUSE:
            if match.wedding_year is None:
                continue  # void all the same: the other died too
            match.end_cause = DEATH_ENDS[other.sex]
        else:
            match.ended_year, match.end_cause = None, ""
            if match.wedding_year is None:
                ChronicleEntry.objects.filter(
                    campaign=campaign, year=year, step=Step.SURVIVAL, kind="betrothal_end", data__marriage=match.pk
                ).delete()
        reopened.append(match)
    audit.bulk_update(Marriage, reopened, ["ended_year", "end_cause"])
    ChronicleEntry.objects.filter(
        campaign=campaign, year=year, step=Step.SURVIVAL, kind="death", data__character=character.pk
    ).delete()
    crowns = Reign.objects.filter(campaign=campaign, holder=character, end_year__isnull=True).values_list("crown", flat=True)
    changed = []
    for record in Crown.objects.filter(campaign=campaign, name__in=list(crowns)):
        if CHOICE_KEY in (record.state or {}):
            record.state = {k: v for k, v in record.state.items() if k != CHOICE_KEY}
            changed.append(record)
    Crown.objects.bulk_update(changed, ["state"])
