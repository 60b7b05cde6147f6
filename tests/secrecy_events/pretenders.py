"""The secrecy matrix's requests for Pretenders, bastards and the aristocratic auction (Blood Royale's
event cards and the three-player game). Each body carries the fields both as the API takes them and,
where they differ, as the page's form names its inputs (``strength-0``, ``bids-<house>``): each door
reads its own and ignores the other's.

As planted (a five-player campaign at its start) nobody may yet become a Pretender, no Pretender is
abroad, no King is unmarried and there is no aristocratic family: the GM's requests get past the
permission checks and are refused by the rules (400); the auction is not in a five-player game (404
for all)."""

from __future__ import annotations

from typing import Any

from tests.secrecy_cast import Cast
from tests.secrecy_events import GM_ONLY, PLAYERS, Sample


def _bastard(c: Cast) -> dict[str, Any]:
    dice = {f"strength-{i}": face for i, face in enumerate([1, 2, 3])}
    return {"father": c.monarch["England"].pk, "given_name": "Fitz", "strength": [1, 2, 3], **dice}


def _auction(c: Cast) -> dict[str, Any]:
    # the page's inputs only: its form is sent as multipart, which carries no nested "bids" (the API's
    # request is answered 404 before its body is read: no three-player game here)
    return {"character": c.groom.pk, f"bids-{c.pk('England')}": 21}


SAMPLES = {
    "pretender": Sample(lambda c: {"character": c.groom.pk}, GM_ONLY, "gm", "declare England's groom a Pretender"),
    "buy_back": Sample(lambda c: {"character": c.groom.pk}, PLAYERS, "gm", "buy back England's groom"),
    "bastard": Sample(_bastard, GM_ONLY, "gm", "a bastard son of England's King"),
    "auction": Sample(_auction, PLAYERS, None, "auction the groom (not a three-player game)"),
}
