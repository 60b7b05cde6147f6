"""The secrecy matrix's requests for the deaths and captures the table decides."""

from __future__ import annotations

from tests.secrecy_events import GM_ONLY, Sample

SAMPLES = {
    "killed": Sample(lambda c: {"characters": [c.groom.pk], "note": "in a duel"}, GM_ONLY, "gm", "kill the groom at the table"),
}
