"""The secrecy matrix's requests for the titles the table grants (``dynasties.table_events.titles``).

The cast plays Blood Royale with rule G: a Governor is granted by the King's player or the GM (the cast's
England has no Prince of 15 yet, so the GM's request gets past the permission checks to a 400). BloodLine's
grant and income are not in its rules: every role is answered 404."""

from __future__ import annotations

from tests.secrecy_events import PLAYERS, Sample

SAMPLES = {
    "title_grant": Sample(
        lambda c: {"character": c.groom.pk, "province": "Northumberland", "crown": "England"},
        frozenset({"bob", "carol"}),
        "gm",
        "make England's groom Governor of Northumberland",
    ),
    "bloodline_title_grant": Sample(
        lambda c: {
            "giver": c.pk("England"),
            "character": c.groom.pk,
            "name": "Duke of York",
            "province_1": "York",
            "value_1": 3,
        },
        PLAYERS | {"gm"},
        None,
        "give England's groom a BloodLine title (not in the cast's rules)",
    ),
    "title_income": Sample(
        lambda c: {"title": c.title.pk},
        PLAYERS | {"gm"},
        None,
        "pay a BloodLine title's income (not in the cast's rules)",
    ),
}
