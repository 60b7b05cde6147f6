"""One exception handler for the whole API: every error is ``{"code", "message", "fields"}``.

- ``RuleError`` and its subclasses, Django's ``Http404`` and ``PermissionDenied``: the answer every
  door gives them, ``campaign.doors.refusal`` (``StepOrderError`` and ``campaign.undo.AlreadyDone``
  are 409, ``NotFound`` 404, ``Forbidden`` 403, the rest 400);
- Django's and DRF's ``ValidationError`` are 400 ``invalid`` with one message per field;
- not logged in or a bad token 401, DRF's not allowed 403 and not found 404, and its other errors
  (405, 406, 415) keep their status;
- a rate limit reached (``api.throttles``) is 429 ``throttled``: the message says which limit and
  in how many seconds to try again, as ``Retry-After`` does;
- a body over Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is 413 ``too_large`` naming the limit (the
  import has its own, ``api.parsers``); a body Django refuses for other reasons (too many form
  fields or files) is 400 ``parse_error``.

``fields`` maps a field (``a.b`` for nested input, ``items.0.name`` for lists) to its message."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from api.throttles import REFUSED, Refusal, retry_after
from campaign.doors import refusal

NON_FIELD = {api_settings.NON_FIELD_ERRORS_KEY, "__all__"}


def error_body(code: str, message: str, fields: dict[str, str] | None = None) -> dict[str, Any]:
    return {"code": code, "message": message, "fields": dict(fields or {})}


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return " ".join(_text(v) for v in value.values())
    return str(value)


def _flatten(detail: Any, prefix: str = "") -> tuple[list[str], dict[str, str]]:
    """(messages for the whole input, {field path: message}) from a DRF error detail."""
    general: list[str] = []
    fields: dict[str, str] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key in NON_FIELD:
                inner_general, inner = _flatten(value, prefix)
                general.extend(inner_general)
                fields.update(inner)
                continue
            path = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value)):
                inner_general, inner = _flatten(value, path)
                if inner_general:
                    fields[path] = " ".join(inner_general)
                fields.update(inner)
            else:
                fields[path] = _text(value)
    elif isinstance(detail, list):
        if any(isinstance(v, (dict, list)) for v in detail):
            for index, value in enumerate(detail):
                if not value:
                    continue
                path = f"{prefix}.{index}" if prefix else str(index)
                inner_general, inner = _flatten(value, path)
                if inner_general:
                    fields[path] = " ".join(inner_general)
                fields.update(inner)
        else:
            general.extend(str(v) for v in detail)
    else:
        general.append(str(detail))
    return general, fields


def _validation_body(detail: Any) -> dict[str, Any]:
    general, fields = _flatten(detail)
    if general:
        message = " ".join(general)
    elif len(fields) == 1:
        ((field, text),) = fields.items()
        message = f"{field}: {text}"
    else:
        message = "Some fields are not valid: see fields."
    return error_body("invalid", message, fields)


def _code(exc: exceptions.APIException) -> str:
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else exc.default_code


def _too_large_message() -> str:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return (
        f"The body is larger than the {limit:,} bytes ({limit / 2**20:.1f} MB) an API request may be "
        "(DATA_UPLOAD_MAX_MEMORY_SIZE); only POST campaigns/import/ takes more (REGNAL_IMPORT_MAX_BYTES)."
    )


def _throttled(exc: exceptions.Throttled, context: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The 429: the limit that keeps the caller waiting longest, in words, and ``Retry-After``."""
    request = context.get("request")
    if request is not None:  # JSON even from the schema's YAML view and its HTML pages (open to anyone)
        request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
    refusals: list[Refusal] = getattr(request, REFUSED, [])
    if refusals:
        refusal = max(refusals, key=lambda r: r.wait)
        return error_body("throttled", refusal.message), {"Retry-After": str(retry_after(refusal.wait))}
    seconds = retry_after(getattr(exc, "wait", None))  # Throttled's wait: untyped in DRF's stubs
    message = f"Too many requests: try again in {seconds} second{'s' if seconds != 1 else ''}."
    return error_body("throttled", message), {"Retry-After": str(seconds)}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """REST framework's EXCEPTION_HANDLER. Returns None (a 500) only for unexpected errors."""
    headers: dict[str, str] = {}
    refused = refusal(exc)  # a domain error, a 404 or a 403: the answer every door gives (campaign.doors)
    if refused is not None:
        body, code = error_body(refused.code, refused.message, refused.fields), refused.status
    elif isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}
        body, code = _validation_body(detail), status.HTTP_400_BAD_REQUEST
    elif isinstance(exc, exceptions.ValidationError):
        body, code = _validation_body(exc.detail), exc.status_code
    elif isinstance(exc, RequestDataTooBig | TooManyFieldsSent | TooManyFilesSent):  # Django reading the body
        logging.getLogger(f"django.security.{exc.__class__.__name__}").warning("%s", exc)  # as Django logs them
        if isinstance(exc, RequestDataTooBig):
            body, code = error_body("too_large", _too_large_message()), status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
        else:
            body, code = error_body("parse_error", f"The body cannot be read: {exc}"), status.HTTP_400_BAD_REQUEST
    elif isinstance(exc, exceptions.Throttled):
        (body, headers), code = _throttled(exc, context), status.HTTP_429_TOO_MANY_REQUESTS
    elif isinstance(exc, exceptions.APIException):
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
        body, code = error_body(_code(exc), _text(exc.detail)), exc.status_code
    else:
        return None
    set_rollback()
    return Response(body, status=code, headers=headers)


@csrf_exempt  # it writes nothing; a POST to a wrong address must get this 404, not the CSRF page
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any address under /api/ that is not an endpoint: a 404 in the same shape."""
    return JsonResponse(error_body("not_found", "No such endpoint."), status=404)
