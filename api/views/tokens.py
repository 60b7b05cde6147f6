"""Your API tokens: list them, create one (its key is shown once, in the answer), revoke one.

Only a logged-in session creates tokens: a request authenticated by a token may list and revoke
but not mint, so revoking a leaked token cuts off everything it could reach."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api.authentication import ApiTokenAuthentication
from api.models import ApiToken
from api.services import token_create, token_revoke
from campaign.doors import signed_in


class TokenOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    active = serializers.BooleanField(help_text="False once revoked.")

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at", "active"]
        ref_name = "ApiToken"


class TokenCreatedOut(TokenOut):
    key = serializers.CharField(help_text="The key: shown this once, never again. Send it as 'Authorization: Token <key>'.")

    class Meta(TokenOut.Meta):
        fields = [*TokenOut.Meta.fields, "key"]
        ref_name = "ApiTokenCreated"


class TokenIn(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=80, help_text="What the token is for (a bot, a phone, a script).")

    class Meta:
        ref_name = "ApiTokenCreate"


NO_MINTING = (
    "A token cannot create tokens: log in (a session, at /login/) and create it there or at /account/tokens/. "
    "Revoking a token then cuts off everything it could reach."
)


def by_token(request: Request) -> bool:
    """Was the request authenticated by an API token (not a logged-in session)?"""
    return isinstance(request.successful_authenticator, ApiTokenAuthentication)


class TokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):  # type: ignore[type-arg]
    """Your own API tokens (never anyone else's)."""

    api_tag = "tokens"
    queryset = ApiToken.objects.all()
    serializer_class = TokenOut
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> QuerySet[ApiToken]:
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        return ApiToken.objects.filter(user=signed_in(self.request)).order_by("-created_at", "-pk")

    @extend_schema(
        request=TokenIn,
        responses={201: TokenCreatedOut},
        description=(
            "Logged in by session only: a request authenticated by a token is refused (403), so a token "
            "cannot mint tokens that outlive its revocation."
        ),
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if by_token(request):
            raise exceptions.PermissionDenied(NO_MINTING)
        data = TokenIn(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = token_create(user=request.user, name=data.validated_data["name"])
        token.key = key  # type: ignore[attr-defined]
        return Response(TokenCreatedOut(token).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=TokenOut)
    @action(detail=True, methods=["post"])
    def revoke(self, request: Request, pk: str) -> Response:
        """Revoke the token: any request sending it gets 401 from now on (revoking twice is harmless)."""
        token = token_revoke(user=request.user, token_id=int(pk))
        return Response(TokenOut(token).data)
