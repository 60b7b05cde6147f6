"""Issue 33 items 1-3 (Blood Royale): whose claim a Pretender's line carries, the baron who replaces
a dead regent, and the house a Pretender leaves. Scenarios from the rulebook's words
(../shared/seeds/blood-royale-rules.txt: Pretenders and Bastards; Succession (9); optional rule C)."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Dynasty, Modifier, ModifierKind, Origin, PassedOver, Reign, Status
from dynasties.services import survival_finish
from dynasties.services.pretenders import pretender_declare
from dynasties.services.succession_view import succession_line
from rules.errors import IllegalPassOver, RuleError
from tests.factories import at_step, crown, person, wed
from tests.test_disputed_succession import roll_survival


def house(campaign, crown_name):
    return Dynasty.objects.get(campaign=campaign, crown=crown_name)


def rule_c(campaign, on: bool) -> None:
    campaign.optional_rules = {**campaign.optional_rules, "disputed_succession": on}
    campaign.save()


def _dead(character, year):
    Character.objects.filter(pk=character.pk).update(status=Status.DEAD, death_year=year)


def _reigned_before(campaign, king, start):
    """The starting King's reign, given to ``king`` from ``start``."""
    Reign.objects.filter(campaign=campaign, crown="England", end_year__isnull=True).update(holder=king, start_year=start)


def a_pretender_to_france_in_englands_line(campaign):
    """King Edward of England (born 1250) has two daughters. The elder, Mary, married Pierre of the
    house of France, who left France as a Pretender to its crown and is controlled by Germany (the
    player on France's left); Mary is dead, and her son Henri (17) lives with his father's keepers.
    The younger, Anne, lives at home. Henri is Edward's heir; Anne comes after him."""
    at_step(campaign, Step.SURVIVAL, year=1300)
    england, france, germany = house(campaign, "England"), house(campaign, "France"), house(campaign, "Germany")
    edward = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    Character.objects.filter(campaign=campaign, controlled_by=england).exclude(pk=edward.pk).update(status=Status.RETIRED)
    mary = person(campaign, england, "Mary", "F", 1266, father=edward)
    pierre = person(campaign, france, "Pierre", "M", 1262)
    pierre.controlled_by, pierre.pretender_of = germany, france  # cards 18-22, an earlier turn
    pierre.save()
    mary.controlled_by = germany
    mary.save()
    wed(campaign, pierre, mary, 1281)
    henri = person(campaign, france, "Henri", "M", 1283, father=pierre, mother=mary)
    henri.controlled_by = germany
    henri.save()
    _dead(mary, 1295)
    anne = person(campaign, england, "Anne", "F", 1270, father=edward)
    return edward, henri, anne


@pytest.mark.django_db
def test_a_pretender_to_france_gives_his_son_no_claim_to_be_passed_over_in_england(campaign):
    """'A Pretender character or any of his or her heirs may inherit the throne through the normal rules
    while still controlled by a 'foreign' Dynasty ... The player who has been controlling the disputed
    country up to that point may pass over the Pretender's claim' (Pretenders and Bastards): the
    disputed country is the one the Pretender claims. Henri's father claims France: in England Henri is
    an ordinary heir, whom the basic rules do not let pass over ('The normal rules for succession allow
    players to pass over female characters and Princes imprisoned by other players', rule C)."""
    rule_c(campaign, False)
    edward, henri, _anne = a_pretender_to_france_in_englands_line(campaign)
    line = succession_line(campaign=campaign, crown="England")
    entry = next(e for e in line.entries if e.character.pk == henri.pk)
    assert entry.pass_over is not None and not entry.pass_over.allowed  # the succession page says so too
    roll_survival(campaign, {edward.pk})
    with pytest.raises(IllegalPassOver, match="Henri Anjou may not be passed over: the rightful heir may be passed over only"):
        survival_finish(campaign=campaign, pass_over={"England": [henri.pk]}, by=SYSTEM_ACTOR)
    assert not PassedOver.objects.exists()


@pytest.mark.django_db
def test_passing_over_a_pretenders_son_for_a_crown_his_father_never_claimed_costs_the_charisma_roll(campaign):
    """Rule C: 'if the passed-over character is one who could not have been passed over according to
    the basic rules of Succession, the new monarch also has a penalty to his or her Charisma score
    ... A result of 1-3 means the new monarch's Charisma is reduced by -1'. Henri could not have been
    passed over under the basic rules (his father claims France, not England): Queen Anne rolls."""
    rule_c(campaign, True)
    edward, henri, anne = a_pretender_to_france_in_englands_line(campaign)
    roll_survival(campaign, {edward.pk})
    survival_finish(campaign=campaign, pass_over={"England": [henri.pk]}, entered=[[2]], by=SYSTEM_ACTOR)
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder == anne
    assert PassedOver.objects.get(character=henri).reason == "passed over under optional rule C"
    roll = Roll.objects.get(campaign=campaign, purpose="charisma_loss")
    assert roll.faces == [2] and roll.outcome == "charisma -1"
    anne.refresh_from_db()
    assert anne.characteristics["charisma"] == -1
    assert Modifier.objects.get(kind=ModifierKind.CHARISMA_LOSS).character == anne


@pytest.mark.django_db
def test_the_heir_of_a_pretender_to_the_crown_itself_may_be_passed_over_without_a_roll(campaign):
    """The rule kept: the heirs of a Pretender to England, controlled by another Dynasty, may be passed
    over by England's player under the basic rules, with no Charisma roll ('This additional penalty is
    only taken if the character is not one who could have been passed over according to the normal
    rules of the game')."""
    rule_c(campaign, False)
    at_step(campaign, Step.SURVIVAL, year=1300)
    england, france = house(campaign, "England"), house(campaign, "France")
    edward = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    Character.objects.filter(campaign=campaign, controlled_by=england).exclude(pk=edward.pk).update(status=Status.RETIRED)
    edmund = person(campaign, england, "Edmund", "M", 1270, father=edward)
    john = person(campaign, england, "John", "M", 1274, father=edward)
    wife = person(campaign, None, "Blanche", "F", 1272, dynastic_name="Artois")
    wife.controlled_by = england
    wife.save()
    wed(campaign, edmund, wife, 1289)
    tom = person(campaign, england, "Tom", "M", 1290, father=edmund, mother=wife)
    at_step(campaign, Step.BIRTHS, year=1300)
    pretender_declare(campaign=campaign, character=edmund, by=SYSTEM_ACTOR)  # to France, the player on the left
    tom.refresh_from_db()
    assert tom.controlled_by == france
    _dead(edmund, 1300)
    at_step(campaign, Step.SURVIVAL, year=1300)
    roll_survival(campaign, {edward.pk})
    survival_finish(campaign=campaign, pass_over={"England": [tom.pk]}, by=SYSTEM_ACTOR)
    assert Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder == john
    assert PassedOver.objects.get(character=tom).reason == "a Pretender controlled by another player"
    assert not Roll.objects.filter(campaign=campaign, purpose="charisma_loss").exists()


@pytest.mark.django_db
def test_the_baron_replacing_a_dead_regent_is_five_years_younger_than_the_late_king(campaign):
    """'If none are available, a baron or cousin of the late King is created. He is 5 years younger than
    the late King (or 30 years old, whichever is older)' (Procedure In The Case of a Minor Ascending
    The Throne). King Robert (born 1260) died in 1295 leaving Joan, 5, with her uncle as regent; the
    uncle dies in 1300 and nobody of the house can act: the baron is the late King's cousin, 5 years
    younger than Robert (who would be 40): 35, not 30, and the cousin of the late King, not of the
    living Queen."""
    at_step(campaign, Step.SURVIVAL, year=1300)
    england = house(campaign, "England")
    Character.objects.filter(campaign=campaign, controlled_by=england).update(status=Status.RETIRED)
    robert = person(campaign, england, "Robert", "M", 1260)
    _reigned_before(campaign, robert, 1285)
    joan = person(campaign, england, "Joan", "F", 1290, father=robert)
    uncle = person(campaign, england, "Uncle", "M", 1262)
    reign = crown(campaign, joan, "England", 1295)
    reign.regent = uncle
    reign.save()
    _dead(robert, 1295)
    roll_survival(campaign, {uncle.pk})
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    reign.refresh_from_db()
    baron = reign.regent
    assert baron is not None and baron.origin == Origin.BARON
    assert baron.birth_year == 1265 and baron.age(1300) == 35
    created = ChronicleEntry.objects.get(campaign=campaign, kind="created", data__character=baron.pk)
    assert "a baron and cousin of the late King, aged 35" in created.text
    assert "late Queen" not in created.text  # Joan lives
    regency = ChronicleEntry.objects.get(campaign=campaign, kind="regency", data__character=baron.pk)
    assert regency.text == f"{baron.display_name} becomes regent for Joan Plantagenet."


@pytest.mark.django_db
def test_the_baron_is_never_younger_than_30(campaign):
    """'... 5 years younger than the late King (or 30 years old, whichever is older)': a late King who
    would be 32 gives a baron of 30."""
    at_step(campaign, Step.SURVIVAL, year=1300)
    england = house(campaign, "England")
    Character.objects.filter(campaign=campaign, controlled_by=england).update(status=Status.RETIRED)
    robert = person(campaign, england, "Robert", "M", 1268)
    _reigned_before(campaign, robert, 1290)
    boy = person(campaign, england, "Boy", "M", 1292, father=robert)
    uncle = person(campaign, england, "Uncle", "M", 1270)
    reign = crown(campaign, boy, "England", 1295)
    reign.regent = uncle
    reign.save()
    _dead(robert, 1295)
    roll_survival(campaign, {uncle.pk})
    survival_finish(campaign=campaign, by=SYSTEM_ACTOR)
    reign.refresh_from_db()
    assert reign.regent.origin == Origin.BARON and reign.regent.age(1300) == 30


@pytest.mark.django_db
def test_an_heir_exiled_to_another_house_is_no_pretender_of_that_house(campaign):
    """'Cards 18-22 allow for characters to leave the Dynasty of their birth, and join another player's
    characters ... For a 'bribe' of 50 Crowns, the Pretender's original Dynasty may 'buy back' the
    character' (Pretenders and Bastards). Rule C exiles a passed-over heir to the player on the left
    ('to be controlled by that Dynasty from now on'): he has left the Dynasty of his birth already,
    and the house that holds him cannot lose him as a Pretender (nor buy him back). Issue 33's seed
    805: a Visconti exiled to de Silva that very turn became a Pretender 'lost' by de Silva."""
    rule_c(campaign, True)
    at_step(campaign, Step.SURVIVAL, year=1300)
    england, france = house(campaign, "England"), house(campaign, "France")
    edward = Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True).holder
    weak = person(campaign, england, "Weak", "M", 1278, father=edward)
    person(campaign, england, "Strong", "M", 1280, father=edward)
    roll_survival(campaign, {edward.pk})
    survival_finish(campaign=campaign, pass_over={"England": [weak.pk]}, entered=[[2]], by=SYSTEM_ACTOR)
    weak.refresh_from_db()
    assert weak.controlled_by == france and weak.birth_dynasty == england  # in exile on England's left
    with pytest.raises(RuleError, match="Weak Plantagenet was not born to the house of Anjou that controls him"):
        pretender_declare(campaign=campaign, character=weak, by=SYSTEM_ACTOR)
    weak.refresh_from_db()
    assert weak.pretender_of is None and weak.controlled_by == france
