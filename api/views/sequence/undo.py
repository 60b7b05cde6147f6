"""The GM's undo of a step or a turn, and its preview (what it would throw away)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import idempotency_key, key_use
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView, UndoPlansSerializer
from api.views.sequence.turn import checkpoint_made, checkpoint_result, plans_data
from campaign.undo import undo_preview, undo_step, undo_turn

# --- undo ----------------------------------------------------------------------------------------


class UndoIn(serializers.Serializer[Any]):
    which = serializers.ChoiceField(
        choices=[("step", "The step"), ("turn", "The turn")],
        help_text="step: back to the start of the step last worked on; turn: back to the start of its Births.",
    )

    class Meta:
        ref_name = "UndoRequest"


UndoMadeSerializer = checkpoint_made("restored", "The checkpoint put back (kept for redo).", "UndoResult")


class UndoView(ActionView):
    @extend_schema(
        responses=UndoPlansSerializer,
        summary="The GM's undo preview: what an undo of the step, of the turn, and a redo would do (the losses counted)",
    )
    def get(self, request: Request, slug: str) -> Response:
        plans = undo_preview(self.viewer.campaign, by=request.user)  # the GM's: the service asks the policy
        return Response(UndoPlansSerializer(plans_data(plans)).data)

    @extend_schema(
        request=UndoIn,
        responses=UndoMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM puts back the start of the last step (or turn) played; 409 when there is nothing to undo",
    )
    def post(self, request: Request, slug: str) -> Response:
        data = UndoIn(data=request.data)  # undo is the GM's: the service asks the policy
        data.is_valid(raise_exception=True)
        undo = undo_turn if data.validated_data["which"] == "turn" else undo_step
        restored = undo(
            campaign=self.viewer.campaign, key=idempotency_key(request), by=request.user, door="api", use=key_use(request)
        )
        return checkpoint_result(self, "restored", restored, UndoMadeSerializer)
