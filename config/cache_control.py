"""Nothing the site draws is stored by a browser or a proxy unless its view says so: one middleware
gives every answer ``Cache-Control: private, no-store`` (pages, prints, trees, GEDCOM, the export,
the API, the error pages), so a new page about a campaign cannot forget it.

- An answer that already says both keeps its words (the admin's ``never_cache``); one that says
  ``no-store`` alone (the live poll) is made ``private, no-store`` too.
- An answer whose view chose its own *private* caching keeps it: a portrait is kept a day in the
  member's own browser (``pages/notes.py``: a new image has a new address). ``public`` is never
  kept, nor is an answer that says nothing.
- Static files never get here: WhiteNoise (before this middleware) answers them itself, with
  fingerprinted names cached for a year.

The middleware sits right after WhiteNoise in ``MIDDLEWARE``, so it sees every other answer last,
those of the other middleware (a CSRF failure, a login lock-out) included."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

PRIVATE_NO_STORE = "private, no-store"


def _directives(value: str) -> set[str]:
    return {part.split("=", 1)[0].strip().lower() for part in value.split(",") if part.strip()}


def cache_control(existing: str | None) -> str:
    """The ``Cache-Control`` an answer leaves with, given what its view set (None: nothing)."""
    said = _directives(existing or "")
    if existing and "private" in said and "public" not in said:  # private caching, or never stored at all
        return existing
    return PRIVATE_NO_STORE


class PrivateNoStoreMiddleware:
    """``Cache-Control: private, no-store`` on every answer but those whose view chose private
    caching or never storing (:func:`cache_control`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        response["Cache-Control"] = cache_control(response.get("Cache-Control"))
        return response
