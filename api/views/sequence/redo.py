"""The GM's redo of the last undo."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.common import idempotency_key, key_use
from api.schema import IDEMPOTENCY_KEY
from api.views.actions import ActionView
from api.views.sequence.turn import checkpoint_made, checkpoint_result
from campaign.undo import redo

RedoMadeSerializer = checkpoint_made(
    "redone", "The change set written again (back in force: it can be undone again).", "RedoResult"
)


class RedoView(ActionView):
    @extend_schema(
        request=None,
        responses=RedoMadeSerializer,
        parameters=[IDEMPOTENCY_KEY],
        summary="The GM writes again what the last undo took back (the same rolls); 409 nothing_to_redo once "
        "anything else was written since",
    )
    def post(self, request: Request, slug: str) -> Response:
        key, use = idempotency_key(request), key_use(request)
        point = redo(campaign=self.viewer.campaign, key=key, by=request.user, door="api", use=use)
        return checkpoint_result(self, "redone", point, RedoMadeSerializer)  # redo is the GM's: the service asks the policy
