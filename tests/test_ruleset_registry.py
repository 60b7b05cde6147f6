"""What varies by ruleset is asked of the ruleset object (rules.registry), never read off its name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules import RULESET_LABELS, get_ruleset, rulesets

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("campaign", "dynasties", "contracts", "operations", "pages", "api", "desk", "templates")
NAMES = "|".join(re.escape(name) for name in RULESET_LABELS)
NAME_STRING = re.compile(rf"""["']({NAMES})["']""")
COMPARISON = re.compile(
    r"\bruleset\s*(==|!=)|(==|!=)\s*\w*\.?ruleset\b|\bruleset\s+(not\s+)?in\s*[(\[{]"
    r"|(==|!=)\s*\w+\.NAME\b|\b\w+\.NAME\s*(==|!=)"
)


def _sources() -> list[Path]:
    files = [p for top in SCANNED for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".html")]
    return [p for p in files if "migrations" not in p.parts]


def offending_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if NAME_STRING.search(line) or COMPARISON.search(line)]


def test_no_ruleset_name_is_compared_or_spelled_outside_the_registry() -> None:
    found = {str(path.relative_to(ROOT)): lines for path in _sources() if (lines := offending_lines(path.read_text()))}
    assert found == {}


@pytest.mark.parametrize(
    "line",
    [
        'if campaign.ruleset == "eu-bloodline":',
        "if campaign.ruleset != bl.NAME:",
        "bloodline = world.campaign.ruleset in (br.NAME, bl.NAME)",
        '{% if campaign.ruleset == "eu-bloodline" %}',
        "CURRENCY = {'blood-royale': 'Crowns'}",
        "if bl.NAME == ruleset:",
    ],
)
def test_the_scan_finds_a_branch_on_the_name(line: str) -> None:
    assert offending_lines(line) == [line]


@pytest.mark.parametrize(
    "line",
    [
        "if campaign.rules.unions:",
        "for ruleset in RULESET_LABELS:",
        "LAW = {br.NAME: (), bl.NAME: ()}",
        "ruleset = get_ruleset(name)",
    ],
)
def test_the_scan_lets_questions_to_the_ruleset_pass(line: str) -> None:
    assert offending_lines(line) == []


def test_every_ruleset_is_registered_once_with_its_tables() -> None:
    assert [r.name for r in rulesets()] == list(RULESET_LABELS)
    for ruleset in rulesets():
        assert get_ruleset(ruleset.name) is ruleset
        assert set(ruleset.tables) == set(ruleset.validators) == set(ruleset.table_titles)
        for key, data in ruleset.tables.items():
            assert ruleset.validators[key](data) == data
