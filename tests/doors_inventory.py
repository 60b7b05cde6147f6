"""The door inventory (issue 31): every service that writes a game record, and the doors that reach it.

A service is a public function of ``campaign``, ``dynasties``, ``contracts`` or ``operations`` that acts
for someone (it asks the policy for its ``by``: ``tests.test_policy_actor.Walk``) and writes (it locks the
campaign, or runs a step action or a desk change set, itself or through what it calls). Its doors:

- a table event that names it (``campaign.table_events``): its page, its API endpoint, its desk action;
- a view of the pages or the API, or a desk admin, that refers to it (read from their source: the view
  whose body names it, or the views that call the module's helper that does), with its URLs.

A service with no door is named in ``NO_DOOR`` with the reason (e.g. it runs inside another step). The
inventory is written out as ``docs/doors.md`` (``python -m tests.doors_inventory > docs/doors.md`` with
``DJANGO_SETTINGS_MODULE=config.settings_test``): a table a GM can read, of what he can record and where."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver

ROOT = Path(__file__).resolve().parent.parent
DOORS = ("pages", "api", "desk")
WRITERS = {("campaign.steps", "lock_campaign"), ("campaign.undo", "step_action"), ("campaign.undo", "change_set")}

NO_DOOR: dict[str, str] = {
    "campaign.undo.change_set": "the desk's own: every save at the desk runs inside it (desk/admin/scope.py)",
    "contracts.services.parleys.parley_run": "inside parley_hold (the parleys' door) for a breach or any other kind",
    "contracts.services.parleys.readmission_parley": "inside parley_hold (the parleys' door) for a readmission",
    "dynasties.services.claims.claim_renounce": "the consequence of a signed contract's renunciation clause",
    "dynasties.services.eu_setup.eu_campaign_setup": "inside campaign_start (the New campaign page) and the EU demo",
    "dynasties.services.marriages.marriage_arrange_many": "inside marriage_arrange (one match) and the minor houses' offers",
    "dynasties.services.marriages.marriage_wed_many": "inside marriage_wed (one wedding)",
    "dynasties.services.survival.survival_finish": "inside survival_close (the Survival step's finish)",
}
"""Services no door reaches, each with the reason."""

NO_DOOR_MODULES: dict[str, str] = {
    "operations.simulation": "the automatic player (manage.py simulate) plays the law through the services themselves",
    "operations.simulation_options": "the automatic player's optional rules D and H, through the services themselves",
    "operations.simulation_diplomacy": "the automatic player's diplomacy (issue 33), through the services themselves",
    "operations.simulation_provinces": "the automatic player's province register, kept through the services themselves",
    "operations.simulation_corrections": "the automatic player's late corrections (issue 34), through the correction service",
    "operations.play.blood_royale": "Blood Royale's law for the automatic player (issue 35), through the services themselves",
    "operations.play.bloodline": "BloodLine's law for the automatic player (issue 35), through the services themselves",
    "operations.play.eu_monarchs": "the EU monarchs' law for the automatic player (issue 35), through the services themselves",
}
"""Modules whose services are not the table's to call, with the reason."""


@dataclass
class Service:
    module: str
    name: str
    fn: Any
    doors: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def summary(self) -> str:
        doc = inspect.getdoc(self.fn) or ""
        return " ".join(doc.split("\n\n")[0].split())


def _writes(walk: Any, functions: list[tuple[str, str, Any]]) -> set[int]:
    """The functions that write: call a writer, or a function that does (to a fixed point)."""
    writing: set[int] = set()
    by_id = {id(fn): fn for _, _, fn in functions}
    calls: dict[int, set[int]] = {}
    direct: set[int] = set()
    for _, _, fn in functions:
        tree = walk.trees[id(fn)]
        local = _local(tree)
        found: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                callee = walk._callee(fn, local, node.func)
                target = inspect.unwrap(callee) if callable(callee) else None
                if target is None:
                    continue
                if (getattr(target, "__module__", ""), getattr(target, "__name__", "")) in WRITERS:
                    direct.add(id(fn))
                elif id(target) in by_id:
                    found.add(id(target))
        calls[id(fn)] = found
    writing |= direct
    changed = True
    while changed:
        changed = False
        for fid, targets in calls.items():
            if fid not in writing and targets & writing:
                writing.add(fid)
                changed = True
    return writing


def _local(tree: ast.AST) -> dict[str, Any]:
    from tests.test_policy_actor import _local_imports

    return _local_imports(tree)


def services() -> list[Service]:
    """Every public service that acts for someone and writes, in module then name order."""
    from tests.test_policy_actor import Walk, _functions, _service_modules

    functions = [(m.__name__, name, fn) for m in _service_modules() for name, fn in _functions(m)]
    walk = Walk(functions)
    writing = _writes(walk, functions)
    found = {
        (m, n): Service(m, n, fn)
        for m, n, fn in functions
        if id(fn) in walk.acting and id(fn) in writing and not n.startswith("_") and "by" in inspect.signature(fn).parameters
    }
    return [found[k] for k in sorted(found)]


# --- the doors ---------------------------------------------------------------------------------------


def _routes() -> list[tuple[str, Any]]:
    """Every URL pattern of the site: (route, its view's callable)."""
    out: list[tuple[str, Any]] = []

    def walk(resolver: URLResolver, prefix: str) -> None:
        for p in resolver.url_patterns:
            if isinstance(p, URLResolver):
                walk(p, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                out.append((prefix + str(p.pattern), p.callback))

    walk(get_resolver(), "")
    return [(re.sub(r"<\w+:(\w+)>", r"<\1>", route), callback) for route, callback in out]


def _view_of(callback: Any) -> Any:
    """The function or class a route's callback was made from."""
    for attr in ("view_class", "cls"):
        if hasattr(callback, attr):
            return getattr(callback, attr)
    return inspect.unwrap(callback)


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    """The module's functions, classes and named values (``INTERPHASE = MoneyFlow(...)``: a view
    that names the value reaches the services it holds)."""
    out: dict[str, ast.AST] = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    for n in tree.body:
        if isinstance(n, ast.Assign | ast.AnnAssign):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            out.update({t.id: n for t in targets if isinstance(t, ast.Name) and t.id not in out})
    return out


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _door_modules() -> Iterator[tuple[types.ModuleType, str]]:
    for door in DOORS:
        for path in sorted((ROOT / door).rglob("*.py")):
            if "migrations" in path.parts or "templatetags" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield importlib.import_module(name.removesuffix(".__init__")), path.read_text(encoding="utf-8")


def _refers(module: types.ModuleType, node: ast.AST, service: Service) -> bool:
    """Whether ``node`` (of ``module``) names the service: by a name imported into the module, or as
    an attribute of a module imported into it (``services.contract_draft``)."""
    for n in ast.walk(node):
        value = None
        if isinstance(n, ast.Name):
            value = getattr(module, n.id, None)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            base = getattr(module, n.value.id, None)
            value = getattr(base, n.attr, None) if isinstance(base, types.ModuleType) else None
        if value is not None and callable(value) and inspect.unwrap(value) is service.fn:
            return True
    return False


def _views(module: types.ModuleType, tree: ast.Module, start: str) -> set[str]:
    """The module's top-level names (views, admins) that reach ``start``: itself, or those that
    name a private helper that reaches it (to a fixed point)."""
    top = _top_level(tree)
    reach, frontier = {start}, {start}
    while frontier:
        new = {name for name, node in top.items() if name not in reach and _names_in(node) & frontier}
        reach |= new
        frontier = new
    return {n for n in reach if not n.startswith("_")}


def _desk_label(cls: Any) -> str | None:
    for model, model_admin in admin.site._registry.items():
        if isinstance(model_admin, cls):
            return f"desk: {model._meta.verbose_name_plural}"
    return None


def find_doors(found: list[Service]) -> list[Service]:
    from campaign.table_events import events

    routes = _routes()
    for e in events():
        for s in found:
            if any(inspect.unwrap(fn) is s.fn for fn in e.services):
                s.doors.append(f"page `c/<slug>/events/{e.key}/` ({e.label})")
                s.doors.append(f"API `POST campaigns/<slug>/events/{e.key}/`")
                if e.desk:
                    s.doors.append(f"desk: characters, “At the table: {e.desk}”")
    for module, source in _door_modules():
        tree = ast.parse(source)
        for name, node in _top_level(tree).items():
            for s in found:
                if not _refers(module, node, s):
                    continue
                for view in sorted(_views(module, tree, name)):
                    obj = getattr(module, view, None)
                    urls = sorted({r for r, cb in routes if _view_of(cb) is obj or _view_of(cb) is inspect.unwrap(obj)})
                    desk = _desk_label(obj) if inspect.isclass(obj) and module.__name__.startswith("desk.") else None
                    kind = "API" if module.__name__.startswith("api.") else "page"
                    s.doors += [f"{kind} `{u}`" for u in urls]
                    if desk:
                        s.doors.append(desk)
    for s in found:
        s.doors = sorted(set(s.doors))
    return found


def inventory() -> list[Service]:
    return find_doors(services())


def markdown(found: list[Service]) -> str:
    lines = [
        "# What the GM can record, and where",
        "",
        "Every service that writes a game record, and the doors that reach it: the pages, the API (under",
        "`/api/v1/`), the desk (`/admin/`). Generated by `tests/doors_inventory.py` (`tests/test_doors_inventory.py`",
        "checks it is current); what the table decides is on the campaign's **At the table** page (`c/<slug>/events/`).",
        "",
        "| service | what it records | doors |",
        "|---|---|---|",
    ]
    for s in found:
        if s.module in NO_DOOR_MODULES:
            continue
        doors = "; ".join(s.doors) if s.doors else f"none: {NO_DOOR.get(s.key, '?')}"
        what = s.summary.replace("|", "\\|")
        lines.append(f"| `{s.key}` | {what} | {doors.replace('|', chr(92) + '|')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import django

    django.setup()
    print(markdown(inventory()), end="")
