"""The format declared once (operations/exchange/spec.py): the export it drives, the
documentation it generates, and every campaign-scoped model accounted for."""

from __future__ import annotations

import json
import re

import pytest

from campaign import registry
from campaign.models import Campaign
from campaign.permissions import SYSTEM_ACTOR
from dynasties.services import campaign_create
from operations.exchange import campaign_export, campaign_import, doc, special
from operations.exchange.spec import CAMPAIGN, CHRONICLE, ELSEWHERE, NOT_EXPORTED, SPEC, Section
from operations.simulation import simulate
from rules.dice import RandomSource
from tests.test_exchange import played, with_everything


def _keys(s: Section) -> list[str]:
    return [f.key for f in s.fields]


@pytest.mark.django_db
def test_the_export_writes_the_keys_the_spec_declares_in_its_order():
    """Every object of every section (and the objects listed in them) carries exactly the spec's
    keys, in the spec's order: the spec is the format."""
    data = campaign_export(with_everything(played(turns=3)))
    assert list(data) == ["format", "clause_refs", *(s.name for s in SPEC)]
    assert list(data["campaign"]) == _keys(CAMPAIGN)
    for s in SPEC:
        if s in (CAMPAIGN, CHRONICLE):
            continue
        assert data[s.name], f"the campaign has no {s.name}: the check would be empty"
        for obj in data[s.name]:
            assert list(obj) == _keys(s), s.name
            for f in s.fields:
                if f.rows is not None and not f.rows.flat:
                    assert all(list(child) == [c.key for c in f.rows.fields] for child in obj[f.key]), (s.name, f.key)
    entries = [e for group in data["chronicle"] for e in group["entries"]]
    assert entries and all(list(e) == _keys(CHRONICLE) for e in entries)


@pytest.mark.django_db
@pytest.mark.parametrize(("ruleset", "seed"), [("eu-bloodline", 5), ("eu-monarchs", 6)])
def test_every_ruleset_round_trips_through_the_spec(ruleset, seed):
    campaign = campaign_create(name=ruleset, ruleset=ruleset, players=4, source=RandomSource(seed))
    first = campaign_export(simulate(campaign, turns=4, source=RandomSource(seed), by=SYSTEM_ACTOR))
    again = campaign_export(campaign_import(json.loads(json.dumps(first))))
    assert json.dumps({**again, "campaign": {**again["campaign"], "slug": "x"}}) == json.dumps(
        {**first, "campaign": {**first["campaign"], "slug": "x"}}
    )


def test_the_documented_sections_table_is_the_one_the_spec_generates():
    """docs/export-format.md's table is generated (``doc.write()``): it cannot drift from the spec."""
    text = doc.DOC.read_text(encoding="utf-8")
    assert doc.BEGIN in text and doc.END in text
    assert text == doc.generated(text), "docs/export-format.md is stale: run operations.exchange.doc.write()"


def test_every_campaign_scoped_model_has_a_section_or_a_reason():
    """Each model of campaign.registry.scoped_models() is a section of the spec, the objects
    listed under a section's field, exported elsewhere, or declared as not exported with a reason;
    and the spec reaches each one's campaign by the registry's own lookup."""
    scoped = {e.label: e for e in registry.scoped_models()}
    paths = {s.model._meta.label: s.scope for s in SPEC if s.model is not Campaign}
    paths |= {f.rows.model._meta.label: f.rows.scope for s in SPEC for f in s.fields if f.rows is not None}
    missing = set(scoped) - set(paths) - set(ELSEWHERE) - set(NOT_EXPORTED)
    assert not missing, f"campaign-scoped models with no section and no reason: {sorted(missing)}"
    assert {label: scoped[label].campaign_path for label in paths} == paths
    assert set(ELSEWHERE) | set(NOT_EXPORTED) <= set(scoped)
    assert all(reason.strip() for reason in NOT_EXPORTED.values())
    assert not set(paths) & (set(ELSEWHERE) | set(NOT_EXPORTED))


def test_the_documentation_names_every_reference_key_of_the_free_form_objects():
    """The keys of a chronicle entry's data and of a clause's params that hold export ids are named
    in docs/export-format.md, as the spec's special cases declare them."""
    named = set(re.findall(r"`(\w+)`", doc.DOC.read_text(encoding="utf-8")))
    keys = {*special.CHRONICLE_REFS, *special.CHRONICLE_LIST_REFS, *special.CLAUSE_REFS}
    assert keys <= named, f"not documented: {sorted(keys - named)}"


@pytest.mark.django_db
def test_how_a_claimant_was_passed_over_travels_with_the_export(campaign):
    """BloodLine's frozen lines are read from Modifier.pass_over, so the export carries it; a document
    written before the field existed gets it from the reason's end, as the migration read old rows."""
    from dynasties.models import Character, Dynasty, Modifier, ModifierKind, PassOverKind

    england = Dynasty.objects.get(campaign=campaign, crown="England")
    maud = Character.objects.filter(campaign=campaign, birth_dynasty=england).first()
    common = {"campaign": campaign, "kind": ModifierKind.COMBAT_MALUS, "value": -1, "crown": "England"}
    Modifier.objects.create(
        **common, claimant=maud, reason="Maud, passed over", pass_over=PassOverKind.MARRIED_AWAY, start_year=1300
    )
    Modifier.objects.create(**common, claimant=maud, reason="Maud passed over for England (prisoner)", start_year=1301)
    data = campaign_export(campaign)
    assert [m["pass_over"] for m in data["modifiers"]] == ["married_away", ""]
    again = campaign_import(json.loads(json.dumps(data)))
    assert list(Modifier.objects.filter(campaign=again).order_by("pk").values_list("pass_over", flat=True)) == [
        "married_away",
        "",
    ]
    for m in data["modifiers"]:
        del m["pass_over"]
    data["modifiers"][0]["reason"] = "Maud passed over for England (married away)"
    legacy = campaign_import(json.loads(json.dumps(data)))
    assert list(Modifier.objects.filter(campaign=legacy).order_by("pk").values_list("pass_over", flat=True)) == [
        "married_away",
        "prisoner",
    ]
