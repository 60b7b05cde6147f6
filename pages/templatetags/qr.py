"""A QR code for a link, drawn as inline SVG (segno): a phone across the table scans it."""

from __future__ import annotations

import io

import segno
from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# A link of a few hundred characters at most is ever drawn (an address, an invitation link); segno
# refuses more than a QR code holds, and the tag says so instead of drawing nothing.
MAX_LINK = 1000


def qr_svg_markup(link: str, *, scale: int = 4, title: str = "", fit: bool = False) -> str:
    """The SVG of ``link``'s QR code (error correction M, a quiet zone of 4 modules). ``fit``: a
    viewBox and no width or height, so that the page's CSS sizes it (the table screen's)."""
    code = segno.make(link[:MAX_LINK], error="m", micro=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=scale,
        border=4,
        xmldecl=False,
        svgns=True,
        omitsize=fit,
        title=title or None,
        svgclass="qr",
        lineclass=None,
        dark="#000",
        light="#fff",
    )
    return out.getvalue().decode()


@register.simple_tag
def qr_svg(link: str, scale: int = 4, title: str = "", fit: bool = False) -> SafeString:
    """``{% qr_svg url %}``: the link's QR code inline, with the link spelled out for a screen reader."""
    if not link:
        return mark_safe("")
    svg = qr_svg_markup(str(link), scale=scale, title=title or f"QR code for {link}", fit=fit)
    return format_html('<figure class="qr" role="img" aria-label="{}">{}</figure>', f"QR code: {link}", mark_safe(svg))  # noqa: S308 - segno's own SVG
