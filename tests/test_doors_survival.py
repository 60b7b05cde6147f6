"""Issue 17: the page and the API ask one service for the same operation, so they give the same result.

Survival's finish (``survival_close``: the heirs passed over, the recorded choices forgotten) and the
successions waiting for a decision (``succession_decisions``, ``crowns_awaiting_succession``). Two
campaigns made alike (the same seed) play the same turn with typed dice; one closes Survival on the
page, the other through the API, and what each wrote is compared."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaign.models import Campaign, ChronicleEntry, Membership, Role, Roll, Step
from campaign.permissions import SYSTEM_ACTOR
from campaign.undo import new_action_key
from dynasties.models import Character, Dynasty, PassedOver, Reign
from dynasties.services import births_finish, campaign_create, survival_roll
from dynasties.services.sequence_view import (
    SUCCESSION_LINE_LIMIT,
    crowns_awaiting_succession,
    succession_decisions,
    successions_due,
    survival_board,
)
from dynasties.services.succession_choices import pass_over_choices, pass_over_choose
from rules.dice import RandomSource
from tests.factories import person

pytestmark = pytest.mark.django_db

CHARISMA_AND_REGENT = [[3], [6, 6, 6], [1, 2, 3], [4, 4, 4]]  # the Charisma roll, a baron regent's three


def _campaign(name: str, gm, alice, bob) -> Campaign:
    c = campaign_create(name=name, players=5, source=RandomSource(7), by=gm)
    for user, crown in ((alice, "England"), (bob, "France")):
        Membership.objects.create(campaign=c, user=user, role=Role.PLAYER, dynasty=Dynasty.objects.get(campaign=c, crown=crown))
    return c


def _king_dies(c: Campaign, gm, alice) -> tuple[Character, Character]:
    """England's King Edward dies (typed 1 + 1); his son John is a prisoner of France, Henry is 3;
    Alice chooses to pass John over; everyone else survives on typed sixes."""
    england = Dynasty.objects.get(campaign=c, crown="England")
    edward = Reign.objects.get(campaign=c, crown="England", end_year__isnull=True).holder
    john = Character.objects.get(campaign=c, father=edward)
    john.prisoner_of = Dynasty.objects.get(campaign=c, crown="France")
    john.save(update_fields=["prisoner_of"])
    wife = Character.objects.get(pk=john.mother_id)
    henry = person(c, england, "Henry", "M", 1297, father=edward, mother=wife, dynastic_name="Plantagenet")
    births_finish(campaign=c, by=SYSTEM_ACTOR)
    survival_roll(campaign=c, characters=[edward.pk], faces={edward.pk: [1, 1]}, by=alice)
    pass_over_choose(campaign=c, crown="England", heirs=[john.pk], limit=SUCCESSION_LINE_LIMIT, by=alice)
    others = [r.character.pk for r in survival_board(c).to_roll]
    survival_roll(campaign=c, faces={pk: [6, 6] for pk in others}, by=gm)
    return john, henry


def _written(c: Campaign) -> dict:
    """What the finish wrote, by names and values (the two campaigns' ids differ)."""
    c.refresh_from_db()
    return {
        "step": c.step,
        "reigns": sorted(
            (r.crown, r.holder.display_name, r.regent.display_name if r.regent else "", r.start_year)
            for r in Reign.objects.filter(campaign=c, end_year__isnull=True).select_related("holder", "regent")
        ),
        "passed_over": sorted(p.character.display_name for p in PassedOver.objects.filter(character__campaign=c)),
        "people": sorted(
            (p.display_name, p.status, p.origin, sorted((p.characteristics or {}).items()))
            for p in Character.objects.filter(campaign=c)
        ),
        "rolls": [(r.purpose, r.faces, r.source) for r in Roll.objects.filter(campaign=c).order_by("pk")],
        "chronicle": sorted(
            (e.kind, e.text) for e in ChronicleEntry.objects.filter(campaign=c, year=c.current_year, step=Step.SURVIVAL)
        ),
        "choices": {
            crown: [Character.objects.get(pk=pk).display_name for pk in heirs] for crown, heirs in pass_over_choices(c).items()
        },
    }


def test_survivals_finish_on_the_page_and_through_the_api_writes_the_same(gm, alice, bob):
    on_page, by_api = _campaign("By the page", gm, alice, bob), _campaign("By the API", gm, alice, bob)
    john_p, henry_p = _king_dies(on_page, gm, alice)
    john_a, henry_a = _king_dies(by_api, gm, alice)
    assert _written(on_page) == _written(by_api)  # alike before the finish

    page = Client()
    page.force_login(gm)
    response = page.post(
        reverse("pages:survival", args=[on_page.slug]),
        {
            "op": "finish",
            "action_key": new_action_key(),
            "pass_over": [f"England::{john_p.pk}"],  # the page comes with the recorded choice ticked
            "entered": "; ".join(" ".join(map(str, faces)) for faces in CHARISMA_AND_REGENT),
        },
    )
    assert response.status_code == 302, response.content[:2000]
    api = APIClient()
    api.force_login(gm)
    response = api.post(
        f"/api/v1/campaigns/{by_api.slug}/survival/finish/", {"entered": CHARISMA_AND_REGENT}, format="json"
    )  # the API's default: the recorded choices
    assert response.status_code == 200, response.content
    assert response.json()["pass_over"] == {"England": [john_a.pk]}

    written = _written(on_page)
    assert written == _written(by_api)
    assert written["step"] == Step.MARRIAGES and written["choices"] == {}
    assert written["passed_over"] == ["John Plantagenet"] == [john_p.display_name]
    assert Reign.objects.get(campaign=on_page, crown="England", end_year__isnull=True).holder_id == henry_p.pk
    assert Reign.objects.get(campaign=by_api, crown="England", end_year__isnull=True).holder_id == henry_a.pk


@pytest.mark.parametrize("who", ["gm", "alice", "bob"])
def test_both_doors_show_the_same_successions_to_decide(gm, alice, bob, who):
    c = _campaign("Successions", gm, alice, bob)
    _king_dies(c, gm, alice)
    user = {"gm": gm, "alice": alice, "bob": bob}[who]
    page = Client()
    page.force_login(user)
    shown = page.get(reverse("pages:survival", args=[c.slug])).context["successions"]
    on_page = [(s["due"].crown, s["player"].pk if s["player"] else None, s["chosen"], s["may_choose"]) for s in shown]
    api = APIClient()
    api.force_login(user)
    board = api.get(f"/api/v1/campaigns/{c.slug}/survival/").json()
    by_api = [(s["crown"], s["player"], s["chosen"], s["may_choose"]) for s in board["successions"]]
    england = Dynasty.objects.get(campaign=c, crown="England")
    john = Character.objects.get(campaign=c, prisoner_of__isnull=False)
    assert on_page == by_api == [("England", england.pk, [john.pk], who != "bob")]
    role, mine = (Role.GM, None) if who == "gm" else (Role.PLAYER, Membership.objects.get(campaign=c, user=user).dynasty_id)
    assert [(d.due.crown, d.chosen, d.may_choose) for d in succession_decisions(c, role, mine)] == [
        (crown, chosen, may) for crown, _, chosen, may in on_page
    ]


def test_the_crowns_awaiting_succession_are_the_successions_due(gm, alice, bob):
    c = _campaign("Crowns", gm, alice, bob)
    assert crowns_awaiting_succession(c) == [] == successions_due(c)
    _king_dies(c, gm, alice)
    assert crowns_awaiting_succession(c) == [d.crown for d in successions_due(c)] == ["England"]
