"""Schemathesis against the generated schema, a few examples per operation so the suite stays
fast: no 5xx on any generated input, every answer matches the schema, and every 4xx has the
error shape ``{"code", "message", "fields"}``."""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance, status_code_conformance

from api.services import token_create
from tests.profiles import examples

EXAMPLES = 6

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application()).exclude(
    path_regex="revoke"  # would revoke the very token the fuzzer uses
)


@schemathesis.check
def error_shape(ctx, response, case) -> bool | None:
    if 400 <= response.status_code < 500:
        body = json.loads(response.content)
        assert set(body) == {"code", "message", "fields"}, body
        assert isinstance(body["code"], str) and isinstance(body["message"], str) and isinstance(body["fields"], dict)
    return None


@pytest.fixture
def headers(campaign, gm):
    _, key = token_create(user=gm, name="fuzzer")
    return {"Authorization": f"Token {key}"}


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))
def test_no_5xx_and_every_error_has_the_shape(case, headers, campaign):
    slug = (case.path_parameters or {}).get("slug")
    if slug is not None and sum(map(ord, slug)) % 4:  # mostly the real campaign, sometimes a made-up one
        case.path_parameters["slug"] = campaign.slug
    case.call_and_validate(
        headers=headers,
        checks=[not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance, error_shape],
    )
