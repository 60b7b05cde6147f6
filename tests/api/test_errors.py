"""Every error is ``{"code", "message", "fields"}`` with the right status: 400 invalid input or a
rule refused, 401 no login or a bad token, 403 not allowed, 404 not found or not a member,
409 a step run twice or out of order (``StepOrderError``, ``AlreadyDone``)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from rest_framework import exceptions

from api.exceptions import exception_handler
from campaign.models import Checkpoint, ChronicleEntry
from campaign.undo import AlreadyDone
from rules.errors import IllegalMarriage, NotFound, RuleError, StepOrderError
from tests.api.conftest import assert_error, url

NOTE = "/test-api/{}/note/"


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (RuleError("No."), 400, "rule"),
        (IllegalMarriage("Too close kin.", fields={"wife": "Too close kin."}), 400, "illegal_marriage"),
        (StepOrderError("Births are done."), 409, "step_order"),
        (AlreadyDone("Done already."), 409, "already_done"),
        (NotFound("No such character."), 404, "not_found"),
        (ValidationError({"name": ["Too long."]}), 400, "invalid"),
        (ValidationError("Bad."), 400, "invalid"),
        (exceptions.ValidationError({"items": [{"name": ["Required."]}, {}]}), 400, "invalid"),
        (PermissionDenied("GM only."), 403, "permission_denied"),
        (Http404("Gone."), 404, "not_found"),
        (exceptions.NotAuthenticated(), 401, "not_authenticated"),
        (exceptions.AuthenticationFailed(), 401, "authentication_failed"),
        (exceptions.MethodNotAllowed("PUT"), 405, "method_not_allowed"),
        (exceptions.Throttled(wait=3), 429, "throttled"),
    ],
)
def test_the_handler_maps_every_error_to_the_one_shape(exc, status, code):
    response = exception_handler(exc, {})
    assert response.status_code == status
    assert set(response.data) == {"code", "message", "fields"} and response.data["code"] == code
    assert response.data["message"]


def test_fields_name_what_is_wrong():
    response = exception_handler(IllegalMarriage("Too close kin.", fields={"wife": "Too close kin."}), {})
    assert response.data["fields"] == {"wife": "Too close kin."}
    response = exception_handler(exceptions.ValidationError({"items": [{"name": ["Required."]}, {}]}), {})
    assert response.data["fields"] == {"items.0.name": "Required."}
    response = exception_handler(exceptions.ValidationError({"non_field_errors": ["Pick one."], "a": ["x"]}), {})
    assert response.data["message"] == "Pick one." and response.data["fields"] == {"a": "x"}
    response = exception_handler(ValidationError({"__all__": ["Both."], "name": ["Long."]}), {})
    assert response.data["message"] == "Both." and response.data["fields"] == {"name": "Long."}
    assert exception_handler(exceptions.Throttled(wait=3), {})["Retry-After"] == "3"
    assert exception_handler(ValueError("boom"), {}) is None  # unexpected: a 500, not hidden


@pytest.mark.django_db
def test_400_on_invalid_filters_and_input(campaign, gm, client_for):
    client = client_for(gm)
    body = assert_error(client.get(url(campaign, "characters"), {"year": "abc"}), 400, "invalid")
    assert "year" in body["fields"]
    assert_error(client.get(url(campaign, "characters"), {"year": str(10**30)}), 400, "invalid")
    assert_error(client.get(url(campaign, "marriages"), {"state": "eloped"}), 400, "invalid")
    assert_error(client.get(url(campaign, "rolls"), {"source": "cheat"}), 400, "invalid")
    body = assert_error(client.post("/api/v1/tokens/", {"name": "x" * 81}), 400, "invalid")
    assert set(body["fields"]) == {"name"}
    body = assert_error(client.post("/api/v1/tokens/", "{not json", content_type="application/json"), 400, "parse_error")


@pytest.mark.django_db
def test_401_without_credentials(campaign):
    from rest_framework.test import APIClient

    response = APIClient().get(url(campaign, "characters"))
    assert_error(response, 401, "not_authenticated")
    assert response.headers["WWW-Authenticate"] == "Token"


@pytest.mark.django_db
def test_403_csrf_on_a_session_write(alice):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    body = assert_error(client.post("/api/v1/tokens/", {"name": "bot"}), 403, "permission_denied")
    assert "CSRF" in body["message"]


@pytest.mark.django_db
def test_404_for_non_members_unknown_objects_pages_and_endpoints(campaign, gm, outsider, client_for):
    assert_error(client_for(outsider).get(url(campaign)), 404, "not_found")
    client = client_for(gm)
    assert_error(client.get("/api/v1/campaigns/no-such-campaign/"), 404, "not_found")
    assert_error(client.get(url(campaign, "characters", 999999)), 404, "not_found")
    assert_error(client.get(url(campaign, "characters", 10**30)), 404, "not_found")
    assert_error(client.get(url(campaign, "characters"), {"page": 99}), 404, "not_found")
    assert_error(client.get("/api/v1/nothing/here/"), 404, "not_found")
    assert_error(client.get(url(campaign, "balances", 999999)), 404, "not_found")


@pytest.mark.django_db
def test_405_keeps_the_shape(campaign, gm, client_for):
    assert_error(client_for(gm).delete(url(campaign, "characters")), 405, "method_not_allowed")


@pytest.mark.django_db
@pytest.mark.urls("tests.api.urls")
def test_run_action_a_key_sent_twice_is_409_and_done_once(campaign, gm, client_for):
    client = client_for(gm)
    path = NOTE.format(campaign.slug)
    first = client.post(path, {"text": "Hello"}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201
    assert Checkpoint.objects.filter(campaign=campaign, step="births").count() == 1  # the undo checkpoint
    assert_error(client.post(path, {"text": "Hello"}, HTTP_IDEMPOTENCY_KEY="k-1"), 409, "already_done")
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="note").count() == 1
    # without a key each request is its own action; another user's same key does not collide
    assert client.post(path, {"text": "Again"}).status_code == 201
    assert client.post(path, {"text": "Again"}).status_code == 201
    assert ChronicleEntry.objects.filter(campaign=campaign, kind="note").count() == 3
    assert_error(client.post(path, {"text": "x"}, HTTP_IDEMPOTENCY_KEY="k" * 41), 400, "idempotency_key")


@pytest.mark.django_db
@pytest.mark.urls("tests.api.urls")
def test_run_action_errors_leave_nothing_behind(campaign, gm, alice, client_for):
    client = client_for(gm)
    path = NOTE.format(campaign.slug)
    assert_error(client.post(path, {"text": "x", "then": "advance"}), 409, "step_order")
    body = assert_error(client.post(path, {"text": "x", "then": "validation"}), 400, "invalid")
    assert body["fields"] == {"text": "Not that text."}
    assert_error(client.post(path, {"text": "x", "then": "forbidden"}), 403, "permission_denied")
    assert_error(client.post(path, {}), 400, "invalid")
    assert not ChronicleEntry.objects.filter(campaign=campaign, kind="note").exists()
    assert not Checkpoint.objects.filter(campaign=campaign).exists()
    # the key of a refused action may be used again: nothing of it stayed
    assert client.post(path, {"text": "x"}, HTTP_IDEMPOTENCY_KEY="retry").status_code == 201
    assert client_for(alice).post(path, {"text": "y"}, HTTP_IDEMPOTENCY_KEY="retry").status_code == 201


@pytest.mark.django_db
def test_the_helpers_for_action_endpoints(campaign, gm, alice, bob, outsider):
    from rest_framework.test import APIRequestFactory, force_authenticate
    from rest_framework.views import APIView

    from api.common import member, visible_or_404
    from campaign.permissions import require_act_for, require_gm
    from dynasties import treasury
    from dynasties.models import Dynasty, Posting

    england = Dynasty.objects.get(campaign=campaign, crown="England")
    posting = treasury.post(campaign, payer=None, payee=england, amount=5, kind="tax", reason="Taxes")

    def request_as(user):
        raw = APIRequestFactory().get("/")
        force_authenticate(raw, user=user)
        return APIView().initialize_request(raw)

    _, role, mine = member(request_as(alice), campaign.slug)
    assert (role, mine) == ("player", england.pk)
    with pytest.raises(PermissionDenied):
        require_gm(role)
    require_act_for(role, mine, england.pk)
    with pytest.raises(PermissionDenied):
        require_act_for(role, mine, england.pk + 1)
    with pytest.raises(Http404):
        member(request_as(outsider), campaign.slug)
    assert visible_or_404(request_as(alice), campaign, Posting.objects.all(), pk=posting.pk) == posting
    with pytest.raises(Http404):
        visible_or_404(request_as(bob), campaign, Posting.objects.all(), pk=posting.pk)
