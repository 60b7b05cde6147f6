"""The registry of campaign-scoped models (campaign.registry): complete, ordered, and what undo,
the audit trail and the policy read."""

from __future__ import annotations

import pytest
from django.apps import apps

from campaign import audit, registry
from campaign.models import Campaign, ChronicleEntry, Membership
from contracts.models import Clause, Contract, ContractSignature
from dynasties.models import Character, Marriage, Note, Portrait, Posting

PROJECT_APPS = ("campaign", "dynasties", "contracts", "operations", "pages", "api")


def test_every_model_of_the_project_is_registered_once():
    models = [m for m in apps.get_models(include_auto_created=True) if m._meta.app_label in PROJECT_APPS]
    registered = [e.model for e in registry.entries()]
    assert len(registered) == len(set(registered))
    missing = [m._meta.label for m in models if m not in registered]
    assert missing == [], f"register these in their app's ready() (campaign.registry): {missing}"
    assert set(registered) == set(models)


def test_scoped_models_reach_the_campaign_and_exempt_ones_say_why():
    for e in registry.scoped_models():
        assert e.campaign_path.split("__")[-1] == "campaign", e.label
        assert str(e.model._default_manager.filter(**{e.campaign_path: 1}).query)  # the lookup is valid
    exempt = {e.label: e.exempt for e in registry.entries() if e.exempt}
    kept_out = {"campaign.Campaign", "campaign.Membership", "campaign.Checkpoint", "campaign.ActionKey", "api.ApiToken"}
    assert kept_out <= set(exempt)
    assert "dynasties.HistoricalCharacter" in exempt and all(exempt.values())


def test_the_order_is_the_apps_order_then_each_apps_own():
    labels = [e.label for e in registry.scoped_models()]
    apps_order = [label.split(".")[0] for label in labels]
    assert apps_order == sorted(apps_order, key=["campaign", "dynasties", "contracts"].index)
    kernel = ["campaign.RuleTable", "campaign.Roll", "campaign.ChronicleEntry"]
    assert labels[:3] == kernel and labels.index("dynasties.Character") < labels.index("dynasties.RollSubject")
    assert labels.index("dynasties.Marriage") < labels.index("dynasties.Posting")  # after what a posting names
    assert labels.index("contracts.Contract") < labels.index("contracts.ContractPosting")
    assert labels.index("contracts.Contract") < labels.index("contracts.Contract_parties") < labels.index("contracts.Clause")
    assert Campaign not in [e.model for e in registry.scoped_models()]


def test_undo_and_the_audit_trail_read_the_registry():
    from campaign.undo import _scopes

    assert [m for m, _ in _scopes()] == [e.model for e in registry.scoped_models()]
    assert audit.tracked_models() == [Character, Marriage, Note, Contract, Clause, ContractSignature]


def test_each_model_declares_who_sees_it():
    sees = {e.model: e.sees for e in registry.entries()}
    assert sees[Character] == sees[Marriage] == sees[Membership] == sees[Portrait] == registry.MEMBERS
    assert sees[Note] == registry.NOTES
    assert sees[ChronicleEntry] == registry.AUDIENCE
    assert sees[Posting] == sees[Contract] == registry.HOUSES
    assert registry.entry(Contract).houses == ("parties",)  # type: ignore[union-attr]
    assert sees[Campaign] == registry.GM_ONLY  # unmarked: the policy treats the campaign itself apart


def test_registering_twice_differently_or_without_reason_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(Character, "campaign", sees=registry.GM_ONLY)
    with pytest.raises(ValueError, match="says why"):
        registry.exempt(Character, "")
    with pytest.raises(ValueError, match="houses' lookups"):
        registry.register(Character, "campaign", sees=registry.HOUSES)


@pytest.mark.django_db
def test_the_policy_applies_what_each_app_declared(campaign, gm, alice, bob):
    from campaign.models import Checkpoint
    from campaign.permissions import can_view, visible
    from tests.test_contracts import betroth, house, marriage_contract, pay

    england, germany = house(campaign, "England"), house(campaign, "Germany")
    contract = marriage_contract(campaign, betroth(campaign), [pay(germany, england, 80)])
    [clause] = Clause.objects.filter(contract=contract)
    # a clause reaches its parties through its contract (contract__parties): Alice plays England
    assert can_view(alice, clause) and can_view(gm, clause) and not can_view(bob, clause)
    assert list(visible(alice, campaign, Clause.objects.all())) == [clause]
    assert list(visible(bob, campaign, Clause.objects.all())) == []
    assert list(visible(alice, campaign, Contract.objects.all())) == [contract]
    # characters are every member's; an exempt model nobody marked (a checkpoint) is the GM's alone
    king = Character.objects.filter(campaign=campaign).first()
    assert can_view(bob, king)
    mark = Checkpoint.objects.create(campaign=campaign, year=1300, step="births", label="x", data=b"")
    assert can_view(gm, mark) and not can_view(alice, mark)
    assert list(visible(alice, campaign, Checkpoint.objects.all())) == []
