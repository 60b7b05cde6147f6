"""The secrecy matrix's request for a trade item's interception (Blood Royale's optional rule D, in
force in the planted campaign). The GM records it; the request names no intercepting army nor fleet,
so even the GM's is refused by the rule (400: "no interception is possible"), nothing written."""

from __future__ import annotations

from tests.secrecy_events import GM_ONLY, Sample

SAMPLES = {
    "trade_interception": Sample(
        lambda c: {"owner": c.pk("England"), "interceptor": c.pk("France"), "item": "Cloth", "owner_crowns": 15},
        GM_ONLY,
        "gm",
        "England's cloth intercepted by France (no counters: refused)",
    ),
}
