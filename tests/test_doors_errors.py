"""One error mapping for every door (issue 35): what a refusal answers (``campaign.doors.refusal``:
its status, code, message and fields) is written once, and the API, a page, a tree, a printable
and the GEDCOM export answer the same error with the same status."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse

import pages.gedcom
import pages.home
import pages.prints
import pages.trees
from api.exceptions import exception_handler
from campaign.doors import refusal, status_of
from campaign.permissions import Forbidden
from campaign.undo import AlreadyDone, KeyReused
from rules.errors import IllegalMarriage, NotFound, RuleError, StepOrderError

MESSAGE = "Say what to fix."

TABLE = [
    (RuleError(MESSAGE, fields={"year": "A year of the campaign."}), 400, "rule"),
    (IllegalMarriage(MESSAGE), 400, "illegal_marriage"),
    (NotFound(MESSAGE), 404, "not_found"),
    (StepOrderError(MESSAGE), 409, "step_order"),
    (AlreadyDone(MESSAGE), 409, "already_done"),
    (KeyReused(MESSAGE), 422, "idempotency_key_reused"),
    (Forbidden(MESSAGE), 403, "permission_denied"),
    (Http404(MESSAGE), 404, "not_found"),
    (PermissionDenied(MESSAGE), 403, "permission_denied"),
]
"""(the error, its status at every door, its code)."""

IDS = [type(exc).__name__ for exc, _, _ in TABLE]


@pytest.mark.parametrize(("exc", "status", "code"), TABLE, ids=IDS)
def test_the_one_mapping_gives_each_error_its_status_code_message_and_fields(exc, status, code) -> None:
    refused = refusal(exc)
    assert refused is not None and status_of(exc) == status
    assert (refused.status, refused.code, refused.message) == (status, code, MESSAGE)
    assert refused.fields == getattr(exc, "fields", {})
    assert refusal(ValueError("a bug")) is None and status_of(ValueError("a bug")) is None  # a 500, not hidden


@pytest.mark.parametrize(("exc", "status", "code"), TABLE, ids=IDS)
def test_the_api_answers_the_mapping(exc, status, code) -> None:
    response = exception_handler(exc, {})
    assert response is not None and response.status_code == status
    assert response.data == {"code": code, "message": MESSAGE, "fields": getattr(exc, "fields", {})}


def _raising(exc):
    def fail(*args, **kwargs):
        raise exc

    return fail


@pytest.mark.django_db
@pytest.mark.parametrize(("exc", "status", "code"), TABLE, ids=IDS)
def test_a_page_a_tree_a_printable_and_the_gedcom_answer_the_same_status(
    exc, status, code, client, campaign, alice, monkeypatch
) -> None:
    """The same error raised under each door (where its service would be called) gets the same
    status: the API's above, a page (the home page), a tree, the turn's announcements, GEDCOM."""
    client.force_login(alice)  # a member: each door reaches its service
    monkeypatch.setattr(pages.home, "setup_statuses", _raising(exc))
    monkeypatch.setattr(pages.trees, "cached_tree", _raising(exc))
    monkeypatch.setattr(pages.prints.printing, "announcements_pdf", _raising(exc))
    monkeypatch.setattr(pages.gedcom, "export_gedcom", _raising(exc))
    doors = {
        "page": reverse("home"),
        "tree": reverse("trees:tree", args=[campaign.slug, "campaign"]),
        "printable": reverse("print:announcements", args=[campaign.slug, campaign.current_year]),
        "gedcom": reverse("gedcom-campaign", args=[campaign.slug]),
    }
    answers = {door: client.get(url) for door, url in doors.items()}
    assert {door: r.status_code for door, r in answers.items()} == dict.fromkeys(doors, status)
    if status not in (403, 404):  # a 404 says nothing of what exists; a 403 is the 403 page
        for door, r in answers.items():
            body = r.content.decode()
            assert MESSAGE in body and "Not done" in body, door
            assert "A year of the campaign." in body or not getattr(exc, "fields", {}), door
