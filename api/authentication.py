"""``Authorization: Token <key>`` with the user's named API tokens; a revoked token is a 401."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from api.services import token_check

KEYWORD = "Token"


class ApiTokenAuthentication(BaseAuthentication):
    keyword = KEYWORD

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Send the header as 'Authorization: Token <key>'.", code="invalid_token")
        try:
            key = parts[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("The token is not valid.", code="invalid_token") from None
        token = token_check(key)
        if token is None:
            raise exceptions.AuthenticationFailed("The token is not valid.", code="invalid_token")
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("This token was revoked: create a new one.", code="token_revoked")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.", code="user_inactive")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
