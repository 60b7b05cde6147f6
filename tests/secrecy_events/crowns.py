"""The secrecy matrix's requests for what the table decides about a crown (``dynasties.table_events.crowns``).

The planted campaign (Blood Royale) has no regency and no crown held by another house: the regent's
and the give-back's requests are refused to the players who may not decide for England (403: not
offered to them) and get past the checks for the GM (400: nothing to decide, as planted). Stability
is not Blood Royale's: its page and endpoint answer 404 to everyone."""

from __future__ import annotations

from tests.secrecy_events import GM_ONLY, PLAYERS, Sample

SAMPLES = {
    "regent_appoint": Sample(
        lambda c: {"crown": "England", "regent": c.groom.pk}, frozenset({"bob", "carol"}), "gm", "name England's regent"
    ),
    "crown_give_back": Sample(lambda c: {"crown": "England"}, PLAYERS, "gm", "give England back"),
    "crown_stability_change": Sample(
        lambda c: {"crown": "England", "cause": "peace"}, PLAYERS, None, "England's Stability after a peace (not Blood Royale's)"
    ),
    "capital_lost": Sample(lambda c: {"crown": "England", "note": "taken by storm"}, GM_ONLY, "gm", "England's capital lost"),
    "capital_retaken": Sample(lambda c: {"crown": "England"}, GM_ONLY, "gm", "England's capital retaken"),
    "foreign_intervention": Sample(
        lambda c: {"crown": "England", "note": "Scots"}, frozenset({"bob", "carol"}), "alice", "England enlists foreign aid"
    ),
}
