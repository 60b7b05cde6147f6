"""Step 2, Survival (RULES.md A5), deaths and succession (A7), through the services."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Marriage, Origin, Reign, Status
from dynasties.services import (
    announcements_make,
    births_attempt,
    births_finish,
    births_sex,
    marriages_finish,
    survival_finish,
    survival_roll,
    turn_advance,
)
from rules.dice import FixedSource
from rules.errors import RuleError, StepOrderError
from tests.factories import at_step, crown, empty_house, person, wed


def everyone_survives(campaign, faces=None, **kw):
    """Roll everyone still to roll with sixes unless faces say otherwise."""
    from campaign.steps import load_tables
    from dynasties.services.common import World
    from dynasties.services.survival import rolled_this_turn, survival_due

    done = rolled_this_turn(campaign)
    due = [d.character.pk for d in survival_due(campaign, World(campaign), load_tables(campaign)) if d.character.pk not in done]
    typed = {pk: [6, 6] for pk in due}
    typed.update(faces or {})
    return survival_roll(campaign=campaign, faces=typed, **{"by": SYSTEM_ACTOR, **kw})


@pytest.mark.django_db
def test_a5_worked_example_mother_aged_30_with_two_extra_attempts(campaign, gm):
    """A5: 'A mother aged 30 needs 4 or more to survive. She started with a Constitution of +1, but has
    made two additional attempts ... reducing her Constitution for that turn to -1. The player rolls 7,
    which is modified to 6. She has rolled higher than the required 4, and so survives.'"""
    at_step(campaign, Step.BIRTHS, year=1310)  # the Queen, born 1280, is 30
    couple = Marriage.objects.get(campaign=campaign, husband__controlled_by__crown="England", ended_year__isnull=True)
    queen = couple.wife
    queen.characteristics = {"guile": 0, "constitution": 1, "charisma": 0}
    queen.save()
    for _ in range(3):
        births_attempt(campaign=campaign, marriage=couple, faces=[1, 1], by=SYSTEM_ACTOR)
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    [result] = survival_roll(campaign=campaign, characters=[queen.pk], faces={queen.pk: [3, 4]}, by=gm)
    assert result.survived and result.modifier == -1 and result.need == 4
    roll = Roll.objects.get(purpose="survival", subjects__character=queen)
    assert (roll.faces, roll.modifier, roll.target, roll.outcome, roll.detail) == ([3, 4], -1, 4, "survived", "age 30")
    assert roll.total == 6


@pytest.mark.django_db
def test_survival_due_and_refusals(campaign):
    at_step(campaign, Step.SURVIVAL)
    child = Character.objects.filter(campaign=campaign, birth_year=1295).first()
    with pytest.raises(RuleError, match="is 5: no survival rolls before 15"):
        survival_roll(campaign=campaign, characters=[child.pk], by=SYSTEM_ACTOR)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    survival_roll(campaign=campaign, characters=[king.pk], faces={king.pk: [6, 6]}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="already rolled for survival"):
        survival_roll(campaign=campaign, characters=[king.pk], by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="9 still to roll for survival"):
        survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="typed for characters who are not rolling"):
        survival_roll(campaign=campaign, characters=[], faces={king.pk: [1, 1]}, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_beginners_option_spares_the_king_until_1310(db):
    from dynasties.services import campaign_create

    c = campaign_create(name="Beginners", players=3, optional_rules={"beginner_king_survival": True})
    at_step(c, Step.SURVIVAL)
    from campaign.steps import load_tables
    from dynasties.services.common import World
    from dynasties.services.survival import survival_due

    due = {d.character.pk for d in survival_due(c, World(c), load_tables(c))}
    kings = set(Reign.objects.filter(campaign=c).values_list("holder_id", flat=True))
    assert not (due & kings)
    assert len(due) == 3  # the three queens; the aristocratic parents never roll (A9)
    at_step(c, Step.SURVIVAL, year=1310)
    due = {d.character.pk for d in survival_due(c, World(c), load_tables(c))}
    assert kings <= due


@pytest.mark.django_db
def test_death_ends_the_marriage_and_the_kings_widow_retires(campaign):
    at_step(campaign, Step.SURVIVAL)
    reign = Reign.objects.get(campaign=campaign, crown="England")
    king = reign.holder
    everyone_survives(campaign, {king.pk: [1, 1]})
    king.refresh_from_db()
    assert king.status == Status.DEAD and king.death_year == 1300 and king.prince_piece == ""
    match = Marriage.objects.get(husband=king)
    assert match.ended_year == 1300 and match.end_cause == "death of the husband"
    assert "dies in 1300, aged 25" in ChronicleEntry.objects.get(campaign=campaign, kind="death").text
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    new = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)
    heir = Character.objects.get(campaign=campaign, birth_year=1295, controlled_by__crown="England")
    assert new.holder == heir  # the only child, aged 5
    assert new.regent is not None and new.regent.origin == Origin.BARON  # the widow may not act
    assert new.regent.birth_year == 1300 - 30  # 5 years younger than the late King (25) or 30
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    queen = match.wife
    queen.refresh_from_db()
    assert queen.status == Status.RETIRED and queen.retired_year == 1300


@pytest.mark.django_db
def test_a7_dead_eldest_sons_children_come_before_the_second_son(campaign):
    """A7: the eldest son 'then down through his family' - his son inherits before the second son."""
    house = empty_house(campaign)
    king = person(campaign, house, "Old", "M", 1240)
    queen = person(campaign, None, "Ma", "F", 1245, dynastic_name="Else")
    wed(campaign, king, queen, 1260)
    eldest = person(campaign, house, "First", "M", 1262, father=king, mother=queen)
    second = person(campaign, house, "Second", "M", 1265, father=king, mother=queen)
    grandson = person(campaign, house, "Grandson", "M", 1290, father=eldest)
    eldest.status, eldest.death_year = Status.DEAD, 1295
    eldest.save()
    crown(campaign, king, "Testland", 1280)
    at_step(campaign, Step.SURVIVAL)
    everyone_survives(campaign, {king.pk: [1, 1]})
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    reign = Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True)
    assert reign.holder == grandson
    assert reign.regent == second  # a minor heir (10): the first adult in line acts as regent
    text = ChronicleEntry.objects.get(campaign=campaign, kind="succession", data__crown="Testland").text
    assert "Grandson I Testhouse succeeds Old Testhouse as King of Testland, aged 10" in text  # numbered (issue 19)


@pytest.mark.django_db
def test_regency_ends_at_15_and_a_created_baron_retires(campaign):
    house = empty_house(campaign)
    king = person(campaign, house, "Lonely", "M", 1250)  # 50 in 1300
    heir = person(campaign, house, "Boy", "M", 1289, father=king)  # 11
    crown(campaign, king, "Testland", 1280)
    at_step(campaign, Step.SURVIVAL)
    everyone_survives(campaign, {king.pk: [1, 1]})
    survival_finish(campaign=campaign, source=FixedSource([(3, 3, 3), (6, 6, 6), (1, 1, 1)]), by=SYSTEM_ACTOR)
    reign = Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True)
    baron = reign.regent
    assert reign.holder == heir and baron.origin == Origin.BARON
    assert baron.birth_year == 1300 - 45  # 5 years younger than the late King of 50
    assert baron.characteristics == {"strength": 0, "constitution": 2, "charisma": -2}
    assert Roll.objects.filter(purpose="characteristic", subjects__character=baron).count() == 3
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    turn_advance(campaign=campaign, by=SYSTEM_ACTOR)  # 1305: the King is 16
    reign.refresh_from_db()
    baron.refresh_from_db()
    assert reign.regency_end_year == 1305
    assert baron.status == Status.RETIRED
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="regency_end", year=1305).exists()


@pytest.mark.django_db
def test_a7_created_relative_when_nobody_of_the_blood_is_left(campaign):
    """A7: 'This relative is 5 years younger than the deceased King (or 20 years old - whichever is the
    older), is married to a wife 5 years younger than himself, and has a child for every five years of
    their marriage, starting from when the male character was 20.'"""
    house = empty_house(campaign)
    king = person(campaign, house, "Last", "M", 1260)  # 40 in 1300
    crown(campaign, king, "Testland", 1280)
    at_step(campaign, Step.SURVIVAL)
    everyone_survives(campaign, {king.pk: [1, 1]})
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    reign = Reign.objects.get(campaign=campaign, crown="Testland", end_year__isnull=True)
    relative = reign.holder
    assert relative.origin == Origin.RELATIVE and relative.birth_year == 1265  # 35
    wife = Marriage.objects.get(husband=relative).wife
    assert wife.birth_year == 1270 and wife.dynastic_name != relative.dynastic_name
    children = Character.objects.filter(father=relative).order_by("birth_year")
    assert [c.birth_year for c in children] == [1290, 1295, 1300]  # when he was 25, 30, 35
    assert reign.regent is None
    assert Roll.objects.filter(purpose="sex", subjects__character__in=children).count() == 3


@pytest.mark.django_db
def test_100_crowns_owed_when_a_married_prince_becomes_king(campaign):
    house = empty_house(campaign)
    other = empty_house(campaign, "Brides", "")
    king = person(campaign, house, "Old", "M", 1250)
    son = person(campaign, house, "Son", "M", 1275, father=king)
    bride = person(campaign, other, "Bride", "F", 1278)
    bride.controlled_by = house
    bride.save()
    wed(campaign, son, bride, 1295)
    crown(campaign, king, "Testland", 1280)
    at_step(campaign, Step.SURVIVAL)
    everyone_survives(campaign, {king.pk: [1, 1]})
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    owed = ChronicleEntry.objects.get(campaign=campaign, kind="payment_owed")
    assert owed.data["amount"] == 100 and owed.data["dynasty"] == other.pk


@pytest.mark.django_db
def test_a_foreign_widow_returns_to_her_house_at_the_announcements(campaign):
    england = Reign.objects.get(campaign=campaign, crown="England").holder.controlled_by
    france = Reign.objects.get(campaign=campaign, crown="France").holder.controlled_by
    prince = person(campaign, england, "Prince", "M", 1278)
    princess = person(campaign, france, "Princess", "F", 1280)
    princess.controlled_by = england
    princess.save()
    wed(campaign, prince, princess, 1298)
    at_step(campaign, Step.SURVIVAL)
    everyone_survives(campaign, {prince.pk: [1, 1]})
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    princess.refresh_from_db()
    assert princess.controlled_by == england  # returns happen at the Announcements
    marriages_finish(campaign=campaign, by=SYSTEM_ACTOR)
    announcement = announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    princess.refresh_from_db()
    assert princess.controlled_by == france and princess.status == Status.ALIVE
    assert "returns to the house of" in announcement.text


@pytest.mark.django_db
def test_steps_out_of_order_are_refused(campaign):
    with pytest.raises(StepOrderError, match="Survival step is not open yet: 1300 is at Births") as err:
        survival_roll(campaign=campaign, by=SYSTEM_ACTOR)
    assert err.value.status == 409
    with pytest.raises(StepOrderError):
        turn_advance(campaign=campaign, by=SYSTEM_ACTOR)
    with pytest.raises(StepOrderError):
        announcements_make(campaign=campaign, by=SYSTEM_ACTOR)
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    with pytest.raises(StepOrderError, match="already done"):
        births_finish(campaign=campaign, by=SYSTEM_ACTOR)


@pytest.mark.django_db
def test_a_failure_mid_step_leaves_nothing_half_written(campaign, monkeypatch):
    at_step(campaign, Step.SURVIVAL)
    king = Reign.objects.get(campaign=campaign, crown="England").holder
    from campaign import steps as common

    def boom(self):
        raise RuntimeError("disk full")

    monkeypatch.setattr(common.Chronicle, "flush", boom)
    with pytest.raises(RuntimeError):
        everyone_survives(campaign, {king.pk: [1, 1]})
    king.refresh_from_db()
    assert king.status == Status.ALIVE
    assert not Roll.objects.filter(purpose="survival").exists()
    assert Marriage.objects.get(husband=king).ended_year is None


@pytest.mark.django_db
def test_births_then_survival_then_sex_ordering_is_kept(campaign):
    """The sex roll may come right after the birth roll, before deciding on another attempt."""
    couple = Marriage.objects.get(campaign=campaign, husband__controlled_by__crown="Spain", ended_year__isnull=True)
    first = births_attempt(campaign=campaign, marriage=couple, faces=[4, 4], by=SYSTEM_ACTOR)
    son = births_sex(campaign=campaign, attempt=first, faces=[1], by=SYSTEM_ACTOR)
    second = births_attempt(campaign=campaign, marriage=couple, faces=[5, 5], by=SYSTEM_ACTOR)
    daughter = births_sex(campaign=campaign, attempt=second, faces=[6], by=SYSTEM_ACTOR)
    assert (son.sex, son.birth_year, daughter.sex, daughter.birth_year) == ("M", 1300, "F", 1301)
