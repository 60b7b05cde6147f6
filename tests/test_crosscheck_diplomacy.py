"""The diplomacy cross-check (tests/crosscheck/diplomacy.py) is not blind: each rule finds its defect in
a small export built by hand (docs/export-format.md), and a lawful one passes."""

from __future__ import annotations

from tests.crosscheck.common import rule_of
from tests.crosscheck.diplomacy import check_diplomacy


def _parley(pk, kind, caller, year=1300, opponent=None, area="Savoy", votes_for=5, votes_against=0, votes=()):
    return {
        "id": pk,
        "kind": kind,
        "caller": caller,
        "opponent": opponent,
        "area": area,
        "year": year,
        "votes_for": votes_for,
        "votes_against": votes_against,
        "votes": list(votes),
    }


def _claim(pk, dynasty, area, since=1300, how="parley", parley=None, came_from=None, ended=None, end=""):
    return {
        "id": pk,
        "dynasty": dynasty,
        "area": area,
        "since_year": since,
        "how": how,
        "parley": parley,
        "came_from": came_from,
        "ended_year": ended,
        "end": end,
    }


def _doc(parleys=(), claims=(), obligations=(), excommunications=(), now=1305):
    return {
        "campaign": {"current_year": now},
        "parleys": list(parleys),
        "claims": list(claims),
        "obligations": list(obligations),
        "excommunications": list(excommunications),
    }


def _due(parley, obliged, owed_to, action, state="complied", due=1300, resolved=1300):
    return {
        "parley": parley,
        "obliged": obliged,
        "owed_to": owed_to,
        "action": action,
        "due_year": due,
        "state": state,
        "resolved_year": resolved,
    }


def rules(doc):
    return sorted({rule_of(v) for v in check_diplomacy(doc)})


def test_a_lawful_export_passes():
    doc = _doc(
        parleys=[
            _parley(1, "claim", 1, votes_for=4, votes_against=4),  # a tie grants the claim
            _parley(2, "conquest", 2, opponent=3, area="Nice"),
            _parley(3, "inheritance", 4, opponent=5, area="Milan", votes_for=1, votes_against=6),
        ],
        claims=[
            _claim(1, 1, "Savoy", parley=1, ended=1305, end="given"),
            _claim(2, 2, "savoy ", since=1305, how="exchange", came_from=1),
        ],
        obligations=[_due(2, 3, 2, "return"), _due(3, 4, 5, "relinquish", state="flouted", resolved=1305)],
        excommunications=[{"dynasty": 4, "start_year": 1305, "ended_year": None}],
        now=1310,
    )
    assert check_diplomacy(doc) == []


def test_each_defect_is_found():
    assert rules(_doc(parleys=[_parley(1, "claim", 1, votes_for=4, votes_against=4)])) == ["DIP-claim-granted"]
    assert rules(
        _doc(
            parleys=[_parley(1, "claim", 1), _parley(2, "claim", 1, area="Nice")],
            claims=[_claim(1, 1, "Savoy", parley=1), _claim(2, 1, "Nice", parley=2)],
        )
    ) == ["DIP-claim-once"]
    assert rules(_doc(claims=[_claim(1, 1, "Savoy", how="recorded"), _claim(2, 1, "SAVOY", how="recorded")])) == [
        "DIP-claim-held-once"
    ]
    assert rules(_doc(claims=[_claim(1, 1, "Savoy", how="recorded"), _claim(2, 2, "Savoy", how="exchange", came_from=1)])) == [
        "DIP-claim-exchanged"
    ]
    assert rules(_doc(parleys=[_parley(1, "conquest", 2, opponent=3)])) == ["DIP-decision"]  # nothing made due
    lost = _parley(1, "conquest", 2, opponent=3, votes_for=1, votes_against=2)
    assert rules(_doc(parleys=[lost], obligations=[_due(1, 3, 2, "return")])) == ["DIP-decision"]
    assert rules(
        _doc(parleys=[_parley(1, "conquest", 2, opponent=3)], obligations=[_due(1, 3, 2, "return", state="refused")])
    ) == ["DIP-flouted"]
    assert rules(
        _doc(parleys=[_parley(1, "conquest", 2, opponent=3)], obligations=[_due(1, 3, 2, "return", state="open", resolved=None)])
    ) == ["DIP-flouted"]
    banned = [{"dynasty": 3, "start_year": 1300, "ended_year": None}]
    voted = _parley(1, "conquest", 2, year=1305, votes=[{"dynasty": 3, "position": 1}], opponent=4)
    assert rules(
        _doc(parleys=[voted], obligations=[_due(1, 4, 2, "return", due=1305, resolved=1305)], excommunications=banned)
    ) == ["DIP-excommunicated-parley"]
    readmit = _parley(2, "readmission", 3, year=1305, votes=[{"dynasty": 3, "position": 1}])
    assert rules(_doc(parleys=[readmit], excommunications=banned)) == []
