"""The format declared once (operations/exchange/spec.py): the export it drives, the
documentation it generates, and every campaign-scoped model accounted for."""

from __future__ import annotations

import json

import pytest

from campaign import registry
from campaign.models import Campaign
from dynasties.services import campaign_create
from operations.exchange import campaign_export, doc, legacy
from operations.exchange.spec import ELSEWHERE, NOT_EXPORTED, SPEC
from operations.simulation import simulate
from rules.dice import RandomSource
from tests.test_exchange import played, with_everything


def _same_bytes(campaign: Campaign) -> None:
    new, old = campaign_export(campaign), legacy.campaign_export(campaign)
    assert json.dumps(new, indent=2, ensure_ascii=False) == json.dumps(old, indent=2, ensure_ascii=False)


@pytest.mark.django_db
def test_the_spec_driven_export_is_byte_identical_to_the_hand_written_one():
    _same_bytes(with_everything(played(turns=3)))


@pytest.mark.django_db
@pytest.mark.parametrize(("ruleset", "seed"), [("eu-bloodline", 5), ("eu-monarchs", 6)])
def test_the_spec_driven_export_is_byte_identical_for_every_ruleset(ruleset, seed):
    campaign = campaign_create(name=ruleset, ruleset=ruleset, players=4, source=RandomSource(seed))
    _same_bytes(simulate(campaign, turns=4, source=RandomSource(seed)))


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
