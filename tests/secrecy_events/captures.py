"""The secrecy matrix's requests for captures, releases and ransoms (``dynasties.table_events.captures``).

A ransom's money and terms are private to the payer, the captor and the GM: the cast plants one
(Spain buys its King back from France: ``tests/secrecy_cast.py``, ``RANSOM`` and ``RANSOM_AMOUNT``),
and the matrix looks for its amount and words in every answer of the site, these events' pages
and endpoints among them. Nobody is a prisoner in the planted campaign, so the release's request is
refused for what it names (400) even to the GM who may record it; the BloodLine claim is not in its
Blood Royale rules (404 to everyone)."""

from __future__ import annotations

from tests.secrecy_events import GM_ONLY, PLAYERS, Sample

SAMPLES = {
    "capture": Sample(
        lambda c: {"characters": [c.monarch["France"].pk], "captor": c.pk("Spain"), "reason": "at sea"},
        GM_ONLY,
        "gm",
        "France's King taken by Spain",
    ),
    "release": Sample(
        lambda c: {"characters": [c.monarch["Spain"].pk], "ransom": 10, "paid_by": c.pk("Spain")},
        PLAYERS,
        "gm",
        "Spain's King ransomed",
    ),
    "interim_claim": Sample(
        lambda c: {"crown": "England", "decision": "recognise"}, PLAYERS | {"gm"}, None, "a released heir's claim (BloodLine)"
    ),
}
