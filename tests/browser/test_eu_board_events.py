"""Issue 32 in Chromium: the GM records France's event III-11 (its successors' column moves) and crowns
Poland's Sobieski on the throne Báthory's death left vacant, from the crown page's links, on a laptop."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from dynasties.models import Crown, Reign, Status
from tests.browser.helpers import log_in
from tests.browser.test_events_crowns import DESKTOP
from tests.test_eu_crowns import build_europa

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_changes_a_countrys_rules_and_crowns_a_historical_monarch(browser: Browser, live_server, gm, alice, bob):
    europa = build_europa(gm, alice, bob)
    reign = Reign.objects.get(campaign=europa, crown="Poland", end_year__isnull=True)
    reign.holder.status, reign.holder.death_year = Status.DEAD, europa.current_year
    reign.holder.save()
    reign.end_year = europa.current_year
    reign.save()  # Báthory died at the table: Poland's throne is vacant
    base = f"{live_server.url}/c/{europa.slug}"
    page = browser.new_page(viewport=DESKTOP)
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{base}/crown/France/")
        page.get_by_role("link", name="A country's rules changed by the board").click()
        expect(page.get_by_label("Crown")).to_have_value("France")
        page.get_by_label("What changed").select_option("event")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("France's rules as the board now has them")
        assert Crown.objects.get(campaign=europa, name="France").state["base_column_event_passed"] is True

        page.goto(f"{base}/crown/Poland/")
        page.get_by_role("link", name="A historical monarch crowned").click()
        expect(page.locator("#id_crown option:checked")).to_contain_text("vacant")
        page.get_by_label("Who").select_option("historical")
        page.get_by_label("The historical monarch").select_option("Sobieski")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("reigns in Poland")
    finally:
        page.close()
    king = Reign.objects.get(campaign=europa, crown="Poland", end_year__isnull=True).holder
    assert king.dynastic_name == "Sobieski" and king.characteristics["mil"] == 9
