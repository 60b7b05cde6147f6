"""The operations of each ruleset are registered (issue 35): its demo and the automatic player's law
live in one module of ``operations/play/`` a ruleset, the only modules of ``operations`` importing a
ruleset's own module; ``operations.services`` and ``operations.simulation`` ask the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from operations.services import DEMO_RULESETS, DEMO_SLUG, Demo, demo_create, register_demo
from operations.simulation import LAW, LAW_PLAYERS, play_law, register_law
from rules import default_ruleset, rulesets
from rules.dice import RandomSource
from rules.errors import RuleError
from tests.test_play_registry import ruleset_imports

ROOT = Path(__file__).resolve().parent.parent


def test_every_ruleset_has_its_demo_and_its_law_registered() -> None:
    names = {r.name for r in rulesets()}
    assert set(LAW_PLAYERS) == set(LAW) == set(DEMO_RULESETS) == names
    for name, player in LAW_PLAYERS.items():
        assert player.__module__.startswith("operations.play."), (name, player.__module__)
        assert LAW[name] and all(part.name for part in LAW[name])
    slugs = [demo.slug for demo in DEMO_RULESETS.values()]
    prefixes = [demo.prefix for demo in DEMO_RULESETS.values()]
    assert len(set(slugs)) == len(slugs) and len(set(prefixes)) == len(prefixes)  # no two demos share a slug or logins
    assert DEMO_RULESETS[default_ruleset().name] == Demo(slug=DEMO_SLUG, name="Demo Campaign", prefix="")


def test_only_the_operations_play_modules_import_a_ruleset() -> None:
    importing = {
        path.relative_to(ROOT).as_posix() for path in (ROOT / "operations").rglob("*.py") if ruleset_imports(path.read_text())
    }
    assert importing and all(p.startswith("operations/play/") for p in importing), importing


def test_a_ruleset_s_operations_are_registered_once() -> None:
    name = rulesets()[0].name
    player, parts, demo = LAW_PLAYERS[name], LAW[name], DEMO_RULESETS[name]
    with pytest.raises(RuleError) as twice:
        register_law(name, player=player, parts=())
    assert twice.value.code == "duplicate_law"
    with pytest.raises(RuleError) as again:
        register_demo(name, Demo(slug="elsewhere", name="Another", prefix="x-"))
    assert again.value.code == "duplicate_demo"
    assert (LAW_PLAYERS[name], LAW[name], DEMO_RULESETS[name]) == (player, parts, demo)  # the first ones stand


def test_a_ruleset_without_a_registered_law_gets_a_clear_error() -> None:
    with pytest.raises(RuleError) as refused:
        play_law(Campaign(ruleset="no-such-game"), RandomSource(1), by=SYSTEM_ACTOR)
    assert refused.value.code == "unknown_ruleset"
    message = str(refused.value)
    assert "'no-such-game' has no automatic player's law registered" in message
    assert "OperationsConfig.ready()" in message
    assert all(r.name in message for r in rulesets())


@pytest.mark.django_db
def test_a_ruleset_without_a_demo_is_refused_naming_those_there_are() -> None:
    with pytest.raises(RuleError) as refused:
        demo_create(ruleset="no-such-game")
    assert "There is no demo for the ruleset 'no-such-game'" in str(refused.value)
    assert all(r.name in str(refused.value) for r in rulesets())
