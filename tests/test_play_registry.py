"""A ruleset is a registered play package (issue 35): every ruleset has one, with every step; the
step services ask it and read no ruleset flag (``campaign.rules.<flag>``) themselves."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path
from types import ModuleType

import pytest

from campaign.models import Campaign, Step
from dynasties.services import play_registry
from dynasties.services.play_announcements import AnnouncementsPlay
from dynasties.services.play_disputes import DisputesPlay
from dynasties.services.play_ending import EndingPlay
from dynasties.services.play_events import EventsPlay
from dynasties.services.play_interphase import InterphasePlay
from dynasties.services.play_marriages import MarriagesPlay
from dynasties.services.play_minor_houses import MinorHousesPlay
from dynasties.services.play_monarchs import MonarchsPlay
from dynasties.services.play_registry import (
    STEPS,
    BirthsPlay,
    Play,
    SurvivalPlay,
    play_of,
    plays,
    plays_interphase,
    register_play,
    registered_plays,
    step_of,
)
from dynasties.services.play_succession import SuccessionPlay
from rules import rulesets
from rules.captures import OnTheMap
from rules.errors import RuleError

ROOT = Path(__file__).resolve().parent.parent
PROTOCOLS = {
    "births": BirthsPlay,
    "survival": SurvivalPlay,
    "monarchs": MonarchsPlay,
    "minor_houses": MinorHousesPlay,
    "interphase": InterphasePlay,
    "succession": SuccessionPlay,
    "ending": EndingPlay,
    "disputes": DisputesPlay,
    "marriages": MarriagesPlay,
    "events": EventsPlay,
    "announcements": AnnouncementsPlay,
}
OPTIONAL = {"interphase", "monarchs", "minor_houses"}
"""Steps a ruleset may not play at all: it registers None for them (``step_of`` refuses, ``plays``
says False)."""
ASKING = (
    "births.py",
    "survival.py",
    "corrections.py",
    "sequence_view.py",
    "interphase.py",
    "succession.py",
    "succession_view.py",
    "succession_choices.py",
    "crowns.py",
    "crowns_view.py",
    "titles.py",
    "pretenders.py",
    "characteristics.py",
    "bloodline_titles.py",
    "bloodline.py",
    "bloodline_sequence.py",
    "minor_houses.py",
    "interim.py",
)
"""The step services that ask the play instead of reading the ruleset's flags."""
MONARCHS_AND_SETUP = (
    "dynasties/services/eu_monarchs.py",
    "dynasties/services/monarchs_view.py",
    "dynasties/services/eu_crowns_view.py",
    "api/views/sequence/monarchs.py",
    "dynasties/services/eu_setup.py",
    "dynasties/services/setup.py",
    "dynasties/table_events/eu_monarchs.py",
    "pages/eu_setup.py",
    "dynasties/services/minor_crowns.py",
)
"""The monarchs' phase and the set-up's modules that ask the play (``step_of(campaign, "monarchs")``)."""
ASKING_MARRIAGES = (
    "dynasties/services/marriages.py",
    "pages/marriages.py",
    "dynasties/services/events.py",
    "dynasties/table_events/captures.py",
    "dynasties/services/announcements.py",
    "dynasties/services/event_deaths.py",
    "dynasties/table_events/deaths.py",
    "dynasties/table_events/minor_houses.py",
)
"""The Marriages, table events' and Announcements' modules (from the repository's root)."""
RULESET_MODULES = {"rules.blood_royale", "rules.bloodline", "rules.eu_monarchs"}


def test_every_ruleset_has_a_play_package_with_every_step() -> None:
    plays = registered_plays()
    assert sorted(plays) == sorted(r.name for r in rulesets())
    assert STEPS == tuple(f.name for f in dataclasses.fields(Play)) == tuple(PROTOCOLS)
    for name, play in plays.items():
        for step in STEPS:
            module = getattr(play, step)
            if module is None and step in OPTIONAL:
                continue
            assert isinstance(module, ModuleType), (name, step)
            assert module.__name__.startswith("dynasties.play.") and module.__name__.endswith(f".{step}"), module.__name__
            assert isinstance(module, PROTOCOLS[step]), (name, step)  # every function of the protocol is there


def test_every_play_package_on_disk_is_registered() -> None:
    on_disk = {p.parent.name for p in (ROOT / "dynasties" / "play").glob("*/__init__.py")}
    registered = {play.births.__name__.split(".")[2] for play in registered_plays().values()}
    assert on_disk == registered == {"blood_royale", "bloodline", "eu_monarchs"}


def test_a_campaign_of_each_ruleset_gets_its_own_play() -> None:
    births = {r.name: play_of(Campaign(ruleset=r.name)).births.__name__ for r in rulesets()}
    assert len(set(births.values())) == len(births)  # one package per ruleset, none shared


def test_each_play_keeps_families_as_its_ruleset_says() -> None:
    """The sequence pages ask the play whether there are families to show (EU: none)."""
    keeps = {r.name: play_of(Campaign(ruleset=r.name)).births.keeps_families() for r in rulesets()}
    assert keeps == {r.name: r.keeps_families for r in rulesets()}
    assert sorted(keeps.values()) == [False, True, True]


def test_each_play_weds_as_its_ruleset_says() -> None:
    """The Marriages service and page ask the play when weddings are held, from what age, and whether
    a match has terms (BloodLine's betrothals: a dowry and a title, wed in the Interphase)."""
    for r in rulesets():
        play = play_of(Campaign(ruleset=r.name)).marriages
        assert play.adult_age() == r.adult_age
        assert play.has_terms() == r.betrothals == (play.terms_help() is not None)
        assert play.wedding_step() == (Step.INTERPHASE if r.betrothals else Step.MARRIAGES)
    assert sorted(play_of(Campaign(ruleset=r.name)).marriages.has_terms() for r in rulesets()) == [False, False, True]


def test_each_play_plays_the_events_its_ruleset_says() -> None:
    """The events service asks the play who is on the map, the neutrals' price, and whether a minor
    monarch has a regent or an annexed crown may be given back (Blood Royale A7 only)."""
    for r in rulesets():
        play = play_of(Campaign(ruleset=r.name)).events
        assert play.neutral_ransom() == r.neutral_ransom
        assert play.terms("killed").rolls is False  # a death recorded as it fell, in every ruleset
        if r.event_rolls:
            assert play.terms("plague").rolls is True
        else:
            with pytest.raises(RuleError, match="Survival rolls for plague are Blood Royale's"):
                play.terms("plague")
        if r.regents:
            assert play.regency_age() == r.regent_min_age
        else:
            with pytest.raises(RuleError, match=f"{r.label} has no regents"):
                play.regency_age()
        if r.gives_back_crowns:
            play.may_give_back_crowns()
        else:
            with pytest.raises(RuleError, match=f"{r.label} gives no crown back"):
                play.may_give_back_crowns()
        assert play.rolls_events() == r.event_rolls
        assert play.at_sea() == (r.prince_pieces or r.royal_leaders)
        assert play.takes_prisoners() == (r.keeps_families or r.monarch_table)
        assert play.interim_claims() == r.stability_track
        assert (play.on_the_map() == OnTheMap.PIECES) == r.prince_pieces  # who an event strikes (event_deaths)
        assert (play.on_the_map() == OnTheMap.LEADERS) == r.royal_leaders
    on_the_map = {r.name: play_of(Campaign(ruleset=r.name)).events.on_the_map() for r in rulesets()}
    assert sorted(on_the_map.values()) == sorted(["pieces", "leaders", "monarchs"])


def test_each_play_says_whom_an_event_strikes() -> None:
    """Who an event may strike (``event_deaths``) is the play's: Blood Royale's pieces for a battle, a
    storm and a plague, BloodLine's royal leaders at sea; a prisoner is spared in every ruleset."""
    for r in rulesets():
        play = play_of(Campaign(ruleset=r.name)).events
        spared = play.struck_problem("killed", name="Hal", piece="", captor="the neutrals")
        assert spared is not None and "Captured characters may not be killed" in spared and "Hal" in spared
        assert play.struck_problem("killed", name="Hal", piece="", captor=None) is None
        if r.prince_pieces:
            assert play.strikes_pieces("battle") and play.strikes_pieces("storm") and not play.strikes_pieces("killed")
            refused = play.struck_problem("battle", name="Hal", piece="", captor=None)
            assert refused is not None and "Hal has no piece on the map" in refused
        if r.royal_leaders:
            assert "royal leaders can be lost at sea" in play.at_sea_rule()


def test_each_play_announces_as_its_ruleset_says() -> None:
    """The Announcements and the turn's advance ask the play whether a King's widow retires, when a
    monarch is of age and whether the GM gives the next turn's year."""
    for r in rulesets():
        play = play_of(Campaign(ruleset=r.name)).announcements
        assert play.widows_retire() == r.kings_widows_retire
        assert play.of_age() == r.adult_age
        assert play.turn_year_given() == r.gm_sets_turn_year
    assert sorted(play_of(Campaign(ruleset=r.name)).announcements.widows_retire() for r in rulesets()) == [False, True, True]


def test_each_play_names_the_houses_of_a_new_campaign() -> None:
    """The set-up asks the play for the default houses: Blood Royale's countries (three players add
    the aristocratic family), the EU crowns in order for the others (the table chooses none)."""
    houses = {r.name: play_of(Campaign(ruleset=r.name)).announcements.default_houses(3, None) for r in rulesets()}
    for r in rulesets():
        crowns = [h.crown for h in houses[r.name]]
        if r.europa_crowns:
            assert len(houses[r.name]) == 3 and all(crowns)
            with pytest.raises(RuleError, match=f"A {r.label} campaign's countries are the first 3 of"):
                play_of(Campaign(ruleset=r.name)).announcements.default_houses(3, ["France"])
        else:
            assert crowns[-1] == "" and houses[r.name][-1].kind == "aristocratic" and len(crowns) == 4
    assert len({tuple(h.crown for h in v) for v in houses.values()}) == 2  # the two EU rulesets share their crowns


def test_the_interphase_is_played_where_its_ruleset_says() -> None:
    """Blood Royale registers its Interphase; the others none (their services refuse, their pages say so)."""
    played = {r.name: plays_interphase(Campaign(ruleset=r.name)) for r in rulesets()}
    assert played == {r.name: r.interphase for r in rulesets()}
    assert sorted(played.values()) == [False, False, True]


def test_the_ending_and_the_disputes_are_played_as_each_ruleset_registers_them() -> None:
    """Money wins Blood Royale only (its example target 800); BloodLine alone rules breaches by majority."""
    for r in rulesets():
        play = play_of(Campaign(ruleset=r.name))
        assert (play.ending.money_wins(), play.ending.money_target_example()) == (r.money_wins, r.money_target_example)
        assert play.disputes.by_majority() == r.majority_disputes
        assert play.survival.effective_ages() == r.effective_ages
    wins = sorted(play_of(Campaign(ruleset=r.name)).ending.money_wins() for r in rulesets())
    majority = sorted(play_of(Campaign(ruleset=r.name)).disputes.by_majority() for r in rulesets())
    assert wins == majority == [False, False, True]


def test_an_unregistered_ruleset_gets_a_clear_error() -> None:
    with pytest.raises(RuleError) as refused:
        play_of(Campaign(ruleset="no-such-game"))
    assert refused.value.code == "unknown_ruleset"
    message = str(refused.value)
    assert "'no-such-game' has no play package registered" in message
    assert "DynastiesConfig.ready()" in message
    for r in rulesets():
        assert r.name in message  # it names the ones there are


def test_a_play_is_registered_once() -> None:
    name = rulesets()[0].name
    with pytest.raises(RuleError) as refused:
        register_play(name, registered_plays()[name])
    assert refused.value.code == "duplicate_play"
    assert registered_plays()[name] is play_registry.play_of(Campaign(ruleset=name))  # the first one stands


# --- no ruleset flag read, no ruleset module imported, by the services that ask the play -------------


def flag_reads(source: str) -> list[str]:
    """Every ``<x>.rules.<name>`` read: a question to the ruleset object the play should answer."""
    return [
        f"{node.value.attr}.{node.attr} (line {node.lineno})"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "rules"
    ]


def ruleset_imports(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in RULESET_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found += [node.module] if node.module in RULESET_MODULES else []
            found += [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in RULESET_MODULES]
    return found


@pytest.mark.parametrize("name", ASKING)
def test_the_step_services_read_no_ruleset_flag_and_import_no_ruleset(name: str) -> None:
    source = (ROOT / "dynasties" / "services" / name).read_text()
    assert flag_reads(source) == []
    assert ruleset_imports(source) == []


@pytest.mark.parametrize("path", MONARCHS_AND_SETUP)
def test_the_monarchs_and_setup_modules_read_no_ruleset_flag_and_import_no_ruleset(path: str) -> None:
    source = (ROOT / path).read_text()
    assert flag_reads(source) == []
    assert ruleset_imports(source) == []


NO_RULESET_IMPORT = ("desk/admin/dynasties.py",)
"""Modules that import no ruleset's own module though they still read a ruleset's plain values."""


@pytest.mark.parametrize("path", NO_RULESET_IMPORT)
def test_the_desk_imports_no_ruleset(path: str) -> None:
    assert ruleset_imports((ROOT / path).read_text()) == []


ASKING_FIGURES = ("dynasties/figures.py",)
"""The figures in battle: the measure, the King's and the royal leaders' ages are the play's
(``play_of(campaign).events.combat()``, ``king_age()``, ``announcements.of_age()``)."""


@pytest.mark.parametrize("path", ASKING_FIGURES)
def test_the_figures_read_no_ruleset_value_and_import_no_ruleset(path: str) -> None:
    source = (ROOT / path).read_text()
    assert flag_reads(source) == []  # no plain value either (the measure, the adult age, the label)
    assert ruleset_imports(source) == []


def test_each_play_keeps_the_figure_in_battle_its_ruleset_says() -> None:
    """The figures ask the play which measure a leader brings to a battle: Blood Royale's Strength,
    BloodLine's battle rolls, none under the EU monarch tables."""
    measures = {r.name: play_of(Campaign(ruleset=r.name)).events.combat() for r in rulesets()}
    assert measures == {r.name: r.combat for r in rulesets()}
    assert sorted(measures.values()) == sorted(["", "battle_rolls", "strength"])


@pytest.mark.parametrize("path", ASKING_MARRIAGES)
def test_the_marriages_modules_read_no_ruleset_flag_and_import_no_ruleset(path: str) -> None:
    source = (ROOT / path).read_text()
    assert flag_reads(source) == []
    assert ruleset_imports(source) == []


def test_each_play_keeps_minor_houses_as_its_ruleset_says() -> None:
    kept = {r.name: plays(Campaign(ruleset=r.name), "minor_houses") for r in rulesets()}
    assert kept == {r.name: r.minor_houses for r in rulesets()}
    assert kept == {r.name: play_of(Campaign(ruleset=r.name)).minor_houses is not None for r in rulesets()}
    assert sorted(kept.values()) == [False, False, True]


def test_only_the_play_whose_titles_descend_pays_their_income() -> None:
    """A title's income (BloodLine, Titles) is the title terms' of the play whose titles descend; the
    others refuse it."""
    for r in rulesets():
        play = play_of(Campaign(ruleset=r.name)).succession
        terms = play.title_terms()
        if play.titles_descend():
            assert terms.income([3, 5, 2]) == 15 and terms.controller_share(15) == 8
            assert sum(terms.income_split([(3, 1), (5, 2)], 1, None).values()) == 13
        else:
            with pytest.raises(RuleError, match="A title's income is BloodLine's"):
                terms.income([3])


def test_only_the_play_that_keeps_minor_houses_has_their_terms() -> None:
    """The minor houses' table events quote the terms of the play that keeps them (BloodLine's)."""
    for r in rulesets():
        campaign = Campaign(ruleset=r.name)
        if r.minor_houses:
            terms = step_of(campaign, "minor_houses").terms()
            assert (terms.marriage_age, terms.nobility_from, terms.box_default) == (15, 6, 1)
            assert terms.offer_letter(True, True) == "a" and terms.offer_letter(False, False) == "d"
            assert (terms.diplomacy_bonus(False, False), terms.diplomacy_bonus(True, False)) == (1, 2)
            assert terms.diplomacy_bonus(True, True) == 4  # the monarch's spouse: the best bonus only
            assert terms.offer_key(True, False, 50, 1500, 1) < terms.offer_key(False, True, 90, 1490, 2)  # b before c
            assert terms.resolution_order([(7, 1500, 0), (3, 1490, 1), (5, 1490, 0)]) == [5, 3, 7]  # eldest first
        else:
            with pytest.raises(RuleError) as refused:
                step_of(campaign, "minor_houses").terms()
            assert refused.value.code == "wrong_ruleset"
            assert str(refused.value) == "Minor houses' rolled monarchs and spouses belong to the BloodLine ruleset."


def test_only_the_eu_play_rolls_monarchs_and_the_others_refuse() -> None:
    rolls = {r.name: plays(Campaign(ruleset=r.name), "monarchs") for r in rulesets()}
    assert rolls == {r.name: r.monarch_table for r in rulesets()}
    assert rolls == {r.name: play_of(Campaign(ruleset=r.name)).monarchs is not None for r in rulesets()}
    eu = next(r.name for r in rulesets() if r.monarch_table)
    for r in rulesets():
        campaign = Campaign(ruleset=r.name, name="Test")
        if r.monarch_table:
            assert step_of(campaign, "monarchs").dice().sides == 10
        else:
            with pytest.raises(RuleError) as refused:
                step_of(campaign, "monarchs").period(campaign)
            assert refused.value.code == "wrong_ruleset"
            assert str(refused.value) == (f"Test plays {r.label}; the EU monarch tables belong to campaigns of the {eu} ruleset.")


def test_a_ruleset_without_the_interphase_is_refused_by_the_same_helper() -> None:
    for r in rulesets():
        campaign = Campaign(ruleset=r.name, name="Test")
        if r.interphase:
            assert step_of(campaign, "interphase") is play_of(campaign).interphase
        else:
            with pytest.raises(RuleError) as refused:
                step_of(campaign, "interphase")
            assert refused.value.code == "wrong_ruleset"
            assert str(refused.value) == (
                "The Interphase helper keeps Blood Royale's taxes and forces; Test plays another ruleset."
            )


def test_no_play_package_keeps_a_module_for_a_step_it_does_not_play() -> None:
    """A ruleset without an optional step registers None for it: no module that refuses every call
    (the refusal is ``step_of``'s, one message per step)."""
    for name, play in registered_plays().items():
        package = ROOT / "dynasties" / "play" / play.births.__name__.split(".")[2]
        for step in OPTIONAL:
            assert (getattr(play, step) is None) == (not (package / f"{step}.py").exists()), (name, step)


ASKING_ELSEWHERE = (
    "dynasties/table_events/titles.py",
    "dynasties/table_events/pretenders.py",
    "dynasties/table_events/crowns.py",
    "pages/titles.py",
    "api/views/crowns.py",
)
"""Doors and table events of the succession that ask its play (the table events' fields quote the
figures of a registered play, read at declaration)."""


@pytest.mark.parametrize("path", ASKING_ELSEWHERE)
def test_the_succession_s_doors_and_table_events_read_no_ruleset_flag_and_import_no_ruleset(path: str) -> None:
    source = (ROOT / path).read_text()
    assert flag_reads(source) == []
    assert ruleset_imports(source) == []


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ("if campaign.rules.effective_ages:\n    pass", 1),
        ("x = world.campaign.rules.keeps_families or c.rules.monarch_table", 2),
        ("succeeds = campaign.rules.birth_succeeds(faces)", 1),
        ("play = play_of(campaign).births\nruleset = campaign.rules", 0),
    ],
)
def test_the_flag_scan_counts_each_read(source: str, count: int) -> None:
    assert len(flag_reads(source)) == count


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from rules import blood_royale as br", ["rules.blood_royale"]),
        ("from rules.bloodline import SURVIVAL", ["rules.bloodline"]),
        ("import rules.eu_monarchs", ["rules.eu_monarchs"]),
        ("from rules import birth_years\nfrom rules.dice import Entered", []),
    ],
)
def test_the_import_scan_finds_a_ruleset_module(source: str, found: list[str]) -> None:
    assert ruleset_imports(source) == found


# --- the whole tree: no ruleset flag read outside the rules and the play packages ------------------

FLAG_READS_LEFT: dict[str, list[str]] = {}
"""The flags still read outside ``rules/`` and ``dynasties/play/`` (issue 35: none; a new one fails)."""


def ruleset_flags() -> set[str]:
    """The ruleset's switches: the boolean fields of ``rules.registry.Ruleset``."""
    from rules.registry import Ruleset

    hints = typing.get_type_hints(Ruleset)
    return {f.name for f in dataclasses.fields(Ruleset) if hints[f.name] is bool}


def test_no_ruleset_flag_is_read_outside_the_rules_and_the_play_packages() -> None:
    flags = ruleset_flags()
    assert {"effective_ages", "monarch_table", "interphase", "money_wins", "majority_disputes"} <= flags
    found: dict[str, list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith((".venv/", "node_modules/", "rules/", "dynasties/play/", "tests/", "bench/")):
            continue
        if "/migrations/" in relative:
            continue
        reads = [
            node.attr
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "rules"
            and node.attr in flags
        ]
        if reads:
            found[relative] = sorted(reads)
    assert found == FLAG_READS_LEFT
