"""The secrecy matrix's requests for the deaths and captures the table decides."""

from __future__ import annotations

from typing import Any

from tests.secrecy_cast import Cast
from tests.secrecy_events import GM_ONLY, Sample


def _king(c: Cast) -> int:
    """A reigning King with his piece on the map: what a battle, a plague or a storm may strike."""
    return next(m.pk for crown, m in sorted(c.monarch.items()) if m.prince_piece)


def _battle(c: Cast) -> dict[str, Any]:
    return {"characters": [_king(c)], "captor": "neutrals", "note": "at Crécy"}  # the page's body too: no nested dice


SAMPLES = {
    "killed": Sample(lambda c: {"characters": [c.groom.pk], "note": "in a duel"}, GM_ONLY, "gm", "kill the groom at the table"),
    "battle": Sample(_battle, GM_ONLY, "gm", "a King's army wiped out"),
    "plague": Sample(lambda c: {"characters": [_king(c)]}, GM_ONLY, "gm", "a King in a plague province"),
    "storm": Sample(lambda c: {"characters": [_king(c)]}, GM_ONLY, "gm", "a King lost at sea"),
}
