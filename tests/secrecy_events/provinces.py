"""The secrecy matrix's requests for the province register (``dynasties.table_events.provinces``): the GM
records what the board decided; a crown's player nominates his own new capital (England's: Alice)."""

from __future__ import annotations

from tests.secrecy_events import GM_ONLY, Sample

SAMPLES = {
    "province_record": Sample(lambda c: {"name": "Kent", "country": "England"}, GM_ONLY, "gm", "add Kent to the register"),
    "province_taken": Sample(lambda c: {"province": "Yorkshire"}, GM_ONLY, "gm", "Yorkshire changes hands"),
    "province_marker": Sample(lambda c: {"province": "Yorkshire", "marker": "famine"}, GM_ONLY, "gm", "Famine in Yorkshire"),
    "rebellion_put_down": Sample(lambda c: {"province": "Yorkshire"}, GM_ONLY, "gm", "the rebellion in Yorkshire put down"),
    "capital_nominated": Sample(
        lambda c: {"crown": "England", "province": "Yorkshire"}, frozenset({"bob", "carol"}), "alice", "England's new capital"
    ),
}
