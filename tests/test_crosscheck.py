"""Issue 15: independent cross-checks. Each ruleset's campaign, simulated with every optional rule
on, is exported and every roll, birth, survival, succession and payment re-derived from the
rulebook's text by tests/crosscheck/ (written from the rulebooks and docs/export-format.md only,
never from dynasties/services or rules).

What each checker verifies (rule ids, documented with the rulebook's words in each module):

- Blood Royale (tests/crosscheck/blood_royale.py), all asserted: BR-dice, BR-birth-roll,
  BR-birth-attempts, BR-birth-year, BR-sex, BR-characteristics, BR-dynastic-name, BR-survival-roll,
  BR-survival-who, BR-wedding-money, BR-monarch-match, BR-succession, BR-passed-over, BR-regency,
  BR-queen-control, BR-monarch-retired (a widowed Queen regnant reigns on and rolls),
  BR-monarch-match-once (the 100 Crowns once per match), BR-union (a Queen of two crowns brings
  both into the union), BR-king-control (a King of two crowns and both crowns with one player),
  BR-regent-baron (a created baron 5 years younger than the late King, or 30), BR-pretender-claim (a
  Pretender's line passed over only for the crown he claims), BR-pass-over-charisma (the new
  monarch's Charisma roll exactly when the rules call for it), BR-pretender-house (a Pretender
  leaves the house of his birth); tests/test_crosscheck_br_claims.py shows them finding each defect;
  BR-event-victims (a battle, a plague or a storm strikes only a royal piece on the map; rule G's
  Governor's household in a plague),
  BR-armies (armies maintained are armies raised before: issue 33), BR-end-winner and BR-end-due
  (the game's end, section 22: tests/crosscheck/game_end.py; the law's campaigns end at their agreed
  last turn, tests/test_crosscheck_end.py plays one to the money target).
- EU monarchs (tests/crosscheck/eu_monarchs.py), all asserted: EM-dice, EM-survival,
  EM-survival-modifier, EM-succession, EM-reign, EM-values, EM-values-column, EM-stability-chain,
  EM-stability-bounds (Stability within -3..+3).
- BloodLine (tests/crosscheck/bloodline.py), all asserted: BL-dice, BL-birth-roll, BL-birth-year,
  BL-sex, BL-characteristics, BL-effective-age, BL-survival-roll, BL-stability-chain, BL-succession,
  BL-dowry, BL-minor-stability, BL-stability-bounds, BL-no-retirement (no widow retires),
  BL-no-br-money (no Blood Royale money), BL-posthumous (no child born after a parent's death),
  BL-union-children (none of a union's children inherits the Queen's crown, whichever spouse died
  first), BL-turkish-succession (Turkey #1: the princess's husband at the Succession inherits her
  rights), BL-reign-end (a monarch put to death by a new Sultan is succeeded at once),
  BL-spurned-roll (a spurned line's roll ends with those of it born by the skip's turn),
  BL-spurned-heir (nobody born into a spurned line after the skip inherits), BL-minor-no-issue (a
  minor monarch without issue is followed by a rolled one, 5 years younger), BL-accession-titles (a
  new monarch keeps no in-country title, nor one that came to him in his accession step).

- Every ruleset (tests/crosscheck/diplomacy.py), asserted: DIP-claim-granted (a claim parley carried
  or tied grants the claim), DIP-claim-once, DIP-claim-held-once, DIP-claim-exchanged, DIP-decision (a
  contested conquest's or inheritance's loser obliged to give the area up), DIP-flouted (every decision
  refused or flouted has its excommunication), DIP-excommunicated-parley (22.12, 22.13).

The suite runs 3 seeds x 40 turns per ruleset, and one more where the whole law is played (in the
thorough profile, CI's; make test's quick one plays the first seed and 20 turns: tests/profiles.py);
bench/crosscheck.py runs the full 10 x 40 (``--law``: the whole law played) and counts every
rule's violations, asserted or not.
"""

from __future__ import annotations

import pytest

from tests.crosscheck.common import rule_of
from tests.crosscheck.run import ASSERTED, CHECKS, OPEN_DEFECTS, simulated_export
from tests.profiles import seeds, turns

pytestmark = pytest.mark.long_simulation  # SQLite only (tests/conftest.py)

SEEDS = seeds((1, 2, 3))
TURNS = turns(40)


def test_every_rule_is_asserted_or_named_as_an_open_defect() -> None:
    for ruleset in CHECKS:
        assert not set(ASSERTED[ruleset]) & set(OPEN_DEFECTS[ruleset]), ruleset


@pytest.mark.django_db
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-monarchs", "eu-bloodline"])
def test_crosscheck_holds_over_a_long_simulation(ruleset: str, seed: int) -> None:
    export = simulated_export(ruleset, seed, TURNS)
    assert all(export["campaign"]["optional_rules"].values())
    assert export["campaign"]["current_year"] > export["campaign"]["start_year"]
    violations = CHECKS[ruleset](export)
    known = set(ASSERTED[ruleset]) | set(OPEN_DEFECTS[ruleset])
    assert [v for v in violations if rule_of(v) not in known] == []
    asserted = [v for v in violations if rule_of(v) in ASSERTED[ruleset]]
    assert asserted == [], "\n".join(asserted[:20])


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["blood-royale", "eu-monarchs", "eu-bloodline"])
def test_crosscheck_holds_when_the_whole_law_is_played(ruleset: str) -> None:
    """The same checks over a campaign where the automatic player plays the whole law (disputes,
    prisoners, contracts and their renunciations, the Interphase, titles, minor houses' offers ...):
    who controlled whom, and when, is read from the export's history (bench/crosscheck.py --law runs
    10 seeds x 40 turns)."""
    export = simulated_export(ruleset, 4, TURNS, law=True)
    violations = CHECKS[ruleset](export)
    assert [v for v in violations if rule_of(v) not in ASSERTED[ruleset]] == []
    assert violations == [], "\n".join(violations[:20])


def test_the_checker_finds_a_wrong_roll() -> None:
    """The checker is not blind: a survival roll whose outcome contradicts its dice is reported."""
    export = {
        "campaign": {
            "start_year": 1300,
            "current_year": 1300,
            "step": "births",
            "turn_length": 5,
            "optional_rules": {},
            "tables": {
                "characteristic_bands": [{"low": 3, "high": 18, "value": 0}],
                "survival": [{"age": 15, "need": 3}, {"age": 25, "need": 4}],
            },
        },
        "dynasties": [{"id": 1, "name": "A", "kind": "player", "crown": "England"}],
        "crowns": [{"id": 1, "name": "England", "controlled_by": 1, "home_dynasty": 1}],
        "characters": [
            {
                "id": 1,
                "given_name": "Edward",
                "sex": "M",
                "birth_year": 1275,
                "birth_order": 1,
                "father": None,
                "mother": None,
                "dynastic_name": "P",
                "birth_dynasty": 1,
                "controlled_by": 1,
                "characteristics": {"strength": 0, "constitution": 0, "charisma": 0},
                "status": "alive",
                "death_year": None,
                "death_cause": "",
                "retired_year": None,
                "prisoner_of": None,
                "origin": "setup",
                "legitimate": True,
            }
        ],
        "marriages": [],
        "reigns": [],
        "birth_attempts": [],
        "postings": [],
        "chronicle": [],
        "rolls": [
            {
                "id": 1,
                "year": 1300,
                "step": "survival",
                "purpose": "survival",
                "detail": "age 25",
                "characters": [1],
                "dice": "2d6",
                "faces": [1, 1],
                "modifier": 0,
                "target": 4,
                "outcome": "survived",
                "source": "server",
            }
        ],
    }
    violations = CHECKS["blood-royale"](export)
    assert any(v.startswith("BR-survival-roll: roll 1") and "expected died" in v for v in violations), violations


def _person(cid: int, name: str, born: int, father: int | None, died: int | None) -> dict[str, object]:
    return {
        "id": cid,
        "given_name": name,
        "sex": "M",
        "birth_year": born,
        "birth_order": 1,
        "father": father,
        "mother": None,
        "dynastic_name": "P",
        "birth_dynasty": 1,
        "controlled_by": 1,
        "characteristics": {"strength": 0, "constitution": 0, "charisma": 0},
        "status": "dead" if died else "alive",
        "death_year": died,
        "death_cause": "",
        "retired_year": None,
        "prisoner_of": None,
        "origin": "setup",
        "legitimate": True,
    }


def _fatal(rid: int, cid: int, step: str) -> dict[str, object]:
    return {
        "id": rid,
        "year": 1370,
        "step": step,
        "purpose": "battle" if step.startswith("event") else "survival",
        "detail": "",
        "characters": [cid],
        "dice": "2d6",
        "faces": [1, 1],
        "modifier": 0,
        "target": 4,
        "outcome": "died",
        "source": "server",
    }


def _heir_killed_later(step: str) -> list[str]:
    """King Edward dies at Survival in 1370; his son Henry is crowned, then dies by a roll of ``step``;
    Henry's son Richard is crowned."""
    export = {
        "campaign": {
            "start_year": 1300,
            "current_year": 1375,
            "step": "births",
            "turn_length": 5,
            "optional_rules": {},
            "tables": {"characteristic_bands": [{"low": 3, "high": 18, "value": 0}], "survival": [{"age": 15, "need": 3}]},
        },
        "dynasties": [{"id": 1, "name": "P", "kind": "player", "crown": "England"}],
        "crowns": [{"id": 1, "name": "England", "controlled_by": 1, "home_dynasty": 1}],
        "characters": [
            _person(1, "Edward", 1300, None, 1370),
            _person(2, "Henry", 1330, 1, 1370),
            _person(3, "Richard", 1350, 2, None),
            _person(4, "John", 1335, 1, None),
        ],
        "marriages": [],
        "reigns": [
            {"id": 1, "crown": "England", "holder": 1, "start_year": 1300, "end_year": 1370, "regent": None, "passed_over": []},
            {"id": 2, "crown": "England", "holder": 2, "start_year": 1370, "end_year": 1370, "regent": None, "passed_over": []},
            {"id": 3, "crown": "England", "holder": 3, "start_year": 1370, "end_year": None, "regent": None, "passed_over": []},
        ],
        "birth_attempts": [],
        "postings": [],
        "chronicle": [],
        "rolls": [_fatal(1, 1, "survival"), _fatal(2, 2, step)],
    }
    return [v for v in CHECKS["blood-royale"](export) if rule_of(v) == "BR-succession"]


def test_an_heir_crowned_then_killed_later_in_the_turn_reigned_between() -> None:
    """The roll log orders the turn's deaths: an heir killed in a battle after the King's death at
    Survival was crowned first (his reign is right); one who died at the same Survival never reigned."""
    assert _heir_killed_later("event:battle") == []
    same_moment = _heir_killed_later("survival")
    assert any("expected character 3 (Richard" in v and "found character 2 (Henry" in v for v in same_moment), same_moment
