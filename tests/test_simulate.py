"""The ``simulate`` command and its automatic player (operations/simulation.py): whole turns of the
Dynastic Sequence (RULES.md A1, A4-A7) played through the services, replayable from a seed."""

from __future__ import annotations

import re
from io import StringIO
from itertools import pairwise

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.models import Campaign, ChronicleEntry, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from dynasties.models import Character, Dynasty, Marriage, Status
from dynasties.services import campaign_create
from dynasties.services.marriages import unmatched_adults
from operations.simulation import house_sizes, law_summary, law_table, play_marriages, play_turn
from operations.simulation import simulate as simulate_turns
from rules.dice import RandomSource

TURNS = 3


def simulate(*args: str) -> tuple[Campaign, str]:
    out = StringIO()
    before = set(Campaign.objects.values_list("pk", flat=True))
    call_command("simulate", *args, stdout=out)
    [campaign] = Campaign.objects.exclude(pk__in=before)
    return campaign, out.getvalue()


def run(seed: int, name: str = "Sim A", turns: int = TURNS) -> tuple[Campaign, str]:
    return simulate("--turns", str(turns), "--seed", str(seed), "--name", name, "--players", "5")


def signature(campaign: Campaign) -> tuple[list[tuple], list[list[int]]]:
    """What must replay exactly: every character and every roll's faces, in order."""
    characters = [
        (c.given_name, c.sex, c.birth_year, c.status, c.death_year, c.characteristics)
        for c in Character.objects.filter(campaign=campaign).order_by("pk")
    ]
    faces = [r.faces for r in Roll.objects.filter(campaign=campaign).order_by("pk")]
    return characters, faces


@pytest.mark.django_db
def test_the_same_seed_replays_the_same_campaign_and_another_seed_does_not():
    first, _ = run(7)
    second, _ = run(7)
    assert (first.name, second.name) == ("Sim A", "Sim A")
    assert first.slug == "sim-a" and second.slug == "sim-a-2"  # a second campaign, not the first one again
    assert signature(first) == signature(second)
    assert len(signature(first)[1]) > 50  # set-up, births, sexes, characteristics, survival
    assert list(Marriage.objects.filter(campaign=first).values_list("arranged_year", "wedding_year", "ended_year")) == list(
        Marriage.objects.filter(campaign=second).values_list("arranged_year", "wedding_year", "ended_year")
    )
    assert [e.text for e in ChronicleEntry.objects.filter(campaign=first).order_by("pk")] == [
        e.text for e in ChronicleEntry.objects.filter(campaign=second).order_by("pk")
    ]
    other, _ = run(8, name="Sim B")
    assert signature(other) != signature(first)


@pytest.mark.django_db
def test_the_command_prints_a_summary():
    campaign, output = run(7)
    characters = Character.objects.filter(campaign=campaign)
    # issue 15: after its line, the table of how often each part of the law was played
    assert output == (
        f"Sim A (sim-a): {TURNS} turns played, now {1300 + 5 * TURNS}; "
        f"{characters.count()} characters, {characters.filter(status=Status.ALIVE).count()} alive.\n"
        f"The law played (times each part):\n{law_table(law_summary(campaign))}\n"
    )


@pytest.mark.django_db
@pytest.mark.parametrize("turns", [0, 1, TURNS])
def test_a1_after_n_turns_the_campaign_is_n_turns_on_at_the_births(turns):
    """A1: a campaign starts in 1300 and a turn is 5 years; each turn begins with the Births."""
    campaign, _ = run(11, turns=turns)
    assert (campaign.current_year, campaign.step, campaign.turn_number) == (1300 + 5 * turns, Step.BIRTHS, turns + 1)
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="announcements").count() == turns
    years = list(
        ChronicleEntry.objects.filter(campaign=campaign, kind="announcements").order_by("year").values_list("year", flat=True)
    )
    assert years == [1300 + 5 * n for n in range(turns)]


@pytest.mark.django_db
def test_every_roll_is_logged_with_an_outcome_and_its_subjects():
    campaign, _ = run(7)
    rolls = list(Roll.objects.filter(campaign=campaign).prefetch_related("subjects"))
    assert {r.purpose for r in rolls} >= {"birth", "sex", "characteristic", "survival"}
    assert all(r.outcome for r in rolls)
    for roll in rolls:
        subjects = [s.character_id for s in roll.subjects.all()]
        if roll.purpose == "birth":
            assert len(subjects) == 2, roll  # the couple
            assert roll.outcome in {"child", "no child"} and roll.target == 7
        elif roll.purpose == "survival":
            assert len(subjects) == 1, roll
            assert roll.outcome in {"survived", "died"} and roll.target is not None
        elif roll.purpose in {"sex", "characteristic"}:
            assert len(subjects) == 1, roll
        assert roll.source == "server"
    # a death in the log is a death on the sheet, and the other way round
    died = {r.subjects.all()[0].character_id for r in rolls if r.purpose == "survival" and r.outcome == "died"}
    assert died == set(
        Character.objects.filter(campaign=campaign, status=Status.DEAD, death_cause="failed survival roll").values_list(
            "pk", flat=True
        )
    )


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [7, 8, 9])
def test_a6_the_policy_arranges_only_legal_matches(seed):
    """A6: never two of the same dynastic name; one open match per person; weddings at 15 or more."""
    campaign, _ = run(seed, turns=6)
    matches = list(Marriage.objects.filter(campaign=campaign).select_related("husband", "wife"))
    made_in_play = [m for m in matches if m.arranged_year >= 1300]
    assert made_in_play, "the policy arranged no match at all"
    for m in matches:
        assert m.husband.sex == "M" and m.wife.sex == "F"
        assert m.husband.dynastic_name != m.wife.dynastic_name, m
    for m in made_in_play:
        assert m.husband.origin != "baron"
        if m.wedding_year is not None:
            assert m.husband.age(m.wedding_year) >= 15 and m.wife.age(m.wedding_year) >= 15, m
    # nobody is in two matches at once
    for spouse in ("husband_id", "wife_id"):
        open_ones = [getattr(m, spouse) for m in matches if m.ended_year is None]
        assert len(open_ones) == len(set(open_ones))
        by_person: dict[int, list[Marriage]] = {}
        for m in matches:
            by_person.setdefault(getattr(m, spouse), []).append(m)
        for spells in by_person.values():
            spells.sort(key=lambda m: (m.arranged_year, m.pk))
            for earlier, later in pairwise(spells):
                assert earlier.ended_year is not None and earlier.ended_year <= later.arranged_year
    # the dead and the retired hold no open match (A5: death ends every match of the dead)
    for m in matches:
        if m.ended_year is None:
            assert (m.husband.status, m.wife.status) == (Status.ALIVE, Status.ALIVE), m


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--turns", "-1"], "--turns must be 0 or more."),
        (["--players", "9"], "Blood Royale is for 3 to 5 players; 9 were asked for."),
        (["--players", "2"], "Blood Royale is for 3 to 5 players; 2 were asked for."),
        (["--ruleset", "chess"], "Unknown ruleset 'chess'; choose one of blood-royale, eu-bloodline, eu-monarchs."),
        (["--turns", "many"], "argument --turns: invalid int value: 'many'"),
        (["--house-size", "0"], "--house-size must be 1 or more."),
    ],
)
def test_invalid_arguments_are_refused_clearly_and_leave_no_campaign(args, message):
    with pytest.raises(CommandError) as err:
        call_command("simulate", "--seed", "7", "--name", "Broken", *args, stdout=StringIO())
    assert message in str(err.value)
    assert not Campaign.objects.exists()
    assert not Character.objects.exists()


@pytest.mark.django_db
def test_a_taken_slug_is_refused_and_the_first_campaign_is_untouched():
    first, _ = simulate("--turns", "1", "--seed", "7", "--slug", "chronicle")
    before = signature(first)
    with pytest.raises(CommandError, match=re.escape("The slug 'chronicle' is taken; choose another.")):
        call_command("simulate", "--turns", "1", "--seed", "8", "--slug", "chronicle", stdout=StringIO())
    assert Campaign.objects.count() == 1
    assert signature(first) == before


@pytest.mark.django_db
def test_a_house_at_its_size_matches_none_of_its_men_but_its_daughters_still_marry_out():
    """The player's strategy, not a rule: a house with ``house_size`` living members arranges no match
    for its men; its daughters may still be matched into other houses."""
    campaign = simulate_turns(
        campaign_create(name="Full", players=5, source=RandomSource(4)), turns=12, source=RandomSource(4), by=SYSTEM_ACTOR
    )
    campaign.step = Step.MARRIAGES
    campaign.save()
    sizes = house_sizes(campaign)
    free = unmatched_adults(campaign)
    # a house with a son and a daughter free to marry, the smallest such: it is the one kept to its size
    full = min(
        {c.controlled_by_id for c in free if c.sex == "M"} & {c.controlled_by_id for c in free if c.sex == "F"},
        key=lambda house: (sizes[house], house),
    )
    assert any(n < sizes[full] for n in sizes.values())  # some house is smaller: its men may marry
    play_marriages(campaign, house_size=sizes[full], by=SYSTEM_ACTOR)
    made = Marriage.objects.filter(campaign=campaign, arranged_year=campaign.current_year)
    grooms = list(made.values_list("husband__controlled_by", flat=True))
    assert grooms and all(sizes[house] < sizes[full] for house in grooms)
    assert full in set(made.values_list("wife__birth_dynasty", flat=True))  # one of its daughters married out


@pytest.mark.long
@pytest.mark.django_db
@pytest.mark.long_simulation
def test_a_long_campaigns_houses_stay_bounded():
    """Left alone the houses grew about 2.5x every 10 turns (1,149 characters at 50 turns); kept to 8
    living members each, no house outgrows a few more (children already on the way, brides), and the
    campaign grows by a steady number of characters a turn."""
    source = RandomSource(7)
    campaign = campaign_create(name="Bounded", players=5, source=source)
    largest: list[int] = []
    for _ in range(40):
        campaign = play_turn(campaign, source, house_size=8, by=SYSTEM_ACTOR)
        largest.append(max(house_sizes(campaign).values()))
    assert max(largest) <= 8 + 4, largest
    assert min(largest[-10:]) >= 6  # bounded, not dying out
    assert Dynasty.objects.filter(campaign=campaign).count() == len(house_sizes(campaign)) == 5
    assert Character.objects.filter(campaign=campaign).count() < 300
