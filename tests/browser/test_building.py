"""A campaign whose set-up was lost, in Chromium (issue 30): its GM finds it marked on his list of
campaigns and on its page, retries it to completion, and deletes another. Screenshots (1280x800,
390x844) go to ``REGNAL_SCREENSHOTS`` when it is set (``docs/screenshots``), else to a temporary
directory."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import Page, expect

from campaign.models import Campaign, Job, JobKind, JobState, Setup
from operations.services import campaign_start
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "gm-browser-password-1"


def test_the_gm_retries_one_lost_set_up_and_deletes_another(page: Page, live_server, settings, tmp_path):
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}  # queued: no worker comes
    gm = get_user_model().objects.create_user("gm", password=PASSWORD)
    for name in ("Old World", "Lost Cause"):
        campaign_start(name=name, gm=gm, players=3, prehistory_turns=2, seed=5)
    Job.objects.filter(kind=JobKind.PREHISTORY).update(
        state=JobState.RUNNING, touched_at=timezone.now() - datetime.timedelta(hours=1)
    )  # their worker died
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    folder = Path(os.environ.get("REGNAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)

    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, live_server.url, "gm", PASSWORD)
    page.goto(f"{live_server.url}/")
    expect(page.locator("main")).to_contain_text("its set-up was lost")
    page.screenshot(path=str(folder / "setup-lost-list.png"), full_page=True)

    page.goto(f"{live_server.url}/c/old-world/")
    status = page.get_by_role("status")
    expect(status).to_contain_text("Its set-up was lost: Its worker stopped")
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(folder / "setup-lost-phone.png"), full_page=False)
    page.set_viewport_size({"width": 1280, "height": 800})
    status.get_by_role("button", name="Retry").click()
    expect(page.locator("ul.messages")).to_contain_text("Old World is set up again and open for play")
    expect(page.get_by_role("status")).to_have_count(0)
    assert Campaign.objects.get(slug="old-world").setup == Setup.READY

    page.goto(f"{live_server.url}/c/lost-cause/")
    page.get_by_role("status").get_by_text("Delete…").click()
    page.get_by_role("button", name="Delete Lost Cause").click()
    expect(page.locator("ul.messages")).to_contain_text("Lost Cause is deleted")
    expect(page.locator("table.campaigns")).not_to_contain_text("Lost Cause")
    assert not Campaign.objects.filter(slug="lost-cause").exists()
