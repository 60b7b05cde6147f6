"""The field table of docs/export-format.md, generated from the spec (``spec.py``).

``manage.py shell -c "from operations.exchange import doc; doc.write()"`` rewrites the table
between the markers in the document;
``tests/test_exchange_spec.py`` checks the document holds what the spec generates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import FieldDoesNotExist

from operations.exchange import special
from operations.exchange.spec import (
    FORMAT,
    FORMAT_V1,
    FORMAT_V2,
    LATER,
    REQUIRED,
    SPEC,
    V2,
    V3,
    Field,
    Position,
    Section,
)
from operations.exchange.special import singular

DOC = Path(__file__).resolve().parents[2] / "docs" / "export-format.md"
BEGIN = "<!-- sections: generated from operations/exchange/spec.py by `operations.exchange.doc.write()` -->"
END = "<!-- end of the generated sections -->"
HEADER = (
    ("format", f'`"{FORMAT}"` (`"{FORMAT_V2}"` and `"{FORMAT_V1}"` are read too)'),
    (
        "clause_refs",
        f"`{special.CLAUSE_REFS_VERSION}`: the houses under a clause's `by` and `between` are export ids (optional, "
        "`1`: an older document, whose `by` and `between` held database ids; they are left out on import)",
    ),
)


def _code(value: Any) -> str:
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _default(value: Any) -> str:
    if isinstance(value, Position):
        return f"its position in the list, from {value.start}"
    if isinstance(value, special.Default):
        return value.doc
    return _code(value)


def _max_length(section: Section | None, f: Field) -> int | None:
    if section is None:
        return None
    try:
        return getattr(section.model._meta.get_field(f.source), "max_length", None)
    except FieldDoesNotExist:
        return None


def _kind(f: Field, section: Section | None) -> str:
    if f.kind == "ref":
        return f"{singular(f.ref)} id{' or null' if f.null else ''}"
    if f.kind == "refs":
        return f"list of {singular(f.ref)} ids"
    if f.kind == "objects":
        assert f.rows is not None
        return "list of `{" + ", ".join(c.key for c in f.rows.fields) + "}`"
    if f.kind == "choice":
        return "/".join(_code(c) if c == "" else f"`{c}`" for c in f.choices)
    if f.kind == "int":
        return _whole(f)
    if f.kind == "text":
        length = _max_length(section, f)
        return "text" + ("" if f.blank else ", not empty") + (f", at most {length} characters" if length else "")
    return {"bool": "true/false", "object": "object", "json": "JSON"}[f.kind]


def _whole(f: Field) -> str:
    out = "whole number"
    if f.low is not None and f.high is not None:
        out += f" {f.low}..{f.high}"
    elif f.low is not None:
        out += f" ≥ {f.low}"
    return out + (" or null" if f.null else "")


def _since(version: str) -> str:
    return {V2: f"since `{V2}`", LATER: f"added to `{V2}` later", V3: f"since `{V3}`"}.get(version, "")


def describe(f: Field, section: Section | None = None) -> str:
    """One field: its key, then what it holds, its note, its default and when it appeared."""
    parts = [_kind(f, section), f.note]
    if f.rows is not None and not f.rows.flat:
        parts += [f"`{c.key}`: {describe_inner(c)}" for c in f.rows.fields if c.note or c.kind == "choice"]
    if f.default is not REQUIRED:
        where = f"in `{FORMAT_V1}`" if f.since == V2 else "optional"
        parts.append(f"{where}: {_default(f.default)}")
    parts.append(_since(f.since))
    return f"`{f.key}` ({'; '.join(p for p in parts if p)})"


def describe_inner(f: Field) -> str:
    return "; ".join(p for p in (_kind(f, None), f.note) if p)


def row(section: Section) -> str:
    fields = ", ".join(describe(f, section) for f in section.fields)
    head = [section.note] if section.note else []
    if section.since == V2 and not section.note:
        head.append(f"not in `{FORMAT_V1}` (empty there)")
    elif section.since in (LATER, V3):
        head.append(f"optional section (empty); {_since(section.since)}")
    return f"| `{section.name}` | {'; '.join(head) + ': ' if head else ''}{fields} |"


def table() -> str:
    lines = ["| Key | Content |", "|-----|---------|"]
    lines += [f"| `{key}` | {content} |" for key, content in HEADER]
    lines += [row(s) for s in SPEC]
    return "\n".join([BEGIN, "", *lines, "", END])


def generated(text: str) -> str:
    """The document's text with the generated table in place of the one between the markers."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + table() + text[end:]


def write() -> None:
    """Rewrite the generated table of docs/export-format.md from the spec."""
    DOC.write_text(generated(DOC.read_text(encoding="utf-8")), encoding="utf-8")
