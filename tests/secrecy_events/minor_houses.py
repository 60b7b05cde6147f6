"""The secrecy matrix's requests for BloodLine's minor houses (``dynasties.table_events.minor_houses``).

The planted campaign is Blood Royale's, which has no minor houses: every role, the GM included, is
answered 404 (no such event in its rules), so no role is "allowed" as planted. Who may record each
in a BloodLine campaign (the GM; a player his own house's offers, refused for another house's) is
tested in tests/test_events_minor_houses.py."""

from __future__ import annotations

from tests.secrecy_events import GM_ONLY, Sample

SAMPLES = {
    "minor_house_create": Sample(
        lambda c: {"name": "Gonzaga", "crown": "Mantua", "king_age": [5, 5]}, GM_ONLY, None, "bring a minor house into play"
    ),
    "offer_make": Sample(
        lambda c: {"suitor": c.groom.pk, "minor_character": c.bride.pk, "dowry": 5},
        frozenset({"bob", "carol"}),
        None,
        "offer England's groom for a minor's child",
    ),
    "offer_withdraw": Sample(lambda c: {"offer": 1}, frozenset({"bob", "carol"}), None, "withdraw an offer"),
    "offers_resolve": Sample(lambda c: {}, GM_ONLY, None, "the minor houses answer the offers"),
    "royal_marriage_box_set": Sample(lambda c: {"crown": "Spain", "rating": 3}, GM_ONLY, None, "set a Royal Marriage box rating"),
}
