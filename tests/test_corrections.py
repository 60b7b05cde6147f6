"""Correcting a die (issue 19), through the service: the new roll, what it re-derives, the refusals."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from campaign.models import Campaign, ChronicleEntry, Roll, RollSource
from campaign.permissions import Forbidden
from campaign.steps import load_tables
from campaign.undo import new_action_key, redo, step_action, undo_step
from contracts.models import Contract, ContractKind, ContractState
from dynasties.models import BirthAttempt, Character, Marriage, Reign, RollSubject, Status
from dynasties.services import births_attempt, births_finish, births_sex, campaign_create, survival_roll
from dynasties.services.common import World
from dynasties.services.corrections import WITHDRAWN, correct_roll
from dynasties.services.marriages import marriage_arrange
from dynasties.services.succession_choices import pass_over_choices, pass_over_choose
from dynasties.services.survival import survival_close, survival_due
from operations.exchange import campaign_export, campaign_import
from rules import bloodline as bl
from rules.dice import RandomSource
from rules.errors import InvalidDice, NotFound, RuleError

pytestmark = pytest.mark.django_db


def couple(campaign, crown="England") -> Marriage:
    return Marriage.objects.select_related("husband", "wife").get(
        campaign=campaign, husband__controlled_by__crown=crown, ended_year__isnull=True
    )


def births_line(campaign, child) -> ChronicleEntry | None:
    return ChronicleEntry.objects.filter(campaign=campaign, kind="birth", data__character=child.pk).first()


# --- Births ----------------------------------------------------------------------------------------


def test_a_failed_attempt_corrected_to_a_success_waits_for_its_sex(campaign, gm):
    match = couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[2, 3], by=gm)
    assert not attempt.success
    wrong = attempt.roll
    done = correct_roll(campaign=campaign, roll=wrong, faces=[6, 6], by=gm)
    attempt.refresh_from_db()
    assert attempt.success and attempt.child_birth_year == campaign.current_year and attempt.roll == done.roll
    assert done.roll.corrects == wrong and done.roll.source == RollSource.ENTERED and done.roll.entered_by == gm
    assert done.roll.outcome == "child" and list(done.roll.characters.all()) == [match.husband, match.wife]
    assert Roll.objects.filter(pk=wrong.pk, outcome="no child").exists()  # the wrong entry stays in the log
    assert done.message == (
        f"Attempt 1 of {match.husband.display_name} and {match.wife.display_name}: 2 + 3 = 5 -> 6 + 6 = 12: "
        "now a child; roll its sex on Births."
    )
    child = births_sex(campaign=campaign, attempt=attempt, faces=[2], by=gm)  # the sex roll is due, and made
    assert child.father == match.husband


def test_a_success_corrected_to_a_failure_removes_the_child_and_keeps_its_rolls(campaign, gm):
    match = couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[6, 6], by=gm)
    child = births_sex(campaign=campaign, attempt=attempt, faces=[2], characteristic_faces=[[3, 3, 3]] * 3, by=gm)
    own = list(Roll.objects.filter(subjects__character=child).values_list("pk", flat=True))
    assert len(own) == 4 and births_line(campaign, child) is not None
    done = correct_roll(campaign=campaign, roll=attempt.roll, faces=[1, 2], by=gm)
    attempt.refresh_from_db()
    assert not attempt.success and attempt.child is None and attempt.child_birth_year is None
    assert not Character.objects.filter(pk=child.pk).exists() and births_line(campaign, child) is None
    assert all(o.startswith(WITHDRAWN) for o in Roll.objects.filter(pk__in=own).values_list("outcome", flat=True))
    assert f"no child now: {child.display_name} is removed" in done.message
    births_finish(campaign=campaign, by=gm)  # nothing waits for a sex roll


def test_a_success_corrected_to_a_failure_is_refused_while_something_depends_on_the_child(campaign, gm):
    match = couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[6, 6], by=gm)
    child = births_sex(campaign=campaign, attempt=attempt, faces=[4], by=gm)  # a daughter
    groom = Character.objects.filter(campaign=campaign, sex="M", status=Status.ALIVE, marriages_as_husband__isnull=True).first()
    Marriage.objects.create(campaign=campaign, husband=groom, wife=child, arranged_year=campaign.current_year)
    with pytest.raises(RuleError, match=f"{child.display_name}'s betrothal to {groom.display_name} depends on this birth"):
        correct_roll(campaign=campaign, roll=attempt.roll, faces=[1, 1], by=gm)
    assert Character.objects.filter(pk=child.pk).exists() and not Roll.objects.filter(corrects=attempt.roll).exists()


def test_an_outcome_changed_under_a_later_attempt_is_refused(campaign, gm):
    match = couple(campaign)
    first = births_attempt(campaign=campaign, marriage=match, faces=[1, 1], by=gm)
    births_attempt(campaign=campaign, marriage=match, faces=[1, 1], by=gm)
    with pytest.raises(RuleError, match=r"Attempt 2 of .* was made after this one") as why:
        correct_roll(campaign=campaign, roll=first.roll, faces=[6, 6], by=gm)
    assert why.value.code == "depends" and why.value.status == 409
    same = correct_roll(campaign=campaign, roll=first.roll, faces=[2, 1], by=gm)  # still no child: allowed
    assert same.changes == ("still no child",)


def test_the_sex_die_corrected_renames_a_suggested_name_and_its_first_characteristic(campaign, gm):
    match = couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[6, 6], by=gm)
    son = births_sex(campaign=campaign, attempt=attempt, faces=[1], characteristic_faces=[[6, 6, 6], [3, 3, 3], [4, 4, 4]], by=gm)
    strength = son.characteristics["strength"]
    sex_roll = Roll.objects.get(subjects__character=son, purpose="sex")
    done = correct_roll(campaign=campaign, roll=sex_roll, faces=[5], by=gm)
    daughter = Character.objects.get(pk=son.pk)
    assert daughter.sex == "F" and daughter.given_name != son.given_name
    assert daughter.characteristics == {
        "guile": strength,
        "constitution": son.characteristics["constitution"],
        "charisma": son.characteristics["charisma"],
    }
    assert Roll.objects.filter(subjects__character=son, purpose="characteristic", detail="guile").count() == 1
    assert births_line(campaign, daughter).text.startswith(f"A daughter, {daughter.display_name}, is born")
    assert f"named {daughter.given_name} (the house's suggestion for a daughter)" in done.message
    assert f"Strength {strength:+d} is now Guile {strength:+d}" in done.message


def test_a_name_typed_in_stays_when_the_sex_is_corrected(campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[6, 6], by=gm)
    child = births_sex(campaign=campaign, attempt=attempt, faces=[1], given_name="Philippe", by=gm)
    done = correct_roll(campaign=campaign, roll=Roll.objects.get(subjects__character=child, purpose="sex"), faces=[6], by=gm)
    child.refresh_from_db()
    assert child.sex == "F" and child.given_name == "Philippe"
    assert "the name Philippe stays" in done.message


def test_a_characteristic_roll_corrected_recomputes_the_characteristic(campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[6, 6], by=gm)
    child = births_sex(campaign=campaign, attempt=attempt, faces=[1], characteristic_faces=[[3, 3, 3]] * 3, by=gm)
    charisma = Roll.objects.get(subjects__character=child, purpose="characteristic", detail="charisma")
    done = correct_roll(campaign=campaign, roll=charisma, faces=[6, 6, 6], by=gm)
    child.refresh_from_db()
    assert child.characteristics["charisma"] > 0 and done.roll.outcome == f"charisma {child.characteristics['charisma']:+d}"
    assert f"Charisma {child.characteristics['charisma']:+d}" in births_line(campaign, child).text
    assert done.message.endswith(f"now Charisma {child.characteristics['charisma']:+d} (was +0).")


# --- Survival --------------------------------------------------------------------------------------


def _survival(campaign, gm):
    births_finish(campaign=campaign, by=gm)
    campaign.refresh_from_db()
    due = survival_due(campaign, World(campaign, living_only=True), load_tables(campaign))
    return {d.character.pk: d for d in due}


def _dies_on_snake_eyes(due):
    """A character for whom 1 + 1 fails and 6 + 6 passes, married (his marriage ends at his death)."""
    for d in due.values():
        if (
            2 + d.modifier < d.need <= 12 + d.modifier
            and Marriage.objects.filter(husband=d.character, ended_year__isnull=True, wedding_year__isnull=False).exists()
        ):
            return d
    raise AssertionError("no such character")


def test_a_death_corrected_away_is_reversed(campaign, gm):
    d = _dies_on_snake_eyes(_survival(campaign, gm))
    king = d.character
    survival_roll(campaign=campaign, characters=[king.pk], faces={king.pk: [1, 1]}, by=gm)
    king.refresh_from_db()
    assert king.status == Status.DEAD
    match = Marriage.objects.get(husband=king, ended_year=campaign.current_year)
    wrong = Roll.objects.get(subjects__character=king, purpose="survival")
    done = correct_roll(campaign=campaign, roll=wrong, faces=[6, 6], by=gm)
    king.refresh_from_db()
    match.refresh_from_db()
    assert king.status == Status.ALIVE and king.death_year is None and king.death_cause == ""
    assert match.ended_year is None and match.end_cause == ""
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="death", data__character=king.pk).exists()
    assert done.roll.outcome == "survived" and "the death is reversed" in done.message


def test_a_kings_death_reversed_forgets_the_succession_chosen_for_his_crown(campaign, gm):
    england = couple(campaign).husband  # the King of England
    births_finish(campaign=campaign, by=gm)
    survival_roll(campaign=campaign, characters=[england.pk], faces={england.pk: [1, 1]}, by=gm)
    england.refresh_from_db()
    assert england.status == Status.DEAD  # 2 - ... fails what he needs
    pass_over_choose(campaign=campaign, crown="England", heirs=[], limit=5, by=gm)
    assert "England" in pass_over_choices(campaign)
    correct_roll(campaign=campaign, roll=Roll.objects.get(subjects__character=england, purpose="survival"), faces=[6, 6], by=gm)
    assert "England" not in pass_over_choices(campaign)


def test_a_death_that_ended_a_contract_is_not_reversed(campaign, gm):
    d = _dies_on_snake_eyes(_survival(campaign, gm))
    match = Marriage.objects.get(husband=d.character, ended_year__isnull=True)
    pact = Contract.objects.create(
        campaign=campaign,
        kind=ContractKind.MARRIAGE,
        title="The Dover match",
        marriage=match,
        start_year=1300,
        state=ContractState.DRAFT,
    )
    survival_roll(campaign=campaign, characters=[d.character.pk], faces={d.character.pk: [1, 1]}, by=gm)
    pact.refresh_from_db()
    assert pact.state == ContractState.ENDED
    with pytest.raises(
        RuleError, match=f"{d.character.display_name}'s death cannot be reversed: it ended the contract 'The Dover match'"
    ) as why:
        correct_roll(
            campaign=campaign, roll=Roll.objects.get(subjects__character=d.character, purpose="survival"), faces=[6, 6], by=gm
        )
    assert why.value.code == "depends" and Character.objects.get(pk=d.character.pk).status == Status.DEAD


def test_a_survival_corrected_to_a_death_records_it(campaign, gm):
    d = _dies_on_snake_eyes(_survival(campaign, gm))
    survival_roll(campaign=campaign, characters=[d.character.pk], faces={d.character.pk: [6, 6]}, by=gm)
    done = correct_roll(
        campaign=campaign, roll=Roll.objects.get(subjects__character=d.character, purpose="survival"), faces=[1, 1], by=gm
    )
    dead = Character.objects.get(pk=d.character.pk)
    assert dead.status == Status.DEAD and dead.death_year == campaign.current_year and dead.death_cause == "failed survival roll"
    assert Marriage.objects.get(husband=dead, ended_year=campaign.current_year).end_cause == "death of the husband"
    line = ChronicleEntry.objects.get(campaign=campaign, kind="death", data__character=dead.pk)
    assert f"rolled 2{d.modifier:+d}, needed {d.need}" in line.text
    assert done.roll.outcome == "died" and f"{dead.display_name} dies now" in done.message


# --- after the step closed (issue 34) -------------------------------------------------------------


def _act(campaign, gm, label, action):
    return step_action(campaign=campaign, key=new_action_key(), label=label, by=gm, action=action)


def _to_marriages(campaign, gm, faces):
    """Births closed, everyone due rolls (6 + 6 unless ``faces`` says otherwise), Survival finished
    with nobody passed over: the turn is at Marriages. Each as a step action, as the doors run it."""
    due = _survival(campaign, gm)
    typed = {pk: faces.get(pk, [6, 6]) for pk in due}
    _act(campaign, gm, "Survival", lambda c: survival_roll(campaign=c, characters=list(typed), faces=typed, by=gm))
    _act(campaign, gm, "Finish Survival", lambda c: survival_close(campaign=c, pass_over={}, by=gm))
    campaign.refresh_from_db()
    assert campaign.step == "marriages"
    return due


def _reign(campaign, crown):
    return Reign.objects.select_related("holder").get(campaign=campaign, crown=crown, end_year__isnull=True)


def test_a_kings_death_corrected_after_marriages_began_takes_back_the_succession(campaign, gm):
    """'A die found wrong after its step closed ... its consequences re-derived forward (a death
    reversed with the succession it caused)' (issue 34)."""
    king = couple(campaign).husband  # the King of England
    queen = couple(campaign).wife
    before = _reign(campaign, "England")
    _to_marriages(campaign, gm, {king.pk: [1, 1]})
    heir = _reign(campaign, "England").holder
    assert heir.pk != king.pk and Character.objects.get(pk=king.pk).status == Status.DEAD
    line = ChronicleEntry.objects.get(campaign=campaign, kind="succession", data__late=king.pk)
    wrong = Roll.objects.get(subjects__character=king, purpose="survival")
    done = _act(campaign, gm, "Correct roll", lambda c: correct_roll(campaign=c, roll=wrong, faces=[6, 6], by=gm))
    king.refresh_from_db()
    assert king.status == Status.ALIVE and king.death_year is None
    assert _reign(campaign, "England").pk == before.pk  # his reign goes on, the heir's is gone
    assert not Reign.objects.filter(campaign=campaign, crown="England", holder=heir).exists()
    assert not ChronicleEntry.objects.filter(pk=line.pk).exists()
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="death", data__character=king.pk).exists()
    assert Marriage.objects.get(husband=king, wife=queen).ended_year is None
    assert done.roll.step == "survival" and done.roll.outcome == "survived"
    assert f"{heir.display_name} no longer reigns over England" in done.message
    assert f"{king.display_name} reigns over England again" in done.message
    assert Campaign.objects.get(pk=campaign.pk).step == "marriages"  # the turn stays where it is
    undo_step(campaign=campaign, key=new_action_key(), by=gm)  # the correction is undone with Marriages
    assert Character.objects.get(pk=king.pk).status == Status.DEAD and _reign(campaign, "England").holder_id == heir.pk


def test_a_reversal_is_refused_naming_the_match_made_since(campaign, gm):
    king = couple(campaign).husband
    _to_marriages(campaign, gm, {king.pk: [1, 1]})
    heir = _reign(campaign, "England").holder
    bride = (
        Character.objects.filter(campaign=campaign, sex="F", status=Status.ALIVE, marriages_as_wife__isnull=True)
        .exclude(controlled_by=heir.controlled_by)
        .order_by("birth_year")
        .last()
    )
    _act(campaign, gm, "Arrange", lambda c: marriage_arrange(campaign=c, husband=heir, wife=bride, by=gm))
    wrong = Roll.objects.get(subjects__character=king, purpose="survival")
    with pytest.raises(RuleError) as why:
        _act(campaign, gm, "Correct roll", lambda c: correct_roll(campaign=c, roll=wrong, faces=[6, 6], by=gm))
    assert why.value.code == "depends" and why.value.status == 409
    assert why.value.message == (
        f"{king.display_name}'s death cannot be reversed: {heir.display_name} was betrothed to {bride.display_name} "
        f"at Marriages (turn {campaign.turn_number}); undo that first."
    )
    assert Character.objects.get(pk=king.pk).status == Status.DEAD and _reign(campaign, "England").holder_id == heir.pk
    assert not Roll.objects.filter(corrects=wrong).exists()


def test_a_reversal_is_refused_when_the_succession_did_more_than_crown_the_heir(campaign, gm):
    """What Finish Survival wrote about the crown besides the accession (here a line as a pass-over
    writes it) cannot be guessed back: refused, quoting it."""
    king = couple(campaign).husband
    _to_marriages(campaign, gm, {king.pk: [1, 1]})
    ChronicleEntry.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step="survival",
        kind="pass_over",
        text="X is passed over.",
        data={"crown": "England"},
    )
    wrong = Roll.objects.get(subjects__character=king, purpose="survival")
    with pytest.raises(RuleError) as why:
        _act(campaign, gm, "Correct roll", lambda c: correct_roll(campaign=c, roll=wrong, faces=[6, 6], by=gm))
    assert why.value.message == (
        f"{king.display_name}'s death cannot be reversed: the succession also wrote 'X is passed over' at Finish Survival; "
        "undo back to Survival instead."
    )
    assert Character.objects.get(pk=king.pk).status == Status.DEAD


def test_a_death_caused_after_survival_closed_crowns_the_heir_as_finish_survival_would(campaign, gm):
    king = couple(campaign).husband
    _to_marriages(campaign, gm, {})
    assert _reign(campaign, "England").holder_id == king.pk
    wrong = Roll.objects.get(subjects__character=king, purpose="survival")
    done = _act(campaign, gm, "Correct roll", lambda c: correct_roll(campaign=c, roll=wrong, faces=[1, 1], by=gm))
    assert Character.objects.get(pk=king.pk).status == Status.DEAD
    heir = _reign(campaign, "England").holder
    assert heir.pk != king.pk
    assert Reign.objects.get(campaign=campaign, holder=king, crown="England").end_year == campaign.current_year
    line = ChronicleEntry.objects.get(campaign=campaign, kind="succession", data__late=king.pk)
    assert line.step == "survival" and line.text.rstrip(".") in done.message
    assert ChronicleEntry.objects.get(campaign=campaign, kind="death", data__character=king.pk).step == "survival"
    again = _act(campaign, gm, "Correct roll", lambda c: correct_roll(campaign=c, roll=done.roll, faces=[6, 6], by=gm))
    assert "no longer reigns over England" in again.message and _reign(campaign, "England").holder_id == king.pk


def test_a_death_caused_after_survival_closed_is_refused_naming_a_later_roll_made_for_him(campaign, gm):
    """'or refused with a message naming exactly what depends on it' (issue 34): a roll made for him
    at a later step of the turn."""
    king = couple(campaign).husband
    _to_marriages(campaign, gm, {})
    later = Roll.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step="marriages",
        purpose="ransom",
        dice="1d6",
        faces=[3],
        source=RollSource.SERVER,
        outcome="x",
    )
    RollSubject.objects.create(roll=later, character=king, position=0)
    wrong = Roll.objects.get(subjects__character=king, purpose="survival")
    with pytest.raises(RuleError) as why:
        _act(campaign, gm, "Correct roll", lambda c: correct_roll(campaign=c, roll=wrong, faces=[1, 1], by=gm))
    assert why.value.message == (
        f"{king.display_name}'s death cannot be recorded now: the ransom roll for {king.display_name} "
        f"at Marriages (turn {campaign.turn_number}) (roll #{later.pk}); undo that first."
    )
    assert Character.objects.get(pk=king.pk).status == Status.ALIVE and _reign(campaign, "England").holder_id == king.pk


def test_a_birth_roll_corrected_after_births_closed(campaign, gm):
    match = couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[6, 6], by=gm)
    child = births_sex(campaign=campaign, attempt=attempt, faces=[2], characteristic_faces=[[3, 3, 3]] * 3, by=gm)
    failed = births_attempt(campaign=campaign, marriage=couple(campaign, "France"), faces=[1, 2], by=gm)
    births_finish(campaign=campaign, by=gm)
    with pytest.raises(RuleError, match=r"would now give a child, whose sex and characteristics are rolled on Births"):
        correct_roll(campaign=campaign, roll=failed.roll, faces=[6, 6], by=gm)
    done = correct_roll(campaign=campaign, roll=attempt.roll, faces=[1, 1], by=gm)  # removed, with its later rolls
    assert not Character.objects.filter(pk=child.pk).exists() and "is removed" in done.message


# --- refusals --------------------------------------------------------------------------------------


def test_only_the_gm_corrects(campaign, gm, alice):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=alice)
    with pytest.raises(Forbidden):
        correct_roll(campaign=campaign, roll=attempt.roll, faces=[6, 6], by=alice)
    assert not Roll.objects.filter(corrects=attempt.roll).exists()


def test_a_roll_of_an_earlier_turn_is_refused(campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=gm)
    Roll.objects.filter(pk=attempt.roll_id).update(year=campaign.current_year - 5)  # as if made five years ago
    with pytest.raises(RuleError, match="only a roll of this turn can be corrected; undo back to it instead") as why:
        correct_roll(campaign=campaign, roll=attempt.roll, faces=[6, 6], by=gm)
    assert why.value.code == "not_current_turn" and why.value.status == 409
    assert not Roll.objects.filter(corrects=attempt.roll).exists()


def test_other_kinds_of_roll_are_refused_by_name(campaign, gm):
    odd = Roll.objects.create(
        campaign=campaign,
        year=campaign.current_year,
        step=campaign.step,
        purpose="monarch_age",
        dice="1d6",
        faces=[3],
        source=RollSource.SERVER,
        outcome="x",
    )
    with pytest.raises(RuleError, match="Roll again for ages cannot be corrected; undo the step instead"):
        correct_roll(campaign=campaign, roll=odd, faces=[4], by=gm)
    with pytest.raises(NotFound):
        correct_roll(campaign=campaign, roll=odd.pk + 1000, faces=[4], by=gm)


def test_faces_are_checked_like_typed_dice(campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=gm)
    with pytest.raises(InvalidDice, match=r"birth roll \(attempt 1\) needs 2 dice of 1-6 \(2d6\); 1 face was given"):
        correct_roll(campaign=campaign, roll=attempt.roll, faces=[6], by=gm)
    with pytest.raises(InvalidDice, match="7 cannot be rolled on a d6"):
        correct_roll(campaign=campaign, roll=attempt.roll, faces=[7, 1], by=gm)
    with pytest.raises(RuleError, match="already shows 2 \\+ 3 = 5: nothing to correct"):
        correct_roll(campaign=campaign, roll=attempt.roll, faces=[2, 3], by=gm)


def test_a_corrected_roll_is_corrected_through_its_correction(campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=gm)
    first = correct_roll(campaign=campaign, roll=attempt.roll, faces=[2, 2], by=gm)
    with pytest.raises(RuleError, match=f"corrected already \\(roll #{first.roll.pk}, 2 \\+ 2 = 4\\): correct that one") as why:
        correct_roll(campaign=campaign, roll=attempt.roll, faces=[6, 6], by=gm)
    assert why.value.code == "already_corrected"
    second = correct_roll(campaign=campaign, roll=first.roll, faces=[6, 6], by=gm)
    attempt.refresh_from_db()
    assert attempt.success and attempt.roll == second.roll and second.roll.corrects == first.roll


# --- undo ------------------------------------------------------------------------------------------


def test_undo_takes_a_correction_back_with_its_step_and_redo_writes_it_again(campaign, gm):
    match = couple(campaign)
    attempt = step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Birth roll",
        by=gm,
        action=lambda c: births_attempt(campaign=c, marriage=match, faces=[2, 3], by=gm),
    )
    step_action(
        campaign=campaign,
        key=new_action_key(),
        label="Correct a die",
        by=gm,
        action=lambda c: correct_roll(campaign=c, roll=attempt.roll, faces=[6, 6], by=gm),
    )
    assert BirthAttempt.objects.get(pk=attempt.pk).success
    undo_step(campaign=campaign, key=new_action_key(), by=gm)
    assert (
        not BirthAttempt.objects.filter(campaign=campaign).exists() and not Roll.objects.filter(corrects__isnull=False).exists()
    )
    redo(campaign=campaign, key=new_action_key(), by=gm)
    again = BirthAttempt.objects.get(pk=attempt.pk)
    assert again.success and again.roll.corrects_id == attempt.roll_id


# --- the page --------------------------------------------------------------------------------------


def _page(campaign, roll) -> str:
    return reverse("pages:roll_correct", args=[campaign.slug, roll.pk])


def test_the_gm_corrects_a_die_from_the_roll_log(client, campaign, gm):
    match = couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[2, 3], by=gm)
    client.force_login(gm)
    log = reverse("pages:rolls", args=[campaign.slug])
    assert f'href="{_page(campaign, attempt.roll)}">Correct</a>' in client.get(log).content.decode()
    came_from = log + "?year=1300&step=births"
    form = client.get(_page(campaign, attempt.roll), HTTP_REFERER="http://testserver" + came_from).content.decode()
    assert "Correct the die" in form and 'name="new-d1"' in form and 'name="new-d2"' in form
    assert 'class="card grid"' in form and "regnal-grid.js" in form  # the grid's fields: auto-advance, a digit replaces
    assert f'name="next" value="http://testserver{came_from.replace("&", "&amp;")}"' in form  # it goes back where it came from
    assert f"{match.husband.display_name} and {match.wife.display_name}, birth roll, die 1" in form
    response = client.post(
        _page(campaign, attempt.roll),
        {"action_key": new_action_key(), "new-d1": 6, "new-d2": 6, "next": "http://testserver" + came_from},
    )
    assert response.status_code == 302 and response["Location"] == "http://testserver" + came_from
    shown = client.get(response["Location"])
    assert [str(m) for m in shown.context["messages"]] == [
        f"Attempt 1 of {match.husband.display_name} and {match.wife.display_name}: 2 + 3 = 5 -> 6 + 6 = 12: "
        "now a child; roll its sex on Births."
    ]
    html = shown.content.decode()
    assert "corrected by gm at" in html and "was 2 + 3 = 5" in html and "wrong: corrected by gm" in html
    assert f'href="{_page(campaign, attempt.roll)}"' not in html  # the wrong entry is corrected through its correction
    fixed = Roll.objects.get(corrects=attempt.roll)
    assert (
        f'href="{_page(campaign, fixed)}">Correct roll #{fixed.pk}</a>'
        in client.get(_page(campaign, attempt.roll)).content.decode()
    )
    assert BirthAttempt.objects.get(pk=attempt.pk).success


def test_the_page_says_why_a_correction_is_refused(client, campaign, gm):
    match = couple(campaign)
    first = births_attempt(campaign=campaign, marriage=match, faces=[1, 1], by=gm)
    births_attempt(campaign=campaign, marriage=match, faces=[1, 1], by=gm)
    client.force_login(gm)
    response = client.post(_page(campaign, first.roll), {"action_key": new_action_key(), "new-d1": 6, "new-d2": 6})
    assert response.status_code == 400 and "was made after this one and depends on it" in response.content.decode()
    response = client.post(_page(campaign, first.roll), {"action_key": new_action_key(), "new-d1": 9, "new-d2": 6})
    assert response.status_code == 400 and "A d6 shows 1 to 6." in response.content.decode()
    Roll.objects.filter(pk=first.roll_id).update(year=campaign.current_year - 5)
    html = client.get(_page(campaign, first.roll)).content.decode()
    assert "only a roll of this turn can be corrected; undo back to it instead" in html and "Correct the die" not in html


def test_a_player_sees_no_correct_link_and_may_not_correct(client, campaign, gm, alice):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=alice)
    client.force_login(alice)
    assert ">Correct</a>" not in client.get(reverse("pages:rolls", args=[campaign.slug])).content.decode()
    assert "Only the GM corrects a die." in client.get(_page(campaign, attempt.roll)).content.decode()
    response = client.post(_page(campaign, attempt.roll), {"action_key": new_action_key(), "new-d1": 6, "new-d2": 6})
    assert response.status_code == 403 and not Roll.objects.filter(corrects=attempt.roll).exists()


# --- BloodLine -------------------------------------------------------------------------------------


@pytest.fixture
def eu(gm):
    return campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4), by=gm)


def test_bloodline_health_and_death_are_derived_again(eu, gm):
    births_finish(campaign=eu, by=gm)
    king = Reign.objects.get(campaign=eu, crown="France").holder  # 40
    queen = Marriage.objects.get(husband=king, ended_year__isnull=True).wife  # 35
    everyone = [c.pk for c in World(eu).in_play()]
    faces = {pk: [7, 7] for pk in everyone}  # 14: nothing at any age
    faces.update({king.pk: [1, 1], queen.pk: [10, 10]})  # the King dies, the Queen is in good health
    survival_roll(campaign=eu, faces=faces, by=gm)
    queen.refresh_from_db()
    assert queen.effective_age_offset == -5
    roll = Roll.objects.get(purpose="survival", subjects__character=queen)
    done = correct_roll(campaign=eu, roll=roll, faces=[7, 7], by=gm)
    queen.refresh_from_db()
    assert queen.effective_age_offset == 0 and done.roll.outcome == "survived" and done.roll.effective_age == 35
    assert not ChronicleEntry.objects.filter(campaign=eu, kind="health", data__character=queen.pk).exists()
    again = correct_roll(campaign=eu, roll=done.roll, faces=[10, 10], by=gm)
    queen.refresh_from_db()
    assert queen.effective_age_offset == -5 and again.changes == ("good health (-5 years); effective age now 30",)
    assert ChronicleEntry.objects.filter(campaign=eu, kind="health", data__character=queen.pk).count() == 1
    reversed_ = correct_roll(
        campaign=eu, roll=Roll.objects.get(purpose="survival", subjects__character=king), faces=[7, 7], by=gm
    )
    king.refresh_from_db()
    assert king.status == Status.ALIVE and Marriage.objects.get(pk=Marriage.objects.get(husband=king).pk).ended_year is None
    assert "the death is reversed" in reversed_.message


def test_a_bloodline_birth_corrected_to_a_success_is_born_in_its_attempts_year(eu, gm):
    match = Marriage.objects.filter(campaign=eu, ended_year__isnull=True, wedding_year__isnull=False).first()
    attempt = births_attempt(campaign=eu, marriage=match, faces=[1, 1], by=gm)
    assert not attempt.success
    correct_roll(campaign=eu, roll=attempt.roll, faces=[9, 9], by=gm)
    attempt.refresh_from_db()
    assert attempt.success and attempt.child_birth_year == bl.child_birth_year(eu.current_year, 1)
    child = births_sex(campaign=eu, attempt=attempt, faces=[3], characteristic_faces=[[5], [5], [5]], by=gm)
    adm = Roll.objects.get(subjects__character=child, purpose="characteristic", detail=bl.CHARACTERISTICS[0])
    done = correct_roll(campaign=eu, roll=adm, faces=[9], by=gm)
    child.refresh_from_db()
    assert child.characteristics[bl.CHARACTERISTICS[0]] == bl.child_value(9, adm.modifier)
    assert done.roll.outcome == f"{bl.CHARACTERISTICS[0]} {bl.child_value(9, adm.modifier)}"


def test_a_die_is_corrected_by_its_total_too(campaign, gm):
    match = couple(campaign)
    attempt = births_attempt(campaign=campaign, marriage=match, faces=[2, 3], by=gm)
    done = correct_roll(campaign=campaign, roll=attempt.roll, total=11, by=gm)
    assert done.roll.source == RollSource.TOTAL and done.roll.faces == [11] and BirthAttempt.objects.get(pk=attempt.pk).success
    assert done.message.startswith(
        f"Attempt 1 of {match.husband.display_name} and {match.wife.display_name}: 2 + 3 = 5 -> total 11:"
    )
    with pytest.raises(InvalidDice, match="is a whole number from 2 to 12; 13 cannot be rolled"):
        correct_roll(campaign=campaign, roll=done.roll, total=13, by=gm)
    with pytest.raises(InvalidDice, match="Give the faces of the birth roll \\(attempt 1\\), or its total"):
        correct_roll(campaign=campaign, roll=done.roll, faces=[1, 1], total=2, by=gm)


def test_the_page_takes_the_total_or_every_die(client, campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=gm)
    client.force_login(gm)
    assert 'name="new-total"' in client.get(_page(campaign, attempt.roll)).content.decode()
    one = client.post(_page(campaign, attempt.roll), {"action_key": new_action_key(), "new-d1": 6})
    assert one.status_code == 400 and "Type what each of the 2 dice showed, or their total." in one.content.decode()
    both = client.post(_page(campaign, attempt.roll), {"action_key": new_action_key(), "new-d1": 6, "new-d2": 6, "new-total": 12})
    assert both.status_code == 400 and "Type the dice or their total, not both." in both.content.decode()
    done = client.post(_page(campaign, attempt.roll), {"action_key": new_action_key(), "new-total": 12})
    assert done.status_code == 302
    assert Roll.objects.get(corrects=attempt.roll).source == RollSource.TOTAL and BirthAttempt.objects.get(pk=attempt.pk).success


def test_the_export_keeps_which_roll_a_correction_corrects(campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=gm)
    done = correct_roll(campaign=campaign, roll=attempt.roll, faces=[6, 6], by=gm)
    data = campaign_export(campaign)
    rolls = {r["id"]: r for r in data["rolls"]}
    fixed = next(r for r in data["rolls"] if r["corrects"] is not None)
    assert fixed["faces"] == [6, 6] and rolls[fixed["corrects"]]["faces"] == [2, 3]
    copy = campaign_import(json.loads(json.dumps(data)))
    again = Roll.objects.get(campaign=copy, corrects__isnull=False)
    assert again.faces == done.roll.faces and again.corrects.faces == [2, 3] and again.corrects.campaign == copy


def test_next_goes_back_to_this_sites_pages_only_and_the_turn_page_by_default(client, campaign, gm):
    attempt = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[2, 3], by=gm)
    client.force_login(gm)
    turn = reverse("pages:turn", args=[campaign.slug])
    html = client.get(_page(campaign, attempt.roll) + "?next=//evil.example/x").content.decode()
    assert f'name="next" value="{turn}"' in html
    away = client.post(
        _page(campaign, attempt.roll), {"action_key": new_action_key(), "new-total": 12, "next": "https://evil.example/"}
    )
    assert away.status_code == 302 and away["Location"] == turn


def test_the_grids_link_each_roll_of_the_turn_to_its_correction_for_the_gm(client, campaign, gm, alice):
    made = births_attempt(campaign=campaign, marriage=couple(campaign), faces=[1, 2], by=gm)
    births = reverse("pages:births", args=[campaign.slug])
    link = reverse("pages:roll_correct", args=[campaign.slug, made.roll_id]) + "?next=" + births
    client.force_login(gm)
    assert f'href="{link}"' in client.get(births).content.decode()
    client.force_login(alice)  # England's player: not his to correct
    assert f'href="{link}"' not in client.get(births).content.decode()
    births_finish(campaign=campaign, by=gm)
    (result,) = survival_roll(
        campaign=campaign, characters=[couple(campaign).husband_id], faces={couple(campaign).husband_id: [6, 6]}, by=gm
    )
    roll = Roll.objects.get(campaign=campaign, purpose="survival", characters=result.character)
    client.force_login(gm)
    here = reverse("pages:survival", args=[campaign.slug])
    survival = client.get(here).content.decode()
    assert f'href="{reverse("pages:roll_correct", args=[campaign.slug, roll.pk])}?next={here}"' in survival
    assert f'href="{link}"' in client.get(births).content.decode()  # Births is closed: its rolls may still be corrected
    turn = reverse("pages:turn", args=[campaign.slug])
    listed = client.get(turn).content.decode()  # the turn page lists every roll of the turn the GM may correct
    for r in (made.roll, roll):
        assert f'href="{reverse("pages:roll_correct", args=[campaign.slug, r.pk])}?next={turn}"' in listed
    client.force_login(alice)
    assert "Correct a die of this turn" not in client.get(turn).content.decode()
