"""What a ruleset plays at the Announcements and the turn's advance (issue 35): the protocol
``dynasties.services.announcements`` asks (``play_of(campaign).announcements``:
``dynasties/play/<ruleset>/announcements.py``).

The service returns the widowed, founds a died-out house anew, gathers the announcement and moves
the turn on; the play says whether a King's widow retires, what is handed out (Blood Royale's Prince
pieces, BloodLine's royal leaders), which houses a throne keeps alive, how a house is founded anew,
and whether the GM gives the next turn's year. The set-up (``services.setup``) asks it too: a new
campaign's default houses and each house's starting family, which a died-out house is founded anew
as."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from campaign.dice import DiceBox
from campaign.models import Campaign
from campaign.steps import Chronicle
from dynasties.models import Character, Dynasty, DynastyKind
from dynasties.services.common import World
from rules.errors import RuleError
from rules.names import EU_CROWNS, names_for


@dataclass(frozen=True)
class DynastySpec:
    name: str
    crown: str
    kind: str = DynastyKind.PLAYER


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

    def default_houses(self, players: int, countries: Sequence[str] | None) -> list[DynastySpec]:
        """A new campaign's houses for so many players (``countries``: those the table chose),
        refused with a ``RuleError`` naming the field to fix."""
        ...

    def starting_family(
        self,
        campaign: Campaign,
        dynasty: Dynasty,
        box: DiceBox,
        chronicle: Chronicle,
        *,
        queue: list[list[int]] | None,
        bands: Any,
    ) -> Character | None:
        """A house's family at the set-up (A3), chronicled, its head returned (None: the house keeps
        no family, its throne starts vacant). ``queue``: the set-up's typed rolls, taken in order;
        ``bands``: the default characteristic bands."""
        ...

    def of_age(self) -> int:
        """A monarch of this age rules without a regent."""
        ...

    def prince_pieces(self) -> tuple[int, int]:
        """The Prince pieces the Announcements hand out (Blood Royale A2): the age a prince takes one
        and how many a house has ((0, 0): none)."""
        ...

    def turn_year_given(self) -> bool:
        """Whether the GM gives each next turn's year (else the turn length fixes it)."""
        ...


def no_houses_kept(world: World) -> set[int]:
    """``AnnouncementsPlay.houses_kept`` of a ruleset where a house with nobody in play died out."""
    return set()


def europa_houses(label: str, players: int, countries: Sequence[str] | None) -> list[DynastySpec]:
    """``AnnouncementsPlay.default_houses`` of a ruleset played by the Europa Universalis crowns: the
    first ``players`` of them (the table chooses none)."""
    if not 2 <= players <= len(EU_CROWNS):
        raise RuleError(
            f"A {label} campaign takes 2 to {len(EU_CROWNS)} players; {players} were asked for.", code="invalid_players"
        )
    if countries:
        raise RuleError(
            f"A {label} campaign's countries are the first {players} of {', '.join(EU_CROWNS)}.",
            code="invalid_countries",
            fields={"countries": "invalid"},
        )
    return [DynastySpec(names_for(crown).dynastic[0], crown) for crown in EU_CROWNS[:players]]
