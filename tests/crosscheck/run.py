"""Simulate a campaign with every optional rule on and export it (for the tests and bench/crosscheck.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import blood_royale, bloodline, eu_monarchs
from .invariants import check_invariants


def _with_invariants(check: Callable[[dict[str, Any]], list[str]]) -> Callable[[dict[str, Any]], list[str]]:
    return lambda doc: check(doc) + check_invariants(doc)


CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "blood-royale": _with_invariants(blood_royale.check_blood_royale),
    "eu-monarchs": _with_invariants(eu_monarchs.check_eu_monarchs),
    "eu-bloodline": _with_invariants(bloodline.check_bloodline),
}
INVARIANTS = ("INV-reign-holder", "INV-reign-end", "INV-crown-control")

# The rules each checker verifies that the committed tests assert, and those it reports but that
# are not asserted yet because a defect is open (bench/crosscheck.py counts them all).
ASSERTED: dict[str, tuple[str, ...]] = {
    "blood-royale": (
        "BR-dice",
        "BR-birth-roll",
        "BR-birth-attempts",
        "BR-birth-year",
        "BR-sex",
        "BR-characteristics",
        "BR-dynastic-name",
        "BR-survival-roll",
        "BR-survival-who",
        "BR-wedding-money",
        "BR-monarch-match",
        "BR-succession",
        "BR-passed-over",
        "BR-regency",
        "BR-queen-control",
        "BR-monarch-retired",
        "BR-monarch-match-once",
        "BR-union",
        "BR-king-control",
        "BR-regent-baron",
        "BR-pretender-claim",
        "BR-pass-over-charisma",
        "BR-pretender-house",
        "BR-event-victims",
        "BR-armies",
        "BR-famine-tax",
        "BR-governed-provinces",
        "BR-governor-money",
        *INVARIANTS,
    ),
    "eu-monarchs": (
        "EM-dice",
        "EM-survival",
        "EM-survival-modifier",
        "EM-succession",
        "EM-reign",
        "EM-values",
        "EM-values-column",
        "EM-stability-chain",
        "EM-stability-bounds",
        *INVARIANTS,
    ),
    "eu-bloodline": (
        "BL-dice",
        "BL-birth-roll",
        "BL-birth-year",
        "BL-sex",
        "BL-characteristics",
        "BL-effective-age",
        "BL-survival-roll",
        "BL-stability-chain",
        "BL-succession",
        "BL-dowry",
        "BL-minor-stability",
        "BL-stability-bounds",
        "BL-no-retirement",
        "BL-no-br-money",
        "BL-posthumous",
        "BL-union-children",
        "BL-turkish-succession",
        "BL-reign-end",
        "BL-spurned-roll",
        "BL-spurned-heir",
        "BL-minor-no-issue",
        "BL-accession-titles",
        *INVARIANTS,
    ),
}
OPEN_DEFECTS: dict[str, dict[str, str]] = {"blood-royale": {}, "eu-monarchs": {}, "eu-bloodline": {}}


def simulated_export(ruleset: str, seed: int, turns: int, *, law: bool = False) -> dict[str, Any]:
    """A 5-player campaign of ``ruleset`` with every optional rule on, played ``turns`` turns by the
    automatic player from dice seed ``seed``, as its export. ``law``: the automatic player plays the
    whole law too (disputes, prisoners, contracts, the Interphase, titles ...; BloodLine with a minor
    house), as ``simulate`` does. Needs the database."""
    from campaign.permissions import SYSTEM_ACTOR
    from dynasties.services import campaign_create
    from operations.exchange import campaign_export
    from operations.simulation import simulate, simulated_dynasties
    from rules import get_ruleset
    from rules.dice import RandomSource

    options = dict.fromkeys(get_ruleset(ruleset).OPTIONAL_RULES, True)
    source = RandomSource(seed)
    campaign = campaign_create(
        name=f"Crosscheck {ruleset} {seed}{' law' if law else ''}",
        ruleset=ruleset,
        players=5,
        optional_rules=options,
        source=source,
        dynasties=simulated_dynasties(ruleset, 5) if law else None,
    )
    campaign = simulate(campaign, turns=turns, source=source, law=law, by=SYSTEM_ACTOR)
    return campaign_export(campaign)
