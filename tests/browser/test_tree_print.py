"""Issue 34: "Tree PDFs on paper: A4 or A3 (and Letter), landscape or portrait, scaled to fit,
chosen on the tree page." A player chooses the sheet on his house's page and gets one sheet of it,
the tree on it (poppler reads it back; the sheet turned into a PNG shows the tree's names)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from PIL import Image
from playwright.sync_api import Browser, expect

from dynasties.models import Dynasty
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_player_prints_his_house_tree_on_the_sheet_he_chose(browser: Browser, live_server, gm, alice, bob, tmp_path):
    game = campaign_start(name="Paper", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    england = Dynasty.objects.get(campaign=game, crown="England")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{game.slug}/dynasty/{england.pk}/")
        form = page.get_by_role("form", name="Print the family tree")
        form.get_by_label("Paper").select_option("a3")
        form.get_by_label("Orientation").select_option("portrait")
        button = form.get_by_role("button", name=re.compile("^Print the tree"))
        expect(button).to_be_visible()
        with page.expect_response(lambda r: "format=pdf" in r.url) as answer:
            button.click()
        assert answer.value.status == 200 and answer.value.headers["content-type"] == "application/pdf"
        asked = answer.value.url
        path = tmp_path / "tree.pdf"
        path.write_bytes(context.request.get(asked).body())  # the same address, as the browser asked it
    finally:
        context.close()
    assert "paper=a3" in asked and "orientation=portrait" in asked and "format=pdf" in asked
    info = subprocess.run([shutil.which("pdfinfo") or "pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    print(f"The house's tree printed from its page: {' '.join(re.search(r'Page size:.*', info).group(0).split())}")
    assert re.search(r"^Pages:\s+1$", info, re.M)
    assert re.search(r"^Page size:\s+841.89 x 1190.55 pts \(A3\)$", info, re.M)
    # on paper: the sheet as an image has the tree drawn on it (ink in its middle, the margin blank)
    pdftoppm = shutil.which("pdftoppm") or "pdftoppm"
    subprocess.run([pdftoppm, "-png", "-r", "30", "-singlefile", str(path), str(tmp_path / "tree")], check=True)
    with Image.open(tmp_path / "tree.png") as sheet:
        grey = sheet.convert("L")
        w, h = grey.size
        assert abs(w - 841.89 / 72 * 30) < 1.5 and abs(h - 1190.55 / 72 * 30) < 1.5  # 30 dpi of A3 portrait
        inked = sum(grey.histogram()[:200])  # pixels darker than light grey
        edge = [grey.getpixel((x, 2)) for x in range(w)] + [grey.getpixel((2, y)) for y in range(h)]
    assert inked > 200 and min(edge) > 240, (inked, min(edge))
