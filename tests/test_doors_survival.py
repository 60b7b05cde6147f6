"""Issue 17: the page and the API ask one service for the same operation, so they give the same result.

Survival's finish (``survival_close``: the heirs passed over, the recorded choices forgotten) and the
successions waiting for a decision (``succession_decisions``, ``crowns_awaiting_succession``). Two
campaigns made alike (the same seed) play the same turn with typed dice; one closes Survival on the
page, the other through the API, and what each wrote is compared."""

from __future__ import annotations

import inspect

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from api.views.sequence import survival as survival_api
from campaign import permissions
from campaign.models import Campaign, ChronicleEntry, Membership, Role, Roll, Step
from campaign.permissions import SYSTEM_ACTOR, Forbidden
from campaign.undo import new_action_key
from dynasties.models import Character, Dynasty, PassedOver, Reign
from dynasties.services import births_finish, campaign_create, survival_roll
from dynasties.services import survival as survival_service
from dynasties.services.sequence_view import (
    SUCCESSION_LINE_LIMIT,
    crowns_awaiting_succession,
    succession_decisions,
    successions_due,
    survival_board,
)
from dynasties.services.succession_choices import pass_over_choices, pass_over_choose
from dynasties.services.survival import survival_close
from pages import sequence as pages_sequence
from rules.dice import RandomSource
from tests.factories import member_house_id, person, seat_member

pytestmark = pytest.mark.django_db

CHARISMA_AND_REGENT = [[3], [6, 6, 6], [1, 2, 3], [4, 4, 4]]  # the Charisma roll, a baron regent's three


def _campaign(name: str, gm, alice, bob) -> Campaign:
    c = campaign_create(name=name, players=5, source=RandomSource(7), by=gm)
    for user, crown in ((alice, "England"), (bob, "France")):
        seat_member(campaign=c, user=user, role=Role.PLAYER, dynasty=Dynasty.objects.get(campaign=c, crown=crown))
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
    role, mine = (Role.GM, None) if who == "gm" else (Role.PLAYER, member_house_id(Membership.objects.get(campaign=c, user=user)))
    assert [(d.due.crown, d.chosen, d.may_choose) for d in succession_decisions(c, role, mine)] == [
        (crown, chosen, may) for crown, _, chosen, may in on_page
    ]


def test_the_crowns_awaiting_succession_are_the_successions_due(gm, alice, bob):
    c = _campaign("Crowns", gm, alice, bob)
    assert crowns_awaiting_succession(c) == [] == successions_due(c)
    _king_dies(c, gm, alice)
    assert crowns_awaiting_succession(c) == [d.crown for d in successions_due(c)] == ["England"]


# --- Issue 35: the policy is asked once, by the service, with the explicit actor; doors never decide ---

GM_ONLY = "Only the game master may do this."
PLAYERS_ONLY = "Only a player rolls for his own dynasty."


def _at_survival(gm, alice, bob) -> Campaign:
    c = _campaign("Doors", gm, alice, bob)
    births_finish(campaign=c, by=SYSTEM_ACTOR)
    return c


def _page_post(user, c: Campaign, **data):
    page = Client()
    page.force_login(user)
    return page.post(reverse("pages:survival", args=[c.slug]), {"action_key": new_action_key(), **data})


def _reason(response) -> str:
    return response.context["reason"] if response.context and "reason" in response.context else ""


def _survival_rolls(c: Campaign) -> int:
    return Roll.objects.filter(campaign=c, purpose="survival").count()


@pytest.mark.parametrize(
    ("who", "op", "data", "said"),
    [
        ("alice", "finish", {}, GM_ONLY),
        ("alice", "finish", {"entered": "3; x"}, GM_ONLY),  # his form is never judged: 403 first
        ("alice", "roll_all", {}, GM_ONLY),
        ("gm", "roll_mine", {}, PLAYERS_ONLY),
    ],
)
def test_the_survival_buttons_refusals_are_the_services(gm, alice, bob, who, op, data, said):
    """What the page answers is what the service's policy says, word for word (403 and its reason);
    nothing is written."""
    c = _at_survival(gm, alice, bob)
    user = {"gm": gm, "alice": alice}[who]
    response = _page_post(user, c, op=op, **data)
    assert response.status_code == 403
    assert _reason(response) == said
    if op == "finish":
        call = lambda: survival_close(campaign=c, by=user)  # noqa: E731
    else:
        call = lambda: survival_roll(campaign=c, whose="all" if op == "roll_all" else "mine", by=user)  # noqa: E731
    with pytest.raises(Forbidden) as refused:
        call()
    assert refused.value.message == said
    c.refresh_from_db()
    assert c.step == Step.SURVIVAL and _survival_rolls(c) == 0


def test_a_players_finish_hears_the_same_refusal_at_both_doors(gm, alice, bob):
    c = _at_survival(gm, alice, bob)
    page = _page_post(alice, c, op="finish")
    api = APIClient()
    api.force_login(alice)
    by_api = api.post(f"/api/v1/campaigns/{c.slug}/survival/finish/", {}, format="json")
    assert (page.status_code, _reason(page)) == (403, GM_ONLY)
    assert by_api.status_code == 403 and by_api.json()["message"] == GM_ONLY
    c.refresh_from_db()
    assert c.step == Step.SURVIVAL


def test_the_gms_bad_finish_form_is_said_once_the_policy_let_him_through(gm, alice, bob):
    c = _at_survival(gm, alice, bob)
    response = _page_post(gm, c, op="finish", entered="3; x")
    assert response.status_code == 400
    assert "is not a roll" in response.context["finish_form"].errors["entered"][0]
    c.refresh_from_db()
    assert c.step == Step.SURVIVAL


@pytest.mark.parametrize(
    ("who", "op", "data", "asked"),
    [
        ("alice", "roll_all", {}, "gm"),
        ("alice", "roll_mine", {}, "play"),
        ("alice", "finish", {"entered": "x"}, "gm"),
        ("gm", "roll_mine", {}, "play"),
        ("gm", "finish", {}, "gm"),
    ],
)
def test_the_service_asks_the_policy_once_with_the_actor(gm, alice, bob, who, op, data, asked, monkeypatch):
    """Each button's POST reaches its service, which asks the policy once, naming who acts (the
    door asked first before issue 35: a player's "roll all" or Finish never reached the service)."""
    c = _at_survival(gm, alice, bob)
    user = {"gm": gm, "alice": alice}[who]
    calls = []

    def spy(by, campaign, check, **terms):
        calls.append((by, check))
        return permissions.require(by, campaign, check, **terms)

    monkeypatch.setattr(survival_service, "require", spy)
    _page_post(user, c, op=op, **data)
    assert calls == [(user, asked)]


def test_the_door_does_not_refuse_what_the_policy_allows(gm, alice, bob, monkeypatch):
    """With the service's policy letting everyone through, a player's "roll all" and Finish act: the
    page decides nothing itself (before issue 35, its own check answered 403)."""
    c = _at_survival(gm, alice, bob)
    monkeypatch.setattr(survival_service, "require", lambda by, campaign, check, **terms: permissions.SYSTEM)
    assert _page_post(alice, c, op="roll_all").status_code == 302
    assert _survival_rolls(c) > 0 and survival_board(c).to_roll == []
    assert _page_post(alice, c, op="finish").status_code == 302
    c.refresh_from_db()
    assert c.step == Step.MARRIAGES


POLICY_WORDS = ("require(", "require_gm", "require_play", "has_own_house", "may_play", "runs_the_turn", "role ==", "Role.GM")


@pytest.mark.parametrize(
    "door",
    [
        pytest.param(lambda: pages_sequence._survival_post, id="page"),
        pytest.param(lambda: survival_api.SurvivalRollsView.post, id="api-rolls"),
        pytest.param(lambda: survival_api.SurvivalFinishView.post, id="api-finish"),
    ],
)
def test_the_survival_doors_write_without_asking_the_policy(door):
    """The doors' writes of the Survival step name no check of the policy: the services ask it."""
    source = inspect.getsource(door())
    assert [word for word in POLICY_WORDS if word in source] == []
