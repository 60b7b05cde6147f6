"""The live table in Chromium (issue 19), with two server processes: the GM plays on pytest-django's
live server (process 1), the players' pages are served by a gunicorn started here on the same test
database (process 2, two workers). What the GM does shows on the players' open pages - the
dashboard, Survival, the table screen - without a reload (the window is the same one: no
navigation), and a payment a player may not see never reaches his page, nor moves his poll, while
its payee's shows it.
The latency from the GM's click to the player's page rebuilt is printed (docs/architecture.md).

Also the table screen's screenshot for the README (``REGNAL_SCREENSHOTS=docs/screenshots``)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from playwright.sync_api import Browser, Page, expect

from campaign import dice as server_dice
from campaign import live
from campaign.models import Campaign, Step
from dynasties.models import Dynasty, Seat
from dynasties.treasury import treasury_transfer
from operations.services import campaign_start
from rules.dice import RandomSource
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT_MS = 5_000  # long enough for a loaded machine; the latency printed is the figure
TABLE_SCREEN = {"width": 1280, "height": 720}
MAX_README_SHOT = 250_000  # bytes


class SeededSource(RandomSource):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1303 if seed is None else seed)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _database_url() -> str:
    db = connection.settings_dict
    assert db["ENGINE"].endswith("postgresql"), "the live table's browser test runs on PostgreSQL (scripts/pg-test.sh)"
    user, password = quote(db["USER"] or "", safe=""), quote(db["PASSWORD"] or "", safe="")
    return f"postgres://{user}:{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{quote(db['NAME'], safe='')}"


@pytest.fixture
def second_server() -> Iterator[str]:
    """A gunicorn (two workers) on the test database: another process, nothing shared but the database."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "REGNAL_DEV": "1",
        "DEBUG": "0",
    }
    gunicorn = Path(settings.BASE_DIR) / ".venv" / "bin" / "gunicorn"
    server = subprocess.Popen(
        [str(gunicorn), "config.wsgi", "-b", f"127.0.0.1:{port}", "--no-control-socket", "-w", "2", "--log-level", "warning"],
        cwd=settings.BASE_DIR,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "the second server did not start"
            try:
                with urllib.request.urlopen(f"{url}/login/", timeout=10) as answer:  # noqa: S310 (our own server)
                    if answer.status == 200:
                        break
            except OSError:  # not listening yet, or still loading Django
                pass
            assert time.monotonic() < deadline, "the second server did not answer within 60 s"
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


WATCH = """() => {
  window.__sameWindow = true;
  window.__rebuilt = [];
  document.addEventListener("regnal:live", () => window.__rebuilt.push(Date.now()));
}"""


def watch(page: Page) -> None:
    """Mark the window (a reload would lose the mark) and note when regnal-live.js rebuilds the page."""
    expect(page.locator("main[data-live]")).to_have_count(1)
    page.evaluate(WATCH)


def rebuilt_after(page: Page, clicked_ms: float, label: str, answered_ms: float | None = None) -> float:
    """Wait until the page was rebuilt after ``clicked_ms``; print and return the latency (ms) from
    the click (and from the GM's answer, when the action went through his page: the write was
    committed before it)."""
    page.wait_for_function("t => window.__rebuilt.some(at => at >= t)", arg=clicked_ms, timeout=WAIT_MS)
    at = page.evaluate("t => window.__rebuilt.find(at => at >= t)", clicked_ms)
    assert page.evaluate("window.__sameWindow") is True, f"{label}: the page was reloaded"
    latency = at - clicked_ms
    answer = f" ({at - answered_ms:.0f} ms from the GM's answer)" if answered_ms is not None else ""
    print(f"live table: {label}: {latency:.0f} ms from the action to the page rebuilt on the other server{answer}")
    return float(latency)


def now_ms() -> float:
    return time.time() * 1000


def gm_clicks(page: Page, button: str) -> tuple[float, float]:
    """The GM clicks ``button`` (a form POSTed): when he clicked and when his answer began (epoch ms)."""
    clicked = now_ms()
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.get_by_role("button", name=button).click()
    timing = posted.value.request.timing
    return clicked, float(timing["startTime"] + timing["responseStart"])


def version(campaign: Campaign, user: Any) -> int:
    """The version ``user``'s poll answers: the writes he may see (None: the public writes, which
    the table screen follows whoever opened it)."""
    if user is None:
        return int(Campaign.objects.get(pk=campaign.pk).live_seen.get("public", 0))
    count = live.viewer_version(user, campaign)
    assert count is not None
    return count


def shows_version(page: Page, campaign: Campaign, user: Any) -> None:
    expect(page.locator("main[data-live]")).to_have_attribute("data-version", str(version(campaign, user)), timeout=WAIT_MS)


def test_the_players_pages_follow_the_gm_on_another_server(
    browser: Browser, live_server: Any, second_server: str, gm, alice, bob, monkeypatch, tmp_path, capsys
):
    monkeypatch.setattr(server_dice, "RandomSource", SeededSource)
    campaign = campaign_start(
        name="The Live Table", gm=gm, players=5, seats={"England": alice, "France": bob}, prehistory_turns=2, seed=3
    )
    assert campaign.step == Step.BIRTHS
    one, two = f"{live_server.url}/c/{campaign.slug}", f"{second_server}/c/{campaign.slug}"
    latencies: list[float] = []

    gm_context = browser.new_context(viewport={"width": 1280, "height": 900})
    alice_context = browser.new_context(viewport=TABLE_SCREEN)
    bob_context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        gm_page = gm_context.new_page()
        log_in(gm_page, live_server.url, "gm", "gm-password-1")
        dashboard = alice_context.new_page()
        log_in(dashboard, second_server, "alice", "alice-password-1")
        dashboard.goto(f"{two}/")
        watch(dashboard)
        expect(dashboard.locator("main")).to_contain_text("step: Births")

        # Births: the GM rolls every couple on the server, then finishes the step
        gm_page.goto(f"{one}/turn/births/")
        clicked, answered = gm_clicks(gm_page, "Roll all remaining")
        latencies.append(rebuilt_after(dashboard, clicked, "dashboard, births rolled", answered))
        shows_version(dashboard, campaign, alice)
        clicked, answered = gm_clicks(gm_page, "Finish Births")
        expect(dashboard.locator("main")).to_contain_text("step: Survival", timeout=WAIT_MS)
        latencies.append(rebuilt_after(dashboard, clicked, "dashboard, Births finished", answered))

        # Survival: Alice watches the step and the table screen, the GM rolls everyone
        survival = alice_context.new_page()
        survival.goto(f"{two}/turn/survival/")
        watch(survival)
        table = alice_context.new_page()
        table.goto(f"{two}/table/")
        watch(table)
        expect(table.locator("h1.ts-step")).to_have_text("Survival")
        to_roll = table.locator(".ts-row .ts-odds").count()
        assert to_roll > 0 and table.locator(".ts-row .ts-good, .ts-row .ts-bad").count() == 0
        gm_page.goto(f"{one}/turn/survival/")
        clicked, answered = gm_clicks(gm_page, "Roll all remaining")
        latencies.append(rebuilt_after(survival, clicked, "Survival, everyone rolled", answered))
        latencies.append(rebuilt_after(table, clicked, "table screen, everyone rolled", answered))
        expect(survival.locator("tr .faces").first).to_be_visible()
        assert survival.locator("tr .faces").count() == survival.locator("table.survival tbody tr").count()
        expect(table.locator(".ts-row .ts-good, .ts-row .ts-bad")).to_have_count(min(to_roll, 16), timeout=WAIT_MS)
        assert table.locator(".ts-row .ts-odds").count() == 0

        # A payment Alice may not see: her pages do not even move (her poll does not tell her that
        # something happened); Bob's (the payee's) shows it
        france = Dynasty.objects.get(campaign=campaign, crown="France")
        exchequer = bob_context.new_page()
        log_in(exchequer, second_server, "bob", "bob-password-1")
        exchequer.goto(f"{two}/treasury/{france.pk}/")
        watch(exchequer)
        hers = version(campaign, alice)
        clicked = now_ms()
        treasury_transfer(campaign=campaign, payer=None, payee=france, amount=4321, reason="A secret subsidy", by=gm)
        latencies.append(rebuilt_after(exchequer, clicked, "the payee's exchequer, a payment"))
        expect(exchequer.locator("main")).to_contain_text("A secret subsidy")
        shows_version(exchequer, campaign, bob)
        dashboard.wait_for_timeout(4 * 700)  # four polls of each of her pages
        assert version(campaign, alice) == hers
        for page, whose in ((dashboard, alice), (survival, alice), (table, None)):
            assert page.evaluate("t => window.__rebuilt.filter(at => at >= t).length", clicked) == 0, "moved on a secret"
            shows_version(page, campaign, whose)
            text = page.locator("main").inner_text()
            assert "secret subsidy" not in text.lower() and "4321" not in text and "4,321" not in text

        # A form being filled in is not swept away: a banner offers the new state instead
        amount = exchequer.locator("main input[name=amount]").first
        amount.fill("12")
        treasury_transfer(campaign=campaign, payer=None, payee=france, amount=5, reason="A second subsidy", by=gm)
        banner = exchequer.locator("#live-banner")
        expect(banner).to_contain_text("The table has moved on", timeout=WAIT_MS)
        assert amount.input_value() == "12" and "A second subsidy" not in exchequer.locator("main").inner_text()
        clicked = now_ms()
        banner.get_by_role("button", name="Show").click()
        rebuilt_after(exchequer, clicked, "the banner's Show")
        expect(exchequer.locator("main")).to_contain_text("A second subsidy")
        expect(banner).to_have_count(0)

        # The table screen fits a projector's 1280x720 and a TV's 1920x1080 without scrolling
        folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "table-screen.png"
        table.screenshot(path=str(path), full_page=False)
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) < MAX_README_SHOT, len(data)
        for size in (TABLE_SCREEN, {"width": 1920, "height": 1080}):
            table.set_viewport_size(size)
            height, width = table.evaluate(
                "[document.documentElement.scrollHeight - innerHeight, document.documentElement.scrollWidth - innerWidth]"
            )
            assert height <= 0 and width <= 0, (size, height, width)
    finally:
        for context in (gm_context, alice_context, bob_context):
            context.close()
    with capsys.disabled():
        print(f"\nlive table latencies (ms): {', '.join(f'{x:.0f}' for x in latencies)}; worst {max(latencies):.0f} ms")


def test_a_poll_that_brings_the_pages_own_write_does_not_rebuild_it(browser: Browser, live_server: Any, gm, alice, bob):
    """A poll asked just before the GM's own write may come back after it, with the version his page
    already shows (its htmx answer brought it): that is not news. Rebuilding the page then would wipe
    the answer's messages ("attempt 1: ... a child!", "The child is named ...") the moment they show.
    The live endpoint is made to answer every poll that way; the page must stay as its write drew it."""
    campaign = campaign_start(name="Own Write", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        log_in(page, live_server.url, "gm", "gm-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/turn/births/")
        watch(page)
        polls: list[str] = []
        current = [version(campaign, gm)]  # the campaign's version as the live endpoint will tell him

        def answer_with_the_current_version(route: Any) -> None:  # no database here: Playwright's callback
            polls.append(route.request.url)
            route.fulfill(status=200, content_type="application/json", body=f'{{"version": {current[0]}}}')

        page.route(f"**/c/{campaign.slug}/live/**", answer_with_the_current_version)
        with page.expect_response(lambda r: r.request.method == "POST"):
            page.get_by_role("button", name=re.compile("Roll all remaining")).click()
        current[0] = version(campaign, gm)
        message = page.locator("#step ul.messages")
        expect(message).to_be_visible()
        shows_version(page, campaign, gm)
        seen = len(polls)
        deadline = time.monotonic() + 15
        while len(polls) < seen + 3 and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert len(polls) >= seen + 3, "the page stopped polling"
        assert page.evaluate("window.__rebuilt.length") == 0, "the page was rebuilt for its own write"
        expect(message).to_be_visible()
        assert page.evaluate("window.__sameWindow") is True
    finally:
        context.close()


def test_a_page_follows_its_member_to_another_house(browser: Browser, live_server: Any, gm, alice, bob):
    """A member's version counts what he sees, so when his seat moves to another house it may go
    down: a lower version than the page's, poll after poll, is news (a single one is not: it is a
    poll that crossed the page's own write). His open dashboard is drawn again for his new house."""
    campaign = campaign_start(name="Seat Moved", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    england = Dynasty.objects.get(campaign=campaign, crown="England")
    for n in range(3):  # England's own money: Alice's count runs ahead of the other houses'
        treasury_transfer(campaign=campaign, payer=None, payee=england, amount=1, reason=f"Alms {n}", by=gm)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/")
        watch(page)
        shows_version(page, campaign, alice)
        was = version(campaign, alice)
        other = Dynasty.objects.filter(campaign=campaign, kind="player").exclude(crown__in=["England", "France"]).first()
        assert other is not None
        moved = now_ms()
        Seat.objects.filter(membership__campaign=campaign, membership__user=alice).update(house=other)  # behind the page's back
        assert version(campaign, alice) < was
        rebuilt_after(page, moved, "a page whose member moved to another house")
        shows_version(page, campaign, alice)
    finally:
        context.close()


def test_a_page_stops_polling_when_the_poll_says_so(browser: Browser, live_server: Any, gm, alice, bob):
    """htmx's answer for "stop polling", 286: the page asks no more (its poll is htmx's ``every``
    trigger, pages.templatetags.live). The live endpoint is made to answer the first poll so."""
    campaign = campaign_start(name="Stop Polling", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        polls: list[str] = []

        def stop(route: Any) -> None:
            polls.append(route.request.url)
            route.fulfill(status=286, body="")

        page.route(f"**/c/{campaign.slug}/live/**", stop)
        page.goto(f"{live_server.url}/c/{campaign.slug}/")
        watch(page)
        deadline = time.monotonic() + 10
        while not polls and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert len(polls) == 1, "the page did not poll"
        page.wait_for_timeout(5 * 700)  # five periods
        assert len(polls) == 1, f"the page polled {len(polls) - 1} more times after the 286"
        assert page.evaluate("window.__rebuilt.length") == 0 and page.evaluate("window.__sameWindow") is True
    finally:
        context.close()


KEEP = """() => {
  const field = document.activeElement;
  field.__kept = true;
  return field.name;
}"""


def test_the_cursor_stays_in_its_field_while_the_page_is_drawn_again(browser: Browser, live_server: Any, gm, alice, bob):
    """A field that only has the cursor (nothing typed: nothing to keep from the table) keeps it, and
    is the same field (the page's <main> is morphed into, not replaced: idiomorph), while the page
    shows what the table did."""
    campaign = campaign_start(name="Cursor Kept", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    france = Dynasty.objects.get(campaign=campaign, crown="France")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        log_in(page, live_server.url, "bob", "bob-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/treasury/{france.pk}/")
        watch(page)
        amount = page.locator("main input[name=amount]").first
        amount.focus()
        assert page.evaluate(KEEP) == "amount"
        clicked = now_ms()
        treasury_transfer(campaign=campaign, payer=None, payee=france, amount=77, reason="A gift while he looks", by=gm)
        rebuilt_after(page, clicked, "a page with the cursor in a field")
        expect(page.locator("main")).to_contain_text("A gift while he looks")
        shows_version(page, campaign, bob)
        assert page.evaluate("() => document.activeElement.name") == "amount", "the cursor left its field"
        assert page.evaluate("() => document.activeElement.__kept === true"), "the field was replaced, not morphed"
        expect(page.locator("#live-banner")).to_have_count(0)
    finally:
        context.close()


def test_a_poll_refused_with_debug_on_leaves_the_page_in_place(browser: Browser, live_server: Any, gm, alice, bob, settings):
    """With DEBUG on (``make run``), django-htmx's script puts any 404 or 500 an htmx request gets in
    place of the whole document. The poll is htmx's now: its refusal (a member no more, a campaign
    gone) must leave the page as it is, and the poll reads it as an answer (not a lost connection)."""
    settings.DEBUG = True
    campaign = campaign_start(name="Debug Poll", gm=gm, players=5, seats={"England": alice, "France": bob}, seed=3)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        log_in(page, live_server.url, "alice", "alice-password-1")
        page.goto(f"{live_server.url}/c/{campaign.slug}/")
        watch(page)
        expect(page.locator("script[src*=django-htmx]")).to_have_count(1)  # the debug script is there
        polls: list[str] = []

        def refuse(route: Any) -> None:
            polls.append(route.request.url)
            route.fulfill(status=404, content_type="text/html", body="<html><body><h1>Page not found (404)</h1></body></html>")

        page.route(f"**/c/{campaign.slug}/live/**", refuse)
        deadline = time.monotonic() + 10
        while len(polls) < 3 and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert len(polls) >= 3
        expect(page.locator("main[data-live]")).to_contain_text("step: Births")
        assert "Page not found" not in page.content()
        expect(page.get_by_role("status").filter(has_text="Connection")).to_have_count(0)
        assert page.evaluate("window.__sameWindow") is True
    finally:
        context.close()
