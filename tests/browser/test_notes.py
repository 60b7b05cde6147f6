"""Notes and a portrait in Chromium (issue 20): the GM uploads a king's portrait and writes his
notes from the character page; England's player reads the public and player notes, never the GM's,
and writes his own. The screenshot goes to ``REGNAL_SCREENSHOTS`` when it is set
(``docs/screenshots``), else to a temporary directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from playwright.sync_api import Browser, expect

from dynasties.models import Dynasty, Note, Portrait, Reign
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def arms(path: Path) -> Path:
    """A made-up painted portrait: a crowned head on a red field (1200x1500, resized on upload)."""
    image = Image.new("RGB", (1200, 1500), "#7a1f2b")
    draw = ImageDraw.Draw(image)
    draw.rectangle((60, 60, 1140, 1440), outline="#d4af37", width=30)
    draw.ellipse((400, 420, 800, 900), fill="#e8c39e")
    draw.polygon([(400, 430), (450, 250), (520, 380), (600, 220), (680, 380), (750, 250), (800, 430)], fill="#d4af37")
    draw.rectangle((330, 900, 870, 1400), fill="#1f3a6b")
    image.save(path, "JPEG", quality=90)
    return path


def test_the_gm_writes_notes_and_a_player_reads_his_own(browser: Browser, live_server, gm, alice, tmp_path):
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    demo = campaign_start(name="The Hundred Years", gm=gm, players=5, seats={"England": alice}, prehistory_turns=2, seed=1)
    england = Dynasty.objects.get(campaign=demo, crown="England")
    king = Reign.objects.get(campaign=demo, crown="England", end_year__isnull=True).holder
    url = f"{live_server.url}/c/{demo.slug}/character/{king.pk}/"

    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(url)
        expect(page.locator(".status-line")).to_contain_text("Reigning King of England since")
        page.get_by_text("Add the portrait").click()
        page.get_by_label("An image").set_input_files(str(arms(tmp_path / "king.jpg")))
        page.get_by_role("button", name="Upload").click()
        expect(page.get_by_text("The portrait is saved.")).to_be_visible()
        portrait = page.locator("figure.portrait img")
        expect(portrait).to_be_visible()
        # decode(): once the image has come (visible is not loaded); 1200x1500 kept at 400 pixels high
        assert portrait.evaluate("img => img.decode().then(() => img.naturalWidth)") == 320
        for audience, text in (
            ("public", "Crowned at Westminster; *beloved* of the commons."),
            ("player", "- Marry the heir to **Castile**\n- Keep Calais"),
            ("gm", "The dowager plots: she will <script>alert(1)</script>poison him at Christmas."),
        ):
            note = page.locator(f".note-{audience}")
            note.get_by_text("Write this note").click()
            note.locator("textarea").fill(text)
            note.get_by_role("button", name="Save the note").click()
            expect(page.get_by_text("The note is saved.")).to_be_visible()
        expect(page.locator(".note-gm .note-text")).to_contain_text("poison him at Christmas")
        expect(page.locator(".note-player .note-text strong")).to_have_text("Castile")
        page.goto(url)  # without the message; the status line, the portrait and the three notes in view
        page.locator(".status-line").evaluate("p => window.scrollTo(0, p.getBoundingClientRect().top + window.scrollY - 12)")
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / "character-notes.png"), full_page=False)
        page.screenshot(path=str(tmp_path / "character-notes-full.png"), full_page=True)
    finally:
        context.close()
    assert Note.objects.filter(character=king).count() == 3 and Portrait.objects.filter(character=king).exists()

    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(url)
        main = page.locator("main")
        expect(main).to_contain_text("beloved")
        expect(main).to_contain_text("Keep Calais")
        expect(main).not_to_contain_text("poison")
        expect(page.locator(".note-gm")).to_have_count(0)
        expect(page.locator("figure.portrait img")).to_be_visible()
        page.goto(f"{live_server.url}/c/{demo.slug}/dynasty/{england.pk}/")
        note = page.locator(".note-player")
        note.get_by_text("Write this note").click()
        note.locator("textarea").fill("Our treasury is *low*.")
        note.get_by_role("button", name="Save the note").click()
        expect(page.locator(".note-player .note-text em")).to_have_text("low")
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll_width <= inner_width
    finally:
        context.close()
