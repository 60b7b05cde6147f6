"""Issue 14: under the Content-Security-Policy (no inline script or style) the pages still work in
Chromium, and the browser reports no violation: the dynasty page's tree and its script, the new
campaign form's seat rules (a <style> with the request's nonce), the Swagger UI, the admin."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from dynasties.models import Character, Dynasty
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TREE_LOADED = (
    "() => { const o = document.querySelector('object.tree');"
    " return o && o.contentDocument && o.contentDocument.querySelectorAll('g.node').length > 0; }"
)


def watch(page: Page) -> list[str]:
    """Chromium writes every blocked script, style or load to the console; and a script's errors."""
    seen: list[str] = []

    def note(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            seen.append(f"{page.url}: {message.text}")

    page.on("console", note)
    page.on("pageerror", lambda error: seen.append(f"{page.url}: script error: {error}"))
    return seen


def test_the_pages_work_under_the_policy_without_a_violation(browser: Browser, live_server, campaign):
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    get_user_model().objects.create_superuser("root", password="root-password-1")

    context = browser.new_context()
    try:
        page = context.new_page()
        violations = watch(page)
        log_in(page, live_server.url, "gm", "gm-password-1")

        # the dynasty page: the tree (an <object>) loads, and its script (a file) runs without error
        # (tests/browser/test_pages_polish.py checks what it does on a wide tree)
        with page.expect_response(lambda r: r.url.endswith("/regnal-tree.js")) as script:
            page.goto(f"{live_server.url}/c/{campaign.slug}/dynasty/{england.pk}/")
        assert script.value.status == 200
        page.wait_for_function(TREE_LOADED)
        assert page.locator("svg.swatch rect").first.get_attribute("fill") == england.color

        # the new campaign form: its seat rules are a <style> with the nonce, and they apply
        page.goto(f"{live_server.url}/campaigns/new/")
        expect(page.get_by_label("Italy", exact=True)).to_be_visible()
        expect(page.get_by_label("Sweden", exact=True)).to_be_hidden()

        # the Swagger UI: the bundle, its start-up script (/api/docs/?script=) and the schema
        page.goto(f"{live_server.url}/api/docs/")
        expect(page.locator(".opblock").first).to_be_visible(timeout=20_000)

        log_in(page, live_server.url, "root", "root-password-1")
        # the admin: a change list whose "select all" box is the admin's own script
        page.goto(f"{live_server.url}/admin/dynasties/character/")
        page.locator("#action-toggle").check()
        assert page.locator("input.action-select:checked").count() == page.locator("input.action-select").count() > 0
        character = Character.objects.filter(campaign=campaign).first()
        page.goto(f"{live_server.url}/admin/dynasties/character/{character.pk}/change/")
        expect(page.locator("#character_form")).to_be_visible()

        assert not violations, violations
    finally:
        context.close()
