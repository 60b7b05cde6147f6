"""Campaign export and import: one JSON document per campaign (docs/export-format.md).

The format is declared once, in ``spec.py``: a section per model, a field per key, with its kind,
bounds, references, the version it appeared in and the default an older document takes. It drives
the export (``export.py``) and the documentation's table (``doc.py``); the import is still the
hand-written one in ``legacy.py``.
Export -> import -> export gives the same document apart from the campaign slug. Documents of
the previous formats, ``regnal/2`` and ``regnal/1``, are still read.
"""

from operations.exchange.export import campaign_export
from operations.exchange.legacy import campaign_import
from operations.exchange.spec import (
    CAMPAIGN_FIELDS_LATER,
    FIELDS_LATER,
    FORMAT,
    FORMAT_V1,
    FORMAT_V2,
    FORMATS,
    SECTIONS,
    SECTIONS_LATER,
    SECTIONS_V2,
)
from operations.exchange.values import MAX_DEPTH, MAX_DOCUMENT_BYTES, MAX_TEXT, parse_document
from rules.errors import InvalidImport

__all__ = [
    "CAMPAIGN_FIELDS_LATER",
    "FIELDS_LATER",
    "FORMAT",
    "FORMATS",
    "FORMAT_V1",
    "FORMAT_V2",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_TEXT",
    "SECTIONS",
    "SECTIONS_LATER",
    "SECTIONS_V2",
    "InvalidImport",
    "campaign_export",
    "campaign_import",
    "parse_document",
]
