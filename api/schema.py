"""OpenAPI details drf-spectacular cannot guess: the error shape on every operation, the token
scheme, tags per resource, and the optional ``Idempotency-Key`` header of the action endpoints."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer[Any]):
    """Every error the API answers: a stable code, a message a player can act on, and the fields
    at fault (field path -> message; empty when the error is not about one field)."""

    code = serializers.CharField(help_text="Stable, for programs: invalid, not_found, step_order, already_done, ...")
    message = serializers.CharField(help_text="What went wrong and what to do about it.")
    fields = serializers.DictField(  # type: ignore[assignment]  # the body's "fields": declared, not Serializer.fields
        child=serializers.CharField(), help_text="Field path -> what is wrong with it."
    )

    class Meta:
        ref_name = "Error"


ERRORS = {
    "400": "Invalid input, or a rule of the game refuses it (see `code`).",
    "401": "Not logged in, or the token is unknown or revoked.",
    "403": "Logged in, but your role in the campaign does not allow this.",
    "404": "No such object, or you may not see it (outsiders see no campaign at all).",
    "409": "Already done: a step run twice or out of order, or the same Idempotency-Key sent again.",
    "422": "The Idempotency-Key was already used for another request (another address or body): send a new key.",
    "429": "Too many requests of this kind: the message and the Retry-After header say when to try again.",
}
SAFE = {"GET", "HEAD", "OPTIONS"}
WRITES_ONLY = {"409", "422"}

IDEMPOTENCY_KEY = OpenApiParameter(
    name="Idempotency-Key",
    type=OpenApiTypes.STR,
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "Up to 40 characters you choose per action (a UUID is fine). Sending the same key again with the "
        "same request answers 409 already_done and does nothing twice; with another address or body, 422 "
        "idempotency_key_reused (nothing is done). Without it, a fresh key is used for the request."
    ),
)


class AutoSchema(SpectacularAutoSchema):
    """Adds the shared ``Error`` response (400, 401, 403, 404, 429, and 409 and 422 on writes) to every operation
    that does not document its own, and tags operations by the view's ``api_tag``."""

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code, description in ERRORS.items():
            if code in WRITES_ONLY and self.method in SAFE:
                continue
            if code not in responses:
                responses[code] = self._get_response_for_code(  # type: ignore[no-untyped-call]
                    OpenApiResponse(ErrorSerializer, description=description), code, direction=direction
                )
        return responses

    def get_tags(self) -> list[str]:
        tag = getattr(self.view, "api_tag", None)
        return [tag] if tag else super().get_tags()


class ApiTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]  # drf-spectacular untyped
    target_class = "api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>`: create a key at /account/tokens/ or POST /api/v1/tokens/.",
        }
