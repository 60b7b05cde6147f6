"""The end of the game (Blood Royale sections 3 and 22): the settings, the end after the cashing-in,
the agreed last turn, a series' increase, the end by agreement, undo and reopening, and who sees
the final table."""

from __future__ import annotations

import pytest

from campaign import undo
from campaign.models import Campaign, ChronicleEntry, Step
from campaign.permissions import SYSTEM_ACTOR, Forbidden, can_view
from campaign.steps import GameOver
from dynasties.models import Dynasty, PostingKind
from dynasties.services import turn_advance
from dynasties.services.ending import final_table, game_end, game_end_settings, game_reopen, printable_final_table
from dynasties.services.interphase import cash_in_run, interphase_run
from dynasties.treasury import post
from rules.errors import NotFound, RuleError
from rules.interphase import InterphaseEntry
from tests.factories import at_step


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def give(campaign: Campaign, dynasty: Dynasty, amount: int) -> None:
    post(campaign, payer=None, payee=dynasty, amount=amount, kind=PostingKind.OTHER, reason="a purse")


def money(table: dict, crown: str) -> int | None:
    return next(r.money for r in table["rows"] if r.crown == crown)


def test_two_houses_over_the_target_after_the_cashing_in_the_richer_wins(campaign, gm) -> None:
    """(22) "at the beginning of the game players could set a monetary victory target (eg, 800
    Crowns). A player with this sum or more after the 'Cashing-In' Phase of a turn is declared the
    winner. If more than one player has more than 800 Crowns, the player with the most wins."
    England (700) and France (760) cash in: England two full sets (+240: 940), France one (+120:
    880). Both pass 800; England, the richer, wins, once the turn's cashing-in is over."""
    at_step(campaign, Step.INTERPHASE, year=1305)
    game_end_settings(campaign=campaign, end_year=None, money_target=800, by=gm)
    england, france = house(campaign, "England"), house(campaign, "France")
    give(campaign, england, 700)
    give(campaign, france, 760)
    for h in (england, france):
        interphase_run(campaign=campaign, dynasty=h, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR)
    cash_in_run(campaign=campaign, dynasty=england, basic_sets=0, luxury_sets=2, by=SYSTEM_ACTOR)
    campaign.refresh_from_db()
    assert campaign.ended_year is None  # the cashing-in phase is not over until the turn ends
    cash_in_run(campaign=campaign, dynasty=france, luxury_sets=1, by=SYSTEM_ACTOR)
    done = turn_advance(campaign=campaign, by=gm)
    assert done.current_year == 1305 and done.ended_year == 1305 and done.ended_reason == "target"
    table = done.ended_standings
    assert table["winners"] == [england.pk]
    assert [(r["name"], r["money"], r["rank"]) for r in table["rows"][:2]] == [(england.name, 940, 1), (france.name, 880, 2)]
    line = ChronicleEntry.objects.get(campaign=campaign, kind="game_end")
    assert line.audience == "public" and f"The house of {england.name} wins with 940 Crowns" in line.text
    with pytest.raises(GameOver, match="The game ended in 1305"):
        turn_advance(campaign=campaign, by=gm)
    with pytest.raises(GameOver):
        cash_in_run(campaign=campaign, dynasty=france, luxury_sets=1, by=SYSTEM_ACTOR)


def test_no_target_reached_the_game_goes_on(campaign, gm) -> None:
    at_step(campaign, Step.INTERPHASE, year=1305)
    game_end_settings(campaign=campaign, end_year=None, money_target=800, by=gm)
    give(campaign, house(campaign, "England"), 799)
    assert turn_advance(campaign=campaign, by=gm).current_year == 1310


def test_the_agreed_end_comes_after_the_last_turn_and_its_cashing_in(campaign, gm) -> None:
    """(22) "At the end of the agreed time, the game is terminated. Players may cash in any sets of
    Resource items they have in their Capitals ... The player with the most money is the winner."
    The agreed last turn is 1310: the turn of 1305 passes to 1310; after 1310's cashing-in the game
    ends and Spain, the richest after cashing in, wins."""
    at_step(campaign, Step.INTERPHASE, year=1305)
    game_end_settings(campaign=campaign, end_year=1310, money_target=None, by=gm)
    assert turn_advance(campaign=campaign, by=gm).current_year == 1310
    campaign.refresh_from_db()
    at_step(campaign, Step.INTERPHASE, year=1310)
    spain, italy = house(campaign, "Spain"), house(campaign, "Italy")
    give(campaign, spain, 100)
    give(campaign, italy, 150)
    interphase_run(campaign=campaign, dynasty=spain, entry=InterphaseEntry(provinces=0), by=SYSTEM_ACTOR)
    cash_in_run(campaign=campaign, dynasty=spain, basic_sets=2, by=SYSTEM_ACTOR)  # +100: 200, the final cashing-in
    done = turn_advance(campaign=campaign, by=gm)
    assert (done.current_year, done.ended_year, done.ended_reason) == (1310, 1310, "agreed")
    assert done.ended_standings["winners"] == [spain.pk]


def test_equal_richest_share_the_victory(campaign, gm) -> None:
    at_step(campaign, Step.INTERPHASE, year=1305)
    give(campaign, house(campaign, "Spain"), 300)
    give(campaign, house(campaign, "Italy"), 300)
    done = game_end(campaign=campaign, by=gm)
    assert done.ended_reason == "agreement"
    assert sorted(done.ended_standings["winners"]) == sorted([house(campaign, "Spain").pk, house(campaign, "Italy").pk])
    assert " and the house of " in ChronicleEntry.objects.get(campaign=campaign, kind="game_end").text


def test_a_series_is_won_by_the_greatest_percentage_increase(campaign, gm) -> None:
    """(3) "each player should record the amount of money he or she has at the end of a session,
    and the winner of each session will then be the player who has increased his or her wealth by
    the greatest percentage." England began with 400 and ends with 600 (+50%), France began with 100
    and ends with 200 (+100%): England has the most money, France wins the session."""
    england, france = house(campaign, "England"), house(campaign, "France")
    game_end_settings(campaign=campaign, end_year=None, money_target=None, session_start={england.pk: 400, france.pk: 100}, by=gm)
    give(campaign, england, 600)
    give(campaign, france, 200)
    table = game_end(campaign=campaign, by=gm).ended_standings
    assert table["series"] and table["winners"] == [england.pk] and table["series_winners"] == [france.pk]
    rows = {r["house"]: r for r in table["rows"]}
    assert (rows[england.pk]["increase"], rows[france.pk]["increase"]) == ("+50%", "+100%")
    assert rows[house(campaign, "Spain").pk]["start"] == 0  # not typed: its opening balance
    assert "greatest increase: the house of " + france.name in ChronicleEntry.objects.get(campaign=campaign, kind="game_end").text
    # the series' money was the GM's alone until the end
    series = ChronicleEntry.objects.get(campaign=campaign, kind="game_series")
    assert series.audience == "gm"


def test_only_the_gm_ends_sets_or_reopens(campaign, alice) -> None:
    with pytest.raises(Forbidden):
        game_end(campaign=campaign, by=alice)
    with pytest.raises(Forbidden):
        game_end_settings(campaign=campaign, end_year=1400, money_target=None, by=alice)


def test_the_settings_are_checked_and_told(campaign, gm) -> None:
    with pytest.raises(RuleError, match="above 0") as bad:
        game_end_settings(campaign=campaign, end_year=None, money_target=-5, by=gm)
    assert bad.value.fields == {"money_target": "invalid"}
    campaign.refresh_from_db()
    assert campaign.money_target is None
    game_end_settings(campaign=campaign, end_year=1450, money_target=800, by=gm)
    line = ChronicleEntry.objects.get(campaign=campaign, kind="game_settings")
    assert line.audience == "public"
    assert "the agreed last turn is 1450 (turn 31); the money target is 800 Crowns" in line.text


def test_the_money_target_is_blood_royales(gm) -> None:
    from dynasties.services.setup import campaign_create
    from rules import bloodline as bl

    with pytest.raises(RuleError, match="not won on money"):
        campaign_create(name="Europa", ruleset=bl.NAME, players=3, money_target=800, by=gm)
    made = campaign_create(name="Europa", ruleset=bl.NAME, players=3, end_year=1700, by=gm)
    assert made.end_year == 1700 and made.money_target is None


def test_the_end_is_undone_and_redone_like_any_step_action(campaign, gm) -> None:
    at_step(campaign, Step.INTERPHASE, year=1305)
    undo.step_action(campaign=campaign, key="end-1", label="End the game", action=lambda c: game_end(campaign=c, by=gm), by=gm)
    campaign.refresh_from_db()
    assert campaign.ended_year == 1305
    undo.undo_step(campaign=campaign, key="undo-1", by=gm)
    campaign.refresh_from_db()
    assert campaign.ended_year is None and campaign.ended_standings == {} and campaign.ended_reason == ""
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="game_end").exists()
    undo.redo(campaign=campaign, key="redo-1", by=gm)
    campaign.refresh_from_db()
    assert campaign.ended_year == 1305 and ChronicleEntry.objects.filter(campaign=campaign, kind="game_end").exists()


def test_reopening_a_game_ended_by_mistake(campaign, gm) -> None:
    at_step(campaign, Step.INTERPHASE, year=1305)
    game_end_settings(campaign=campaign, end_year=1305, money_target=None, by=gm)
    assert turn_advance(campaign=campaign, by=gm).ended_year == 1305
    with pytest.raises(RuleError, match="would end again") as bad:
        game_reopen(campaign=campaign, by=gm)
    assert bad.value.fields == {"end_year": "due"}
    campaign.refresh_from_db()
    assert campaign.ended_year == 1305  # nothing half-written
    game_end_settings(campaign=campaign, end_year=1320, money_target=None, by=gm)  # allowed once ended
    reopened = game_reopen(campaign=campaign, by=gm)
    assert reopened.ended_year is None and reopened.ended_standings == {}
    assert ChronicleEntry.objects.get(campaign=campaign, kind="game_reopened").audience == "public"
    assert turn_advance(campaign=campaign, by=gm).current_year == 1310
    with pytest.raises(RuleError, match="has not ended"):
        game_reopen(campaign=campaign, by=gm)


def test_who_sees_the_standings(campaign, gm, alice, bob) -> None:
    """Money is private until the end (a player sees only his own; the GM all); the final table is
    public once the game has ended (docs/rulings.md)."""
    england, france = house(campaign, "England"), house(campaign, "France")
    give(campaign, england, 50)
    give(campaign, france, 70)
    before = final_table(campaign, role="player", mine=england.pk)
    assert money(before, "England") == 50 and money(before, "France") is None
    assert not any(r.rank or r.winner for r in before["rows"])  # no rank: it would tell the others' money
    assert [r.crown for r in before["rows"]][:2] == ["England", "France"]  # seat order, not by money
    assert money(final_table(campaign, role="gm", mine=None), "France") == 70
    assert money(final_table(campaign, role="observer", mine=None), "England") is None
    game_end(campaign=campaign, by=gm)
    campaign.refresh_from_db()
    after = final_table(campaign, role="observer", mine=None)
    assert money(after, "France") == 70 and after["rows"][0].crown == "France" and after["rows"][0].winner
    line = ChronicleEntry.objects.get(campaign=campaign, kind="game_end")
    assert can_view(alice, line) and can_view(bob, line)


def test_the_service_decides_who_prints_the_final_table(campaign, gm, alice, outsider) -> None:
    """The printable final table is the GM's before the end and every member's after it: the
    service asks the policy who the caller is and refuses the rest as for what does not exist (every
    door alike passes only who asks)."""
    england = house(campaign, "England")
    give(campaign, england, 50)
    with pytest.raises(NotFound, match="the game has not ended"):
        printable_final_table(campaign, by=alice)
    assert money(printable_final_table(campaign, by=gm), "England") == 50
    game_end(campaign=campaign, by=gm)
    campaign.refresh_from_db()
    assert money(printable_final_table(campaign, by=alice), "England") == 50
    with pytest.raises(NotFound):
        printable_final_table(campaign, by=outsider)  # a member of nothing here, even after the end


def test_an_ended_game_is_exported_and_imported_with_its_end(campaign, gm) -> None:
    from operations.exchange import campaign_export, campaign_import

    england = house(campaign, "England")
    give(campaign, england, 500)
    game_end_settings(campaign=campaign, end_year=1400, money_target=800, by=gm)
    game_end(campaign=campaign, by=gm)
    doc = campaign_export(Campaign.objects.get(pk=campaign.pk))
    assert {k: doc["campaign"][k] for k in ("end_year", "money_target", "ended_year", "ended_reason")} == {
        "end_year": 1400,
        "money_target": 800,
        "ended_year": 1300,
        "ended_reason": "agreement",
    }
    line = next(e for y in doc["chronicle"] for e in y["entries"] if e["kind"] == "game_end")
    exported_england = next(d["id"] for d in doc["dynasties"] if d["crown"] == "England")
    assert line["data"]["winners"] == [exported_england]  # an export id, not the database's
    copy = campaign_import(doc)
    assert (copy.ended_year, copy.ended_reason, copy.money_target) == (1300, "agreement", 800)
    table = final_table(copy, role="observer", mine=None)  # rebuilt from its ledger
    assert table["ended"] and table["rows"][0].crown == "England" and table["rows"][0].money == 500 and table["rows"][0].winner
    with pytest.raises(GameOver):
        turn_advance(campaign=copy, by=SYSTEM_ACTOR)
