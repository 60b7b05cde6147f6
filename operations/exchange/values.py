"""The document's values: reading the file, the limits any value is held to, and ``Item``, the
typed reads of one object that refuse with the field's path (docs/export-format.md, "Limits")."""

from __future__ import annotations

import builtins
import gzip
import io
import json
import math
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, overload

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from rules.errors import InvalidImport

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
# What any value of the document may be, wherever it is: every number within 64 bits, every string
# at most MAX_TEXT characters, nesting at most MAX_DEPTH deep. Fields stored in database columns
# are held to their column's range and length besides.
WHOLE_MIN, WHOLE_MAX = -(2**63), 2**63 - 1
MAX_TEXT = 100_000
MAX_DEPTH = 32
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
# Integer columns' ranges, the same on every database (SQLite itself would store anything).
COLUMN_RANGES = BaseDatabaseOperations.integer_field_ranges

MISSING = object()


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def short(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut short: a refusal quotes the value, never a whole hostile one."""
    if is_int(value) and abs(value) >= 10**limit:
        return f"a number of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def got(value: Any) -> str:
    return "null" if value is None else f"{kind_of(value)} ({short(value)})"


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_document(raw: str | bytes) -> Any:
    """The JSON value in an export file's contents (UTF-8 text, or gzip-compressed UTF-8 text),
    for ``campaign_import``. What is not a readable JSON document is an ``InvalidImport`` saying why."""
    if isinstance(raw, bytes):
        if raw[:2] == b"\x1f\x8b":
            try:
                with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
                    raw = stream.read(MAX_DOCUMENT_BYTES + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise InvalidImport(f"The file looks compressed (gzip) but cannot be read: {exc}.") from None
        if len(raw) > MAX_DOCUMENT_BYTES:
            raise InvalidImport(f"The document is larger than {MAX_DOCUMENT_BYTES // 2**20} MB: it is not an export.")
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidImport(f"The file is not UTF-8 text (byte {exc.start}: {exc.reason}).") from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise InvalidImport(f"The document is larger than {MAX_DOCUMENT_BYTES // 2**20} MB: it is not an export.")
    try:
        return json.loads(raw.removeprefix("\ufeff"), parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InvalidImport(f"The file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from None
    except RecursionError:
        raise InvalidImport(f"The file is not an export: its values are nested more than {MAX_DEPTH} deep.") from None
    except ValueError as exc:  # NaN or Infinity, or a number too long for Python to read
        text = str(exc)
        raise InvalidImport(f"The file is not valid JSON: {text if len(text) < 120 else text[:117] + '...'}.") from None


def path_of(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "the document"


def check_values(data: Any) -> None:
    """Refuse, wherever it is, a value that is not plain JSON or breaks the document's limits: a
    number beyond 64 bits, a decimal that is not finite, a string too long or holding a NUL or a
    lone surrogate (no database stores them), nesting deeper than ``MAX_DEPTH``. This covers the
    free-form objects (a crown's state, a chronicle entry's data, a clause's terms) that are copied
    as they are; the fields with columns of their own are checked against them besides."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, where = stack.pop()

        def fail(problem: str, where: tuple[str | int, ...] = where) -> InvalidImport:
            path = path_of(where)
            return InvalidImport(f"{path}: {problem}", fields={path: problem})

        if value is None or isinstance(value, bool):
            continue
        if isinstance(value, int):
            if not WHOLE_MIN <= value <= WHOLE_MAX:
                raise fail(f"{short(value)} is beyond the 64-bit range of numbers an export may hold")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise fail(f"{value} is not a number an export may hold")
        elif isinstance(value, str):
            check_text(value, fail)
        elif isinstance(value, dict | list):
            if len(where) >= MAX_DEPTH:
                raise fail(f"values are nested more than {MAX_DEPTH} deep")
            if isinstance(value, list):
                stack.extend((item, (*where, i)) for i, item in enumerate(value))
                continue
            for key, item in value.items():
                if not isinstance(key, str):
                    raise fail(f"the key {short(key)} is not a string")

                def fail_key(problem: str, key: str = key) -> InvalidImport:
                    return fail(f"the key {short(key)} {problem}")

                check_text(key, fail_key)
                stack.append((item, (*where, key)))
        else:
            raise fail(f"{type(value).__name__} is not a JSON value")


def check_text(text: str, fail: Callable[[str], InvalidImport]) -> None:
    if len(text) > MAX_TEXT:
        raise fail(f"is {len(text)} characters long; at most {MAX_TEXT} are allowed")
    if "\x00" in text:
        raise fail("holds a NUL character, which no database stores")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise fail("holds a lone surrogate (half of a character), which is not text") from None


class Item:
    """One object of the document: typed field reads that refuse with the field's path."""

    def __init__(self, obj: Mapping[str, Any], path: str, model: type[models.Model] | None = None) -> None:
        self.obj = obj
        self.path = path
        self.model = model

    def fail(self, key: str, problem: str) -> InvalidImport:
        return InvalidImport(f"{self.path}.{key}: {problem}", fields={f"{self.path}.{key}": problem})

    def get(self, key: str, default: Any = MISSING) -> Any:
        if key in self.obj:
            return self.obj[key]
        if default is MISSING:
            raise self.fail(key, "missing")
        return default

    @overload
    def int(
        self,
        key: builtins.str,
        *,
        null: Literal[False] = False,
        low: builtins.int = INT_MIN,
        high: builtins.int = INT_MAX,
        default: Any = MISSING,
    ) -> builtins.int: ...
    @overload
    def int(
        self,
        key: builtins.str,
        *,
        null: builtins.bool,
        low: builtins.int = INT_MIN,
        high: builtins.int = INT_MAX,
        default: Any = MISSING,
    ) -> builtins.int | None: ...
    def int(
        self,
        key: builtins.str,
        *,
        null: builtins.bool = False,
        low: builtins.int = INT_MIN,
        high: builtins.int = INT_MAX,
        default: Any = MISSING,
    ) -> builtins.int | None:
        value = self.get(key, default)
        if value is None and null:
            return None
        if not is_int(value):
            raise self.fail(key, f"must be a whole number{' or null' if null else ''}, got {got(value)}")
        column = self._range(key)
        if column is not None:  # never wider than the database column holding it
            low, high = max(low, column[0]), min(high, column[1])
        if not low <= value <= high:
            raise self.fail(key, f"{short(value)} is outside {low}..{high}")
        return value

    def str(self, key: builtins.str, *, blank: builtins.bool = True, default: Any = MISSING) -> builtins.str:
        value = self.get(key, default)
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {got(value)}")
        if not blank and not value.strip():
            raise self.fail(key, "must not be empty")
        max_length = self._max_length(key)
        if max_length is not None and len(value) > max_length:
            raise self.fail(key, f"is {len(value)} characters long; at most {max_length} are allowed")
        return value

    def choice(self, key: builtins.str, choices: Iterable[builtins.str], *, default: Any = MISSING) -> builtins.str:
        allowed = list(choices)
        value = self.get(key, default)
        if not isinstance(value, str) or value not in allowed:
            raise self.fail(key, f"{short(value)} is not one of {', '.join(repr(c) for c in allowed)}")
        return value

    def bool(self, key: builtins.str, *, default: Any = MISSING) -> builtins.bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {got(value)}")
        return value

    def object(self, key: builtins.str, *, default: Any = MISSING) -> dict[builtins.str, Any]:
        value = self.get(key, default)
        if not isinstance(value, dict):
            raise self.fail(key, f"must be an object, got {kind_of(value)}")
        return value

    def list(self, key: builtins.str) -> builtins.list[Any]:
        value = self.get(key)
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list, got {kind_of(value)}")
        return value

    def ref(
        self,
        key: builtins.str,
        ids: Mapping[builtins.int, Any],
        what: builtins.str,
        *,
        null: builtins.bool = True,
        default: Any = MISSING,
    ) -> builtins.int | None:
        value = self.int(key, null=null, default=default)
        if value is not None and value not in ids:
            raise self.fail(key, f"no {what} with id {value}")
        return value

    def _field(self, key: builtins.str) -> models.Field[Any, Any] | models.ForeignObjectRel | None:
        if self.model is None:
            return None
        try:
            return self.model._meta.get_field(key)
        except FieldDoesNotExist:  # a document key that is not a model field has no column of its own
            return None

    def _max_length(self, key: builtins.str) -> builtins.int | None:
        field = self._field(key)  # a reverse relation has no length
        return field.max_length if isinstance(field, models.Field) else None

    def _range(self, key: builtins.str) -> tuple[builtins.int, builtins.int] | None:
        field = self._field(key)
        if field is None or field.is_relation:
            return None
        return COLUMN_RANGES.get(field.get_internal_type())


@dataclass
class Reading:
    """What reading a document has found so far: its format, each section's export ids (id ->
    index in the section) and checked rows, and what the checks across rows have seen."""

    data: Mapping[str, Any]
    old: bool  # a regnal/1 document
    current: bool  # a document of the current format
    refs_version: int = 1
    ids: dict[str, dict[int, int]] = field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    seen: defaultdict[str, dict[Any, int]] = field(default_factory=lambda: defaultdict(dict))

    def row(self, section: str, export_id: int) -> dict[str, Any]:
        """The checked row of ``section`` with that export id."""
        return self.rows[section][self.ids[section][export_id]]

    def first(self, what: str, key: Any, i: int) -> int | None:
        """The index of the row that had ``key`` first (None: this one, ``i``, is the first)."""
        other = self.seen[what].setdefault(key, i)
        return None if other == i else other
