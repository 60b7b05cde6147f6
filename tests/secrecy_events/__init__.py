"""The secrecy matrix's requests for the table's events (``campaign.table_events``, issue 31).

Every declared event is a page (``pages:event``) and an API endpoint (``api:event-<key>``); the matrix
(``tests/test_secrecy_matrix.py``) fetches the page and sends both a request that would record the
event, as every role. What that request is, and who may send it, is a :class:`Sample` here, one
module per kind of event (``deaths``, ...), each a ``SAMPLES`` dict by event key: an event declared
without one fails the matrix."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.secrecy_cast import Cast


@dataclass(frozen=True)
class Sample:
    body: Callable[[Cast], dict[str, Any]]
    """A request that would record the event in the planted campaign (its fields as the API takes them)."""
    refused: frozenset[str]
    """The members who may not record it (an observer never may; non-members never)."""
    allowed: str | None
    """A role whom the same request gets past the permission checks (None: no one, as planted)."""
    what: str = ""
    """The request in words (the matrix's label)."""


PLAYERS = frozenset({"alice", "bob", "carol"})
GM_ONLY = PLAYERS


def samples() -> dict[str, Sample]:
    from tests.secrecy_events import captures, crowns, deaths, eu_monarchs, minor_houses, pretenders, provinces, titles, trade

    out: dict[str, Sample] = {}
    for module in (deaths, captures, minor_houses, pretenders, titles, crowns, eu_monarchs, trade, provinces):
        clash = set(out) & set(module.SAMPLES)
        assert not clash, f"two samples for {clash}"
        out.update(module.SAMPLES)
    return out
