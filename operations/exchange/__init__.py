"""Campaign export and import: one JSON document per campaign (docs/export-format.md).

The format is declared once, in ``spec.py``: a section per model, a field per key, with its kind,
bounds, references, the version it appeared in and the default an older document takes. It drives
the export (``export.py``), the import's reading and checking (``read.py``, with the special
cases in ``checks.py``) and writing (``write.py``), and the documentation's table (``doc.py``).
Export -> import -> export gives the same document apart from the campaign slug. Documents of
the previous formats, ``regnal/2`` and ``regnal/1``, are still read.
"""

from operations.exchange.export import campaign_export, campaign_export_for
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
from operations.exchange.write import campaign_import
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
    "campaign_export_for",
    "campaign_import",
    "parse_document",
]
