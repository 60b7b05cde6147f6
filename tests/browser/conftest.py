"""Browser tests: Playwright driving Debian's Chromium against pytest-django's live server.

Playwright's own browser download does not work here, so the tests launch ``/usr/bin/chromium``
(installed by ``make setup``, see APT_PACKAGES in the Makefile).
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

# Playwright's sync API keeps an asyncio loop running in the test thread; Django would otherwise
# refuse the ORM calls the tests make there (SynchronousOnlyOperation).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real Chromium through Playwright against the live server")
    # Two workers, PostgreSQL, the live servers and Chromium share two cores: a page may take a few
    # seconds to answer. Assertions wait up to 15 s for what they expect (Playwright's default: 5 s).
    expect.set_options(timeout=15_000)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}
