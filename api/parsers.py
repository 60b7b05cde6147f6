"""The API's JSON parsers: every body that is not JSON the API can read is a 400 ``parse_error``
(docs/api.md, "Errors"), never a 500.

- ``JSONParser`` (the default for every endpoint): the body is held to Django's
  ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MB; over it, 413 ``too_large`` from ``api.exceptions``),
  must be UTF-8 JSON without ``NaN``/``Infinity``, and may nest arrays and objects at most
  ``MAX_DEPTH`` deep. Deeper input would otherwise exhaust Python's recursion limit somewhere
  (the decoder at about 1,000 levels, or any code walking the data) and answer an HTML 500.
- ``ImportJSONParser`` (``POST campaigns/import/`` only): the same, but its own limit,
  ``settings.REGNAL_IMPORT_MAX_BYTES`` (50 MB unless set), since an export of a long campaign is
  larger than 2.5 MB. It reads the stream itself: REST framework's own JSON parser goes through
  ``request.body``, which applies Django's limit first."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import IO, Any

from django.conf import settings
from rest_framework import exceptions, parsers, status

MAX_DEPTH = 64
"""Arrays and objects nest at most this deep in a request body (an export needs 32 at most)."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text``, a valid JSON document (brackets inside strings
    do not count). Linear in the text's length, and none of it recursive."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def load_json(raw: bytes, encoding: str = "utf-8") -> Any:
    """The JSON value in ``raw``, or a ``ParseError`` (400 ``parse_error``) saying what to fix."""
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding.lower().replace("_", "-") in {"utf-8", "utf8"} else encoding
        raise exceptions.ParseError(
            f"The body is not {name} text (byte {exc.start}: {exc.reason}): send JSON encoded as {name}."
        ) from None
    try:
        data = json.loads(text.removeprefix("\ufeff"), parse_constant=_refuse_constant)  # a byte-order mark is allowed
    except json.JSONDecodeError as exc:
        raise exceptions.ParseError(f"The body is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from None
    except RecursionError:
        raise exceptions.ParseError(_too_deep()) from None
    except ValueError as exc:  # NaN or Infinity, or a number too long for Python to read
        text_of = str(exc)
        raise exceptions.ParseError(
            f"The body is not valid JSON: {text_of if len(text_of) < 120 else text_of[:117] + '...'}."
        ) from None
    if nesting_depth(text) > MAX_DEPTH:
        raise exceptions.ParseError(_too_deep())
    return data


def _too_deep() -> str:
    return f"The body nests arrays and objects more than {MAX_DEPTH} deep: the API reads at most {MAX_DEPTH} levels."


def _encoding(parser_context: Mapping[str, Any] | None) -> str:
    encoding: str = parsers.get_encoding(dict(parser_context or {}))  # type: ignore[attr-defined]  # DRF's, untyped in its stubs
    return encoding  # a text encoding, or a ParseError


class JSONParser(parsers.JSONParser):
    """REST framework's JSON parser with the nesting bound and plain messages (the default)."""

    def parse(self, stream: IO[bytes], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        encoding = _encoding(parser_context)
        return load_json(stream.read(), encoding)


class ImportJSONParser(parsers.BaseParser):
    """JSON up to ``settings.REGNAL_IMPORT_MAX_BYTES`` (the import's body: a whole campaign).

    Not a subclass of REST framework's ``JSONParser`` on purpose: for those, the request hands over
    ``request.body``, capped by Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``; this one gets the stream
    and reads at most one byte past its own limit."""

    media_type = "application/json"

    def parse(self, stream: IO[bytes], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        encoding = _encoding(parser_context)
        limit: int = settings.REGNAL_IMPORT_MAX_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > limit:
            raise import_too_large(limit)
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise import_too_large(limit)
        return load_json(raw, encoding)


def import_too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"The document is larger than the {limit:,} bytes ({limit / 2**20:.1f} MB) an import may be: "
        "the server's REGNAL_IMPORT_MAX_BYTES sets this limit (docs/deployment.md)."
    )
