"""The GM's redo of the last undo."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import idempotency_key
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, TurnSerializer
from api.views.sequence.turn import turn_data
from campaign.models import Step
from campaign.steps import STEP_LABELS
from campaign.undo import describe, redo


class RedoneSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    step = serializers.ChoiceField(choices=Step.choices)
    step_label = serializers.CharField()
    description = serializers.CharField(help_text="Where the undo had gone back to: 'the start of Births 1300'.")
    opened_by = serializers.CharField(help_text="The action (or desk save) that had opened the change set.")

    class Meta:
        ref_name = "Redone"


class RedoMadeSerializer(serializers.Serializer):
    redone = RedoneSerializer(help_text="The change set written again (back in force: it can be undone again).")
    turn = TurnSerializer()

    class Meta:
        ref_name = "RedoResult"


class RedoView(ActionView):
    @extend_schema(
        request=None,
        responses=RedoMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM writes again what the last undo took back (the same rolls); 409 nothing_to_redo once "
        "anything else was written since",
    )
    def post(self, request: Request, slug: str) -> Response:
        v = self.viewer  # redo is the GM's: the service asks the policy
        point = redo(campaign=v.campaign, key=idempotency_key(request), by=request.user, door="api")
        v.campaign.refresh_from_db()
        body = {
            "redone": {
                "year": point.year,
                "step": point.step,
                "step_label": STEP_LABELS[point.step],
                "description": describe(point),
                "opened_by": point.label,
            },
            "turn": turn_data(v.campaign, request.user),
        }
        return Response(RedoMadeSerializer(body, context=self.out_context()).data)
