"""What every API view shares: the campaign of the URL with the caller's role, the base class of
the campaign-scoped read views, and running a write as one step action.

A read view names its model, its output serializer and (optionally) its filter set, and says
which part of the campaign's rows the caller may see in ``scope``; every queryset goes through
``campaign.permissions``. An action view (see ``run_action``) validates an input serializer, calls
the services inside ``campaign.undo.step_action`` and serializes the result: who may act, the
services ask the policy, and their refusal (403, 400, 409) is the answer; no view checks it first
(``tests/api/test_doors_policy.py`` scans them)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlencode

from django.db.models import Model, QuerySet
from django.http import Http404
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.views import APIView

from campaign import doors
from campaign.doors import member as member  # the one member lookup of every door, re-exported for the API
from campaign.models import Campaign
from campaign.permissions import Seen, visible
from campaign.undo import KeyUse, action_key, key_refuse, new_action_key
from rules.errors import RuleError

T = TypeVar("T")


IDEMPOTENCY_KEY_MAX = 40


@dataclass(frozen=True)
class Viewer:
    """The caller as the campaign sees him. What his seat lets him do or see, the views ask
    ``campaign.permissions`` (with ``role`` and ``dynasty``); they never decide it from the seat."""

    campaign: Campaign
    role: str
    dynasty: int | None


def idempotency_key(request: Request) -> str:
    """The one-time key of an API write as sent: the caller's ``Idempotency-Key``, or a fresh one
    when the header is absent. ``step_action`` keeps it per door and per user (``action_key``)."""
    sent = (request.headers.get("Idempotency-Key") or "").strip()
    if not sent:
        return new_action_key()
    if len(sent) > IDEMPOTENCY_KEY_MAX:
        raise RuleError(
            f"The Idempotency-Key header is at most {IDEMPOTENCY_KEY_MAX} characters.",
            code="idempotency_key",
            fields={"Idempotency-Key": f"At most {IDEMPOTENCY_KEY_MAX} characters."},
        )
    return sent


def _canonical(data: Any) -> str:
    """The body as one text whatever its spacing and key order (JSON), or its fields sorted (a form)."""
    if hasattr(data, "lists"):  # a form's QueryDict: every value of every field
        data = {name: values for name, values in sorted(data.lists())}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def key_use(request: Request) -> KeyUse | None:
    """What the sent ``Idempotency-Key`` is bound to (``campaign.undo.KeyUse``): the method and
    address (the query's parameters sorted) and a SHA-256 of them with the canonical body. None
    without the header (a fresh key cannot be sent again)."""
    if not (request.headers.get("Idempotency-Key") or "").strip():
        return None
    query = urlencode(sorted(request.query_params.lists()), doseq=True)
    line = f"{request.method} {request.path}" + (f"?{query}" if query else "")
    digest = hashlib.sha256(f"{line}\n{_canonical(request.data)}".encode()).hexdigest()
    return KeyUse(request=line, fingerprint=digest)


def refuse_replay(request: Request, campaign: Campaign) -> None:
    """An ``Idempotency-Key`` already used answers before the body is judged against a campaign its
    first use has changed (the same request: 409; another: 422), as ``step_action`` would."""
    sent = (request.headers.get("Idempotency-Key") or "").strip()
    if sent and len(sent) <= IDEMPOTENCY_KEY_MAX:
        stored = action_key(sent, by=doors.acting_user(request), door="api")
        done = "That was already done (the same request was sent twice): nothing was done again."
        key_refuse(stored, campaign=campaign, use=key_use(request), done=done)


def run_action(request: Request, campaign: Campaign, label: str, action: Callable[[Campaign], T], *, seen: Seen = Seen.GM) -> T:
    """Run ``action`` (which calls the services with the locked campaign) as one step action: one
    transaction, the undo checkpoint of the step, the one-time key from ``Idempotency-Key``.
    The same key with the same request raises ``AlreadyDone`` (409), with another request
    ``KeyReused`` (422); a refused action leaves nothing behind."""
    return doors.run_action(
        request, campaign, label, action, key=idempotency_key(request), door="api", use=key_use(request), seen=seen
    )


class CampaignScoped(APIView):
    """The base of views under /campaigns/<slug>/: resolves the campaign once per request (404 for
    non-members) and keeps it as ``self.viewer``."""

    kwargs: dict[str, Any]
    _viewer: Viewer | None = None

    @property
    def viewer(self) -> Viewer:
        if self._viewer is None:
            campaign, role, dynasty = member(self.request, self.kwargs["slug"])
            self._viewer = Viewer(campaign, role, dynasty)
        return self._viewer

    @property
    def fake(self) -> bool:
        """True while drf-spectacular builds the schema (no real request, no campaign)."""
        return bool(getattr(self, "swagger_fake_view", False))


class CampaignReadViewSet(CampaignScoped, viewsets.ReadOnlyModelViewSet):  # type: ignore[type-arg]
    """List and detail of one kind of row of a campaign, as far as the caller may see them.

    Subclasses set ``queryset`` (the model's rows with their joins and prefetches),
    ``serializer_class``, ``filterset_class`` and ``api_tag``; override ``scope`` when the rows
    are not plain ``visible`` ones."""

    api_tag: ClassVar[str] = ""
    lookup_value_regex = r"\d+"

    def scope(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        v = self.viewer
        return visible(self.request.user, v.campaign, queryset)

    def get_queryset(self) -> QuerySet[Any]:
        queryset: QuerySet[Any] = super().get_queryset()
        if self.fake:
            return queryset.none()
        return self.scope(queryset)

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if not self.fake and "slug" in self.kwargs:
            context["viewer"] = self.viewer
        return context


def visible_or_404(request: Request, campaign: Campaign, queryset: QuerySet[Any], **lookup: Any) -> Model:
    """The one row of ``queryset`` matching ``lookup`` that the caller may see (through
    ``campaign.permissions.visible``), else 404: what an action endpoint acts on."""
    obj = visible(request.user, campaign, queryset).filter(**lookup).first()
    if obj is None:
        raise Http404("No such object, or not yours to see.")
    return obj  # type: ignore[no-any-return]
