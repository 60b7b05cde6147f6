"""The end of the game (Blood Royale sections 3 and 22): its settings, the end itself, the final
table and a reopening. The law is ``rules.ending``; who sees what is ``campaign.permissions``
(:func:`~campaign.permissions.sees_house_money`).

The game ends once the turn in which it is due is over, its cashing-in included: when the GM starts
the next turn (``turn_advance`` asks :func:`close_if_due`) after the agreed last turn, or after a
turn whose cashing-in left a house with the money target or more. The GM may also end it by
agreement at any time (:func:`game_end`), undo that like any step action, or reopen a game ended by
mistake (:func:`game_reopen`). Once ended, no step is played (``campaign.steps.require_open_game``);
the books stay readable, and the final table is frozen in the campaign as it stood."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Sum

from campaign.models import Campaign, Step
from campaign.permissions import Actor, require, role_of, sees_final_table, sees_house_money
from campaign.steps import Chronicle, Seen, lock_campaign
from dynasties.models import Dynasty, DynastyKind, Posting
from dynasties.services.play_registry import play_of
from dynasties.treasury import balances, currency
from rules import ending as law
from rules.errors import NotFound, RuleError

__all__ = [
    "Row",
    "close_if_due",
    "end_due",
    "final_table",
    "game_end",
    "game_end_settings",
    "game_reopen",
    "opening_balances",
    "settings_text",
]


@dataclass(frozen=True)
class Row:
    """One house on the standings, as a viewer may see it (``money`` None: not his to see)."""

    house: int
    name: str
    crown: str
    color: str
    money: int | None
    rank: int | None
    winner: bool
    start: int | None = None
    increase: str = ""
    series_rank: int | None = None
    series_winner: bool = False


def _houses(campaign: Campaign) -> list[Dynasty]:
    return list(Dynasty.objects.filter(campaign=campaign, kind=DynastyKind.PLAYER).order_by("seat", "id"))


def opening_balances(campaign: Campaign) -> dict[int, int]:
    """Each account's opening balance (docs/rulings.md): what it held before the first turn's play,
    i.e. the postings of the first year's Births step (a starting treasury the GM posts); two queries."""
    first = Posting.objects.filter(campaign=campaign, year=campaign.start_year, step=Step.BIRTHS)
    out: dict[int, int] = {}
    for row in first.exclude(payee__isnull=True).values("payee_id").annotate(s=Sum("amount")):
        out[row["payee_id"]] = out.get(row["payee_id"], 0) + int(row["s"])
    for paid in first.exclude(payer__isnull=True).values("payer_id").annotate(s=Sum("amount")):
        out[paid["payer_id"]] = out.get(paid["payer_id"], 0) - int(paid["s"])
    return out


def _starts(campaign: Campaign, houses: list[Dynasty]) -> dict[int, int] | None:
    """A series' money at the session's start by house (None: not a series); a house not typed
    started with its opening balance."""
    if not campaign.session_start:
        return None
    opening = opening_balances(campaign)
    typed = {int(k): int(v) for k, v in campaign.session_start.items()}
    return {h.pk: typed.get(h.pk, opening.get(h.pk, 0)) for h in houses}


def _money(campaign: Campaign, houses: list[Dynasty]) -> dict[int, int]:
    held = balances(campaign)
    return {h.pk: held.get(h.pk, 0) for h in houses}


def end_due(campaign: Campaign) -> str | None:
    """Why the game ends once the turn in play is over (``rules.ending.end_due``), or None."""
    if campaign.ended_year is not None:
        return None
    target = campaign.money_target if play_of(campaign).ending.money_wins() else None
    money = _money(campaign, _houses(campaign)) if target else {}
    return law.end_due(year=campaign.current_year, end_year=campaign.end_year, money=money, target=target)


def _table(campaign: Campaign, reason: str) -> dict[str, Any]:
    """The final table as it stands now (what the end freezes)."""
    houses = _houses(campaign)
    money = _money(campaign, houses)
    starts = _starts(campaign, houses)
    wins = play_of(campaign).ending.money_wins()
    # with a target reached, the richest house wins: it holds the target or more too ("If more than
    # one player has more than 800 Crowns, the player with the most wins")
    standings = law.standings(money, starts=starts, winners=wins)
    by_pk = {h.pk: h for h in houses}
    rows = [
        {
            "house": s.house,
            "name": by_pk[s.house].name,
            "crown": by_pk[s.house].crown,
            "color": by_pk[s.house].color,
            "money": s.money,
            "rank": s.rank,
            "winner": s.winner,
            "start": s.increase.start if s.increase else None,
            "increase": law.percent_text(s.increase) if s.increase else "",
            "series_rank": s.series_rank,
            "series_winner": s.series_winner,
        }
        for s in standings
    ]
    return {
        "year": campaign.current_year,
        "reason": reason,
        "currency": currency(campaign),
        "money_wins": wins,
        "series": starts is not None,
        "target": campaign.money_target,
        "end_year": campaign.end_year,
        "rows": rows,
        "winners": [r["house"] for r in rows if r["winner"]],
        "series_winners": [r["house"] for r in rows if r["series_winner"]],
    }


def final_table(campaign: Campaign, *, role: str | None, mine: int | None) -> dict[str, Any]:
    """The standings a viewer may see: once the game has ended, the frozen final table, whole for
    every member; before, the table as it stands, whole for the GM, and for a player only his own
    house's money, the houses in seat order (no rank, no leader: the order would tell the rest).
    Bounded queries."""
    ended = campaign.ended_year is not None
    # an imported campaign that ended has no frozen table (the export carries the end, not the table):
    # its books are closed, so the table is read from them as it stands
    table = dict(campaign.ended_standings) if ended and campaign.ended_standings else _table(campaign, campaign.ended_reason)
    if ended:
        table["year"] = campaign.ended_year
    whole = sees_final_table(role, ended=ended)
    shown: list[Row] = []
    for r in table["rows"]:
        sees = sees_house_money(role, mine, r["house"], ended=ended)
        shown.append(
            Row(
                house=r["house"],
                name=r["name"],
                crown=r["crown"],
                color=r.get("color", "#888888"),
                money=r["money"] if sees else None,
                rank=r["rank"] if whole else None,
                winner=bool(r["winner"]) and whole,
                start=r["start"] if sees else None,
                increase=r["increase"] if sees else "",
                series_rank=r["series_rank"] if whole else None,
                series_winner=bool(r["series_winner"]) and whole,
            )
        )
    if not whole:
        seats = {h.pk: i for i, h in enumerate(_houses(campaign))}
        shown.sort(key=lambda row: (seats.get(row.house, len(seats)), row.house))
    table["rows"] = shown
    table["ended"] = ended
    table["whole"] = whole
    table["reason_text"] = law.REASONS.get(table.get("reason", ""), "")
    return table


def printable_final_table(campaign: Campaign, *, by: Actor) -> dict[str, Any]:
    """The final table to print for ``by``: every member's once the game has ended; before, the GM's
    (the table as it stands). Anyone else is refused as for what does not exist (the policy's
    ``role_of`` and ``sees_final_table``): the doors pass who asks, not what he may see."""
    role, mine = role_of(by, campaign)
    if not sees_final_table(role, ended=campaign.ended_year is not None):
        raise NotFound("No final table to print: the game has not ended (the GM may print the table as it stands).")
    return final_table(campaign, role=role, mine=mine)


def _end_text(campaign: Campaign, table: dict[str, Any]) -> str:
    money = table["currency"]
    names = {r["house"]: r["name"] for r in table["rows"]}
    held = {r["house"]: r["money"] for r in table["rows"]}
    text = f"The game ends in {table['year']}: {law.REASONS[table['reason']]}."
    if table["winners"]:
        who = " and ".join(f"the house of {names[h]}" for h in table["winners"])
        verb = "win" if len(table["winners"]) > 1 else "wins"
        text += f" {who[0].upper() + who[1:]} {verb} with {held[table['winners'][0]]} {money}."
    if table["series_winners"]:
        who = " and ".join(f"the house of {names[h]}" for h in table["series_winners"])
        text += f" The session's greatest increase: {who}."
    ranks = "; ".join(f"{r['rank']}. {r['name']} {r['money']} {money}" for r in table["rows"])
    return text + f" The final table: {ranks}."


def _close(campaign: Campaign, reason: str, chronicle: Chronicle) -> dict[str, Any]:
    table = _table(campaign, reason)
    campaign.ended_year = campaign.current_year
    campaign.ended_reason = reason
    campaign.ended_standings = table
    campaign.save(update_fields=["ended_year", "ended_reason", "ended_standings"])
    chronicle.add("game_end", _end_text(campaign, table), reason=reason, winners=table["winners"])
    return table


def close_if_due(campaign: Campaign, *, by: Actor) -> bool:
    """Called by ``turn_advance`` inside its transaction, with the campaign locked: end the game
    instead of starting the next turn when the end is due (the agreed last turn is over, or a house
    holds the money target after this turn's cashing-in). True when it ended."""
    require(by, campaign, "gm")
    reason = end_due(campaign)
    if reason is None:
        return False
    chronicle = Chronicle(campaign)
    _close(campaign, reason, chronicle)
    chronicle.flush()
    return True


def _campaign(campaign: Campaign | int) -> Campaign:
    pk = campaign.pk if isinstance(campaign, Campaign) else campaign
    if isinstance(pk, bool) or not isinstance(pk, int) or not Campaign.objects.filter(pk=pk).exists():
        raise NotFound(f"There is no campaign #{pk}.")
    return lock_campaign(pk, seen=Seen.ALL)


@transaction.atomic
def game_end(*, campaign: Campaign | int, by: Actor) -> Campaign:
    """The GM ends the game now: by agreement (at any step; the final cashing-in of section 22 is
    the Interphase step's, so a table ending on time posts it first), or because its end is due.
    The final table is frozen and told to every member."""
    campaign = _campaign(campaign)
    require(by, campaign, "gm")
    if campaign.ended_year is not None:
        raise RuleError(
            f"The game already ended in {campaign.ended_year}. To play on, reopen it first.", code="game_ended", fields={}
        )
    chronicle = Chronicle(campaign)
    _close(campaign, end_due(campaign) or law.AGREEMENT, chronicle)
    chronicle.flush()
    return campaign


@transaction.atomic
def game_reopen(*, campaign: Campaign | int, by: Actor) -> Campaign:
    """The GM reopens a game ended by mistake (docs/rulings.md): the final table is dropped and the
    turn goes on where it stood. Refused while the end would come again at once (the agreed last
    turn passed, or the target held): change the settings first."""
    campaign = _campaign(campaign)
    require(by, campaign, "gm")
    if campaign.ended_year is None:
        raise RuleError("The game has not ended: there is nothing to reopen.", code="game_not_ended")
    ended, reason = campaign.ended_year, campaign.ended_reason
    campaign.ended_year = None
    due = end_due(campaign)
    if due is not None:
        what = (
            f"a house holds the money target of {campaign.money_target} {currency(campaign)}"
            if due == law.TARGET
            else f"the agreed last turn ({campaign.end_year}) is the turn in play"
        )
        raise RuleError(
            f"The game would end again at the next turn: {what}. Change the agreed last turn or the money target "
            "first, then reopen it.",
            code="game_end_due",
            fields={"end_year" if due == law.AGREED else "money_target": "due"},
        )
    campaign.ended_reason = ""
    campaign.ended_standings = {}
    campaign.save(update_fields=["ended_year", "ended_reason", "ended_standings"])
    chronicle = Chronicle(campaign)
    chronicle.add(
        "game_reopened",
        f"The GM reopens the game (it had ended in {ended}: {law.REASONS.get(reason, reason)}); play goes on.",
    )
    chronicle.flush()
    return campaign


def settings_text(campaign: Campaign) -> str:
    """The end's settings in words (the closing page, the chronicle)."""
    parts = []
    if campaign.end_year is not None:
        turn = (campaign.end_year - campaign.start_year) // campaign.turn_length + 1
        parts.append(f"the agreed last turn is {campaign.end_year} (turn {turn})")
    else:
        parts.append("no agreed last turn")
    if play_of(campaign).ending.money_wins():
        parts.append(
            f"the money target is {campaign.money_target} {currency(campaign)}" if campaign.money_target else "no money target"
        )
    return "; ".join(parts)


@transaction.atomic
def game_end_settings(
    *,
    campaign: Campaign | int,
    end_year: int | None,
    money_target: int | None,
    session_start: Mapping[int, int] | None = None,
    by: Actor,
) -> Campaign:
    """The GM sets how the game ends: the agreed last turn (its year; None: none), the money target
    (None: none; a ruleset not won on money refuses one) and, for a series, each house's money at
    this session's start (``session_start``: house id -> money; a house left out started with its
    opening balance; None or empty: not a series). A change of the end is told to every member; the
    series' money, being money, only to the GM (it is public in the final table)."""
    campaign = _campaign(campaign)
    require(by, campaign, "gm")
    law.check_settings(
        end_year=end_year,
        money_target=money_target,
        current_year=campaign.current_year if campaign.ended_year is None else campaign.ended_year,
        start_year=campaign.start_year,
        money_wins=play_of(campaign).ending.money_wins(),
        currency=currency(campaign),
    )
    houses = [h.pk for h in _houses(campaign)]
    starts = law.check_starts(dict(session_start or {}), houses, currency(campaign))
    before = settings_text(campaign)
    old_starts = dict(campaign.session_start or {})
    campaign.end_year = end_year
    campaign.money_target = money_target
    if session_start is not None:
        campaign.session_start = {str(h): starts[h] for h in houses if h in starts}
    campaign.save(update_fields=["end_year", "money_target", "session_start"])
    chronicle = Chronicle(campaign)
    after = settings_text(campaign)
    if after != before:
        chronicle.add("game_settings", f"The GM sets the end of the game: {after} (it was: {before}).")
    if session_start is not None and campaign.session_start != old_starts:
        if campaign.session_start:
            names = dict(Dynasty.objects.filter(pk__in=houses).values_list("pk", "name"))
            listed = "; ".join(f"{names[int(h)]} {v}" for h, v in campaign.session_start.items())
            chronicle.add("game_series", f"The houses' money at this session's start ({currency(campaign)}): {listed}.")
        else:
            chronicle.add("game_series", "The game is no longer a session of a series.")
    chronicle.flush()
    return campaign
