"""Logging filters (no Django imports: the logging configuration loads before the apps)."""

from __future__ import annotations

import logging


class RequestlessLoginFilter(logging.Filter):
    """Drops Axes' complaint about a failed ``authenticate()`` without a request: such a login is
    not from the network and is not counted on purpose (``config.auth.AxesBackend``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "does not function without a request" not in str(record.msg)
