"""The QR code tag draws the link's own code (segno), sized by its version, labelled for a screen reader."""

import re

import segno

from pages.templatetags.qr import qr_svg


def test_the_qr_code_is_the_links_own() -> None:
    link = "http://192.168.1.5:8000/join/abc123"
    html = str(qr_svg(link, 3))
    side = segno.make(link, error="m", micro=False).symbol_size(scale=3, border=4)[0]
    assert f'width="{side}"' in html and f'height="{side}"' in html
    assert f'aria-label="QR code: {link}"' in html
    assert re.search(r"<path [^>]*d=\"M", html), "the dark modules are drawn"
    other = str(qr_svg(link + "x", 3))
    assert other != html, "another link draws another code"


def test_no_link_draws_nothing() -> None:
    assert str(qr_svg("")) == ""
