"""The doors leave who may act and see to the policy (issues 16-18).

``campaign/permissions.py`` decides who may see and who may act; the services ask it, so every door
is covered by the same decision. A door parses, calls one service and renders: it does not check
the caller's role first (``require_gm``, ``require_act_for`` ...), compare his role itself
(``role == Role.GM``, ``is_gm``) or raise its own 403. ``test_no_door_decides_who_may_act`` scans
the API's views and the pages for such decisions; ``ALLOWED`` lists, with the reason, what is left,
per file and decision, as the most there may be (lower a count when a decision moves out).

The other tests check that the decisions the API's doors gave up are made by the services."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from campaign.models import Membership, Role, Step
from campaign.permissions import (
    SYSTEM_ACTOR,
    Forbidden,
    acting_house,
    exchequers_listed,
    has_own_house,
    keeps_the_ledger,
    links_to_the_desk,
    own_house,
    prints_sheets_of,
    prints_the_campaign,
    runs_the_turn,
    sees_every_exchequer,
    sees_every_name,
    sees_exchequer,
    sees_undo_plan,
)
from campaign.undo import undo_offers, undo_plans, undo_preview
from contracts.models import Breach, ContractSignature
from contracts.services import breach_record, contract_draft, contract_escape, contract_sign, contract_sign_party
from dynasties.models import Character, Dynasty, Status
from dynasties.services.births import births_finish
from dynasties.services.interphase import cash_in_preview, interphase_preview
from dynasties.services.survival import survival_roll
from rules.errors import RuleError
from rules.interphase import InterphaseEntry
from tests.api.conftest import assert_error, url

ROOT = Path(__file__).resolve().parents[2]
DOORS = ("api/views", "pages")
"""The doors: the API's views and the pages (the printables, the trees and GEDCOM among them)."""

CHECKS = frozenset(
    {
        "require_actor",
        "require_act_for",
        "require_gm",
        "require_play",
        "require_couple",
        "require_party",
        "require_party_of",
        "require_crown_player",
        "is_gm",
        "own_house",
        "sees_undo_plan",
        "sees_every_exchequer",
    }
)
"""The policy's checks a door would run before its service, the seat's own ``is_gm``, and the
questions the services and selectors now ask for the acting user: which house he acts for when he
names none (``campaign.permissions.acting_house``), whether he sees the undo plan
(``campaign.undo.undo_plans``), which exchequers he sees (``dynasties.selectors.exchequers_seen``)."""

ROLES = frozenset({"GM", "PLAYER", "OBSERVER"})
ROLE_VALUES = frozenset(role.value for role in Role)
"""A role written as its stored value (``role == "gm"``) is the same decision as ``role == Role.GM``."""

WORDS = "the trail's words for the seat a change was made from: a description, not a decision"

PAGES_TO_MOVE = "a page's own check before its service: to move into the service (issue 18 follow-up)"

ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    # the API --------------------------------------------------------------------------------------
    ("api/views/tokens.py", "raise PermissionDenied"): (1, "a token does not mint tokens: the account's rule, not a campaign's"),
    # the pages ------------------------------------------------------------------------------------
    ("pages/common.py", "require_gm"): (1, "re-exported for the pages below that still check first"),
    ("pages/contracts/breaches.py", "require_gm"): (2, PAGES_TO_MOVE),
    ("pages/contracts/breaches.py", "require_party_of"): (2, PAGES_TO_MOVE),
    ("pages/contracts/common.py", "require_party"): (2, PAGES_TO_MOVE),
    ("pages/contracts/draft.py", "require_play"): (2, PAGES_TO_MOVE),
    ("pages/contracts/draft.py", "own_house"): (2, "the house a player's draft names first (a display default): the policy's"),
    ("pages/contracts/ending.py", "require_party_of"): (2, PAGES_TO_MOVE),
    ("pages/contracts/parleys.py", "require_gm"): (2, PAGES_TO_MOVE),
    ("pages/contracts/payments.py", "raise PermissionDenied"): (1, PAGES_TO_MOVE),
    ("pages/marriages.py", "require_gm"): (3, PAGES_TO_MOVE),
    ("pages/marriages.py", "raise PermissionDenied"): (2, PAGES_TO_MOVE),
    ("pages/sequence.py", "require_couple"): (2, PAGES_TO_MOVE),
    ("pages/sequence.py", "require_gm"): (6, PAGES_TO_MOVE + "; one more: the redo page"),
    ("pages/sequence.py", "raise PermissionDenied"): (1, "a grid's rows of another house, sent to their services to be refused"),
    ("pages/trail.py", "Role.GM"): (1, WORDS),
    ("pages/trail.py", "Role.PLAYER"): (1, WORDS),
    ("pages/trail.py", "Role.OBSERVER"): (1, WORDS),
    ("pages/treasury.py", "raise PermissionDenied"): (1, PAGES_TO_MOVE),
}
"""(file, decision) -> (how many are left at most, why). Empty is the aim."""


def decisions(source: str) -> Counter[str]:
    """The role decisions in one module: a policy check or ``is_gm`` named (called, imported or
    passed), a comparison with ``Role.GM`` / ``Role.PLAYER`` / ``Role.OBSERVER``, a 403 raised."""
    found: Counter[str] = Counter()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id in CHECKS:
            found[node.id] += 1
        elif isinstance(node, ast.Attribute) and node.attr in CHECKS:
            found[node.attr] += 1
        elif isinstance(node, ast.alias) and (node.asname or node.name).rsplit(".", 1)[-1] in CHECKS:
            found[(node.asname or node.name).rsplit(".", 1)[-1]] += 1
        elif isinstance(node, ast.Compare):
            roles = {
                f"Role.{sub.attr}"
                for side in (node.left, *node.comparators)
                for sub in ast.walk(side)
                if isinstance(sub, ast.Attribute)
                and sub.attr in ROLES
                and isinstance(sub.value, ast.Name)
                and sub.value.id == "Role"
            }
            found.update(roles)
            found.update(
                f"Role.{Role(sub.value).name}"
                for side in (node.left, *node.comparators)
                for sub in ast.walk(side)
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value in ROLE_VALUES
            )
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            called = node.exc.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            if name in ("PermissionDenied", "Forbidden"):
                found[f"raise {name}"] += 1
    return found


def test_the_scan_sees_each_kind_of_decision() -> None:
    source = """
from campaign.permissions import require_gm
def view(v, role):
    require_gm(v.role)
    if v.is_gm or role != Role.PLAYER:
        raise PermissionDenied("no")
    return role in (Role.GM, Role.OBSERVER)
"""
    assert decisions(source) == Counter(
        {"require_gm": 2, "is_gm": 1, "Role.PLAYER": 1, "raise PermissionDenied": 1, "Role.GM": 1, "Role.OBSERVER": 1}
    )
    written_out = "if role == 'gm' or v.role in ('player', 'observer') or role != \"player\":\n    pass\n"
    assert decisions(written_out) == Counter({"Role.GM": 1, "Role.PLAYER": 2, "Role.OBSERVER": 1})
    assert decisions("if side in ('husband', 'wife') and gm_only:\n    pass\n") == Counter()
    assert decisions("def view(v):\n    return may_act_for(v.role, v.dynasty, 3)\n") == Counter()
    assert decisions("if sees_every_exchequer(v.role):\n    pass\n") == Counter({"sees_every_exchequer": 1})
    assert decisions("house = d['dynasty'] or own_house(v.role, v.dynasty)\nplan = sees_undo_plan(v.role)\n") == Counter(
        {"own_house": 1, "sees_undo_plan": 1}
    )


def test_no_door_decides_who_may_act() -> None:
    seen: dict[tuple[str, str], int] = {}
    for door in DOORS:
        where = ROOT / door
        for path in [where] if where.is_file() else sorted(where.rglob("*.py")):
            for decision, n in decisions(path.read_text(encoding="utf-8")).items():
                seen[(path.relative_to(ROOT).as_posix(), decision)] = n
    too_many = [
        f"{where}: {decision} x{n}" + (f" (at most {ALLOWED[where, decision][0]})" if (where, decision) in ALLOWED else "")
        for (where, decision), n in sorted(seen.items())
        if n > ALLOWED.get((where, decision), (0, ""))[0]
    ]
    assert not too_many, (
        "a door decides who may act or see by itself: let its service ask campaign.permissions (or ask a function "
        f"of the policy to shape the answer); {too_many}"
    )
    assert all(why for _, why in ALLOWED.values()), "say why a decision is left in a door"
    assert not [k for k in ALLOWED if k[0].startswith("api/views/sequence/")], "the Dynastic Sequence's API doors decide nothing"


def test_what_a_viewer_sees_of_the_turn_and_the_treasury_is_the_policys(campaign, gm, alice, client_for) -> None:
    assert [sees_undo_plan(r) for r in (Role.GM, Role.PLAYER, Role.OBSERVER, None)] == [True, False, False, False]
    assert [sees_every_exchequer(r) for r in (Role.GM, Role.PLAYER, Role.OBSERVER)] == [True, False, False]
    assert [runs_the_turn(r) for r in (Role.GM, Role.PLAYER, Role.OBSERVER)] == [True, False, False]
    assert [own_house(r, 7) for r in (Role.GM, Role.PLAYER, Role.OBSERVER)] == [None, 7, None]
    assert [has_own_house(r, 7) for r in (Role.GM, Role.PLAYER, Role.OBSERVER)] == [False, True, False]
    assert has_own_house(Role.PLAYER, None) is False  # a player of no house rolls for none
    assert [sees_exchequer(r, 7, 7) for r in (Role.GM, Role.PLAYER, Role.OBSERVER, None)] == [True, True, False, False]
    assert [sees_exchequer(r, 7, 8) for r in (Role.GM, Role.PLAYER)] == [True, False]
    assert [exchequers_listed(r, 7, [7, 8]) for r in (Role.GM, Role.PLAYER, None)] == [{7, 8}, {7}, set()]
    assert [prints_sheets_of(r, 7, 7) for r in (Role.GM, Role.PLAYER, Role.OBSERVER, None)] == [True, True, False, False]
    assert [prints_sheets_of(r, 7, 8) for r in (Role.GM, Role.PLAYER)] == [True, False]
    assert prints_sheets_of(Role.PLAYER, 7, None) is False  # a sheet of nobody's house: the GM's alone
    for asked in (keeps_the_ledger, links_to_the_desk, sees_every_name, prints_the_campaign):
        assert [asked(r) for r in (Role.GM, Role.PLAYER, Role.OBSERVER, None)] == [True, False, False, False], asked
    client_for(gm).post(url(campaign, "births/finish"))  # a checkpoint: there is a step to undo
    assert client_for(gm).get(url(campaign, "turn")).json()["undo"]["step"] is not None
    assert client_for(alice).get(url(campaign, "turn")).json()["undo"] is None
    england = Dynasty.objects.get(campaign=campaign, crown="England").pk
    assert [row["dynasty"] for row in client_for(alice).get(url(campaign, "balances")).json()] == [england]
    assert len(client_for(gm).get(url(campaign, "balances")).json()) == 6  # five houses and the Treasury


# --- the decisions the API's doors gave up, made by the services -----------------------------------


def _houses(campaign) -> dict[str, int]:
    return dict(Dynasty.objects.filter(campaign=campaign).values_list("crown", "pk"))


def test_an_observer_is_refused_before_the_step_is_looked_at(campaign, client_for, django_user_model) -> None:
    """At Births an observer asking for Survival's rolls or a succession hears 403, not "not open yet"."""
    watcher = django_user_model.objects.create_user("watcher", password="watcher-password-1")
    Membership.objects.create(campaign=campaign, user=watcher, role=Role.OBSERVER)
    assert campaign.step == Step.BIRTHS
    client = client_for(watcher)
    england = _houses(campaign)["England"]
    for action, data in (
        ("survival/rolls", {}),
        ("succession/England/pass-over", {"heirs": []}),
        ("treasury/transfers", {"payer": england, "payee": None, "amount": 1, "reason": "x"}),
        (f"interphase/{england}/run", {"provinces": 2}),
    ):
        assert_error(client.post(url(campaign, action), data, format="json"), 403, "permission_denied")


def test_a_player_rolls_survival_for_his_own_house_by_default(campaign, alice) -> None:
    births_finish(campaign=campaign, by=SYSTEM_ACTOR)
    england = _houses(campaign)["England"]
    rolled = survival_roll(campaign=campaign, by=alice)
    assert rolled and {r.character.controlled_by_id for r in rolled} == {england}
    others = Character.objects.filter(campaign=campaign, status=Status.ALIVE).exclude(controlled_by=england)
    with pytest.raises(Forbidden):
        survival_roll(campaign=campaign, characters=[others.first().pk], by=alice)


def test_the_interphase_previews_show_a_house_only_to_whom_may_act_for_it(campaign, alice, bob, gm) -> None:
    england = _houses(campaign)["England"]
    for preview in (
        lambda by: interphase_preview(campaign=campaign, dynasty=england, entry=InterphaseEntry(provinces=2), by=by),
        lambda by: cash_in_preview(campaign=campaign, dynasty=england, basic_sets=1, by=by),
    ):
        assert preview(alice) is not None and preview(gm) is not None
        with pytest.raises(Forbidden):
            preview(bob)


def test_a_breach_is_raised_only_for_ones_own_house(campaign, alice, bob) -> None:
    houses = _houses(campaign)
    parties = [houses["England"], houses["France"], houses["Spain"]]
    pact = contract_draft(campaign=campaign, kind="agreement", title="The Three Crowns", parties=parties, by=SYSTEM_ACTOR)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    with pytest.raises(Forbidden):  # Alice (England) speaks for Spain
        breach_record(
            campaign=campaign, contract=pact, by_dynasty=houses["France"], raised_by=houses["Spain"], text="x", by=alice
        )
    assert not Breach.objects.filter(contract=pact).exists()
    made = breach_record(
        campaign=campaign, contract=pact, by_dynasty=houses["France"], raised_by=houses["England"], text="y", by=alice
    )
    assert made.raised_by_id == houses["England"]


def test_only_a_party_hears_why_a_contract_cannot_be_escaped(campaign, alice, bob) -> None:
    """Bob (France) is no party: 403, before he learns that the draft has nothing to escape."""
    houses = _houses(campaign)
    draft = contract_draft(
        campaign=campaign, kind="agreement", title="Dover", parties=[houses["England"], houses["Spain"]], by=SYSTEM_ACTOR
    )
    with pytest.raises(Forbidden):
        contract_escape(campaign=campaign, contract=draft, by_dynasty=houses["France"], reason="x", by=bob)
    with pytest.raises(RuleError, match="nothing to escape"):  # Alice's England is a party: she hears why
        contract_escape(campaign=campaign, contract=draft, by_dynasty=houses["England"], reason="x", by=alice)


def test_the_services_take_a_players_own_house_when_he_names_none(campaign, gm, alice, observer) -> None:
    """Which house acts by default is the policy's (``acting_house``), asked by the services, not the doors."""
    houses = _houses(campaign)
    england, spain = houses["England"], houses["Spain"]
    assert [acting_house(campaign, u) for u in (gm, alice, observer)] == [None, england, None]
    assert acting_house(campaign, by=SYSTEM_ACTOR) is None  # the system names its house
    dover = contract_draft(campaign=campaign, kind="agreement", title="Dover", parties=[england, spain], by=SYSTEM_ACTOR)
    for who, refused in ((observer, Forbidden), (gm, RuleError)):
        with pytest.raises(refused) as why:
            contract_sign_party(campaign=campaign, contract=dover, by=who)
        assert isinstance(why.value, Forbidden) == (who is observer)
    assert why.value.fields == {"dynasty": "Name the party (a dynasty id)."}
    contract_sign_party(campaign=campaign, contract=dover, by=alice)
    assert list(ContractSignature.objects.filter(contract=dover).values_list("dynasty", flat=True)) == [england]


def test_a_breach_raised_with_no_injured_party_is_the_players_own(campaign, gm, alice) -> None:
    houses = _houses(campaign)
    parties = [houses["England"], houses["France"], houses["Spain"]]
    pact = contract_draft(campaign=campaign, kind="agreement", title="The Three Crowns", parties=parties, by=SYSTEM_ACTOR)
    contract_sign(campaign=campaign, contract=pact, by=SYSTEM_ACTOR)
    with pytest.raises(RuleError) as itself:
        breach_record(campaign=campaign, contract=pact, by_dynasty=houses["England"], text="x", by=alice)
    assert set(itself.value.fields) == {"by_dynasty"}
    with pytest.raises(RuleError) as which:  # the GM names the injured party of a three-party contract
        breach_record(campaign=campaign, contract=pact, by_dynasty=houses["France"], text="x", by=gm)
    assert set(which.value.fields) == {"raised_by"}
    made = breach_record(campaign=campaign, contract=pact, by_dynasty=houses["France"], text="y", by=alice)
    assert made.raised_by_id == houses["England"]


def test_the_undo_plans_are_shown_to_whom_the_policy_shows_them(campaign, gm, alice, observer, client_for) -> None:
    client_for(gm).post(url(campaign, "births/finish"))  # a checkpoint: there is a step to undo
    assert [undo_plans(campaign, by=u) for u in (alice, observer, None)] == [None, None, None]
    plans = undo_plans(campaign, by=gm)
    assert plans is not None and plans.redo is None
    assert plans.step is not None and plans.step.checkpoint.step == Step.BIRTHS and plans.turn == plans.step
    # the turn's offers (issue 36: labels, no losses) and the preview follow the same policy
    assert [undo_offers(campaign, by=u) for u in (alice, observer, None)] == [None, None, None]
    offers = undo_offers(campaign, by=gm)
    assert offers is not None and offers.redo is None and offers.step is not None and offers.turn is not None
    assert offers.step.checkpoint.pk == offers.turn.checkpoint.pk == plans.step.checkpoint.pk
    assert offers.step.description == plans.step.description
    for other in (alice, observer):
        with pytest.raises(Forbidden):
            undo_preview(campaign, by=other)
    assert undo_preview(campaign, by=gm) == plans
