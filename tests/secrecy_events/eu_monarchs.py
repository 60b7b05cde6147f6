"""The secrecy matrix's requests for what the board asks of the EU monarch tables between turns
(``dynasties.table_events.eu_monarchs``): a monarch's military skill, a captured monarch's ransom, a
country's rules changed by the board and a historical monarch crowned.

The planted campaign plays Blood Royale, which has neither: their pages and endpoints answer 404 to
everyone (their GM-only offer is tested on an EU campaign in tests/test_eu_crowns.py)."""

from __future__ import annotations

from tests.secrecy_events import PLAYERS, Sample

SAMPLES = {
    "monarch_military_skill": Sample(
        lambda c: {"crown": "England", "average": [5]}, PLAYERS, None, "England's monarch as a leader (not Blood Royale's)"
    ),
    "monarch_ransom": Sample(
        lambda c: {"crown": "Spain", "power": "major"},
        PLAYERS,
        None,
        "Spain's monarch ransomed (not Blood Royale's)",
    ),
    "monarch_crown_configure": Sample(
        lambda c: {"crown": "France", "change": "event"}, PLAYERS, None, "France's column event (not Blood Royale's)"
    ),
    "eu_monarch_crowned": Sample(
        lambda c: {"crown": "Spain", "how": "typed", "given_name": "Carlos", "adm": 5, "dip": 5, "mil": 5},
        PLAYERS,
        None,
        "a monarch typed for Spain (not Blood Royale's)",
    ),
}
