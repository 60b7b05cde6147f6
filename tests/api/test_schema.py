"""The OpenAPI schema generates without a warning and validates; every operation documents the
error shape; Swagger UI renders from local assets (the table's machines may be offline)."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    path = tmp_path_factory.mktemp("schema") / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path))  # raises on any warning
    return yaml.safe_load(path.read_text())


def test_every_operation_documents_the_error_shape(schema):
    error = schema["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"code", "message", "fields"}
    operations = [(p, m, op) for p, item in schema["paths"].items() for m, op in item.items()]
    assert len(operations) >= 25
    for path, method, op in operations:
        for status in ("400", "401", "403", "404"):
            ref = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
            assert ref == "#/components/schemas/Error", (path, method, status)
        if method != "get":
            assert "409" in op["responses"], (path, method)
        assert {"tokenAuth": []} in op["security"] and {"cookieAuth": []} in op["security"]


def test_the_resources_are_in_the_schema(schema):
    for resource in [
        "memberships",
        "dynasties",
        "characters",
        "marriages",
        "reigns",
        "titles",
        "contracts",
        "ledger",
        "balances",
        "rolls",
        "chronicle",
    ]:
        assert f"/api/v1/campaigns/{{slug}}/{resource}/" in schema["paths"]
        assert f"/api/v1/campaigns/{{slug}}/{resource}/{{id}}/" in schema["paths"]
    year = next(p for p in schema["paths"]["/api/v1/campaigns/{slug}/characters/"]["get"]["parameters"] if p["name"] == "year")
    assert year["schema"]["type"] == "integer"


@pytest.mark.django_db
def test_the_schema_and_the_docs_are_served():
    client = APIClient()
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200 and response.json()["openapi"].startswith("3.")
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower()
    # the start-up script is a file of its own (no inline script: the CSP, tests/test_csp.py)
    script = client.get("/api/docs/", {"script": ""}).content.decode()
    assert 'src="/api/docs/?script="' in html and "/api/schema/" in script
