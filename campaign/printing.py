"""The one print module: a printable is an ordinary Django template rendered to HTML, then to PDF by
WeasyPrint (fonts: DejaVu, installed with the Debian packages the Makefile lists)."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string


def render_pdf(template: str, context: dict[str, Any]) -> bytes:
    from weasyprint import HTML  # imported late: it loads Pango, which only printing needs

    html = render_to_string(template, context)
    pdf: bytes = HTML(string=html).write_pdf()
    return pdf
