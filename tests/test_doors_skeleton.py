"""One door skeleton (issue 35): the member lookup and the action runner are written once, in
``campaign.doors``, and every door (the pages, the API, the trees, the printables, the GEDCOM
export) calls them instead of writing its own."""

from __future__ import annotations

import ast
from pathlib import Path

import api.common
import pages.common
import pages.gedcom
import pages.prints
import pages.trees
from campaign import doors

ROOT = Path(__file__).resolve().parents[1]
DOORS = ("pages", "api", "dynasties", "contracts", "operations", "desk")


def test_every_door_finds_the_campaign_of_its_url_through_the_one_member_lookup() -> None:
    assert pages.common.member is doors.member
    assert api.common.member is doors.member
    for module in (pages.trees, pages.prints, pages.gedcom):
        assert module.member is doors.member, module.__name__  # type: ignore[attr-defined]


def test_no_door_writes_the_member_lookup_again() -> None:
    """Nowhere but ``campaign.doors`` asks ``role_of`` and answers "No such campaign." itself."""
    again = []
    for package in DOORS:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if "role_of(" in source and "No such campaign." in source:
                again.append(path.relative_to(ROOT).as_posix())
    assert not again, f"a door looks up the member by itself (use campaign.doors.member): {again}"


STEP_ACTION_LEFT = {"api/views/exchange.py": "an import records its key on the campaign it has just made"}


def test_every_door_runs_a_write_through_the_one_action_runner() -> None:
    """The pages and the API run their writes through ``campaign.doors.run_action``; none calls
    ``campaign.undo.step_action`` itself (but the import, which has no campaign before it runs)."""
    again = []
    for package in DOORS:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            where = path.relative_to(ROOT).as_posix()
            if "step_action" in called and where not in STEP_ACTION_LEFT:
                again.append(where)
    assert not again, f"a door runs the step action by itself (use campaign.doors.run_action): {again}"


GAME = ("rules", "campaign", "dynasties", "contracts", "operations")
VIEW_MARKS = ("urlpatterns", "HttpRequest", "HttpResponse", "login_required")


def test_the_doors_live_in_the_doors_layer_not_in_the_game_apps() -> None:
    """The kernel and the game apps hold no view and no URL list: the home page, the trees, the
    printables and the GEDCOM export are ``pages.home``, ``pages.trees``, ``pages.prints`` and
    ``pages.gedcom`` (their URLs mounted by ``config/urls.py``, names and paths unchanged)."""
    found = []
    for package in GAME:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            names |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
            marks = sorted(names & set(VIEW_MARKS))
            if marks:
                found.append(f"{path.relative_to(ROOT).as_posix()}: {', '.join(marks)}")
    assert not found, f"a view or a URL list in a game app (move it to pages/): {found}"
