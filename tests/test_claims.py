"""Diplomacy's consequences (issue 33), built from the medieval rulebook's words
(/work/shared/seeds/medieval-grand-diplomacy.txt, sections 20-22): the claims register, a contested
conquest's or inheritance's decision enforced, excommunication for flouting it."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import ChronicleEntry
from campaign.permissions import SYSTEM_ACTOR, visible
from contracts.models import Claim, ClaimHow, Excommunication, Obligation, ObligationState, Parley, ParleyVote
from contracts.services import (
    area_claim_exchange,
    area_claim_record,
    area_claim_renounce,
    obligation_resolve,
    parley_run,
    readmission_parley,
)
from rules import contracts as rules
from rules.errors import RuleError
from tests.test_contracts import advance, ballot, die, house, who


def claim_parley(campaign, crown, area, votes):
    return parley_run(campaign=campaign, kind="claim", caller=house(campaign, crown), area=area, votes=votes, by=SYSTEM_ACTOR)


def contest(campaign, kind, crown, opponent, area, votes):
    return parley_run(
        campaign=campaign,
        kind=kind,
        caller=house(campaign, crown),
        opponent=house(campaign, opponent),
        area=area,
        votes=votes,
        by=SYSTEM_ACTOR,
    )


# the law, pure ------------------------------------------------------------------------------------


def test_the_law_of_a_contest_and_of_a_claim():
    """20.41 "In a tied vote the player who called the parley retains control of the area"; 20.42
    "Agreement, or a tie, means the player obtains the claim"; once per round."""
    assert rules.contest_obligation("conquest", True) == rules.Obliged("opponent", "return")
    assert rules.contest_obligation("conquest", False) is None  # the conqueror holds it and keeps it
    assert rules.contest_obligation("inheritance", False) == rules.Obliged("caller", "relinquish")
    assert rules.contest_obligation("inheritance", True) is None  # the caller retains possession
    assert rules.contest_obligation("claim", True) is None
    assert rules.claim_obtained(True) and not rules.claim_obtained(False)
    assert rules.may_call_claim_parley(0) and not rules.may_call_claim_parley(1)
    assert rules.area_name("  the   Duchy of  Savoy ") == ("the Duchy of Savoy", "the duchy of savoy")
    with pytest.raises(RuleError, match="Name the area"):
        rules.area_name("   ")
    assert not rules.obligation_overdue(1300, 1300) and rules.obligation_overdue(1300, 1305)


# 20.42: a claim parley ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_claim_parley_tie_grants_the_claim_once_per_round(campaign):
    """20.42: "A player may, once per round, call for a parley in order to obtain a claim to an area
    ... Agreement, or a tie, means the player obtains the claim." """
    parley = claim_parley(
        campaign, "Italy", "Savoy", [ballot(campaign, "Italy", 4, "for"), ballot(campaign, "Spain", 4, "against")]
    )
    assert parley.carried and parley.tie and parley.area == "Savoy"
    claim = Claim.objects.get()
    assert (claim.dynasty, claim.area, claim.how, claim.parley, claim.since_year) == (
        house(campaign, "Italy"),
        "Savoy",
        ClaimHow.PARLEY,
        parley,
        1300,
    )
    assert parley.outcome.endswith(f"; {house(campaign, 'Italy').name} obtains the claim to Savoy")
    with pytest.raises(RuleError, match=r"once per round \(20.42\)"):
        claim_parley(campaign, "Italy", "Nice", [ballot(campaign, "Italy", 9, "for")])
    lost = claim_parley(
        campaign, "Spain", "Navarre", [ballot(campaign, "Spain", 2, "for"), ballot(campaign, "Italy", 5, "against")]
    )
    assert not lost.carried and Claim.objects.count() == 1  # lost: no claim
    advance(campaign)
    campaign.refresh_from_db()
    with pytest.raises(RuleError, match="already holds a claim to Savoy"):
        claim_parley(campaign, "Italy", " savoy ", [ballot(campaign, "Italy", 9, "for")])
    assert Parley.objects.filter(kind="claim").count() == 2  # nothing half-written


# 20.41: contesting a diplomatic conquest -------------------------------------------------------------


@pytest.mark.django_db
def test_a_conquest_decided_for_the_caller_is_returned_or_the_conqueror_excommunicated(campaign):
    """20.41: "The parley decides the rightful owner of the area ... that player either returns
    control of the area or is excommunicated (see 22.1). In a tied vote the player who called the
    parley retains control of the area." """
    tie = contest(
        campaign,
        "conquest",
        "Italy",
        "Spain",
        "Savoy",
        [ballot(campaign, "Italy", 4, "for"), ballot(campaign, "Spain", 4, "against")],
    )
    due = Obligation.objects.get(parley=tie)
    assert (due.obliged, due.owed_to, due.action, due.area, due.state, due.due_year) == (
        house(campaign, "Spain"),
        house(campaign, "Italy"),
        "return",
        "Savoy",
        ObligationState.OPEN,
        1300,
    )
    refused = obligation_resolve(campaign=campaign, obligation=due, complied=False, by=SYSTEM_ACTOR)
    ban = Excommunication.objects.get(dynasty=house(campaign, "Spain"))
    assert refused.state == ObligationState.REFUSED and refused.excommunication == ban and ban.parley == tie and ban.active
    assert f"flouted the parley's decision to return Savoy to {house(campaign, 'Italy').name} (refused)" == ban.reason
    with pytest.raises(RuleError, match="was settled in 1300"):
        obligation_resolve(campaign=campaign, obligation=due, complied=True, by=SYSTEM_ACTOR)
    # complied: the area returned is recorded, nobody excommunicated
    other = contest(campaign, "conquest", "England", "France", "Calais", [ballot(campaign, "England", 6, "for")])
    done = obligation_resolve(campaign=campaign, obligation=other.obligation, complied=True, by=SYSTEM_ACTOR)
    assert done.state == ObligationState.COMPLIED and done.excommunication is None
    assert not Excommunication.objects.filter(dynasty=house(campaign, "France")).exists()
    assert ChronicleEntry.objects.filter(kind="obligation", text__contains="returns Calais to the house of Plantagenet").exists()


@pytest.mark.django_db
def test_a_conquest_decided_for_the_conqueror_leaves_it_where_it_is(campaign):
    """20.41: "If it is decided their opponent is the rightful owner" the conquest stands: nothing is due."""
    lost = contest(
        campaign,
        "conquest",
        "Italy",
        "Spain",
        "Savoy",
        [ballot(campaign, "Italy", 3, "for"), ballot(campaign, "Spain", 4, "against")],
    )
    assert (
        not lost.carried
        and not Obligation.objects.exists()
        and lost.outcome.endswith(f"{house(campaign, 'Spain').name} keeps Savoy")
    )
    with pytest.raises(RuleError, match=r"Name the opponent: the player who conquered the area \(20.41\)"):
        parley_run(campaign=campaign, kind="conquest", caller=house(campaign, "Italy"), area="Nice", votes=[], by=SYSTEM_ACTOR)


# 20.43: contesting a dynastic inheritance; 22.1: flouting ---------------------------------------------


@pytest.mark.django_db
def test_an_inheritance_lost_and_not_relinquished_by_the_turns_end_excommunicates(campaign):
    """20.43: "If their opponent, the player either relinquishes ownership or is excommunicated";
    22.1: "A Christian leader may be excommunicated as a result of flouting a parley decision"."""
    lost = contest(
        campaign,
        "inheritance",
        "England",
        "France",
        "Guyenne",
        [ballot(campaign, "England", 3, "for"), ballot(campaign, "France", 5, "against")],
    )
    due = lost.obligation
    assert (due.obliged, due.owed_to, due.action) == (house(campaign, "England"), house(campaign, "France"), "relinquish")
    kept = contest(campaign, "inheritance", "Italy", "Spain", "Milan", [ballot(campaign, "Italy", 5, "for")])
    assert not Obligation.objects.filter(parley=kept).exists()  # the caller retains possession
    campaign = advance(campaign)  # the turn ends with the decision open: flouted
    due.refresh_from_db()
    ban = Excommunication.objects.get(dynasty=house(campaign, "England"))
    assert due.state == ObligationState.FLOUTED and due.resolved_year == 1305 and due.excommunication == ban
    assert ban.start_year == 1305 and ban.parley == lost and "did not by the end of the turn" in ban.reason
    # 22.12 / 22.13: excommunicated, England neither votes nor contests, but asks for readmission
    vote = claim_parley(
        campaign, "Spain", "Aragon", [ballot(campaign, "Spain", 2, "for"), ballot(campaign, "England", 9, "against")]
    )
    assert vote.carried and ParleyVote.objects.get(parley=vote, dynasty=house(campaign, "England")).excluded.startswith(
        "excommunicated"
    )
    with pytest.raises(RuleError, match=r"may call a parley only on its own readmission \(22.13\)"):
        contest(campaign, "conquest", "England", "Italy", "Kent", [ballot(campaign, "England", 9, "for")])
    back = readmission_parley(
        campaign=campaign, dynasty=house(campaign, "England"), votes=[ballot(campaign, "England", 4, "for")], by=SYSTEM_ACTOR
    )
    assert back.carried and not Excommunication.objects.get(pk=ban.pk).active


@pytest.mark.django_db
def test_a_leader_just_dead_heirless_may_not_contest_an_inheritance(campaign):
    """20.43: "NB: a player whose leader has just died heirless may not contest a Dynastic Inheritance card"."""
    die(campaign, who(campaign, "Louis", "Anjou"))
    die(campaign, who(campaign, "Jean", "Anjou"))  # King of France, his only son dead before him
    campaign.refresh_from_db()
    with pytest.raises(
        RuleError, match=r"has just died heirless: his house may not contest a Dynastic Inheritance card \(20.43\)"
    ):
        contest(campaign, "inheritance", "France", "Spain", "Burgundy", [ballot(campaign, "France", 5, "for")])
    die(campaign, who(campaign, "Edward", "Plantagenet"))  # his son is his heir: England may contest
    contest(campaign, "inheritance", "England", "Spain", "Gascony", [ballot(campaign, "England", 5, "for")])
    assert not Parley.objects.filter(caller=house(campaign, "France")).exists()


# 20.1: exchanging claims; 21: kept in exile ------------------------------------------------------------


@pytest.mark.django_db
def test_claims_are_exchanged_freely_renounced_and_kept_whatever_befalls_the_house(campaign, alice, bob):
    """20.1: "players may freely exchange existing claims to areas"; 21: "When a player goes into
    exile they maintain possession of ... any diplomatic ties and claims they have established"."""
    england, france = house(campaign, "England"), house(campaign, "France")
    calais = area_claim_record(campaign=campaign, dynasty=england, area="Calais", by=SYSTEM_ACTOR)
    anjou = area_claim_record(campaign=campaign, dynasty=france, area="Anjou", by=SYSTEM_ACTOR)
    with pytest.raises(RuleError, match="already holds a claim to Calais"):
        area_claim_record(campaign=campaign, dynasty=england, area="CALAIS", by=SYSTEM_ACTOR)
    with pytest.raises(PermissionDenied):  # an exchange of two houses: the GM records it
        area_claim_exchange(campaign=campaign, first=england, second=france, first_gives=[calais.pk], by=alice)
    with pytest.raises(RuleError, match="is Plantagenet's, not Anjou's to give"):
        area_claim_exchange(campaign=campaign, first=france, second=england, first_gives=[calais.pk], by=SYSTEM_ACTOR)
    made = area_claim_exchange(
        campaign=campaign, first=england, second=france, first_gives=[calais.pk], second_gives=[anjou.pk], by=SYSTEM_ACTOR
    )
    assert sorted((c.dynasty.name, c.area, c.how) for c in made) == [
        ("Anjou", "Calais", "exchange"),
        ("Plantagenet", "Anjou", "exchange"),
    ]
    calais.refresh_from_db()
    assert (calais.ended_year, calais.end, calais.passed_to.dynasty) == (1300, "given", france)
    with pytest.raises(PermissionDenied):  # a player renounces only his own house's claims
        area_claim_renounce(campaign=campaign, claim=made[0].pk, by=alice)
    assert area_claim_renounce(campaign=campaign, claim=made[0].pk, by=bob).end == "renounced"
    # kept: the turn advances, the house is excommunicated, its leader dies; the claim stands
    contest(campaign, "conquest", "Italy", "England", "Kent", [ballot(campaign, "Italy", 5, "for")])
    campaign = advance(campaign)
    assert Excommunication.objects.get(dynasty=england).active
    die(campaign, who(campaign, "Edward", "Plantagenet"))
    held = Claim.objects.get(dynasty=england, ended_year__isnull=True)
    assert held.area == "Anjou" and held.since_year == 1300
    # public at the table: every member sees the register
    assert set(visible(alice, campaign, Claim.objects.all())) == set(Claim.objects.filter(campaign=campaign))


# the doors ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_claims_page_and_the_parley_page_in_bounded_queries(client, campaign, gm, alice):
    for n in range(3):
        area_claim_record(campaign=campaign, dynasty=house(campaign, "England"), area=f"Area {n}", by=SYSTEM_ACTOR)
    parley = contest(campaign, "conquest", "Italy", "England", "Kent", [ballot(campaign, "Italy", 5, "for")])
    client.force_login(alice)
    page = client.get(reverse("pages:claims", args=[campaign.slug])).content.decode()
    assert "Area 2" in page and "Renounce" in page and "Record a claim" not in page
    detail = client.get(reverse("pages:parley_detail", args=[campaign.slug, parley.pk])).content.decode()
    assert (
        f"Plantagenet must return Kent to {house(campaign, 'Italy').name}" in detail and "Refused: excommunicate" in detail
    )  # Alice plays England
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("pages:claims", args=[campaign.slug]))
    for n in range(3, 13):
        area_claim_record(campaign=campaign, dynasty=house(campaign, "France"), area=f"Area {n}", by=SYSTEM_ACTOR)
        contest(campaign, "conquest", "Spain", "France", f"Land {n}", [ballot(campaign, "Spain", 5, "for")])
        Parley.objects.filter(kind="conquest", caller=house(campaign, "Spain")).update(year=1299)  # once-per-round free
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("pages:claims", args=[campaign.slug]))
    assert len(many) == len(few)
    client.force_login(gm)
    with CaptureQueriesContext(connection) as gm_page:
        assert "Record a claim" in client.get(reverse("pages:claims", args=[campaign.slug])).content.decode()
    assert len(gm_page) <= len(few) + 2
