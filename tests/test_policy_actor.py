"""Issue 30: the policy fails closed. ``campaign.permissions.require`` decides from the service's own
``by`` and nothing else: a user sits where his membership seats him, ``SYSTEM_ACTOR`` (the one named
system actor: commands, jobs, the simulator, the rules' own consequences) acts as the GM, and a call
that names no one is refused (``NoActor``, a 403), never run as the GM. The running action's user
(``campaign.audit.acting``) and the request's (simple-history's thread-local) only record who changed
a row; they grant nothing. Every service that acts takes its actor as a required argument: a walk of
the service modules checks each one, so a new service cannot forget it."""

from __future__ import annotations

import ast
import copy
import importlib
import importlib.util
import inspect
import pickle
import pkgutil
import sys
import textwrap
import types
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Permission
from django.test import Client, RequestFactory
from django.urls import reverse
from rest_framework.test import APIClient
from simple_history.models import HistoricalRecords

from campaign import audit
from campaign.models import Campaign, Membership, Role, Step
from campaign.permissions import SYSTEM, SYSTEM_ACTOR, Forbidden, NoActor, SystemActor, acting_house, actor_seat, require
from campaign.services import membership_add
from campaign.undo import change_set, new_action_key
from dynasties import treasury
from dynasties.models import Character, Dynasty, Posting, PostingKind, Status
from dynasties.services import campaign_create, turn_advance
from dynasties.services.events import survival_event
from dynasties.services.notes import note_write
from rules.dice import RandomSource
from tests.factories import at_step

pytestmark = pytest.mark.django_db


def house(campaign: Campaign, crown: str) -> Dynasty:
    return Dynasty.objects.get(campaign=campaign, crown=crown)


def fund(campaign: Campaign, dynasty: Dynasty, amount: int) -> None:
    treasury.post(campaign, payer=None, payee=dynasty, amount=amount, kind=PostingKind.OTHER, reason="test funds")


def england_gives(campaign: Campaign, by: Any) -> Posting:
    """England (Alice's house) gives France 5 Crowns, for ``by``."""
    return treasury.treasury_transfer(
        campaign=campaign, payer=house(campaign, "England"), payee=house(campaign, "France"), amount=5, reason="a gift", by=by
    )


def transfers() -> int:
    return Posting.objects.filter(kind=PostingKind.TRANSFER).count()


# --- a call that names no one ----------------------------------------------------------------------


@pytest.mark.parametrize("nobody", [None, "gm", 0, object()], ids=["None", "a name", "zero", "an object"])
def test_a_service_called_with_no_actor_is_refused_and_writes_nothing(campaign, nobody):
    fund(campaign, house(campaign, "England"), 100)
    with pytest.raises(NoActor, match="No one is named as acting") as refused:
        england_gives(campaign, nobody)
    assert refused.value.status == 403 and refused.value.code == "no_actor"
    assert isinstance(refused.value, Forbidden)  # every door answers it as a 403
    assert transfers() == 0


def test_a_service_called_without_by_does_not_run(campaign):
    """Leaving ``by`` out is an error at the call: the signature requires it (no default)."""
    fund(campaign, house(campaign, "England"), 100)
    with pytest.raises(TypeError, match="'by'"):
        treasury.treasury_transfer(  # type: ignore[call-arg]
            campaign=campaign, payer=house(campaign, "England"), payee=house(campaign, "France"), amount=5, reason="a gift"
        )
    with pytest.raises(TypeError, match="'by'"):
        turn_advance(campaign=campaign)  # type: ignore[call-arg]
    assert transfers() == 0 and Campaign.objects.get(pk=campaign.pk).step == Step.BIRTHS


@pytest.mark.parametrize("check", ["gm", "play", "edit", "members", "correct_roll"])
def test_require_refuses_no_one_for_every_check(campaign, check):
    with pytest.raises(NoActor):
        require(None, campaign, check)
    with pytest.raises(NoActor):
        actor_seat(campaign, None)  # type: ignore[arg-type]
    with pytest.raises(NoActor):
        acting_house(campaign, None)  # type: ignore[arg-type]


# --- the context records, it grants nothing --------------------------------------------------------


@pytest.mark.parametrize("who", ["alice", "gm"])
def test_the_running_actions_user_grants_no_powers_to_a_call_without_by(campaign, request, who):
    """Inside ``audit.acting(player)`` (what ``step_action`` sets for a page's action) a service
    called with no ``by`` gets neither the player's powers (his own house's money) nor the GM's."""
    user = request.getfixturevalue(who)
    fund(campaign, house(campaign, "England"), 100)
    with audit.acting(user, year=campaign.current_year, step=campaign.step, label="a gift"), pytest.raises(NoActor):
        england_gives(campaign, None)
    with audit.acting(user), pytest.raises(NoActor):
        turn_advance(campaign=campaign, by=None)  # type: ignore[arg-type]
    assert transfers() == 0 and Campaign.objects.get(pk=campaign.pk).step == Step.BIRTHS


def test_the_requests_thread_local_user_grants_nothing(campaign, gm):
    """simple-history keeps the request (and so its user) in a thread-local for the admin's trail;
    the GM's request there makes no call without ``by`` his."""
    fund(campaign, house(campaign, "England"), 100)
    asked = RequestFactory().post("/")
    asked.user = gm
    HistoricalRecords.context.request = asked
    try:
        assert audit.acting_user() == gm  # the trail would record him ...
        with pytest.raises(NoActor):  # ... but the policy does not let him act through it
            england_gives(campaign, None)
        with pytest.raises(NoActor):
            require(None, campaign, "gm")
    finally:
        del HistoricalRecords.context.request
    assert transfers() == 0


def test_a_person_acts_with_his_own_powers_whatever_the_context(campaign, gm, alice):
    """``by`` decides, not the context: Alice inside the GM's action is still Alice."""
    fund(campaign, house(campaign, "France"), 100)
    with audit.acting(gm), pytest.raises(Forbidden, match="your own dynasty"):
        treasury.treasury_transfer(
            campaign=campaign, payer=house(campaign, "France"), payee=house(campaign, "England"), amount=5, reason="x", by=alice
        )
    fund(campaign, house(campaign, "England"), 100)
    posting = england_gives(campaign, alice)
    assert posting.entered_by == alice  # the ledger records who acted


# --- the system, named ------------------------------------------------------------------------------


def test_the_system_actor_acts_as_the_gm_and_is_recorded_as_no_one(campaign):
    fund(campaign, house(campaign, "England"), 100)
    assert require(SYSTEM_ACTOR, campaign, "gm") is SYSTEM and SYSTEM.is_gm and SYSTEM.dynasty is None
    assert acting_house(campaign, SYSTEM_ACTOR) is None  # the system names the house it acts for
    posting = england_gives(campaign, SYSTEM_ACTOR)
    assert posting.entered_by is None  # no person: the ledger records no one
    at_step(campaign, Step.INTERPHASE, year=1300)
    assert turn_advance(campaign=campaign, by=SYSTEM_ACTOR).current_year == 1305


def test_there_is_one_system_actor_and_it_is_no_user():
    assert SystemActor() is SYSTEM_ACTOR and repr(SYSTEM_ACTOR) == "SYSTEM_ACTOR"
    assert copy.copy(SYSTEM_ACTOR) is SYSTEM_ACTOR and copy.deepcopy(SYSTEM_ACTOR) is SYSTEM_ACTOR
    assert pickle.loads(pickle.dumps(SYSTEM_ACTOR)) is SYSTEM_ACTOR  # noqa: S301 (our own bytes)
    assert not SYSTEM_ACTOR.is_authenticated and SYSTEM_ACTOR.pk is None
    assert audit.person(SYSTEM_ACTOR) is None
    assert not isinstance(SYSTEM_ACTOR, (get_user_model(), AnonymousUser))
    with pytest.raises(AttributeError):  # nothing can be written onto it
        SYSTEM_ACTOR.username = "system"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        SYSTEM_ACTOR.is_authenticated = True  # type: ignore[misc]


# --- nothing a request carries becomes the system -----------------------------------------------


def test_an_anonymous_or_unsaved_user_is_no_one_at_the_table(campaign):
    """A request's user is a User or an AnonymousUser: neither is the system, whatever its name."""
    fund(campaign, house(campaign, "England"), 100)
    unsaved = get_user_model()(username="system", is_superuser=True)
    for somebody in (AnonymousUser(), unsaved, get_user_model()(username="SYSTEM_ACTOR")):
        with pytest.raises(Forbidden, match="not a member") as refused:
            require(somebody, campaign, "gm")
        assert not isinstance(refused.value, NoActor)
        with pytest.raises(Forbidden):
            england_gives(campaign, somebody)
    assert transfers() == 0


@pytest.fixture
def system_user(campaign, django_user_model):
    """A user who calls himself the system, seated as an observer of the campaign."""
    user = django_user_model.objects.create_user("system", password="system-password-1")
    Membership.objects.create(campaign=campaign, user=user, role=Role.OBSERVER)
    return user


def test_a_user_named_system_gets_403_through_the_api_and_the_pages(campaign, system_user):
    api = APIClient()
    api.force_login(system_user)
    response = api.post(f"/api/v1/campaigns/{campaign.slug}/turn/advance/", {}, format="json")
    assert response.status_code == 403, response.content
    response = api.post(
        f"/api/v1/campaigns/{campaign.slug}/treasury/transfers/",
        {"payer": house(campaign, "France").pk, "payee": house(campaign, "England").pk, "amount": 5, "reason": "mine"},
        format="json",
    )
    assert response.status_code == 403 and transfers() == 0
    page = Client()
    page.force_login(system_user)
    assert page.post(f"/c/{campaign.slug}/turn/undo/", {"which": "step", "action_key": new_action_key()}).status_code == 403
    assert Campaign.objects.get(pk=campaign.pk).step == Step.BIRTHS


def test_an_anonymous_request_acts_for_no_one(campaign):
    response = APIClient().post(f"/api/v1/campaigns/{campaign.slug}/turn/advance/", {}, format="json")
    assert response.status_code in (401, 403)
    assert Client().post(f"/c/{campaign.slug}/turn/undo/", {"which": "step"}).status_code == 302  # to the login page
    assert Campaign.objects.get(pk=campaign.pk).current_year == campaign.current_year


# --- the doors pass their user ----------------------------------------------------------------------


def _spy(monkeypatch, module: types.ModuleType, name: str) -> list[Any]:
    """Replace ``module.name`` with a wrapper that records each call's ``by`` (a missing one as the
    string "missing") and calls the service."""
    real, seen = getattr(module, name), []

    def spy(**kwargs: Any) -> Any:
        seen.append(kwargs.get("by", "missing"))
        return real(**kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


def test_the_treasury_pages_previews_pass_the_user(client, campaign, alice, monkeypatch):
    """pages/treasury.py's Interphase and cashing-in previews ask the service for the logged-in
    user (they called it with no actor, leaving the policy to guess from the request)."""
    import pages.treasury

    interphase = at_step(campaign, Step.INTERPHASE, year=1305)
    england = house(interphase, "England")
    previews = _spy(monkeypatch, pages.treasury, "interphase_preview")
    cash_ins = _spy(monkeypatch, pages.treasury, "cash_in_preview")
    client.force_login(alice)
    page = reverse("pages:interphase", args=[interphase.slug, england.pk])
    assert client.post(page, {"provinces": "8", "tax_rate": "5", "do": "preview"}).status_code == 200
    assert client.post(page, {"basic_sets": "1", "do": "cash_in_preview"}).status_code == 200
    assert previews == [alice] and cash_ins == [alice]


def test_a_players_preview_of_another_house_is_refused_by_the_service_behind_the_door(client, campaign, alice, monkeypatch):
    """Were the page's own check forgotten, the service still refuses Alice (England) a look at
    France's Interphase: the door passes her, the policy decides."""
    import pages.treasury

    interphase = at_step(campaign, Step.INTERPHASE, year=1305)
    france = house(interphase, "France")

    def careless(request: Any, slug: str, dynasty_pk: int) -> tuple[Campaign, str, int | None, Dynasty]:
        return interphase, Role.PLAYER, house(interphase, "England").pk, france  # no check of whose house

    monkeypatch.setattr(pages.treasury, "_exchequer", careless)
    previews = _spy(monkeypatch, pages.treasury, "interphase_preview")
    client.force_login(alice)
    page = reverse("pages:interphase", args=[interphase.slug, france.pk])
    response = client.post(page, {"provinces": "8", "tax_rate": "5", "do": "preview"})
    assert response.status_code == 400 and "your own dynasty" in response.content.decode()
    assert response.context.get("preview") is None and previews == [alice]


# --- services that acted for anyone ------------------------------------------------------------------


def test_seating_the_table_is_the_gms(campaign, gm, alice, outsider):
    """``membership_add`` asks the policy ("seat the table": the GM); it asked no one before."""
    with pytest.raises(Forbidden, match="Only the game master"):
        membership_add(campaign=campaign, user=outsider, role=Role.OBSERVER, by=alice)
    with pytest.raises(NoActor):
        membership_add(campaign=campaign, user=outsider, role=Role.OBSERVER, by=None)  # type: ignore[arg-type]
    assert not Membership.objects.filter(user=outsider).exists()
    assert membership_add(campaign=campaign, user=outsider, role=Role.OBSERVER, by=gm).role == Role.OBSERVER


def test_a_gm_of_another_campaign_cannot_seat_himself_through_the_desk(campaign, django_user_model):
    """The desk's add form (issue 30, hole 1): alpha's GM posting bravo's membership is refused by
    the policy (the change set and ``membership_add`` ask it for him), whatever the form lets through."""
    intruder = django_user_model.objects.create_user("intruder", password="intruder-password-1", is_staff=True)
    intruder.user_permissions.set(Permission.objects.filter(content_type__app_label="campaign"))
    campaign_create(name="Alpha", players=3, source=RandomSource(3), by=intruder)
    client = Client()
    client.force_login(intruder)
    response = client.post("/admin/campaign/membership/add/", {"campaign": campaign.pk, "user": intruder.pk, "role": Role.GM})
    assert response.status_code in (200, 403)  # refused (or the form sent back): never a 302 to the list
    assert not Membership.objects.filter(campaign=campaign, user=intruder).exists()


def test_a_death_at_the_table_is_recorded_by_the_gm_only(campaign, gm, alice):
    """``survival_event`` (the desk's "killed at the table") asked no one before."""
    victim = Character.objects.filter(campaign=campaign, controlled_by=house(campaign, "France"), status=Status.ALIVE).first()
    with pytest.raises(Forbidden, match="Only the game master"):
        survival_event(campaign=campaign, reason="killed", characters=[victim.pk], by=alice)
    assert Character.objects.get(pk=victim.pk).status == Status.ALIVE
    survival_event(campaign=campaign, reason="killed", characters=[victim.pk], by=gm)
    assert Character.objects.get(pk=victim.pk).status == Status.DEAD


def test_a_desk_change_set_is_the_gms(campaign, gm, alice):
    """``change_set`` (every desk save) is a hand edit: the campaign's GM's, asked of its ``by``."""
    with pytest.raises(Forbidden, match="Only the game master"), change_set(campaign, label="Edit", by=alice):
        pass
    with pytest.raises(NoActor), change_set(campaign, label="Edit", by=None):  # type: ignore[arg-type]
        pass
    with change_set(campaign, label="Edit", by=gm) as locked:
        assert locked.pk == campaign.pk


def test_a_note_is_written_for_someone(campaign, alice):
    with pytest.raises(NoActor):
        note_write(campaign, audience="player", text="mine", dynasty=house(campaign, "England"), by=None)  # type: ignore[arg-type]
    assert note_write(campaign, audience="player", text="mine", dynasty=house(campaign, "England"), by=alice).text == "mine"


# --- every service takes its actor: the walk --------------------------------------------------------

SERVICE_PACKAGES = ("campaign", "dynasties", "contracts", "operations")
POLICY = "campaign.permissions"
CHECKS = {"require": 0, "actor_seat": 1, "acting_house": 1}  # where each takes ``by`` positionally


def _service_modules() -> Iterator[types.ModuleType]:
    for root in SERVICE_PACKAGES:
        package = importlib.import_module(root)
        yield package
        for info in pkgutil.walk_packages(package.__path__, f"{root}."):
            if ".migrations" in info.name or ".management" in info.name:
                continue
            yield importlib.import_module(info.name)


def _functions(module: types.ModuleType) -> Iterator[tuple[str, Any]]:
    for name, obj in vars(module).items():
        fn = inspect.unwrap(obj) if callable(obj) else obj
        if inspect.isfunction(fn) and fn.__module__ == module.__name__ and module.__name__ != POLICY:
            yield name, fn


def _local_imports(tree: ast.AST) -> dict[str, Any]:
    """What a function imports inside its body (the lazy imports that keep the layers acyclic)."""
    found: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            source = importlib.import_module(node.module)
            for alias in node.names:
                value = getattr(source, alias.name, None)
                if value is None:
                    value = importlib.import_module(f"{node.module}.{alias.name}")
                found[alias.asname or alias.name] = value
    return found


class Walk:
    """Which functions act for someone (call the policy, or a function that does, for an actor of
    theirs) and every call that names its actor badly."""

    def __init__(self, functions: list[tuple[str, str, Any]]) -> None:
        self.functions = functions
        self.trees = {id(fn): ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0] for _, _, fn in functions}
        self.acting: set[int] = set()
        self.problems: list[str] = []
        self._run()

    def _callee(self, fn: Any, local: dict[str, Any], func: ast.expr) -> Any:
        scope = {**fn.__globals__, **local}
        if isinstance(func, ast.Name):
            return scope.get(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            base = scope.get(func.value.id)
            return getattr(base, func.attr, None) if isinstance(base, types.ModuleType) else None
        return None

    def _calls(self, fn: Any) -> Iterator[tuple[ast.Call, str, Any, ast.expr | None]]:
        """(call, callee's name, callee, the actor it passes) for every call of the policy or of a
        function that takes an actor."""
        tree = self.trees[id(fn)]
        local = _local_imports(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = self._callee(fn, local, node.func)
            if callee is None or not callable(callee):
                continue
            target = inspect.unwrap(callee)
            actor = next((k.value for k in node.keywords if k.arg == "by"), None)
            if getattr(target, "__module__", None) == POLICY and target.__name__ in CHECKS:
                at = CHECKS[target.__name__]
                if actor is None and len(node.args) > at:
                    actor = node.args[at]
                yield node, target.__name__, target, actor
            elif inspect.isfunction(target) and "by" in inspect.signature(target).parameters:
                names = list(inspect.signature(target).parameters)
                if actor is None and names.index("by") < len(node.args):
                    actor = node.args[names.index("by")]
                yield node, target.__name__, target, actor

    @staticmethod
    def _root(actor: ast.expr) -> str | None:
        while isinstance(actor, ast.Attribute):
            if actor.attr == "SYSTEM_ACTOR":
                return "SYSTEM_ACTOR"
            actor = actor.value
        return actor.id if isinstance(actor, ast.Name) else None

    def _run(self) -> None:
        changed = True
        while changed:
            changed = False
            for _module, _name, fn in self.functions:
                if id(fn) in self.acting:
                    continue
                for _node, _callee, target, actor in self._calls(fn):
                    policy = getattr(target, "__module__", None) == POLICY
                    if (policy or id(target) in self.acting) and (actor is None or self._root(actor) != "SYSTEM_ACTOR"):
                        self.acting.add(id(fn))
                        changed = True
                        break
        for module, name, fn in self.functions:
            if id(fn) not in self.acting:
                continue
            where = f"{module}.{name}"
            params = inspect.signature(fn).parameters
            for node, callee, target, actor in self._calls(fn):
                if getattr(target, "__module__", None) != POLICY and id(target) not in self.acting:
                    continue
                root = None if actor is None else self._root(actor)
                if actor is None:
                    self.problems.append(f"{where}: calls {callee} without an actor (line {node.lineno} of its source)")
                elif root == "SYSTEM_ACTOR":
                    continue
                elif root not in params:
                    self.problems.append(f"{where}: passes {callee} an actor from nowhere: {ast.unparse(actor)}")
                elif params[root].default is not inspect.Parameter.empty:
                    self.problems.append(f"{where}: its {root} has a default ({params[root].default!r}): the actor must be given")
                elif root == "by" and not name.startswith("_") and params["by"].kind is not inspect.Parameter.KEYWORD_ONLY:
                    self.problems.append(f"{where}: takes by positionally: a service's by is keyword-only")


def test_every_service_that_acts_takes_its_actor_as_a_required_argument():
    functions = [(m.__name__, name, fn) for m in _service_modules() for name, fn in _functions(m)]
    walk = Walk(functions)
    public = [(m, n, fn) for m, n, fn in functions if id(fn) in walk.acting and not n.startswith("_")]
    with_by = [(m, n) for m, n, fn in public if "by" in inspect.signature(fn).parameters]
    print(
        f"{len({m for m, _, _ in functions})} service modules, {len(functions)} functions: {len(walk.acting)} act for "
        f"someone, {len(public)} of them public, {len(with_by)} taking a required keyword-only by"
    )
    assert walk.problems == []
    assert len(public) >= 80  # the walk found the services (a broken walk finds none and passes nothing)
    for m, n, fn in public:  # the actor is ``by``, or (campaign_start) the ``gm`` who creates it
        by = inspect.signature(fn).parameters.get("by") or inspect.signature(fn).parameters.get("gm")
        assert by is not None and by.kind is inspect.Parameter.KEYWORD_ONLY and by.default is inspect.Parameter.empty, f"{m}.{n}"
    names = {n for _, n in with_by}
    for expected in (
        "treasury_transfer",
        "interphase_preview",
        "cash_in_preview",
        "membership_add",
        "survival_event",
        "note_write",
        "change_set",
        "undo_step",
        "undo_turn",
        "redo",
        "simulate",
        "play_turn",
    ):
        assert expected in names, expected
    # step_action asks nothing itself (its action's services do) but records and keys by its by
    by = inspect.signature(importlib.import_module("campaign.undo").step_action).parameters["by"]
    assert by.kind is inspect.Parameter.KEYWORD_ONLY and by.default is inspect.Parameter.empty


STUBS = """
from campaign import audit
from campaign.permissions import SYSTEM_ACTOR, require


def inner(*, campaign, by):
    require(by, campaign, "gm")


def forgot(*, campaign, by=None):
    require(by, campaign, "gm")


def positional(campaign, by):
    require(by, campaign, "gm")


def ambient(*, campaign):
    require(audit.acting_user(), campaign, "gm")


def passes_none(*, campaign, by):
    inner(campaign=campaign)


def fine(*, campaign, by):
    inner(campaign=campaign, by=by)


def system(*, campaign):
    inner(campaign=campaign, by=SYSTEM_ACTOR)
"""


def test_the_walk_finds_a_service_that_forgets_its_actor(tmp_path):
    """The walk above on services written wrong: each mistake is named, the right ones pass."""
    path = tmp_path / "stub_services.py"
    path.write_text(STUBS)
    spec = importlib.util.spec_from_file_location("stub_services", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["stub_services"] = module
    try:
        spec.loader.exec_module(module)
        walk = Walk([("stub_services", name, fn) for name, fn in _functions(module)])
    finally:
        del sys.modules["stub_services"]
    named = sorted(p.split(":")[0] for p in walk.problems)
    assert named == ["stub_services.ambient", "stub_services.forgot", "stub_services.passes_none", "stub_services.positional"]
    assert {fn.__name__ for fn in vars(module).values() if inspect.isfunction(fn) and id(fn) in walk.acting} >= {
        "inner",
        "fine",
    }
    assert id(module.system) not in walk.acting  # the system, named: nobody's powers to take
