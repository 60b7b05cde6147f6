"""What the browser tests share."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def log_in(page: Page, base_url: str, username: str, password: str) -> None:
    """Log in through the login page, as a person does, and wait until the header names the user."""
    page.goto(f"{base_url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("navigation", name="Account")).to_contain_text(username)
