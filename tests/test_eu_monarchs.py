"""The eu-monarchs services (RULES.md C): survival rolls, successions, named monarchs, Doges,
Stability, ransoms, the military skill, crown settings and the campaign's own tables."""

from __future__ import annotations

import pytest

from campaign.models import ChronicleEntry, Roll, RollSource, RuleTable
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Crown, CrownEvent, Dynasty, Reign, Status
from dynasties.services import campaign_create
from dynasties.services.eu_monarchs import (
    crown_period,
    load_eu_tables,
    monarch_crown_configure,
    monarch_military_skill,
    monarch_place_named,
    monarch_ransom,
    monarch_status,
    monarch_succession_roll,
    monarch_survival_roll,
)
from rules import eu_monarchs as eu
from rules.dice import D10, FixedSource, RandomSource
from rules.errors import IllegalOption, InvalidDice, InvalidTable, NotFound, RuleError


@pytest.fixture
def eu_campaign(db):
    """A 3-player campaign switched to the eu-monarchs ruleset (campaign_create cannot make one yet)."""
    c = campaign_create(name="Europa", players=3, source=RandomSource(3))
    c.ruleset = "eu-monarchs"
    c.save()
    return c


def next_turn(campaign, turns: int = 1):
    campaign.refresh_from_db()
    campaign.current_year += turns * campaign.turn_length
    campaign.save()
    return campaign


def rolls(campaign, purpose):
    return list(Roll.objects.filter(campaign=campaign, purpose=purpose).order_by("pk"))


def lines(campaign, kind):
    return [e.text for e in ChronicleEntry.objects.filter(campaign=campaign, kind=kind).order_by("pk")]


def king(campaign, crown="France"):
    return Reign.objects.get(campaign=campaign, crown=crown, end_year__isnull=True).holder


def state(campaign, crown):
    return Crown.objects.get(campaign=campaign, name=crown).state


def rolled(campaign, crown="France", **faces):
    """A succession with typed faces: succession 5 (adult, normal) and middling values by default."""
    given = {"succession": [5], "adm": [5], "dip": [5], "mil": [5], "reign": [5], **{k: [v] for k, v in faces.items()}}
    return monarch_succession_roll(campaign=campaign, crown=crown, faces=given, by=SYSTEM_ACTOR)


def vacant(campaign, crown="France"):
    """Kill the crown's monarch on a typed 10 (and move to the next turn)."""
    monarch_survival_roll(campaign=campaign, crown=crown, faces=[10], by=SYSTEM_ACTOR)
    return campaign


# --- the ruleset and the campaign -------------------------------------------------------------------


def test_only_eu_monarchs_campaigns_roll_on_these_tables(campaign):
    with pytest.raises(RuleError, match="Test Campaign plays Blood Royale; the EU monarch tables belong to campaigns of the eu-"):
        monarch_survival_roll(campaign=campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)


def test_unknown_crown_is_refused(eu_campaign):
    with pytest.raises(NotFound, match="There is no crown called 'Atlantis' in Europa; create it with its settings first"):
        monarch_survival_roll(campaign=eu_campaign, crown="Atlantis", faces=[5], by=SYSTEM_ACTOR)


def test_tables_come_from_the_campaign_else_the_defaults(eu_campaign):
    assert load_eu_tables(eu_campaign) == eu.DEFAULT_TABLES
    edited = eu.defaults()[eu.MONARCH_TABLE]
    edited[4]["survival"] = "dead"  # house rule: a 5 kills too
    RuleTable.objects.create(campaign=eu_campaign, key=eu.MONARCH_TABLE, data=edited)
    result = monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)
    assert result.died and not result.reign_spent


def test_a_broken_stored_table_is_refused_with_its_name(eu_campaign):
    RuleTable.objects.create(campaign=eu_campaign, key=eu.PERIODS, data={"campaign_first_turn": 1, "periods": []})
    with pytest.raises(InvalidTable, match="The campaign's 'eu_periods' table is not valid: The periods must be a non-empty"):
        crown_period(eu_campaign)


def test_crown_period_by_turn_and_campaign_first_turn(eu_campaign):
    assert crown_period(eu_campaign) == eu.Period("I", 1, 1, 6)
    next_turn(eu_campaign, 6)
    assert crown_period(eu_campaign.pk).name == "II"
    tables = eu.defaults()[eu.PERIODS]
    tables["campaign_first_turn"] = 20
    RuleTable.objects.create(campaign=eu_campaign, key=eu.PERIODS, data=tables)
    assert crown_period(eu_campaign) == eu.Period("IV", 26, 26, 34)  # campaign turn 7 is EU turn 26


# --- survival ---------------------------------------------------------------------------------------


def test_survival_nothing_is_logged_and_once_a_turn(eu_campaign):
    louis = king(eu_campaign)
    result = monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)
    assert (result.result.outcome, result.died, result.result.total) == ("", False, 5)
    [roll] = rolls(eu_campaign, "monarch_survival")
    assert roll.faces == [5] and roll.modifier == 0 and roll.outcome == "nothing" and roll.source == RollSource.ENTERED
    assert list(roll.characters.all()) == [louis]
    assert "survival roll 5 = 5: nothing" in lines(eu_campaign, "monarch_survival")[0]
    assert state(eu_campaign, "France")["survival_year"] == eu_campaign.current_year
    with pytest.raises(RuleError, match="France has already made its monarch's survival roll in 1300"):
        monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)
    next_turn(eu_campaign)
    monarch_survival_roll(campaign=eu_campaign, crown="France", source=FixedSource([[4]]), by=SYSTEM_ACTOR)
    assert rolls(eu_campaign, "monarch_survival")[-1].source == RollSource.SERVER


def test_typed_faces_are_checked(eu_campaign):
    with pytest.raises(InvalidDice, match=r"survival roll of .* \(France\) needs 1 die of 1-10 \(1d10\); 11 cannot be rolled"):
        monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[11], by=SYSTEM_ACTOR)


def test_a_one_lengthens_the_reign_by_a_turn(eu_campaign):
    vacant(eu_campaign)
    rolled(eu_campaign, reign=1)  # 3 turns: to 1315
    next_turn(eu_campaign)
    result = monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[1], by=SYSTEM_ACTOR)
    assert result.result.extra_turn and result.planned_end_year == 1320
    assert Reign.objects.get(campaign=eu_campaign, crown="France", end_year__isnull=True).planned_end_year == 1320
    assert "lasts a turn longer (to 1320)" in lines(eu_campaign, "reign")[0]


def test_a_ten_kills_and_leaves_the_throne_to_the_succession_roll(eu_campaign):
    louis = king(eu_campaign)
    result = monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[10], by=SYSTEM_ACTOR)
    louis.refresh_from_db()
    assert result.died and louis.status == Status.DEAD and louis.death_year == 1300
    reign = Reign.objects.get(campaign=eu_campaign, crown="France", holder=louis)
    assert reign.end_year == 1300
    assert "dies (the survival roll); the succession roll is due" in lines(eu_campaign, "death")[-1]
    next_turn(eu_campaign)
    with pytest.raises(RuleError, match="France has no monarch: roll the succession"):
        monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)


def test_a_reign_whose_rolled_length_is_spent_ends(eu_campaign):
    vacant(eu_campaign)
    rolled(eu_campaign, reign=1)  # 3 turns, 1300 to 1315
    next_turn(eu_campaign, 3)
    result = monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)
    assert result.died and result.reign_spent
    assert "dies (the end of his rolled reign)" in lines(eu_campaign, "death")[-1]


def test_survival_modifiers_fragile_health_crisis_and_negative_stability(eu_campaign):
    vacant(eu_campaign)
    Crown.objects.filter(campaign=eu_campaign, name="France").update(stability=-1)
    rolled(eu_campaign, succession=1, age=2)  # Dynastic Crisis: -2 Stability
    assert Crown.objects.get(campaign=eu_campaign, name="France").stability == -3
    monarch_crown_configure(campaign=eu_campaign, crown="France", settings={"fragile_health": True}, by=SYSTEM_ACTOR)
    next_turn(eu_campaign)
    status = monarch_status(campaign=eu_campaign, crown="France")
    assert status.survival_modifiers == [(1, "Fragile Health"), (2, "turn 1 after a Dynastic Crisis"), (1, "Stability -3")]
    result = monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)
    assert result.result.total == 9 and not result.died
    assert rolls(eu_campaign, "monarch_survival")[-1].modifier == 4
    next_turn(eu_campaign)
    assert (1, "turn 2 after a Dynastic Crisis") in monarch_status(campaign=eu_campaign, crown="France").survival_modifiers
    result = monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[7], by=SYSTEM_ACTOR)
    assert result.result.total == 10 and result.died


def test_turkey_pasha_revolt_and_revolt_with_dynastic_crisis(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Turkey", settings={"base_column_event_passed": False}, by=SYSTEM_ACTOR)
    monarch_place_named(campaign=eu_campaign, crown="Turkey", given_name="Bayezid", adm=6, dip=4, mil=6, by=SYSTEM_ACTOR)
    status = monarch_status(campaign=eu_campaign, crown="Turkey")
    assert status.rules.turkey and status.survival_modifiers == [(1, "Turkey, MIL 6 below 7")]
    assert monarch_survival_roll(campaign=eu_campaign, crown="Turkey", faces=[4], by=SYSTEM_ACTOR).result.turkish == "pasha"
    assert "Turkey: Pasha" in lines(eu_campaign, "pasha")[0]
    next_turn(eu_campaign)
    assert monarch_survival_roll(campaign=eu_campaign, crown="Turkey", faces=[8], by=SYSTEM_ACTOR).result.turkish == "revolt"
    assert CrownEvent.objects.filter(crown__name="Turkey", kind="revolt").count() == 1
    next_turn(eu_campaign)
    result = monarch_survival_roll(campaign=eu_campaign, crown="Turkey", faces=[10], by=SYSTEM_ACTOR)
    assert result.died and result.result.crisis
    assert CrownEvent.objects.filter(crown__name="Turkey", kind="revolt").count() == 2
    assert state(eu_campaign, "Turkey")["pending_crisis"] is True
    new = monarch_succession_roll(
        campaign=eu_campaign,
        crown="Turkey",
        faces={"succession": [5], "adm": [5], "dip": [5], "mil": [5], "reign": [5]},
        by=SYSTEM_ACTOR,
    )
    assert new.crisis and not new.reading.crisis
    assert "pending_crisis" not in state(eu_campaign, "Turkey")
    assert Crown.objects.get(campaign=eu_campaign, name="Turkey").stability == -2
    # Turkey's base column is 4, moved right by the former Sultan's ADM 6 and MIL 6, not by his DIP 4
    assert new.columns == {"adm": 5, "dip": 4, "mil": 5}
    assert new.values == {"adm": 5, "dip": 4, "mil": 5}


# --- succession -------------------------------------------------------------------------------------


def test_succession_roll_makes_a_monarch_with_values_and_a_reign(eu_campaign):
    vacant(eu_campaign)
    new = rolled(eu_campaign, adm=10, dip=1, mil=6, reign=4)
    # France's base column is 5 (before III-11); the Blood Royale King had no ADM/DIP/MIL
    assert new.columns == {"adm": 5, "dip": 5, "mil": 5}
    assert new.values == {"adm": 9, "dip": 3, "mil": 5}
    assert new.reign_turns == 6 and new.reign.planned_end_year == 1330 and new.reign.start_year == 1300
    monarch = Character.objects.get(pk=new.monarch.pk)
    assert monarch.characteristics == {"adm": 9, "dip": 3, "mil": 5}
    assert monarch.age(1300) == 20 and monarch.status == Status.ALIVE
    assert king(eu_campaign) == monarch
    assert monarch.controlled_by == Dynasty.objects.get(campaign=eu_campaign, crown="France")
    logged = Roll.objects.filter(campaign=eu_campaign, purpose__in=["monarch_succession", "monarch_value", "monarch_reign"])
    assert logged.count() == 5
    for roll in logged:
        assert list(roll.characters.all()) == [monarch] and roll.outcome
    assert [r.detail for r in rolls(eu_campaign, "monarch_value")] == ["ADM column 5", "DIP column 5", "MIL column 5"]
    text = lines(eu_campaign, "succession")[-1]
    assert "becomes King of France: ADM 9, DIP 3, MIL 5 (base column 5 (France)); a reign of 6 turns (to 1330)." in text


def test_the_former_monarchs_values_move_the_column(eu_campaign):
    vacant(eu_campaign)
    rolled(eu_campaign, adm=10, dip=1, mil=7)  # 9 / 3 / 6 on column 5
    next_turn(eu_campaign)
    vacant(eu_campaign)
    new = rolled(eu_campaign, adm=6, dip=6, mil=6)
    assert new.columns == {"adm": 6, "dip": 4, "mil": 6}
    assert new.values == {"adm": 6, "dip": 5, "mil": 6}
    assert "after" in lines(eu_campaign, "succession")[-1] and "ADM 9, DIP 3, MIL 6" in lines(eu_campaign, "succession")[-1]


def test_dynastic_crisis_halves_values_costs_stability_and_rolls_again_for_age(eu_campaign):
    vacant(eu_campaign)
    new = rolled(eu_campaign, succession=1, age=9, adm=10, dip=10, mil=10)
    assert new.crisis and new.stage == "child" and new.values == {"adm": 9, "dip": 9, "mil": 9}
    record = Crown.objects.get(campaign=eu_campaign, name="France")
    assert record.stability == -2
    [event] = CrownEvent.objects.filter(crown=record)
    assert (event.delta, event.stability_after, event.reason) == (-2, -2, "Dynastic Crisis")
    assert record.state["crisis_year"] == 1300 and record.state["minority"] == "child"
    [age_roll] = rolls(eu_campaign, "monarch_age")
    assert age_roll.faces == [9] and age_roll.outcome == "child"
    status = monarch_status(campaign=eu_campaign, crown="France")
    assert status.halved and status.stage == eu.Stage("child", -2, False)
    assert status.effective == {"adm": 2, "dip": 2, "mil": 2}  # 9 halved is 4, a child's -2
    assert new.monarch.age(1300) == 5
    assert "Dynastic Crisis in France" in lines(eu_campaign, "dynastic_crisis")[0]
    next_turn(eu_campaign)
    status = monarch_status(campaign=eu_campaign, crown="France")
    assert not status.halved and status.stage.name == "teenager" and status.effective == {"adm": 8, "dip": 8, "mil": 8}


def test_fragile_health_rolls_again_for_age_and_adds_1_to_survival(eu_campaign):
    vacant(eu_campaign)
    new = rolled(eu_campaign, succession=10, age=3)
    assert new.fragile_health and not new.crisis and new.stage == ""
    assert state(eu_campaign, "France")["fragile_health"] is True
    next_turn(eu_campaign)
    assert monarch_status(campaign=eu_campaign, crown="France").survival_modifiers == [(1, "Fragile Health")]
    assert Crown.objects.get(campaign=eu_campaign, name="France").stability == 0


def test_a_minor_from_the_same_line_without_a_roll_again(eu_campaign):
    vacant(eu_campaign)
    new = rolled(eu_campaign, succession=9)
    assert new.stage == "child" and not rolls(eu_campaign, "monarch_age")
    assert "a child (-2 to each value, cannot lead)" in lines(eu_campaign, "succession")[-1]
    with pytest.raises(RuleError, match="is a child and cannot lead"):
        monarch_military_skill(campaign=eu_campaign, crown="France", source=RandomSource(1), by=SYSTEM_ACTOR)


def test_typed_faces_for_a_succession_must_fit_the_rolls_due(eu_campaign):
    vacant(eu_campaign)
    base = {"succession": [5], "adm": [5], "dip": [5], "mil": [5], "reign": [5]}
    with pytest.raises(RuleError, match="Faces were typed for 'age', but no such roll was due in this succession"):
        monarch_succession_roll(campaign=eu_campaign, crown="France", faces={**base, "age": [3]}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match=r"The roll again for age \(France\) is due: type its faces as 'age' too"):
        monarch_succession_roll(campaign=eu_campaign, crown="France", faces={**base, "succession": [1]}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="The succession has no roll called 'luck'"):
        monarch_succession_roll(campaign=eu_campaign, crown="France", faces={**base, "luck": [3]}, by=SYSTEM_ACTOR)
    without_reign = {k: v for k, v in base.items() if k != "reign"}
    with pytest.raises(RuleError, match=r"The reign length roll \(France\) is due"):
        monarch_succession_roll(campaign=eu_campaign, crown="France", faces=without_reign, by=SYSTEM_ACTOR)
    with pytest.raises(InvalidDice, match=r"MIL roll \(France\) needs 1 die of 1-10"):
        monarch_succession_roll(campaign=eu_campaign, crown="France", faces={**base, "mil": [0]}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Typed faces for the succession are given by roll"):
        monarch_succession_roll(campaign=eu_campaign, crown="France", faces=[5, 5, 5], by=SYSTEM_ACTOR)
    assert not Reign.objects.filter(campaign=eu_campaign, crown="France", end_year__isnull=True).exists()
    assert not Roll.objects.filter(campaign=eu_campaign, purpose="monarch_succession").exists()  # each refusal rolled back


def test_succession_needs_a_vacant_throne(eu_campaign):
    louis = king(eu_campaign)
    with pytest.raises(RuleError, match=f"{louis.display_name} still reigns over France: a new monarch follows his death"):
        rolled(eu_campaign)


def test_a_monarch_who_died_elsewhere_is_succeeded(eu_campaign):
    louis = king(eu_campaign)
    Character.objects.filter(pk=louis.pk).update(status=Status.DEAD, death_year=1300)
    new = monarch_succession_roll(campaign=eu_campaign, crown="France", source=RandomSource(9), by=SYSTEM_ACTOR)
    assert Reign.objects.get(campaign=eu_campaign, holder=louis).end_year == 1300
    assert king(eu_campaign) == new.monarch
    assert all(3 <= v <= 9 for v in new.values.values())


def test_server_rolls_log_every_die(eu_campaign):
    vacant(eu_campaign)
    monarch_succession_roll(
        campaign=eu_campaign, crown="France", source=FixedSource([[1], [10], [4], [5], [6], [7]]), by=SYSTEM_ACTOR
    )
    purposes = [
        r.purpose
        for r in Roll.objects.filter(campaign=eu_campaign)
        .exclude(purpose="monarch_survival")
        .filter(purpose__startswith="monarch")
        .order_by("pk")
    ]
    assert purposes == ["monarch_succession", "monarch_age", "monarch_value", "monarch_value", "monarch_value", "monarch_reign"]


# --- Doges, Poland, Spain, France ---------------------------------------------------------------------


def test_venetian_doges_no_crisis_no_minority_plus_1_minimum_4_reign_minus_2(eu_campaign):
    record = monarch_crown_configure(campaign=eu_campaign, crown="Venice", settings={"country": "Venice"}, by=SYSTEM_ACTOR)
    assert record.home_dynasty is None and record.state == {"country": "Venice"}
    new = monarch_succession_roll(
        campaign=eu_campaign,
        crown="Venice",
        faces={"succession": [1], "adm": [1], "dip": [3], "mil": [10], "reign": [5]},
        by=SYSTEM_ACTOR,
    )
    assert not new.crisis and new.stage == ""
    assert new.values == {"adm": 4, "dip": 5, "mil": 9}
    assert new.reign_turns == 5  # 5 - 2 = 3: five turns
    assert Crown.objects.get(campaign=eu_campaign, name="Venice").stability == 0
    assert [r.modifier for r in rolls(eu_campaign, "monarch_value")] == [1, 1, 1]
    text = lines(eu_campaign, "succession")[-1]
    assert "becomes Doge of Venice" in text and "a Doge: +1 to each value die, minimum 4" in text
    next_turn(eu_campaign)
    vacant(eu_campaign, "Venice")
    new = monarch_succession_roll(
        campaign=eu_campaign,
        crown="Venice",
        faces={"succession": [10], "adm": [1], "dip": [1], "mil": [1], "reign": [1]},
        by=SYSTEM_ACTOR,
    )
    assert new.fragile_health and new.stage == "" and not rolls(eu_campaign, "monarch_age")


def test_a_doge_can_be_switched_on_for_any_crown(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Genoa", settings={"doge": True}, by=SYSTEM_ACTOR)
    new = monarch_succession_roll(campaign=eu_campaign, crown="Genoa", source=RandomSource(4), by=SYSTEM_ACTOR)
    assert all(v >= 4 for v in new.values.values())


def test_poland_era_minus_2_to_the_crisis_and_the_reign(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Poland", settings={"poland_era": True}, by=SYSTEM_ACTOR)
    new = monarch_succession_roll(
        campaign=eu_campaign,
        crown="Poland",
        faces={"succession": [3], "age": [5], "adm": [5], "dip": [5], "mil": [5], "reign": [6]},
        by=SYSTEM_ACTOR,
    )
    assert new.crisis and new.reign_turns == 6
    assert rolls(eu_campaign, "monarch_succession")[0].modifier == -2
    assert rolls(eu_campaign, "monarch_reign")[0].modifier == -2


def test_spain_habsburg_endogamy_and_france_after_iii_11(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Spain", settings={"dynastic_alliances": 8}, by=SYSTEM_ACTOR)
    new = monarch_succession_roll(
        campaign=eu_campaign,
        crown="Spain",
        faces={"succession": [5], "adm": [8], "dip": [8], "mil": [8], "reign": [5]},
        by=SYSTEM_ACTOR,
    )
    assert new.columns == {"adm": 4, "dip": 4, "mil": 4} and new.values == {"adm": 6, "dip": 6, "mil": 6}
    assert "Habsburg endogamy -2 (8 dynastic alliances, period I)" in lines(eu_campaign, "succession")[-1]
    monarch_crown_configure(campaign=eu_campaign, crown="France", settings={"base_column_event_passed": True}, by=SYSTEM_ACTOR)
    assert monarch_status(campaign=eu_campaign, crown="France").rules.base_column == 6
    monarch_crown_configure(campaign=eu_campaign, crown="France", settings={"base_column_event_passed": None}, by=SYSTEM_ACTOR)
    assert monarch_status(campaign=eu_campaign, crown="France").rules.base_column == 5


def test_crown_settings_are_checked(eu_campaign):
    with pytest.raises(IllegalOption, match="There is no crown setting 'dodge'"):
        monarch_crown_configure(campaign=eu_campaign, crown="Venice", settings={"dodge": True}, by=SYSTEM_ACTOR)
    with pytest.raises(IllegalOption, match="Crown setting 'poland_era' must be true or false"):
        monarch_crown_configure(campaign=eu_campaign, crown="Poland", settings={"poland_era": 1}, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="Give at least one setting"):
        monarch_crown_configure(campaign=eu_campaign, crown="Poland", settings={}, by=SYSTEM_ACTOR)
    assert not Crown.objects.filter(campaign=eu_campaign, name__in=["Venice", "Poland"]).exists()
    monarch_crown_configure(campaign=eu_campaign, crown="France", settings={"base_column": 7}, by=SYSTEM_ACTOR)
    assert "France: base_column = 7 (France, base column 7 (set for this crown))." in lines(eu_campaign, "crown_settings")


# --- named monarchs -------------------------------------------------------------------------------


def test_named_monarch_bathory_in_poland(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Poland", settings={"poland_era": True}, by=SYSTEM_ACTOR)
    reign = monarch_place_named(
        campaign=eu_campaign, crown="Poland", given_name="Stefan", dynastic_name="Báthory", adm=8, dip=7, mil=9, by=SYSTEM_ACTOR
    )
    assert reign.holder.characteristics == {"adm": 8, "dip": 7, "mil": 9} and reign.planned_end_year is None
    assert state(eu_campaign, "Poland") == {"poland_era": True, "monarch_id": reign.holder.pk, "named": True}
    assert "Stefan I Báthory becomes King of Poland, a named monarch: ADM 8, DIP 7, MIL 9." in lines(eu_campaign, "succession")
    result = monarch_survival_roll(campaign=eu_campaign, crown="Poland", faces=[5], by=SYSTEM_ACTOR)
    assert not result.died


def test_friedrich_ii_no_survival_roll_for_6_turns(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Prussia", settings={"country": "Prussia"}, by=SYSTEM_ACTOR)
    reign = monarch_place_named(
        campaign=eu_campaign,
        crown="Prussia",
        given_name="Friedrich II",
        dynastic_name="Hohenzollern",
        adm=9,
        dip=9,
        mil=9,
        no_survival_turns=6,
        reign_turns=9,
        by=SYSTEM_ACTOR,
    )
    assert reign.planned_end_year == 1345
    for _ in range(6):
        with pytest.raises(RuleError, match="Friedrich II Hohenzollern makes no survival roll before 1330"):
            monarch_survival_roll(campaign=eu_campaign, crown="Prussia", faces=[10], by=SYSTEM_ACTOR)
        next_turn(eu_campaign)
    assert not monarch_survival_roll(campaign=eu_campaign, crown="Prussia", faces=[5], by=SYSTEM_ACTOR).died


def test_named_monarch_refusals_and_replacing_a_living_monarch(eu_campaign):
    louis = king(eu_campaign)
    with pytest.raises(RuleError, match="A named monarch needs a name"):
        monarch_place_named(campaign=eu_campaign, crown="France", given_name=" ", adm=5, dip=5, mil=5, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="DIP must be a whole number from 0 to 12, got 13"):
        monarch_place_named(campaign=eu_campaign, crown="France", given_name="Henri", adm=5, dip=13, mil=5, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="no_survival_turns must be a whole number from 0 to 30"):
        monarch_place_named(
            campaign=eu_campaign, crown="France", given_name="Henri", adm=5, dip=5, mil=5, no_survival_turns=-1, by=SYSTEM_ACTOR
        )
    with pytest.raises(RuleError, match="reign_turns must be a whole number from 1 to 40"):
        monarch_place_named(
            campaign=eu_campaign, crown="France", given_name="Henri", adm=5, dip=5, mil=5, reign_turns=0, by=SYSTEM_ACTOR
        )
    with pytest.raises(RuleError, match="still reigns over France"):
        monarch_place_named(campaign=eu_campaign, crown="France", given_name="Henri", adm=5, dip=5, mil=5, by=SYSTEM_ACTOR)
    reign = monarch_place_named(
        campaign=eu_campaign, crown="France", given_name="Henri", adm=5, dip=5, mil=5, replace=True, by=SYSTEM_ACTOR
    )
    louis.refresh_from_db()
    assert louis.status == Status.ALIVE and Reign.objects.get(campaign=eu_campaign, holder=louis).end_year == 1300
    assert king(eu_campaign) == reign.holder and reign.holder.dynastic_name == louis.dynastic_name
    assert f"{louis.display_name} steps down from the throne of France." in lines(eu_campaign, "succession")


# --- ransom and military skill ---------------------------------------------------------------------


def test_ransom_of_a_major_monarch_200_ducats_and_minus_2_stability(eu_campaign):
    louis = king(eu_campaign)
    with pytest.raises(RuleError, match="is not a prisoner: there is nothing to ransom"):
        monarch_ransom(campaign=eu_campaign, crown="France", by=SYSTEM_ACTOR)
    england = Dynasty.objects.get(campaign=eu_campaign, crown="England")
    Character.objects.filter(pk=louis.pk).update(prisoner_of=england)
    monarch_ransom(campaign=eu_campaign, crown="France", by=SYSTEM_ACTOR)
    louis.refresh_from_db()
    assert louis.prisoner_of is None
    record = Crown.objects.get(campaign=eu_campaign, name="France")
    assert record.stability == -2
    owed = ChronicleEntry.objects.filter(campaign=eu_campaign, kind="payment_owed")
    assert sorted(e.data["amount"] for e in owed) == [-200, 200]


def test_ransom_of_a_minor_50_ducats(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Genoa", settings={"country": "Genoa"}, by=SYSTEM_ACTOR)
    reign = monarch_place_named(campaign=eu_campaign, crown="Genoa", given_name="Andrea", adm=5, dip=5, mil=5, by=SYSTEM_ACTOR)
    england = Dynasty.objects.get(campaign=eu_campaign, crown="England")
    Character.objects.filter(pk=reign.holder_id).update(prisoner_of=england)
    monarch_ransom(campaign=eu_campaign, crown="Genoa", by=SYSTEM_ACTOR)
    assert Crown.objects.get(campaign=eu_campaign, name="Genoa").stability == 0
    assert "(a minor: ransomed)" in lines(eu_campaign, "release")[-1]  # the public line tells no amount
    [captors] = ChronicleEntry.objects.filter(campaign=eu_campaign, kind="payment_owed", data__dynasty=england.pk)
    assert "50 ducats" in captors.text and captors.readers == f",{england.pk},"  # England's own line


def test_military_skill_with_poland_die_bonus(eu_campaign):
    monarch_crown_configure(campaign=eu_campaign, crown="Poland", settings={"country": "Poland"}, by=SYSTEM_ACTOR)
    monarch_place_named(
        campaign=eu_campaign, crown="Poland", given_name="Jan", dynastic_name="Sobieski", adm=8, dip=7, mil=9, by=SYSTEM_ACTOR
    )
    values = monarch_military_skill(
        campaign=eu_campaign,
        crown="Poland",
        faces={"average": [9], "manoeuvre": [7], "fire": [7], "shock": [9], "siege": [10]},
        by=SYSTEM_ACTOR,
    )
    # MIL 9, 9: "4*" -> average 4, siege starred; manoeuvre 7+1 -> +1, fire 7 -> 0, shock 9+1 -> +2, siege 10 -> +2
    assert values == {"manoeuvre": 5, "fire": 4, "shock": 6, "siege": 3}
    assert state(eu_campaign, "Poland")["leader"] == {**values, "year": 1300}
    with pytest.raises(RuleError, match="Faces were typed for 'siege', but no such roll was due"):
        monarch_military_skill(
            campaign=eu_campaign,
            crown="Poland",
            faces={"average": [1], "manoeuvre": [7], "fire": [7], "shock": [9], "siege": [10]},
            by=SYSTEM_ACTOR,
        )


# --- fixed-seed statistics of the service ------------------------------------------------------------


def test_survival_service_frequencies_match_the_exact_odds(eu_campaign):
    """3,000 survival rolls: 2,700 through the pure reading with the server's generator, 300 through
    the service itself (a named King re-placed whenever one dies); each outcome's count must lie
    within 3 standard deviations of the exact odds."""
    table = eu.DEFAULT_MONARCH_TABLE
    odds = eu.survival_odds(table)
    counts = dict.fromkeys(odds, 0)
    pure = RandomSource(1517)
    for _ in range(2_700):
        counts[eu.survival_result(table, pure.faces(D10)).outcome] += 1
    service_counts = dict.fromkeys(odds, 0)
    monarch_crown_configure(campaign=eu_campaign, crown="Bohemia", settings={"country": "Bohemia"}, by=SYSTEM_ACTOR)
    monarch_place_named(campaign=eu_campaign, crown="Bohemia", given_name="Jiri", adm=5, dip=5, mil=5, by=SYSTEM_ACTOR)
    source = RandomSource(1618)
    for _ in range(300):
        result = monarch_survival_roll(campaign=eu_campaign, crown="Bohemia", source=source, by=SYSTEM_ACTOR)
        service_counts[result.result.outcome] += 1
        next_turn(eu_campaign)
        if result.died:
            monarch_place_named(campaign=eu_campaign, crown="Bohemia", given_name="Jiri", adm=5, dip=5, mil=5, by=SYSTEM_ACTOR)
    assert Roll.objects.filter(campaign=eu_campaign, purpose="monarch_survival").count() == 300
    for key, p in odds.items():
        assert eu.within_sd(service_counts[key], 300, p), (key, service_counts[key])
        assert eu.within_sd(counts[key] + service_counts[key], 3_000, p), (key, counts[key] + service_counts[key])
    logged = dict.fromkeys(odds, 0)
    for roll in Roll.objects.filter(campaign=eu_campaign, purpose="monarch_survival"):
        logged[eu.survival_result(table, roll.faces).outcome] += 1
    assert logged == service_counts  # the log replays to the same outcomes


def test_succession_service_frequencies_match_the_exact_odds(eu_campaign):
    """200 successions through the service: crisis, Fragile Health and minority within 3 sd."""
    monarch_crown_configure(campaign=eu_campaign, crown="Naples", settings={"country": "Naples"}, by=SYSTEM_ACTOR)
    source = RandomSource(1442)
    outcomes = {"crisis": 0, "fragile": 0, "": 0}
    stages: dict[str, int] = {}
    n = 200
    for _ in range(n):
        new = monarch_succession_roll(campaign=eu_campaign, crown="Naples", source=source, by=SYSTEM_ACTOR)
        outcomes[new.reading.outcome] += 1
        stages[new.stage] = stages.get(new.stage, 0) + 1
        assert all(3 <= v <= 9 for v in new.values.values())
        assert 3 <= new.reign_turns <= 12
        Character.objects.filter(pk=new.monarch.pk).update(status=Status.DEAD, death_year=eu_campaign.current_year)
    for key, p in eu.succession_odds(eu.DEFAULT_MONARCH_TABLE).items():
        assert eu.within_sd(outcomes[key], n, p), (key, outcomes[key])
    for key, p in eu.minority_odds(eu.DEFAULT_MONARCH_TABLE).items():
        assert eu.within_sd(stages.get(key, 0), n, p), (key, stages.get(key, 0))
