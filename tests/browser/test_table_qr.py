"""The table screen's QR code in Chromium (issue 34, "Hosting game night from a laptop": "prints the
address and a QR code to open it, and the table screen shows that QR code"): on a TV (1920x1080) and
a projector (1280x720) the code of the address ``make lan`` serves (``REGNAL_SITE_URL``) is drawn
whole, square, in the header's corner beside the step (not over it), with the address spelled out;
on a phone, where nobody scans his own screen, it is not shown. Prints its size on each screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SITE = "http://192.168.1.20:8000"
SCREENS = {"TV": (1920, 1080), "projector": (1280, 720)}


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_the_table_screen_draws_the_site_address_as_a_whole_qr_code(
    browser: Browser, live_server, campaign, alice, settings
) -> None:
    settings.REGNAL_SITE_URL = SITE
    link = f"{SITE}/c/{campaign.slug}/"
    sizes = []
    for name, (width, height) in SCREENS.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/table/")
        code = page.get_by_role("img", name=f"QR code: {link}")
        expect(code).to_be_visible()
        expect(page.locator(".ts-qr-text")).to_contain_text(link)
        svg = code.locator("svg")
        assert svg.get_attribute("viewBox")  # scaled by the CSS, never cut
        box = svg.bounding_box()
        assert box is not None
        assert abs(box["width"] - box["height"]) < 1
        assert box["width"] >= 0.13 * height  # a code a phone reads from across the table
        assert box["x"] >= 0 and box["y"] >= 0
        assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height
        for line in (".ts-campaign", ".ts-step", ".ts-waits"):  # the header's words, not their blocks
            words = page.locator(line).evaluate(
                "e => { const r = document.createRange(); r.selectNodeContents(e); const b = r.getBoundingClientRect();"
                " return {x: b.x, y: b.y, width: b.width, height: b.height}; }"
            )
            assert not _overlap(box, words), line
        sizes.append(f"{box['width']:.0f} px on the {name} ({width}x{height})")
        context.close()
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    page = phone.new_page()
    log_in(page, live_server.url, "alice", "alice-password-1")
    page.goto(f"{live_server.url}/c/{campaign.slug}/table/")
    expect(page.locator(".ts-qr")).to_be_hidden()
    phone.close()
    print("table screen QR code of the LAN address: " + ", ".join(sizes))
