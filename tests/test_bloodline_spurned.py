"""BloodLine's spurned lines, a new monarch's titles and a minor monarch without issue, as the variant
words them (issue 33, items 5, 6, 7 and 10)."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.steps import load_tables
from dynasties.models import Character, Modifier, ModifierKind, Reign, Status, Title
from dynasties.services import campaign_create, survival_finish, survival_roll
from dynasties.services.bloodline_titles import bloodline_title_grant
from dynasties.services.common import World
from dynasties.services.succession_view import succession_line
from dynasties.services.survival import survival_due
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.crosscheck.bloodline import check_bloodline
from tests.crosscheck.common import rule_of
from tests.factories import at_step, person
from tests.test_bloodline_law import house, monarch, survival, to_next_turn
from tests.test_minor_houses import minor_campaign, savoy_king


@pytest.fixture
def eu(db):
    c = campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4))
    king = monarch(c, "France")
    Character.objects.filter(father=king).update(status=Status.DEAD, death_year=1491)  # each test brings its sons
    return c


def sons(c, *names: str) -> list[Character]:
    king = monarch(c, "France")
    return [person(c, house(c, "France"), name, "M", 1469 + n, father=king, adm=5, dip=5, mil=5) for n, name in enumerate(names)]


def born_to(c, parent: Character, name: str, year: int) -> Character:
    parent.refresh_from_db()
    return person(c, parent.controlled_by, name, "M", year, father=parent, adm=5, dip=5, mil=5)


def crosschecked(c, rule: str) -> list[str]:
    """The independent cross-check's violations of ``rule`` in the campaign's export."""
    from operations.exchange import campaign_export

    c.refresh_from_db()
    return [v for v in check_bloodline(campaign_export(c)) if rule_of(v) == rule]


def spurned_rolls(c, year: int) -> int:
    return Roll.objects.filter(campaign=c, purpose="disputed_line", year=year).count()


@pytest.mark.django_db
def test_a_child_born_after_the_skip_does_not_keep_the_ongoing_roll_alive(eu):
    """BloodLine, Voluntary Disputed Succession: 'for as along as any of the skipped claimants, there is a
    50% chance that 1 stability level is lost or a new revolt is generated each Turn until those
    bloodlines are extinguished (test this after all Survival Rolls) ... any children subsequently
    produced by these 'spurned' bloodlines do not perpetuate the ongoing instability roll nor are they
    eligible for making claims to the throne'. The skipped Premier's son born in the next turn does not
    carry the roll: when Premier dies the roll ends, and is not rolled that turn."""
    premier, second = sons(eu, "Premier", "Second")
    survival(eu, monarch(eu, "France").pk, pass_over={"France": [premier.pk]})
    assert monarch(eu, "France") == second
    assert spurned_rolls(eu, 1492) == 1
    to_next_turn(eu, 1497)
    born_to(eu, premier, "Tardif", 1497)  # produced by the spurned line after the skip
    survival(eu, premier.pk)
    lasting = Modifier.objects.filter(
        campaign=eu, claimant=premier, kind__in=[ModifierKind.ONGOING_DISPUTE, ModifierKind.COMBAT_MALUS]
    )
    assert [(m.kind, m.end_year) for m in lasting.order_by("kind")] == [("combat_malus", 1497), ("ongoing_dispute", 1497)]
    assert spurned_rolls(eu, 1497) == 0  # extinguished by this turn's survival rolls: no roll after them
    ended = ChronicleEntry.objects.get(campaign=eu, year=1497, kind="claim_end")
    assert "the line of" in ended.text and "is extinct" in ended.text
    assert crosschecked(eu, "BL-spurned-roll") == []


@pytest.mark.django_db
def test_a_child_born_before_the_skip_keeps_the_ongoing_roll_alive(eu):
    """BloodLine: the roll lasts 'until those bloodlines are extinguished': the skipped heir's son,
    born before the skip (and passed over with him), carries it after his father's death."""
    premier, second = sons(eu, "Premier", "Second")
    fils = born_to(eu, premier, "Fils", 1480)  # 22 when he dies: a 2 kills him
    survival(eu, monarch(eu, "France").pk, pass_over={"France": [premier.pk]})
    assert monarch(eu, "France") == second
    to_next_turn(eu, 1497)
    born_to(eu, premier, "Tardif", 1497)
    survival(eu, premier.pk)
    dispute = Modifier.objects.get(campaign=eu, claimant=premier, kind=ModifierKind.ONGOING_DISPUTE)
    assert dispute.end_year is None and spurned_rolls(eu, 1497) == 1
    to_next_turn(eu, 1502)
    survival(eu, fils.pk)
    dispute.refresh_from_db()
    assert dispute.end_year == 1502 and spurned_rolls(eu, 1502) == 0
    assert crosschecked(eu, "BL-spurned-roll") == []


@pytest.mark.django_db
def test_a_child_born_into_a_spurned_line_after_the_skip_does_not_inherit(eu):
    """BloodLine, Voluntary Disputed Succession: 'for as along as any of the skipped claimants, there is a
    50% chance that 1 stability level is lost or a new revolt is generated each Turn until those
    bloodlines are extinguished (test this after all Survival Rolls) ... any children subsequently
    produced by these 'spurned' bloodlines do not perpetuate the ongoing instability roll nor are they
    eligible for making claims to the throne'. Premier is passed over for Second; Premier's son born
    after it is not in the line: when Second dies childless (Premier with him) the third son succeeds;
    Premier himself keeps his place."""
    premier, second, third = sons(eu, "Premier", "Second", "Troisieme")
    survival(eu, monarch(eu, "France").pk, pass_over={"France": [premier.pk]})
    assert monarch(eu, "France") == second
    to_next_turn(eu, 1497)
    tardif = born_to(eu, premier, "Tardif", 1497)
    eu.refresh_from_db()
    shown = [e.character.pk for e in succession_line(campaign=eu, crown="France").entries]
    assert shown[:2] == [premier.pk, third.pk] and tardif.pk not in shown  # Premier himself keeps his place
    survival(eu, second.pk, premier.pk)
    assert monarch(eu, "France") == third
    assert crosschecked(eu, "BL-spurned-heir") == []


@pytest.mark.django_db
def test_a_new_monarch_loses_the_in_country_title_he_inherits_in_his_accession_step(db):
    """BloodLine, Titles: 'When a Monarch assumes the throne he loses all in-country titles he
    presently owns (in return for being named Monarch), but retains titles that are in part or
    completely outside the realm.' The King and his titled son die in one Survival: the grandson
    succeeds to the crown and, in the same step, to his father's duchy of France's own lands; he
    gives it up."""
    c = campaign_create(name="Europa", ruleset="eu-bloodline", players=2, source=RandomSource(8))
    france = house(c, "France")
    king = monarch(c, "France")
    Character.objects.filter(father=king).update(status=Status.DEAD, death_year=1491)
    elder = person(c, france, "Elder", "M", 1470, father=king, adm=5, dip=5, mil=5)
    grandson = person(c, france, "Grandson", "M", 1490, father=elder, adm=5, dip=5, mil=5)
    duchy = bloodline_title_grant(
        campaign=c,
        giver=france,
        character=elder,
        name="Duke of Burgundy",
        provinces=[{"name": "Burgundy", "value": 5}],
        by=SYSTEM_ACTOR,
    )
    at_step(c, Step.SURVIVAL)
    faces = {p.pk: [7, 7] for p in World(c).in_play()}
    faces[king.pk] = faces[elder.pk] = [1, 1]
    survival_roll(campaign=c, faces=faces, by=SYSTEM_ACTOR)
    survival_finish(campaign=c, source=RandomSource(1), by=SYSTEM_ACTOR)
    assert monarch(c, "France") == grandson
    duchy.refresh_from_db()
    assert duchy.holder is None
    assert not Title.objects.filter(campaign=c, holder=grandson).exists()
    assert ChronicleEntry.objects.filter(campaign=c, kind="title", text__contains="loses Duke of Burgundy").exists()
    assert crosschecked(c, "BL-accession-titles") == []


@pytest.mark.django_db
def test_a_minor_monarch_without_issue_is_replaced_not_succeeded_by_his_brother(db):
    """BloodLine, Minor Dynasties: 'If the monarch dies without issue, then a randomly rolled
    monarch 5 years younger than the previous one takes the throne.' The Duke of Savoy leaves no
    child, only a brother: a monarch is rolled, the brother does not inherit."""
    c = minor_campaign()
    late = savoy_king(c)
    savoy = house(c, "Savoy")
    father = person(c, savoy, "Padre", "M", late.birth_year - 30)
    Character.objects.filter(pk=father.pk).update(status=Status.DEAD, death_year=late.birth_year + 10)
    Character.objects.filter(pk=late.pk).update(father=father)
    brother = person(c, savoy, "Fratello", "M", late.birth_year + 2, father=father, adm=5, dip=5, mil=5)
    at_step(c, Step.SURVIVAL)
    due = [d.character.pk for d in survival_due(c, World(c), load_tables(c))]
    survival_roll(campaign=c, faces={pk: [1, 1] if pk == late.pk else [9, 9] for pk in due}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="leaves no issue"):
        survival_finish(campaign=c, source=RandomSource(2), pass_over={"Savoy": [brother.pk]}, by=SYSTEM_ACTOR)
    survival_finish(campaign=c, source=RandomSource(2), by=SYSTEM_ACTOR)
    new = Reign.objects.get(campaign=c, crown="Savoy", end_year__isnull=True).holder
    assert new != brother
    assert (new.origin, new.birth_year, new.controlled_by) == ("relative", min(late.birth_year + 5, c.current_year), savoy)
    assert ChronicleEntry.objects.filter(campaign=c, kind="created", text__contains="leaves no heir").exists()
    assert crosschecked(c, "BL-minor-no-issue") == []


@pytest.mark.django_db
def test_the_line_of_a_minor_monarch_without_issue_names_nobody_and_says_a_monarch_is_rolled(db):
    """The same rule on the succession page: the Duke of Savoy has no child, only a brother, so his
    line lists nobody (the brother would not inherit) and says what would happen; with a son, the son
    heads it (and the brother follows him, as the line runs on only while there is issue)."""
    from dynasties.services.succession_view import heirs_now, succession_what_if

    c = minor_campaign()
    late = savoy_king(c)
    savoy = house(c, "Savoy")
    father = person(c, savoy, "Padre", "M", late.birth_year - 30)
    Character.objects.filter(pk=father.pk).update(status=Status.DEAD, death_year=late.birth_year + 10)
    Character.objects.filter(pk=late.pk).update(father=father)
    person(c, savoy, "Fratello", "M", late.birth_year + 2, father=father, adm=5, dip=5, mil=5)
    line = succession_line(campaign=c, crown="Savoy")
    assert line.entries == ()
    assert any("leaves no issue" in note and "5 years younger" in note for note in line.notes)
    assert heirs_now(campaign=c)["Savoy"] is None
    what_if = succession_what_if(campaign=c, crown="Savoy", dies=[late.pk])
    assert what_if.entries == () and what_if.successor is None and what_if.relative is None
    assert any("rolled for the minor house" in note for note in what_if.notes)
    son = person(c, savoy, "Figlio", "M", c.current_year - 3, father=late, adm=5, dip=5, mil=5)
    line = succession_line(campaign=c, crown="Savoy")
    assert line.entries[0].character == son
    assert heirs_now(campaign=c)["Savoy"].character == son


@pytest.mark.django_db
def test_a_released_heir_recognised_as_monarch_loses_his_in_country_title(eu):
    """BloodLine, Titles: 'When a Monarch assumes the throne he loses all in-country titles he
    presently owns' - also the heir who was a prisoner at the Succession and, released, is recognised
    (Disputed Succession A: 'a released heir claims the throne')."""
    from dynasties.services.events import character_capture, character_release
    from dynasties.services.interim import interim_claim_resolve

    captive, second = sons(eu, "Captif", "Second")
    duchy = bloodline_title_grant(
        campaign=eu,
        giver=house(eu, "France"),
        character=captive,
        name="Duke of Burgundy",
        provinces=[{"name": "Burgundy", "value": 5}],
        by=SYSTEM_ACTOR,
    )
    character_capture(campaign=eu, character=captive, captor=house(eu, "England"), by=SYSTEM_ACTOR)
    survival(eu, monarch(eu, "France").pk, pass_over={"France": [captive.pk]})
    assert monarch(eu, "France") == second
    character_release(campaign=eu, character=captive, by=SYSTEM_ACTOR)
    interim_claim_resolve(campaign=eu, crown="France", recognize=True, source=RandomSource(2), by=SYSTEM_ACTOR)
    assert monarch(eu, "France") == captive
    duchy.refresh_from_db()
    assert duchy.holder is None
    assert crosschecked(eu, "BL-accession-titles") == []
