"""Issue 17: a parley is one service (``parley_hold``) whichever door holds it. Two campaigns made
alike (the same seed) hold the same parleys with the same votes, one on the page, the other through
the API, and what each wrote is compared: a breach's parley (a tie excommunicates), another kind of
parley, and the readmission that follows."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, ChronicleEntry
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key
from contracts.models import Breach, Excommunication, Parley
from contracts.services import breach_record, contract_draft, contract_sign
from dynasties.models import Dynasty
from dynasties.services import campaign_create
from rules.dice import RandomSource

pytestmark = pytest.mark.django_db

# (crown, stature, church cards, choice)
BREACH_VOTES = [("England", 5, 0, "for"), ("France", 3, 0, "against"), ("Italy", 2, 0, "against")]
CLAIM_VOTES = [("Italy", 4, 1, "for"), ("England", 4, 0, "against")]
READMIT_VOTES = [("France", 4, 0, "for"), ("England", 2, 0, "against")]


def _campaign(name: str, gm) -> Campaign:
    return campaign_create(name=name, players=5, source=RandomSource(7), by=gm)


def _house(c: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=c, crown=crown)


def _breach(c: Campaign) -> Breach:
    """France breaks a binding agreement with England."""
    parties = [_house(c, "England").pk, _house(c, "France").pk]
    pact = contract_draft(
        campaign=c,
        kind="agreement",
        title="The Pact of Calais",
        parties=parties,
        clauses=[{"kind": "non_aggression"}],
        by=SYSTEM_ACTOR,
    )
    contract_sign(campaign=c, contract=pact, by=SYSTEM_ACTOR)
    return breach_record(campaign=c, contract=pact, by_dynasty=_house(c, "France"), text="took Calais", by=SYSTEM_ACTOR)


def _on_page(c: Campaign, gm, votes: list, **head) -> None:
    page = Client()
    page.force_login(gm)
    form = {"action_key": new_action_key(), **head}
    for crown, stature, cards, choice in votes:
        pk = _house(c, crown).pk
        form.update({f"s{pk}": stature, f"k{pk}": cards, f"x{pk}": "on", f"c{pk}": choice})
    response = page.post(reverse("pages:parley", args=[c.slug]), form)
    assert response.status_code == 302, response.content[:2000]


def _by_api(c: Campaign, gm, votes: list, **head) -> None:
    api = APIClient()
    api.force_login(gm)
    body = {
        **head,
        "votes": [
            {"dynasty": _house(c, crown).pk, "stature": stature, "church_cards": cards, "christian": True, "choice": choice}
            for crown, stature, cards, choice in votes
        ],
    }
    response = api.post(f"/api/v1/campaigns/{c.slug}/parleys/", body, format="json")
    assert response.status_code == 201, response.content


def _written(c: Campaign) -> dict:
    """What the parleys wrote, by names and values (the two campaigns' ids differ)."""
    return {
        "parleys": [
            (p.kind, p.subject, p.caller.name, p.votes_for, p.votes_against, p.carried, p.outcome, p.breach is not None)
            for p in Parley.objects.filter(campaign=c).select_related("caller").order_by("pk")
        ],
        "votes": sorted(
            (v.dynasty.name, v.stature, v.church_cards, v.choice)
            for p in Parley.objects.filter(campaign=c)
            for v in p.votes.select_related("dynasty")
        ),
        "excommunications": sorted(
            (e.dynasty.name, e.start_year, e.ended_year, e.reason) for e in Excommunication.objects.filter(campaign=c)
        ),
        "chronicle": [
            (e.kind, e.text)
            for e in ChronicleEntry.objects.filter(campaign=c, kind__in=["parley", "excommunication", "readmission"]).order_by(
                "pk"
            )
        ],
    }


def test_the_page_and_the_api_hold_the_same_parleys(gm):
    page_campaign, api_campaign = _campaign("Parleys on the page", gm), _campaign("Parleys through the API", gm)
    on_page, by_api = _breach(page_campaign), _breach(api_campaign)
    nothing = {"parleys": [], "votes": [], "excommunications": [], "chronicle": []}
    assert _written(page_campaign) == _written(api_campaign) == nothing

    _on_page(page_campaign, gm, BREACH_VOTES, breach=on_page.pk)
    _by_api(api_campaign, gm, BREACH_VOTES, breach=by_api.pk)
    written = _written(page_campaign)
    assert written == _written(api_campaign)
    assert written["parleys"][0][3:6] == (5, 5, True) and [e[0] for e in written["excommunications"]] == ["Anjou"]

    italy_page, italy_api = _house(page_campaign, "Italy").pk, _house(api_campaign, "Italy").pk
    _on_page(page_campaign, gm, CLAIM_VOTES, kind="claim", caller=italy_page, subject="the claim to Savoy")
    _by_api(api_campaign, gm, CLAIM_VOTES, kind="claim", caller=italy_api, subject="the claim to Savoy")
    assert _written(page_campaign) == _written(api_campaign)

    france_page, france_api = _house(page_campaign, "France").pk, _house(api_campaign, "France").pk
    _on_page(page_campaign, gm, READMIT_VOTES, kind="readmission", caller=france_page)
    _by_api(api_campaign, gm, READMIT_VOTES, kind="readmission", caller=france_api)
    written = _written(page_campaign)
    assert written == _written(api_campaign)
    assert len(written["parleys"]) == 3 and written["excommunications"][0][2] is not None  # readmitted
