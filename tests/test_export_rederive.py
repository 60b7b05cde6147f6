"""Issue 15: the export carries what is needed to re-derive the game (``regnal/3``): the effective
age used on every BloodLine roll (a field), who controlled each character and crown over time,
Stability changes with a structured cause tied to their reign, the royal leaders' character ids,
and an EU monarch's values as used each turn. Older ``regnal/2`` documents keep importing."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from campaign.models import ChronicleEntry, Roll, RuleTable, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, ControlChange, Crown, CrownEvent, Marriage, Reign
from dynasties.services import campaign_create
from dynasties.services.eu_monarchs import monarch_survival_roll
from operations.exchange import FORMAT, FORMAT_V2, campaign_export, campaign_import
from rules import eu_monarchs as eu_rules
from rules.dice import FixedSource, RandomSource
from rules.errors import InvalidImport
from tests.factories import at_step, person
from tests.test_bloodline_succession import bloodline, kill
from tests.test_bloodline_widows_money import _union, house, monarch, survival, to_next_turn
from tests.test_eu_monarchs import next_turn, rolled, vacant
from tests.test_exchange import to_early_v2, without_slug


@pytest.fixture
def eu(db):
    """BloodLine's own three-player set-up (as tests/test_bloodline_widows_money.py)."""
    return campaign_create(name="Europa", ruleset="eu-bloodline", players=3, source=RandomSource(4))


@pytest.fixture
def eu_campaign(db):
    """A 3-player campaign switched to the eu-monarchs ruleset, with its tables and none of Blood
    Royale's options (the import checks both)."""
    c = campaign_create(name="Europa", players=3, source=RandomSource(3))
    c.ruleset = "eu-monarchs"
    c.optional_rules = {}
    c.save()
    RuleTable.objects.filter(campaign=c).delete()
    for key, data in eu_rules.DEFAULT_TABLES.items():
        RuleTable.objects.create(campaign=c, key=key, data=copy.deepcopy(data))
    return c


def changes(campaign, **kw: Any) -> list[tuple[Any, ...]]:
    rows = ControlChange.objects.filter(campaign=campaign, **kw).order_by("pk")
    return [(c.character_id or c.crown_id, c.from_dynasty_id, c.to_dynasty_id, c.cause) for c in rows]


def round_trips(campaign) -> dict[str, Any]:
    """Export, import, export: the same document apart from the slug. Returns the first export."""
    first = campaign_export(campaign)
    assert first["format"] == FORMAT == "regnal/3"
    again = campaign_export(campaign_import(copy.deepcopy(first)))
    assert without_slug(again) == without_slug(first)
    return first


def spurned(campaign) -> tuple[Character, Reign]:
    """BloodLine: the King dies and his first son is passed over for the second; the skipped heir
    goes to another house (the d2's 1), and his line's turn roll strikes (7) with a revolt (8)."""
    campaign.optional_rules = {}  # the shared cast's Blood Royale options are not BloodLine's (import checks them)
    bloodline(campaign)
    at_step(campaign, Step.SURVIVAL)
    england = house(campaign, "England")
    king = monarch(campaign, "England")
    first = person(campaign, england, "First", "M", 1278, father=king)
    person(campaign, england, "Second", "M", 1279, father=king)
    kill(campaign, king.pk, pass_over={"England": [first.pk]}, source=FixedSource([(1,), (7,), (8,)]))
    first.refresh_from_db()
    return first, Reign.objects.get(campaign=campaign, crown="England", end_year__isnull=True)


# --- who controlled whom ----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_widow_returning_to_her_birth_house_is_a_control_change(eu):
    """BloodLine: 'If her husband dies first, the wife is returned to her original family.' The
    move is recorded: from her husband's house to her birth house, in the Announcements."""
    england, france = house(eu, "England"), house(eu, "France")
    king = monarch(eu, "France")
    queen = Marriage.objects.get(husband=king, ended_year__isnull=True).wife
    Character.objects.filter(pk=queen.pk).update(birth_dynasty=england)
    survival(eu, king.pk)
    to_next_turn(eu, 1497)
    [change] = ControlChange.objects.filter(campaign=eu, character=queen)
    assert (change.from_dynasty, change.to_dynasty, change.cause) == (france, england, "widow_returns")
    assert (change.year, change.step, change.crown) == (1492, Step.ANNOUNCEMENTS, None)
    exported = round_trips(eu)
    queen_id = [c["given_name"] for c in exported["characters"]].index(queen.given_name) + 1
    assert {
        "year": 1492,
        "step": "announcements",
        "character": queen_id,
        "crown": None,
        "from_dynasty": [d["name"] for d in exported["dynasties"]].index(france.name) + 1,
        "to_dynasty": [d["name"] for d in exported["dynasties"]].index(england.name) + 1,
        "cause": "widow_returns",
    } in exported["control_changes"]


@pytest.mark.django_db
def test_a_dynastic_union_moving_the_queen_to_the_kings_house_is_a_control_change(eu):
    """BloodLine, Dynastic Union: 'children of the union belong to the male's dynasty'; the Queen
    comes to the King's house with them, and the move is on the record with its cause."""
    england, france = house(eu, "England"), house(eu, "France")
    queen, _king = _union(eu)
    assert changes(eu, character=queen) == [(queen.pk, england.pk, france.pk, "union")]
    assert queen.controlled_by == france


@pytest.mark.django_db
def test_a_pass_over_moving_the_skipped_heir_is_a_control_change(campaign):
    """BloodLine, Voluntary Disputed Succession: the skipped heir 'will be controlled by another
    player' - the move from his house to the new one is recorded as a pass-over's."""
    england = house(campaign, "England")
    first, _reign = spurned(campaign)
    assert first.controlled_by != england
    assert changes(campaign, character=first) == [(first.pk, england.pk, first.controlled_by_id, "passed_over")]
    exported = round_trips(campaign)
    [row] = [c for c in exported["control_changes"] if c["cause"] == "passed_over"]
    assert exported["characters"][row["character"] - 1]["given_name"] == "First"


# --- Stability with its cause -----------------------------------------------------------------


@pytest.mark.django_db
def test_stability_changes_carry_their_cause_and_reign(campaign):
    """BloodLine: 'if you wish to skip over the first ... character in line to the throne, you will
    suffer ... stability loss' and 'for as along as any of the skipped claimants [live], there is a
    50% chance that 1 stability level is lost or a new revolt is generated each Turn'. Each event
    names its cause as a code and the reign it belongs to; both survive export and import."""
    _first, reign = spurned(campaign)
    events = list(CrownEvent.objects.filter(campaign=campaign).order_by("pk"))
    assert [(e.kind, e.cause, e.reign_id) for e in events] == [
        ("stability", "pass_over", reign.pk),
        ("revolt", "pass_over", reign.pk),
        ("revolt", "disputed_line", reign.pk),
    ]
    exported = round_trips(campaign)
    reign_id = next(r["id"] for r in exported["reigns"] if r["crown"] == "England" and r["end_year"] is None)
    assert [(e["cause"], e["reign"]) for e in exported["crown_events"]] == [
        ("pass_over", reign_id),
        ("pass_over", reign_id),
        ("disputed_line", reign_id),
    ]
    assert [r["id"] for r in exported["reigns"]] == list(range(1, len(exported["reigns"]) + 1))


# --- the effective age and the values as used -------------------------------------------------


@pytest.mark.django_db
def test_a_bloodline_survival_roll_carries_the_effective_age_it_was_read_at(eu):
    """BloodLine: 'Every character in the game must succesfully pass a Survival roll', read in the
    column of his effective age: the age is a field of the roll, not only words in its detail."""
    king = monarch(eu, "France")
    Character.objects.filter(pk=king.pk).update(effective_age_offset=7)
    survival(eu)
    roll = Roll.objects.get(campaign=eu, purpose="survival", subjects__character=king)
    assert roll.effective_age == king.age(eu.current_year) + 7
    assert f"effective age {roll.effective_age} " in roll.detail
    exported = round_trips(eu)
    survival_rolls = [r for r in exported["rolls"] if r["purpose"] == "survival"]
    assert survival_rolls and all(isinstance(r["effective_age"], int) for r in survival_rolls)
    assert all(r["effective_age"] is None for r in exported["rolls"] if r["purpose"] == "sex")


@pytest.mark.django_db
def test_royal_leaders_lines_name_the_leaders_by_character_id(eu):
    """BloodLine's royal leaders ('the person in line to the throne of the present dynasty'): the
    Announcements' line carries the leaders' ids, exported as export ids."""
    survival(eu)
    to_next_turn(eu, 1497)
    line = ChronicleEntry.objects.filter(campaign=eu, kind="leaders").order_by("pk").first()
    assert line is not None and line.data["leaders"]
    leaders = Character.objects.filter(pk__in=line.data["leaders"])
    assert len(leaders) == len(line.data["leaders"])
    assert all(c.display_name in line.text for c in leaders)
    exported = round_trips(eu)
    entry = next(e for g in exported["chronicle"] for e in g["entries"] if e["kind"] == "leaders")
    named = [exported["characters"][i - 1] for i in entry["data"]["leaders"]]
    assert all(f"{c['given_name']} {c['dynastic_name']}" in entry["text"] for c in named)


@pytest.mark.django_db
def test_an_eu_monarchs_values_as_used_each_turn_are_on_its_rolls(eu_campaign):
    """EU monarchs: a Dynastic Crisis halves the new monarch's values for his first turn and a
    minor takes his stage's penalty: the values as used that turn are on the reign roll, then on
    each turn's survival roll; the Crisis's -2 Stability names its cause and reign."""
    vacant(eu_campaign)
    new = rolled(eu_campaign, succession=1, age=9, adm=10, dip=10, mil=10)  # a crisis; a child of 5
    reign_roll = Roll.objects.get(campaign=eu_campaign, purpose="monarch_reign")
    assert reign_roll.values_used == {"adm": 2, "dip": 2, "mil": 2}  # 9 halved is 4, a child's -2
    [event] = CrownEvent.objects.filter(campaign=eu_campaign)
    assert (event.cause, event.reign) == ("dynastic_crisis", new.reign)
    next_turn(eu_campaign)
    monarch_survival_roll(campaign=eu_campaign, crown="France", faces=[5], by=SYSTEM_ACTOR)
    survival_roll = Roll.objects.filter(campaign=eu_campaign, purpose="monarch_survival").latest("pk")
    assert survival_roll.values_used == {"adm": 8, "dip": 8, "mil": 8}  # a teenager's -1, no longer halved
    exported = round_trips(eu_campaign)
    assert [r["values_used"] for r in exported["rolls"] if r["purpose"] == "monarch_reign"] == [{"adm": 2, "dip": 2, "mil": 2}]
    assert exported["rolls"][-1]["values_used"] == {"adm": 8, "dip": 8, "mil": 8}


# --- older documents and bad ones -------------------------------------------------------------


@pytest.mark.django_db
def test_an_older_regnal_2_document_still_imports_with_the_defaults(campaign):
    """A document written before regnal/3 has no control changes, reign ids, causes, effective ages
    nor values used: it imports, and they take their defaults."""
    spurned(campaign)
    old = to_early_v2(campaign_export(campaign))
    assert old["format"] == FORMAT_V2 and "control_changes" not in old
    assert all("id" not in r for r in old["reigns"]) and all("effective_age" not in r for r in old["rolls"])
    imported = campaign_import(old)
    assert not ControlChange.objects.filter(campaign=imported).exists()
    assert not CrownEvent.objects.filter(campaign=imported).exclude(cause="").exists()
    assert not CrownEvent.objects.filter(campaign=imported, reign__isnull=False).exists()
    assert not Roll.objects.filter(campaign=imported, effective_age__isnull=False).exists()
    again = campaign_export(imported)
    assert again["format"] == FORMAT and again["control_changes"] == []
    assert [r["id"] for r in again["reigns"]] == list(range(1, len(again["reigns"]) + 1))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda d: d["control_changes"][0].update(crown=1), "control_changes[0].character: a control change is of a"),
        (lambda d: d["control_changes"][0].update(character=None), "control_changes[0].character: a control change is of a"),
        (lambda d: d["control_changes"][0].update(to_dynasty=d["control_changes"][0]["from_dynasty"]), "nothing changed hands"),
        (lambda d: d["control_changes"][0].update(cause=""), "control_changes[0].cause: must not be empty"),
        (lambda d: d["crown_events"][0].update(reign=999), "crown_events[0].reign: no reign with id 999"),
        (lambda d: d["reigns"][1].update(id=1), "reigns[1].id: the reign id 1 is already used by reigns[0]"),
        (lambda d: d["rolls"][0].update(effective_age=-1), "rolls[0].effective_age: -1 is outside"),
        (lambda d: d["rolls"][0].update(values_used={"adm": "x"}), "rolls[0].values_used.adm: must be a whole number"),
    ],
)
def test_bad_regnal_3_additions_are_refused_and_leave_nothing(campaign, spoil, message):
    spurned(campaign)
    doc = campaign_export(campaign)
    spoil(doc)
    before = Crown.objects.count()
    with pytest.raises(InvalidImport) as caught:
        campaign_import(doc)
    assert message in caught.value.message
    assert Crown.objects.count() == before
