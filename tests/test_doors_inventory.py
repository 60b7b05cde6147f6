"""Every service that writes a game record has a door a GM (or the player it belongs to) uses at the
table (issue 31): a page, an API path or a desk action, or a one-line reason in
``tests.doors_inventory.NO_DOOR``; and docs/doors.md is the inventory as it stands."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import doors_inventory as inv

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def found() -> list[inv.Service]:
    return inv.inventory()


def test_the_inventory_finds_the_services_and_their_doors(found):
    keys = {s.key for s in found}
    assert len(found) >= 80, "the walk found too few services: it is broken"
    assert "dynasties.services.events.survival_event" in keys
    killed = next(s for s in found if s.key == "dynasties.services.events.survival_event")
    assert any("events/killed/" in d for d in killed.doors) and any(d.startswith("desk:") for d in killed.doors)
    births = next(s for s in found if s.key == "dynasties.services.births.births_attempt")
    assert any(d.startswith("API") for d in births.doors) and any(d.startswith("page") for d in births.doors)


def test_every_service_that_writes_has_a_door_or_says_why_not(found):
    doorless = [s.key for s in found if not s.doors and s.key not in inv.NO_DOOR and s.module not in inv.NO_DOOR_MODULES]
    assert not doorless, (
        "services that write game records with no door (a page, an API path, a desk action; a table event is all "
        f"three: campaign/table_events.py), or name them in tests/doors_inventory.py NO_DOOR with the reason: {doorless}"
    )
    stale = sorted(k for k in inv.NO_DOOR if k in {s.key for s in found if s.doors})
    assert not stale, f"NO_DOOR names services that have a door now: {stale}"
    gone = sorted(set(inv.NO_DOOR) - {s.key for s in found})
    assert not gone, f"NO_DOOR names what is no longer a service that writes: {gone}"


def test_docs_doors_md_is_the_inventory(found):
    current = (ROOT / "docs" / "doors.md").read_text(encoding="utf-8")
    assert current == inv.markdown(found), (
        "docs/doors.md is out of date: DJANGO_SETTINGS_MODULE=config.settings_test .venv/bin/python -m "
        "tests.doors_inventory > docs/doors.md"
    )
