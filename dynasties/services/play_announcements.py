"""What a ruleset plays at the Announcements and the turn's advance (issue 35): the protocol
``dynasties.services.announcements`` asks (``play_of(campaign).announcements``:
``dynasties/play/<ruleset>/announcements.py``).

The service returns the widowed, founds a died-out house anew, gathers the announcement and moves
the turn on; the play says whether a King's widow retires, what is handed out (Blood Royale's Prince
pieces, BloodLine's royal leaders), which houses a throne keeps alive, how a house is founded anew,
and whether the GM gives the next turn's year."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from campaign.dice import DiceBox
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty
from dynasties.services.common import World


@runtime_checkable
class AnnouncementsPlay(Protocol):
    """The Announcements (A5, A8; BloodLine's royal leaders) and the advance to the next turn."""

    def widows_retire(self) -> bool:
        """Whether a King's widow retires instead of going home (Blood Royale A5)."""
        ...

    def hand_out(self, world: World, chronicle: Chronicle) -> None:
        """What the Announcements hand out (Prince pieces, royal leaders), chronicled."""
        ...

    def houses_kept(self, world: World) -> set[int]:
        """The houses that have not died out though nobody of them is in play (BloodLine: a house
        holding a throne waits for a Dynastic Crisis at the succession)."""
        ...

    def found_anew(
        self, world: World, dynasty: Dynasty, box: DiceBox, chronicle: Chronicle, tables: dict[str, Any], *, reign: bool
    ) -> Character:
        """A died-out player house's new family (as at the set-up), its head returned."""
        ...

    def of_age(self) -> int:
        """A monarch of this age rules without a regent."""
        ...

    def turn_year_given(self) -> bool:
        """Whether the GM gives each next turn's year (else the turn length fixes it)."""
        ...


def no_houses_kept(world: World) -> set[int]:
    """``AnnouncementsPlay.houses_kept`` of a ruleset where a house with nobody in play died out."""
    return set()
