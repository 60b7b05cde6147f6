"""Issue 33 items 1-3: the Blood Royale cross-check's rules for Pretenders' claims, the Charisma roll
of a pass-over, the house a Pretender leaves and the created baron's age are not blind: each finds
the defect in a small export built by hand (docs/export-format.md)."""

from __future__ import annotations

from typing import Any

from tests.crosscheck.common import rule_of
from tests.crosscheck.run import ASSERTED, CHECKS

NEW_RULES = ("BR-pretender-claim", "BR-pass-over-charisma", "BR-pretender-house", "BR-regent-baron")


def _person(cid: int, name: str, sex: str, born: int, house: int, *, father=None, mother=None, died=None, **more):
    row: dict[str, Any] = {
        "id": cid,
        "given_name": name,
        "sex": sex,
        "birth_year": born,
        "birth_order": 1,
        "father": father,
        "mother": mother,
        "dynastic_name": "X",
        "birth_dynasty": house,
        "controlled_by": house,
        "characteristics": {"strength" if sex == "M" else "guile": 0, "constitution": 0, "charisma": 0},
        "status": "dead" if died else "alive",
        "death_year": died,
        "death_cause": "",
        "retired_year": None,
        "prisoner_of": None,
        "origin": "born",
        "legitimate": True,
    }
    row.update(more)
    return row


def _export(*, left_house: int = 2, reason: str = "a Pretender controlled by another player", rolls=(), baron_born=1255):
    """King Edward of England (born 1250) dies in 1300. Pierre, born to France (2), left house ``left_house``
    as a Pretender in 1290 for Germany; his son Henri by Edward's late daughter Mary
    is passed over (``reason``) and Anne, 10, is Queen under a baron created for her."""
    return {
        "campaign": {
            "start_year": 1280,
            "current_year": 1300,
            "step": "marriages",
            "turn_length": 5,
            "optional_rules": {"disputed_succession": True},
            "tables": {"characteristic_bands": [{"low": 3, "high": 18, "value": 0}], "survival": [{"age": 15, "need": 3}]},
        },
        "dynasties": [
            {"id": 1, "name": "Plantagenet", "kind": "player", "crown": "England"},
            {"id": 2, "name": "Anjou", "kind": "player", "crown": "France"},
            {"id": 3, "name": "Hapsburg", "kind": "player", "crown": "Germany"},
        ],
        "crowns": [{"id": 1, "name": "England", "controlled_by": 1, "home_dynasty": 1}],
        "characters": [
            _person(1, "Edward", "M", 1250, 1, died=1300, origin="setup"),
            _person(2, "Pierre", "M", 1262, 2, controlled_by=3),
            _person(3, "Mary", "F", 1266, 1, father=1, died=1295, controlled_by=3),
            _person(4, "Henri", "M", 1283, 2, father=2, mother=3, controlled_by=3),
            _person(5, "Anne", "F", 1290, 1, father=1),
            _person(6, "Alfred", "M", baron_born, 1, origin="baron"),
        ],
        "marriages": [],
        "reigns": [
            {"id": 1, "crown": "England", "holder": 1, "start_year": 1280, "end_year": 1300, "regent": None, "passed_over": []},
            {
                "id": 2,
                "crown": "England",
                "holder": 5,
                "start_year": 1300,
                "end_year": None,
                "regent": 6,
                "regency_end_year": None,
                "passed_over": [{"character": 4, "reason": reason}],
            },
        ],
        "control_changes": [
            {
                "year": 1290,
                "step": "births",
                "character": 2,
                "crown": None,
                "from_dynasty": left_house,
                "to_dynasty": 3,
                "cause": "pretender",
            }
        ],
        "birth_attempts": [],
        "postings": [],
        "chronicle": [
            {"year": 1290, "entries": [{"step": "births", "kind": "pretender", "text": "", "data": {"character": 2}}]},
            {"year": 1300, "entries": [{"step": "survival", "kind": "created", "text": "", "data": {"character": 6}}]},
        ],
        "rolls": list(rolls),
    }


def _found(export: dict[str, Any]) -> list[str]:
    return [v for v in CHECKS["blood-royale"](export) if rule_of(v) in NEW_RULES]


CHARISMA_ROLL = {
    "id": 1,
    "year": 1300,
    "step": "survival",
    "purpose": "charisma_loss",
    "detail": "England",
    "characters": [5],
    "dice": "1d6",
    "faces": [2],
    "modifier": 0,
    "target": None,
    "outcome": "charisma -1",
    "source": "server",
}


def test_the_new_rules_are_asserted() -> None:
    assert set(NEW_RULES) <= set(ASSERTED["blood-royale"])


def test_a_pretender_to_france_gives_no_claim_to_pass_over_in_england() -> None:
    found = _found(_export())
    assert [rule_of(v) for v in found] == ["BR-pretender-claim"], found
    assert "expected a Pretender to England or his heir, found the line of Pretenders to ['France']" in found[0]


def test_a_pretender_to_england_does_and_needs_no_roll() -> None:
    export = _export(left_house=1)
    export["characters"][1]["birth_dynasty"] = 1  # Pierre born to England's house, which he left
    assert _found(export) == []
    export["rolls"] = [CHARISMA_ROLL]
    assert [rule_of(v) for v in _found(export)] == ["BR-pass-over-charisma"]  # a roll the rules do not call for


def test_passing_over_under_rule_c_without_the_charisma_roll_is_found() -> None:
    reason = "passed over under optional rule C"
    found = _found(_export(reason=reason))
    assert [rule_of(v) for v in found] == ["BR-pass-over-charisma"], found
    assert _found(_export(reason=reason, rolls=[CHARISMA_ROLL])) == []


def test_a_pretender_taken_from_a_house_he_was_not_born_to_is_found() -> None:
    export = _export(left_house=1, reason=("passed over under optional rule C"), rolls=[CHARISMA_ROLL])
    found = _found(export)  # Pierre, born to France, "lost" by England
    assert [rule_of(v) for v in found] == ["BR-pretender-house"], found


def test_a_baron_of_30_for_a_late_king_who_would_be_50_is_found() -> None:
    reason = "passed over under optional rule C"
    assert _found(_export(reason=reason, rolls=[CHARISMA_ROLL], baron_born=1255)) == []  # 45: 5 years younger
    found = _found(_export(reason=reason, rolls=[CHARISMA_ROLL], baron_born=1270))
    assert [rule_of(v) for v in found] == ["BR-regent-baron"], found
    assert "expected aged 45" in found[0] and "found 30" in found[0]
