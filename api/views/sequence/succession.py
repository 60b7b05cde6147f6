"""The succession: a crown's line, "what if X dies", and the crown's player's pass-over choice."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.filters import INT_MAX
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, CharacterRefSerializer, IdField, act, ref
from api.views.sequence.common import require_crown
from api.views.sequence.lines import LINE_LIMIT, LINE_LIMIT_MAX, LineSerializer, line_data
from dynasties.models import Character
from dynasties.services.sequence_view import SUCCESSION_LINE_LIMIT
from dynasties.services.succession_choices import pass_over_choose
from dynasties.services.succession_view import succession_line, succession_what_if

# --- the succession: the line, what if, passing over ---------------------------------------------


LIMIT_PARAM = OpenApiParameter(
    "limit", OpenApiTypes.INT, description=f"How many heirs to show: {LINE_LIMIT} unless asked, at most {LINE_LIMIT_MAX}."
)


class LineQuery(serializers.Serializer[Any]):
    year = serializers.IntegerField(required=False, min_value=-INT_MAX, max_value=INT_MAX)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=LINE_LIMIT_MAX, default=LINE_LIMIT)
    dies = serializers.ListField(child=IdField(), required=False, max_length=50)


class SuccessionView(ActionView):
    api_tag = "succession"

    @extend_schema(
        responses=LineSerializer,
        parameters=[
            OpenApiParameter("year", OpenApiTypes.INT, description="The line as it stood that year (default: now)."),
            LIMIT_PARAM,
        ],
        summary="The line of succession of a crown, with the reasons and what passing each heir over would cost",
    )
    def get(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        query = LineQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        line = succession_line(campaign=v.campaign, crown=crown, limit=q["limit"], year=q.get("year"))
        context = self.out_context()
        return Response(LineSerializer(line_data(context, line), context=context).data)


class WhatIfView(ActionView):
    api_tag = "succession"

    @extend_schema(
        responses=LineSerializer,
        parameters=[
            OpenApiParameter(
                "dies",
                OpenApiTypes.INT,
                many=True,
                explode=True,
                description="A character taken as dead now (repeat it: ?dies=12&dies=15). Nothing is written.",
            ),
            LIMIT_PARAM,
        ],
        summary="What if these characters died now: the line, who would succeed, the regent, a relative created",
    )
    def get(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        query = LineQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        line = succession_what_if(campaign=v.campaign, crown=crown, dies=q.get("dies", []), limit=q["limit"])
        context = self.out_context()
        return Response(LineSerializer(line_data(context, line), context=context).data)


class PassOverIn(serializers.Serializer[Any]):
    heirs = serializers.ListField(
        child=IdField(),
        max_length=SUCCESSION_LINE_LIMIT * 4,
        allow_empty=True,
        help_text=f"The heirs to pass over, among the first {SUCCESSION_LINE_LIMIT} of the line ([]: nobody).",
    )

    class Meta:
        ref_name = "PassOverRequest"


class PassOverMadeSerializer(serializers.Serializer[Any]):
    crown = serializers.CharField()
    passed_over = CharacterRefSerializer(many=True, help_text="Recorded: applied when the GM finishes Survival.")

    class Meta:
        ref_name = "PassOverResult"


class PassOverView(ActionView):
    api_tag = "succession"

    @extend_schema(
        request=PassOverIn,
        responses=PassOverMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The crown's player (or the GM) records which heirs of the dead monarch to pass over",
    )
    def post(self, request: Request, slug: str, crown: str) -> Response:
        v = self.viewer
        require_crown(v.campaign, crown)  # who decides it: the service asks the policy
        data = PassOverIn(data=request.data)
        data.is_valid(raise_exception=True)
        heirs = data.validated_data["heirs"]
        chosen, _ = act(
            request,
            v.campaign,
            f"Succession of {crown}: heirs passed over",
            lambda c: pass_over_choose(campaign=c, crown=crown, heirs=heirs, limit=SUCCESSION_LINE_LIMIT, by=request.user),
        )
        people = Character.objects.in_bulk(chosen)
        context = self.out_context()
        body = {"crown": crown, "passed_over": [ref(context, people[pk]) for pk in chosen if pk in people]}
        return Response(PassOverMadeSerializer(body, context=context).data)
