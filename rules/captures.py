"""Captures, releases and ransoms as pure functions (RULES.md A5, A8; B "Royal Characters in Battle";
the EU rules' ransom of a captured monarch).

Who can be taken depends on who is on the map, which each ruleset says its own way:

- Blood Royale (A5, "Captured Royal Characters"): a royal piece whose army is wiped out, or who
  surrenders: the King and the Princes with a piece. A Queen never leaves the capital nor leads
  armies; a prince under 20 (or beyond the fifth) waits in the capital with no piece.
- BloodLine ("Royal Characters in Battle"): the variant leaders are "the person in line to the
  throne of the present dynasty", 15 or older: "if these counters are captured or killed then that
  character suffers the same fate". Nobody else is on the map.
- EU monarchs: the monarch is the only character kept; the tables ransom a captured monarch.

A captor is a house that fights (a player's, or a BloodLine minor house) or the neutrals (a
country no player controls). Blood Royale's neutrals ransom a royal for a fixed price ("Fighting
Neutrals": "If they capture a Royal character, Neutrals ransom him for 100 Crowns"); between
houses a ransom is on any terms (A8). Nothing here rolls or stores anything."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class OnTheMap(StrEnum):
    """Who a ruleset puts on the map, where a battle or a surrender can take him."""

    PIECES = "pieces"  # Blood Royale: the King and the Princes with a piece
    LEADERS = "leaders"  # BloodLine: the royal leaders (the heirs of 15 or more of the present dynasty)
    MONARCHS = "monarchs"  # EU monarchs: the monarch
    ANYONE = "anyone"  # a ruleset that says nothing: anyone living


WHO = {
    OnTheMap.PIECES: (
        "Blood Royale A5, Captured Royal Characters: a battle or a surrender takes a royal piece on the map, "
        "the King and the Princes with a piece (a Queen never leaves the capital; a prince under 20, or "
        "beyond the fifth, waits in it with no piece)"
    ),
    OnTheMap.LEADERS: (
        "BloodLine, Royal Characters in Battle: only a royal leader is taken, one of the heirs of 15 or "
        "more of the present dynasty, in order of succession (the Announcements name them)"
    ),
    OnTheMap.MONARCHS: "EU monarchs: the monarch is the only character kept, and the one the tables ransom",
    OnTheMap.ANYONE: "anyone living",
}
"""Who can be captured, in the rulebook's words (the capture form's help and the refusals)."""


@dataclass(frozen=True)
class Captive:
    """What the rules need to know about a character someone wants to record as captured."""

    name: str
    in_play: bool  # alive and not retired
    held_by: str  # "" when free, else who holds him ("the house of Valois", "the neutrals")
    piece: str  # Blood Royale: his piece ("K", "1".."5", "" for none)
    king: bool  # a reigning King of 15 or more (his K, even before the Announcements hand it over)
    leader: bool  # BloodLine: one of his crown's royal leaders
    monarch: bool  # he reigns
    own_house: bool  # the captor is the house that controls him


def capture_problems(captive: Captive, on_the_map: OnTheMap, *, captor_fights: bool = True) -> list[str]:
    """Everything that stops this character being recorded as captured; empty when he may be.
    ``captor_fights``: the captor has an army (not the three-player game's aristocratic family)."""
    name = captive.name
    if not captive.in_play:
        return [f"{name} is no longer in play: only the living are captured."]
    problems: list[str] = []
    if captive.held_by:
        problems.append(f"{name} is already a prisoner of {captive.held_by}: release him first.")
    if captive.own_house:
        problems.append(f"{name} cannot be captured by his own house.")
    if not captor_fights:
        problems.append(
            "The aristocratic family of the three-player game only supplies marriage partners (A9): it has no army "
            "and takes no prisoners."
        )
    on_map = {
        OnTheMap.PIECES: bool(captive.piece) or captive.king,
        OnTheMap.LEADERS: captive.leader,
        OnTheMap.MONARCHS: captive.monarch,
        OnTheMap.ANYONE: True,
    }[on_the_map]
    if not on_map:
        problems.append(f"{WHO[on_the_map]}; {name} is not one.")
    return problems


class Release(StrEnum):
    """What a release is, which says who may record it (docs/rulings.md, "Captures and ransoms")."""

    FREED = "freed"  # for nothing: the captor lets him go (or the GM records him freed by arms)
    NEUTRAL_RANSOM = "neutral_ransom"  # the neutrals' price, paid to the Treasury
    RANSOM = "ransom"  # money between two houses, on any terms


def release_kind(*, neutrals: bool, ransom: int) -> Release:
    if ransom == 0:
        return Release.FREED
    return Release.NEUTRAL_RANSOM if neutrals else Release.RANSOM


def ransom_problems(
    *, neutrals: bool, ransom: int, count: int, neutral_price: int, currency: str, monarch_ransom: str = ""
) -> list[str]:
    """What is wrong with a ransom of ``ransom`` for ``count`` prisoners of one captor; empty when
    nothing is. ``neutral_price``: the ruleset's fixed price a head for the neutrals (0: none).
    ``monarch_ransom``: the EU monarch tables' ransom in words, where a captured monarch's price is
    theirs (its own record, with its Stability loss): a release here is for nothing."""
    if ransom < 0:
        return ["A ransom cannot be negative: type what is paid, or nothing for a release without ransom."]
    if monarch_ransom and ransom:
        return [
            f"The EU monarch tables fix a captured monarch's ransom ({monarch_ransom}): record it as 'A monarch "
            "ransomed', which also moves the Stability; a release here is for nothing (a peace's terms)."
        ]
    if neutrals and neutral_price and ransom not in (0, neutral_price * count):
        each = f" ({neutral_price} each)" if count > 1 else ""
        return [
            f"Blood Royale, Fighting Neutrals: 'If they capture a Royal character, Neutrals ransom him for "
            f"{neutral_price} Crowns': the ransom is {neutral_price * count} {currency}{each}, or nothing for a "
            "release without ransom."
        ]
    return []
