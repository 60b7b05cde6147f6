"""An observer only looks (issue 35): on the Births, Survival and Titles pages his POST is refused by
the service it reaches, which asks the policy before it reads the step, the form or the title (403,
the policy's own words); the pages raise no 403 of their own ("An observer only looks." was theirs)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from tests.test_secrecy_matrix import ACTIONS, _body, ask, clients, fingerprint, world  # noqa: F401 (the matrix's fixtures)

ROOT = Path(__file__).resolve().parent.parent
STEP_PAGES = ("pages:births", "pages:survival", "pages:titles")
POLICY_SAYS = (
    "An observer only looks: only the GM and the players act.",
    "Only the game master may do this.",
    "Only the player of England's house or the GM decides its succession.",
    "You may act only for your own dynasty: the house that gave the title takes it back",
)
"""What campaign.permissions answers the observer, by check (play, gm, crown, house)."""
OBSERVED = [(key, what) for key, what in ACTIONS if key in STEP_PAGES]


def test_every_action_of_the_step_pages_is_sent() -> None:
    assert {key for key, _ in OBSERVED} == set(STEP_PAGES) and len(OBSERVED) >= 12


@pytest.mark.django_db
@pytest.mark.parametrize("action", OBSERVED, ids=[f"{k}: {what}" for k, what in OBSERVED])
def test_an_observer_s_post_is_refused_by_the_service_with_the_policy_s_words(
    world: Any,  # noqa: F811
    clients: dict[str, Any],  # noqa: F811
    action: tuple[str, str],
) -> None:
    key, _ = action
    act = ACTIONS[action]
    with transaction.atomic():
        before = fingerprint(world)
        answer = ask(clients["observer"], key, act.url(world), "observer", "post", _body(act, world), keep=True)
        after = fingerprint(world)
        transaction.set_rollback(True)
    assert answer.status == 403, (answer.status, (answer.text or "")[:300])
    said = html.unescape(answer.text or "")
    assert [m for m in POLICY_SAYS if m in said], said[:2000]
    assert before == after  # nothing written


@pytest.mark.parametrize("path", ["pages/sequence.py", "pages/titles.py"])
def test_the_step_pages_raise_no_observer_403_of_their_own(path: str) -> None:
    source = (ROOT / path).read_text()
    assert "may_play" not in source
    assert "An observer only looks." not in source
