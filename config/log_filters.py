"""Logging filters (no Django imports: the logging configuration loads before the apps)."""

from __future__ import annotations

import logging
import re


class RequestlessLoginFilter(logging.Filter):
    """Drops Axes' complaint about a failed ``authenticate()`` without a request: such a login is
    not from the network and is not counted on purpose (``config.auth.AxesBackend``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "does not function without a request" not in str(record.msg)


POLL_REQUEST = re.compile(r"^(?:GET|HEAD) /c/[-\w]+/live/(?:\?\S*)? HTTP/")
"""The request line of the live poll (``pages/live.py``: ``/c/<slug>/live/?v=<n>``)."""


class QuietPollFilter(logging.Filter):
    """Drops the development server's line for each answered live poll: every open page asks it every
    700 ms, and those lines would scroll everything else away (the demo's logins first). A poll that
    fails (4xx, 5xx) is still logged. Django's ``log_message`` passes the request line and the status
    as the record's first two arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not isinstance(args, tuple) or len(args) < 2:
            return True
        status = getattr(record, "status_code", None)
        if status is None or status >= 400:
            return True
        return not POLL_REQUEST.match(str(args[0]))
