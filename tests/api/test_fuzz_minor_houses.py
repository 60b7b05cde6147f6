"""Schemathesis on BloodLine's minor houses' table events (issue 31) in a BloodLine campaign (the
API's own fuzzing, tests/api/test_fuzz.py, runs in a Blood Royale campaign, where they answer 404):
no 5xx on any generated body, every answer matches the schema, every 4xx has the error shape."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance, status_code_conformance

from api.services import token_create
from campaign.models import Step
from dynasties.models import Dynasty
from dynasties.services import DynastySpec, campaign_create
from rules import bloodline as bl
from rules.dice import RandomSource
from tests.api.test_fuzz import error_shape
from tests.profiles import examples

EXAMPLES = 25

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application()).include(
    path_regex=r"/events/(minor_house_create|offer_make|offer_withdraw|offers_resolve|royal_marriage_box_set)/$"
)


@pytest.fixture
def bloodline(gm):
    c = campaign_create(
        name="Fuzzed minors",
        ruleset=bl.NAME,
        dynasties=[DynastySpec("Valois", "France"), DynastySpec("Tudor", "England"), DynastySpec("Savoia", "Savoy", "minor")],
        source=RandomSource(4),
        by=gm,
    )
    c.step = Step.MARRIAGES
    c.save(update_fields=["step"])
    assert Dynasty.objects.filter(campaign=c, kind="minor").exists()
    return c


@pytest.fixture
def headers(bloodline, gm):
    _, key = token_create(user=gm, name="fuzzer")
    return {"Authorization": f"Token {key}"}


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))
def test_no_5xx_on_the_minor_houses_events(case, headers, bloodline):
    case.path_parameters["slug"] = bloodline.slug
    case.call_and_validate(
        headers=headers,
        checks=[not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance, error_shape],
    )
