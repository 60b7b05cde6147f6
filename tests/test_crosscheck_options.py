"""The cross-checks of Blood Royale's optional rules D, E and H (tests/crosscheck/options.py) are not
blind, and a simulated campaign keeps them: without rule E (Event Cards) no Pretender nor bastard
("Cards 18-22 allow for characters to leave the Dynasty of their birth ... Cards 38 and 39 allow for
the creation of bastard sons"); without rule H no third phase ("a third Event/Movement Phase is
introduced"); each interception adds up as rule D says ("If the modified result is 6 or more,
possession of the Trade Item passes to the intercepting player")."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from campaign.permissions import SYSTEM_ACTOR
from dynasties.services import campaign_create
from operations.exchange import campaign_export
from operations.simulation import simulate, simulated_dynasties
from rules import get_ruleset
from rules.dice import RandomSource
from tests.crosscheck.common import Export, rule_of
from tests.crosscheck.options import check_options

pytestmark = pytest.mark.long_simulation  # SQLite only (tests/conftest.py)


def played(**off: bool) -> dict[str, Any]:
    options = {**dict.fromkeys(get_ruleset("blood-royale").OPTIONAL_RULES, True), **off}
    source = RandomSource(2)
    campaign = campaign_create(
        name="Options",
        ruleset="blood-royale",
        players=5,
        dynasties=simulated_dynasties("blood-royale", 5),
        optional_rules=options,
        source=source,
    )
    return campaign_export(simulate(campaign, turns=12, source=source, law=True, by=SYSTEM_ACTOR))


@pytest.fixture
def with_all(db) -> dict[str, Any]:
    return played()


@pytest.fixture
def without_e_h(db) -> dict[str, Any]:
    return played(event_cards=False, extra_movement_phase=False)


def lines(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for y in doc["chronicle"] for e in y["entries"]]


@pytest.mark.django_db
def test_a_campaign_with_every_rule_plays_d_e_h_and_keeps_them(with_all):
    assert check_options(Export.of(with_all)) == []
    assert any(r["purpose"] == "interception" for r in with_all["rolls"])
    assert any((e["data"] or {}).get("phase") == 3 for e in lines(with_all))


@pytest.mark.django_db
def test_without_e_and_h_no_pretender_no_bastard_no_third_phase(without_e_h):
    assert check_options(Export.of(without_e_h)) == []
    assert not any(c["pretender_of"] or not c["legitimate"] for c in without_e_h["characters"])
    assert not any((e["data"] or {}).get("phase") == 3 for e in lines(without_e_h))


@pytest.mark.django_db
def test_the_checks_see_a_pretender_without_e_a_third_phase_without_h_and_a_wrong_sum(with_all):
    doc = copy.deepcopy(with_all)
    doc["campaign"]["optional_rules"].update(event_cards=False, extra_movement_phase=False)
    doc["characters"][0]["pretender_of"] = doc["dynasties"][0]["id"]
    private = next(e for e in lines(doc) if e["kind"] == "interception" and "face" in e["data"])
    private["data"]["total"] += 1
    rules = {rule_of(v) for v in check_options(Export.of(doc))}
    assert rules == {"BR-rule-e", "BR-rule-h", "BR-rule-d"}
    doc["campaign"]["optional_rules"]["trade_item_movement"] = False
    assert any("no interception without rule D" in v for v in check_options(Export.of(doc)))
