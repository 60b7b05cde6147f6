"""The EU monarch tables between turns in Chromium (issue 32): the GM records a Polish monarch's military
skill with the dice typed at the table, then England's King taken at Calais and ransomed at the tables'
price, from the crown pages' links; the crown page of Spain, whose new King is a teenager in a Dynastic
Crisis, read on a laptop and a phone; the monarch card printed. The screenshots go to
``REGNAL_SCREENSHOTS`` when it is set (``docs/screenshots``: eu-crown, eu-crown-phone, eu-monarch-card),
else to a temporary directory."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from playwright.sync_api import Browser, expect

from dynasties.models import Crown, Dynasty, Reign
from dynasties.services.eu_monarchs import monarch_survival_roll
from tests.browser.helpers import log_in
from tests.browser.test_events_crowns import DESKTOP, PHONE, fits, folder_for, shot
from tests.test_eu_crowns import build_europa, next_turn, seat

PDFTOPPM = shutil.which("pdftoppm") or "/usr/bin/pdftoppm"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_records_a_military_skill_and_a_ransom_and_everyone_reads_the_crown(
    browser: Browser, live_server, gm, alice, bob, tmp_path
):
    folder = folder_for(tmp_path)
    europa = build_europa(gm, alice, bob)
    # Spain's history: its first King dies in 1497, the next in 1502, and a teenager follows in a Dynastic Crisis
    next_turn(europa)
    monarch_survival_roll(campaign=europa, crown="Spain", faces=[10], by=gm)
    seat(europa, "Spain", gm, adm=[7], dip=[9], mil=[6])
    next_turn(europa)
    monarch_survival_roll(campaign=europa, crown="Spain", faces=[10], by=gm)
    seat(europa, "Spain", gm, succession=[1], age=[8], adm=[10], dip=[8], mil=[9], reign=[6])
    base = f"{live_server.url}/c/{europa.slug}"
    laptop = browser.new_context(viewport=DESKTOP)
    page = laptop.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        # Poland's King as a leader, from Poland's page, the dice typed
        page.goto(f"{base}/crown/Poland/")
        page.get_by_role("link", name="A monarch's military skill").click()
        expect(page.get_by_label("Crown")).to_have_value("Poland")
        expect(page.locator("#id_crown option:checked")).to_contain_text("MIL 9: average 1 40%")
        for name, face in (("average", 8), ("manoeuvre", 9), ("fire", 1), ("shock", 7), ("siege", 10)):
            page.locator(f"#id_{name}-0").fill(str(face))
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("as a leader: manoeuvre 5, fire 1, shock 4, siege 3")
        # England's King taken at Calais by France, then ransomed at the tables' price
        henry = Reign.objects.get(campaign=europa, crown="England", end_year__isnull=True).holder
        page.goto(f"{base}/events/capture/")
        page.get_by_label(henry.display_name, exact=False).check()
        page.get_by_label("Taken by the house of").select_option(str(Dynasty.objects.get(campaign=europa, crown="France").pk))
        page.get_by_label("How").fill("at Calais")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("is prisoner of the house of")
        page.goto(f"{base}/crown/England/")
        expect(page.locator(".crown-eu")).to_contain_text("of the house of")
        page.get_by_role("link", name="A monarch ransomed").click()
        expect(page.locator("#id_crown")).to_have_value("England")  # filled in from the crown's page
        expect(page.locator("#id_crown option:checked")).to_contain_text("a major power: 200 ducats and -2 Stability")
        page.get_by_role("button", name="Record it").click()
        expect(page.locator("main")).to_contain_text("is ransomed and free")
        assert Crown.objects.get(campaign=europa, name="England").stability == -2
        # Spain's page as everyone reads it
        page.goto(f"{base}/crown/Spain/")
        values = page.locator("table.eu-values")
        expect(values.locator("tr.now")).to_have_text(re.compile(r"This turn\s*3\s*3\s*3"))  # 9 8 8 halved, a teenager
        expect(page.locator("#eu-why")).to_contain_text("halved in the first turn of a Dynastic Crisis")
        expect(page.locator("figure.eu-timeline svg title")).to_have_text("Spain: the reigns along the years")
        fits(page)
        page.evaluate("document.querySelector('.crown-monarch').scrollIntoView()")
        shot(page, folder, "eu-crown")
        one = page.request.get(f"{live_server.url}/print/campaign/{europa.slug}/crown/Spain/monarch-card.pdf")
        assert one.ok and one.headers["content-type"] == "application/pdf"
        card = page.request.get(f"{live_server.url}/print/campaign/{europa.slug}/monarch-cards.pdf")  # a page of four
        assert card.ok and card.headers["content-type"] == "application/pdf"
        pdf = tmp_path / "card.pdf"
        pdf.write_bytes(card.body())
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [PDFTOPPM, "-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile", str(pdf), str(folder / "eu-monarch-card")],
            check=True,
        )
    finally:
        laptop.close()
    phone = browser.new_context(viewport=PHONE)
    page = phone.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{base}/crown/Spain/")
        expect(page.locator("table.eu-values tr.rolled")).to_have_text(re.compile(r"As rolled\s*9\s*8\s*8"))
        fits(page)
        page.evaluate("document.querySelector('#eu-h').scrollIntoView()")
        shot(page, folder, "eu-crown-phone")
    finally:
        phone.close()
