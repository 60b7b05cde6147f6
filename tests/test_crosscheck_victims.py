"""The cross-check BR-event-victims (issue 33, item 4) is not blind: written from the rulebook's words
and the export format only, it reports a battle, a plague or a storm striking someone who is not on
the map, and spares rule G's Governor's household in a plague.

Blood Royale: "All characters in a Dynasty other than those represented on the map by King/Prince
pieces are assumed to be in the capital at all times"; "Characters in their capital are never
affected by Plague"; the Queen "may not be moved from the capital, or lead armies"; a Prince's piece
comes at 20. Optional rule G: "the Governor, his or her wife or husband, and any children aged 15 or
younger, must make Survival Rolls" when plague strikes his province."""

from __future__ import annotations

from typing import Any

from tests.crosscheck.blood_royale import _event_victims
from tests.crosscheck.common import Export, rule_of


def person(
    cid: int, sex: str, born: int, *, father: int | None = None, died: int | None = None, cause: str = ""
) -> dict[str, Any]:
    return {
        "id": cid,
        "given_name": f"C{cid}",
        "sex": sex,
        "birth_year": born,
        "birth_order": 1,
        "father": father,
        "mother": None,
        "dynastic_name": "P",
        "birth_dynasty": 1,
        "controlled_by": 1,
        "characteristics": {},
        "status": "dead" if died else "alive",
        "death_year": died,
        "death_cause": cause,
        "retired_year": None,
        "prisoner_of": None,
        "origin": "setup",
        "legitimate": True,
    }


def roll(rid: int, year: int, purpose: str, cid: int) -> dict[str, Any]:
    return {
        "id": rid,
        "year": year,
        "step": f"event:{purpose}",
        "purpose": purpose,
        "detail": "",
        "characters": [cid],
        "dice": "2d6",
        "faces": [3, 4],
        "modifier": -1,
        "target": 4,
        "outcome": "survived",
    }


def export(*, rule_g: bool) -> dict[str, Any]:
    """England 1340: King Edward (1300) and his Queen consort Isabella; Mary, a Queen regnant of France;
    Richard (1322), a Prince of 18; Henry (1310), a Prince of 30 and Governor of Kent, his wife Joan
    and their son John (1330)."""
    return {
        "campaign": {
            "start_year": 1300,
            "current_year": 1340,
            "turn_length": 5,
            "optional_rules": {"governing_provinces": rule_g},
        },
        "dynasties": [{"id": 1, "name": "A", "kind": "player", "crown": "England"}],
        "crowns": [{"id": 1, "name": "England", "controlled_by": 1, "home_dynasty": 1}],
        "characters": [
            person(1, "M", 1300),
            person(2, "F", 1302),
            person(3, "F", 1305),
            person(4, "M", 1322, died=1340, cause="lost at sea in a storm (off Calais)"),
            person(5, "M", 1310),
            person(6, "F", 1312),
            person(7, "M", 1330, father=5),
            person(8, "F", 1341, father=5),  # this turn's second child: "one year later than the current turn"
        ],
        "marriages": [
            {"id": 1, "husband": 1, "wife": 2, "wedding_year": 1320, "ended_year": None},
            {"id": 2, "husband": 5, "wife": 6, "wedding_year": 1328, "ended_year": None},
        ],
        "reigns": [
            {"id": 1, "crown": "England", "holder": 1, "start_year": 1320, "end_year": None},
            {"id": 2, "crown": "France", "holder": 3, "start_year": 1330, "end_year": None},
        ],
        "title_holdings": [{"title": 1, "holder": 5, "start_year": 1335, "end_year": None}],
        "rolls": [
            roll(1, 1340, "battle", 1),  # the King leads his army: lawful
            roll(2, 1340, "battle", 3),  # a Queen regnant may not lead armies
            roll(3, 1340, "plague", 2),  # the Queen consort is in her capital
            roll(4, 1340, "plague", 6),  # the Governor's wife: only under rule G
            roll(5, 1340, "plague", 7),  # the Governor's son of 10: only under rule G
            roll(6, 1340, "plague", 5),  # the Governor, 30, with his piece: lawful
            roll(7, 1340, "plague", 8),  # his daughter born this turn: only under rule G
        ],
        "chronicle": [],
    }


def found(doc: dict[str, Any]) -> list[str]:
    out = _event_victims(Export.of(doc))
    assert {rule_of(v) for v in out} <= {"BR-event-victims"}
    return out


def test_a_queen_a_consort_and_a_boy_of_18_are_reported():
    out = found(export(rule_g=True))
    assert len(out) == 3, out
    assert "roll 2 (1340 battle), character 3" in out[0] and "a reigning woman of 35" in out[0]
    assert "roll 3 (1340 plague), character 2" in out[1] and "a woman of 38" in out[1]
    assert "death (1340 lost at sea in a storm), character 4" in out[2] and "a boy of 18" in out[2]


def test_the_governors_household_rolls_in_a_plague_only_under_rule_g():
    out = found(export(rule_g=False))
    assert [v.split(",")[0] for v in out] == [
        "BR-event-victims: roll 2 (1340 battle)",
        "BR-event-victims: roll 3 (1340 plague)",
        "BR-event-victims: roll 4 (1340 plague)",
        "BR-event-victims: roll 5 (1340 plague)",
        "BR-event-victims: roll 7 (1340 plague)",
        "BR-event-victims: death (1340 lost at sea in a storm)",
    ], out


def test_a_lawful_campaign_reports_nothing():
    doc = export(rule_g=True)
    doc["rolls"] = [r for r in doc["rolls"] if r["id"] in (1, 4, 5, 6, 7)]
    doc["characters"][3].update(status="alive", death_year=None, death_cause="")
    assert found(doc) == []
