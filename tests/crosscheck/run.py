"""Simulate a campaign with every optional rule on and export it (for the tests and bench/crosscheck.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import blood_royale, bloodline, eu_monarchs, game_end
from .diplomacy import check_diplomacy
from .invariants import check_invariants


def _with_invariants(check: Callable[[dict[str, Any]], list[str]]) -> Callable[[dict[str, Any]], list[str]]:
    return lambda doc: check(doc) + check_invariants(doc) + check_diplomacy(doc)


CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "blood-royale": _with_invariants(lambda doc: blood_royale.check_blood_royale(doc) + game_end.check_game_end(doc)),
    "eu-monarchs": _with_invariants(eu_monarchs.check_eu_monarchs),
    "eu-bloodline": _with_invariants(bloodline.check_bloodline),
}
INVARIANTS = ("INV-reign-holder", "INV-reign-end", "INV-crown-control")
DIPLOMACY = (  # tests/crosscheck/diplomacy.py: every ruleset whose parleys the automatic player holds
    "DIP-claim-granted",
    "DIP-claim-once",
    "DIP-claim-held-once",
    "DIP-claim-exchanged",
    "DIP-decision",
    "DIP-flouted",
    "DIP-excommunicated-parley",
)

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
        "BR-end-winner",
        "BR-end-due",
        "BR-rule-d",
        "BR-rule-e",
        "BR-rule-h",
        "BR-famine-tax",
        "BR-governed-provinces",
        "BR-governor-money",
        *INVARIANTS,
        *DIPLOMACY,
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
        *DIPLOMACY,
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
        *DIPLOMACY,
    ),
}
OPEN_DEFECTS: dict[str, dict[str, str]] = {"blood-royale": {}, "eu-monarchs": {}, "eu-bloodline": {}}


def simulated_export(
    ruleset: str, seed: int, turns: int, *, law: bool = False, money_target: int | None = None
) -> dict[str, Any]:
    """A 5-player campaign of ``ruleset`` with every optional rule on, played ``turns`` turns by the
    automatic player from dice seed ``seed``, as its export. ``law``: the automatic player plays the
    whole law too (disputes, prisoners, contracts, the Interphase, titles ...; BloodLine with a minor
    house), as ``simulate`` does, and the game ends after the last turn (its agreed end);
    ``money_target``: the game's money target (Blood Royale 22). Needs the database."""
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
        # the whole law: the game's end too, agreed at the last turn played (a money target would end
        # it early: tests/test_crosscheck_end.py plays one)
        end_year=get_ruleset(ruleset).start_year + (turns - 1) * get_ruleset(ruleset).turn_length if law else None,
        money_target=money_target,
    )
    campaign = simulate(campaign, turns=turns, source=source, law=law, by=SYSTEM_ACTOR)
    return campaign_export(campaign)
