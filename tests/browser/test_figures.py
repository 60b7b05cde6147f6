"""A leader's figure in battle on his page, in Chromium (issue 31): the GM on a laptop and England's
player on a phone read Prince Lionel's Strength term by term — his own, the Governor's +1, his wife's
Guile held to +2, his house's -1 for a usurped crown, +1 against the house holding a claim — and his
lasting modifiers. The screenshots go to ``REGNAL_SCREENSHOTS`` when it is set (``docs/screenshots``),
else to a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.helpers import log_in
from tests.test_figures import lionel, usurped  # noqa: F401  (the fixtures: England's usurper, Prince Lionel)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def test_the_figure_in_battle_on_a_laptop_and_a_phone(browser: Browser, live_server, campaign, lionel, tmp_path):  # noqa: F811
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    url = f"{live_server.url}/c/{campaign.slug}/character/{lionel.pk}/"
    for who, password, viewport, name in (
        ("gm", "gm-password-1", LAPTOP, "character-combat.png"),
        ("alice", "alice-password-1", PHONE, "character-combat-phone.png"),
    ):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        try:
            log_in(page, live_server.url, who, password)
            page.goto(url)
            block = page.locator(".combat")
            expect(block.locator(".combat-figure")).to_have_text("Strength +1")
            expect(block).to_contain_text("as Prince (piece 2)")
            expect(block).to_contain_text("= his own Strength +1, a Governor's bonus +1, his wife Elizabeth de Burgh's Guile 0")
            expect(block).to_contain_text("(+1 given; only 0 counts: the excess over ±2 is ignored)")
            expect(block).to_contain_text("his house usurps a crown")
            expect(block.locator(".combat-case")).to_contain_text("Against the house of Hapsburg: Strength +2")
            expect(page.locator("ul.modifiers li")).to_have_count(3)
            expect(page.locator("ul.modifiers")).to_contain_text("+1 Strength for him")
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, f"{who}: the page is wider than the screen"
            page.locator("#in-battle").evaluate("h => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 12)")
            page.screenshot(path=str(folder / name), full_page=False)
        finally:
            context.close()
