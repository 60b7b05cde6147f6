"""Campaign creation and the starting families (RULES.md A3)."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Membership, Role, Roll, RuleTable
from dynasties.models import Character, Dynasty, Marriage, Reign
from dynasties.services import campaign_create
from rules.dice import RandomSource
from rules.errors import InvalidDice, RuleError
from rules.tables import DEFAULT_SURVIVAL


@pytest.mark.django_db
def test_a3_three_character_start_for_five_players(gm):
    """A3: a King aged 25 (1275), a Queen aged 20 (1280) and one child aged 5 (1295) per dynasty."""
    c = campaign_create(name="Five", players=5, source=RandomSource(1), by=gm)
    assert c.current_year == 1300 and c.turn_length == 5 and c.step == "births"
    dynasties = list(Dynasty.objects.filter(campaign=c))
    assert [d.crown for d in dynasties] == ["England", "France", "Germany", "Italy", "Spain"]
    for d in dynasties:
        family = list(Character.objects.filter(controlled_by=d).order_by("birth_year"))
        assert [ch.birth_year for ch in family] == [1275, 1280, 1295]
        king, queen, child = family
        assert (king.sex, queen.sex) == ("M", "F")
        assert king.characteristics == {"strength": 0, "constitution": 0, "charisma": 0}
        assert queen.characteristics == {"guile": 0, "constitution": 0, "charisma": 0}
        assert queen.dynastic_name != king.dynastic_name
        assert child.father == king and child.mother == queen and child.dynastic_name == d.name
        assert set(child.characteristics) == {"strength" if child.sex == "M" else "guile", "constitution", "charisma"}
        assert all(-2 <= v <= 2 for v in child.characteristics.values())
        assert Marriage.objects.get(husband=king).wife == queen
        reign = Reign.objects.get(campaign=c, crown=d.crown)
        assert reign.holder == king and reign.end_year is None
        assert king.prince_piece == "K"
    # 5 children: one sex roll and three characteristic rolls each, every one logged
    rolls = Roll.objects.filter(campaign=c)
    assert rolls.filter(purpose="sex").count() == 5
    assert rolls.filter(purpose="characteristic").count() == 15
    assert all(r.step == "setup" and r.source == "server" and r.characters.count() == 1 for r in rolls)
    assert RuleTable.objects.get(campaign=c, key="survival").data == DEFAULT_SURVIVAL
    assert Membership.objects.get(campaign=c, user=gm).role == Role.GM
    assert ChronicleEntry.objects.filter(campaign=c, kind="setup").count() == 5


@pytest.mark.django_db
def test_optional_rule_a_four_character_start():
    """Optional rule A: King 30 (1270), Queen 25 (1275), children 10 (1290) and 5 (1295)."""
    c = campaign_create(name="Four", players=3, optional_rules={"four_character_start": True}, source=RandomSource(2))
    england = Dynasty.objects.get(campaign=c, crown="England")
    assert sorted(ch.birth_year for ch in Character.objects.filter(controlled_by=england)) == [1270, 1275, 1290, 1295]
    # three players: an aristocratic family supplies marriage partners, with one child of 5
    aristo = Dynasty.objects.get(campaign=c, kind="aristocratic")
    assert sorted(ch.birth_year for ch in Character.objects.filter(controlled_by=aristo)) == [1270, 1275, 1295]
    assert not Reign.objects.filter(holder__controlled_by=aristo).exists()


@pytest.mark.django_db
def test_optional_rule_b_rolls_king_and_queen():
    """Optional rule B: the King's and Queen's characteristics are rolled too (and logged)."""
    c = campaign_create(name="B", players=3, optional_rules={"rolled_king_queen": True}, source=RandomSource(3))
    # per player dynasty: King 3 + Queen 3 + child 4 rolls; the aristocratic family likewise
    assert Roll.objects.filter(campaign=c, purpose="characteristic").count() == 4 * 9


@pytest.mark.django_db
def test_typed_setup_dice_are_used_and_marked_entered(gm):
    per_child = [[2], [6, 6, 6], [1, 1, 1], [4, 5, 3]]  # boy; Strength +2, Constitution -2, Charisma 0
    faces = per_child * 4  # three player dynasties and the aristocratic family: four children
    c = campaign_create(name="Typed", players=3, entered=faces, by=gm)
    child = Character.objects.get(campaign=c, birth_year=1295, controlled_by__crown="England")
    assert child.sex == "M"
    assert child.characteristics == {"strength": 2, "constitution": -2, "charisma": 0}
    assert set(Roll.objects.filter(campaign=c).values_list("source", flat=True)) == {"entered"}
    assert Roll.objects.filter(campaign=c, entered_by=gm).count() == 16


@pytest.mark.django_db
def test_bad_setup_input_is_refused_and_leaves_nothing():
    with pytest.raises(InvalidDice, match="needs 1 die of 1-6"):
        campaign_create(name="Bad dice", players=3, entered=[[7]] + [[1]] * 40)
    with pytest.raises(RuleError, match="3 to 5 players"):
        campaign_create(name="Too many", players=6)
    with pytest.raises(RuleError, match="Unknown ruleset 'chess'; choose one of blood-royale"):
        campaign_create(name="Chess", ruleset="chess")
    with pytest.raises(RuleError, match="no optional rule"):
        campaign_create(name="Opt", optional_rules={"house_rule_z": True})
    assert not Character.objects.exists() and not Roll.objects.exists() and not Dynasty.objects.exists()


@pytest.mark.django_db
def test_same_seed_same_campaign():
    a = campaign_create(name="A", players=5, source=RandomSource(11))
    b = campaign_create(name="B", players=5, source=RandomSource(11))

    def sheet(c):
        return [(ch.given_name, ch.sex, ch.birth_year, ch.characteristics) for ch in Character.objects.filter(campaign=c)]

    assert sheet(a) == sheet(b)
    assert a.slug == "a" and b.slug == "b"
