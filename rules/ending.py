"""The end of the game (Blood Royale sections 3 and 22), pure.

"At the end of the agreed time, the game is terminated. Players may cash in any sets of Resource
items they have in their Capitals ... The player with the most money is the winner. Alternatively,
at the beginning of the game players could set a monetary victory target (eg, 800 Crowns). A player
with this sum or more after the 'Cashing-In' Phase of a turn is declared the winner. If more than one
player has more than 800 Crowns, the player with the most wins." (22)

"If you wish to play a sequence of games ... each player should record the amount of money he or she
has at the end of a session, and the winner of each session will then be the player who has
increased his or her wealth by the greatest percentage." (3)

Rulings (docs/rulings.md, "The end of the game"): houses with equal money share their rank, and
equal richest houses share the victory (the rulebook names no tie-break); a house that began the
session with nothing (or in debt) and ends it richer has an increase no percentage measures: it
ranks above every percentage, and among such houses the larger gain ranks first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.errors import RuleError

AGREED = "agreed"  # the agreed last turn was played (and its cashing-in)
TARGET = "target"  # a house reached the money target after a turn's cashing-in
AGREEMENT = "agreement"  # the table stopped by agreement (the GM ended it)
REASONS = {
    AGREED: "the agreed last turn was played",
    TARGET: "the money target was reached after the cashing-in",
    AGREEMENT: "the table ended it by agreement",
}
LONGEST = 500  # years: an agreed end further off than this is a typing mistake
MOST_MONEY = 10**9  # the ledger's own limit on a sum


class GameEndError(RuleError):
    code = "invalid_game_end"


@dataclass(frozen=True)
class Increase:
    """A house's wealth over the session: ``percent`` (None where no percentage measures it: the
    house began with nothing or in debt), ``gain`` in money, ``unbounded`` when it began with
    nothing (or less) and ends richer."""

    start: int
    end: int
    percent: Fraction | None
    gain: int
    unbounded: bool

    @property
    def key(self) -> tuple[int, Fraction, int]:
        """Sorts the greatest increase first (ascending order of the key)."""
        if self.unbounded:
            return (0, Fraction(0), -self.gain)
        if self.percent is not None:
            return (1, -self.percent, -self.gain)
        return (2, Fraction(0), -self.gain)


def increase(start: int, end: int) -> Increase:
    """The session's increase of a house from ``start`` to ``end`` (section 3)."""
    gain = end - start
    if start > 0:
        return Increase(start=start, end=end, percent=Fraction(gain * 100, start), gain=gain, unbounded=False)
    return Increase(start=start, end=end, percent=None, gain=gain, unbounded=gain > 0)


@dataclass(frozen=True)
class Standing:
    house: int
    money: int
    rank: int  # 1 is the richest; equal money, equal rank
    winner: bool
    increase: Increase | None = None
    series_rank: int | None = None  # by the session's increase (1: the greatest); None when no series
    series_winner: bool = False


def standings(money: Mapping[int, int], *, starts: Mapping[int, int] | None = None, winners: bool = True) -> list[Standing]:
    """The final table: every house by its money, the most first (ties in house order), with its
    rank (equal money, equal rank) and whether it won (the most money: several when equal). With
    ``starts`` (a series: each house's money at the session's start) each house's increase and its
    rank by it; the greatest increase wins the session. ``winners=False``: a ruleset whose game is
    not won on money (the ranks stand, nobody is named winner)."""
    order = sorted(money, key=lambda h: (-money[h], h))
    top = money[order[0]] if order else 0
    increases = {h: increase(starts.get(h, 0), money[h]) for h in order} if starts is not None else {}
    series_rank: dict[int, int] = {}
    if increases:
        by_increase = sorted(order, key=lambda h: (increases[h].key, h))
        for i, h in enumerate(by_increase):
            before = by_increase[i - 1] if i else None
            same = before is not None and increases[before].key == increases[h].key
            series_rank[h] = series_rank[before] if same and before is not None else i + 1
    out: list[Standing] = []
    for i, h in enumerate(order):
        rank = out[-1].rank if out and out[-1].money == money[h] else i + 1
        out.append(
            Standing(
                house=h,
                money=money[h],
                rank=rank,
                winner=winners and money[h] == top,
                increase=increases.get(h),
                series_rank=series_rank.get(h),
                series_winner=winners and series_rank.get(h) == 1,
            )
        )
    return out


def target_reached(money: Mapping[int, int], target: int | None) -> list[int]:
    """The houses with the target "or more" after a turn's cashing-in, the richest first; the one
    with the most wins ("If more than one player has more than 800 Crowns, the player with the most
    wins"). Empty without a target."""
    if not target:
        return []
    return sorted((h for h, m in money.items() if m >= target), key=lambda h: (-money[h], h))


def end_due(*, year: int, end_year: int | None, money: Mapping[int, int], target: int | None) -> str | None:
    """Why the game ends once the turn of ``year`` (its cashing-in included) is over: the money
    target first (it ends the game whatever the year), then the agreed last turn; None: play on."""
    if target_reached(money, target):
        return TARGET
    if end_year is not None and year >= end_year:
        return AGREED
    return None


def check_settings(
    *,
    end_year: int | None,
    money_target: int | None,
    current_year: int,
    start_year: int,
    money_wins: bool,
    currency: str,
) -> None:
    """The agreed last turn and the money target as the GM sets them; refused with what to fix."""
    if end_year is not None:
        if isinstance(end_year, bool) or not isinstance(end_year, int):
            raise GameEndError("The agreed last turn is a year (a whole number).", fields={"end_year": "invalid"})
        if end_year < max(start_year, current_year):
            raise GameEndError(
                f"The agreed last turn cannot be before the turn in play ({max(start_year, current_year)}); "
                f"{end_year} is. Give {max(start_year, current_year)} or later, or leave it empty.",
                fields={"end_year": "invalid"},
            )
        if end_year > start_year + LONGEST:
            raise GameEndError(
                f"The agreed last turn is more than {LONGEST} years after the start ({start_year}); {end_year} looks "
                "like a typing mistake.",
                fields={"end_year": "invalid"},
            )
    if money_target is not None:
        if not money_wins:
            raise GameEndError(
                "This ruleset's game is not won on money (its winner is reckoned at the board): set no money target.",
                fields={"money_target": "not_played"},
            )
        if isinstance(money_target, bool) or not isinstance(money_target, int) or not 0 < money_target <= MOST_MONEY:
            raise GameEndError(
                f"The money target is a whole number of {currency} above 0 (the rulebook's example: 800), or none.",
                fields={"money_target": "invalid"},
            )


def check_starts(starts: Mapping[int, int], houses: Sequence[int], currency: str) -> dict[int, int]:
    """Each house's money at the start of the session, as typed: whole numbers, known houses."""
    out: dict[int, int] = {}
    for house, amount in starts.items():
        if house not in houses:
            raise GameEndError(f"There is no player house #{house} in the campaign.", fields={"session_start": "unknown"})
        if isinstance(amount, bool) or not isinstance(amount, int) or abs(amount) > MOST_MONEY:
            raise GameEndError(
                f"A house's money at the session's start is a whole number of {currency}; {amount!r} is not.",
                fields={"session_start": "invalid"},
            )
        out[house] = amount
    return out


def percent_text(value: Increase | None) -> str:
    """'+50%', '-12.5%', 'from nothing, +300' or '—'."""
    if value is None:
        return "—"
    if value.percent is None:
        return f"from {value.start}, {value.gain:+d}" if value.gain else "no change"
    rounded = round(float(value.percent), 1)
    text = f"{rounded:+.1f}".rstrip("0").rstrip(".")
    return f"{text}%"
