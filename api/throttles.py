"""The API's rate limits: REST framework's throttles, counted in the site's cache.

- :class:`TableThrottle` counts every request of a user in the scope ``api`` (generous: a GM
  running a turn as fast as he clicks, players' phones polling, never meet it);
- :class:`CostThrottle` counts, in their own scope as well, the requests that cost: ``render``
  (trees, sheets, contract and announcement PDFs, GEDCOM, the export, a backup), ``import`` (a
  campaign import) and ``notes`` (a note written). A view names its scope in ``throttle_scope``
  (REST framework's convention).

A user is counted as one, whatever he comes with (his session and every token of his: making
tokens does not buy requests); a caller not logged in (the schema) by his address, the one the
outermost proxy saw (``NUM_PROXIES`` = ``PROXY_COUNT``). The rates are settings
(``REGNAL_API_RATES``, from ``REGNAL_RATE_*``), read at every request. Over a rate the request is
refused before the view runs: 429 ``throttled``, its message saying which limit and when to try
again, and ``Retry-After`` (``api.exceptions``).

The counts live in the cache ``default`` (``REGNAL_CACHE``): in production the database (or Redis),
so that every server and worker counts the same requests. Each count is a list of the times of the
scope's requests within its period (REST framework's sliding window); two requests of one user at
the same instant may both pass the last place, as the count is read and then written."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

SCOPES = {
    "api": "requests",
    "render": "renders of trees, sheets, PDFs, GEDCOM files and exports",
    "import": "campaign imports",
    "notes": "notes written",
}
"""Each scope, in the words the 429 uses."""

PERIODS = {1: "a second", 60: "a minute", 3600: "an hour", 86400: "a day"}


@dataclass(frozen=True)
class Refusal:
    """A limit a request went over, for the 429's message."""

    scope: str
    limit: int
    seconds: int
    wait: float

    @property
    def message(self) -> str:
        period = PERIODS.get(self.seconds, f"in {self.seconds} seconds")
        retry = retry_after(self.wait)
        return (
            f"Too many {SCOPES.get(self.scope, self.scope)}: at most {self.limit:,} {period} for each user. "
            f"Try again in {retry} second{'s' if retry != 1 else ''}."
        )


def retry_after(wait: float | None) -> int:
    """Whole seconds to wait, rounded up, at least 1 (the ``Retry-After`` header)."""
    return max(1, math.ceil(wait or 0))


REFUSED = "regnal_throttled"
"""The request's attribute listing the :class:`Refusal` s of its throttles (``api.exceptions``)."""


class _Counted(SimpleRateThrottle, ABC):
    """A throttle whose scope comes from :meth:`scope_for` and whose rate is read at each request."""

    def __init__(self) -> None:  # the scope, and so the rate, is known only with the view
        pass

    @abstractmethod
    def scope_for(self, view: Any) -> str | None:
        """The throttle's scope for this view (None: not counted)."""

    def get_rate(self) -> str:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if self.scope not in rates:
            raise ImproperlyConfigured(f"No rate for the API's throttle scope {self.scope!r}: add it to REGNAL_API_RATES.")
        return str(rates[self.scope])

    def allow_request(self, request: Request, view: Any) -> bool:
        self.scope = self.scope_for(view)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        allowed, duration = self.parse_rate(self.rate)
        assert allowed is not None and duration is not None  # get_rate gave a rate
        self.num_requests, self.duration = allowed, duration
        if super().allow_request(request, view):
            return True
        refusals = getattr(request, REFUSED, [])
        refusals.append(Refusal(self.scope, allowed, duration, self.wait() or float(duration)))
        setattr(request, REFUSED, refusals)
        return False

    def get_cache_key(self, request: Request, view: Any) -> str:
        user = request.user
        ident = f"user-{user.pk}" if user is not None and user.is_authenticated else f"address-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def wait(self) -> float | None:
        """Seconds until the request that must leave the window first has left it."""
        allowed, duration = self.num_requests, self.duration
        assert allowed is not None and duration is not None  # set by allow_request
        if len(self.history) < allowed:
            return None
        oldest_to_leave = float(self.history[allowed - 1])  # newest first: this one frees the last place
        return max(0.0, duration - (float(self.now) - oldest_to_leave))


class TableThrottle(_Counted):
    """Every request, in the scope ``api``."""

    def scope_for(self, view: Any) -> str | None:
        return "api"


class CostThrottle(_Counted):
    """A costly request, in its view's ``throttle_scope`` as well (none: not counted here)."""

    def scope_for(self, view: Any) -> str | None:
        return getattr(view, "throttle_scope", None)
