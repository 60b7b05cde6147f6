"""The kernel knows no game (issue 35, item 4): no model of ``campaign`` points at a model of the
apps above it, no kernel module names one, and the kernel reads a house or a roll's subjects
through what the game registered (``campaign.registry``). What still points up is listed here, and
the list only shrinks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.apps import apps

from campaign import registry

ROOT = Path(__file__).resolve().parent.parent
KERNEL = "campaign"
GAME = ("dynasties", "contracts", "operations", "pages", "api", "desk")
"""The apps above the kernel (.importlinter's layers)."""

STILL_UP: dict[tuple[str, str], str] = {}
"""The kernel's links to the game not yet turned around or moved up: none left (issue 35, item 4)."""


def _upward_links() -> dict[tuple[str, str], str]:
    found = {}
    for model in apps.get_app_config(KERNEL).get_models():
        for field in model._meta.get_fields(include_hidden=True):
            if field.auto_created or not field.is_relation or field.related_model is None:
                continue  # reverse relations are the upper model's own field
            target = field.related_model._meta
            if target.app_label in GAME:
                found[(model._meta.label, field.name)] = target.label
    return found


def test_no_kernel_model_points_at_the_game_but_those_listed():
    assert _upward_links() == STILL_UP


def test_the_kernels_models_module_names_no_game_model_but_those_listed():
    source = (ROOT / KERNEL / "models.py").read_text()
    named = re.findall(rf'"((?:{"|".join(GAME)})\.\w+)"', source)
    assert sorted(named) == sorted(STILL_UP.values())


def test_no_kernel_module_reaches_a_model_through_related_model_by_name():
    """A relation's ``related_model`` is read only by the kernel's generic walks over every
    registered model (integrity, registry), never of a named field to reach the game."""
    for path in sorted((ROOT / KERNEL).glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "related_model":
                base = node.value
                named = isinstance(base, ast.Call) and getattr(base.func, "attr", "") == "get_field"
                assert not named, f"{path.name}:{node.lineno} reaches a model above through a named field"


def test_the_game_registers_what_the_kernel_reads_of_it():
    from contracts.models import ContractPosting
    from dynasties.models import Dynasty, Posting, RollSubject, record_roll_subjects

    assert registry.houses() is Dynasty
    assert registry.roll_subjects() is record_roll_subjects
    assert registry.entry(RollSubject) is not None and registry.entry(RollSubject).campaign_path == "roll__campaign"
    assert RollSubject._meta.db_table == "campaign_rollsubject"  # the table the kernel held it in: rows kept
    assert registry.ledger() is Posting and Posting._meta.db_table == "campaign_posting"
    assert registry.entry(Posting).houses == ("payer", "payee")  # an exchequer's postings: its house's
    assert registry.entry(ContractPosting).houses == ("posting__payer", "posting__payee")  # as its posting


def test_the_ledger_lives_above_the_kernel_and_no_shim_is_left():
    assert not (ROOT / KERNEL / "treasury.py").exists()
    assert (ROOT / "dynasties" / "treasury.py").exists()
    assert "contract" not in {f.name for f in apps.get_model("dynasties", "Posting")._meta.get_fields()}


HISTORY_UP = {
    "0002_initial": {"dynasties"},
    "0003_posting": {"dynasties"},
    "0004_posting_contract_posting_entered_by_posting_marriage_and_more": {"contracts", "dynasties"},
    "0014_dice_entry_certain": {"dynasties"},
    "0015_invitation": {"dynasties"},
    "0022_invariants_carry_their_messages": {"contracts", "dynasties"},
    "0026_membership_seat_kept_by_a_player": {"dynasties"},
    "0027_posting_moves_to_dynasties": {"contracts"},
    "0028_membership_seat_moves_up": {"dynasties"},
}
"""The kernel's applied migrations that depend on an app above: the history of the links that were
(docs/architecture.md, "The kernel knows no game"). Frozen: a database that has run them stays as it
is, and no new migration of the kernel may join them."""


def test_no_new_kernel_migration_depends_on_the_game():
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(None, ignore_no_migrations=True)
    up = {}
    for (app, name), migration in loader.disk_migrations.items():
        if app == KERNEL:
            above = {dep[0] for dep in migration.dependencies if dep[0] in GAME}
            if above:
                up[name] = above
    assert up == HISTORY_UP  # a new kernel migration that depends on an app above fails here
